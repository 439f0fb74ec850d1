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

#define SEC 1000000000ull
#define NIO 20000
#define NEV (2 * NIO)
#define NBINS 37

static struct vxt_event evs[NEV];
static char path[64];

static uint64_t rng = 0x9e3779b97f4a7c15ull;

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

/* Write the trace; evs[] holds its events in file order. */
static void make_trace(void)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = 64 * 1024, .source = "test",
				      .anchor_mono_ns = SEC, .anchor_real_ns = SEC };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	int fd;

	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	ck_assert_int_eq(vxt_objtab_add(objs, 1, "sda", 0, 1ull << 30), 0);
	ck_assert_int_eq(vxt_objtab_add(objs, 2, "sdb", 0, 1ull << 30), 1);
	ck_assert_int_eq(vxt_objtab_add(objs, 3, "dm-0", 0, 1ull << 30), 2);
	for (unsigned i = 0; i < NIO; i++) {
		struct vxt_event *s = &evs[2 * i], *d = &evs[2 * i + 1];
		uint64_t lat = 10000 + rnd(rnd(10) ? 2000000 : 40000000);

		*s = (struct vxt_event){ .time_ns = SEC + rnd(8 * SEC), .sector = rnd(1u << 21) * 8,
					 .bytes = 4096u << rnd(4), .object = (uint32_t)rnd(3),
					 .pid = 100 + (uint32_t)rnd(5), .phase = VXT_PH_START,
					 .op = (uint8_t)(rnd(3) ? VXT_OP_READ : VXT_OP_WRITE) };
		*d = *s;
		d->phase = VXT_PH_DONE;
		d->time_ns = s->time_ns + lat;
		d->latency_ns = lat;
		if (!rnd(150))
			d->error = -5;
	}
	qsort(evs, NEV, sizeof(evs[0]), cmp_ev);
	snprintf(path, sizeof(path), "/tmp/vxt-browser-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	wo.force = true;
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, NEV), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

static void finish(struct vr_model *m)
{
	for (int i = 0; vr_model_busy(m); i++) {
		ck_assert_int_lt(i, 1000000);
		vr_model_step(m);
	}
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
	char marks[80];

	vr_model_close(m);
	unlink(path);
	snprintf(marks, sizeof(marks), "%s.marks", path);
	unlink(marks);
}

/* The bin of @t in [w0, w1) cut in @n equal parts: the k with
 * w0 + k (w1 - w0) / n <= t < w0 + (k + 1) (w1 - w0) / n, exactly. */
static unsigned bin_of(uint64_t t, uint64_t w0, uint64_t w1, unsigned n)
{
	unsigned k = 0;

	while (k + 1 < n && (unsigned __int128)(t - w0) * n >= (unsigned __int128)(k + 1) * (w1 - w0))
		k++;
	return k;
}

START_TEST(timeline_bins_count_the_events)
{
	struct vr_model m;
	const struct vxt_timeline *tl;
	uint64_t ev[NBINS] = { 0 }, ios[NBINS] = { 0 }, errs[NBINS] = { 0 }, w0, w1;

	open_model(&m);
	w0 = m.t_first;
	w1 = m.t_last + 1;
	vr_model_set_window(&m, w0, w1, NBINS);
	vr_model_rebin(&m);
	finish(&m);
	tl = vr_model_timeline(&m);
	ck_assert_uint_eq(tl->nbins, NBINS);
	ck_assert_uint_eq(tl->t0, w0);
	ck_assert_uint_eq(tl->t1, w1);
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
	finish(&m);
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
	finish(&m);
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
