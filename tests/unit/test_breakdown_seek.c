/* test_breakdown_seek.c - Q2Q and the seeks counted on their own thread
 * (vxt_bd_seek_thread())
 *
 * Random I/Os (Q G I D C) on three objects, some queues earlier than the
 * one before (Q2Q out of order), some issue-only events, enough to go round
 * the thread's ring of buffers many times, fed to a breakdown with the
 * thread and to one without. Against brute force over the same events:
 * each object's and all objects' Q2Q count, sum and out-of-order count, and
 * each object's Q2Q and D2D seek count, total and mode (btt's distance,
 * the distances counted by sorting them). Against the breakdown without the
 * thread: every Q2Q histogram, min, max, seek median and mode, bit for bit.
 * Stopping with events still waiting (vxt_bd_free() without
 * vxt_bd_finish()) is clean.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/breakdown.h"

#define NOBJ 3
#define NIO 60000

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* btt's seeks over @n ranges: count, total, mode (smallest among ties). */
struct brute_seek {
	uint64_t n, mode, mode_n;
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

static void same_stat(const struct vxt_bd_stat *a, const struct vxt_bd_stat *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->sum, b->sum);
	ck_assert_uint_eq(a->min, b->min);
	ck_assert_uint_eq(a->max, b->max);
	ck_assert((a->hist == NULL) == (b->hist == NULL));
	if (a->hist)
		ck_assert(!memcmp(a->hist, b->hist, VXT_BD_BUCKETS * sizeof(*a->hist)));
}

static void same_seek(const struct vxt_bd_seek *a, const struct vxt_bd_seek *b)
{
	uint64_t va, ca, vb, cb;

	ck_assert_uint_eq(a->n, b->n);
	ck_assert(a->total == b->total);
	same_stat(&a->dist, &b->dist);
	ck_assert_int_eq(a->mode_full, b->mode_full);
	vxt_bd_seek_mode(a, &va, &ca);
	vxt_bd_seek_mode(b, &vb, &cb);
	ck_assert_uint_eq(va, vb);
	ck_assert_uint_eq(ca, cb);
	ck_assert_uint_eq(vxt_bd_seek_median(a), vxt_bd_seek_median(b));
}

static void check_seek(const struct vxt_bd_seek *s, const struct brute_seek *w)
{
	uint64_t v, c;

	ck_assert_uint_eq(s->n, w->n);
	ck_assert(s->total == w->total);
	vxt_bd_seek_mode(s, &v, &c);
	ck_assert_uint_eq(v, w->mode);
	ck_assert_uint_eq(c, w->mode_n);
}

START_TEST(thread_counts_as_brute_force)
{
	static uint64_t qr[NOBJ][NIO][2], dr[NOBJ][NIO][2];
	size_t nq[NOBJ] = { 0 }, nd[NOBJ] = { 0 };
	uint64_t last[NOBJ + 1], ooo[NOBJ + 1] = { 0 }, n[NOBJ + 1] = { 0 }, sum[NOBJ + 1] = { 0 };
	struct vxt_breakdown a, b;
	struct brute_seek w;
	uint64_t t = 1000000, ord = 0;

	for (int k = 0; k <= NOBJ; k++)
		last[k] = UINT64_MAX;
	vxt_bd_init(&a, true);
	vxt_bd_init(&b, true);
	ck_assert_int_eq(vxt_bd_seek_thread(&a), 0);
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
			ck_assert_int_eq(vxt_bd_add(&b, &e, ord, true), 0);
			ord++;
			if (k == 0) {
				qr[obj][nq[obj]][0] = sec;
				qr[obj][nq[obj]++][1] = sec + nsec;
				for (uint32_t g = obj; g <= NOBJ; g += NOBJ - obj) {
					if (last[g] != UINT64_MAX && e.time_ns < last[g]) {
						ooo[g]++;
					} else {
						if (last[g] != UINT64_MAX) {
							n[g]++;
							sum[g] += e.time_ns - last[g];
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
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	ck_assert_ptr_null(a.seeker);
	for (uint32_t obj = 0; obj < NOBJ; obj++) {
		const struct vxt_bd_dev *d = &a.dev[obj];

		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].n, n[obj]);
		ck_assert_uint_eq(d->g.iv[VXT_BD_Q2Q].sum, sum[obj]);
		ck_assert_uint_eq(d->q2q_ooo, ooo[obj]);
		brute_seeks((const uint64_t (*)[2])qr[obj], nq[obj], &w);
		check_seek(&d->q2q, &w);
		brute_seeks((const uint64_t (*)[2])dr[obj], nd[obj], &w);
		check_seek(&d->d2d, &w);
		same_stat(&d->g.iv[VXT_BD_Q2Q], &b.dev[obj].g.iv[VXT_BD_Q2Q]);
		ck_assert_uint_eq(d->last_q, b.dev[obj].last_q);
		same_seek(&d->q2q, &b.dev[obj].q2q);
		same_seek(&d->d2d, &b.dev[obj].d2d);
	}
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].n, n[NOBJ]);
	ck_assert_uint_eq(a.all.iv[VXT_BD_Q2Q].sum, sum[NOBJ]);
	ck_assert_uint_eq(a.q2q_ooo, ooo[NOBJ]);
	ck_assert_uint_eq(a.last_q, b.last_q);
	same_stat(&a.all.iv[VXT_BD_Q2Q], &b.all.iv[VXT_BD_Q2Q]);
	vxt_bd_free(&a);
	vxt_bd_free(&b);
}
END_TEST

/* An issue-only capture's D2D seeks, and a stop with records waiting. */
START_TEST(issue_only_and_early_free)
{
	struct vxt_breakdown a, b;

	vxt_bd_init(&a, false);
	vxt_bd_init(&b, false);
	ck_assert_int_eq(vxt_bd_seek_thread(&a), 0);
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t x = rnd();
		struct vxt_event e = { .time_ns = 1000 + i, .object = (uint32_t)(x & 1),
				       .phase = i & 1 ? VXT_PH_DONE : VXT_PH_START,
				       .sector = (x >> 8) % 100000, .bytes = 4096,
				       .latency_ns = 500 };

		ck_assert_int_eq(vxt_bd_add(&a, &e, i, true), 0);
		ck_assert_int_eq(vxt_bd_add(&b, &e, i, true), 0);
	}
	ck_assert_int_eq(vxt_bd_finish(&a), 0);
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	for (int obj = 0; obj < 2; obj++)
		same_seek(&a.dev[obj].d2d, &b.dev[obj].d2d);
	vxt_bd_free(&a);
	vxt_bd_free(&b);
	/* freed with events the thread has not counted yet */
	vxt_bd_init(&a, true);
	ck_assert_int_eq(vxt_bd_seek_thread(&a), 0);
	for (uint64_t i = 0; i < 50000; i++) {
		struct vxt_event e = { .time_ns = 1000 + i, .phase = VXT_PH_QUEUE,
				       .sector = i * 8, .bytes = 4096 };

		ck_assert_int_eq(vxt_bd_add(&a, &e, i, true), 0);
	}
	vxt_bd_free(&a);
	ck_assert_ptr_null(a.seeker);
}
END_TEST

Suite *breakdown_seek_suite(void)
{
	Suite *s = suite_create("breakdown_seek");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, thread_counts_as_brute_force);
	tcase_add_test(tc, issue_only_and_early_free);
	suite_add_tcase(s, tc);
	return s;
}
