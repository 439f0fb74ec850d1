/* test_browser_procs.c - the per-process rows against brute force
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "browser/procs.h"
#include "vxtrace/timeline.h"
#include "fixture.h"

struct want {
	uint32_t pid, comm;
	uint64_t ios, bytes, errors, lat_sum;
};

START_TEST(rows_match_brute_force)
{
	static struct want w[400];
	struct vr_procs p = { 0 };
	size_t nw = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 50000; i++) {
		struct vxt_event ev;
		size_t k;

		memset(&ev, 0, sizeof(ev));
		ev.pid = 1000 + (uint32_t)ut_rand_below(&rng, 40);
		ev.comm = 1 + (uint32_t)ut_rand_below(&rng, 5);
		ev.phase = ut_rand_below(&rng, 3) ? VXT_PH_DONE : VXT_PH_START;
		ev.bytes = 512u * (uint32_t)(1 + ut_rand_below(&rng, 16));
		ev.latency_ns = (uint64_t)ut_rand_below(&rng, 1000000);
		ev.error = ut_rand_below(&rng, 50) ? 0 : -5;
		ck_assert_int_eq(vr_procs_add(&p, &ev), 0);
		if (ev.phase != VXT_PH_DONE)
			continue;
		for (k = 0; k < nw && (w[k].pid != ev.pid || w[k].comm != ev.comm); k++)
			;
		if (k == nw)
			w[nw++] = (struct want){ .pid = ev.pid, .comm = ev.comm };
		w[k].ios++;
		w[k].bytes += ev.bytes;
		w[k].errors += ev.error != 0;
		w[k].lat_sum += ev.latency_ns;
	}
	vr_procs_sort(&p);
	ck_assert_uint_eq(p.n, nw);
	for (size_t i = 0; i < p.n; i++) {
		const struct vr_proc *r = &p.rows[i];
		size_t k;

		if (i)
			ck_assert_uint_ge(p.rows[i - 1].ios, r->ios);
		for (k = 0; k < nw && (w[k].pid != r->pid || w[k].comm != r->comm); k++)
			;
		ck_assert_uint_lt(k, nw);
		ck_assert_uint_eq(r->ios, w[k].ios);
		ck_assert_uint_eq(r->bytes, w[k].bytes);
		ck_assert_uint_eq(r->errors, w[k].errors);
		ck_assert_uint_eq(r->lat_sum, w[k].lat_sum);
	}
	/* counting goes on after a sort */
	{
		struct vxt_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.pid = p.rows[3].pid;
		ev.comm = p.rows[3].comm;
		ev.phase = VXT_PH_DONE;
		ck_assert_int_eq(vr_procs_add(&p, &ev), 0);
		ck_assert_uint_eq(p.n, nw);
	}
	vr_procs_free(&p);
}
END_TEST

/* Past VR_PROCS_MAX processes: one "(others)" row holds the rest. */
START_TEST(bounded)
{
	struct vr_procs p = { 0 };
	struct vxt_event ev;
	uint64_t total = 0;

	memset(&ev, 0, sizeof(ev));
	ev.phase = VXT_PH_DONE;
	for (uint32_t i = 0; i < VR_PROCS_MAX + 1000; i++) {
		ev.pid = i;
		ck_assert_int_eq(vr_procs_add(&p, &ev), 0);
	}
	ck_assert_uint_eq(p.n, VR_PROCS_MAX + 1);
	vr_procs_sort(&p);
	ck_assert(p.rows[p.n - 1].others);
	ck_assert_uint_eq(p.rows[p.n - 1].ios, 1000);
	for (size_t i = 0; i < p.n; i++)
		total += p.rows[i].ios;
	ck_assert_uint_eq(total, VR_PROCS_MAX + 1000);
	vr_procs_free(&p);
}
END_TEST

Suite *browser_procs_suite(void)
{
	Suite *s = suite_create("browser_procs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rows_match_brute_force);
	tcase_add_test(tc, bounded);
	suite_add_tcase(s, tc);
	return s;
}
