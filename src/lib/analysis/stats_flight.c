/* stats_flight.c - issues in flight after a gap, closed by loss (see stats_impl.h)
 *
 * A gap (a lost event naming no I/O: N events the source dropped) may have
 * taken completions; their issues would stay in flight for ever, and busy
 * time with them. From the first gap on, each start is remembered by
 * (object * 8 + op, sector) and each completion forgets its start (or one
 * of the object's pre_gap, those in flight at the first gap); once
 * VXT_LOST_GRACE_NS passed after the newest gap, the issues from before it
 * still in flight are closed by loss (lost_ios), at that time.
 */
#include <errno.h>

#include "analysis/stats_impl.h"
#include "vxtrace/iopair.h"

static uint32_t flight_key(const struct vxt_event *ev)
{
	return ev->object * 8u + (ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER);
}

int vxt_stats_keep_flight(struct vxt_stats *st)
{
	if (!st->flight && st->events)
		return 0;	/* too late: the first gap begins it */
	if (!st->flight)
		st->flight = vxt_iopair_new();
	return st->flight ? 0 : -ENOMEM;
}

int vxt_stats_flight_gap(struct vxt_stats *st, const struct vxt_event *ev)
{
	if (!st->flight) {
		st->flight = vxt_iopair_new();
		if (!st->flight)
			return -ENOMEM;
		for (size_t i = 0; i < st->nobj; i++)
			st->obj[i].pre_gap = st->obj[i].in_flight > 0 ?
					     (uint64_t)st->obj[i].in_flight : 0;
	}
	vxt_lost_mark_note(&st->lost_mark, ev);
	st->lost_due = st->lost_mark + VXT_LOST_GRACE_NS;
	return 0;
}

bool vxt_stats_flight_track(struct vxt_stats *st, struct vxt_objstats *o,
			    const struct vxt_event *ev, uint64_t sector)
{
	struct vxt_iopair_val v = { ev->time_ns, 0, 0 };

	if (ev->phase == VXT_PH_START)
		return vxt_iopair_count(st->flight) < VXT_IOPAIR_MAX - 1 &&
		       vxt_iopair_put(st->flight, flight_key(ev), sector, 0, &v) == 0;
	if (vxt_iopair_take(st->flight, flight_key(ev), sector, 0, &v))
		return true;
	if (o->pre_gap) {	/* one from before the table, it seems */
		o->pre_gap--;
		return true;
	}
	return false;		/* its start was lost, or closed by loss */
}

struct close_arg {
	struct vxt_stats *st;
	uint64_t before;
};

/* vxt_iopair_sweep()'s: an issue from before the mark is closed (counted
 * in its object's pre_gap for now). */
static bool keep_issue(void *arg, uint32_t key, uint64_t sector, uint32_t size,
		       const struct vxt_iopair_val *v)
{
	struct close_arg *a = arg;
	uint32_t id = key / 8;

	(void)sector, (void)size;
	if (v->time_ns >= a->before)
		return true;
	if (id < a->st->nobj)
		a->st->obj[id].pre_gap++;
	return false;
}

void vxt_stats_flight_close(struct vxt_stats *st, uint64_t t)
{
	struct close_arg a = { st, st->lost_mark };

	st->lost_due = 0;
	if (!st->flight)
		return;
	vxt_iopair_sweep(st->flight, keep_issue, &a);
	for (size_t i = 0; i < st->nobj; i++) {
		struct vxt_objstats *o = &st->obj[i];
		uint64_t n = o->pre_gap;

		if (!n)
			continue;
		o->pre_gap = 0;
		o->lost_ios += n;
		if (o->in_flight <= 0)
			continue;
		if ((uint64_t)o->in_flight > n) {
			o->in_flight -= (int64_t)n;
			continue;
		}
		o->in_flight = 0;
		if (t > o->busy_since) {
			o->busy_ns += t - o->busy_since;
			o->busy_end = t;
		}
	}
}

void vxt_stats_flight_free(struct vxt_stats *st)
{
	vxt_iopair_free(st->flight);
	st->flight = NULL;
	st->lost_mark = st->lost_due = 0;
}
