/* test_browser_axis.c - the timeline's time ticks and labels against brute force
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "browser/axis.h"

/* Every tick: a multiple of a 1/2/5 step from the base, inside the window,
 * at the column the window maps it to, at least the gap apart; no round time
 * of that step is left out. */
START_TEST(ticks_are_round_and_complete)
{
	srand(3);
	for (int i = 0; i < 500; i++) {
		uint64_t base = (uint64_t)rand() * 1000, t0 = base + (uint64_t)rand() % 5000000000u;
		uint64_t span = 1000 + (uint64_t)rand() * (uint64_t)(1 + rand() % 1000), t1 = t0 + span;
		unsigned cols = 20 + (unsigned)rand() % 200, gap = 6 + (unsigned)rand() % 10;
		struct vr_tick tk[512];
		uint64_t step, m, want = 0;
		unsigned n = vr_axis_ticks(t0, t1, base, cols, gap, tk, 512, &step);

		for (m = step; m % 10 == 0; m /= 10)
			;
		ck_assert(m == 1 || m == 2 || m == 5);
		/* the step is the smallest round one that is gap columns wide */
		ck_assert((double)step * cols / (double)span >= gap - 1e-9);
		for (uint64_t t = base + (t0 - base + step - 1) / step * step; t < t1; t += step)
			want++;
		ck_assert_uint_eq(n, want);
		for (unsigned k = 0; k < n; k++) {
			ck_assert((tk[k].t - base) % step == 0);
			ck_assert(tk[k].t >= t0 && tk[k].t < t1);
			ck_assert_uint_eq(tk[k].col, (unsigned)((double)(tk[k].t - t0) * cols / (double)span));
			if (k)
				ck_assert_uint_ge(tk[k].col - tk[k - 1].col, gap - 1);
		}
	}
}
END_TEST

START_TEST(labels_read_as_seconds)
{
	char b[32];

	ck_assert_str_eq(vr_axis_label(3000000000ull, 1000000000ull, 1000000000ull, b, sizeof(b)), "2");
	ck_assert_str_eq(vr_axis_label(1500000000ull, 1000000000ull, 500000000ull, b, sizeof(b)), "0.5");
	ck_assert_str_eq(vr_axis_label(1250000000ull, 0, 50000000ull, b, sizeof(b)), "1.25");
	ck_assert_str_eq(vr_axis_label(7000, 0, 1000, b, sizeof(b)), "0.000007");
	ck_assert_str_eq(vr_axis_label(20, 0, 20, b, sizeof(b)), "0.00000002");
}
END_TEST

static bool round_size(uint64_t r)
{
	while (r >= 10 && r % 10 == 0)
		r /= 10;
	return r == 1 || r == 2 || r == 5;
}

/* The LBA rows: a round row size, aligned, covering [lo, hi), and no
 * smaller round size (aligned the same way) would cover it. */
START_TEST(lba_rows_cover_the_span)
{
	srand(5);
	for (int i = 0; i < 3000; i++) {
		uint64_t max = 1 + (uint64_t)rand() * (uint64_t)(1 + rand() % 4096);
		uint64_t lo = (uint64_t)rand() % max, hi = lo + 1 + (uint64_t)rand() % (max - lo);
		unsigned rows = 1 + (unsigned)rand() % 64;
		uint64_t first, span, row;

		vr_lba_round(lo, hi, rows, max, &first, &span);
		ck_assert_uint_eq(span % rows, 0);
		row = span / rows;
		ck_assert(round_size(row));
		ck_assert_uint_eq(first % row, 0);
		ck_assert_uint_le(first, lo);
		ck_assert_uint_ge(first + span, hi);
		/* brute force: no smaller round size covers it */
		for (uint64_t p = 1; p < row; p *= 10) {
			static const uint64_t mult[] = { 1, 2, 5 };

			for (int k = 0; k < 3; k++) {
				uint64_t sz = p * mult[k];

				if (sz < row)
					ck_assert_uint_lt(lo / sz * sz + sz * rows, hi);
			}
		}
		/* inside the object, unless sliding back would leave hi out */
		if (first + span > max)
			ck_assert(first < row || first - row + span < hi);
	}
}
END_TEST

Suite *browser_axis_suite(void)
{
	Suite *s = suite_create("browser_axis");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ticks_are_round_and_complete);
	tcase_add_test(tc, labels_read_as_seconds);
	tcase_add_test(tc, lba_rows_cover_the_span);
	suite_add_tcase(s, tc);
	return s;
}
