/* test_breakdown.c - phase pairing on hand-made event sequences
 *
 * Each case writes the events of a few I/Os and checks the intervals and
 * the unpaired counts the breakdown gives, values worked out by hand: a
 * merge gets its request's issue and completion, phases out of order, a
 * completion without its issue, a merge into nothing, a queue never
 * completed and a queue earlier than the one before it (Q2Q) are counted
 * (with the first ordinal where they have one), never timed. Quantiles
 * are checked against sorted samples and each against the floor of its
 * value to seven significant bits worked out bit by bit, the seek mode past
 * its table's bound, and the count of each distance its table holds,
 * against counts of the distances worked out by sorting them; vxt_bd_add_many() against vxt_bd_add() event by event;
 * a remapped I/O's intervals on the object of each event that ends them.
 */
#include <check.h>
#include <stdlib.h>

#include "vxtrace/breakdown.h"
#include "fixture.h"

struct ev {
	uint64_t t;
	unsigned phase;
	uint64_t sector;
	uint32_t blocks;
};

static void feed(struct vxt_breakdown *b, const struct ev *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct vxt_event x = {
			.time_ns = e[i].t, .phase = (uint8_t)e[i].phase, .sector = e[i].sector,
			.bytes = e[i].blocks * 512, .op = VXT_OP_WRITE, .pid = 7, .comm = 1,
		};

		ck_assert_int_eq(vxt_bd_add(b, &x, i, true), 0);
	}
	vxt_bd_finish(b);
}

START_TEST(merge_gets_the_request_times)
{
	/* bio A at 100+8 gets a request; bio B at 108+8 back-merges into it;
	 * the request 100+16 is inserted, issued, completed */
	static const struct ev e[] = {
		{ 1000, VXT_PH_QUEUE, 100, 8 }, { 1100, VXT_PH_GETRQ, 100, 8 },
		{ 1500, VXT_PH_QUEUE, 108, 8 }, { 1600, VXT_PH_MERGE, 108, 8 },
		{ 2000, VXT_PH_INSERT, 100, 16 }, { 3000, VXT_PH_START, 100, 16 },
		{ 9000, VXT_PH_DONE, 100, 16 },
	};
	struct vxt_breakdown b;
	const struct vxt_bd_stat *s;

	vxt_bd_init(&b, true);
	feed(&b, e, 7);
	s = b.all.iv;
	ck_assert_uint_eq(s[VXT_BD_Q2Q].n, 1);
	ck_assert_uint_eq(s[VXT_BD_Q2Q].sum, 500);
	ck_assert_uint_eq(s[VXT_BD_Q2G].sum, 100);
	ck_assert_uint_eq(s[VXT_BD_G2I].sum, 900);
	ck_assert_uint_eq(s[VXT_BD_Q2M].sum, 100);
	ck_assert_uint_eq(s[VXT_BD_I2D].n, 1);
	ck_assert_uint_eq(s[VXT_BD_I2D].sum, 1000);
	ck_assert_uint_eq(s[VXT_BD_M2D].n, 1);
	ck_assert_uint_eq(s[VXT_BD_M2D].sum, 1400);
	ck_assert_uint_eq(s[VXT_BD_D2C].n, 2);
	ck_assert_uint_eq(s[VXT_BD_D2C].sum, 12000);
	ck_assert_uint_eq(s[VXT_BD_Q2C].n, 2);
	ck_assert_uint_eq(s[VXT_BD_Q2C].min, 7500);
	ck_assert_uint_eq(s[VXT_BD_Q2C].max, 8000);
	ck_assert_uint_eq(b.dev[0].nq, 2);
	ck_assert_uint_eq(b.dev[0].nd, 1);
	ck_assert_ptr_nonnull(vxt_bd_process(&b, 7, 1));
	for (unsigned k = 0; k < VXT_BD_U_COUNT; k++)
		ck_assert_uint_eq(b.unp[k].n, 0);
	vxt_bd_free(&b);
}
END_TEST

START_TEST(unpaired_counted_not_guessed)
{
	static const struct ev e[] = {
		{ 5000, VXT_PH_QUEUE, 0, 8 },		/* 0: starts the object */
		{ 4000, VXT_PH_GETRQ, 0, 8 },		/* 1: before its queue */
		{ 5100, VXT_PH_MERGE, 500, 8 },		/* 2: into nothing */
		{ 5200, VXT_PH_QUEUE, 0, 8 },		/* 3: same start as a pending one */
		{ 5300, VXT_PH_DONE, 0, 8 },		/* 4: never issued */
		{ 5400, VXT_PH_DONE, 900, 8 },		/* 5: no queue */
		{ 5500, VXT_PH_QUEUE, 40, 8 },		/* 6: never completed */
		{ 5600, VXT_PH_QUEUE, 60, 8 },		/* 7: never completed */
	};
	struct vxt_breakdown b;

	vxt_bd_init(&b, true);
	feed(&b, e, 8);
	ck_assert_uint_eq(b.unp[VXT_BD_U_ORDER].n, 1);
	ck_assert_uint_eq(b.unp[VXT_BD_U_ORDER].first, 1);
	ck_assert_uint_eq(b.unp[VXT_BD_U_MERGE].n, 1);
	ck_assert_uint_eq(b.unp[VXT_BD_U_MERGE].first, 2);
	ck_assert_uint_eq(b.unp[VXT_BD_U_DUPQ].first, 3);
	ck_assert_uint_eq(b.unp[VXT_BD_U_NOD].n, 1);
	ck_assert_uint_eq(b.unp[VXT_BD_U_NOD].first, 4);
	ck_assert_uint_eq(b.unp[VXT_BD_U_NOQ].first, 5);
	ck_assert_uint_eq(b.unp[VXT_BD_U_PENDING].n, 2);
	ck_assert_uint_eq(b.unp[VXT_BD_U_PENDING].first, 6);
	ck_assert_uint_eq(b.all.iv[VXT_BD_Q2G].n, 0);	/* no negative or made-up time */
	ck_assert_uint_eq(b.all.iv[VXT_BD_D2C].n, 0);
	ck_assert_uint_eq(b.all.iv[VXT_BD_Q2C].n, 1);
	vxt_bd_free(&b);
}
END_TEST

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(q2q_out_of_order_counted)
{
	/* queues at 1000, 3000, then 2000 (earlier than the latest, as a
	 * stalled CPU leaves it in the file), then 6000, on one object: Q2Q is
	 * 3000-1000 and 6000-3000, the queue at 2000 counted out of order and
	 * never a wrapped 2000-3000; each queue completes on its own */
	static const struct ev e[] = {
		{ 1000, VXT_PH_QUEUE, 0, 8 }, { 3000, VXT_PH_QUEUE, 100, 8 },
		{ 2000, VXT_PH_QUEUE, 200, 8 }, { 6000, VXT_PH_QUEUE, 300, 8 },
	};
	struct vxt_breakdown b;
	const struct vxt_bd_stat *s;

	vxt_bd_init(&b, true);
	feed(&b, e, 4);
	for (int k = 0; k < 2; k++) {
		s = k ? &b.dev[0].g.iv[VXT_BD_Q2Q] : &b.all.iv[VXT_BD_Q2Q];
		ck_assert_uint_eq(s->n, 2);
		ck_assert_uint_eq(s->sum, 5000);
		ck_assert_uint_eq(s->min, 2000);
		ck_assert_uint_eq(s->max, 3000);
	}
	ck_assert_uint_eq(b.q2q_ooo, 1);
	ck_assert_uint_eq(b.dev[0].q2q_ooo, 1);
	ck_assert_uint_eq(b.dev[0].nq, 4);
	vxt_bd_free(&b);
}
END_TEST

START_TEST(quantiles_within_a_bucket)
{
	static uint64_t v[20001];
	struct vxt_bd_stat s = { 0 };
	struct vxt_breakdown b;
	uint64_t x = 88172645463325252ull;
	static const double q[] = { 0.5, 0.9, 0.99, 0.999 };

	/* stat_add is internal: drive it through issue-only completions */
	vxt_bd_init(&b, false);
	for (size_t i = 0; i < 20001; i++) {
		struct vxt_event e = { .time_ns = i, .phase = VXT_PH_DONE, .bytes = 4096 };

		ut_rand(&x);
		v[i] = 1 + x % (i % 2 ? 50 : 50000000);
		e.latency_ns = v[i];
		ck_assert_int_eq(vxt_bd_add(&b, &e, i, true), 0);
	}
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	s = b.all.iv[VXT_BD_D2C];
	qsort(v, 20001, sizeof(*v), cmp);
	ck_assert_uint_eq(s.n, 20001);
	ck_assert_uint_eq(s.min, v[0]);
	ck_assert_uint_eq(s.max, v[20000]);
	for (unsigned k = 0; k < 4; k++) {
		size_t rank = (size_t)(q[k] * 20001);
		uint64_t want, got = vxt_bd_quantile(&s, q[k]);

		if ((double)rank < q[k] * 20001)
			rank++;
		want = v[rank - 1];
		ck_assert_uint_le(got, want);
		ck_assert_uint_ge(got, want - want / VXT_BD_SUB);
	}
	vxt_bd_free(&b);
}
END_TEST

struct dpos {
	uint64_t v, at;
};

static int cmp_dpos(const void *a, const void *b)
{
	const struct dpos *x = a, *y = b;

	return x->v != y->v ? (x->v < y->v ? -1 : 1) : (x->at < y->at ? -1 : x->at > y->at);
}

START_TEST(seek_mode_past_the_bound)
{
	/* issues 8 sectors long, each d sectors past the end of the one before
	 * (btt's distance is then d): first more distinct distances than the
	 * mode keeps, then distances of which some were kept and some not */
	enum { NDIST = VXT_BD_MODE_MAX + 40000, NMORE = 200000, N = NDIST + NMORE };
	static struct dpos p[N];
	struct vxt_breakdown b;
	uint64_t x = 88172645463325252ull, end = 0, want_v = 0, want_c = 0, mv, mc;
	size_t i, j, kept = 0;
	bool full = false;

	vxt_bd_init(&b, false);
	for (i = 0; i < N; i++) {
		struct vxt_event e = { .time_ns = i, .phase = VXT_PH_START, .bytes = 4096 };
		uint64_t d;

		ut_rand(&x);
		d = i < NDIST ? NDIST - i : 1 + x % (NDIST + 100000);
		if (i >= NDIST && x % 3 == 0)
			d = 1 + x % 5000;	/* some far more often than others */
		e.sector = end + d;
		end = e.sector + 8;
		p[i].v = d;
		p[i].at = i;
		ck_assert_int_eq(vxt_bd_add(&b, &e, i, true), 0);
	}
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	/* by value, then time: the table holds the VXT_BD_MODE_MAX distances
	 * first seen earliest; each counts every time it came, the others none */
	qsort(p, N, sizeof(*p), cmp_dpos);
	{
		static uint64_t first[N];
		size_t nd = 0;

		for (i = 0; i < N; i = j) {
			for (j = i; j < N && p[j].v == p[i].v; j++)
				;
			first[nd++] = p[i].at;
		}
		qsort(first, nd, sizeof(*first), cmp);
		for (i = 0; i < N; i = j) {
			for (j = i; j < N && p[j].v == p[i].v; j++)
				;
			if (p[i].at > first[VXT_BD_MODE_MAX - 1]) {
				full = true;
				continue;
			}
			kept++;
			if (j - i > want_c) {
				want_c = j - i;
				want_v = p[i].v;
			}
		}
	}
	ck_assert_uint_eq(kept, VXT_BD_MODE_MAX);
	ck_assert(full && b.dev[0].d2d.mode_full);
	{
		/* every distance the table holds: one of those kept, counted
		 * every time it came */
		const struct vxt_bd_seek *sk = &b.dev[0].d2d;
		static uint64_t first[N];
		size_t held = 0, nd = 0;

		for (i = 0; i < N; i = j) {
			for (j = i; j < N && p[j].v == p[i].v; j++)
				;
			first[nd++] = p[i].at;
		}
		qsort(first, nd, sizeof(*first), cmp);
		for (size_t k = 0; k < sk->mcap; k++) {
			size_t lo = 0, hi = N;

			if (!sk->mtab[k].count)
				continue;
			held++;
			while (lo < hi) {	/* the first of its value in p[] */
				size_t mid = (lo + hi) / 2;

				if (p[mid].v < sk->mtab[k].key)
					lo = mid + 1;
				else
					hi = mid;
			}
			ck_assert(lo < N && p[lo].v == sk->mtab[k].key);
			ck_assert_uint_le(p[lo].at, first[VXT_BD_MODE_MAX - 1]);
			for (j = lo; j < N && p[j].v == p[lo].v; j++)
				;
			ck_assert_uint_eq(sk->mtab[k].count, j - lo);
		}
		ck_assert_uint_eq(held, VXT_BD_MODE_MAX);
	}
	vxt_bd_seek_mode(&b.dev[0].d2d, &mv, &mc);
	ck_assert_uint_eq(mv, want_v);
	ck_assert_uint_eq(mc, want_c);
	ck_assert_uint_eq(b.dev[0].d2d.n, N);
	vxt_bd_free(&b);
}
END_TEST

/* @w to its top seven significant bits (all of it under 2^7), by a loop
 * over its bits. */
static uint64_t floor7(uint64_t w)
{
	unsigned h = 0;

	while (h < 63 && w >> (h + 1))
		h++;		/* h: the highest bit set */
	return h < 7 ? w : w >> (h - 6) << (h - 6);
}

/* The median of {1, w, 2^64 - 1} is w, and the quantile is the lower bound
 * of w's bucket: w to seven significant bits. */
static void median_of(uint64_t w)
{
	struct vxt_event e[3] = {
		{ .time_ns = 1, .phase = VXT_PH_DONE, .bytes = 4096, .latency_ns = 1 },
		{ .time_ns = 2, .phase = VXT_PH_DONE, .bytes = 4096, .latency_ns = w },
		{ .time_ns = 3, .phase = VXT_PH_DONE, .bytes = 4096, .latency_ns = UINT64_MAX },
	};
	struct vxt_breakdown b;

	vxt_bd_init(&b, false);
	ck_assert_int_eq(vxt_bd_add_many(&b, e, 3, 0), 0);
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	ck_assert_uint_eq(b.all.iv[VXT_BD_D2C].n, 3);
	ck_assert_msg(vxt_bd_quantile(&b.all.iv[VXT_BD_D2C], 0.5) == floor7(w),
		      "median of %llu: %llu, want %llu", (unsigned long long)w,
		      (unsigned long long)vxt_bd_quantile(&b.all.iv[VXT_BD_D2C], 0.5),
		      (unsigned long long)floor7(w));
	vxt_bd_free(&b);
}

START_TEST(quantile_is_the_bucket_floor)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t w = 2; w < 300; w++)
		median_of(w);
	for (unsigned k = 7; k < 64; k++) {
		uint64_t p = 1ull << k;

		median_of(p - 1);
		median_of(p);
		median_of(p + 1);
		median_of(p + p / 2 + 12345 % p);
	}
	for (int i = 0; i < 2000; i++) {
		ut_rand(&x);
		median_of(2 + (x >> (x % 62)) % (UINT64_MAX - 3));
	}
}
END_TEST

/* Two I/O streams over two objects, every phase, with merges, requeues,
 * odd orders and unknown sectors: the batch call and the event-by-event
 * one give the same counts everywhere. */
START_TEST(add_many_is_add)
{
	enum { N = 60000 };
	static struct vxt_event ev[N];
	static const uint8_t ph[] = { VXT_PH_QUEUE, VXT_PH_GETRQ, VXT_PH_MERGE, VXT_PH_INSERT,
				      VXT_PH_START, VXT_PH_DONE, VXT_PH_REQUEUE, VXT_PH_PLUG };
	struct vxt_breakdown one, many;
	uint64_t x = 88172645463325252ull, t = 1000;

	for (size_t i = 0; i < N; i++) {
		ut_rand(&x);
		t += x % 2000;
		ev[i] = (struct vxt_event){
			.time_ns = x % 97 ? t : t - 5000, .phase = ph[x % 8 < 6 ? i % 6 : x % 8],
			.object = (uint32_t)(x >> 20 & 1), .sector = (x >> 24) % 64 * 8,
			.bytes = (uint32_t)(x >> 40) % 3 * 4096, .op = (uint8_t)(x >> 50 & 1),
			.pid = (uint32_t)(x >> 52) % 5, .comm = (uint32_t)(x >> 56) % 3,
		};
	}
	vxt_bd_init(&one, true);
	vxt_bd_init(&many, true);
	for (size_t i = 0; i < N; i++)
		ck_assert_int_eq(vxt_bd_add(&one, &ev[i], i, true), 0);
	ck_assert_int_eq(vxt_bd_add_many(&many, ev, N / 2, 0), 0);
	ck_assert_int_eq(vxt_bd_add_many(&many, ev + N / 2, N - N / 2, N / 2), 0);
	ck_assert_int_eq(vxt_bd_finish(&one), 0);
	ck_assert_int_eq(vxt_bd_finish(&many), 0);
	ck_assert_uint_eq(one.events, many.events);
	for (unsigned k = 0; k < VXT_BD_U_COUNT; k++) {
		ck_assert_uint_eq(one.unp[k].n, many.unp[k].n);
		ck_assert_uint_eq(one.unp[k].first, many.unp[k].first);
	}
	ck_assert_uint_gt(one.all.iv[VXT_BD_Q2C].n, 1000);
	for (unsigned iv = 0; iv < VXT_BD_IV_COUNT; iv++) {
		const struct vxt_bd_stat *a = &one.all.iv[iv], *m = &many.all.iv[iv];

		ck_assert_uint_eq(a->n, m->n);
		ck_assert_uint_eq(a->sum, m->sum);
		ck_assert_uint_eq(a->min, m->min);
		ck_assert_uint_eq(a->max, m->max);
		for (unsigned d = 0; d < 2; d++)
			ck_assert_uint_eq(one.dev[d].g.iv[iv].sum, many.dev[d].g.iv[iv].sum);
	}
	for (unsigned d = 0; d < 2; d++) {
		ck_assert_uint_eq(one.dev[d].q2q.n, many.dev[d].q2q.n);
		ck_assert_uint_eq(one.dev[d].d2d.total, many.dev[d].d2d.total);
		ck_assert_uint_eq(one.dev[d].nq, many.dev[d].nq);
		ck_assert_uint_eq(one.dev[d].blk_sum, many.dev[d].blk_sum);
	}
	vxt_bd_free(&one);
	vxt_bd_free(&many);
}
END_TEST

/* A bio queued on object 0 (a dm device), remapped onto object 1 (the disk
 * below) and completed there, then completed on 0 too: each interval is
 * counted on the object of the event that ends it, though the I/O is the
 * same throughout. */
START_TEST(remapped_io_counts_where_it_is)
{
	struct vxt_event e[] = {
		{ .time_ns = 100, .object = 0, .phase = VXT_PH_QUEUE, .sector = 1000 },
		{ .time_ns = 105, .object = 0, .phase = VXT_PH_GETRQ, .sector = 1000 },
		{ .time_ns = 110, .object = 1, .phase = VXT_PH_REMAP, .sector = 5000 },
		{ .time_ns = 111, .object = 1, .phase = VXT_PH_QUEUE, .sector = 5000 },
		{ .time_ns = 120, .object = 1, .phase = VXT_PH_GETRQ, .sector = 5000 },
		{ .time_ns = 140, .object = 1, .phase = VXT_PH_START, .sector = 5000 },
		{ .time_ns = 200, .object = 1, .phase = VXT_PH_DONE, .sector = 5000 },
		{ .time_ns = 210, .object = 0, .phase = VXT_PH_DONE, .sector = 1000 },
	};
	struct vxt_breakdown b;

	vxt_bd_init(&b, true);
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		e[i].bytes = 4096;
		e[i].op = VXT_OP_READ;
		e[i].pid = 7;
		e[i].comm = 1;
		if (e[i].phase == VXT_PH_REMAP)
			e[i].remap_from = vxt_remap_from_pack(0, 1000);
		ck_assert_int_eq(vxt_bd_add(&b, &e[i], i, true), 0);
	}
	ck_assert_int_eq(vxt_bd_finish(&b), 0);
	/* by hand: Q2G 5 on 0, then 20 (120 - 100) on 1; D2C 60 and Q2C 100 on
	 * 1; Q2C 110 on 0 */
	ck_assert_uint_eq(b.dev[0].g.iv[VXT_BD_Q2G].n, 1);
	ck_assert_uint_eq(b.dev[0].g.iv[VXT_BD_Q2G].sum, 5);
	ck_assert_uint_eq(b.dev[1].g.iv[VXT_BD_Q2G].n, 1);
	ck_assert_uint_eq(b.dev[1].g.iv[VXT_BD_Q2G].sum, 20);
	ck_assert_uint_eq(b.dev[1].g.iv[VXT_BD_D2C].sum, 60);
	ck_assert_uint_eq(b.dev[0].g.iv[VXT_BD_D2C].n, 0);
	ck_assert_uint_eq(b.dev[1].g.iv[VXT_BD_Q2C].n, 1);
	ck_assert_uint_eq(b.dev[1].g.iv[VXT_BD_Q2C].sum, 100);
	ck_assert_uint_eq(b.dev[0].g.iv[VXT_BD_Q2C].n, 1);
	ck_assert_uint_eq(b.dev[0].g.iv[VXT_BD_Q2C].sum, 110);
	ck_assert_uint_eq(b.all.iv[VXT_BD_Q2G].n, 2);
	vxt_bd_free(&b);
}
END_TEST

Suite *breakdown_suite(void)
{
	Suite *s = suite_create("breakdown");
	TCase *tc = tcase_create("pairing");

	tcase_add_test(tc, merge_gets_the_request_times);
	tcase_add_test(tc, unpaired_counted_not_guessed);
	tcase_add_test(tc, q2q_out_of_order_counted);
	tcase_add_test(tc, quantiles_within_a_bucket);
	tcase_add_test(tc, seek_mode_past_the_bound);
	tcase_add_test(tc, quantile_is_the_bucket_floor);
	tcase_add_test(tc, add_many_is_add);
	tcase_add_test(tc, remapped_io_counts_where_it_is);
	suite_add_tcase(s, tc);
	return s;
}
