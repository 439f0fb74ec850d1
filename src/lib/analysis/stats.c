/* stats.c - per-object I/O statistics
 *
 * Invariant: st->obj has st->nobj entries, one per object id seen so far.
 * An event is accounted once, to its object; vxt_stats_total() sums them.
 * In flight is a count per object until a lost event naming no I/O; from
 * there on stats_flight.c keeps the issues in the table of flight.h, so
 * those the loss left without their completion are closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats_impl.h"
#include "vxtrace/stats.h"
#include "vxtrace/util.h"

void vxt_stats_init(struct vxt_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void vxt_stats_free(struct vxt_stats *st)
{
	vxt_stats_flight_free(st);
	for (size_t i = 0; i < st->nobj; i++)
		vxt_latdist_free(&st->obj[i].lat);
	free(st->obj);
	memset(st, 0, sizeof(*st));
}

void vxt_stats_reset(struct vxt_stats *st)
{
	struct vxt_objstats *obj = st->obj;
	size_t nobj = st->nobj;

	vxt_stats_flight_free(st);
	for (size_t i = 0; i < nobj; i++) {
		struct vxt_latdist lat = obj[i].lat;

		vxt_latdist_clear(&lat);
		memset(&obj[i], 0, sizeof(obj[i]));
		obj[i].lat = lat;
	}
	memset(st, 0, sizeof(*st));
	st->obj = obj;
	st->nobj = nobj;
}

static int grow(struct vxt_stats *st, uint32_t id)
{
	size_t old = st->nobj;

	if (vxt_grow(&st->obj, &st->nobj, (size_t)id + 1, sizeof(*st->obj)) < 0)
		return -ENOMEM;
	memset(st->obj + old, 0, (st->nobj - old) * sizeof(*st->obj));
	return 0;
}

/* first_ns == 0 means none yet: wrapping both sides by one makes 0 the
 * largest, so one unsigned compare stands for "none yet or earlier" */
static inline bool earlier(uint64_t t, uint64_t first)
{
	return t - 1 < first - 1;
}

/* @paired: a completion whose issue was in flight (always, before a gap) */
static inline __attribute__((always_inline)) int account(struct vxt_objstats *o,
							   const struct vxt_event *ev, bool paired)
{
	if (earlier(ev->time_ns, o->first_ns))
		o->first_ns = ev->time_ns;
	if (ev->time_ns > o->last_ns)
		o->last_ns = ev->time_ns;
	switch (ev->phase) {
	case VXT_PH_START:
		o->starts++;
		if (o->in_flight++ <= 0) {
			o->busy_since = ev->time_ns;
			if (o->busy_end && ev->time_ns > o->busy_end &&
			    ev->time_ns - o->busy_end <= VXT_STATS_GAP_NS)
				o->bridged_ns += ev->time_ns - o->busy_end;
		}
		break;
	case VXT_PH_DONE:
		o->ios[ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER]++;
		if (ev->error)
			o->errors++;
		else if (ev->op == VXT_OP_READ)
			o->bytes_read += ev->bytes;
		else if (ev->op == VXT_OP_WRITE)
			o->bytes_written += ev->bytes;
		else
			o->bytes_other += ev->bytes;
		if (paired && o->in_flight > 0 && --o->in_flight == 0 &&
		    ev->time_ns > o->busy_since) {
			o->busy_ns += ev->time_ns - o->busy_since;
			o->busy_end = ev->time_ns;
		}
		if (ev->latency_ns || !ev->error)
			return vxt_latdist_add(&o->lat, ev->latency_ns);
		break;
	case VXT_PH_REQUEUE:
		o->requeues++;
		break;
	default:
		break;
	}
	return 0;
}

/* A lost event naming an issue with no completion (vxt_event_lost_io()):
 * that I/O leaves its object's flight there, counted in lost_ios. */
static int close_lost_io(struct vxt_stats *st, const struct vxt_event *ev)
{
	struct vxt_objstats *o;

	if (ev->object >= st->nobj && grow(st, ev->object) < 0)
		return -ENOMEM;
	o = &st->obj[ev->object];
	if (st->flight && !vxt_stats_flight_track(st, o, ev))
		return 0;	/* not in flight: closed by loss already */
	o->lost_ios++;
	if (o->in_flight > 0 && --o->in_flight == 0 && ev->time_ns > o->busy_since)
		o->busy_ns += ev->time_ns - o->busy_since;
	return 0;
}

void vxt_stats_tick(struct vxt_stats *st, uint64_t now_ns)
{
	if (!st->flight)
		return;
	if (st->lost_due && now_ns >= st->lost_due)
		vxt_stats_flight_close(st, st->lost_due);
	if (now_ns >= st->age_next)
		vxt_stats_flight_age(st, now_ns);
}

/* inlined in both callers: the per-event call costs as much as the work */
static inline __attribute__((always_inline)) int add_one(struct vxt_stats *st,
							 const struct vxt_event *ev)
{
	st->events++;
	if (ev->phase < VXT_PH_COUNT)
		st->by_phase[ev->phase]++;
	if (earlier(ev->time_ns, st->first_ns))
		st->first_ns = ev->time_ns;
	if (ev->time_ns > st->last_ns)
		st->last_ns = ev->time_ns;
	if (__builtin_expect(st->flight != NULL, 0))
		vxt_stats_tick(st, ev->time_ns);
	if (ev->phase == VXT_PH_LOST) {
		st->lost += ev->sector;
		if (ev->lost_io)	/* its I/O is no longer in flight */
			return close_lost_io(st, ev);
		return ev->sector ? vxt_stats_flight_gap(st, ev) : 0;
	}
	if (ev->object >= st->nobj && grow(st, ev->object) < 0)
		return -ENOMEM;
	if (__builtin_expect(st->flight != NULL, 0) &&
	    (ev->phase == VXT_PH_START || ev->phase == VXT_PH_DONE))
		return account(&st->obj[ev->object], ev,
			       vxt_stats_flight_track(st, &st->obj[ev->object], ev));
	return account(&st->obj[ev->object], ev, true);
}

int vxt_stats_add(struct vxt_stats *st, const struct vxt_event *ev)
{
	return add_one(st, ev);
}

int vxt_stats_add_many(struct vxt_stats *st, const struct vxt_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_one(st, &ev[i]) < 0)
			return -ENOMEM;
	return 0;
}

void vxt_stats_total(const struct vxt_stats *st, struct vxt_objstats *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < st->nobj; i++) {
		const struct vxt_objstats *o = &st->obj[i];

		if (!o->last_ns && !o->starts && !o->lat.count)
			continue;
		for (int k = 0; k < VXT_OP_COUNT; k++)
			t->ios[k] += o->ios[k];
		t->starts += o->starts;
		t->requeues += o->requeues;
		t->bytes_read += o->bytes_read;
		t->bytes_written += o->bytes_written;
		t->bytes_other += o->bytes_other;
		t->errors += o->errors;
		t->in_flight += o->in_flight;
		t->lost_ios += o->lost_ios;
		t->busy_ns += o->busy_ns;
		t->bridged_ns += o->bridged_ns;
		if (!t->first_ns || (o->first_ns && o->first_ns < t->first_ns))
			t->first_ns = o->first_ns;
		if (o->last_ns > t->last_ns)
			t->last_ns = o->last_ns;
		vxt_latdist_merge(&t->lat, &o->lat);
	}
}

void vxt_objstats_free(struct vxt_objstats *o)
{
	vxt_latdist_free(&o->lat);
}

void vxt_stats_finish(struct vxt_stats *st)
{
	vxt_stats_flight_end(st);
}

uint64_t vxt_objstats_active_ns(const struct vxt_objstats *o)
{
	if (o->busy_ns)
		return o->busy_ns + o->bridged_ns;
	return o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 0;
}

uint64_t vxt_objstats_ios(const struct vxt_objstats *o)
{
	uint64_t n = 0;

	for (int i = 0; i < VXT_OP_COUNT; i++)
		n += o->ios[i];
	return n;
}

const struct vxt_objstats *vxt_stats_object(const struct vxt_stats *st, uint32_t id)
{
	if (id >= st->nobj || !st->obj[id].last_ns)
		return NULL;
	return &st->obj[id];
}
