/* flight.h - the I/Os in flight of a stream of events, and when they leave
 *
 * The one table vxtop and /metrics keep: each start is remembered by
 * (object, op, sector) with its time until its completion or requeue, or a
 * lost event naming it, takes it out. Two rules take out the others:
 * - one older than VXT_FLIGHT_AGE_NS (the block layer's default request
 *   timeout: by then the kernel completed or failed it, so its completion
 *   was not seen) ages out;
 * - one from before a lost event naming no I/O (a full ring), still there
 *   VXT_LOST_GRACE_NS after it (vxt_lost_mark_due(), event.h), is taken
 *   for one whose completion was lost.
 * vxt_flight_sweep() applies both at a time the caller chooses (the end of
 * an interval, a publication). An I/O taken out so is remembered (until
 * VXT_FLIGHT_AGE_NS after its start): a lost event naming it that comes
 * after ends nothing (VXT_FLIGHT_GONE), rather than the next start of the
 * same object, op and sector, whose own completion would then pair with
 * nothing; so does a completion whose latency says it is that I/O's (its
 * completion came after all, later than the rule allowed for).
 */
#ifndef VXTRACE_FLIGHT_H
#define VXTRACE_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

#define VXT_FLIGHT_AGE_NS (30 * 1000000000ull)

/* vxt_flight_feed()'s: a lost event named an I/O a rule took out already,
 * or a completion is that I/O's (its latency says it started then). */
#define VXT_FLIGHT_GONE 2

struct vxt_flight;

/* @return an empty table, or NULL (out of memory). Caller frees with
 * vxt_flight_free(); NULL is fine there. */
struct vxt_flight *vxt_flight_new(void);
void vxt_flight_free(struct vxt_flight *f);

/*
 * Follow @ev: a start is remembered (past VXT_IOPAIR_MAX entries it is not,
 * rather than the table starting afresh); a completion or requeue forgets
 * its start, a lost event naming an I/O that one (or, when a rule took that
 * I/O out already, nothing); a lost event naming none moves the mark.
 * @return 1 when @ev ended (or, a start, began) an I/O in flight,
 * VXT_FLIGHT_GONE when it named or completed one taken out already, 0 when
 * it did not (a completion whose start was never seen or already left; a
 * start not remembered; any other event), or -ENOMEM.
 */
int vxt_flight_feed(struct vxt_flight *f, const struct vxt_event *ev);

/* The issue time before which the lost-event rule takes I/Os out at
 * @now_ns (0: none due). */
uint64_t vxt_flight_lost_before(const struct vxt_flight *f, uint64_t now_ns);

/* Why an I/O left in a sweep. */
enum vxt_flight_why { VXT_FLIGHT_AGED, VXT_FLIGHT_LOST, VXT_FLIGHT_DROPPED };

/* A sweep's judge and report: @return true to keep the I/O of @object and
 * @op started at @time_ns. @why says which rule would take it out (when
 * @keep_default is false) or VXT_FLIGHT_DROPPED when no rule does. */
typedef bool (*vxt_flight_keep_fn)(void *arg, uint32_t object, uint8_t op, uint64_t time_ns,
				   bool keep_default, enum vxt_flight_why why);

/* Apply both rules at @now_ns (the events' clock) with @age_ns as the age
 * bound (VXT_FLIGHT_AGE_NS): each I/O is passed to @keep, which may keep
 * or drop it whatever the rules say. @return the number taken out. */
uint32_t vxt_flight_sweep(struct vxt_flight *f, uint64_t now_ns, uint64_t age_ns,
			  vxt_flight_keep_fn keep, void *arg);

/* Take out the oldest I/O of @object (any op). @return true if there was one. */
bool vxt_flight_drop_oldest(struct vxt_flight *f, uint32_t object);

/* @return the I/Os in flight. */
uint32_t vxt_flight_count(const struct vxt_flight *f);

#endif
