/* test_quantile.c - the latency distribution against the sorted samples
 *
 * For random and adversarial samples, vxt_latdist_quantile() must never be
 * below the exact nearest-rank percentile, never above the maximum, at most
 * 1/128 above the exact value, exact for small counts and values, and the
 * same whether the samples came one by one, merged in parts, or through the
 * encoding SQL's hist column keeps.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/latdist.h"
#include "fixture.h"

#define NMAX 30000

static const double qs[] = { 0, 0.01, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1 };
#define NQ (sizeof(qs) / sizeof(qs[0]))

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact quantile of sorted @v[0..n): nearest rank, by integers. */
static uint64_t exact(const uint64_t *v, size_t n, double q)
{
	/* q is one of qs[]: ranks as a person computes them, ceil(q n) */
	static const uint64_t den = 10000;
	uint64_t num = (uint64_t)(q * (double)den + 0.5), r = (num * n + den - 1) / den;

	return v[(r ? r : 1) - 1];
}

/* Sample @n values of shape @shape into @v. */
static void fill(uint64_t *v, size_t n, int shape, uint64_t *x)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ut_rand(x);

		switch (shape) {
		case 0: v[i] = r % 1000000; break;				/* uniform */
		case 1: v[i] = 1ull << (r % 40); break;				/* powers of two */
		case 2: v[i] = (1ull << (r % 40)) - 1; break;			/* just below them */
		case 3: v[i] = 480000 + r % 100000; break;			/* one spike */
		case 4: v[i] = r % 100 < 99 ? 100 : 50000000; break;		/* a tail */
		case 5: v[i] = 123456789; break;				/* all equal */
		case 6: v[i] = r % 300; break;					/* small: exact */
		case 7: v[i] = UINT64_MAX - r % 1000; break;			/* the top */
		case 8: v[i] = r % 2 ? 0 : 1ull << 62; break;			/* two far ends */
		default: v[i] = (r >> (r % 64)); break;				/* every scale */
		}
	}
}

static void check_against(const struct vxt_latdist *d, uint64_t *v, size_t n, const char *what)
{
	uint64_t prev = 0;

	qsort(v, n, sizeof(v[0]), cmp_u64);
	ck_assert_uint_eq(d->count, n);
	ck_assert_uint_eq(d->min, v[0]);
	ck_assert_uint_eq(d->max, v[n - 1]);
	for (size_t k = 0; k < NQ; k++) {
		uint64_t want = exact(v, n, qs[k]), got = vxt_latdist_quantile(d, qs[k]);
		/* within 1/128 above, computed without overflow near 2^64 */
		uint64_t slack = want / 128;

		ck_assert_msg(got >= want, "%s: q %.4f of %zu: %llu below the exact %llu", what, qs[k],
			      n, (unsigned long long)got, (unsigned long long)want);
		ck_assert_msg(got - want <= slack, "%s: q %.4f of %zu: %llu above the exact %llu by "
			      "more than 1/128", what, qs[k], n, (unsigned long long)got,
			      (unsigned long long)want);
		if (n <= VXT_LATDIST_EXACT || want < 256)
			ck_assert_msg(got == want, "%s: q %.4f of %zu: %llu, not the exact %llu", what,
				      qs[k], n, (unsigned long long)got, (unsigned long long)want);
		ck_assert_uint_ge(got, prev);	/* p99 never below p50 */
		prev = got;
	}
}

START_TEST(within_1_128_of_exact)
{
	static uint64_t v[NMAX], w[NMAX];
	struct vxt_latdist one = { 0 }, parts = { 0 }, part = { 0 }, dec = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)_i * 7919;
	size_t sizes[] = { 1, 2, 3, 7, 8, 9, 10, 100, 1000, NMAX };
	size_t n = _i < 100 ? sizes[_i % 10] : 1 + ut_rand(&x) % NMAX, i;
	int shape = _i / 10 % 10;
	size_t enc_size;
	void *enc;

	fill(v, n, shape, &x);
	memcpy(w, v, n * sizeof(v[0]));
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(vxt_latdist_add(&one, v[i]), 0);
		ck_assert_int_eq(vxt_latdist_add(&part, v[i]), 0);
		/* parts of random sizes merged, as per-object stats into a total */
		if (ut_rand(&x) % 50 == 0 || i + 1 == n) {
			ck_assert_int_eq(vxt_latdist_merge(&parts, &part), 0);
			vxt_latdist_free(&part);
		}
	}
	enc_size = vxt_latdist_encode(&parts, NULL, 0);
	enc = malloc(enc_size);
	ck_assert_ptr_nonnull(enc);
	ck_assert_uint_eq(vxt_latdist_encode(&parts, enc, enc_size), enc_size);
	ck_assert_int_eq(vxt_latdist_merge_encoded(&dec, enc, enc_size), 0);
	ck_assert_int_eq(vxt_latdist_merge_encoded(&dec, enc, enc_size - 1), -22);
	free(enc);
	check_against(&one, v, n, "one by one");
	check_against(&parts, w, n, "merged");
	memcpy(w, v, n * sizeof(v[0]));
	check_against(&dec, w, n, "decoded");
	vxt_latdist_free(&one);
	vxt_latdist_free(&parts);
	vxt_latdist_free(&dec);
}
END_TEST

/* Every bucket's values: their own bucket, the bounds tiling 0 .. 2^64 - 1. */
START_TEST(buckets_tile_the_range)
{
	ck_assert_uint_eq(vxt_latdist_bucket(0), 0);
	ck_assert_uint_eq(vxt_latdist_bucket(UINT64_MAX), VXT_LATDIST_BUCKETS - 1);
	ck_assert_uint_eq(vxt_latdist_bucket_high(VXT_LATDIST_BUCKETS - 1), UINT64_MAX);
	for (unsigned i = 0; i < VXT_LATDIST_BUCKETS; i++) {
		uint64_t lo = vxt_latdist_bucket_low(i), hi = vxt_latdist_bucket_high(i);

		ck_assert_uint_eq(vxt_latdist_bucket(lo), i);
		ck_assert_uint_eq(vxt_latdist_bucket(hi), i);
		ck_assert_uint_le(hi - lo, lo / 128);
		if (i)
			ck_assert_uint_eq(vxt_latdist_bucket_high(i - 1) + 1, lo);
	}
}
END_TEST

/* One I/O: p50 = p99 = that I/O (the per-process rows of single I/Os). */
START_TEST(single_sample_exact)
{
	struct vxt_latdist d = { 0 };

	vxt_latdist_add(&d, 123456);
	ck_assert_uint_eq(vxt_latdist_quantile(&d, 0.5), 123456);
	ck_assert_uint_eq(vxt_latdist_quantile(&d, 0.99), 123456);
	ck_assert_uint_eq(vxt_latdist_mean(&d), 123456);
	/* cleared with its buckets kept: one sample still exact */
	for (int i = 0; i < 20; i++)
		vxt_latdist_add(&d, 1000000 + (uint64_t)i);
	vxt_latdist_clear(&d);
	vxt_latdist_add(&d, 30700000);
	ck_assert_uint_eq(vxt_latdist_quantile(&d, 0.99), 30700000);
	vxt_latdist_free(&d);
}
END_TEST

/* add_n (the kernel's counts) and log2 folding agree with the samples. */
START_TEST(add_n_and_log2)
{
	struct vxt_latdist a = { 0 }, b = { 0 };
	uint64_t la[64] = { 0 }, lb[64] = { 0 };

	for (int i = 0; i < 500; i++)
		vxt_latdist_add(&a, 7000);
	for (int i = 0; i < 5; i++)
		vxt_latdist_add(&a, 9000000);
	vxt_latdist_add_n(&b, 7000, 500);
	vxt_latdist_add_n(&b, 9000000, 5);
	ck_assert_uint_eq(a.count, b.count);
	ck_assert_uint_eq(a.sum, b.sum);
	for (unsigned k = 0; k < NQ; k++)
		ck_assert_uint_eq(vxt_latdist_quantile(&a, qs[k]), vxt_latdist_quantile(&b, qs[k]));
	vxt_latdist_log2(&a, la, 64);
	vxt_latdist_log2(&b, lb, 64);
	ck_assert_uint_eq(la[12], 500);		/* 4096 <= 7000 < 8192 */
	ck_assert_uint_eq(la[23], 5);		/* 2^23 <= 9e6 < 2^24 */
	ck_assert_mem_eq(la, lb, sizeof(la));
	vxt_latdist_free(&a);
	vxt_latdist_free(&b);
}
END_TEST

START_TEST(nearest_rank)
{
	ck_assert_uint_eq(vxt_latdist_rank(0.99, 100), 99);
	ck_assert_uint_eq(vxt_latdist_rank(0.99, 101), 100);
	ck_assert_uint_eq(vxt_latdist_rank(0.5, 1), 1);
	ck_assert_uint_eq(vxt_latdist_rank(0.5, 2), 1);
	ck_assert_uint_eq(vxt_latdist_rank(0.5, 3), 2);
	ck_assert_uint_eq(vxt_latdist_rank(0.999, 1000), 999);
	ck_assert_uint_eq(vxt_latdist_rank(0.9999, 7), 7);
	ck_assert_uint_eq(vxt_latdist_rank(0, 7), 1);
	ck_assert_uint_eq(vxt_latdist_rank(1, 7), 7);
}
END_TEST

Suite *quantile_suite(void)
{
	Suite *s = suite_create("quantile");
	TCase *tc = tcase_create("latdist");

	tcase_add_loop_test(tc, within_1_128_of_exact, 0, 140);
	tcase_add_test(tc, buckets_tile_the_range);
	tcase_add_test(tc, single_sample_exact);
	tcase_add_test(tc, add_n_and_log2);
	tcase_add_test(tc, nearest_rank);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
