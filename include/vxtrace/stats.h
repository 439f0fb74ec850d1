/* stats.h - counting I/O: per-object and total statistics, latency histograms
 *
 * The analysis every report and live view shares: feed events, read totals,
 * rates and latency quantiles. No allocation per event.
 */
#ifndef VXTRACE_STATS_H
#define VXTRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* Log-linear latency histogram: 4 sub-buckets per power of two (~19% worst
 * case relative error on a quantile), from 1 ns to 2^63 ns. */
#define VXT_HIST_SUB 4
#define VXT_HIST_BUCKETS (64 * VXT_HIST_SUB)

struct vxt_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t max;
	uint64_t b[VXT_HIST_BUCKETS];
};

void vxt_hist_add(struct vxt_hist *h, uint64_t v);
/* Add @n samples in the log2 bucket @log2b (as in struct vxt_objagg). */
void vxt_hist_add_log2(struct vxt_hist *h, unsigned log2b, uint64_t n);
void vxt_hist_merge(struct vxt_hist *dst, const struct vxt_hist *src);
/* @return the @q quantile (0..1): the upper bound of the bucket that holds
 * the smallest sample with at least q of the samples at or below it, capped
 * at the maximum, so never below the true quantile and at most one bucket
 * (under 25%) above it; 0 for an empty histogram. Can't fail. */
uint64_t vxt_hist_quantile(const struct vxt_hist *h, double q);
/* Bucket index of @v, and the lower bound of bucket @i. */
unsigned vxt_hist_bucket(uint64_t v);
uint64_t vxt_hist_bucket_low(unsigned i);

struct vxt_objstats {
	uint64_t ios[VXT_OP_COUNT];	/* completed I/Os by op */
	uint64_t starts;		/* start events */
	uint64_t requeues;
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t bytes_other;
	uint64_t errors;
	int64_t in_flight;		/* starts - completions - lost_ios (never < 0
					 * shown) */
	uint64_t lost_ios;		/* issues closed by a lost event naming them */
	uint64_t busy_ns;		/* time with at least one I/O in flight */
	uint64_t busy_since;		/* internal */
	uint64_t first_ns, last_ns;
	struct vxt_hist lat;		/* done latencies */
};

struct vxt_stats {
	uint64_t events;
	uint64_t by_phase[VXT_PH_COUNT];
	uint64_t lost;			/* sum of lost counts */
	uint64_t first_ns, last_ns;
	size_t nobj;
	struct vxt_objstats *obj;	/* indexed by object id, grows as needed */
};

void vxt_stats_init(struct vxt_stats *st);
void vxt_stats_free(struct vxt_stats *st);
void vxt_stats_reset(struct vxt_stats *st);	/* keeps the allocation */
/* @return 0 or -ENOMEM (a new object id could not be stored). */
int vxt_stats_add(struct vxt_stats *st, const struct vxt_event *ev);
/* vxt_stats_add() of @n events in a row. @return 0 or -ENOMEM. */
int vxt_stats_add_many(struct vxt_stats *st, const struct vxt_event *ev, size_t n);
/* Sum every object's stats into @total (busy_ns is then the sum of each
 * object's busy time, in_flight the I/Os in flight anywhere). Events are
 * accounted once, to their object; totals are made when asked for. */
void vxt_stats_total(const struct vxt_stats *st, struct vxt_objstats *total);
/* Completed I/Os of every op. */
uint64_t vxt_objstats_ios(const struct vxt_objstats *o);
/* @return the stats of object @id, or NULL when never seen. */
const struct vxt_objstats *vxt_stats_object(const struct vxt_stats *st, uint32_t id);

#endif
