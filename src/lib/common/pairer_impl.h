/* pairer_impl.h - the pairer's state and its steps for queue, getrq,
 * insert, merge, issue and completion, inline (internal)
 *
 * pairer.c builds vxt_pairer_add() from these; a caller that feeds every
 * event and switches on the phase itself (the breakdown) calls the step of
 * each phase here, so an event costs one dispatch and no calls. The steps
 * do exactly what vxt_pairer_add() does for their phase: pairer_step()
 * first, then the step with the event's object (pairer_obj()).
 * Invariant: per object, io[0 .. n) is sorted by start, equal starts in
 * arrival order.
 */
#ifndef VXT_PAIRER_IMPL_H
#define VXT_PAIRER_IMPL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/pairer.h"

/* Each step is written once into each caller's dispatch. */
#define PAIRER_INLINE static inline __attribute__((always_inline))
#define PAIRER_JOINED 0x80		/* flags: the device below logged its queue */

struct pobj {
	struct vxt_pio *io;		/* sorted by start */
	size_t n, cap;
	bool queued;			/* a queue was seen on this object, or a remap onto it followed */
};

struct vxt_pairer {
	unsigned flags;
	struct pobj *obj;		/* by object id */
	size_t nobj;
	uint32_t pending;
	uint64_t unp[VXT_PU_COUNT];
	struct vxt_pio *out;		/* what a completion closed */
	size_t outcap;
};

/* Out of line in pairer.c: the growths, and the I/O a phase without a
 * queue opens. */
struct pobj *vxt_pairer_obj_grow(struct vxt_pairer *p, uint32_t object);
int vxt_pairer_io_grow(struct pobj *o);
int vxt_pairer_out_grow(struct vxt_pairer *p, size_t n);
struct vxt_pio *vxt_pairer_open_unqueued(struct vxt_pairer *p, struct pobj *o,
					 const struct vxt_event *ev, uint64_t ord, int *rc);

PAIRER_INLINE void pairer_step(struct vxt_pstep *st)
{
	st->what = VXT_PS_NONE;
	st->unpaired = -1;
	st->n = 0;
	st->io = NULL;
}

/* The pending I/Os of @object (made at its first event), or NULL when out
 * of memory. */
PAIRER_INLINE struct pobj *pairer_obj(struct vxt_pairer *p, uint32_t object)
{
	return __builtin_expect(object < p->nobj, 1) ? &p->obj[object] :
		vxt_pairer_obj_grow(p, object);
}

/* Index of the first pending I/O starting at or after @sec. */
PAIRER_INLINE size_t pairer_lower(const struct pobj *o, uint64_t sec)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->io[mid].start < sec)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The pending I/O whose range holds @sec (the last starting at or before
 * it), or NULL. */
PAIRER_INLINE struct vxt_pio *pairer_holding(struct pobj *o, uint64_t sec)
{
	size_t i = sec == UINT64_MAX ? o->n : pairer_lower(o, sec + 1);
	const struct vxt_pio *q = i > 0 ? &o->io[i - 1] : NULL;

	/* an I/O of no size (a flush) holds its own sector */
	return q && (sec < q->end || (q->start == sec && q->end == sec)) ? &o->io[i - 1] : NULL;
}

/* Insert @io at index @at of @o (where its start keeps the order). */
PAIRER_INLINE struct vxt_pio *pairer_insert_at(struct vxt_pairer *p, struct pobj *o, size_t at,
					       const struct vxt_pio *io)
{
	if (o->n == o->cap && vxt_pairer_io_grow(o) < 0)
		return NULL;
	if (at < o->n)
		memmove(o->io + at + 1, o->io + at, (o->n - at) * sizeof(*io));
	o->io[at] = *io;
	o->n++;
	p->pending++;
	return &o->io[at];
}

/* Insert @io after the I/Os starting at or before its start. */
PAIRER_INLINE struct vxt_pio *pairer_insert(struct vxt_pairer *p, struct pobj *o,
					    const struct vxt_pio *io)
{
	return pairer_insert_at(p, o, io->start == UINT64_MAX ? o->n : pairer_lower(o, io->start + 1),
				io);
}

PAIRER_INLINE void pairer_fresh(struct vxt_pio *io, const struct vxt_event *ev, uint64_t ord)
{
	*io = (struct vxt_pio){
		.start = ev->sector, .end = ev->sector + (ev->bytes >> 9), .ord = ord,
		.object = ev->object, .qobject = ev->object, .pid = ev->pid, .comm = ev->comm,
		.op = ev->op,
	};
	for (int k = 0; k < VXT_PT_COUNT; k++)
		io->t[k] = VXT_PT_UNSET;
}

PAIRER_INLINE void pairer_unpaired(struct vxt_pairer *p, struct vxt_pstep *st, enum vxt_pu k)
{
	p->unp[k]++;
	st->unpaired = (int)k;
}

/* Set phase @k of @io to @t; a time before the queue is out of order. */
PAIRER_INLINE void pairer_mark(struct vxt_pairer *p, struct vxt_pstep *st, struct vxt_pio *io,
			       int k, uint64_t t)
{
	if (io->t[VXT_PT_Q] != VXT_PT_UNSET && t < io->t[VXT_PT_Q] && st->unpaired < 0)
		pairer_unpaired(p, st, VXT_PU_ORDER);
	io->t[k] = t;
}

PAIRER_INLINE int pairer_on_queue(struct vxt_pairer *p, struct pobj *o,
				  const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st)
{
	size_t at = pairer_lower(o, ev->sector);
	struct vxt_pio io, *q;

	o->queued = true;
	for (; at < o->n && o->io[at].start == ev->sector; at++) {
		q = &o->io[at];
		/* the bio a remap brought here, logged again by this device */
		if ((q->flags & (VXT_PI_REMAPPED | PAIRER_JOINED)) == VXT_PI_REMAPPED) {
			q->flags |= PAIRER_JOINED;
			st->what = VXT_PS_JOINED;
			st->n = 1;
			st->io = q;
			return 0;
		}
		if ((q->flags & VXT_PI_QUEUED) && (q->end == q->start) == !ev->bytes) {
			pairer_unpaired(p, st, VXT_PU_DUPQ);
			return 0;
		}
	}
	if (p->pending >= VXT_PAIRER_MAX) {
		pairer_unpaired(p, st, VXT_PU_FULL);
		return 0;
	}
	pairer_fresh(&io, ev, ord);
	io.t[VXT_PT_Q] = ev->time_ns;
	io.flags = VXT_PI_QUEUED;
	q = pairer_insert_at(p, o, at, &io);	/* at: past the I/Os starting there */
	if (!q)
		return -ENOMEM;
	st->what = VXT_PS_OPENED;
	st->n = 1;
	st->io = q;
	return 0;
}

/* getrq, insert, merge (@k: VXT_PT_G, VXT_PT_I, VXT_PT_M): the I/O holding
 * the first sector. */
PAIRER_INLINE int pairer_on_phase(struct vxt_pairer *p, struct pobj *o,
				  const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st,
				  int k)
{
	struct vxt_pio *q = pairer_holding(o, ev->sector);
	int rc = 0;

	if (!q) {
		pairer_unpaired(p, st, k == VXT_PT_M ? VXT_PU_MERGE : VXT_PU_NOQ);
		if (k == VXT_PT_M || !(q = vxt_pairer_open_unqueued(p, o, ev, ord, &rc)))
			return rc;
	}
	pairer_mark(p, st, q, k, ev->time_ns);
	st->what = VXT_PS_MARKED;
	st->n = 1;
	st->io = q;
	return 0;
}

/* getrq, insert, merge: pairer_on_phase() with the phase's time. */
PAIRER_INLINE int pairer_on_gim(struct vxt_pairer *p, struct pobj *o,
				const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st)
{
	return pairer_on_phase(p, o, ev, ord, st,
			       ev->phase == VXT_PH_GETRQ ? VXT_PT_G :
			       ev->phase == VXT_PH_INSERT ? VXT_PT_I : VXT_PT_M);
}

/* Room for @n closed or marked I/Os in p->out. */
PAIRER_INLINE int pairer_out_room(struct vxt_pairer *p, size_t n)
{
	return n > p->outcap ? vxt_pairer_out_grow(p, n) : 0;
}

/* issue: every pending I/O inside its range; when they lie side by side in
 * the array (the usual case) they are handed out in place, else copies of
 * them go out. */
PAIRER_INLINE int pairer_on_issue(struct vxt_pairer *p, struct pobj *o,
				  const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i, first = SIZE_MAX, last = 0, n = 0;
	int rc = 0;

	for (i = pairer_lower(o, s); i < o->n && o->io[i].start < lim; i++) {
		struct vxt_pio *q = &o->io[i];

		if (q->end > e)
			continue;
		pairer_mark(p, st, q, VXT_PT_D, ev->time_ns);
		first = first == SIZE_MAX ? i : first;
		last = i;
		n++;
	}
	if (!n) {
		struct vxt_pio *q;

		pairer_unpaired(p, st, VXT_PU_NOQ);
		if (!(q = vxt_pairer_open_unqueued(p, o, ev, ord, &rc)))
			return rc;
		q->t[VXT_PT_D] = ev->time_ns;
		st->what = VXT_PS_MARKED;
		st->n = 1;
		st->io = q;
		return 0;
	}
	st->what = VXT_PS_MARKED;
	st->n = n;
	if (last - first + 1 == n) {
		st->io = &o->io[first];
		return 0;
	}
	if (pairer_out_room(p, n) < 0)
		return -ENOMEM;
	for (i = first, n = 0; i <= last; i++)
		if (o->io[i].end <= e)
			p->out[n++] = o->io[i];
	st->io = p->out;
	return 0;
}

PAIRER_INLINE int pairer_on_done(struct vxt_pairer *p, struct pobj *o,
				 const struct vxt_event *ev, struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i = pairer_lower(o, s), j, n = 0, issued = 0;

	for (j = i; i < o->n && o->io[i].start < lim; i++) {
		struct vxt_pio *q = &o->io[i];

		if (q->end > e) {
			o->io[j++] = *q;	/* not ours: stays pending */
			continue;
		}
		if (pairer_out_room(p, n + 1) < 0) {
			/* keep the array whole: what is left stays pending */
			memmove(o->io + j, o->io + i, (o->n - i) * sizeof(*o->io));
			o->n -= i - j;
			p->pending -= (uint32_t)(i - j);
			return -ENOMEM;
		}
		pairer_mark(p, st, q, VXT_PT_C, ev->time_ns);
		issued += q->t[VXT_PT_D] != VXT_PT_UNSET;
		p->out[n++] = *q;
	}
	if (i > j && i < o->n)	/* (an object with nothing pending may have no array) */
		memmove(o->io + j, o->io + i, (o->n - i) * sizeof(*o->io));
	o->n -= i - j;
	p->pending -= (uint32_t)(i - j);
	if (!n) {
		pairer_unpaired(p, st, VXT_PU_NOQ);
		return 0;
	}
	/* a bio-based device's I/O has no issue: its bio completes */
	if (!issued && st->unpaired < 0 && !(ev->flags & VXT_F_BIO))
		pairer_unpaired(p, st, VXT_PU_NOD);
	st->what = VXT_PS_CLOSED;
	st->n = n;
	st->io = p->out;
	return 0;
}

#endif
