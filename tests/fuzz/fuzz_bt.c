/* fuzz_bt.c - libFuzzer target for the bpftrace front-end and the engine
 *
 * The input is a bpftrace program (read as one by its name, f.bt). A
 * rejected one must say where (file:line:col with line and column >= 1, or
 * the file alone) and why, on one printable line.
 * An accepted one runs over a fixed stream of overlapping I/Os (queues,
 * starts, requeues, done with and without errors, a lost marker) with
 * small buffers and aggregation memory, so speculation, drops, ticks and
 * printing are exercised, with events of the phases only bpftrace's
 * probes see (getrq, insert, merge, plug); it must never crash, and what
 * it prints must stay within what its clauses may record.
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
	static const char *const names[] = { "sda", "sdb1", "dm-0" };
	static const char *const comms[] = { "fio", "kworker/u8:2", "dd" };
	static const uint8_t phases[] = { VXT_PH_QUEUE, VXT_PH_START, VXT_PH_REQUEUE,
					  VXT_PH_START, VXT_PH_DONE };
	static const uint8_t other[] = { VXT_PH_GETRQ, VXT_PH_INSERT, VXT_PH_MERGE,
					 VXT_PH_PLUG };

	objs = vxt_objtab_new();
	strs = vxt_strtab_new();
	check(objs && strs);
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
	for (unsigned i = 0; i < 64; i++) {
		struct vxt_event *e = &evs[i];

		e->time_ns = 1000000000ull + i * 7000000ull;	/* ticks and cleaning happen */
		e->phase = i == 40 ? VXT_PH_LOST : i % 7 == 6 ? other[i % 4] : phases[i % 5];
		e->flags = (uint16_t)(i & 0x3f);
		e->object = (i / 5) % 3;
		e->sector = (i / 10) * 8;			/* overlapping requests */
		e->bytes = 4096;
		e->pid = 100 + (i / 5) % 4;
		e->comm = 1 + (i / 5) % 3;
		e->latency_ns = e->phase == VXT_PH_DONE ? 1000 * i : 0;
		e->error = e->phase == VXT_PH_DONE && i % 3 == 0 ? -5 : 0;
		e->op = (uint8_t)(i % 3);
		e->cpu = (uint16_t)(i % 4);
	}
}

static size_t printed;

static int sink(void *arg, const struct vxt_script_rec *r)
{
	(void)arg;
	check(r->text != NULL);
	check(strlen(r->text) == r->len);
	printed += r->len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const x[] = { "specsize=2k", "aggsize=16k", "nspec=3" };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s;

	if (!objs)
		init();
	s = vxt_script_compile((const char *)data, size, "f.bt", x, 3, err);
	if (!s) {
		const char *p = strstr(err, "f.bt");

		check(p == err);
		check(strchr(err, '\n') == NULL);
		if (err[4] == ':') {
			unsigned line = 0, col = 0;

			check(sscanf(err + 5, "%u:%u:", &line, &col) != 2 || (line >= 1 && col >= 1));
		}
		for (p = err; *p; p++)
			check((unsigned char)*p >= 0x20 && *p != 0x7f);
		return 0;
	}
	printed = 0;
	if (vxt_script_start(s, objs, strs, sink, NULL) == 0) {
		for (unsigned i = 0; i < 64 && !vxt_script_exited(s, NULL); i++)
			if (vxt_script_push(s, &evs[i], i) < 0)
				break;
		vxt_script_end(s);
	}
	vxt_script_free(s);
	return 0;
}
