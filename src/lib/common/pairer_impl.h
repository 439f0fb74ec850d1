/* pairer_impl.h - the pairer's state and its steps for queue, getrq,
 * insert, merge, issue and completion, inline (private to common/)
 *
 * pairer.c builds vxt_pairer_add() from these; pairer_steps.h makes each
 * phase's step of them, for a caller of another layer that switches on the
 * phase itself. A step does exactly what vxt_pairer_add() does for its
 * phase: pairer_step() first, then the step with the event's object
 * (pairer_obj()).
 * Invariant: per object, the I/Os of its blocks taken in order are sorted by
 * start, equal starts in arrival order.
 */
#ifndef VXT_PAIRER_IMPL_H
#define VXT_PAIRER_IMPL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/pairer.h"

/* Each step is written once into each caller's dispatch. */
#define PAIRER_INLINE static inline __attribute__((always_inline))
/* The steps over several blocks: rare, kept out of the callers' loops. */
#define PAIRER_BLOCKS static __attribute__((noinline, cold, unused))
#define PAIRER_JOINED 0x80		/* flags: the device below logged its queue */
/* I/Os per block: an insert or a removal moves at most one block's worth,
 * however many I/Os are pending (thousands never completed cost no more). */
#define PAIRER_BLOCK 128

struct pblk {
	uint32_t n;
	struct vxt_pio io[PAIRER_BLOCK];	/* [0, n) sorted by start */
};

/* An object's pending I/Os: the blocks in order, each sorted, none empty
 * but a lone first one; first[k] is blk[k]'s first start (for bisection). */
struct pobj {
	struct pblk **blk;
	struct pblk *lone;		/* blk[0] when it is the only block, else NULL */
	uint64_t *first;
	uint32_t nblk, capblk;
	bool queued;			/* a queue was seen on this object, or a remap onto it followed */
};

/* A place among an object's I/Os: entry i of block k, b (i == b->n: past
 * the last I/O of the last block; b NULL: the object has no block). */
struct pcur {
	uint32_t k, i;
	struct pblk *b;
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

/* Out of line in pairer.c: the growths, a full block's split, an emptied
 * block's removal, and the I/O a phase without a queue opens. */
struct pobj *vxt_pairer_obj_grow(struct vxt_pairer *p, uint32_t object);
int vxt_pairer_block_split(struct pobj *o, uint32_t k);
void vxt_pairer_block_drop(struct pobj *o, uint32_t k);
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

/* Each step is written once, over the blocks, and taken in two copies by
 * @lone, a constant the compiler folds: true over the lone block of an
 * object that has one (the usual case: a few I/Os in flight), where the
 * walks across blocks fold away; false over any number of blocks (none
 * too), the copy kept out of line (PAIRER_BLOCKS). first[] is kept while
 * there are two blocks or more; a split sets it afresh. */

/* Blocks of @o: 1 when @lone. */
PAIRER_INLINE uint32_t pairer_nblk(const struct pobj *o, bool lone)
{
	return lone ? 1 : o->nblk;
}

/* Block @k of @o (@lone: the lone block, @k 0). */
PAIRER_INLINE struct pblk *pairer_blk(const struct pobj *o, uint32_t k, bool lone)
{
	return lone ? o->lone : o->blk[k];
}

/* The block where the I/Os starting at or after @sec begin: the last whose
 * first start is below @sec, else 0 (an object with blocks). */
PAIRER_INLINE uint32_t pairer_block(const struct pobj *o, uint64_t sec, bool lone)
{
	uint32_t lo = 1, hi = pairer_nblk(o, lone);

	if (__builtin_expect(hi <= 1, 1))
		return 0;
	while (lo < hi) {	/* the first block from 1 on starting at or after sec */
		uint32_t mid = lo + (hi - lo) / 2;

		if (o->first[mid] < sec)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Index in @b of the first I/O starting at or after @sec. Without
 * branches on the starts (a conditional move each step): how many steps
 * depends on the count alone, so random sectors cost no mispredictions. */
PAIRER_INLINE uint32_t pairer_lower_in(const struct pblk *b, uint64_t sec)
{
	uint32_t base = 0, n = b->n;

	if (!n)
		return 0;
	while (n > 1) {		/* the answer is in [base, base + n] */
		uint32_t half = n / 2;

		base = b->io[base + half - 1].start < sec ? base + half : base;
		n -= half;
	}
	return base + (b->io[base].start < sec);
}

/* @c at block @k, entry @i; past a block's end is the next block's first. */
PAIRER_INLINE void pairer_at(const struct pobj *o, struct pcur *c, uint32_t k, uint32_t i,
			     bool lone)
{
	struct pblk *b = pairer_blk(o, k, lone);

	if (i == b->n && k + 1 < pairer_nblk(o, lone))
		b = o->blk[++k], i = 0;
	c->k = k;
	c->i = i;
	c->b = b;
}

/* @c at the first pending I/O starting at or after @sec (or past the last). */
PAIRER_INLINE void pairer_seek(const struct pobj *o, struct pcur *c, uint64_t sec, bool lone)
{
	uint32_t k;

	if (!lone && !o->nblk) {
		c->k = c->i = 0;
		c->b = NULL;
		return;
	}
	k = pairer_block(o, sec, lone);
	pairer_at(o, c, k, pairer_lower_in(pairer_blk(o, k, lone), sec), lone);
}

/* The I/O at @c, or NULL past the last. */
PAIRER_INLINE struct vxt_pio *pairer_cur(const struct pcur *c, bool lone)
{
	return (!lone && !c->b) || c->i == c->b->n ? NULL : &c->b->io[c->i];
}

/* The next I/O after @c's (@c is not past the last). */
PAIRER_INLINE void pairer_next(const struct pobj *o, struct pcur *c, bool lone)
{
	if (++c->i == c->b->n && c->k + 1 < pairer_nblk(o, lone)) {
		c->b = o->blk[++c->k];
		c->i = 0;
	}
}

/* The pending I/O whose range holds @sec (the last starting at or before
 * it), or NULL. */
PAIRER_INLINE struct vxt_pio *pairer_holding_in(struct pobj *o, uint64_t sec, bool lone)
{
	struct pblk *b;
	struct vxt_pio *q;
	uint32_t k, i;

	if (!lone && !o->nblk)
		return NULL;
	if (sec == UINT64_MAX) {
		k = pairer_nblk(o, lone) - 1;
		b = pairer_blk(o, k, lone);
		i = b->n;
	} else {
		k = pairer_block(o, sec + 1, lone);
		b = pairer_blk(o, k, lone);
		i = pairer_lower_in(b, sec + 1);
	}
	if (!i)		/* (only block 0 can start past sec) */
		return NULL;
	q = &b->io[i - 1];
	/* an I/O of no size (a flush) holds its own sector */
	return sec < q->end || (q->start == sec && q->end == sec) ? q : NULL;
}

PAIRER_BLOCKS struct vxt_pio *pairer_holding_blocks(struct pobj *o, uint64_t sec)
{
	return pairer_holding_in(o, sec, false);
}

PAIRER_INLINE struct vxt_pio *pairer_holding(struct pobj *o, uint64_t sec)
{
	return o->lone ? pairer_holding_in(o, sec, true) : pairer_holding_blocks(o, sec);
}

/* A slot for an I/O starting at @start before the I/O at @c (past the
 * last: after it), where its start keeps the order: counted pending, for
 * the caller to fill in place; NULL when out of memory. A full block is
 * split first. */
PAIRER_INLINE struct vxt_pio *pairer_slot(struct vxt_pairer *p, struct pobj *o,
					  const struct pcur *c, uint64_t start, bool lone)
{
	uint32_t k = lone ? 0 : c->k, i;
	bool kept = !lone;	/* first[] is kept: two blocks or more */
	struct pblk *b;

	if (!lone && __builtin_expect(!o->nblk, 0)) {
		if (vxt_pairer_block_split(o, 0) < 0)	/* (makes the first block) */
			return NULL;
		b = o->blk[0];
		i = 0;
	} else {
		b = c->b;
		i = c->i;
		if (!lone && !i && k) {	/* the end of the block before: its first start stays */
			b = o->blk[--k];
			i = b->n;
		}
		if (__builtin_expect(b->n == PAIRER_BLOCK, 0)) {
			if (vxt_pairer_block_split(o, k) < 0)
				return NULL;
			if (i > PAIRER_BLOCK / 2)
				i -= PAIRER_BLOCK / 2, k++;
			b = o->blk[k];
			kept = true;
		}
	}
	if (i < b->n)
		memmove(b->io + i + 1, b->io + i, (b->n - i) * sizeof(*b->io));
	b->n++;
	if (!i && kept)
		o->first[k] = start;
	p->pending++;
	return &b->io[i];
}

/* Insert @io after the I/Os starting at or before its start. */
PAIRER_INLINE struct vxt_pio *pairer_insert(struct vxt_pairer *p, struct pobj *o,
					    const struct vxt_pio *io)
{
	struct vxt_pio *q;
	struct pcur c;

	if (io->start == UINT64_MAX && o->nblk)
		pairer_at(o, &c, o->nblk - 1, o->blk[o->nblk - 1]->n, false);
	else
		pairer_seek(o, &c, io->start + 1, false);
	q = pairer_slot(p, o, &c, io->start, false);
	if (q)
		*q = *io;
	return q;
}

/* Each field by name: a compound literal would clear the whole I/O first
 * (a string store, slow to start, on every queue). */
PAIRER_INLINE void pairer_fresh(struct vxt_pio *io, const struct vxt_event *ev, uint64_t ord)
{
	io->start = ev->sector;
	io->end = ev->sector + (ev->bytes >> 9);
	for (int k = 0; k < VXT_PT_COUNT; k++)
		io->t[k] = VXT_PT_UNSET;
	io->ord = ord;
	io->object = io->qobject = ev->object;
	io->pid = ev->pid;
	io->comm = ev->comm;
	io->op = ev->op;
	io->flags = 0;
	io->hops = 0;
	io->tag = 0;
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

/* A queue on a sector where I/O @q starts: true when @q settles it, as the
 * bio a remap brought here logged again by this device (joined), or as a
 * queue @q already had (a duplicate). */
PAIRER_INLINE bool pairer_queue_settled(struct vxt_pairer *p, struct vxt_pio *q,
					const struct vxt_event *ev, struct vxt_pstep *st)
{
	if ((q->flags & (VXT_PI_REMAPPED | PAIRER_JOINED)) == VXT_PI_REMAPPED) {
		q->flags |= PAIRER_JOINED;
		st->what = VXT_PS_JOINED;
		st->n = 1;
		st->io = q;
		return true;
	}
	if ((q->flags & VXT_PI_QUEUED) && (q->end == q->start) == !ev->bytes) {
		pairer_unpaired(p, st, VXT_PU_DUPQ);
		return true;
	}
	return false;
}

/* The step of a queue: it opens an I/O after those starting at its sector,
 * unless one of them settles it, or the pairer is full (counted). The I/O
 * is made in its slot, not copied in (a copy would read stores still on
 * their way). */
PAIRER_INLINE int pairer_on_queue_in(struct vxt_pairer *p, struct pobj *o,
				     const struct vxt_event *ev, uint64_t ord,
				     struct vxt_pstep *st, bool lone)
{
	struct vxt_pio *q;
	struct pcur c;

	pairer_seek(o, &c, ev->sector, lone);
	o->queued = true;
	for (; (q = pairer_cur(&c, lone)) && q->start == ev->sector; pairer_next(o, &c, lone))
		if (pairer_queue_settled(p, q, ev, st))
			return 0;
	if (p->pending >= VXT_PAIRER_MAX) {
		pairer_unpaired(p, st, VXT_PU_FULL);
		return 0;
	}
	/* c: past the I/Os starting there */
	q = pairer_slot(p, o, &c, ev->sector, lone);
	if (!q)
		return -ENOMEM;
	pairer_fresh(q, ev, ord);
	q->t[VXT_PT_Q] = ev->time_ns;
	q->flags = VXT_PI_QUEUED;
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
 * one block (the usual case) they are handed out in place, else copies of
 * them go out. */
PAIRER_INLINE int pairer_on_issue_in(struct vxt_pairer *p, struct pobj *o,
				     const struct vxt_event *ev, uint64_t ord,
				     struct vxt_pstep *st, bool lone)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	struct vxt_pio *first = NULL, *last = NULL, *q;
	struct pcur c, c0 = { 0 };
	uint32_t lastk = 0;
	size_t n = 0;
	int rc = 0;

	pairer_seek(o, &c, s, lone);
	for (; (q = pairer_cur(&c, lone)) && q->start < lim; pairer_next(o, &c, lone)) {
		if (q->end > e)
			continue;
		pairer_mark(p, st, q, VXT_PT_D, ev->time_ns);
		if (!first) {
			first = q;
			c0 = c;
		}
		last = q;
		lastk = c.k;
		n++;
	}
	if (!n) {
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
	if ((lone || lastk == c0.k) && (size_t)(last - first) + 1 == n) {
		st->io = first;
		return 0;
	}
	if (pairer_out_room(p, n) < 0)
		return -ENOMEM;
	for (c = c0, n = 0; (q = pairer_cur(&c, lone)) && q->start < lim; pairer_next(o, &c, lone))
		if (q->end <= e)
			p->out[n++] = *q;
	st->io = p->out;
	return 0;
}

/* Compact block @k from index @j on, whose I/Os [j, i) were taken out;
 * @return whether the block is gone. */
PAIRER_INLINE bool pairer_compact(struct vxt_pairer *p, struct pobj *o, uint32_t k, uint32_t j,
				  uint32_t i, bool lone)
{
	struct pblk *b = pairer_blk(o, k, lone);

	if (i == j)
		return false;
	if (i < b->n)
		memmove(b->io + j, b->io + i, (b->n - i) * sizeof(*b->io));
	b->n -= i - j;
	p->pending -= i - j;
	if (b->n) {
		if (pairer_nblk(o, lone) > 1)
			o->first[k] = b->io[0].start;
		return false;
	}
	if (pairer_nblk(o, lone) == 1)
		return false;	/* a lone block stays, empty */
	vxt_pairer_block_drop(o, k);
	return true;
}

/* completion: every pending I/O inside its range, copied out and taken
 * from its block. */
PAIRER_INLINE int pairer_on_done_in(struct vxt_pairer *p, struct pobj *o,
				    const struct vxt_event *ev, struct vxt_pstep *st, bool lone)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	size_t n = 0, issued = 0;
	struct pcur c;
	uint32_t k;

	pairer_seek(o, &c, s, lone);
	/* (a block's walk ends at once when no I/O in it starts in range) */
	for (k = c.k; lone || c.b; ) {
		struct pblk *b = c.b;
		uint32_t i = c.i, j = i;

		for (; i < b->n && b->io[i].start < lim; i++) {
			struct vxt_pio *q = &b->io[i];

			if (q->end > e) {
				b->io[j++] = *q;	/* not ours: stays pending */
				continue;
			}
			if (pairer_out_room(p, n + 1) < 0) {
				/* keep the blocks whole: what is left stays pending */
				pairer_compact(p, o, k, j, i, lone);
				return -ENOMEM;
			}
			/* copied, then marked: the copy does not read a
			 * store still on its way (the I/O leaves the block) */
			p->out[n] = *q;
			pairer_mark(p, st, &p->out[n++], VXT_PT_C, ev->time_ns);
			issued += q->t[VXT_PT_D] != VXT_PT_UNSET;
		}
		if (i < b->n || k + 1 >= pairer_nblk(o, lone)) {	/* the range ends in this block */
			pairer_compact(p, o, k, j, i, lone);
			break;
		}
		if (!pairer_compact(p, o, k, j, i, lone))
			k++;
		pairer_at(o, &c, k, 0, lone);
	}
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

/* ---- the steps: the lone block's copy inline, the blocks' out of line ---- */

PAIRER_BLOCKS int pairer_on_queue_blocks(struct vxt_pairer *p, struct pobj *o,
					 const struct vxt_event *ev, uint64_t ord,
					 struct vxt_pstep *st)
{
	return pairer_on_queue_in(p, o, ev, ord, st, false);
}

PAIRER_BLOCKS int pairer_on_issue_blocks(struct vxt_pairer *p, struct pobj *o,
					 const struct vxt_event *ev, uint64_t ord,
					 struct vxt_pstep *st)
{
	return pairer_on_issue_in(p, o, ev, ord, st, false);
}

PAIRER_BLOCKS int pairer_on_done_blocks(struct vxt_pairer *p, struct pobj *o,
					const struct vxt_event *ev, struct vxt_pstep *st)
{
	return pairer_on_done_in(p, o, ev, st, false);
}

PAIRER_INLINE int pairer_on_queue(struct vxt_pairer *p, struct pobj *o,
				  const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st)
{
	return o->lone ? pairer_on_queue_in(p, o, ev, ord, st, true) :
		pairer_on_queue_blocks(p, o, ev, ord, st);
}

PAIRER_INLINE int pairer_on_issue(struct vxt_pairer *p, struct pobj *o,
				  const struct vxt_event *ev, uint64_t ord, struct vxt_pstep *st)
{
	return o->lone ? pairer_on_issue_in(p, o, ev, ord, st, true) :
		pairer_on_issue_blocks(p, o, ev, ord, st);
}

PAIRER_INLINE int pairer_on_done(struct vxt_pairer *p, struct pobj *o,
				 const struct vxt_event *ev, struct vxt_pstep *st)
{
	return o->lone ? pairer_on_done_in(p, o, ev, st, true) :
		pairer_on_done_blocks(p, o, ev, st);
}

#endif
