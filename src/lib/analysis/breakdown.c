/* breakdown.c - time the phases of each queued bio the pairer follows
 *
 * The matching is btt's, done by the pairer (pairer.h): getrq, insert and
 * merge find the queue whose range holds their first sector; issue and
 * completion take every pending queue inside their range; the completion
 * retires them. Each interval is counted at the event that ends it. Events
 * of size 0 (flushes) carry no sectors and are left out, and an object's
 * events before its first queue belong to I/O queued before the capture
 * began: both as btt does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/breakdown_seek.h"
#include "analysis/breakdown_tables.h"
#include "common/pairer_steps.h"
#include "vxtrace/breakdown.h"

#define NONE UINT64_MAX
/* The handlers of each event, one copy each in the loop of
 * vxt_bd_add_many() and in vxt_bd_add(): no call per event. */
#define HOT static inline __attribute__((always_inline))

_Static_assert((int)VXT_BD_U_ORDER == (int)VXT_PU_ORDER && (int)VXT_BD_U_NOQ == (int)VXT_PU_NOQ &&
	       (int)VXT_BD_U_NOD == (int)VXT_PU_NOD && (int)VXT_BD_U_MERGE == (int)VXT_PU_MERGE &&
	       (int)VXT_BD_U_DUPQ == (int)VXT_PU_DUPQ &&
	       (int)VXT_BD_U_REMAP_UNKNOWN == (int)VXT_PU_REMAP_UNKNOWN &&
	       (int)VXT_BD_U_REMAP_LOOP == (int)VXT_PU_REMAP_LOOP &&
	       (int)VXT_BD_U_FULL == (int)VXT_PU_FULL && (int)VXT_BD_U_PENDING == (int)VXT_PU_COUNT,
	       "the breakdown's unpaired kinds are the pairer's, then pending");

static const char *const iv_names[VXT_BD_IV_COUNT] = {
	"q2q", "q2g", "g2i", "q2m", "i2d", "m2d", "d2c", "q2c", "q2d",
};

const char *vxt_bd_iv_name(unsigned iv)
{
	return iv < VXT_BD_IV_COUNT ? iv_names[iv] : NULL;
}

const char *vxt_bd_unpaired_name(unsigned kind)
{
	if (kind == VXT_BD_U_PENDING)
		return "pending";
	return vxt_pu_name(kind);
}

/* ---- samples ---- */

HOT int stat_add(struct vxt_latdist *s, uint64_t v)
{
	return vxt_latdist_add(s, v);
}

/* The Q2Q from the latest queue @last to one at @t. A queue earlier than
 * the latest (out of order in the file, as a stalled CPU leaves it) is
 * counted in @ooo and not timed, and the latest stays: the next queue's
 * Q2Q is from the latest time seen, never a wrapped difference. */
HOT int q2q(struct vxt_latdist *s, uint64_t *last, uint64_t *ooo, uint64_t t)
{
	if (*last != NONE && t < *last) {
		(*ooo)++;
		return 0;
	}
	if (*last != NONE && stat_add(s, t - *last) < 0)
		return -ENOMEM;
	*last = t;
	return 0;
}

/* ---- state ---- */

void vxt_bd_init(struct vxt_breakdown *b, bool all_phases)
{
	memset(b, 0, sizeof(*b));
	b->all_phases = all_phases;
	b->last_q = NONE;
	for (unsigned k = 0; k < VXT_BD_U_COUNT; k++)
		b->unp[k].first = NONE;
}

void vxt_bd_free(struct vxt_breakdown *b)
{
	size_t i;

	vxt_bd_group_free(&b->all);
	vxt_bd_group_free(&b->kernel);
	for (i = 0; i < VXT_OP_COUNT; i++)
		vxt_bd_group_free(&b->ops[i]);
	for (i = 0; i < b->ndev; i++) {
		vxt_bd_group_free(&b->dev[i].g);
		vxt_bd_seek_free(&b->dev[i].q2q);
		vxt_bd_seek_free(&b->dev[i].d2d);
	}
	vxt_pairer_free(b->pr);
	for (i = 0; i < b->ncell; i++)
		vxt_bd_group_free(&b->cell[i].g);
	free(b->cell);
	free(b->cellix);
	for (i = 0; i < b->capproc; i++)
		if (b->proc[i].pid || b->proc[i].comm)
			vxt_bd_group_free(&b->proc[i].g);
	free(b->dev);
	free(b->proc);
	memset(b, 0, sizeof(*b));
}

static void unpaired(struct vxt_breakdown *b, enum vxt_bd_unpaired k, uint64_t ord)
{
	if (!b->unp[k].n++ || ord < b->unp[k].first)
		b->unp[k].first = ord;
}

/* The interval from @from to @to of @q's I/O on @object, counted in its cell
 * (the object, op, process and all-objects groups are sums of cells, made
 * by vxt_bd_finish()) when @keep, or an out-of-order phase. *@c caches the
 * cell over the intervals one event ends (NULL: not looked up yet). */
HOT int interval(struct vxt_breakdown *b, uint32_t object, struct vxt_pio *q,
		 struct vxt_bd_cell **c, unsigned iv, uint64_t from, uint64_t to, uint64_t ord,
		 bool keep)
{
	if (to < from) {
		unpaired(b, VXT_BD_U_ORDER, ord);
		return 0;
	}
	if (!keep)
		return 0;
	if (!*c) {
		/* an I/O's op, pid and comm never change: its tag names its
		 * cell while it stays on @object */
		*c = q->tag ? &b->cell[q->tag - 1] : NULL;
		if (!*c || (*c)->object != object) {
			*c = cell_of(b, object, q->op < VXT_OP_COUNT ? q->op : VXT_OP_OTHER, q->pid,
				     q->comm);
			if (!*c)
				return -ENOMEM;
			q->tag = (uint32_t)(*c - b->cell) + 1;
		}
	}
	return stat_add(&(*c)->g.iv[iv], to - from);
}

/* ---- phases ---- */

HOT int on_queue(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		    const struct vxt_pstep *st, uint64_t ord, bool keep)
{
	d->started = true;
	if (st->what != VXT_PS_OPENED && st->what != VXT_PS_JOINED) {
		if (st->unpaired >= 0)
			unpaired(b, (enum vxt_bd_unpaired)st->unpaired, ord);
		return 0;
	}
	if (!keep)
		return 0;
	/* Q2Q: per object, and over all objects */
	d->nq++;
	if (q2q(&d->g.iv[VXT_BD_Q2Q], &d->last_q, &d->q2q_ooo, ev->time_ns) < 0 ||
	    q2q(&b->all.iv[VXT_BD_Q2Q], &b->last_q, &b->q2q_ooo, ev->time_ns) < 0)
		return -ENOMEM;
	return seek_add(&d->q2q, ev->sector, ev->sector + (ev->bytes >> 9));
}

/* getrq, insert, merge (@k: VXT_PT_G, VXT_PT_I, VXT_PT_M): the queue
 * holding the first sector. */
HOT int on_gim(struct vxt_breakdown *b, const struct vxt_event *ev, const struct vxt_pstep *st,
	       uint64_t ord, bool keep, int k)
{
	struct vxt_pio *q = st->io;
	uint64_t t = ev->time_ns;
	unsigned iv = VXT_BD_Q2M;
	uint64_t from = q ? q->t[VXT_PT_Q] : 0;
	struct vxt_bd_cell *c = NULL;

	if (st->what != VXT_PS_MARKED) {
		unpaired(b, k == VXT_PT_M ? VXT_BD_U_MERGE : VXT_BD_U_NOQ, ord);
		return 0;
	}
	if (k == VXT_PT_G) {
		iv = VXT_BD_Q2G;
	} else if (k == VXT_PT_I) {
		if (q->t[VXT_PT_G] == NONE)
			return 0;
		iv = VXT_BD_G2I;
		from = q->t[VXT_PT_G];
	}
	return interval(b, ev->object, q, &c, iv, from, t, ord, keep);
}

HOT int on_issue(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		    const struct vxt_pstep *st, uint64_t ord, bool keep)
{
	uint64_t t = ev->time_ns;
	int rc = 0;

	if (keep) {
		d->nd++;
		rc = seek_add(&d->d2d, ev->sector, ev->sector + (ev->bytes >> 9));
	}
	if (st->what != VXT_PS_MARKED) {
		unpaired(b, VXT_BD_U_NOQ, ord);
		return rc;
	}
	for (size_t i = 0; !rc && i < st->n; i++) {
		struct vxt_pio *q = &st->io[i];
		struct vxt_bd_cell *c = NULL;

		if (q->t[VXT_PT_I] != NONE)
			rc = interval(b, ev->object, q, &c, VXT_BD_I2D, q->t[VXT_PT_I], t, ord, keep);
		else if (q->t[VXT_PT_M] != NONE)
			rc = interval(b, ev->object, q, &c, VXT_BD_M2D, q->t[VXT_PT_M], t, ord, keep);
		if (!rc)
			rc = interval(b, ev->object, q, &c, VXT_BD_Q2D, q->t[VXT_PT_Q], t, ord, keep);
	}
	return rc;
}

HOT int on_done(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		   const struct vxt_pstep *st, uint64_t ord, bool keep)
{
	uint64_t t = ev->time_ns, blk = ev->bytes >> 9;
	size_t issued = 0;
	int rc = 0;

	if (keep) {
		d->nc++;
		d->blk_min = !d->blk_n || blk < d->blk_min ? blk : d->blk_min;
		d->blk_max = blk > d->blk_max ? blk : d->blk_max;
		d->blk_n++;
		d->blk_sum += blk;
	}
	if (st->what != VXT_PS_CLOSED) {
		unpaired(b, VXT_BD_U_NOQ, ord);
		return 0;
	}
	for (size_t i = 0; i < st->n; i++) {
		struct vxt_pio *q = &st->io[i];
		struct vxt_bd_cell *c = NULL;

		if (!rc)
			rc = interval(b, ev->object, q, &c, VXT_BD_Q2C, q->t[VXT_PT_Q], t, ord, keep);
		if (!rc && q->t[VXT_PT_D] != NONE) {
			issued++;
			rc = interval(b, ev->object, q, &c, VXT_BD_D2C, q->t[VXT_PT_D], t, ord, keep);
		}
	}
	if (!issued && !(ev->flags & VXT_F_BIO))	/* a bio-based device issues nothing */
		unpaired(b, VXT_BD_U_NOD, ord);
	return rc;
}

/* A capture of issue and completion only: D2C is each completion's latency. */
static int on_done_issue_only(struct vxt_breakdown *b, struct vxt_bd_dev *d,
			      const struct vxt_event *ev, uint64_t ord, bool keep)
{
	struct vxt_bd_cell *c;

	if (!ev->latency_ns) {
		unpaired(b, VXT_BD_U_NOD, ord);
		return 0;
	}
	if (!keep)
		return 0;
	d->nc++;
	c = cell_of(b, (uint32_t)(d - b->dev), ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER,
		    ev->pid, ev->comm);
	return c ? stat_add(&c->g.iv[VXT_BD_D2C], ev->latency_ns) : -ENOMEM;
}

/* A capture of issue and completion only (vxt_bd_add()). */
HOT int add_issue_only(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal,
		       bool keep)
{
	struct vxt_bd_dev *d;

	if (ev->phase == VXT_PH_LOST || ev->phase == VXT_PH_MARK || !ev->bytes)
		return 0;
	d = dev_of(b, ev->object);
	if (!d)
		return -ENOMEM;
	if (ev->phase == VXT_PH_START) {
		if (keep) {
			d->nd++;
			return seek_add(&d->d2d, ev->sector, ev->sector + (ev->bytes >> 9));
		}
	} else if (ev->phase == VXT_PH_DONE) {
		return on_done_issue_only(b, d, ev, ordinal, keep);
	}
	return 0;
}

/* An object's first queue or remap: its I/O is followed from there on. */
static __attribute__((noinline)) int start_dev(struct vxt_breakdown *b, struct vxt_bd_dev *d)
{
	d->started = true;
	if (!b->pr && !(b->pr = vxt_pairer_new(0)))
		return -ENOMEM;
	return 0;
}

/* Each phase's event, paired and counted; each has its struct vxt_pstep to
 * itself (no address of it leaves the inline steps: it stays in registers). */
HOT int queue_ev(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		 uint64_t ordinal, bool keep)
{
	struct vxt_pstep st;
	int rc = vxt_pairer_queue(b->pr, ev, ordinal, &st);

	return rc < 0 ? rc : on_queue(b, d, ev, &st, ordinal, keep);
}

/* A getrq, insert or merge (@k: its phase time). */
HOT int gim_ev(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal, bool keep,
	       int k)
{
	struct vxt_pstep st;
	int rc = vxt_pairer_mark(b->pr, ev, ordinal, &st, k);

	return rc < 0 ? rc : on_gim(b, ev, &st, ordinal, keep, k);
}

HOT int issue_ev(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		 uint64_t ordinal, bool keep)
{
	struct vxt_pstep st;
	int rc = vxt_pairer_issue(b->pr, ev, ordinal, &st);

	return rc < 0 ? rc : on_issue(b, d, ev, &st, ordinal, keep);
}

HOT int done_ev(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		uint64_t ordinal, bool keep)
{
	struct vxt_pstep st;
	int rc = vxt_pairer_done(b->pr, ev, ordinal, &st);

	return rc < 0 ? rc : on_done(b, d, ev, &st, ordinal, keep);
}

/* Remaps, requeues, splits and the rest: the pairer's own dispatch. */
static __attribute__((noinline)) int other_ev(struct vxt_breakdown *b,
					      const struct vxt_event *ev, uint64_t ordinal)
{
	struct vxt_pstep st;
	int rc = vxt_pairer_add(b->pr, ev, ordinal, &st);

	if (rc < 0)
		return rc;
	if (ev->phase == VXT_PH_REMAP && st.unpaired >= 0)
		unpaired(b, (enum vxt_bd_unpaired)st.unpaired, ordinal);
	return 0;
}

/* A capture of every phase (vxt_bd_add()). */
HOT int add_all(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal, bool keep)
{
	struct vxt_bd_dev *d;

	if (ev->phase == VXT_PH_LOST || ev->phase == VXT_PH_MARK || !ev->bytes)
		return 0;
	d = dev_of(b, ev->object);
	if (!d)
		return -ENOMEM;
	if (__builtin_expect(!d->started, 0)) {
		if (ev->phase != VXT_PH_QUEUE && ev->phase != VXT_PH_REMAP)
			return 0;	/* I/O queued before the capture */
		if (start_dev(b, d) < 0)
			return -ENOMEM;
	}
	switch (ev->phase) {
	case VXT_PH_QUEUE:
		return queue_ev(b, d, ev, ordinal, keep);
	case VXT_PH_GETRQ:
		return gim_ev(b, ev, ordinal, keep, VXT_PT_G);
	case VXT_PH_INSERT:
		return gim_ev(b, ev, ordinal, keep, VXT_PT_I);
	case VXT_PH_MERGE:
		return gim_ev(b, ev, ordinal, keep, VXT_PT_M);
	case VXT_PH_START:
		return issue_ev(b, d, ev, ordinal, keep);
	case VXT_PH_DONE:
		return done_ev(b, d, ev, ordinal, keep);
	}
	return other_ev(b, ev, ordinal);
}

int vxt_bd_add(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal, bool keep)
{
	b->events++;
	return b->all_phases ? add_all(b, ev, ordinal, keep) : add_issue_only(b, ev, ordinal, keep);
}

int vxt_bd_add_many(struct vxt_breakdown *b, const struct vxt_event *ev, size_t n,
		    uint64_t ordinal)
{
	b->events += n;
	if (!b->all_phases) {
		for (size_t k = 0; k < n; k++)
			if (add_issue_only(b, &ev[k], ordinal + k, true) < 0)
				return -ENOMEM;
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		if (add_all(b, &ev[k], ordinal + k, true) < 0)
			return -ENOMEM;
	return 0;
}

static void pending(void *arg, const struct vxt_pio *io)
{
	unpaired(arg, VXT_BD_U_PENDING, io->ord);
}

int vxt_bd_finish(struct vxt_breakdown *b)
{
	int rc = 0;

	if (b->finished)
		return 0;
	b->finished = true;
	if (b->pr)
		vxt_pairer_each(b->pr, pending, b);
	if (vxt_bd_cells_fold(b) < 0)
		rc = -ENOMEM;
	for (size_t i = 0; i < b->ndev; i++) {
		if (vxt_bd_mode_flush(&b->dev[i].q2q) < 0 || vxt_bd_mode_flush(&b->dev[i].d2d) < 0)
			rc = -ENOMEM;
		for (unsigned iv = 0; iv < VXT_BD_IV_COUNT; iv++)
			if (iv != VXT_BD_Q2Q && vxt_latdist_merge(&b->all.iv[iv], &b->dev[i].g.iv[iv]) < 0)
				rc = -ENOMEM;
	}
	return rc;
}
