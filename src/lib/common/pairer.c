/* pairer.c - follow each bio from its queue to its completion (pairer.h)
 *
 * Per object, the pending I/Os sorted by first sector (equal first sectors
 * in arrival order), in blocks of at most PAIRER_BLOCK: a phase holding one
 * sector finds its block, then its I/O, by bisection; a range of them walks
 * the I/Os starting inside it, block after block. An insert moves the I/Os
 * after it in its block alone (a full block is split in two first), so
 * thousands of I/Os never completed cost each event no more than a block's
 * worth. A completion copies the I/Os it closes out before their block is
 * compacted; a block left empty is dropped.
 * The steps of queue, getrq, insert, merge, issue and completion are inline
 * in pairer_impl.h (pairer_steps.h gives them to the breakdown); the rarer
 * phases and the growths are here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/pairer_impl.h"
#include "vxtrace/util.h"

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

static void obj_free(struct pobj *o)
{
	for (uint32_t k = 0; k < o->nblk; k++)
		free(o->blk[k]);
	free(o->blk);
	free(o->first);
	o->lone = NULL;
	o->blk = NULL;
	o->first = NULL;
	o->nblk = o->capblk = 0;
}

void vxt_pairer_free(struct vxt_pairer *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nobj; i++)
		obj_free(&p->obj[i]);
	free(p->obj);
	free(p->out);
	free(p);
}

void vxt_pairer_reset(struct vxt_pairer *p)
{
	for (size_t i = 0; i < p->nobj; i++) {
		obj_free(&p->obj[i]);
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
		for (uint32_t k = 0; k < p->obj[i].nblk; k++)
			for (uint32_t j = 0; j < p->obj[i].blk[k]->n; j++)
				fn(arg, &p->obj[i].blk[k]->io[j]);
}

struct pobj *vxt_pairer_obj_grow(struct vxt_pairer *p, uint32_t object)
{
	size_t old = p->nobj;

	if (vxt_grow(&p->obj, &p->nobj, (size_t)object + 1, sizeof(*p->obj)) < 0)
		return NULL;
	memset(p->obj + old, 0, (p->nobj - old) * sizeof(*p->obj));
	return &p->obj[object];
}

int vxt_pairer_block_split(struct pobj *o, uint32_t k)
{
	struct pblk *nb = malloc(sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	if (o->nblk == o->capblk) {
		/* blk[] and first[] share one capacity: it is raised once both grew */
		size_t capb = o->capblk, capf = o->capblk;

		if (vxt_grow(&o->blk, &capb, (size_t)o->nblk + 1, sizeof(*o->blk)) < 0 ||
		    vxt_grow(&o->first, &capf, (size_t)o->nblk + 1, sizeof(*o->first)) < 0) {
			free(nb);
			return -ENOMEM;
		}
		o->capblk = (uint32_t)capb;
	}
	if (!o->nblk) {		/* the first block */
		nb->n = 0;
		o->blk[0] = o->lone = nb;
		o->first[0] = 0;
		o->nblk = 1;
		return 0;
	}
	nb->n = PAIRER_BLOCK - PAIRER_BLOCK / 2;
	memcpy(nb->io, o->blk[k]->io + PAIRER_BLOCK / 2, nb->n * sizeof(*nb->io));
	o->blk[k]->n = PAIRER_BLOCK / 2;
	memmove(o->blk + k + 2, o->blk + k + 1, (o->nblk - k - 1) * sizeof(*o->blk));
	memmove(o->first + k + 2, o->first + k + 1, (o->nblk - k - 1) * sizeof(*o->first));
	o->blk[k + 1] = nb;
	o->first[k] = o->blk[k]->io[0].start;	/* (not kept while there was one block) */
	o->first[k + 1] = nb->io[0].start;
	o->nblk++;
	o->lone = NULL;
	return 0;
}

void vxt_pairer_block_drop(struct pobj *o, uint32_t k)
{
	free(o->blk[k]);
	memmove(o->blk + k, o->blk + k + 1, (o->nblk - k - 1) * sizeof(*o->blk));
	memmove(o->first + k, o->first + k + 1, (o->nblk - k - 1) * sizeof(*o->first));
	o->nblk--;
	o->lone = o->nblk == 1 ? o->blk[0] : NULL;
}

int vxt_pairer_out_grow(struct vxt_pairer *p, size_t n)
{
	return vxt_grow(&p->out, &p->outcap, n, sizeof(*p->out));
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

/* A requeue: the I/Os inside its range forget their issue; .io is the span
 * from the first of them to the last (in place within one block, else a
 * copy). */
static int on_requeue(struct vxt_pairer *p, struct pobj *o, const struct vxt_event *ev,
		      struct vxt_pstep *st)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	struct pcur c, c0 = { 0 };
	size_t span = 0, n = 0;
	struct vxt_pio *q;
	bool one = true;

	pairer_seek(o, &c, s, false);
	for (; (q = pairer_cur(&c, false)) && q->start < lim; pairer_next(o, &c, false)) {
		if (n)
			span++;
		if (q->end <= e) {
			q->t[VXT_PT_D] = NONE;
			if (!n)
				c0 = c, span = 0;
			n = span + 1;
			one = one && c.k == c0.k;
		}
	}
	if (!n)
		return 0;
	st->what = VXT_PS_MARKED;
	st->n = n;
	if (one) {
		st->io = pairer_cur(&c0, false);
		return 0;
	}
	if (pairer_out_room(p, n) < 0)
		return -ENOMEM;
	for (c = c0, span = 0; span < n; span++, pairer_next(o, &c, false))
		p->out[span] = *pairer_cur(&c, false);
	st->io = p->out;
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
		return on_requeue(p, o, ev, st);
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
