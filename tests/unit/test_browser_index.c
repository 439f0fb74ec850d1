/* test_browser_index.c - the browser's index pass on a file of many chunks
 *
 * A trace of more than VR_INDEX_SYNC chunks opens with its timeline still
 * to compute (vr_model_indexing(): the first screen does not wait for the
 * whole index); the pass goes VR_INDEX_STEP entries a turn, its estimate
 * counts every event of the file once, and after the jobs (vr_model_step()
 * runs the pass too) the timeline's bins equal the events counted per bin
 * by brute force. Esc (vr_model_cancel()) while the pass runs leaves the
 * whole estimate, as a small file has it.
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
#define NIO 24000
#define NEV (2 * NIO)
#define PER_CHUNK 32	/* events a chunk: NEV / PER_CHUNK = 1500 chunks */
#define NBINS 41

static struct vxt_event evs[NEV];
static char path[64];
/* random overlapping reads on two objects, some failing, in many chunks */
static void make_trace(void)
{
	struct ut_trace t = { .name = "index", .rng = 0x853c49e6748fea9bull, .nio = NIO,
			      .nobjs = 2, .lat_ns = 3000000, .span_ns = 20 * SEC,
			      .sector_bits = 20, .pid0 = 1, .error_one_in = 100,
			      .chunk_bytes = PER_CHUNK * sizeof(struct vxt_event) };

	ut_trace_write(&t, evs, path, sizeof(path));
}

static void close_model(struct vr_model *m)
{
	ut_model_close(m, path);
}

static uint64_t sum_events(const struct vxt_timeline *tl)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < tl->nbins; b++)
		n += tl->events[b];
	return n;
}

/* The timeline's bins against the events counted per bin. */
static void check_bins(struct vr_model *m, uint64_t w0, uint64_t w1)
{
	const struct vxt_timeline *tl = vr_model_timeline(m);

	ck_assert_uint_eq(tl->nbins, NBINS);
	ut_check_bins(tl, evs, NEV, w0, w1);
}

static void open_window(struct vr_model *m)
{
	make_trace();
	ck_assert_msg(vr_model_open(m, path) == 0, "%s", m->err);
	ck_assert_uint_gt(vxt_reader_nchunks(m->rd), VR_INDEX_SYNC);
	vr_model_set_window(m, m->t_first, m->t_last + 1, NBINS);
	ck_assert(vr_model_indexing(m));	/* nothing read yet: the screen draws first */
	ck_assert(vr_model_busy(m));
}

START_TEST(index_pass_in_turns)
{
	struct vr_model m;
	int turns = 0;

	open_window(&m);
	while (vr_model_indexing(&m)) {
		ck_assert_int_lt(turns++, 100000);
		ck_assert_uint_eq(m.job[VR_JOB_INDEX].next, (size_t)(turns - 1) * VR_INDEX_STEP);
		vr_model_index_step(&m);
	}
	ck_assert_int_eq(turns, (int)((vxt_reader_nchunks(m.rd) + VR_INDEX_STEP - 1) / VR_INDEX_STEP));
	/* the estimate, as the re-binning starts: every event once */
	ck_assert(m.job[VR_JOB_REBIN].active);
	ck_assert(m.tl_show_est);
	ck_assert_uint_eq(sum_events(vr_model_timeline(&m)), NEV);
	while (vr_model_busy(&m)) {
		ck_assert_int_lt(turns++, 1000000);
		vr_model_step(&m);
	}
	check_bins(&m, m.t_first, m.t_last + 1);
	close_model(&m);
}
END_TEST

START_TEST(jobs_run_the_pass)
{
	struct vr_model m;

	open_window(&m);
	for (int i = 0; vr_model_busy(&m); i++) {
		ck_assert_int_lt(i, 1000000);
		vr_model_step(&m);
	}
	ck_assert(m.tl_done);
	check_bins(&m, m.t_first, m.t_last + 1);
	close_model(&m);
}
END_TEST

START_TEST(cancel_keeps_the_whole_estimate)
{
	struct vr_model m;

	open_window(&m);
	vr_model_cancel(&m);
	ck_assert(!vr_model_indexing(&m));
	ck_assert(!vr_model_busy(&m));
	ck_assert_uint_eq(sum_events(&m.tl_est), NEV);
	close_model(&m);
}
END_TEST

Suite *browser_index_suite(void)
{
	Suite *s = suite_create("browser_index");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, index_pass_in_turns);
	tcase_add_test(tc, jobs_run_the_pass);
	tcase_add_test(tc, cancel_keeps_the_whole_estimate);
	suite_add_tcase(s, tc);
	return s;
}
