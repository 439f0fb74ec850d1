/* test_timeline.c - the timeline binning and heatmap levels against brute force
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/heatmap.h"
#include "vxtrace/timeline.h"

static struct vxt_event mk(uint64_t t, uint32_t obj, int err, uint64_t lat)
{
	struct vxt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = t;
	ev.object = obj;
	ev.phase = VXT_PH_DONE;
	ev.op = VXT_OP_READ;
	ev.bytes = 4096;
	ev.error = (int16_t)err;
	ev.latency_ns = lat;
	return ev;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(bins_match_brute_force)
{
	const uint64_t t0 = 1000, t1 = 1000 + 977 * 1000;
	uint32_t objs[] = { 2, 0 };
	struct vxt_timeline tl;
	uint64_t want_ev[37] = { 0 }, want_err[37] = { 0 }, want_ios0[37] = { 0 };

	ck_assert_int_eq(vxt_timeline_init(&tl, t0, t1, 37, objs, 2), 0);
	srand(7);
	for (int i = 0; i < 20000; i++) {
		uint64_t t = (uint64_t)rand() % (t1 + 5000);
		struct vxt_event ev = mk(t, (uint32_t)(rand() % 3), rand() % 10 ? 0 : -5, 1000);

		vxt_timeline_add(&tl, &ev);
		if (t < t0 || t >= t1)
			continue;
		/* brute force: find the bin by walking the bin starts */
		unsigned b = 0;
		while (b + 1 < 37 && vxt_timeline_bin_start(&tl, b + 1) <= t)
			b++;
		want_ev[b]++;
		if (ev.error)
			want_err[b]++;
		if (ev.object == 0)
			want_ios0[b]++;
	}
	for (int b = 0; b < 37; b++) {
		ck_assert_uint_eq(tl.events[b], want_ev[b]);
		ck_assert_uint_eq(tl.errors[b], want_err[b]);
		ck_assert_uint_eq(tl.cells[1 * 37 + b].ios, want_ios0[b]);
	}
	ck_assert_int_eq(vxt_timeline_bin(&tl, t0 - 1), -1);
	ck_assert_int_eq(vxt_timeline_bin(&tl, t1), -1);
	ck_assert_int_eq(vxt_timeline_bin(&tl, t1 - 1), 36);
	vxt_timeline_free(&tl);
}
END_TEST

START_TEST(chunk_spread_keeps_totals)
{
	uint32_t objs[] = { 0 };
	struct vxt_objagg agg;
	struct vxt_chunk_info ci;
	struct vxt_timeline tl;
	uint64_t ev = 0, err = 0, ios = 0, lost = 0;

	memset(&agg, 0, sizeof(agg));
	agg.ios[VXT_OP_READ] = 999;
	agg.errors = 7;
	agg.lat_hist[10] = 999;
	memset(&ci, 0, sizeof(ci));
	ci.nevents = 2001;
	ci.nerrors = 7;
	ci.nlost = 3;
	ci.first_ns = 150;
	ci.last_ns = 849;
	ci.nobjagg = 1;
	ci.objagg = &agg;
	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 1000, 10, objs, 1), 0);
	ck_assert(!vxt_timeline_chunk_exact(&tl, &ci));
	vxt_timeline_add_chunk(&tl, &ci);
	for (int b = 0; b < 10; b++) {
		ev += tl.events[b];
		err += tl.errors[b];
		lost += tl.lost[b];
		ios += tl.cells[b].ios;
	}
	ck_assert_uint_eq(ev, 2001);
	ck_assert_uint_eq(err, 7);
	ck_assert_uint_eq(lost, 3);
	ck_assert_uint_eq(ios, 999);
	ios = 0;
	for (int b = 0; b < 10; b++)
		ios += tl.ios[b];
	ck_assert_uint_eq(ios, 999);
	ck_assert_uint_eq(tl.events[0], 0);
	ck_assert_uint_eq(tl.events[9], 0);
	ck_assert_uint_gt(tl.events[5], 0);
	/* inside one bin: exact counts, but completions' latencies need the
	 * events (the index has powers of two only) */
	ci.first_ns = 510;
	ci.last_ns = 590;
	ck_assert(!vxt_timeline_chunk_exact(&tl, &ci));
	{
		struct vxt_chunk_info none = ci;

		none.nobjagg = 0;
		ck_assert(vxt_timeline_chunk_exact(&tl, &none));
	}
	/* and added whole to that bin, every figure of it */
	agg.ios[VXT_OP_WRITE] = 1;
	agg.bytes_read = 4096;
	agg.bytes_written = 512;
	agg.lat_hist[11] = 1;
	vxt_timeline_free(&tl);
	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 1000, 10, objs, 1), 0);
	vxt_timeline_add_chunk(&tl, &ci);
	ck_assert_uint_eq(tl.events[5], 2001);
	ck_assert_uint_eq(tl.errors[5], 7);
	ck_assert_uint_eq(tl.lost[5], 3);
	ck_assert_uint_eq(tl.ios[5], 1000);
	ck_assert_uint_eq(tl.bytes[5], 4608);
	ck_assert_uint_eq(tl.lat[5 * VXT_LAT_BUCKETS + 10], 999);
	ck_assert_uint_eq(tl.lat[5 * VXT_LAT_BUCKETS + 11], 1);
	ck_assert_uint_eq(tl.cells[5].ios, 1000);
	ck_assert_uint_eq(tl.cells[5].errors, 7);
	ck_assert_uint_eq(tl.cells[5].bytes, 4608);
	ck_assert_uint_eq(tl.cells[5].lat[10], 999);
	ck_assert_uint_eq(tl.cells[5].lat[11], 1);
	ck_assert_uint_eq(tl.events[4] + tl.events[6] + tl.cells[4].ios + tl.cells[6].ios, 0);
	vxt_timeline_free(&tl);
}
END_TEST

/* A chunk inside one bin adds all its counts to that bin, the row of an
 * object shown and the totals of one that is not. */
START_TEST(chunk_in_one_bin_whole)
{
	uint32_t objs[] = { 1 };
	struct vxt_objagg agg[2];
	struct vxt_chunk_info ci;
	struct vxt_timeline tl;

	memset(agg, 0, sizeof(agg));
	memset(&ci, 0, sizeof(ci));
	for (unsigned k = 0; k < 2; k++) {
		agg[k].object = k;
		agg[k].ios[VXT_OP_READ] = 100 + k;
		agg[k].ios[VXT_OP_WRITE] = 10;
		agg[k].errors = 3 + k;
		agg[k].bytes_read = 4096 * (k + 1);
		agg[k].bytes_written = 512;
		for (unsigned b = 0; b < VXT_LAT_BUCKETS; b++)
			agg[k].lat_hist[b] = b * 3 + k;
	}
	ci.nevents = 300;
	ci.nerrors = 7;
	ci.nlost = 2;
	ci.first_ns = 510;
	ci.last_ns = 590;
	ci.nobjagg = 2;
	ci.objagg = agg;
	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 1000, 10, objs, 1), 0);
	vxt_timeline_add_chunk(&tl, &ci);
	for (unsigned b = 0; b < 10; b++) {
		uint64_t want = b == 5;

		ck_assert_uint_eq(tl.events[b], want * 300);
		ck_assert_uint_eq(tl.errors[b], want * 7);
		ck_assert_uint_eq(tl.lost[b], want * 2);
		ck_assert_uint_eq(tl.ios[b], want * (110 + 111));
		ck_assert_uint_eq(tl.bytes[b], want * (4096 + 512 + 8192 + 512));
		ck_assert_uint_eq(tl.cells[b].ios, want * 111);
		ck_assert_uint_eq(tl.cells[b].errors, want * 4);
		ck_assert_uint_eq(tl.cells[b].bytes, want * (8192 + 512));
		for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++) {
			ck_assert_uint_eq(tl.lat[b * VXT_LAT_BUCKETS + k], want * (k * 6 + 1));
			ck_assert_uint_eq(tl.cells[b].lat[k], want * (k * 3 + 1));
		}
	}
	vxt_timeline_free(&tl);
}
END_TEST

/* A bin whose completions are known only from the index, even in part, has
 * no quantile yet (the views print "..."): the index's log2 histogram would
 * say 1536 for a p99 whose exact value is 1686, and the decoded part alone
 * is not the bin's. Once all are decoded it is the one distribution's
 * nearest rank: 100 latencies of 1000 + 7 k ns, p99 the 99th (1686 ns). */
START_TEST(index_pending_until_decoded)
{
	uint32_t objs[] = { 0 };
	struct vxt_objagg agg;
	struct vxt_chunk_info ci;
	struct vxt_timeline tl;
	struct vxt_event ev;

	memset(&agg, 0, sizeof(agg));
	memset(&ci, 0, sizeof(ci));
	agg.ios[VXT_OP_READ] = 100;
	for (unsigned k = 0; k < 100; k++)
		agg.lat_hist[vxt_log2hist_bucket(1000 + 7 * k)]++;
	ci.nevents = 200;
	ci.first_ns = 510;
	ci.last_ns = 590;
	ci.nobjagg = 1;
	ci.objagg = &agg;
	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 1000, 10, objs, 1), 0);
	vxt_timeline_add_chunk(&tl, &ci);
	ck_assert(vxt_timeline_lat_pending(&tl, 5));
	ck_assert(vxt_timeline_cell_pending(&tl.cells[5]));
	ck_assert(!vxt_timeline_lat_pending(&tl, 4));		/* no completion */
	ck_assert_uint_eq(vxt_timeline_lat_quantile(&tl, 5, 0.99), 0);
	ck_assert_uint_eq(vxt_timeline_cell_quantile(&tl.cells[5], 0.99), 0);
	memset(&ev, 0, sizeof(ev));
	ev.phase = VXT_PH_DONE;
	ev.time_ns = 550;
	ev.latency_ns = 900;				/* decoded, beside the entry */
	vxt_timeline_add(&tl, &ev);
	ck_assert(vxt_timeline_lat_pending(&tl, 5));
	ck_assert_uint_eq(vxt_timeline_lat_quantile(&tl, 5, 0.99), 0);
	ck_assert_uint_eq(vxt_timeline_cell_quantile(&tl.cells[5], 0.50), 0);
	vxt_timeline_free(&tl);

	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 1000, 10, objs, 1), 0);
	for (unsigned k = 0; k < 100; k++) {
		ev.latency_ns = 1000 + 7 * k;
		vxt_timeline_add(&tl, &ev);
	}
	ck_assert(!vxt_timeline_lat_pending(&tl, 5));
	ck_assert(!vxt_timeline_cell_pending(&tl.cells[5]));
	ck_assert_uint_eq(vxt_timeline_cell_quantile(&tl.cells[5], 0.99), 1687);
	/* the 99th, 1686 ns, as formats/reports.md gives it: the top of its
	 * 1/128 bucket, [1680, 1688) between 1024 and 2048 */
	ck_assert_uint_eq(vxt_timeline_lat_quantile(&tl, 5, 0.99), 1687);
	vxt_timeline_free(&tl);
}
END_TEST

START_TEST(heat_levels_and_quantile)
{
	uint32_t lat[VXT_LAT_BUCKETS] = { 0 };
	uint32_t objs[] = { 0 };
	struct vxt_timeline tl;
	struct vxt_heatmap hm = { 0 };

	ck_assert_uint_eq(vxt_heat_level(0, 1, 10, false), 0);
	ck_assert_uint_eq(vxt_heat_level(10, 1, 10, false), VXT_HEAT_LEVELS);
	ck_assert_uint_eq(vxt_heat_level(1, 1, 100, true), 1);
	ck_assert_uint_le(vxt_heat_level(5, 1, 10, false), vxt_heat_level(6, 1, 10, false));
	lat[10] = 98;
	lat[20] = 2;
	ck_assert_uint_eq(vxt_log2hist_quantile(lat, VXT_LAT_BUCKETS, 0.5), 1024 + 512);
	ck_assert_uint_eq(vxt_log2hist_quantile(lat, VXT_LAT_BUCKETS, 0.99), (1 << 20) + (1 << 19));
	ck_assert_uint_eq(vxt_log2hist_bucket(1500), 10);

	ck_assert_int_eq(vxt_timeline_init(&tl, 0, 4000000000ull, 4, objs, 1), 0);
	for (int i = 0; i < 30; i++) {
		struct vxt_event ev = mk(2500000000ull, 0, i == 0 ? -5 : 0, 1000);

		vxt_timeline_add(&tl, &ev);
	}
	struct vxt_event one = mk(100, 0, 0, 1000);
	vxt_timeline_add(&tl, &one);
	ck_assert_int_eq(vxt_heatmap_build(&hm, &tl, VXT_HEAT_IOPS, false), 0);
	ck_assert_uint_eq(hm.level[2], VXT_HEAT_LEVELS);
	ck_assert_uint_eq(hm.level[1], 0);
	ck_assert_uint_ge(hm.level[0], 1);
	ck_assert_uint_eq(hm.err[2], 1);
	ck_assert_uint_eq(hm.err[0], 0);
	ck_assert(hm.hi > 29.0 && hm.hi < 31.0);
	vxt_heatmap_free(&hm);
	vxt_timeline_free(&tl);
}
END_TEST

/* The row of @ev moved to @sector. */
static int row_at(const struct vxt_timeline *tl, struct vxt_event *ev, uint64_t sector)
{
	ev->sector = sector;
	return vxt_timeline_row(tl, ev);
}

START_TEST(lba_rows)
{
	struct vxt_timeline tl;
	struct vxt_event ev = mk(10, 3, 0, 1);

	ck_assert_int_eq(vxt_timeline_init_lba(&tl, 0, 100, 2, 3, 1000, 4), 0);
	ck_assert_int_eq(row_at(&tl, &ev, 999), 3);
	ck_assert_int_eq(row_at(&tl, &ev, 0), 0);
	ck_assert_int_eq(row_at(&tl, &ev, 5000), 3);
	ev.object = 1;
	ck_assert_int_eq(vxt_timeline_row(&tl, &ev), -1);
	vxt_timeline_free(&tl);
}
END_TEST

/* Bin totals count every object's completed I/O, rows or not; the rates
 * and quantiles read them. Brute force: bins found by walking bin starts. */
START_TEST(bin_totals_match_brute_force)
{
	const uint64_t t0 = 5000, t1 = 5000 + 13 * 1000003;
	uint32_t objs[] = { 1 };
	struct vxt_timeline tl;
	uint64_t want_ios[13] = { 0 }, want_bytes[13] = { 0 };
	static uint32_t want_lat[13][VXT_LAT_BUCKETS];
	static uint64_t lats[13][30000];
	size_t nlat[13] = { 0 };
	uint64_t total[VXT_LAT_BUCKETS] = { 0 };

	memset(want_lat, 0, sizeof(want_lat));
	ck_assert_int_eq(vxt_timeline_init(&tl, t0, t1, 13, objs, 1), 0);
	srand(11);
	for (int i = 0; i < 30000; i++) {
		uint64_t t = (uint64_t)rand() % (t1 + 9000);
		uint64_t lat = (uint64_t)1 << (rand() % 25);
		struct vxt_event ev = mk(t, (uint32_t)(rand() % 4), 0, lat + (uint64_t)rand() % lat);
		unsigned b = 0, k = 0;

		ev.bytes = 512u * (unsigned)(1 + rand() % 64);
		if (rand() % 3 == 0)
			ev.phase = VXT_PH_START;
		vxt_timeline_add(&tl, &ev);
		if (t < t0 || t >= t1 || ev.phase != VXT_PH_DONE)
			continue;
		while (b + 1 < 13 && vxt_timeline_bin_start(&tl, b + 1) <= t)
			b++;
		while (k + 1 < VXT_LAT_BUCKETS && (UINT64_C(2) << k) <= ev.latency_ns)
			k++;
		want_ios[b]++;
		want_bytes[b] += ev.bytes;
		want_lat[b][k]++;
		lats[b][nlat[b]++] = ev.latency_ns;
	}
	vxt_timeline_lat_total(&tl, total);
	for (unsigned b = 0; b < 13; b++) {
		double w = (double)(vxt_timeline_bin_start(&tl, b + 1) - vxt_timeline_bin_start(&tl, b));
		uint64_t n = 0;

		ck_assert_uint_eq(tl.ios[b], want_ios[b]);
		ck_assert_uint_eq(tl.bytes[b], want_bytes[b]);
		for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++) {
			ck_assert_uint_eq(tl.lat[b * VXT_LAT_BUCKETS + k], want_lat[b][k]);
			n += want_lat[b][k];
		}
		ck_assert_double_eq_tol(vxt_timeline_iops(&tl, b), (double)want_ios[b] * 1e9 / w, 1e-6);
		ck_assert_double_eq_tol(vxt_timeline_bps(&tl, b), (double)want_bytes[b] * 1e9 / w, 1e-3);
		/* the quantiles: the bin's latencies, sorted, within 1/128 above */
		ck_assert_uint_eq(nlat[b], n);
		if (n) {
			uint64_t exact, got = vxt_timeline_lat_quantile(&tl, b, 0.99);

			qsort(lats[b], n, sizeof(lats[b][0]), cmp_u64);
			exact = lats[b][(n * 99 + 99) / 100 - 1];
			ck_assert_uint_ge(got, exact);
			ck_assert_uint_le(got, exact + exact / 128);
		}
	}
	for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++) {
		uint64_t w = 0;

		for (unsigned b = 0; b < 13; b++)
			w += want_lat[b][k];
		ck_assert_uint_eq(total[k], w);
	}
	vxt_timeline_free(&tl);
}
END_TEST

/* A sector range: rows over [first, first + sectors), the object's I/O
 * outside counted apart, other objects ignored. */
START_TEST(lba_range_rows)
{
	struct vxt_timeline tl;
	struct vxt_event ev = mk(10, 3, 0, 1);

	ck_assert_int_eq(vxt_timeline_init_lba_range(&tl, 0, 100, 2, 3, 1000, 400, 4), 0);
	ck_assert_int_eq(row_at(&tl, &ev, 999), -1);
	ck_assert_int_eq(row_at(&tl, &ev, 1000), 0);
	ck_assert_int_eq(row_at(&tl, &ev, 1299), 2);
	ck_assert_int_eq(row_at(&tl, &ev, 1399), 3);
	ck_assert_int_eq(row_at(&tl, &ev, 1400), -1);
	vxt_timeline_add(&tl, &ev);
	ev.sector = 5;
	vxt_timeline_add(&tl, &ev);
	ev.sector = 1100;
	vxt_timeline_add(&tl, &ev);
	ev.object = 2;
	vxt_timeline_add(&tl, &ev);
	ck_assert_uint_eq(tl.lba_outside, 2);
	ck_assert_uint_eq(tl.cells[1 * 2 + 0].ios, 1);
	ck_assert_uint_eq(tl.ios[0], 4);
	vxt_timeline_free(&tl);
}
END_TEST

Suite *timeline_suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bins_match_brute_force);
	tcase_add_test(tc, chunk_spread_keeps_totals);
	tcase_add_test(tc, chunk_in_one_bin_whole);
	tcase_add_test(tc, heat_levels_and_quantile);
	tcase_add_test(tc, lba_rows);
	tcase_add_test(tc, bin_totals_match_brute_force);
	tcase_add_test(tc, lba_range_rows);
	tcase_add_test(tc, index_pending_until_decoded);
	suite_add_tcase(s, tc);
	return s;
}
