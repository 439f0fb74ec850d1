/* test_vxtop_loss.c - vxtop counts the I/Os closed by loss as vxreplay does
 *
 * A random stream of reads and writes on two objects over a few sectors
 * (so starts of the same object, op and sector overlap) loses every event
 * in four windows of 40 ms (the last as the stream ends), each becoming a lost event naming no I/O (a
 * ring's gap) at its end; most of the completions lost are then named by a
 * lost event 50 ms to 1.5 s later, as the tracefs source's rounds name
 * them, often after the gap's rule closed them already. Fed to vxtop's
 * model in intervals of 1 s, each interval's closed_by_loss per object must
 * be the brute force's below, and their sum the closed_by_loss of
 * vxreplay's stats over the same events.
 *
 * The brute force keeps per key (object, op, sector) the open starts and
 * those closed by loss not yet named, each in issue order: a completion
 * whose latency says it is the oldest closed one's takes that one back
 * (its completion came after all: not lost), else ends the oldest open
 * start of its key; a gap's rule, due VXT_LOST_GRACE_NS after the newest
 * gap (at the first event or interval end from then on), closes every open
 * start issued before that gap; a named lost event takes one closed-not-
 * named of its key if any (closing nothing more), else closes the oldest
 * open start of its key.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "fixture.h"

#define NIO 6000
#define NSECT 40
#define NKEY (2 * 2 * NSECT)
#define WIN_NS (40 * 1000000ull)
#define NWIN 4
#define END_S 12

/* the last, as the stream ends: only the end of an interval at rest can
 * apply its rule */
static const uint64_t win_at[NWIN] = { 2 * UT_SEC, 4 * UT_SEC + UT_SEC / 2, 7 * UT_SEC,
				       9 * UT_SEC + 6 * UT_SEC / 10 };

static int in_window(uint64_t t)
{
	for (int w = 0; w < NWIN; w++)
		if (t >= win_at[w] && t < win_at[w] + WIN_NS)
			return w;
	return -1;
}

static int by_time(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
}

/* The stream, sorted by time. @return its length. */
static size_t make_stream(struct vxt_event *evs, uint64_t seed)
{
	uint64_t s = seed, dropped[NWIN] = { 0 };
	size_t n = 0;

	for (size_t i = 0; i < NIO; i++) {
		unsigned obj = (unsigned)ut_rand_below(&s, 2);
		unsigned op = ut_rand_below(&s, 2) ? VXT_OP_WRITE : VXT_OP_READ;
		uint64_t sector = 8 * ut_rand_below(&s, NSECT);
		uint64_t t0 = UT_SEC / 10 + ut_rand_below(&s, 9 * UT_SEC);
		uint64_t lat = ut_rand_below(&s, 5) ? 100000 + ut_rand_below(&s, 5000000) :
				50000000 + ut_rand_below(&s, 850000000);
		struct vxt_event st = ut_io_event(t0, VXT_PH_START, op, sector);
		struct vxt_event dn = ut_io_event(t0 + lat, VXT_PH_DONE, op, sector);
		int ws = in_window(t0), wd = in_window(t0 + lat);

		st.object = dn.object = obj;
		dn.latency_ns = lat;
		if (ws >= 0)
			dropped[ws]++;
		else
			evs[n++] = st;
		if (wd < 0) {
			evs[n++] = dn;
			continue;
		}
		dropped[wd]++;
		if (ws < 0 && ut_rand_below(&s, 10) < 7) {	/* named, later */
			struct vxt_event l = ut_lost_event(win_at[wd] + WIN_NS + UT_SEC / 20 +
							   ut_rand_below(&s, 1450000000ull),
							   op, 0, vxt_lost_io_pack(sector));

			l.object = obj;
			evs[n++] = l;
		}
	}
	for (int w = 0; w < NWIN; w++)
		if (dropped[w])
			evs[n++] = ut_lost_event(win_at[w] + WIN_NS, VXT_OP_OTHER, dropped[w], 0);
	qsort(evs, n, sizeof(*evs), by_time);
	return n;
}

struct brute {
	uint64_t open[NKEY][NIO];	/* issue times, oldest first */
	size_t nopen[NKEY];
	uint64_t gone[NKEY][NIO];	/* closed by loss, not yet named */
	size_t ngone[NKEY];
	uint64_t mark, due;
	int64_t closed[2];		/* per object, in the open interval */
	uint64_t by_rule, named_gone, came_back;	/* the cases met */
};

/* The key of a start, a completion or a lost event naming its I/O. */
static unsigned key(const struct vxt_event *ev)
{
	uint64_t sector = ev->phase == VXT_PH_LOST ? ev->lost_io - 1 : ev->sector;

	return (ev->object * 2 + (ev->op == VXT_OP_WRITE)) * NSECT + (unsigned)(sector / 8);
}

static void drop_first(uint64_t *list, size_t *n)
{
	memmove(list, list + 1, --*n * sizeof(*list));
}

/* The gap's rule at @now. */
static void brute_rule(struct brute *b, uint64_t now)
{
	if (!b->due || now < b->due)
		return;
	for (unsigned k = 0; k < NKEY; k++) {
		size_t keep = 0;

		for (size_t i = 0; i < b->nopen[k]; i++) {
			if (b->open[k][i] < b->mark) {
				b->gone[k][b->ngone[k]++] = b->open[k][i];
				b->by_rule++;
				b->closed[k / (2 * NSECT)]++;
			} else {
				b->open[k][keep++] = b->open[k][i];
			}
		}
		b->nopen[k] = keep;
	}
	b->due = 0;
}

static void brute_event(struct brute *b, const struct vxt_event *ev)
{
	unsigned k;

	brute_rule(b, ev->time_ns);
	if (ev->phase == VXT_PH_LOST && !ev->lost_io) {
		b->mark = ev->time_ns;
		b->due = ev->time_ns + VXT_LOST_GRACE_NS;
		return;
	}
	k = key(ev);
	if (ev->phase == VXT_PH_START) {
		b->open[k][b->nopen[k]++] = ev->time_ns;
	} else if (ev->phase == VXT_PH_DONE) {
		if (b->ngone[k] && b->gone[k][0] == ev->time_ns - ev->latency_ns) {
			drop_first(b->gone[k], &b->ngone[k]);	/* came after all */
			b->closed[ev->object]--;
			b->came_back++;
		} else if (b->nopen[k]) {
			drop_first(b->open[k], &b->nopen[k]);
		}
	} else if (b->ngone[k]) {	/* named: one closed already */
		drop_first(b->gone[k], &b->ngone[k]);
		b->named_gone++;
	} else if (b->nopen[k]) {
		drop_first(b->open[k], &b->nopen[k]);
		b->closed[ev->object]++;
	}
}

static void check_interval(struct vxtop_model *m, struct brute *b, uint64_t end, int64_t *sum)
{
	ck_assert_int_eq(vxtop_model_close(m, end), 0);
	brute_rule(b, end);
	for (uint32_t o = 0; o < 2; o++) {
		const struct vxtop_osnap *d = vxtop_snap_obj(vxtop_model_snap(m, 0), o);
		int64_t got = d ? d->closed_by_loss : 0;

		ck_assert_msg(got == b->closed[o],
			      "interval ending %llu ns, object %u: %lld closed by loss, want %lld",
			      (unsigned long long)end, o, (long long)got, (long long)b->closed[o]);
		*sum += got;
		b->closed[o] = 0;
	}
}

START_TEST(closed_by_loss_as_the_replay)
{
	struct vxt_event *evs = calloc(3 * NIO, sizeof(*evs));
	struct brute *b = calloc(1, sizeof(*b));
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;
	struct vxt_stats st;
	struct vxt_objstats tot;
	uint64_t named = 0, end = UT_SEC;
	int64_t sum = 0;
	size_t n;

	ck_assert_ptr_nonnull(evs);
	ck_assert_ptr_nonnull(b);
	n = make_stream(evs, 0x5eed + (uint64_t)_i);
	ck_assert_int_eq(vxtop_model_init(&m, objs, UT_SEC, 0), 0);
	for (size_t i = 0; i < n; i++) {
		while (evs[i].time_ns >= end) {
			check_interval(&m, b, end, &sum);
			end += UT_SEC;
		}
		named += evs[i].phase == VXT_PH_LOST && evs[i].lost_io;
		brute_event(b, &evs[i]);
		ck_assert_int_eq(vxtop_model_feed(&m, &evs[i], 1), 0);
	}
	for (; end <= END_S * UT_SEC; end += UT_SEC)
		check_interval(&m, b, end, &sum);
	ck_assert_int_eq((int64_t)vxtop_model_closed_by_loss(&m), sum);
	ck_assert_uint_gt(named, 0);
	ck_assert_uint_gt(b->by_rule, 0);
	ck_assert_uint_gt(b->named_gone, 0);
	ck_assert_uint_gt(b->came_back, 0);
	/* the replay: vxreplay's reports keep the issues by key in a file
	 * with lost events, and close at its end */
	vxt_stats_init(&st);
	ck_assert_int_eq(vxt_stats_keep_flight(&st), 0);
	ck_assert_int_eq(vxt_stats_add_many(&st, evs, n), 0);
	vxt_stats_finish(&st);
	vxt_stats_total(&st, &tot);
	ck_assert_int_eq((int64_t)tot.lost_ios, sum);
	vxt_objstats_free(&tot);
	vxt_stats_free(&st);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
	free(b);
	free(evs);
}
END_TEST

Suite *vxtop_loss_suite(void)
{
	Suite *s = suite_create("vxtop_loss");
	TCase *tc = tcase_create("loss");

	tcase_add_loop_test(tc, closed_by_loss_as_the_replay, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
