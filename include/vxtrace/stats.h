/* stats.h - counting I/O: per-object and total statistics
 *
 * The analysis every report and live view shares: feed events, read totals,
 * rates and latency quantiles (struct vxt_latdist, latdist.h).
 */
#ifndef VXTRACE_STATS_H
#define VXTRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "latdist.h"

struct vxt_flight;

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
	uint64_t lost_ios;		/* issues closed by loss: by a lost event
					 * naming them, or left without their
					 * completion by one naming none (below) */
	uint64_t pre_gap;		/* internal: in flight at the first lost
					 * event naming none, not in the table */
	uint64_t busy_ns;		/* time with at least one I/O in flight */
	uint64_t bridged_ns;		/* idle gaps of at most VXT_STATS_GAP_NS between */
	uint64_t busy_since, busy_end;	/* internal */
	uint64_t first_ns, last_ns;
	struct vxt_latdist lat;		/* done latencies */
};

struct vxt_stats {
	uint64_t events;
	uint64_t by_phase[VXT_PH_COUNT];
	uint64_t lost;			/* sum of lost counts */
	uint64_t first_ns, last_ns;
	size_t nobj;
	struct vxt_objstats *obj;	/* indexed by object id, grows as needed */
	/* After a lost event naming no I/O (a gap), the issues in flight are
	 * kept in vxtop's table (flight.h, stats_flight.c) and leave by its
	 * rules: one from before the newest gap still without its completion
	 * VXT_LOST_GRACE_NS after it, closed by loss; one older than
	 * VXT_FLIGHT_AGE_NS, dropped. */
	struct vxt_flight *flight;
	uint64_t lost_mark, lost_due;	/* the newest gap, its closing time; 0: none due */
	uint64_t age_next;		/* the next look for the age bound */
};

void vxt_stats_init(struct vxt_stats *st);
void vxt_stats_free(struct vxt_stats *st);
void vxt_stats_reset(struct vxt_stats *st);	/* keeps the allocation */
/* @return 0 or -ENOMEM (a new object id could not be stored). */
int vxt_stats_add(struct vxt_stats *st, const struct vxt_event *ev);
/* Keep the issues in flight by key from now on (a stream known to hold
 * lost events: their gaps then close exactly the issues they left without
 * a completion; else the table begins at the first gap, and completions
 * whose issue was lost may stand for those in flight before it).
 * @return 0 or -ENOMEM. */
int vxt_stats_keep_flight(struct vxt_stats *st);
/* The stream ended: the issues from before its last gap still in flight
 * can no longer complete and are closed by loss, at its last event. Can't
 * fail; more events may follow (a file that grows). */
void vxt_stats_finish(struct vxt_stats *st);
/* The events' clock reached @now_ns with no event since the last one (a
 * live reader at rest): apply what an event at @now_ns would meet first,
 * the lost rule once due (the issues it closes are closed at its due time,
 * as in a file) and the age bound. Can't fail. */
void vxt_stats_tick(struct vxt_stats *st, uint64_t now_ns);
/* vxt_stats_add() of @n events in a row. @return 0 or -ENOMEM. */
int vxt_stats_add_many(struct vxt_stats *st, const struct vxt_event *ev, size_t n);
/* Sum every object's stats into @total (busy_ns is then the sum of each
 * object's busy time, in_flight the I/Os in flight anywhere). Events are
 * accounted once, to their object; totals are made when asked for. The
 * caller frees @total with vxt_objstats_free(). */
void vxt_stats_total(const struct vxt_stats *st, struct vxt_objstats *total);
void vxt_objstats_free(struct vxt_objstats *o);
/* An object is active while it has I/O in flight and across an idle gap of
 * at most this between two such times; a longer gap (the workload paused,
 * or a capture that kept nothing then) is not active time. */
#define VXT_STATS_GAP_NS ((uint64_t)100000000)

/* The time @o was active (busy_ns + bridged_ns), what its rates are over
 * (formats/reports.md); without a start seen, its first to last event. */
uint64_t vxt_objstats_active_ns(const struct vxt_objstats *o);
/* Completed I/Os of every op. */
uint64_t vxt_objstats_ios(const struct vxt_objstats *o);
/* @return the stats of object @id, or NULL when never seen. */
const struct vxt_objstats *vxt_stats_object(const struct vxt_stats *st, uint32_t id);

#endif
