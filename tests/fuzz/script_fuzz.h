/* script_fuzz.h - the harness fuzz_script.c (D) and fuzz_bt.c (bpftrace)
 * share: one program compiled as file @name, its refusal checked, its run
 * over a fixed stream of events
 *
 * A rejected program must say where (NAME:line:col with line and column
 * >= 1, or the file alone) and why, on one printable line. An accepted one
 * runs over 64 overlapping I/Os (queues, starts, requeues, done with and
 * without errors, a lost marker; for bpftrace also the phases only its
 * probes see, getrq, insert, merge and plug, and flags) with small buffers
 * and aggregation memory, so speculation, drops, ticks and printing are
 * exercised; it must never crash, and what it prints must stay within what
 * its clauses may record.
 */
#ifndef VXT_TESTS_SCRIPT_FUZZ_H
#define VXT_TESTS_SCRIPT_FUZZ_H

#include <stdbool.h>
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

static void init(bool bt)
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
		e->phase = i == 40 ? VXT_PH_LOST :
			   bt && i % 7 == 6 ? other[i % 4] : phases[i % 5];
		if (bt)
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

/* One input, compiled as file @name ("f.d", "f.bt": its dialect). */
static int script_fuzz_one(const uint8_t *data, size_t size, const char *name, bool bt)
{
	static const char *const x[] = { "specsize=2k", "aggsize=16k", "nspec=3" };
	size_t n = strlen(name);
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s;

	if (!objs)
		init(bt);
	s = vxt_script_compile((const char *)data, size, name, x, 3, err);
	if (!s) {
		const char *p = strstr(err, name);

		check(p == err);
		check(strchr(err, '\n') == NULL);
		if (err[n] == ':') {
			unsigned line = 0, col = 0;

			check(sscanf(err + n + 1, "%u:%u:", &line, &col) != 2 ||
			      (line >= 1 && col >= 1));
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

#endif
