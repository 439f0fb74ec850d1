/* test_filter_lower.c - a profile's predicate as D's, against the filter
 *
 * 2 000 random filter expressions (comparisons of bytes, sector, latency,
 * error, pid, cpu, time and dev with numbers, op and phase by name, flags
 * by name, object and command names and globs, bare error, ! && || and
 * parentheses,
 * nested up to 5 levels) are a
 * profile's trace clause's predicate: the events the profile traces (its
 * predicate lowered to D and compiled by the script compiler,
 * filter_lower.c) must be those vxt_filter_eval() accepts, over random
 * events of three objects and three commands. Most of them must lower (the
 * rest keep the filter's own step, and must agree all the same).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "select/spec_impl.h"
#include "vxtrace/vxtrace.h"

static uint64_t rng = 0x6a09e667f3bcc909ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 20) % n;
}

static void expr(char *out, size_t size, unsigned depth)
{
	static const char *const fields[] = { "bytes", "sector", "latency", "error", "pid",
					      "cpu" };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	static const unsigned nums[] = { 0, 1, 5, 8, 100, 4096, 8192, 20000 };
	char a[2048], b[2048];

	switch (depth ? rnd(7) : rnd(4)) {
	case 0:
	{
		unsigned fi = rnd(6);

		snprintf(out, size, "%s %s %u%s", fields[fi], ops[rnd(6)], nums[rnd(8)],
			 fi == 2 ? "us" : "");	/* latency takes a unit */
	}
		return;
	case 1:
		snprintf(out, size, "%s %s %s", rnd(2) ? "object" : "comm",
			 (const char *const[]){ "==", "!=", "~", "!~" }[rnd(4)],
			 (const char *const[]){ "sda", "sdb", "dd", "fio", "zzz", "\"sd*\"",
						"\"?d\"", "\"[fk]*\"" }[rnd(8)]);
		return;
	case 2:
		snprintf(out, size, "%s", rnd(2) ? "error" : rnd(2) ? "flags == sync" :
			 "flags != fua");
		return;
	case 3:
		switch (rnd(5)) {
		case 0: snprintf(out, size, "latency >= %uus", 1 + rnd(300)); return;
		case 1: snprintf(out, size, "op %s %s", rnd(2) ? "==" : "!=",
				 rnd(2) ? "read" : "write"); return;
		case 2: snprintf(out, size, "phase == %s", rnd(2) ? "start" : "done"); return;
		case 3: snprintf(out, size, "time %s %uus", ops[rnd(6)], rnd(400)); return;
		default: snprintf(out, size, "dev %s 8:%u", ops[rnd(6)], rnd(3)); return;
		}
	case 4:
		expr(a, sizeof(a), depth - 1);
		snprintf(out, size, "!(%s)", a);
		return;
	default:
		expr(a, sizeof(a), depth - 1);
		expr(b, sizeof(b), depth - 1);
		snprintf(out, size, "(%s %s %s)", a, rnd(2) ? "&&" : "||", b);
		return;
	}
}

START_TEST(test_lowered_predicates)
{
	static const char *const names[] = { "sda", "sdb", "nvme0n1" };
	static const char *const comms[] = { "fio", "dd", "kworker" };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event ev[300];
	unsigned lowered = 0, total = 2000;

	ck_assert(objs && strs);
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
	for (unsigned k = 0; k < total; k++) {
		struct vxt_spec_config c = { .key = VXT_SPEC_KEY_OBJECT, .nclauses = 1 };
		char text[8192], err[VXT_ERRBUF_SIZE];
		struct vxt_filter *f;
		struct vxt_spec *sp;
		struct vxt_script *s;
		struct vxt_spec_event out;
		size_t want = 0, got = 0;

		expr(text, sizeof(text), 1 + rnd(5));
		c.clauses[0].probes = VXT_PROBE_ANY;
		c.clauses[0].predicate = text;
		c.clauses[0].nactions = 1;
		c.clauses[0].actions[0] = VXT_ACT_TRACE;
		f = vxt_filter_compile(text, objs, strs, err);
		ck_assert_msg(f != NULL, "%s: %s", text, err);
		s = vxt_script_keyed(&c, objs, strs, err);
		ck_assert_msg(s != NULL, "%s: %s", text, err);
		lowered += !s->cl[0].pred || s->cl[0].pred->kind != SN_KEYED;
		vxt_script_free(s);
		sp = vxt_spec_new(&c, objs, strs, err);
		ck_assert_msg(sp != NULL, "%s: %s", text, err);
		for (size_t i = 0; i < 300; i++) {
			struct vxt_event *e = &ev[i];

			memset(e, 0, sizeof(*e));
			e->time_ns = 1000000 + i * 1000;
			e->phase = rnd(2) ? VXT_PH_DONE : VXT_PH_START;
			e->object = rnd(3);
			e->comm = rnd(4);	/* 3: past the table, "" */
			e->sector = (uint64_t)rnd(3) * 8;
			e->bytes = rnd(2) ? 4096 : 8192;
			e->pid = rnd(3) ? 100 : 5;
			e->cpu = (uint16_t)rnd(3);
			e->flags = (uint16_t)rnd(4);
			e->op = (uint8_t)rnd(3);
			e->error = e->phase == VXT_PH_DONE && !rnd(4) ? -5 : 0;
			e->latency_ns = e->phase == VXT_PH_DONE ? (uint64_t)rnd(400) * 1000 : 0;
		}
		for (size_t i = 0; i < 300; i++)
			ck_assert_int_eq(vxt_spec_push(sp, &ev[i]), 0);
		vxt_spec_finish(sp);
		for (size_t i = 0; i < 300; i++)
			want += vxt_filter_eval(f, &ev[i], &(struct vxt_filter_ctx){ .spec = false });
		for (size_t i = 0; vxt_spec_next(sp, &out) == 1; i++) {
			ck_assert_msg(vxt_filter_eval(f, &ev[out.seq],
						      &(struct vxt_filter_ctx){ .spec = false }),
				      "%s: event %llu traced, the filter refuses it", text,
				      (unsigned long long)out.seq);
			got++;
		}
		ck_assert_msg(got == want, "%s: %zu events traced, the filter accepts %zu", text,
			      got, want);
		vxt_spec_free(sp);
		vxt_filter_free(f);
	}
	ck_assert_msg(lowered * 10 >= total * 9, "%u of %u lowered", lowered, total);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *filter_lower_suite(void)
{
	Suite *s = suite_create("filter_lower");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lowered_predicates);
	suite_add_tcase(s, tc);
	return s;
}
