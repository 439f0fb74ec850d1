/* fuzz_profile.c - libFuzzer target for the YAML profile loader and the view
 *
 * The input is a profile's text. It either loads or is refused with one
 * printable "fuzz.yaml:LINE:COL: message" line; a loaded one must make a view
 * that runs a fixed stream of events, twice, and gives back a subsequence of
 * it in input order. The limits of the loader (aliases, nesting, sizes) keep
 * every input cheap, which the fuzzer's timeout and memory limit check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static struct vxt_objtab *objs;
static struct vxt_strtab *strs;
static struct vxt_event evs[64];

static void init(void)
{
	static const char *const names[] = { "sda", "sdb", "dm-0", "nvme0n1" };

	objs = vxt_objtab_new();
	strs = vxt_strtab_new();
	check(objs && strs);
	for (unsigned i = 0; i < 4; i++)
		vxt_objtab_add(objs, 8 << 20 | i, names[i], 1, 1 << 30);
	vxt_strtab_intern(strs, "fio", 3);
	for (unsigned i = 0; i < 64; i++) {
		struct vxt_event *e = &evs[i];

		e->time_ns = 1000000000ull + i * 3000000ull;
		e->object = i % 4;
		e->pid = 100 + i % 3;
		e->comm = i % 2;
		e->sector = (i / 2) * 8;
		e->bytes = 4096;
		e->phase = i % 2 ? VXT_PH_DONE : VXT_PH_START;
		e->latency_ns = i % 2 ? i * 1000000ull : 0;
		e->error = i % 13 == 5 ? -5 : 0;
		e->op = (uint8_t)(i % 3);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p;
	struct vxt_view *v;
	struct vxt_spec_event out;
	uint64_t last = 0;
	bool any = false;

	if (!objs)
		init();
	err[0] = '\0';
	p = vxt_profile_parse((const char *)data, size, "fuzz.yaml", err);
	if (!p) {
		check(!strncmp(err, "fuzz.yaml:", 10));
		for (const char *m = err; *m; m++)	/* one line, no terminal controls */
			check((unsigned char)*m >= 0x20 && *m != 0x7f);
		return 0;
	}
	v = vxt_view_new(p, NULL, objs, strs, err);
	check(v != NULL);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 64; i++) {
			check(vxt_view_push(v, &evs[i], 1) == 0);
			while (vxt_view_next(v, &out) == 1) {
				check(!any || out.seq > last);
				check(!memcmp(&out.ev, &evs[out.seq % 64], sizeof(out.ev)) ||
				      pass == 1);
				last = out.seq;
				any = true;
			}
		}
		if (pass == 0)
			for (int i = 0; i < 64; i++)
				evs[i].time_ns += 1000000000ull;
	}
	vxt_view_finish(v);
	while (vxt_view_next(v, &out) == 1) {
		check(!any || out.seq > last);
		last = out.seq;
		any = true;
	}
	for (int i = 0; i < 64; i++)
		evs[i].time_ns -= 1000000000ull;
	vxt_view_free(v);
	vxt_profile_free(p);
	return 0;
}
