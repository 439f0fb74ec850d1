/* pairer.c - follow each bio from its queue to its completion (pairer.h)
 *
 * Per object, the pending I/Os in an array sorted by first sector (equal
 * first sectors in arrival order): a phase holding one sector finds its I/O
 * by bisection, a range of them walks the I/Os starting inside it. A
 * completion copies the I/Os it closes out before the array is compacted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/pairer.h"

#define NONE VXT_PT_UNSET
#define JOINED 0x80			/* flags: the device below logged its queue */
/* The phases that move I/O along (remaps apart). */
#define PAIRING (1u << VXT_PH_QUEUE | 1u << VXT_PH_GETRQ | 1u << VXT_PH_INSERT | \
		 1u << VXT_PH_MERGE | 1u << VXT_PH_START | 1u << VXT_PH_DONE | \
		 1u << VXT_PH_REQUEUE | 1u << VXT_PH_SPLIT)

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

static struct pobj *obj_grow(struct vxt_pairer *p, uint32_t object)
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

static inline struct pobj *obj_of(struct vxt_pairer *p, uint32_t object)
{
	return __builtin_expect(object < p->nobj, 1) ? &p->obj[object] : obj_grow(p, object);
}

/* Index of the first pending I/O starting at or after @sec. */
static size_t lower(const struct pobj *o, uint64_t sec)
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
static struct vxt_pio *holding(struct pobj *o, uint64_t sec)
{
	size_t i = sec == UINT64_MAX ? o->n : lower(o, sec + 1);

	const struct vxt_pio *q = i > 0 ? &o->io[i - 1] : NULL;

	/* an I/O of no size (a flush) holds its own sector */
	return q && (sec < q->end || (q->start == sec && q->end == sec)) ? &o->io[i - 1] : NULL;
}

/* Insert @io after the I/Os starting at or before its start. */
static struct vxt_pio *insert(struct vxt_pairer *p, struct pobj *o, const struct vxt_pio *io)
{
	size_t at = io->start == UINT64_MAX ? o->n : lower(o, io->start + 1);

	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		struct vxt_pio *n = realloc(o->io, cap * sizeof(*n));

		if (!n)
			return NULL;
		o->io = n;
		o->cap = cap;
	}
	if (at < o->n)
		memmove(o->io + at + 1, o->io + at, (o->n - at) * sizeof(*io));
	o->io[at] = *io;
	o->n++;
	p->pending++;
	return &o->io[at];
}

static void fresh(struct vxt_pio *io, const struct vxt_event *ev, uint64_t ord)
{
	*io = (struct vxt_pio){
		.start = ev->sector, .end = ev->sector + (ev->bytes >> 9), .ord = ord,
		.object = ev->object, .qobject = ev->object, .pid = ev->pid, .comm = ev->comm,
		.op = ev->op,
	};
	for (int k = 0; k < VXT_PT_COUNT; k++)
		io->t[k] = NONE;
}

static void unpaired(struct vxt_pairer *p, struct vxt_pstep *st, enum vxt_pu k)
{
	p->unp[k]++;
	st->unpaired = (int)k;
}

/* Set phase @k of @io to @t; a time before the queue is out of order. */
static void mark(struct vxt_pairer *p, struct vxt_pstep *st, struct vxt_pio *io, int k,
		 uint64_t t)
{
	if (io->t[VXT_PT_Q] != NONE && t < io->t[VXT_PT_Q] && st->unpaired < 0)
		unpaired(p, st, VXT_PU_ORDER);
	io->t[k] = t;
}

static int on_queue(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		    uint64_t ord, struct vxt_pstep *st)
{
	size_t at = lower(o, ev->sector);
	struct vxt_pio io, *q;

	o->queued = true;
	for (; at < o->n && o->io[at].start == ev->sector; at++) {
		q = &o->io[at];
		/* the bio a remap brought here, logged again by this device */
		if ((q->flags & (VXT_PI_REMAPPED | JOINED)) == VXT_PI_REMAPPED) {
			q->flags |= JOINED;
			st->what = VXT_PS_JOINED;
			st->n = 1;
			st->io = q;
			return 0;
		}
		if ((q->flags & VXT_PI_QUEUED) && (q->end == q->start) == !ev->bytes) {
			unpaired(p, st, VXT_PU_DUPQ);
			return 0;
		}
	}
	if (p->pending >= VXT_PAIRER_MAX) {
		unpaired(p, st, VXT_PU_FULL);
		return 0;
	}
	fresh(&io, ev, ord);
	io.t[VXT_PT_Q] = ev->time_ns;
	io.flags = VXT_PI_QUEUED;
	q = insert(p, o, &io);
	if (!q)
		return -ENOMEM;
	st->what = VXT_PS_OPENED;
	st->n = 1;
	st->io = q;
	return 0;
}

/* An I/O opened by a later phase (VXT_PAIRER_UNQUEUED). */
static struct vxt_pio *open_unqueued(struct vxt_pairer *p, struct pobj *o,
				     const struct vxt_event *ev, uint64_t ord, int *rc)
{
	struct vxt_pio io, *q;

	*rc = 0;
	if (!(p->flags & VXT_PAIRER_UNQUEUED) || p->pending >= VXT_PAIRER_MAX)
		return NULL;
	fresh(&io, ev, ord);
	q = insert(p, o, &io);
	if (!q)
		*rc = -ENOMEM;
	return q;
}

/* getrq, insert, merge: the I/O holding the first sector. */
static int on_gim(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		  uint64_t ord, struct vxt_pstep *st)
{
	int k = ev->phase == VXT_PH_GETRQ ? VXT_PT_G : ev->phase == VXT_PH_INSERT ? VXT_PT_I :
		VXT_PT_M;
	struct vxt_pio *q = holding(o, ev->sector);
	int rc = 0;

	if (!q) {
		unpaired(p, st, k == VXT_PT_M ? VXT_PU_MERGE : VXT_PU_NOQ);
		if (k == VXT_PT_M || !(q = open_unqueued(p, o, ev, ord, &rc)))
			return rc;
	}
	mark(p, st, q, k, ev->time_ns);
	st->what = VXT_PS_MARKED;
	st->n = 1;
	st->io = q;
	return 0;
}

/* Room for @n closed or marked I/Os in p->out. */
static int out_room(struct vxt_pairer *p, size_t n)
{
	if (n > p->outcap) {
		size_t cap = p->outcap ? 2 * p->outcap : 16;
		struct vxt_pio *out;

		while (cap < n)
			cap *= 2;
		out = realloc(p->out, cap * sizeof(*out));
		if (!out)
			return -ENOMEM;
		p->out = out;
		p->outcap = cap;
	}
	return 0;
}

/* issue: every pending I/O inside its range; when they lie side by side in
 * the array (the usual case) they are handed out in place, else copies of
 * them go out. */
static int on_issue(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		    uint64_t ord, struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i, first = SIZE_MAX, last = 0, n = 0;
	int rc = 0;

	for (i = lower(o, s); i < o->n && o->io[i].start < lim; i++) {
		struct vxt_pio *q = &o->io[i];

		if (q->end > e)
			continue;
		mark(p, st, q, VXT_PT_D, ev->time_ns);
		first = first == SIZE_MAX ? i : first;
		last = i;
		n++;
	}
	if (!n) {
		struct vxt_pio *q;

		unpaired(p, st, VXT_PU_NOQ);
		if (!(q = open_unqueued(p, o, ev, ord, &rc)))
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
	if (out_room(p, n) < 0)
		return -ENOMEM;
	for (i = first, n = 0; i <= last; i++)
		if (o->io[i].end <= e)
			p->out[n++] = o->io[i];
	st->io = p->out;
	return 0;
}

static int on_requeue(struct pobj *o, const struct vxt_event *ev, struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i, first = SIZE_MAX;

	for (i = lower(o, s); i < o->n && o->io[i].start < lim; i++)
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

static int on_done(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		   struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t i = lower(o, s), j, n = 0, issued = 0;

	for (j = i; i < o->n && o->io[i].start < lim; i++) {
		struct vxt_pio *q = &o->io[i];

		if (q->end > e) {
			o->io[j++] = *q;	/* not ours: stays pending */
			continue;
		}
		if (out_room(p, n + 1) < 0) {
			/* keep the array whole: what is left stays pending */
			memmove(o->io + j, o->io + i, (o->n - i) * sizeof(*o->io));
			o->n -= i - j;
			p->pending -= (uint32_t)(i - j);
			return -ENOMEM;
		}
		mark(p, st, q, VXT_PT_C, ev->time_ns);
		issued += q->t[VXT_PT_D] != NONE;
		p->out[n++] = *q;
	}
	if (i > j && i < o->n)	/* (an object with nothing pending may have no array) */
		memmove(o->io + j, o->io + i, (o->n - i) * sizeof(*o->io));
	o->n -= i - j;
	p->pending -= (uint32_t)(i - j);
	if (!n) {
		unpaired(p, st, VXT_PU_NOQ);
		return 0;
	}
	/* a bio-based device's I/O has no issue: its bio completes */
	if (!issued && st->unpaired < 0 && !(ev->flags & VXT_F_BIO))
		unpaired(p, st, VXT_PU_NOD);
	st->what = VXT_PS_CLOSED;
	st->n = n;
	st->io = p->out;
	return 0;
}

/* A split of the I/O holding the first sector at sector + size. */
static int on_split(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		    struct vxt_pstep *st)
{
	uint64_t at = ev->sector + (ev->bytes >> 9);
	struct vxt_pio *q = holding(o, ev->sector), half;

	if (!q || at <= q->start || at >= q->end)
		return 0;
	half = *q;
	q->end = at;
	q->flags |= VXT_PI_SPLIT;
	half.start = at;
	half.flags |= VXT_PI_SPLIT;
	if (!insert(p, o, &half))
		return -ENOMEM;
	q = holding(o, ev->sector);	/* the insert may have moved it */
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
	q = holding(src, fsec);
	if (!q) {
		unpaired(p, st, VXT_PU_REMAP_UNKNOWN);
		return 0;
	}
	if (ev->object == q->qobject || (ev->object == from && ev->sector == fsec) ||
	    q->hops >= VXT_PAIRER_MAX_HOPS) {
		unpaired(p, st, VXT_PU_REMAP_LOOP);
		return 0;
	}
	if (p->pending >= VXT_PAIRER_MAX) {
		unpaired(p, st, VXT_PU_FULL);
		return 0;
	}
	io = *q;
	io.start = ev->sector;
	io.end = ev->sector + (ev->bytes >> 9);
	io.object = ev->object;
	io.hops++;
	io.flags = (uint8_t)((io.flags & ~JOINED) | VXT_PI_REMAPPED);
	io.t[VXT_PT_G] = io.t[VXT_PT_I] = io.t[VXT_PT_M] = io.t[VXT_PT_D] = NONE;
	dst = obj_of(p, ev->object);
	if (!dst || !(q = insert(p, dst, &io)))
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

	st->what = VXT_PS_NONE;
	st->unpaired = -1;
	st->n = 0;
	st->io = NULL;
	if (ev->phase == VXT_PH_REMAP)
		return ev->bytes ? on_remap(p, ev, st) : 0;
	if (ev->phase >= 32 || !((1u << ev->phase) & PAIRING))
		return 0;
	o = obj_of(p, ev->object);
	if (!o)
		return -ENOMEM;
	switch (ev->phase) {
	case VXT_PH_QUEUE:
		return on_queue(p, o, ev, ord, st);
	case VXT_PH_GETRQ:
	case VXT_PH_INSERT:
	case VXT_PH_MERGE:
		return on_gim(p, o, ev, ord, st);
	case VXT_PH_START:
		return on_issue(p, o, ev, ord, st);
	case VXT_PH_REQUEUE:
		return on_requeue(o, ev, st);
	case VXT_PH_SPLIT:
		return ev->bytes ? on_split(p, o, ev, st) : 0;
	default:
		return on_done(p, o, ev, st);
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
