/* timeline.h - binning a time window of a trace: events, errors, lost, cells
 *
 * A timeline cuts the window [t0, t1) into nbins equal bins and counts, per
 * bin, events, errors and lost events, and per (row, bin) cell the completed
 * I/Os, bytes, errors and a log2 latency histogram; per bin also the
 * completed I/Os, bytes and latency histogram of every object (what an
 * over-time chart of IOPS, MB/s or percentiles reads). Rows are objects
 * (chosen by the caller, e.g. the busiest first) or, for one object, LBA
 * buckets (of the whole object or of a sector range).
 *
 * Two ways in: vxt_timeline_add() for decoded events (exact), and
 * vxt_timeline_add_chunk() for a chunk's index entry (no decompression; exact
 * counts when the chunk lies inside one bin, else spread over the bins it
 * overlaps in proportion to time; latencies only as the index's log2
 * buckets). A browser can draw the index estimate at once and refine it by
 * decoding only the chunks for which vxt_timeline_chunk_exact() is false.
 *
 * Latency quantiles come from the one distribution (latdist.h) of the
 * decoded completions of a bin or cell; the log2 histograms beside them are
 * what charts of the histogram draw, and what an index estimate has.
 *
 *   struct vxt_timeline tl;
 *   if (vxt_timeline_init(&tl, t0, t1, 120, rows, nrows) < 0)
 *           return -ENOMEM;
 *   vxt_timeline_add(&tl, ev);           // for each event
 *   ... tl.errors[b], tl.cells[row * tl.nbins + b].ios ...
 *   vxt_timeline_free(&tl);
 */
#ifndef VXTRACE_TIMELINE_H
#define VXTRACE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "latdist.h"
#include "vxt.h"

struct vxt_tl_cell {
	uint32_t ios;			/* completed I/Os (done events) */
	uint32_t errors;		/* done events with an error */
	uint64_t bytes;			/* bytes of completed I/Os */
	uint32_t lat[VXT_LAT_BUCKETS];	/* log2 histogram of done latencies */
	struct vxt_latdist dist;	/* decoded done latencies: the quantiles */
	uint32_t undecoded;		/* of ios, counted from the index only */
};

enum vxt_tl_rows {
	VXT_TL_ROWS_OBJECT = 0,		/* a row per chosen object */
	VXT_TL_ROWS_LBA = 1,		/* one object, a row per LBA bucket */
};

struct vxt_timeline {
	uint64_t t0, t1;		/* the window [t0, t1) */
	unsigned nbins;
	unsigned nrows;
	enum vxt_tl_rows mode;
	uint32_t *row_obj;		/* OBJECT: object id of each row */
	int32_t *obj_row;		/* OBJECT: row of object id, -1 = none */
	uint32_t nobj_map;
	uint32_t lba_object;		/* LBA: the object */
	uint64_t lba_sectors;		/* LBA: sectors covered by the rows */
	uint64_t *events;		/* per bin: events */
	uint64_t *errors;		/* per bin: done events with an error */
	uint64_t *lost;			/* per bin: sum of lost counts */
	uint64_t *ios;			/* per bin: completed I/Os of every object */
	uint64_t *bytes;		/* per bin: their bytes */
	uint32_t *lat;			/* nbins * VXT_LAT_BUCKETS: their log2 latency histograms */
	struct vxt_latdist *dist;	/* per bin: their decoded latencies (the quantiles) */
	uint64_t *undecoded;		/* per bin: of ios, those counted from the index
					 * only, their latencies not decoded */
	struct vxt_tl_cell *cells;	/* nrows * nbins, row-major */
	uint64_t lba_first;		/* LBA: first sector of the rows */
	bool lba_clip;			/* LBA: I/O outside the rows has no row (else the last) */
	uint64_t lba_outside;		/* LBA: completed I/Os of the object outside the rows */
	uint64_t lba_lo, lba_hi;	/* LBA: sectors the object's decoded events touched,
					 * [lo, hi); hi == 0: none */
};

/* Set up an empty OBJECT timeline of @nbins bins over [t0, t1) (t1 > t0) with
 * a row per object in @objs (copied). @return 0 or -ENOMEM / -EINVAL. */
int vxt_timeline_init(struct vxt_timeline *tl, uint64_t t0, uint64_t t1, unsigned nbins,
		      const uint32_t *objs, unsigned nrows);
/* Set up an LBA timeline: events of @object only fill cells, in @nrows
 * buckets over sectors [0, @sectors). Bin totals still count every event. */
int vxt_timeline_init_lba(struct vxt_timeline *tl, uint64_t t0, uint64_t t1, unsigned nbins,
			  uint32_t object, uint64_t sectors, unsigned nrows);
/* The same over sectors [@first, @first + @sectors) only: the object's I/O
 * outside has no row and is counted in lba_outside (decoded events only). */
int vxt_timeline_init_lba_range(struct vxt_timeline *tl, uint64_t t0, uint64_t t1,
				unsigned nbins, uint32_t object, uint64_t first, uint64_t sectors,
				unsigned nrows);
/* Free the arrays; a zeroed or freed timeline is fine. */
void vxt_timeline_free(struct vxt_timeline *tl);
/* Zero every count, keep the window and rows. */
void vxt_timeline_clear(struct vxt_timeline *tl);

/* @return the bin holding @t, or -1 outside the window. */
int vxt_timeline_bin(const struct vxt_timeline *tl, uint64_t t);
/* @return the first ns of bin @b (b == nbins gives t1). */
uint64_t vxt_timeline_bin_start(const struct vxt_timeline *tl, unsigned b);
/* @return the row of @ev, or -1 when it has none. */
int vxt_timeline_row(const struct vxt_timeline *tl, const struct vxt_event *ev);

/* Count one decoded event. Can't fail. */
void vxt_timeline_add(struct vxt_timeline *tl, const struct vxt_event *ev);
/* Count a chunk from its index entry, spread over the bins it overlaps. */
void vxt_timeline_add_chunk(struct vxt_timeline *tl, const struct vxt_chunk_info *ci);
/* True when the index entry of @ci gives exact figures (it lies outside the
 * window, or inside one bin without completions, and, for LBA rows, holds
 * nothing of the object): the index keeps latencies to a power of two only. */
bool vxt_timeline_chunk_exact(const struct vxt_timeline *tl, const struct vxt_chunk_info *ci);
/* True when @ci overlaps the window. */
bool vxt_timeline_chunk_overlaps(const struct vxt_timeline *tl, const struct vxt_chunk_info *ci);

/* The value of a bin-total metric of bin @b: completed I/Os per second,
 * bytes per second, or a latency quantile @q (ns) of the bin's latencies
 * (vxt_latdist_quantile(), formats/reports.md), 0 when it has none or while
 * some are not decoded (vxt_timeline_lat_pending()). */
double vxt_timeline_iops(const struct vxt_timeline *tl, unsigned b);
double vxt_timeline_bps(const struct vxt_timeline *tl, unsigned b);
uint64_t vxt_timeline_lat_quantile(const struct vxt_timeline *tl, unsigned b, double q);
/* The same quantile of cell @c. */
uint64_t vxt_timeline_cell_quantile(const struct vxt_tl_cell *c, double q);
/* Does bin @b (cell @c) hold completions counted from the index only, whose
 * latencies are not decoded yet? Its quantiles are then not known (the
 * index keeps latencies to a power of two, not the one distribution of
 * formats/reports.md): the views print no value for them. */
bool vxt_timeline_lat_pending(const struct vxt_timeline *tl, unsigned b);
bool vxt_timeline_cell_pending(const struct vxt_tl_cell *c);
/* The histogram of every bin of @tl added into @out (VXT_LAT_BUCKETS). */
void vxt_timeline_lat_total(const struct vxt_timeline *tl, uint64_t *out);

/* Latency quantile @q (0..1) of a log2 histogram: the middle of the bucket
 * holding it, in ns; 0 when empty. */
uint64_t vxt_log2hist_quantile(const uint32_t *lat, unsigned nbuckets, double q);
/* The log2 bucket of @ns as in struct vxt_objagg. */
unsigned vxt_log2hist_bucket(uint64_t ns);

#endif
