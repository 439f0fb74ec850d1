/* test_vxtop_rows.c - vxtop's interval figures and table against brute force
 *
 * Random overlapping I/O on three objects over several intervals goes through
 * the model; every figure of every row (r/s, w/s, MB/s, avg, p99, qd, util%,
 * iostat's r_await, w_await, aqu-sz, areq-sz, the LBA slices) is checked
 * against what the test computes from its own list of I/Os: counts, sums,
 * the sorted latencies, the union of busy time. Then the table: sort order,
 * the name filter, the selection following its object, and the pause.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shown.h"
#include "fixture.h"

#define SEC 1000000000ull
#define NOBJ 3
#define NIV 6
#define NIO 3000
#define GIB (1ull << 30)

struct io {
	uint64_t start, done, sector, lat;
	uint32_t bytes;
	unsigned obj, op;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	return ut_rand_below(&rng, n);
}

static struct io ios[NIO];
static struct vxt_event evs[2 * NIO];

static int cmp_ev(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Random I/O: object 0 mostly reads, 1 mostly writes, 2 a mix with flushes
 * and discards; latencies from 20us to ~30ms, overlapping. */
static void make_ios(void)
{
	for (unsigned i = 0; i < NIO; i++) {
		struct io *o = &ios[i];
		unsigned r = (unsigned)rnd(100);

		o->obj = (unsigned)rnd(NOBJ);
		o->start = rnd(NIV * SEC - 40000000ull);
		o->lat = 20000 + rnd(o->obj == 2 ? 30000000 : 3000000);
		o->done = o->start + o->lat;
		o->sector = rnd(GIB / 512 - 256);
		o->bytes = 512u << rnd(8);
		if (o->obj == 0)
			o->op = r < 90 ? VXT_OP_READ : VXT_OP_WRITE;
		else if (o->obj == 1)
			o->op = r < 15 ? VXT_OP_READ : r < 95 ? VXT_OP_WRITE : VXT_OP_WRITE_ZEROES;
		else
			o->op = r < 40 ? VXT_OP_READ : r < 80 ? VXT_OP_WRITE :
				r < 90 ? VXT_OP_FLUSH : VXT_OP_DISCARD;
		if (o->op == VXT_OP_FLUSH)
			o->bytes = 0;
		/* distinct keys: a start pairs only with its own completion */
		o->sector = o->sector / NIO * NIO + i;
		evs[2 * i] = (struct vxt_event){ .time_ns = o->start, .sector = o->sector,
						 .bytes = o->bytes, .object = o->obj,
						 .phase = VXT_PH_START, .op = (uint8_t)o->op };
		evs[2 * i + 1] = evs[2 * i];
		evs[2 * i + 1].time_ns = o->done;
		evs[2 * i + 1].phase = VXT_PH_DONE;
		evs[2 * i + 1].latency_ns = o->lat;
	}
	qsort(evs, 2 * NIO, sizeof(evs[0]), cmp_ev);
}

static struct vxt_objtab *objects(void)
{
	struct vxt_objtab *t = vxt_objtab_new();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(vxt_objtab_add(t, 1, "sda", 0, GIB), 0);
	ck_assert_int_eq(vxt_objtab_add(t, 2, "sdb", 0, GIB), 1);
	ck_assert_int_eq(vxt_objtab_add(t, 3, "dm-0", 0, GIB), 2);
	return t;
}

/* Feed interval by interval; @check(k) after each close. */
static void run(struct vxtop_model *m, void (*check)(struct vxtop_model *, unsigned))
{
	size_t e = 0;

	for (unsigned k = 0; k < NIV; k++) {
		size_t s = e;

		while (e < 2 * NIO && evs[e].time_ns < (k + 1) * SEC)
			e++;
		ck_assert_int_eq(vxtop_model_feed(m, evs + s, e - s), 0);
		ck_assert_int_eq(vxtop_model_close(m, (k + 1) * SEC), 0);
		if (check)
			check(m, k);
	}
}

static bool near(double got, double want, double rel)
{
	double d = got - want;

	return (d < 0 ? -d : d) <= rel * (want < 0 ? -want : want) + 1e-9;
}

/* Busy time of object @obj within [a, b): the union of its I/Os' spans. */
static uint64_t busy(unsigned obj, uint64_t a, uint64_t b)
{
	struct { uint64_t s, e; } *sp = malloc(NIO * sizeof(*sp));
	uint64_t total = 0, cur_end = 0, cur_start = 0;
	size_t n = 0;
	bool open = false;

	ck_assert_ptr_nonnull(sp);
	for (unsigned i = 0; i < NIO; i++)
		if (ios[i].obj == obj && ios[i].done > a && ios[i].start < b) {
			sp[n].s = ios[i].start < a ? a : ios[i].start;
			sp[n].e = ios[i].done > b ? b : ios[i].done;
			n++;
		}
	for (size_t i = 1; i < n; i++)	/* insertion sort by start */
		for (size_t j = i; j > 0 && sp[j - 1].s > sp[j].s; j--) {
			uint64_t ts = sp[j].s, te = sp[j].e;

			sp[j] = sp[j - 1];
			sp[j - 1].s = ts;
			sp[j - 1].e = te;
		}
	for (size_t i = 0; i < n; i++) {
		if (!open || sp[i].s > cur_end) {
			if (open)
				total += cur_end - cur_start;
			cur_start = sp[i].s;
			cur_end = sp[i].e;
			open = true;
		} else if (sp[i].e > cur_end) {
			cur_end = sp[i].e;
		}
	}
	if (open)
		total += cur_end - cur_start;
	free(sp);
	return total;
}

static void check_interval(struct vxtop_model *m, unsigned k)
{
	const struct vxtop_snap *s = vxtop_model_snap(m, 0);
	uint64_t a = k * SEC, b = (k + 1) * SEC;

	ck_assert_uint_eq(s->seq, k);
	for (unsigned obj = 0; obj < NOBJ; obj++) {
		uint64_t n[VXT_OP_COUNT] = { 0 }, sum[VXT_OP_COUNT] = { 0 }, rb = 0, wb = 0, db = 0;
		uint64_t lats[NIO], nl = 0, lsum = 0, qd = 0, lba[VXTOP_LBA_BUCKETS] = { 0 };
		const struct vxtop_osnap *o = vxtop_snap_obj(s, obj);
		struct vxtop_row r;

		for (unsigned i = 0; i < NIO; i++) {
			const struct io *x = &ios[i];

			if (x->obj != obj)
				continue;
			if (x->start < b && x->done >= b)
				qd++;
			if (x->done < a || x->done >= b)
				continue;
			n[x->op]++;
			sum[x->op] += x->lat;
			lats[nl++] = x->lat;
			lsum += x->lat;
			if (x->op == VXT_OP_READ)
				rb += x->bytes;
			else if (x->op == VXT_OP_WRITE || x->op == VXT_OP_WRITE_ZEROES)
				wb += x->bytes;
			else if (x->op == VXT_OP_DISCARD)
				db += x->bytes;
			if (x->bytes)
				lba[x->sector * VXTOP_LBA_BUCKETS / (GIB / 512)]++;
		}
		vxtop_row_fill(m, s, obj, &r);
		ck_assert_msg(near(r.v[VXTOP_COL_RPS], (double)n[VXT_OP_READ], 1e-12), "r/s");
		ck_assert(near(r.v[VXTOP_COL_WPS],
			       (double)(n[VXT_OP_WRITE] + n[VXT_OP_WRITE_ZEROES]), 1e-12));
		ck_assert(near(r.dps, (double)n[VXT_OP_DISCARD], 1e-12));
		ck_assert(near(r.fps, (double)n[VXT_OP_FLUSH], 1e-12));
		ck_assert(near(r.v[VXTOP_COL_RMBS], rb / 1048576.0, 1e-12));
		ck_assert(near(r.v[VXTOP_COL_WMBS], wb / 1048576.0, 1e-12));
		ck_assert_uint_eq((uint64_t)r.v[VXTOP_COL_QD], qd);
		ck_assert_msg(near(r.v[VXTOP_COL_UTIL], 100.0 * busy(obj, a, b) / SEC, 1e-9),
			      "util %f, busy %f", r.v[VXTOP_COL_UTIL], 100.0 * busy(obj, a, b) / SEC);
		ck_assert(nl > 10);
		ck_assert(near(r.v[VXTOP_COL_AVG], (double)lsum / nl, 1e-12));
		/* p99: the bucket's upper bound, never below the true one, at most
		 * 25% above it, never above the maximum */
		qsort(lats, nl, sizeof(lats[0]), cmp_u64);
		{
			uint64_t truth = lats[(nl * 99 + 99) / 100 - 1];

			ck_assert_msg(r.v[VXTOP_COL_P99] >= truth, "p99 %f below %llu",
				      r.v[VXTOP_COL_P99], (unsigned long long)truth);
			ck_assert(r.v[VXTOP_COL_P99] <= truth * 1.25 + 1);
			ck_assert(r.v[VXTOP_COL_P99] <= lats[nl - 1]);
		}
		/* iostat -x */
		if (n[VXT_OP_READ])
			ck_assert(near(r.r_await, sum[VXT_OP_READ] / 1e6 / n[VXT_OP_READ], 1e-12));
		else
			ck_assert(r.r_await < 0);
		ck_assert(near(r.w_await, (sum[VXT_OP_WRITE] + sum[VXT_OP_WRITE_ZEROES]) / 1e6 /
				   (n[VXT_OP_WRITE] + n[VXT_OP_WRITE_ZEROES]), 1e-12));
		ck_assert(near(r.aqu_sz, (double)(sum[VXT_OP_READ] + sum[VXT_OP_WRITE] +
					  sum[VXT_OP_WRITE_ZEROES] + sum[VXT_OP_DISCARD] +
					  sum[VXT_OP_FLUSH]) / SEC, 1e-12));
		ck_assert(near(r.areq_sz, (rb + wb + db) / 1024.0 /
				   (n[VXT_OP_READ] + n[VXT_OP_WRITE] + n[VXT_OP_WRITE_ZEROES] +
				    n[VXT_OP_DISCARD]), 1e-12));
		ck_assert(r.rrqm_s < 0 && r.q2c_avg < 0);	/* no queue phases: n/a */
		for (unsigned i = 0; i < VXTOP_LBA_BUCKETS; i++)
			ck_assert_uint_eq(o->lba[i], lba[i]);
	}
}

START_TEST(figures_match_the_ios)
{
	struct vxt_objtab *objs = objects();
	struct vxtop_model m;

	make_ios();
	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	run(&m, check_interval);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

static unsigned reads_in(unsigned obj, unsigned k)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NIO; i++)
		n += ios[i].obj == obj && ios[i].op == VXT_OP_READ && ios[i].done >= k * SEC &&
		     ios[i].done < (k + 1) * SEC;
	return n;
}

START_TEST(table_sort_filter_select_pause)
{
	struct vxt_objtab *objs = objects();
	struct vxtop_view view = { .sort_col = VXTOP_COL_RPS };
	struct vxtop_model m;
	struct vxtop_shown v;
	unsigned want[NOBJ], k = NIV - 1;

	make_ios();
	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	run(&m, NULL);
	vxtop_shown_init(&v, &m, &view);
	ck_assert_int_eq(vxtop_shown_rows(&v), 0);
	ck_assert_uint_eq(v.nrows, NOBJ);
	/* by r/s, descending: the objects ordered by their reads (then by id) */
	for (unsigned i = 0; i < NOBJ; i++)
		want[i] = i;
	for (unsigned i = 0; i < NOBJ; i++)
		for (unsigned j = i + 1; j < NOBJ; j++)
			if (reads_in(want[j], k) > reads_in(want[i], k)) {
				unsigned t = want[i];

				want[i] = want[j];
				want[j] = t;
			}
	for (unsigned i = 0; i < NOBJ; i++)
		ck_assert_uint_eq(v.rows[i].object, want[i]);
	/* the selection follows its object when the order changes */
	vxtop_shown_select(&v, 0);
	ck_assert_uint_eq(v.sel_object, want[0]);
	view.ascending = true;
	ck_assert_int_eq(vxtop_shown_rows(&v), 0);
	ck_assert_uint_eq(v.rows[NOBJ - 1].object, want[0]);
	ck_assert_uint_eq(v.sel, NOBJ - 1);
	/* by name: ascending from the start */
	vxtop_shown_sort(&v, VXTOP_COL_NAME);
	ck_assert(view.ascending);
	ck_assert_int_eq(vxtop_shown_rows(&v), 0);
	ck_assert_str_eq(v.rows[0].name, "dm-0");
	ck_assert_str_eq(v.rows[2].name, "sdb");
	/* the name glob */
	snprintf(v.glob, sizeof(v.glob), "sd*");
	ck_assert_int_eq(vxtop_shown_rows(&v), 0);
	ck_assert_uint_eq(v.nrows, 2);
	ck_assert_str_eq(v.rows[0].name, "sda");
	/* pause: the shown interval stays while the model goes on */
	vxtop_shown_pause(&v, true);
	ck_assert_uint_eq(vxtop_shown_snap(&v, 0)->seq, NIV - 1);
	ck_assert_int_eq(vxtop_model_close(&m, (NIV + 1) * SEC), 0);
	ck_assert_int_eq(vxtop_model_close(&m, (NIV + 2) * SEC), 0);
	ck_assert_uint_eq(vxtop_shown_snap(&v, 0)->seq, NIV - 1);
	ck_assert_uint_eq(vxtop_shown_snap(&v, 1)->seq, NIV - 2);
	vxtop_shown_pause(&v, false);
	ck_assert_uint_eq(vxtop_shown_snap(&v, 0)->seq, NIV + 1);
	vxtop_shown_free(&v);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

Suite *vxtop_rows_suite(void)
{
	Suite *s = suite_create("vxtop_rows");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, figures_match_the_ios);
	tcase_add_test(tc, table_sort_filter_select_pause);
	suite_add_tcase(s, tc);
	return s;
}
