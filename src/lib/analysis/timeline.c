/* timeline.c - binning a time window of a trace
 *
 * Counts events into equal time bins and (row, bin) cells, from decoded
 * events or from chunk index entries. Invariant: every counter of a bin is
 * the sum over events whose time lies in that bin, except for chunk entries
 * spread over several bins, where integer counts are split in proportion to
 * overlap with cumulative rounding (so the totals are kept exactly).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/timeline.h"

static int alloc_bins(struct vxt_timeline *tl)
{
	tl->events = calloc(tl->nbins, sizeof(*tl->events));
	tl->errors = calloc(tl->nbins, sizeof(*tl->errors));
	tl->lost = calloc(tl->nbins, sizeof(*tl->lost));
	tl->ios = calloc(tl->nbins, sizeof(*tl->ios));
	tl->bytes = calloc(tl->nbins, sizeof(*tl->bytes));
	tl->lat = calloc((size_t)tl->nbins * VXT_LAT_BUCKETS, sizeof(*tl->lat));
	tl->dist = calloc(tl->nbins, sizeof(*tl->dist));
	tl->undecoded = calloc(tl->nbins, sizeof(*tl->undecoded));
	tl->cells = calloc((size_t)tl->nbins * (tl->nrows ? tl->nrows : 1), sizeof(*tl->cells));
	if (!tl->events || !tl->errors || !tl->lost || !tl->ios || !tl->bytes || !tl->lat ||
	    !tl->dist || !tl->undecoded || !tl->cells)
		return -ENOMEM;
	return 0;
}

int vxt_timeline_init(struct vxt_timeline *tl, uint64_t t0, uint64_t t1, unsigned nbins,
		      const uint32_t *objs, unsigned nrows)
{
	uint32_t maxid = 0;

	memset(tl, 0, sizeof(*tl));
	if (t1 <= t0 || nbins == 0)
		return -EINVAL;
	tl->t0 = t0;
	tl->t1 = t1;
	tl->nbins = nbins;
	tl->nrows = nrows;
	tl->mode = VXT_TL_ROWS_OBJECT;
	for (unsigned i = 0; i < nrows; i++)
		if (objs[i] + 1 > maxid)
			maxid = objs[i] + 1;
	tl->nobj_map = maxid;
	tl->row_obj = malloc((nrows ? nrows : 1) * sizeof(*tl->row_obj));
	tl->obj_row = malloc((maxid ? maxid : 1) * sizeof(*tl->obj_row));
	if (!tl->row_obj || !tl->obj_row || alloc_bins(tl) < 0) {
		vxt_timeline_free(tl);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < maxid; i++)
		tl->obj_row[i] = -1;
	for (unsigned i = 0; i < nrows; i++) {
		tl->row_obj[i] = objs[i];
		tl->obj_row[objs[i]] = (int32_t)i;
	}
	return 0;
}

int vxt_timeline_init_lba_range(struct vxt_timeline *tl, uint64_t t0, uint64_t t1,
				unsigned nbins, uint32_t object, uint64_t first, uint64_t sectors,
				unsigned nrows)
{
	int rc = vxt_timeline_init_lba(tl, t0, t1, nbins, object, sectors, nrows);

	if (!rc) {
		tl->lba_first = first;
		tl->lba_clip = true;
	}
	return rc;
}

int vxt_timeline_init_lba(struct vxt_timeline *tl, uint64_t t0, uint64_t t1, unsigned nbins,
			  uint32_t object, uint64_t sectors, unsigned nrows)
{
	memset(tl, 0, sizeof(*tl));
	if (t1 <= t0 || nbins == 0 || nrows == 0)
		return -EINVAL;
	tl->t0 = t0;
	tl->t1 = t1;
	tl->nbins = nbins;
	tl->nrows = nrows;
	tl->mode = VXT_TL_ROWS_LBA;
	tl->lba_object = object;
	tl->lba_sectors = sectors ? sectors : 1;
	if (alloc_bins(tl) < 0) {
		vxt_timeline_free(tl);
		return -ENOMEM;
	}
	return 0;
}

static size_t ncells(const struct vxt_timeline *tl)
{
	return (size_t)tl->nbins * (tl->nrows ? tl->nrows : 1);
}

/* Free (or, with @keep, empty) every latency distribution. */
static void dists_drop(struct vxt_timeline *tl, bool keep)
{
	for (unsigned b = 0; tl->dist && b < tl->nbins; b++)
		keep ? vxt_latdist_clear(&tl->dist[b]) : vxt_latdist_free(&tl->dist[b]);
	for (size_t c = 0; tl->cells && c < ncells(tl); c++)
		keep ? vxt_latdist_clear(&tl->cells[c].dist) : vxt_latdist_free(&tl->cells[c].dist);
}

void vxt_timeline_free(struct vxt_timeline *tl)
{
	dists_drop(tl, false);
	free(tl->row_obj);
	free(tl->obj_row);
	free(tl->events);
	free(tl->errors);
	free(tl->lost);
	free(tl->ios);
	free(tl->bytes);
	free(tl->lat);
	free(tl->dist);
	free(tl->undecoded);
	free(tl->cells);
	memset(tl, 0, sizeof(*tl));
}

void vxt_timeline_clear(struct vxt_timeline *tl)
{
	if (!tl->nbins)
		return;
	memset(tl->events, 0, tl->nbins * sizeof(*tl->events));
	memset(tl->errors, 0, tl->nbins * sizeof(*tl->errors));
	memset(tl->lost, 0, tl->nbins * sizeof(*tl->lost));
	memset(tl->ios, 0, tl->nbins * sizeof(*tl->ios));
	memset(tl->bytes, 0, tl->nbins * sizeof(*tl->bytes));
	memset(tl->lat, 0, (size_t)tl->nbins * VXT_LAT_BUCKETS * sizeof(*tl->lat));
	memset(tl->undecoded, 0, tl->nbins * sizeof(*tl->undecoded));
	tl->lba_outside = 0;
	tl->lba_lo = tl->lba_hi = 0;
	dists_drop(tl, true);
	for (size_t c = 0; c < ncells(tl); c++) {
		struct vxt_latdist d = tl->cells[c].dist;

		memset(&tl->cells[c], 0, sizeof(tl->cells[c]));
		tl->cells[c].dist = d;
	}
}

int vxt_timeline_bin(const struct vxt_timeline *tl, uint64_t t)
{
	if (t < tl->t0 || t >= tl->t1)
		return -1;
	return (int)((unsigned __int128)(t - tl->t0) * tl->nbins / (tl->t1 - tl->t0));
}

uint64_t vxt_timeline_bin_start(const struct vxt_timeline *tl, unsigned b)
{
	unsigned __int128 span = tl->t1 - tl->t0;

	/* the smallest t with bin(t) >= b: ceil(b * span / nbins) */
	return tl->t0 + (uint64_t)((span * b + tl->nbins - 1) / tl->nbins);
}

int vxt_timeline_row(const struct vxt_timeline *tl, const struct vxt_event *ev)
{
	if (tl->mode == VXT_TL_ROWS_LBA) {
		uint64_t r;

		if (ev->object != tl->lba_object)
			return -1;
		if (tl->lba_clip && (ev->sector < tl->lba_first ||
				     ev->sector - tl->lba_first >= tl->lba_sectors))
			return -1;
		r = (unsigned __int128)(ev->sector - tl->lba_first) * tl->nrows / tl->lba_sectors;
		return (int)(r >= tl->nrows ? tl->nrows - 1 : r);
	}
	if (ev->object >= tl->nobj_map)
		return -1;
	return tl->obj_row[ev->object];
}

unsigned vxt_log2hist_bucket(uint64_t ns)
{
	unsigned b = ns ? 63 - (unsigned)__builtin_clzll(ns) : 0;

	return b >= VXT_LAT_BUCKETS ? VXT_LAT_BUCKETS - 1 : b;
}

uint64_t vxt_log2hist_quantile(const uint32_t *lat, unsigned nbuckets, double q)
{
	uint64_t total = 0, want, cum = 0;

	for (unsigned b = 0; b < nbuckets; b++)
		total += lat[b];
	if (!total)
		return 0;
	want = (uint64_t)(q * (double)total + 0.5);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < nbuckets; b++) {
		cum += lat[b];
		if (cum >= want)
			return (UINT64_C(1) << b) + (UINT64_C(1) << b) / 2;
	}
	return UINT64_C(1) << (nbuckets - 1);
}

void vxt_timeline_add(struct vxt_timeline *tl, const struct vxt_event *ev)
{
	int b = vxt_timeline_bin(tl, ev->time_ns), row;
	struct vxt_tl_cell *c;
	bool lat;

	if (b < 0)
		return;
	tl->events[b]++;
	if (tl->mode == VXT_TL_ROWS_LBA && ev->object == tl->lba_object &&
	    (ev->phase == VXT_PH_START || ev->phase == VXT_PH_DONE)) {
		uint64_t end = ev->sector + (ev->bytes + 511) / 512;

		if (!tl->lba_hi || ev->sector < tl->lba_lo)
			tl->lba_lo = ev->sector;
		if (end <= ev->sector)
			end = ev->sector + 1;
		if (end > tl->lba_hi)
			tl->lba_hi = end;
	}
	if (ev->phase == VXT_PH_LOST) {
		tl->lost[b] += ev->sector;
		return;
	}
	if (ev->phase != VXT_PH_DONE)
		return;
	if (ev->error)
		tl->errors[b]++;
	tl->ios[b]++;
	tl->bytes[b] += ev->bytes;
	tl->lat[(size_t)b * VXT_LAT_BUCKETS + vxt_log2hist_bucket(ev->latency_ns)]++;
	/* the stats' rule: a failure of unknown latency is no sample */
	lat = ev->latency_ns || !ev->error;
	if (lat)
		vxt_latdist_add(&tl->dist[b], ev->latency_ns);	/* out of memory: unplaced */
	row = vxt_timeline_row(tl, ev);
	if (row < 0) {
		if (tl->mode == VXT_TL_ROWS_LBA && ev->object == tl->lba_object)
			tl->lba_outside++;
		return;
	}
	c = &tl->cells[(size_t)row * tl->nbins + (unsigned)b];
	c->ios++;
	c->bytes += ev->bytes;
	if (ev->error)
		c->errors++;
	c->lat[vxt_log2hist_bucket(ev->latency_ns)]++;
	if (lat)
		vxt_latdist_add(&c->dist, ev->latency_ns);
}

bool vxt_timeline_chunk_overlaps(const struct vxt_timeline *tl, const struct vxt_chunk_info *ci)
{
	return ci->nevents && ci->last_ns >= tl->t0 && ci->first_ns < tl->t1;
}

static bool lba_touches(const struct vxt_timeline *tl, const struct vxt_chunk_info *ci)
{
	for (uint32_t i = 0; i < ci->nobjagg; i++)
		if (ci->objagg[i].object == tl->lba_object)
			return true;
	return false;
}

bool vxt_timeline_chunk_exact(const struct vxt_timeline *tl, const struct vxt_chunk_info *ci)
{
	if (!vxt_timeline_chunk_overlaps(tl, ci))
		return true;
	if (tl->mode == VXT_TL_ROWS_LBA && lba_touches(tl, ci))
		return false;
	for (uint32_t i = 0; i < ci->nobjagg; i++)
		for (int op = 0; op < VXT_OP_COUNT; op++)
			if (ci->objagg[i].ios[op])
				return false;	/* latencies: the events' */
	return ci->first_ns >= tl->t0 && ci->last_ns < tl->t1 &&
	       vxt_timeline_bin(tl, ci->first_ns) == vxt_timeline_bin(tl, ci->last_ns);
}

/* Share of @total that falls before fraction @f (cumulative rounding). */
static uint64_t share(uint64_t total, double f)
{
	return (uint64_t)((double)total * f + 0.5);
}

struct spread {
	double f0, f1;		/* fraction of the chunk before and after this bin */
};

static uint64_t part(uint64_t total, const struct spread *s)
{
	return total ? share(total, s->f1) - share(total, s->f0) : 0;
}

static void add_chunk_bin(struct vxt_timeline *tl, const struct vxt_chunk_info *ci,
			  unsigned b, const struct spread *s)
{
	tl->events[b] += part(ci->nevents, s);
	tl->errors[b] += part(ci->nerrors, s);
	tl->lost[b] += part(ci->nlost, s);
	for (uint32_t i = 0; i < ci->nobjagg; i++) {
		const struct vxt_objagg *a = &ci->objagg[i];
		int row = a->object < tl->nobj_map ? tl->obj_row[a->object] : -1;
		uint32_t ios = 0, *lat = &tl->lat[(size_t)b * VXT_LAT_BUCKETS];
		uint32_t pl[VXT_LAT_BUCKETS];
		uint64_t pios, pbytes;

		for (int op = 0; op < VXT_OP_COUNT; op++)
			ios += a->ios[op];
		pios = part(ios, s);
		pbytes = part(a->bytes_read + a->bytes_written, s);
		tl->ios[b] += pios;
		tl->undecoded[b] += pios;
		tl->bytes[b] += pbytes;
		for (int k = 0; k < VXT_LAT_BUCKETS; k++) {
			pl[k] = (uint32_t)part(a->lat_hist[k], s);
			lat[k] += pl[k];
		}
		if (tl->mode == VXT_TL_ROWS_OBJECT && row >= 0) {
			/* the object's row gets the same parts */
			struct vxt_tl_cell *c = &tl->cells[(size_t)row * tl->nbins + b];

			c->ios += (uint32_t)pios;
			c->undecoded += (uint32_t)pios;
			c->errors += (uint32_t)part(a->errors, s);
			c->bytes += pbytes;
			for (int k = 0; k < VXT_LAT_BUCKETS; k++)
				c->lat[k] += pl[k];
		}
	}
}

/* Histogram @from added to @to (apart: the compiler adds them a vector at a time). */
static void add_hist(uint32_t *restrict to, const uint32_t *restrict from)
{
	for (int k = 0; k < VXT_LAT_BUCKETS; k++)
		to[k] += from[k];
}

/* Chunk @ci lies whole in bin @b: its figures as they are (what
 * add_chunk_bin() gives for a spread of 0..1, without the arithmetic). */
static void add_chunk_whole(struct vxt_timeline *tl, const struct vxt_chunk_info *ci, unsigned b)
{
	uint32_t *lat = &tl->lat[(size_t)b * VXT_LAT_BUCKETS];

	tl->events[b] += ci->nevents;
	tl->errors[b] += ci->nerrors;
	tl->lost[b] += ci->nlost;
	for (uint32_t i = 0; i < ci->nobjagg; i++) {
		const struct vxt_objagg *a = &ci->objagg[i];
		int row = a->object < tl->nobj_map ? tl->obj_row[a->object] : -1;
		uint32_t ios = 0;

		for (int op = 0; op < VXT_OP_COUNT; op++)
			ios += a->ios[op];
		tl->ios[b] += ios;
		tl->undecoded[b] += ios;
		tl->bytes[b] += a->bytes_read + a->bytes_written;
		add_hist(lat, a->lat_hist);
		if (tl->mode == VXT_TL_ROWS_OBJECT && row >= 0) {
			struct vxt_tl_cell *c = &tl->cells[(size_t)row * tl->nbins + b];

			c->ios += ios;
			c->undecoded += ios;
			c->errors += a->errors;
			c->bytes += a->bytes_read + a->bytes_written;
			add_hist(c->lat, a->lat_hist);
		}
	}
}

void vxt_timeline_add_chunk(struct vxt_timeline *tl, const struct vxt_chunk_info *ci)
{
	double span = (double)(ci->last_ns - ci->first_ns) + 1;
	uint64_t lo, hi;
	int b0, b1;

	if (!vxt_timeline_chunk_overlaps(tl, ci))
		return;
	lo = ci->first_ns < tl->t0 ? tl->t0 : ci->first_ns;
	hi = ci->last_ns >= tl->t1 ? tl->t1 - 1 : ci->last_ns;
	b0 = vxt_timeline_bin(tl, lo);
	b1 = vxt_timeline_bin(tl, hi);
	if (b0 == b1 && lo == ci->first_ns && hi == ci->last_ns) {
		add_chunk_whole(tl, ci, (unsigned)b0);
		return;
	}
	for (int b = b0; b <= b1; b++) {
		uint64_t s0 = vxt_timeline_bin_start(tl, (unsigned)b);
		uint64_t s1 = vxt_timeline_bin_start(tl, (unsigned)b + 1);
		struct spread s;

		if (s0 < ci->first_ns)
			s0 = ci->first_ns;
		if (s1 > ci->last_ns + 1)
			s1 = ci->last_ns + 1;
		s.f0 = (double)(s0 - ci->first_ns) / span;
		s.f1 = (double)(s1 - ci->first_ns) / span;
		add_chunk_bin(tl, ci, (unsigned)b, &s);
	}
}

static double bin_seconds(const struct vxt_timeline *tl, unsigned b)
{
	uint64_t w = vxt_timeline_bin_start(tl, b + 1) - vxt_timeline_bin_start(tl, b);

	return (double)(w ? w : 1) / 1e9;
}

double vxt_timeline_iops(const struct vxt_timeline *tl, unsigned b)
{
	return b < tl->nbins ? (double)tl->ios[b] / bin_seconds(tl, b) : 0;
}

double vxt_timeline_bps(const struct vxt_timeline *tl, unsigned b)
{
	return b < tl->nbins ? (double)tl->bytes[b] / bin_seconds(tl, b) : 0;
}

uint64_t vxt_timeline_lat_quantile(const struct vxt_timeline *tl, unsigned b, double q)
{
	if (b >= tl->nbins || tl->undecoded[b] || !tl->dist[b].count)
		return 0;
	return vxt_latdist_quantile(&tl->dist[b], q);
}

bool vxt_timeline_lat_pending(const struct vxt_timeline *tl, unsigned b)
{
	return b < tl->nbins && tl->undecoded[b];
}

bool vxt_timeline_cell_pending(const struct vxt_tl_cell *c)
{
	return c->undecoded;
}

uint64_t vxt_timeline_cell_quantile(const struct vxt_tl_cell *c, double q)
{
	if (c->undecoded || !c->dist.count)
		return 0;
	return vxt_latdist_quantile(&c->dist, q);
}

void vxt_timeline_lat_total(const struct vxt_timeline *tl, uint64_t *out)
{
	for (unsigned b = 0; b < tl->nbins; b++)
		for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
			out[k] += tl->lat[(size_t)b * VXT_LAT_BUCKETS + k];
}
