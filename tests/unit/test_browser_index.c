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

#define SEC 1000000000ull
#define NIO 24000
#define NEV (2 * NIO)
#define PER_CHUNK 32	/* events a chunk: NEV / PER_CHUNK = 1500 chunks */
#define NBINS 41

static struct vxt_event evs[NEV];
static char path[64];
static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	return (x->phase > y->phase) - (x->phase < y->phase);
}

static void make_trace(void)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = PER_CHUNK * sizeof(struct vxt_event),
				      .source = "test", .anchor_mono_ns = SEC,
				      .anchor_real_ns = SEC, .force = true };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	int fd;

	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	ck_assert_int_eq(vxt_objtab_add(objs, 1, "sda", 0, 1ull << 30), 0);
	ck_assert_int_eq(vxt_objtab_add(objs, 2, "sdb", 0, 1ull << 30), 1);
	for (unsigned i = 0; i < NIO; i++) {
		struct vxt_event *s = &evs[2 * i], *d = &evs[2 * i + 1];
		uint64_t lat = 10000 + rnd(3000000);

		*s = (struct vxt_event){ .time_ns = SEC + rnd(20 * SEC), .sector = rnd(1u << 20) * 8,
					 .bytes = 4096, .object = (uint32_t)rnd(2),
					 .phase = VXT_PH_START, .op = VXT_OP_READ };
		*d = *s;
		d->phase = VXT_PH_DONE;
		d->time_ns = s->time_ns + lat;
		d->latency_ns = lat;
		if (!rnd(100))
			d->error = -5;
	}
	qsort(evs, NEV, sizeof(evs[0]), cmp_ev);
	snprintf(path, sizeof(path), "/tmp/vxt-index-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, NEV), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

static void close_model(struct vr_model *m)
{
	char marks[80];

	vr_model_close(m);
	unlink(path);
	snprintf(marks, sizeof(marks), "%s.marks", path);
	unlink(marks);
}

static uint64_t sum_events(const struct vxt_timeline *tl)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < tl->nbins; b++)
		n += tl->events[b];
	return n;
}

/* The bin of @t in [w0, w1) cut in @n equal parts, exactly. */
static unsigned bin_of(uint64_t t, uint64_t w0, uint64_t w1, unsigned n)
{
	unsigned k = 0;

	while (k + 1 < n && (unsigned __int128)(t - w0) * n >= (unsigned __int128)(k + 1) * (w1 - w0))
		k++;
	return k;
}

/* The timeline's bins against the events counted per bin. */
static void check_bins(struct vr_model *m, uint64_t w0, uint64_t w1)
{
	const struct vxt_timeline *tl = vr_model_timeline(m);
	uint64_t ev[NBINS] = { 0 }, ios[NBINS] = { 0 }, errs[NBINS] = { 0 };

	ck_assert_uint_eq(tl->nbins, NBINS);
	for (unsigned i = 0; i < NEV; i++) {
		unsigned b = bin_of(evs[i].time_ns, w0, w1, NBINS);

		ev[b]++;
		if (evs[i].phase == VXT_PH_DONE) {
			ios[b]++;
			errs[b] += evs[i].error != 0;
		}
	}
	for (unsigned b = 0; b < NBINS; b++) {
		ck_assert_msg(tl->events[b] == ev[b], "bin %u: %llu events, want %llu", b,
			      (unsigned long long)tl->events[b], (unsigned long long)ev[b]);
		ck_assert_uint_eq(tl->ios[b], ios[b]);
		ck_assert_uint_eq(tl->errors[b], errs[b]);
	}
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
