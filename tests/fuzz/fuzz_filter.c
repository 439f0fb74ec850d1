/* fuzz_filter.c - libFuzzer target for the filter expression compiler
 *
 * The first input byte picks the options (speculation predicates allowed or
 * not, a name and start position for messages); the rest is the expression.
 * A compiled filter is evaluated on a fixed set of events, twice and after a
 * rebind to other tables, and must answer the same each time; a rejected one
 * must say where (line and column >= 1) and why, on one line free of
 * terminal control characters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/filter.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static struct vxt_objtab *objs, *objs2;
static struct vxt_strtab *strs, *strs2;
static struct vxt_event evs[24];

static void init(void)
{
	static const char *const names[] = { "sda", "sdb1", "dm-0", "nvme0n1", "loop7" };
	static const char *const comms[] = { "fio", "kworker/u8:2", "jbd2/sda1-8", "dd" };

	objs = vxt_objtab_new();
	objs2 = vxt_objtab_new();
	strs = vxt_strtab_new();
	strs2 = vxt_strtab_new();
	check(objs && objs2 && strs && strs2);
	for (unsigned i = 0; i < 5; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_objtab_add(objs2, 8 << 20 | i, names[4 - i], 1, 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
		vxt_strtab_intern(strs2, comms[3 - i], strlen(comms[3 - i]));
	}
	for (unsigned i = 0; i < 24; i++) {
		struct vxt_event *e = &evs[i];

		e->time_ns = 1000000000ull + i * 37000000ull;
		e->sector = (uint64_t)i * 977 * (i % 5 == 4 ? 1ull << 40 : 1);
		e->latency_ns = i % 2 ? (uint64_t)i * i * 150000 : 0;
		e->bytes = 512u << (i % 9);
		e->object = i % 6 == 5 ? 99 : i % 5;		/* 99: not in the table */
		e->pid = i * 1013;
		e->comm = i % 5;				/* 4: not in strs */
		e->flags = (uint16_t)(i * 0x15);
		e->cpu = (uint16_t)(i % 3);
		e->error = i % 7 == 3 ? -5 : i % 11 == 4 ? -28 : 0;
		e->phase = (uint8_t)(i % VXT_PH_COUNT);
		e->op = (uint8_t)(i % VXT_OP_COUNT);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vxt_filter_opts o = { 0 };
	struct vxt_filter_error fe;
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f;
	char *expr;
	bool first[24];

	if (!objs)
		init();
	if (!size)
		return 0;
	o.flags = data[0] & 1 ? VXT_FILTER_SPEC : 0;
	if (data[0] & 2) {
		o.name = "profile.yaml";
		o.line = 7;
		o.col = 12;
	}
	expr = malloc(size);
	if (!expr)
		return 0;
	memcpy(expr, data + 1, size - 1);
	expr[size - 1] = '\0';
	f = vxt_filter_compile_opts(expr, &o, objs, strs, &fe, err);
	if (!f) {
		check(fe.line >= 1 && fe.col >= 1 && fe.msg[0] != '\0');
		check(err[0] != '\0');
		/* one printable line: messages quote the input */
		for (const char *m = err; *m; m++)
			check((unsigned char)*m >= 0x20 && *m != 0x7f);
		free(expr);
		return 0;
	}
	check(vxt_filter_source(f) != NULL);
	check(vxt_filter_ntests(f) <= VXT_FILTER_MAX_TESTS);
	vxt_filter_is_true(f);
	vxt_filter_set_time_base(f, data[0] & 4 ? 1000000000ull : 0);
	for (int i = 0; i < 24; i++) {
		struct vxt_filter_ctx ctx = { .spec = i & 1 };

		first[i] = vxt_filter_eval(f, &evs[i], &ctx);
	}
	for (int i = 0; i < 24; i++) {
		struct vxt_filter_ctx ctx = { .spec = i & 1 };

		check(vxt_filter_eval(f, &evs[i], &ctx) == first[i]);
	}
	vxt_filter_bind(f, objs2, strs2);
	for (int i = 0; i < 24; i++)
		vxt_filter_matches(f, &evs[i]);
	vxt_filter_bind(f, NULL, NULL);
	for (int i = 0; i < 24; i++)
		vxt_filter_matches(f, &evs[i]);
	vxt_filter_bind(f, objs, strs);
	for (int i = 0; i < 24; i++) {
		struct vxt_filter_ctx ctx = { .spec = i & 1 };

		check(vxt_filter_eval(f, &evs[i], &ctx) == first[i]);
	}
	vxt_filter_free(f);
	free(expr);
	return 0;
}
