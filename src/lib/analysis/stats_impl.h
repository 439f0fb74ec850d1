/* stats_impl.h - stats.c's issues in flight after a gap (internal)
 *
 * stats_flight.c keeps them by key once a lost event naming no I/O was
 * seen (struct vxt_stats' flight), so the issues such a loss left without
 * their completion leave the flight. Before the first gap, the counts of
 * stats.c suffice and cost nothing more.
 */
#ifndef VXT_STATS_IMPL_H
#define VXT_STATS_IMPL_H

#include <stdbool.h>

#include "vxtrace/stats.h"

/* A lost event naming no I/O at @ev: the newest mark; the table begins
 * (the issues in flight then are each object's pre_gap). @return 0 or
 * -ENOMEM. */
int vxt_stats_flight_gap(struct vxt_stats *st, const struct vxt_event *ev);
/* A start (remembered), a completion or a lost event naming its I/O of @o
 * (forgotten) while the table is kept. @return for a completion (or a lost
 * event naming it), whether its issue was in flight; for a start, whether
 * it was remembered (a full table: it is counted in flight all the same). */
bool vxt_stats_flight_track(struct vxt_stats *st, struct vxt_objstats *o,
			    const struct vxt_event *ev);
/* Close by loss, at @t, the issues from before st->lost_mark still in
 * flight (the lost rule is due at @t), and drop those past the age bound. */
void vxt_stats_flight_close(struct vxt_stats *st, uint64_t t);
/* Drop the issues past the age bound at @now; the next look a second on. */
void vxt_stats_flight_age(struct vxt_stats *st, uint64_t now);
/* The stream ended: close by loss the issues from before the last gap, at
 * its last event (vxt_stats_finish()). */
void vxt_stats_flight_end(struct vxt_stats *st);
void vxt_stats_flight_free(struct vxt_stats *st);

#endif
