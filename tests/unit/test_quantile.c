/* test_quantile.c - histogram percentiles against the sorted samples
 *
 * For random samples of several shapes, vxt_hist_quantile() must never be
 * below the exact percentile (the smallest sample with at least q of them at
 * or below it), never above the maximum, and at most one bucket (25%) above
 * the exact value; a tail held in one bucket never reads below its mean.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/stats.h"
#include "fixture.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(never_below_the_exact_percentile)
{
	static const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999 };
	static uint64_t v[20000];
	static struct vxt_hist h;
	uint64_t x = 0x1234567 + (uint64_t)_i;
	size_t n = 1 + ut_rand(&x) % 20000, i, k;

	memset(&h, 0, sizeof(h));
	for (i = 0; i < n; i++) {
		switch (_i % 4) {
		case 0: v[i] = ut_rand(&x) % 1000000; break;			/* uniform */
		case 1: v[i] = 1ull << (ut_rand(&x) % 30); break;			/* powers */
		case 2: v[i] = 480000 + ut_rand(&x) % 100000; break;		/* one spike */
		default: v[i] = ut_rand(&x) % 100 < 99 ? 100 : 50000000; break;	/* a tail */
		}
		vxt_hist_add(&h, v[i]);
	}
	qsort(v, n, sizeof(v[0]), cmp_u64);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)(qs[k] * (double)n + 0.999999999);
		uint64_t exact = v[(rank ? rank : 1) - 1];
		uint64_t got = vxt_hist_quantile(&h, qs[k]);

		ck_assert_msg(got >= exact, "q %.3f of %zu: %llu below the exact %llu", qs[k], n,
			      (unsigned long long)got, (unsigned long long)exact);
		ck_assert_uint_le(got, v[n - 1]);
		ck_assert_msg(got <= exact + exact / 4 + 1, "q %.3f: %llu too far above %llu",
			      qs[k], (unsigned long long)got, (unsigned long long)exact);
	}
}
END_TEST

START_TEST(one_bucket_tail_not_below_its_mean)
{
	static struct vxt_hist h;
	uint64_t i, mean;

	/* 492..511 us: one bucket, mean above the bucket's lower bound */
	memset(&h, 0, sizeof(h));
	for (i = 0; i < 1000; i++)
		vxt_hist_add(&h, 505000 + i % 7000);
	mean = h.sum / h.count;
	ck_assert_uint_eq(vxt_hist_bucket(505000), vxt_hist_bucket(511999));
	ck_assert_uint_ge(vxt_hist_quantile(&h, 0.99), mean);
	ck_assert_uint_ge(vxt_hist_quantile(&h, 0.5), mean);
	ck_assert_uint_eq(vxt_hist_quantile(&h, 0.99), h.max);
}
END_TEST

Suite *quantile_suite(void)
{
	Suite *s = suite_create("quantile");
	TCase *tc = tcase_create("hist");

	tcase_add_loop_test(tc, never_below_the_exact_percentile, 0, 40);
	tcase_add_test(tc, one_bucket_tail_not_below_its_mean);
	suite_add_tcase(s, tc);
	return s;
}
