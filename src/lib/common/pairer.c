/* pairer.c - follow each bio from its queue to its completion (pairer.h)
 *
 * Per object, the pending I/Os in an array sorted by first sector (equal
 * first sectors in arrival order): a phase holding one sector finds its I/O
 * by bisection, a range of them walks the I/Os starting inside it. A
 * completion copies the I/Os it closes out before the array is compacted.
 * The steps of queue, getrq, insert, merge, issue and completion are inline
 * in pairer_impl.h (the breakdown takes them itself); the rarer phases and
 * the growths are here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/pairer_impl.h"

#define NONE VXT_PT_UNSET
#define JOINED PAIRER_JOINED
/* The phases that move I/O along (remaps apart). */
#define PAIRING (1u << VXT_PH_QUEUE | 1u << VXT_PH_GETRQ | 1u << VXT_PH_INSERT | \
		 1u << VXT_PH_MERGE | 1u << VXT_PH_START | 1u << VXT_PH_DONE | \
		 1u << VXT_PH_REQUEUE | 1u << VXT_PH_SPLIT)

const char *vxt_pu_name(unsigned kind)
{
	static const char *const n[VXT_PU_COUNT] = {
		"out-of-order", "no-queue", "no-issue", "merge-unknown", "duplicate-queue",
		"remap-unknown", "remap-loop", "untracked",
	};

	return kind < VXT_PU_COUNT ? n[kind] : NULL;
}

struct vxt_pairer *vxt_pairer_new(unsigned flags)
{
	struct vxt_pairer *p = calloc(1, sizeof(*p));

	if (p)
		p->flags = flags;
	return p;
}

void vxt_pairer_free(struct vxt_pairer *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nobj; i++)
		free(p->obj[i].io);
	free(p->obj);
	free(p->out);
	free(p);
}

void vxt_pairer_reset(struct vxt_pairer *p)
{
	for (size_t i = 0; i < p->nobj; i++) {
		p->obj[i].n = 0;
		p->obj[i].queued = false;
	}
	p->pending = 0;
	memset(p->unp, 0, sizeof(p->unp));
}

uint32_t vxt_pairer_pending(const struct vxt_pairer *p)
{
	return p->pending;
}

uint64_t vxt_pairer_unpaired(const struct vxt_pairer *p, unsigned kind)
{
	return kind < VXT_PU_COUNT ? p->unp[kind] : 0;
}

void vxt_pairer_each(const struct vxt_pairer *p, void (*fn)(void *arg, const struct vxt_pio *io),
		     void *arg)
{
	for (size_t i = 0; i < p->nobj; i++)
		for (size_t k = 0; k < p->obj[i].n; k++)
			fn(arg, &p->obj[i].io[k]);
}

struct pobj *vxt_pairer_obj_grow(struct vxt_pairer *p, uint32_t object)
{
	size_t n = p->nobj ? p->nobj : 8;
	struct pobj *o;

	while (n <= object)
		n *= 2;
	o = realloc(p->obj, n * sizeof(*o));
	if (!o)
		return NULL;
	memset(o + p->nobj, 0, (n - p->nobj) * sizeof(*o));
	p->obj = o;
	p->nobj = n;
	return &p->obj[object];
}

int vxt_pairer_io_grow(struct pobj *o)
{
	size_t cap = o->cap ? 2 * o->cap : 64;
	struct vxt_pio *n = realloc(o->io, cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	o->io = n;
	o->cap = cap;
	return 0;
}

int vxt_pairer_out_grow(struct vxt_pairer *p, size_t n)
{
	size_t cap = p->outcap ? 2 * p->outcap : 16;
	struct vxt_pio *out;

	while (cap < n)
		cap *= 2;
	out = realloc(p->out, cap * sizeof(*out));
	if (!out)
		return -ENOMEM;
	p->out = out;
	p->outcap = cap;
	return 0;
}

/* An I/O opened by a later phase (VXT_PAIRER_UNQUEUED). */
struct vxt_pio *vxt_pairer_open_unqueued(struct vxt_pairer *p, struct pobj *o,
					 const struct vxt_event *ev, uint64_t ord, int *rc)
{
	struct vxt_pio io, *q;

	*rc = 0;
	if (!(p->flags & VXT_PAIRER_UNQUEUED) || p->pending >= VXT_PAIRER_MAX)
		return NULL;
	pairer_fresh(&io, ev, ord);
	q = pairer_insert(p, o, &io);
	if (!q)
		*rc = -ENOMEM;
	return q;
}

static int on_requeue(struct pobj *o, const struct vxt_event *ev, struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i, first = SIZE_MAX;

	for (i = pairer_lower(o, s); i < o->n && o->io[i].start < lim; i++)
		if (o->io[i].end <= e) {
			o->io[i].t[VXT_PT_D] = NONE;
			first = first == SIZE_MAX ? i : first;
			st->n = i - first + 1;
		}
	if (first != SIZE_MAX) {
		st->what = VXT_PS_MARKED;
		st->io = &o->io[first];
	}
	return 0;
}

/* A split of the I/O holding the first sector at sector + size. */
static int on_split(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		    struct vxt_pstep *st)
{
	uint64_t at = ev->sector + (ev->bytes >> 9);
	struct vxt_pio *q = pairer_holding(o, ev->sector), half;

	if (!q || at <= q->start || at >= q->end)
		return 0;
	half = *q;
	q->end = at;
	q->flags |= VXT_PI_SPLIT;
	half.start = at;
	half.flags |= VXT_PI_SPLIT;
	if (!pairer_insert(p, o, &half))
		return -ENOMEM;
	q = pairer_holding(o, ev->sector);	/* the insert may have moved it */
	st->what = VXT_PS_MARKED;
	st->n = 1;
	st->io = q;
	return 0;
}

/* A remap onto (@ev's object, sector) from vxt_event_remap_from(): a copy of
 * the I/O pending at the source follows the bio on the device below; the
 * original waits for its own completion above. */
static int on_remap(struct vxt_pairer *p, const struct vxt_event *ev, struct vxt_pstep *st)
{
	uint32_t from;
	uint64_t fsec;
	struct pobj *src, *dst;
	struct vxt_pio *q, io;

	if (!vxt_event_remap_from(ev, &from, &fsec))
		return 0;
	if (from >= p->nobj || !p->obj[from].queued)
		return 0;	/* nothing followed there: a partition, an untraced device */
	src = &p->obj[from];
	q = pairer_holding(src, fsec);
	if (!q) {
		pairer_unpaired(p, st, VXT_PU_REMAP_UNKNOWN);
		return 0;
	}
	if (ev->object == q->qobject || (ev->object == from && ev->sector == fsec) ||
	    q->hops >= VXT_PAIRER_MAX_HOPS) {
		pairer_unpaired(p, st, VXT_PU_REMAP_LOOP);
		return 0;
	}
	if (p->pending >= VXT_PAIRER_MAX) {
		pairer_unpaired(p, st, VXT_PU_FULL);
		return 0;
	}
	io = *q;
	io.start = ev->sector;
	io.end = ev->sector + (ev->bytes >> 9);
	io.object = ev->object;
	io.hops++;
	io.flags = (uint8_t)((io.flags & ~JOINED) | VXT_PI_REMAPPED);
	io.t[VXT_PT_G] = io.t[VXT_PT_I] = io.t[VXT_PT_M] = io.t[VXT_PT_D] = NONE;
	dst = pairer_obj(p, ev->object);
	if (!dst || !(q = pairer_insert(p, dst, &io)))
		return -ENOMEM;
	dst->queued = true;	/* I/O is followed there now */
	st->what = VXT_PS_MARKED;
	st->n = 1;
	st->io = q;
	return 0;
}

int vxt_pairer_add(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
		   struct vxt_pstep *st)
{
	struct pobj *o;

	pairer_step(st);
	if (ev->phase == VXT_PH_REMAP)
		return ev->bytes ? on_remap(p, ev, st) : 0;
	if (ev->phase >= 32 || !((1u << ev->phase) & PAIRING))
		return 0;
	o = pairer_obj(p, ev->object);
	if (!o)
		return -ENOMEM;
	switch (ev->phase) {
	case VXT_PH_QUEUE:
		return pairer_on_queue(p, o, ev, ord, st);
	case VXT_PH_GETRQ:
	case VXT_PH_INSERT:
	case VXT_PH_MERGE:
		return pairer_on_gim(p, o, ev, ord, st);
	case VXT_PH_START:
		return pairer_on_issue(p, o, ev, ord, st);
	case VXT_PH_REQUEUE:
		return on_requeue(o, ev, st);
	case VXT_PH_SPLIT:
		return ev->bytes ? on_split(p, o, ev, st) : 0;
	default:
		return pairer_on_done(p, o, ev, st);
	}
}

void vxt_pairer_request(const struct vxt_pstep *st, uint64_t *t)
{
	const struct vxt_pio *rep = NULL;

	for (int k = 0; k < VXT_PT_COUNT; k++)
		t[k] = NONE;
	if (st->what != VXT_PS_CLOSED || !st->n)
		return;
	for (size_t i = 0; i < st->n && !rep; i++)
		if (st->io[i].t[VXT_PT_G] != NONE)
			rep = &st->io[i];
	if (!rep)
		rep = &st->io[0];
	t[VXT_PT_Q] = rep->t[VXT_PT_Q];
	t[VXT_PT_M] = rep->t[VXT_PT_M];
	t[VXT_PT_C] = rep->t[VXT_PT_C];
	for (int k = VXT_PT_G; k <= VXT_PT_D; k++) {
		if (k == VXT_PT_M)
			continue;
		t[k] = rep->t[k];
		for (size_t i = 0; i < st->n && t[k] == NONE; i++)
			t[k] = st->io[i].t[k];
		for (size_t i = 0; i < st->n; i++)
			if (st->io[i].t[k] != NONE && st->io[i].t[k] < t[k] && k != VXT_PT_D)
				t[k] = st->io[i].t[k];
	}
}
