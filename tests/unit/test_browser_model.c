/* test_browser_model.c - the browser's model against brute force
 *
 * A trace written here (random overlapping I/O on three objects, some of it
 * failing, in several chunks) is opened by the curses-free model: after its
 * jobs ran, the timeline's bins (events, completions, errors per bin), the
 * count a filter shows, and the cursor's walk over the shown events equal
 * what the test computes from its own list of events.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "browser/model.h"
#include "fixture.h"

#define SEC UT_SEC
#define NIO 20000
#define NEV (2 * NIO)
#define NBINS 37

static struct vxt_event evs[NEV];
static char path[64];

/* random overlapping I/O on three objects, some slow, some failing */
static void make_trace(void)
{
	struct ut_trace t = { .name = "browser", .rng = 0x9e3779b97f4a7c15ull, .nio = NIO,
			      .nobjs = 3, .lat_ns = 2000000, .slow_ns = 40000000,
			      .slow_one_in = 10, .span_ns = 8 * SEC, .sector_bits = 21,
			      .size_steps = 4, .npids = 5, .write_one_in = 3,
			      .error_one_in = 150, .chunk_bytes = 64 * 1024 };

	ut_trace_write(&t, evs, path, sizeof(path));
}

static void open_model(struct vr_model *m)
{
	make_trace();
	ck_assert_msg(vr_model_open(m, path) == 0, "%s", m->err);
	ck_assert_uint_eq(m->t_first, evs[0].time_ns);
	ck_assert_uint_eq(m->t_last, evs[NEV - 1].time_ns);
}

static void close_model(struct vr_model *m)
{
	ut_model_close(m, path);
}

START_TEST(timeline_bins_count_the_events)
{
	struct vr_model m;
	const struct vxt_timeline *tl;
	uint64_t w0, w1;

	open_model(&m);
	w0 = m.t_first;
	w1 = m.t_last + 1;
	vr_model_set_window(&m, w0, w1, NBINS);
	vr_model_rebin(&m);
	ut_model_finish(&m);
	tl = vr_model_timeline(&m);
	ck_assert_uint_eq(tl->nbins, NBINS);
	ck_assert_uint_eq(tl->t0, w0);
	ck_assert_uint_eq(tl->t1, w1);
	ut_check_bins(tl, evs, NEV, w0, w1);
	close_model(&m);
}
END_TEST

START_TEST(filter_count_and_cursor)
{
	struct vr_model m;
	char err[256];
	uint64_t *want = malloc(NEV * sizeof(*want)), n = 0, shown;
	bool complete;

	ck_assert_ptr_nonnull(want);
	open_model(&m);
	for (unsigned i = 0; i < NEV; i++)
		if (evs[i].op == VXT_OP_WRITE && evs[i].latency_ns > 1000000 &&
		    evs[i].object == 1)
			want[n++] = i;	/* the file's ordinals */
	ck_assert_uint_gt(n, 50);
	ck_assert_msg(vr_filter_set(&m, "op == write && latency > 1ms && object == \"sdb\"", err,
				    sizeof(err)) == 0, "%s", err);
	/* as the browser applies a filter: count it, re-bin, re-place the cursor */
	m.job[VR_JOB_COUNT] = (struct vr_job){ .active = true, .end = m.view.nchunks };
	vr_model_rebin(&m);
	vr_model_reseat(&m);
	ut_model_finish(&m);
	shown = vr_view_shown(&m.view, &complete);
	ck_assert(complete);
	ck_assert_uint_eq(shown, n);
	/* the cursor walks exactly the shown events, in file order */
	ck_assert_int_eq(vr_model_home(&m), 1);
	ck_assert_uint_eq(m.sel, want[0]);
	ck_assert_int_eq(vr_model_move(&m, 7), 1);
	ck_assert_uint_eq(m.sel, want[7]);
	ck_assert_int_eq(vr_model_move(&m, -3), 1);
	ck_assert_uint_eq(m.sel, want[4]);
	ck_assert_int_eq(vr_model_end(&m), 1);
	ck_assert_uint_eq(m.sel, want[n - 1]);
	/* cleared: every event again */
	ck_assert_int_eq(vr_filter_set(&m, "", err, sizeof(err)), 0);
	vr_model_rebin(&m);
	ut_model_finish(&m);
	ck_assert_int_eq(vr_model_home(&m), 1);
	ck_assert_uint_eq(m.sel, 0);
	ck_assert_int_eq(vr_model_move(&m, 12345), 1);
	ck_assert_uint_eq(m.sel, 12345);
	ck_assert_int_eq(vr_model_end(&m), 1);
	ck_assert_uint_eq(m.sel, NEV - 1);
	free(want);
	close_model(&m);
}
END_TEST

Suite *browser_model_suite(void)
{
	Suite *s = suite_create("browser_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, timeline_bins_count_the_events);
	tcase_add_test(tc, filter_count_and_cursor);
	suite_add_tcase(s, tc);
	return s;
}
