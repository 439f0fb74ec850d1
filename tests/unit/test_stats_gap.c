/* test_stats_gap.c - the stats close the I/Os a lost record naming no I/O
 * left without their completion
 *
 * A random trace (fixture.c) loses every event in two windows of 10 ms, as
 * a ring overrun does: each window becomes one lost record of its count at
 * its end, naming no I/O. Read back from the file, the stats must close by
 * loss exactly the I/Os issued before a window whose completion it took
 * (VXT_LOST_GRACE_NS after the window, the rule of vxtop and /metrics), end
 * with nothing in flight, and count as busy the union of the I/Os' spans
 * (issue to completion, or to that closing), computed here by brute force
 * over the generator's own pairs. Before the fix those I/Os stayed in
 * flight to the end and every busy period after the first window was lost.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

#define NIO 20000
#define NOBJ 2
#define WIN_NS (10 * 1000000ull)

static const uint64_t win_at[2] = { UT_SEC + UT_SEC / 2, UT_SEC + 8 * UT_SEC / 5 };

static int in_window(uint64_t t)
{
	for (int w = 0; w < 2; w++)
		if (t >= win_at[w] && t < win_at[w] + WIN_NS)
			return w;
	return -1;
}

struct span {
	uint64_t from, to;
	uint32_t object;
};

static int by_from(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

/* The brute force: per object, the I/Os closed by loss and the union of
 * the spans, from the generator's pairs (start i, its done: the first
 * later done of the same object, op and sector). */
static void expect(const struct vxt_event *evs, size_t nev, uint64_t last_ns,
		   uint64_t closed[NOBJ], uint64_t busy[NOBJ])
{
	struct span *sp = calloc(nev, sizeof(*sp));
	char *used = calloc(nev, 1);
	size_t n = 0;

	ck_assert_ptr_nonnull(sp);
	ck_assert_ptr_nonnull(used);
	for (size_t i = 0; i < nev; i++) {
		const struct vxt_event *s = &evs[i];
		size_t j;

		if (s->phase != VXT_PH_START || in_window(s->time_ns) >= 0)
			continue;	/* its start lost: never in flight */
		for (j = i + 1; j < nev; j++)
			if (!used[j] && evs[j].phase == VXT_PH_DONE && evs[j].object == s->object &&
			    evs[j].op == s->op && evs[j].sector == s->sector)
				break;
		ck_assert_uint_lt(j, nev);
		used[j] = 1;
		sp[n] = (struct span){ s->time_ns, evs[j].time_ns, s->object };
		if (in_window(evs[j].time_ns) >= 0) {	/* closed by loss */
			uint64_t due = win_at[in_window(evs[j].time_ns)] + WIN_NS + VXT_LOST_GRACE_NS;

			sp[n].to = due < last_ns ? due : last_ns;
			closed[s->object]++;
		}
		n++;
	}
	qsort(sp, n, sizeof(*sp), by_from);
	for (uint32_t o = 0; o < NOBJ; o++) {
		uint64_t from = 0, to = 0;
		int open = 0;

		for (size_t i = 0; i < n; i++) {
			if (sp[i].object != o)
				continue;
			if (open && sp[i].from <= to) {
				if (sp[i].to > to)
					to = sp[i].to;
				continue;
			}
			if (open)
				busy[o] += to - from;
			from = sp[i].from;
			to = sp[i].to;
			open = 1;
		}
		if (open)
			busy[o] += to - from;
	}
	free(sp);
	free(used);
}

/* @out: the events kept, each window's lost record at its end. */
static size_t lose_windows(const struct vxt_event *evs, size_t nev, struct vxt_event *out)
{
	uint64_t count[2] = { 0, 0 };
	int done[2] = { 0, 0 };
	size_t n = 0;

	for (size_t i = 0; i < nev; i++) {
		int w = in_window(evs[i].time_ns);

		for (int k = 0; k < 2; k++)
			if (!done[k] && evs[i].time_ns >= win_at[k] + WIN_NS) {
				out[n++] = (struct vxt_event){ .time_ns = win_at[k] + WIN_NS,
							       .sector = count[k],
							       .phase = VXT_PH_LOST,
							       .op = VXT_OP_OTHER };
				done[k] = 1;
			}
		if (w >= 0)
			count[w]++;
		else
			out[n++] = evs[i];
	}
	ck_assert(done[0] && done[1]);
	return n;
}

static void write_file(const char *path, const struct vxt_event *ev, size_t n)
{
	static const char *const names[] = { "sda", "sdb" };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = 64 << 10, .source = "test",
				      .anchor_mono_ns = UT_SEC, .anchor_real_ns = UT_SEC,
				      .force = true };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;

	for (unsigned i = 0; i < NOBJ; i++)
		ck_assert_int_eq(vxt_objtab_add(objs, i + 1, names[i], 0, 1ull << 30), (int)i);
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, ev, n), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

START_TEST(gap_closes_what_it_took)
{
	struct ut_trace t = { .name = "gap", .rng = 0x5eed6a9, .nio = NIO, .nobjs = NOBJ,
			      .lat_ns = 8000000, .span_ns = 3 * UT_SEC, .sector_bits = 24,
			      .write_one_in = 3, .error_one_in = 1000, .chunk_bytes = 64 << 10 };
	struct vxt_event *evs = calloc(2 * NIO, sizeof(*evs)), *kept = calloc(2 * NIO + 2,
									     sizeof(*kept));
	uint64_t closed[NOBJ] = { 0 }, busy[NOBJ] = { 0 };
	char path[64], err[VXT_ERRBUF_SIZE];
	const struct vxt_event *ev;
	struct vxt_reader *r;
	struct vxt_stats st;
	size_t n;

	ck_assert_ptr_nonnull(evs);
	ck_assert_ptr_nonnull(kept);
	ut_trace_write(&t, evs, path, sizeof(path));
	n = lose_windows(evs, 2 * NIO, kept);
	write_file(path, kept, n);
	expect(evs, 2 * NIO, kept[n - 1].time_ns, closed, busy);
	ck_assert_uint_gt(closed[0] + closed[1], 10);	/* the windows took some */

	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	vxt_stats_init(&st);
	ck_assert_int_eq(vxt_stats_keep_flight(&st), 0);	/* as vxreplay: the file has lost records */
	while (vxt_reader_next(r, &ev) == 1)
		ck_assert_int_eq(vxt_stats_add(&st, ev), 0);
	vxt_stats_finish(&st);
	for (uint32_t o = 0; o < NOBJ; o++) {
		const struct vxt_objstats *s = vxt_stats_object(&st, o);

		ck_assert_ptr_nonnull(s);
		ck_assert_msg(s->lost_ios == closed[o], "object %u: %llu closed by loss, want %llu",
			      o, (unsigned long long)s->lost_ios, (unsigned long long)closed[o]);
		ck_assert_int_eq(s->in_flight, 0);
		ck_assert_msg(s->busy_ns == busy[o], "object %u: busy %llu ns, want %llu", o,
			      (unsigned long long)s->busy_ns, (unsigned long long)busy[o]);
	}
	vxt_stats_free(&st);
	vxt_reader_close(r);
	unlink(path);
	free(evs);
	free(kept);
}
END_TEST

/* Add to @st the event @ev with its phase, time and sector (a lost
 * event's count) set as given. */
static void put(struct vxt_stats *st, struct vxt_event *ev, enum vxt_phase phase,
		uint64_t time_ns, uint64_t sector)
{
	ev->phase = phase;
	ev->time_ns = time_ns;
	ev->sector = sector;
	ck_assert_int_eq(vxt_stats_add(st, ev), 0);
}

/* With the table kept and no lost record, an issue never completed leaves
 * the flight past VXT_FLIGHT_AGE_NS (at the first event after), not
 * counted lost: busy from its start to there, by hand. */
START_TEST(past_the_age_bound)
{
	struct vxt_event ev = { .object = 0, .op = VXT_OP_READ, .bytes = 4096 };
	struct vxt_stats st;
	const struct vxt_objstats *o;

	vxt_stats_init(&st);
	ck_assert_int_eq(vxt_stats_keep_flight(&st), 0);
	put(&st, &ev, VXT_PH_START, UT_SEC, 8);			/* never completes */
	put(&st, &ev, VXT_PH_START, 40 * UT_SEC, 16);
	ev.latency_ns = 1000;
	put(&st, &ev, VXT_PH_DONE, 40 * UT_SEC + 1000, 16);
	vxt_stats_finish(&st);
	o = vxt_stats_object(&st, 0);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->in_flight, 0);
	ck_assert_uint_eq(o->lost_ios, 0);
	ck_assert_uint_eq(o->busy_ns, 39 * UT_SEC + 1000);
	vxt_stats_free(&st);
}
END_TEST

/* A lost event naming its I/O that comes after the gap's rule closed that
 * I/O (the tracefs source names it when a round finds it, which may be more
 * than VXT_LOST_GRACE_NS after the ring's gap) closes nothing more: not the
 * next start of the same object, op and sector, issued after the gap, whose
 * completion is its own. By hand: A (read at sector 8) from 1 s, the gap
 * at 2 s, B (the same key) from 2.1 s, A named at 2.7 s, B done at 2.8 s:
 * one I/O closed by loss (A, at 2.5 s), none in flight, busy from 1 s to
 * 2.8 s. */
START_TEST(late_name_after_the_gap)
{
	struct vxt_event ev = { .object = 0, .op = VXT_OP_READ, .bytes = 4096 };
	struct vxt_stats st;
	const struct vxt_objstats *o;

	vxt_stats_init(&st);
	ck_assert_int_eq(vxt_stats_keep_flight(&st), 0);	/* as the reports do */
	put(&st, &ev, VXT_PH_START, UT_SEC, 8);			/* A */
	ev.op = VXT_OP_OTHER;
	put(&st, &ev, VXT_PH_LOST, 2 * UT_SEC, 5);		/* the gap: 5 lost */
	ev.op = VXT_OP_READ;
	put(&st, &ev, VXT_PH_START, 2 * UT_SEC + UT_SEC / 10, 8);	/* B */
	ev.lost_io = vxt_lost_io_pack(8);			/* A, named late, */
	put(&st, &ev, VXT_PH_LOST, 2 * UT_SEC + 7 * UT_SEC / 10, 0);	/* counted by the gap */
	ev.latency_ns = 7 * UT_SEC / 10;			/* B's */
	put(&st, &ev, VXT_PH_DONE, 2 * UT_SEC + 8 * UT_SEC / 10, 8);
	vxt_stats_finish(&st);
	o = vxt_stats_object(&st, 0);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->lost_ios, 1);
	ck_assert_int_eq(o->in_flight, 0);
	ck_assert_uint_eq(o->busy_ns, 2 * UT_SEC - UT_SEC / 5);
	vxt_stats_free(&st);
}
END_TEST

/* A completion that comes after all, after the gap's rule closed its I/O
 * (the file holds nothing for longer than VXT_LOST_GRACE_NS after the gap,
 * its events lost too): its latency says its start was that one, as the
 * source paired them, so that I/O was not lost. By hand: A from 1 s, the
 * gap at 2 s, nothing until 4.5 s, when A's completion comes (latency
 * 3.5 s): none closed by loss, none in flight. */
START_TEST(late_completion_after_the_gap)
{
	struct vxt_event ev = { .object = 0, .op = VXT_OP_WRITE, .bytes = 4096 };
	struct vxt_stats st;
	const struct vxt_objstats *o;

	vxt_stats_init(&st);
	ck_assert_int_eq(vxt_stats_keep_flight(&st), 0);
	put(&st, &ev, VXT_PH_START, UT_SEC, 8);			/* A */
	put(&st, &ev, VXT_PH_LOST, 2 * UT_SEC, 900);		/* the gap */
	ev.latency_ns = 3 * UT_SEC + UT_SEC / 2;
	put(&st, &ev, VXT_PH_DONE, 4 * UT_SEC + UT_SEC / 2, 8);	/* A's, late */
	vxt_stats_finish(&st);
	o = vxt_stats_object(&st, 0);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->lost_ios, 0);
	ck_assert_int_eq(o->in_flight, 0);
	vxt_stats_free(&st);
}
END_TEST

Suite *stats_gap_suite(void)
{
	Suite *s = suite_create("stats_gap");
	TCase *tc = tcase_create("gap");

	tcase_add_test(tc, gap_closes_what_it_took);
	tcase_add_test(tc, past_the_age_bound);
	tcase_add_test(tc, late_name_after_the_gap);
	tcase_add_test(tc, late_completion_after_the_gap);
	suite_add_tcase(s, tc);
	return s;
}
