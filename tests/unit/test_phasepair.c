/* test_phasepair.c - each completion's own intervals (phasepair.h) against
 * the times the I/Os were generated with, and the interval fields of
 * filters (q2c > X, ...) against a count over those known intervals
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"
#include "vxtrace/filter.h"
#include "vxtrace/phasepair.h"
#include "vxtrace/script.h"
#include "fixture.h"

#define NIO 3000
#define NONE UINT64_MAX

/* One generated I/O: its phase times (NONE = the phase is left out). */
struct gio {
	uint32_t object;
	uint64_t sector;
	uint64_t t[5];		/* Q G I D C */
};

struct gev {
	struct vxt_event ev;
	int io;			/* the I/O of a completion, else -1 */
};

static int cmp_gev(const void *a, const void *b)
{
	const struct gev *x = a, *y = b;

	return x->ev.time_ns < y->ev.time_ns ? -1 : x->ev.time_ns > y->ev.time_ns;
}

/* I/Os at distinct sectors per object, overlapping in time; some lack
 * phases (a capture that missed them), some come as issue + completion
 * alone with a latency. */
static size_t gen(struct gio *io, struct gev *ev, uint64_t seed)
{
	static const uint8_t ph[5] = { VXT_PH_QUEUE, VXT_PH_GETRQ, VXT_PH_INSERT, VXT_PH_START,
				       VXT_PH_DONE };
	uint64_t s = seed;
	size_t n = 0;

	for (int i = 0; i < NIO; i++) {
		uint64_t t = 1000 + (uint64_t)i * 700 + ut_rand(&s) % 500;
		unsigned miss = (unsigned)(ut_rand(&s) % 8);	/* 0..2: one phase missing */

		io[i].object = (uint32_t)(ut_rand(&s) % 3);
		io[i].sector = (uint64_t)i * 64 + 8;	/* distinct */
		for (int k = 0; k < 5; k++) {
			t += 1 + ut_rand(&s) % 20000;
			io[i].t[k] = t;
		}
		if (miss < 3)
			io[i].t[miss] = NONE;	/* Q, G or I never seen */
		for (int k = 0; k < 5; k++) {
			struct vxt_event *e = &ev[n].ev;

			if (io[i].t[k] == NONE)
				continue;
			*e = (struct vxt_event){ .time_ns = io[i].t[k], .sector = io[i].sector,
						 .bytes = 4096, .object = io[i].object,
						 .phase = ph[k], .op = VXT_OP_READ };
			if (k == 4)
				e->latency_ns = io[i].t[4] - io[i].t[3];
			ev[n++].io = k == 4 ? i : -1;
		}
	}
	qsort(ev, n, sizeof(*ev), cmp_gev);
	return n;
}

static uint64_t want(const struct gio *io, unsigned iv)
{
	static const int from[VXT_IV_COUNT] = { 0, 3, 0, 0, 1, 2 }, to[VXT_IV_COUNT] = { 3, 4, 4, 1, 2, 3 };
	uint64_t a = io->t[from[iv]], b = io->t[to[iv]];

	return a == NONE || b == NONE ? VXT_IV_UNSET : b - a;
}

START_TEST(test_against_generated)
{
	struct gio *io = malloc(NIO * sizeof(*io));
	struct gev *ev = malloc(NIO * 5 * sizeof(*ev));
	struct vxt_phasepair *p = vxt_phasepair_new();
	struct vxt_ivals iv;
	size_t n = gen(io, ev, 0x1234567), done = 0;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(vxt_phasepair_add(p, &ev[i].ev, &iv), 0);
		for (unsigned k = 0; k < VXT_IV_COUNT; k++) {
			uint64_t w = ev[i].io < 0 ? VXT_IV_UNSET : want(&io[ev[i].io], k);

			ck_assert_msg(iv.v[k] == w, "event %zu %s: got %llu, want %llu", i,
				      vxt_iv_name(k), (unsigned long long)iv.v[k],
				      (unsigned long long)w);
		}
		done += ev[i].io >= 0;
	}
	ck_assert_uint_eq(done, NIO);
	ck_assert_uint_eq(vxt_phasepair_open(p), 0);
	vxt_phasepair_free(p);
	free(io);
	free(ev);
}
END_TEST

/* Issue and completion alone: d2c is the completion's latency. */
START_TEST(test_issue_only_latency)
{
	struct vxt_phasepair *p = vxt_phasepair_new();
	struct vxt_event c = { .time_ns = 5000, .sector = 8, .bytes = 512, .latency_ns = 1234,
			       .phase = VXT_PH_DONE };
	struct vxt_ivals iv;

	ck_assert_int_eq(vxt_phasepair_add(p, &c, &iv), 0);
	ck_assert_uint_eq(iv.v[VXT_IV_D2C], 1234);
	ck_assert(iv.v[VXT_IV_Q2C] == VXT_IV_UNSET);
	vxt_phasepair_free(p);
}
END_TEST

/* A bio queued after a request and merged into it: the completion is the
 * request's; a front merge moves the request to the bio's sector. */
START_TEST(test_merges)
{
	struct vxt_phasepair *p = vxt_phasepair_new();
	struct vxt_ivals iv;
	struct vxt_event e[] = {
		{ .time_ns = 100, .sector = 16, .bytes = 4096, .phase = VXT_PH_QUEUE },
		{ .time_ns = 110, .sector = 16, .bytes = 4096, .phase = VXT_PH_GETRQ },
		{ .time_ns = 120, .sector = 24, .bytes = 4096, .phase = VXT_PH_QUEUE },
		{ .time_ns = 125, .sector = 24, .bytes = 4096, .phase = VXT_PH_MERGE },	/* back */
		{ .time_ns = 130, .sector = 8, .bytes = 4096, .phase = VXT_PH_QUEUE },
		{ .time_ns = 135, .sector = 8, .bytes = 4096, .phase = VXT_PH_MERGE },	/* front */
		{ .time_ns = 140, .sector = 8, .bytes = 12288, .phase = VXT_PH_INSERT },
		{ .time_ns = 150, .sector = 8, .bytes = 12288, .phase = VXT_PH_START },
		{ .time_ns = 190, .sector = 8, .bytes = 12288, .phase = VXT_PH_DONE },
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		ck_assert_int_eq(vxt_phasepair_add(p, &e[i], &iv), 0);
	ck_assert_uint_eq(iv.v[VXT_IV_Q2C], 90);	/* the request's queue at 100 */
	ck_assert_uint_eq(iv.v[VXT_IV_Q2G], 10);
	ck_assert_uint_eq(iv.v[VXT_IV_G2I], 30);
	ck_assert_uint_eq(iv.v[VXT_IV_I2D], 10);
	ck_assert_uint_eq(iv.v[VXT_IV_D2C], 40);
	ck_assert_uint_eq(vxt_phasepair_open(p), 0);
	vxt_phasepair_free(p);
}
END_TEST

/* A filter on an interval field against a count over the known intervals:
 * false (for every operator) where the interval is unknown. */
START_TEST(test_filter_fields)
{
	static const char *const ops[] = { ">", ">=", "<", "<=", "==", "!=" };
	struct gio *io = malloc(NIO * sizeof(*io));
	struct gev *ev = malloc(NIO * 5 * sizeof(*ev));
	size_t n = gen(io, ev, 0xabcdef);
	char expr[64], err[VXT_ERRBUF_SIZE];

	for (unsigned k = 0; k < VXT_IV_COUNT; k++)
		for (unsigned o = 0; o < 6; o++) {
			uint64_t x = 7000 + 1000 * o;	/* ns */
			struct vxt_phasepair *p = vxt_phasepair_new();
			struct vxt_filter *f;
			size_t got = 0, exp = 0;

			snprintf(expr, sizeof(expr), "%s %s %lluns", vxt_iv_name(k), ops[o],
				 (unsigned long long)x);
			f = vxt_filter_compile(expr, NULL, NULL, err);
			ck_assert_msg(f != NULL, "%s: %s", expr, err);
			ck_assert(vxt_filter_uses_intervals(f));
			for (size_t i = 0; i < n; i++) {
				struct vxt_ivals iv;
				struct vxt_filter_ctx ctx = { .iv = &iv };
				uint64_t w;

				vxt_phasepair_add(p, &ev[i].ev, &iv);
				got += vxt_filter_eval(f, &ev[i].ev, &ctx);
				if (ev[i].io < 0 || (w = want(&io[ev[i].io], k)) == VXT_IV_UNSET)
					continue;
				exp += o == 0 ? w > x : o == 1 ? w >= x : o == 2 ? w < x :
				       o == 3 ? w <= x : o == 4 ? w == x : w != x;
			}
			ck_assert_msg(got == exp, "%s: %zu events, want %zu", expr, got, exp);
			/* without intervals every comparison is false */
			ck_assert(!vxt_filter_matches(f, &ev[n - 1].ev));
			vxt_filter_free(f);
			vxt_phasepair_free(p);
		}
	free(io);
	free(ev);
}
END_TEST

START_TEST(test_filter_errors)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile("q2c > 5", NULL, NULL, err);

	ck_assert_ptr_null(f);
	ck_assert_ptr_nonnull(strstr(err, "needs a unit"));
	f = vxt_filter_compile("i2d", NULL, NULL, err);	/* bare: known */
	ck_assert_ptr_nonnull(f);
	ck_assert(!vxt_filter_matches(f, &(struct vxt_event){ .phase = VXT_PH_DONE }));
	vxt_filter_free(f);
	f = vxt_filter_compile("latency > 1ms", NULL, NULL, err);
	ck_assert(!vxt_filter_uses_intervals(f));
	vxt_filter_free(f);
}
END_TEST

/* Script fields: the count and sum of known q2c over x, and a count of the
 * completions where i2d is unknown (0), against the generated I/Os. */
START_TEST(test_script_fields)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::done /q2c > 9000/ { n = n + 1; t = t + q2c; }\n"
		"io:::done /i2d == 0/ { u = u + 1; }\n"
		"END { printf(\"n %d\\ns %d\\nu %d\\n\", n, t, u); }\n";
	struct gio *io = malloc(NIO * sizeof(*io));
	struct gev *ev = malloc(NIO * 5 * sizeof(*ev));
	size_t n = gen(io, ev, 0x5151), cn = 0, cu = 0;
	uint64_t sum = 0;
	char err[VXT_ERRBUF_SIZE], expect[256];
	struct vxt_script *s = vxt_script_compile(text, strlen(text), "t.d", NULL, 0, err);
	struct ut_script_out o = { 0 };

	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &o), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vxt_script_push(s, &ev[i].ev, i), 0);
	ck_assert_int_eq(vxt_script_end(s), 0);
	for (int i = 0; i < NIO; i++) {
		uint64_t q = want(&io[i], VXT_IV_Q2C), d = want(&io[i], VXT_IV_I2D);

		if (q != VXT_IV_UNSET && q > 9000) {
			cn++;
			sum += q;
		}
		cu += d == VXT_IV_UNSET || d == 0;
	}
	snprintf(expect, sizeof(expect), "n %zu\ns %llu\nu %zu\n", cn, (unsigned long long)sum, cu);
	ck_assert_str_eq(o.text, expect);
	ut_script_out_free(&o);
	vxt_script_free(s);
	free(io);
	free(ev);
}
END_TEST

Suite *phasepair_suite(void)
{
	Suite *s = suite_create("phasepair");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_against_generated);
	tcase_add_test(tc, test_issue_only_latency);
	tcase_add_test(tc, test_merges);
	tcase_add_test(tc, test_filter_fields);
	tcase_add_test(tc, test_filter_errors);
	tcase_add_test(tc, test_script_fields);
	suite_add_tcase(s, tc);
	return s;
}
