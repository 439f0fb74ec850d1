/* flight.c - the I/Os in flight of a stream of events (see flight.h)
 *
 * An iopair table keyed by (object * 8 + op, sector), size 0, holding the
 * start's time; the newest lost event naming no I/O is the mark. A second
 * table of the same keys holds the I/Os taken out without their completion
 * (a sweep's, vxt_flight_drop_oldest()'s), until VXT_FLIGHT_AGE_NS after
 * their start: a lost event naming one of them later (a source names the
 * I/O whose completion it lost when it finds out, which may be after the
 * lost-event rule took it out) ends it there, not a later start of the same
 * key that is still in flight; a completion whose latency says its start
 * was one of them (the source paired it so: it came after all) ends it
 * there, not a later start.
 */
#include <errno.h>
#include <stdlib.h>

#include "vxtrace/flight.h"
#include "vxtrace/iopair.h"

_Static_assert(VXT_OP_COUNT <= 8, "an op fits the key's low 3 bits");

struct vxt_flight {
	struct vxt_iopair *t;
	struct vxt_iopair *gone;	/* taken out without their completion */
	uint64_t lost_mark;	/* vxt_lost_mark_note() */
};

struct vxt_flight *vxt_flight_new(void)
{
	struct vxt_flight *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->t = vxt_iopair_new();
	f->gone = vxt_iopair_new();
	if (!f->t || !f->gone) {
		vxt_flight_free(f);
		return NULL;
	}
	return f;
}

void vxt_flight_free(struct vxt_flight *f)
{
	if (!f)
		return;
	vxt_iopair_free(f->t);
	vxt_iopair_free(f->gone);
	free(f);
}

static uint32_t key_of(uint32_t object, uint8_t op)
{
	return object * 8u + (op < VXT_OP_COUNT ? op : VXT_OP_OTHER);
}

/* Is completion @ev, by its latency, that of the oldest I/O of its key a
 * rule took out (the source paired them: its start was that one's)? Then
 * that one is forgotten. */
static bool done_of_gone(struct vxt_flight *f, const struct vxt_event *ev)
{
	struct vxt_iopair_val v;
	uint32_t key = key_of(ev->object, ev->op);

	if (!vxt_iopair_count(f->gone) || !ev->latency_ns || ev->latency_ns > ev->time_ns ||
	    !vxt_iopair_take(f->gone, key, ev->sector, 0, &v))
		return false;
	if (v.time_ns == ev->time_ns - ev->latency_ns)
		return true;
	(void)vxt_iopair_put(f->gone, key, ev->sector, 0, &v);	/* not that one: back */
	return false;
}

int vxt_flight_feed(struct vxt_flight *f, const struct vxt_event *ev)
{
	struct vxt_iopair_val v = { ev->time_ns, 0, 0 };
	uint64_t sector;
	int rc;

	switch (ev->phase) {
	case VXT_PH_START:
		if (vxt_iopair_count(f->t) >= VXT_IOPAIR_MAX - 1)
			return 0;	/* not followed rather than a table that starts afresh */
		rc = vxt_iopair_put(f->t, key_of(ev->object, ev->op), ev->sector, 0, &v);
		return rc < 0 ? rc : 1;
	case VXT_PH_DONE:
		if (done_of_gone(f, ev))
			return VXT_FLIGHT_GONE;
		/* fall through */
	case VXT_PH_REQUEUE:
		return vxt_iopair_take(f->t, key_of(ev->object, ev->op), ev->sector, 0, &v);
	case VXT_PH_LOST:
		if (vxt_event_lost_io(ev, &sector)) {
			if (vxt_iopair_take(f->gone, key_of(ev->object, ev->op), sector, 0, &v))
				return VXT_FLIGHT_GONE;
			return vxt_iopair_take(f->t, key_of(ev->object, ev->op), sector, 0, &v);
		}
		vxt_lost_mark_note(&f->lost_mark, ev);
		return 0;
	default:
		return 0;
	}
}

uint64_t vxt_flight_lost_before(const struct vxt_flight *f, uint64_t now_ns)
{
	return vxt_lost_mark_due(f->lost_mark, now_ns);
}

/* Remember the I/O of @key and @sector started at @v taken out without its
 * completion. Past VXT_IOPAIR_MAX such, or out of memory, it is not: a lost
 * event naming it then ends the next start of its key, as it did before. */
static void note_gone(struct vxt_flight *f, uint32_t key, uint64_t sector,
		      const struct vxt_iopair_val *v)
{
	if (vxt_iopair_count(f->gone) < VXT_IOPAIR_MAX - 1)
		(void)vxt_iopair_put(f->gone, key, sector, 0, v);
}

/* vxt_iopair_sweep()'s: forget the I/Os taken out before *@arg. */
static bool keep_gone(void *arg, uint32_t key, uint64_t sector, uint32_t size,
		      const struct vxt_iopair_val *v)
{
	(void)key, (void)sector, (void)size;
	return v->time_ns >= *(const uint64_t *)arg;
}

struct sweep_arg {
	struct vxt_flight *f;
	uint64_t aged_before, lost_before;
	vxt_flight_keep_fn keep;
	void *arg;
};

/* vxt_iopair_sweep()'s: the rules, then the caller's judge. */
static bool keep_one(void *arg, uint32_t key, uint64_t sector, uint32_t size,
		     const struct vxt_iopair_val *v)
{
	struct sweep_arg *a = arg;
	enum vxt_flight_why why = VXT_FLIGHT_DROPPED;
	bool keep = true;

	(void)size;
	if (v->time_ns < a->aged_before) {
		why = VXT_FLIGHT_AGED;
		keep = false;
	} else if (v->time_ns < a->lost_before) {
		why = VXT_FLIGHT_LOST;
		keep = false;
	}
	keep = a->keep(a->arg, key / 8, (uint8_t)(key % 8), v->time_ns, keep, why);
	if (!keep)
		note_gone(a->f, key, sector, v);
	return keep;
}

uint32_t vxt_flight_sweep(struct vxt_flight *f, uint64_t now_ns, uint64_t age_ns,
			  vxt_flight_keep_fn keep, void *arg)
{
	struct sweep_arg a = { f, now_ns > age_ns ? now_ns - age_ns : 0,
			       vxt_flight_lost_before(f, now_ns), keep, arg };
	uint64_t gone_before = now_ns > VXT_FLIGHT_AGE_NS ? now_ns - VXT_FLIGHT_AGE_NS : 0;

	if (vxt_iopair_count(f->gone))
		vxt_iopair_sweep(f->gone, keep_gone, &gone_before);
	if (!vxt_iopair_count(f->t))
		return 0;
	return vxt_iopair_sweep(f->t, keep_one, &a);
}

struct oldest_arg {
	struct vxt_flight *f;
	uint32_t object;
	uint64_t time_ns;	/* the oldest start found */
	bool drop;		/* second pass: forget the one of time_ns */
};

/* vxt_iopair_sweep()'s: find the oldest start of an object, then forget it. */
static bool oldest_start(void *arg, uint32_t key, uint64_t sector, uint32_t size,
			 const struct vxt_iopair_val *v)
{
	struct oldest_arg *a = arg;

	(void)size;
	if (key / 8 != a->object)
		return true;
	if (!a->drop) {
		if (v->time_ns < a->time_ns)
			a->time_ns = v->time_ns;
		return true;
	}
	if (v->time_ns != a->time_ns)
		return true;
	a->drop = false;	/* that one only */
	note_gone(a->f, key, sector, v);
	return false;
}

bool vxt_flight_drop_oldest(struct vxt_flight *f, uint32_t object)
{
	struct oldest_arg a = { f, object, UINT64_MAX, false };

	vxt_iopair_sweep(f->t, oldest_start, &a);
	if (a.time_ns == UINT64_MAX)
		return false;
	a.drop = true;
	return vxt_iopair_sweep(f->t, oldest_start, &a) > 0;
}

uint32_t vxt_flight_count(const struct vxt_flight *f)
{
	return vxt_iopair_count(f->t);
}
