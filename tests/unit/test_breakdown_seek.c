/* test_breakdown_seek.c - Q2Q and the seeks between queues and issues
 *
 * Random I/Os (Q G I D C) on three objects, a third of them sequential, some
 * queues earlier than the one before (Q2Q out of order), and an issue-only
 * capture. Against brute force over the same events: each object's and all
 * objects' Q2Q count, sum, min, max and out-of-order count, and each
 * object's Q2Q and D2D seek count, total, median and mode (btt's distance,
 * the distances counted by sorting them). Freeing without vxt_bd_finish()
 * is clean.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/breakdown.h"
#include "fixture.h"

#define NOBJ 3
#define NIO 60000

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* btt's seeks over @n ranges: count, total, mode (smallest among ties). */
struct brute_seek {
	uint64_t n, mode, mode_n, median;
	double total;
};

static void brute_seeks(const uint64_t (*r)[2], size_t n, struct brute_seek *out)
{
	uint64_t *d = malloc((n ? n : 1) * sizeof(*d)), ls = 0, le = 0;

	ck_assert_ptr_nonnull(d);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		uint64_t s = r[i][0], e = r[i][1], a = 0;

		if (!((ls <= s && s <= le) || (ls <= e && e <= le)))
			a = s > le ? s - le : s > ls ? s - ls : ls - s;
		d[i] = a;
		out->total += (double)a;
		ls = s;
		le = e;
	}
	out->n = n;
	qsort(d, n, sizeof(*d), cmp_u64);
	out->median = n ? d[(n + 1) / 2 - 1] : 0;	/* the ceil(n/2)-th smallest */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && d[j] == d[i]; j++)
			;
		if (j - i > out->mode_n) {
			out->mode_n = j - i;
			out->mode = d[i];
		}
	}
	free(d);
}

static void check_seek(const struct vxt_bd_seek *s, const struct brute_seek *w)
{
	uint64_t v, c;

	ck_assert_uint_eq(s->n, w->n);
	ck_assert(s->total == w->total);
	vxt_bd_seek_mode(s, &v, &c);
	ck_assert_uint_eq(v, w->mode);
	ck_assert_uint_eq(c, w->mode_n);
	ck_assert_uint_eq(vxt_bd_seek_median(s), w->median);
}

START_TEST(q2q_and_seeks_as_brute_force)
{
	static uint64_t qr[NOBJ][NIO][2], dr[NOBJ][NIO][2];
	size_t nq[NOBJ] = { 0 }, nd[NOBJ] = { 0 };
	uint64_t last[NOBJ + 1], ooo[NOBJ + 1] = { 0 }, n[NOBJ + 1] = { 0 }, sum[NOBJ + 1] = { 0 };
	uint64_t lo[NOBJ + 1], hi[NOBJ + 1] = { 0 };
	struct vxt_breakdown a;
	struct brute_seek w;
	uint64_t t = 1000000, ord = 0;

	for (int k = 0; k <= NOBJ; k++)
		last[k] = lo[k] = UINT64_MAX;
	vxt_bd_init(&a, true);
	for (size_t i = 0; i < NIO; i++) {
		uint64_t x = rnd();
		uint32_t obj = (uint32_t)(x % NOBJ), nsec = 8u << (x >> 8 & 3);
		uint64_t sec = (x >> 16) % 4096 * 8;
		static const unsigned ph[5] = { VXT_PH_QUEUE, VXT_PH_GETRQ, VXT_PH_INSERT,
						VXT_PH_START, VXT_PH_DONE };

		if ((x >> 40) % 3 == 0)	/* sequential: a distance of 0 */
			sec = nq[obj] ? qr[obj][nq[obj] - 1][1] : 0;
		for (int k = 0; k < 5; k++) {
			struct vxt_event e = { .time_ns = t += 100 + (x >> 50 & 255), .object = obj,
					       .phase = (uint8_t)ph[k], .sector = sec,
					       .bytes = nsec * 512, .op = VXT_OP_READ, .pid = 9 };

			if (k == 0 && (x >> 44) % 50 == 0)
				e.time_ns -= 5000;	/* a queue out of order */
			ck_assert_int_eq(vxt_bd_add(&a, &e, ord, true), 0);
			ord++;
			if (k == 0) {
				qr[obj][nq[obj]][0] = sec;
				qr[obj][nq[obj]++][1] = sec + nsec;
				for (uint32_t g = obj; g <= NOBJ; g += NOBJ - obj) {
					if (last[g] != UINT64_MAX && e.time_ns < last[g]) {
						ooo[g]++;
					} else {
						if (last[g] != UINT64_MAX) {
							uint64_t d = e.time_ns - last[g];

							n[g]++;
							sum[g] += d;
							lo[g] = d < lo[g] ? d : lo[g];
							hi[g] = d > hi[g] ? d : hi[g];
						}
						last[g] = e.time_ns;
					}
					if (g == NOBJ)
						break;
				}
			} else if (k == 3) {
				dr[obj][nd[obj]][0] = sec;
				dr[obj][nd[obj]++][1] = sec + nsec;
			}
		}
	}
	ck_assert_int_eq(vxt_bd_finish(&a), 0);
	for (uint32_t obj = 0; obj < NOBJ; obj++) {
		const struct vxt_bd_dev *d = &a.dev[obj];

		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].n, n[obj]);
		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].sum, sum[obj]);
		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].min, lo[obj]);
		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].max, hi[obj]);
		ck_assert_uint_eq(d->q2q_ooo, ooo[obj]);
		brute_seeks((const uint64_t (*)[2])qr[obj], nq[obj], &w);
		check_seek(&d->q2q, &w);
		brute_seeks((const uint64_t (*)[2])dr[obj], nd[obj], &w);
		check_seek(&d->d2d, &w);
	}
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].n, n[NOBJ]);
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].sum, sum[NOBJ]);
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].min, lo[NOBJ]);
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].max, hi[NOBJ]);
	ck_assert_uint_eq(a.q2q_ooo, ooo[NOBJ]);
	vxt_bd_free(&a);
}
END_TEST

/* An issue-only capture's D2D seeks, and a free without finishing. */
START_TEST(issue_only_seeks_and_early_free)
{
	static uint64_t dr[2][100000][2];
	size_t nd[2] = { 0 };
	struct vxt_breakdown a;
	struct brute_seek w;

	vxt_bd_init(&a, false);
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t x = rnd();
		uint32_t obj = (uint32_t)(x & 1);
		struct vxt_event e = { .time_ns = 1000 + i, .object = obj,
				       .phase = i & 1 ? VXT_PH_DONE : VXT_PH_START,
				       .sector = (x >> 8) % 100000, .bytes = 4096,
				       .latency_ns = 500 };

		ck_assert_int_eq(vxt_bd_add(&a, &e, i, true), 0);
		if (e.phase == VXT_PH_START) {
			dr[obj][nd[obj]][0] = e.sector;
			dr[obj][nd[obj]++][1] = e.sector + 8;
		}
	}
	ck_assert_int_eq(vxt_bd_finish(&a), 0);
	for (int obj = 0; obj < 2; obj++) {
		brute_seeks((const uint64_t (*)[2])dr[obj], nd[obj], &w);
		check_seek(&a.dev[obj].d2d, &w);
	}
	vxt_bd_free(&a);
	/* freed with distances still waiting to be counted in the mode */
	vxt_bd_init(&a, true);
	for (uint64_t i = 0; i < 50000; i++) {
		struct vxt_event e = { .time_ns = 1000 + i, .phase = VXT_PH_QUEUE,
				       .sector = i * 8, .bytes = 4096 };

		ck_assert_int_eq(vxt_bd_add(&a, &e, i, true), 0);
	}
	vxt_bd_free(&a);
}
END_TEST

/* Seven issues whose distances all differ: the median is the 4th smallest
 * (rank ceil(n/2)), not a neighbour. */
START_TEST(median_of_distinct_distances)
{
	uint64_t r[7][2];
	struct vxt_breakdown a;
	struct brute_seek w;

	vxt_bd_init(&a, false);
	for (uint64_t k = 0; k < 7; k++) {
		/* 8, 16, 24, ... sectors apart, after 8-sector I/Os, shuffled */
		uint64_t at = (k * 5 % 7 + 1) * (k * 5 % 7 + 2) * 8;
		struct vxt_event e = { .time_ns = 1000 + k, .phase = VXT_PH_START,
				       .sector = at, .bytes = 4096 };

		r[k][0] = at;
		r[k][1] = at + 8;
		ck_assert_int_eq(vxt_bd_add(&a, &e, k, true), 0);
	}
	ck_assert_int_eq(vxt_bd_finish(&a), 0);
	brute_seeks((const uint64_t (*)[2])r, 7, &w);
	check_seek(&a.dev[0].d2d, &w);
	vxt_bd_free(&a);
}
END_TEST

Suite *breakdown_seek_suite(void)
{
	Suite *s = suite_create("breakdown_seek");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, q2q_and_seeks_as_brute_force);
	tcase_add_test(tc, issue_only_seeks_and_early_free);
	tcase_add_test(tc, median_of_distinct_distances);
	suite_add_tcase(s, tc);
	return s;
}
