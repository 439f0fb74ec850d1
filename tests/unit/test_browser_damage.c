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

#define SEC 1000000000ull
#define NIO 12000
#define NEV (2 * NIO)
#define BAD 3		/* the damaged chunk */

static struct vxt_event evs[NEV];
static char path[64], marks[80];
static uint64_t bad_first, bad_n;	/* the damaged chunk's ordinals */

static uint64_t rng = 0x2545f4914f6cdd1dull;

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

/* Write the trace and overwrite 8 bytes in the middle of chunk BAD's data. */
static void make_trace(void)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = 32 * 1024, .source = "test",
				      .anchor_mono_ns = SEC, .anchor_real_ns = SEC, .force = true };
	char err[VXT_ERRBUF_SIZE];
	const struct vxt_chunk_info *ci;
	struct vxt_reader *rd;
	struct vxt_writer *w;
	int fd;

	ck_assert_int_eq(vxt_objtab_add(objs, 1, "sda", 0, 1ull << 30), 0);
	ck_assert_int_eq(vxt_objtab_add(objs, 2, "sdb", 0, 1ull << 30), 1);
	for (unsigned i = 0; i < NIO; i++) {
		struct vxt_event *s = &evs[2 * i], *d = &evs[2 * i + 1];
		uint64_t lat = 10000 + rnd(3000000);

		*s = (struct vxt_event){ .time_ns = SEC + rnd(6 * SEC), .sector = rnd(1u << 21) * 8,
					 .bytes = 4096u << rnd(3), .object = (uint32_t)rnd(2),
					 .pid = 100, .phase = VXT_PH_START,
					 .op = (uint8_t)(rnd(2) ? VXT_OP_READ : VXT_OP_WRITE) };
		*d = *s;
		d->phase = VXT_PH_DONE;
		d->time_ns = s->time_ns + lat;
		d->latency_ns = lat;
		if (!rnd(40))
			d->error = -5;
	}
	qsort(evs, NEV, sizeof(evs[0]), cmp_ev);
	snprintf(path, sizeof(path), "/tmp/vxt-damage-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(marks, sizeof(marks), "%s.marks", path);
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, NEV), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);

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

static void finish(struct vr_model *m)
{
	for (int i = 0; vr_model_busy(m); i++) {
		ck_assert_int_lt(i, 1000000);
		vr_model_step(m);
	}
}

static void apply(struct vr_model *m, const char *filter)
{
	char err[256];

	ck_assert_msg(vr_filter_set(m, filter, err, sizeof(err)) == 0, "%s", err);
	m->job[VR_JOB_COUNT] = (struct vr_job){ .active = m->view.match != NULL,
						.end = m->view.nchunks };
	vr_model_rebin(m);
	vr_model_reseat(m);
	finish(m);
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

START_TEST(marks_come_back)
{
	struct vr_model m;
	struct stat st;
	FILE *f;

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
	f = fopen(marks, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "vxreplay-marks 1\n7 %llu\n9 1\n", (unsigned long long)evs[7].time_ns);
	fclose(f);
	ck_assert_msg(vr_model_open(&m, path) == 0, "%s", m.err);
	ck_assert_uint_eq(m.nmarks, 1);
	ck_assert_uint_eq(m.marks[0].ord, 7);
	ck_assert_msg(strstr(m.note, "1 mark dropped"), "note: %s", m.note);
	vr_model_close(&m);

	/* a malformed line: named, the marks before it kept */
	f = fopen(marks, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "vxreplay-marks 1\n7 %llu\n8 +9\n", (unsigned long long)evs[7].time_ns);
	fclose(f);
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
