/* stats_flight.c - issues in flight after a gap, closed by loss (see stats_impl.h)
 *
 * A gap (a lost event naming no I/O: N events the source dropped) may have
 * taken completions; their issues would stay in flight for ever, and busy
 * time with them. From the first gap on (or from the start, when asked),
 * the starts are kept in the table vxtop and /metrics keep (flight.h); a
 * completion takes its start out (or one of the object's pre_gap, those in
 * flight when the table began). Once VXT_LOST_GRACE_NS passed after the
 * newest gap, the issues from before it still in flight are closed by loss
 * (lost_ios) at that time; once a second of the events' clock, those older
 * than VXT_FLIGHT_AGE_NS leave the flight, not counted lost. A lost event
 * naming an I/O closed so already (the tracefs source names it when its
 * round finds it, which may be later) closes nothing more; a completion
 * whose latency says it is that I/O's takes it back out of lost_ios.
 */
#include <errno.h>

#include "analysis/stats_impl.h"
#include "vxtrace/flight.h"

#define AGE_LOOK_NS 1000000000ull	/* the age bound is looked at this often */

int vxt_stats_keep_flight(struct vxt_stats *st)
{
	if (!st->flight && st->events)
		return 0;	/* too late: the first gap begins it */
	if (!st->flight)
		st->flight = vxt_flight_new();
	return st->flight ? 0 : -ENOMEM;
}

int vxt_stats_flight_gap(struct vxt_stats *st, const struct vxt_event *ev)
{
	if (!st->flight) {
		st->flight = vxt_flight_new();
		if (!st->flight)
			return -ENOMEM;
		for (size_t i = 0; i < st->nobj; i++)
			st->obj[i].pre_gap = st->obj[i].in_flight > 0 ?
					     (uint64_t)st->obj[i].in_flight : 0;
	}
	vxt_flight_feed(st->flight, ev);	/* its mark; can't fail */
	vxt_lost_mark_note(&st->lost_mark, ev);
	st->lost_due = st->lost_mark + VXT_LOST_GRACE_NS;
	return 0;
}

bool vxt_stats_flight_track(struct vxt_stats *st, struct vxt_objstats *o,
			    const struct vxt_event *ev)
{
	int rc = vxt_flight_feed(st->flight, ev);

	if (rc == VXT_FLIGHT_GONE) {
		/* a lost event naming one closed by loss already; or that one's
		 * completion, which came after all: it was not lost */
		if (ev->phase == VXT_PH_DONE && o->lost_ios)
			o->lost_ios--;
		return false;
	}
	if (rc != 0 || ev->phase == VXT_PH_START)
		return rc > 0;
	if (o->pre_gap) {	/* one from before the table, it seems */
		o->pre_gap--;
		return true;
	}
	return false;		/* its start was lost, or closed by loss */
}

struct close_arg {
	struct vxt_stats *st;
	uint64_t t;
};

/* Close @n I/Os of @o at @t: out of flight, counted lost when @lost. */
static void close_ios(struct vxt_objstats *o, uint64_t n, uint64_t t, bool lost)
{
	if (lost)
		o->lost_ios += n;
	if (o->in_flight <= 0)
		return;
	if ((uint64_t)o->in_flight > n) {
		o->in_flight -= (int64_t)n;
		return;
	}
	o->in_flight = 0;
	if (t > o->busy_since) {
		o->busy_ns += t - o->busy_since;
		o->busy_end = t;
	}
}

/* vxt_flight_sweep()'s: an issue a rule takes out is closed (one the lost
 * rule takes counted in its object's pre_gap for now, to close them all at
 * once). */
static bool keep_issue(void *arg, uint32_t object, uint8_t op, uint64_t time_ns,
		       bool keep_default, enum vxt_flight_why why)
{
	struct close_arg *a = arg;

	(void)op, (void)time_ns;
	if (keep_default)
		return true;
	if (object < a->st->nobj) {
		if (why == VXT_FLIGHT_LOST)
			a->st->obj[object].pre_gap++;
		else
			close_ios(&a->st->obj[object], 1, a->t, false);
	}
	return false;
}

/* Apply the rules as of @now (the events' clock), closing at @t. */
static void sweep(struct vxt_stats *st, uint64_t now, uint64_t t, bool lost_due)
{
	struct close_arg a = { st, t };

	vxt_flight_sweep(st->flight, now, VXT_FLIGHT_AGE_NS, keep_issue, &a);
	if (!lost_due)
		return;
	for (size_t i = 0; i < st->nobj; i++) {
		struct vxt_objstats *o = &st->obj[i];

		if (o->pre_gap)
			close_ios(o, o->pre_gap, t, true);
		o->pre_gap = 0;
	}
}

void vxt_stats_flight_close(struct vxt_stats *st, uint64_t t)
{
	st->lost_due = 0;
	if (st->flight)
		sweep(st, t, t, true);
}

void vxt_stats_flight_age(struct vxt_stats *st, uint64_t now)
{
	st->age_next = now + AGE_LOOK_NS;
	if (st->flight && vxt_flight_count(st->flight))
		sweep(st, now, now, false);
}

void vxt_stats_flight_end(struct vxt_stats *st)
{
	uint64_t t = st->last_ns > st->lost_mark ? st->last_ns : st->lost_mark;

	st->lost_due = 0;
	if (st->flight && st->lost_mark)	/* the lost rule as if due, at the end */
		sweep(st, st->lost_mark + VXT_LOST_GRACE_NS, t, true);
}

void vxt_stats_flight_free(struct vxt_stats *st)
{
	vxt_flight_free(st->flight);
	st->flight = NULL;
	st->lost_mark = st->lost_due = st->age_next = 0;
}
