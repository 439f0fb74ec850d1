/* test_browser_axis.c - the timeline's time ticks and labels against brute force
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "browser/axis.h"

/* Every tick: a multiple of a 1/2/5 step from the base, inside the window,
 * at the column the window maps it to, at least the gap apart; no round time
 * of that step is left out. */
START_TEST(ticks_are_round_and_complete)
{
	srand(3);
	for (int i = 0; i < 2000; i++) {
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

Suite *browser_axis_suite(void)
{
	Suite *s = suite_create("browser_axis");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ticks_are_round_and_complete);
	tcase_add_test(tc, labels_read_as_seconds);
	suite_add_tcase(s, tc);
	return s;
}
