/* test_browser_damage.c - the browser's model over a damaged chunk, its
 * objects' figures under a filter, and its marks sidecar, against brute force
 *
 * A trace written here has one chunk's data overwritten: the cursor's walk
 * over the shown events (filtered or not) must be every event of the other
 * chunks plus exactly one gap row for the damaged chunk; the filtered
 * figures per object must be those of the matching done events of the
 * chunks that read. Marks written to TRACE.marks come back in a new model;
 * a mark at the wrong time is dropped.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "browser/model.h"
#include "fixture.h"

#define SEC UT_SEC
#define NIO 12000
#define NEV (2 * NIO)
#define BAD 3		/* the damaged chunk */

static struct vxt_event evs[NEV];
static char path[64], marks[80];
static uint64_t bad_first, bad_n;	/* the damaged chunk's ordinals */

/* Write the trace and overwrite 8 bytes in the middle of chunk BAD's data. */
static void make_trace(void)
{
	struct ut_trace t = { .name = "damage", .rng = 0x2545f4914f6cdd1dull, .nio = NIO,
			      .nobjs = 2, .lat_ns = 3000000, .span_ns = 6 * SEC,
			      .sector_bits = 21, .size_steps = 3, .write_one_in = 2,
			      .error_one_in = 40, .chunk_bytes = 32 * 1024 };
	char err[VXT_ERRBUF_SIZE];
	const struct vxt_chunk_info *ci;
	struct vxt_reader *rd;
	int fd;

	ut_trace_write(&t, evs, path, sizeof(path));
	snprintf(marks, sizeof(marks), "%s.marks", path);
	rd = vxt_reader_open(path, err);
	ck_assert_msg(rd != NULL, "%s", err);
	ck_assert_uint_gt(vxt_reader_nchunks(rd), BAD + 2);
	ci = vxt_reader_chunk(rd, BAD);
	bad_first = ci->first_event;
	bad_n = ci->nevents;
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "XXXXXXXX", 8, (off_t)(ci->data_offset + ci->data_size / 2)), 8);
	close(fd);
	vxt_reader_close(rd);
}

static bool in_bad(uint64_t ord)
{
	return ord >= bad_first && ord < bad_first + bad_n;
}

static void apply(struct vr_model *m, const char *filter)
{
	char err[256];

	ck_assert_msg(vr_filter_set(m, filter, err, sizeof(err)) == 0, "%s", err);
	m->job[VR_JOB_COUNT] = (struct vr_job){ .active = m->view.match != NULL,
						.end = m->view.nchunks };
	vr_model_rebin(m);
	vr_model_reseat(m);
	ut_model_finish(m);
}

/* Walk the shown rows from the first to the last with the cursor and check
 * them against the events @want selects (and the one gap row). */
static void walk(struct vr_model *m, bool (*want)(const struct vxt_event *))
{
	uint64_t k = 0, gaps = 0;

	ck_assert_int_eq(vr_model_home(m), 1);
	for (uint64_t prev = UINT64_MAX; m->sel != prev; prev = m->sel, vr_model_move(m, 1)) {
		while (k < NEV && (in_bad(k) ? k != bad_first : !want(&evs[k])))
			k++;
		ck_assert_msg(k < NEV, "the cursor went past the last shown event");
		ck_assert_msg(m->sel == k, "row at #%llu, want #%llu", (unsigned long long)m->sel,
			      (unsigned long long)k);
		if (k == bad_first) {
			ck_assert_int_eq(vr_view_gap(&m->view, m->sel), BAD);
			ck_assert_uint_eq(m->sel_time, evs[bad_first].time_ns);
			gaps++;
		} else {
			ck_assert_int_eq(vr_view_gap(&m->view, m->sel), -1);
		}
		k++;
	}
	while (k < NEV && (in_bad(k) || !want(&evs[k])))
		k++;
	ck_assert_msg(k == NEV, "the walk stopped at #%llu", (unsigned long long)m->sel);
	ck_assert_uint_eq(gaps, 1);
	/* and back up across the gap: it is one row */
	ck_assert_int_eq(vr_model_goto_ord(m, bad_first + bad_n), 1);
	vr_model_move(m, -1);
	ck_assert_uint_eq(m->sel, bad_first);
}

static bool every(const struct vxt_event *ev)
{
	(void)ev;
	return true;
}

static bool sdb_writes(const struct vxt_event *ev)
{
	return ev->object == 1 && ev->op == VXT_OP_WRITE;
}

START_TEST(damaged_chunk_is_one_row)
{
	struct vr_model m;

	make_trace();
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	walk(&m, every);
	apply(&m, "object == sdb && op == write");
	walk(&m, sdb_writes);
	vr_model_close(&m);
	unlink(path);
}
END_TEST

START_TEST(filtered_object_figures)
{
	struct vr_model m;
	struct vr_objfig want[2] = { 0 };

	make_trace();
	for (uint64_t k = 0; k < NEV; k++) {
		const struct vxt_event *ev = &evs[k];
		struct vr_objfig *o = &want[ev->object];

		if (in_bad(k) || ev->phase != VXT_PH_DONE || ev->latency_ns <= 1000000)
			continue;
		o->ios++;
		o->reads += ev->op == VXT_OP_READ;
		o->writes += ev->op == VXT_OP_WRITE;
		o->bytes += ev->error ? 0 : ev->bytes;
		o->errors += ev->error != 0;
		o->lat_sum += ev->latency_ns;
	}
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	/* a narrow window: the binning counts some chunks, the count job the rest */
	vr_model_set_window(&m, m.t_first + SEC, m.t_first + 2 * SEC, 50);
	apply(&m, "latency > 1ms");
	ck_assert_uint_eq(m.view.known, m.view.nchunks);
	ck_assert_uint_eq(m.view.nobjs, 2);
	for (int o = 0; o < 2; o++) {
		const struct vr_objfig *g = &m.view.objs[o];

		ck_assert_uint_eq(g->ios, want[o].ios);
		ck_assert_uint_eq(g->reads, want[o].reads);
		ck_assert_uint_eq(g->writes, want[o].writes);
		ck_assert_uint_eq(g->bytes, want[o].bytes);
		ck_assert_uint_eq(g->errors, want[o].errors);
		ck_assert_uint_eq(g->lat_sum, want[o].lat_sum);
	}
	vr_model_close(&m);
	unlink(path);
}
END_TEST

/* Writes the marks sidecar: @fmt with one time, @t. */
static void write_marks(const char *fmt, uint64_t t)
{
	FILE *f = fopen(marks, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, fmt, (unsigned long long)t);
	fclose(f);
}

START_TEST(marks_come_back)
{
	struct vr_model m;
	struct stat st;

	make_trace();
	unlink(marks);
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	ck_assert_uint_eq(m.nmarks, 0);
	ck_assert_int_eq(lstat(marks, &st), -1);	/* nothing marked: no sidecar */
	ck_assert_int_eq(vr_model_goto_ord(&m, 5), 1);
	ck_assert(vr_model_toggle_mark(&m));
	ck_assert_int_eq(vr_model_goto_ord(&m, NEV - 1), 1);
	ck_assert(vr_model_toggle_mark(&m));
	ck_assert_int_eq(stat(marks, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	vr_model_close(&m);

	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	ck_assert_uint_eq(m.nmarks, 2);
	ck_assert_uint_eq(m.marks[0].ord, 5);
	ck_assert_uint_eq(m.marks[0].time_ns, evs[5].time_ns);
	ck_assert_uint_eq(m.marks[1].ord, NEV - 1);
	vr_model_delete_mark(&m, 0);
	vr_model_close(&m);

	/* the sidecar of another file: the mark at the wrong time is dropped */
	write_marks("vxreplay-marks 1\n7 %llu\n9 1\n", evs[7].time_ns);
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	ck_assert_uint_eq(m.nmarks, 1);
	ck_assert_uint_eq(m.marks[0].ord, 7);
	ck_assert_msg(strstr(m.note, "1 mark dropped"), "note: %s", m.note);
	vr_model_close(&m);

	/* a malformed line: named, the marks before it kept */
	write_marks("vxreplay-marks 1\n7 %llu\n8 +9\n", evs[7].time_ns);
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	ck_assert_uint_eq(m.nmarks, 1);
	ck_assert_msg(strstr(m.note, ".marks:3: want \"ORDINAL TIME_NS\""), "note: %s", m.note);
	vr_model_close(&m);
	unlink(marks);
	unlink(path);
}
END_TEST

Suite *browser_damage_suite(void)
{
	Suite *s = suite_create("browser_damage");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, damaged_chunk_is_one_row);
	tcase_add_test(tc, filtered_object_figures);
	tcase_add_test(tc, marks_come_back);
	suite_add_tcase(s, tc);
	return s;
}
