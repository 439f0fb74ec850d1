/* breakdown.c - time the phases of each queued bio the pairer follows
 * Over 700 lines: one pass over the pairer's I/Os: phase handlers, cell and process tables share its per-I/O state (a split by idea is still to do).
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

#include "vxtrace/breakdown.h"
#include "common/pairer_impl.h"
#include "vxtrace/util.h"

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

static void group_free(struct vxt_bd_group *g)
{
	for (unsigned i = 0; i < VXT_BD_IV_COUNT; i++)
		vxt_latdist_free(&g->iv[i]);
}

/* ---- seeks ---- */

static size_t mode_home(uint64_t d, size_t cap)
{
	return (size_t)((d * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The slot of @d, or the empty slot where it would go. */
static struct vxt_bd_mode *mode_slot(struct vxt_bd_mode *t, size_t cap, uint64_t d)
{
	size_t i;

	for (i = mode_home(d, cap); t[i].count && t[i].key != d; i = (i + 1) & (cap - 1))
		;
	return &t[i];
}

/* A full table takes no more values: two bits of one word per value (a
 * blocked Bloom filter of 2^MODE_BITS_LG bits, half a MiB) turn most
 * absent ones away without reaching the table. */
#define MODE_BITS_LG 22

static size_t mode_word(uint64_t d)
{
	return (size_t)((d * 0xc2b2ae3d27d4eb4full) >> (64 - MODE_BITS_LG + 6));
}

static uint64_t mode_mask(uint64_t d)
{
	uint64_t h = d * 0x165667b19e3779f9ull;

	return 1ull << (h >> 58) | 1ull << (h >> 52 & 63);
}

static int mode_bits(struct vxt_bd_seek *s)
{
	s->mbits = calloc((size_t)1 << (MODE_BITS_LG - 6), sizeof(*s->mbits));
	if (!s->mbits)
		return -ENOMEM;
	for (size_t j = 0; j < s->mcap; j++)
		if (s->mtab[j].count)
			s->mbits[mode_word(s->mtab[j].key)] |= mode_mask(s->mtab[j].key);
	return 0;
}

/* Count @d in the full table when it holds it. */
static inline void mode_probe(struct vxt_bd_seek *s, uint64_t d)
{
	struct vxt_bd_mode *e = mode_slot(s->mtab, s->mcap, d);

	if (e->count)
		e->count++;
	else
		s->mode_full = true;
}

/* @d passed the full table's filter: probe its slot once VXT_BD_LATE more
 * did, fetched now (the table is megabytes; a full table is counted in any
 * order with the same counts). */
HOT void mode_late(struct vxt_bd_seek *s, uint64_t d)
{
	unsigned k = s->late_at;

	if (s->nlate == VXT_BD_LATE)
		mode_probe(s, s->late[k]);
	else
		s->nlate++;
	__builtin_prefetch(&s->mtab[mode_home(d, s->mcap)], 1);
	s->late[k] = d;
	s->late_at = (k + 1) % VXT_BD_LATE;
}

/* Count @d against the full table (its filter built): the values already
 * there are still counted, any other is turned away. */
HOT void mode_count_full(struct vxt_bd_seek *s, uint64_t d)
{
	uint64_t m = mode_mask(d);

	if ((s->mbits[mode_word(d)] & m) != m)
		s->mode_full = true;
	else
		mode_late(s, d);
}

/* Count @d in a table with room for it. */
HOT void mode_insert(struct vxt_bd_seek *s, uint64_t d)
{
	struct vxt_bd_mode *e = mode_slot(s->mtab, s->mcap, d);

	if (!e->count) {
		e->key = d;
		s->mlen++;
	}
	e->count++;
}

/* mode_count() when the table must grow first, or becomes full. */
static __attribute__((noinline)) int mode_count_slow(struct vxt_bd_seek *s, uint64_t d)
{
	size_t cap;
	struct vxt_bd_mode *t;

	if (s->mlen >= VXT_BD_MODE_MAX) {
		if (mode_bits(s) < 0)
			return -ENOMEM;
		mode_count_full(s, d);
		return 0;
	}
	cap = s->mcap ? 2 * s->mcap : 1024;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t j = 0; j < s->mcap; j++)
		if (s->mtab[j].count)
			*mode_slot(t, cap, s->mtab[j].key) = s->mtab[j];
	free(s->mtab);
	s->mtab = t;
	s->mcap = cap;
	mode_insert(s, d);
	return 0;
}

/* Count @d: a filtered full table, or a slot of one with room, inline. */
HOT int mode_count(struct vxt_bd_seek *s, uint64_t d)
{
	if (s->mbits) {		/* full: the table never grows again */
		mode_count_full(s, d);
		return 0;
	}
	if (__builtin_expect(2 * (s->mlen + 1) > s->mcap, 0))
		return mode_count_slow(s, d);
	mode_insert(s, d);
	return 0;
}

/* Count the pending distances, oldest first, then the late ones. */
static int mode_flush(struct vxt_bd_seek *s)
{
	int rc = 0;

	for (; s->npend && !rc; s->npend--)
		rc = mode_count(s, s->pend[(s->pend_at - s->npend) % VXT_BD_PEND]);
	for (; s->nlate; s->nlate--)
		mode_probe(s, s->late[(s->late_at - s->nlate) % VXT_BD_LATE]);
	return rc;
}

/* Count @d once the VXT_BD_PEND distances before it are: its slot, or
 * once the table is full the word of its filter (half a MiB: out of the
 * first-level caches), is fetched now and read later, so the cache misses
 * overlap the work between. The ring's next slot (pend_at) holds the
 * oldest once it is full. */
HOT int mode_add(struct vxt_bd_seek *s, uint64_t d)
{
	unsigned k = s->pend_at;
	int rc = 0;

	if (s->npend == VXT_BD_PEND)
		rc = mode_count(s, s->pend[k]);
	else
		s->npend++;
	if (s->mbits)
		__builtin_prefetch(&s->mbits[mode_word(d)]);
	else if (s->mcap)
		__builtin_prefetch(&s->mtab[mode_home(d, s->mcap)], 1);
	s->pend[k] = d;
	s->pend_at = (k + 1) % VXT_BD_PEND;
	return rc;
}

void vxt_bd_seek_mode(const struct vxt_bd_seek *s, uint64_t *value, uint64_t *count)
{
	*value = 0;
	*count = 0;
	for (size_t i = 0; i < s->mcap; i++) {
		const struct vxt_bd_mode *e = &s->mtab[i];

		if (e->count > *count || (e->count && e->count == *count && e->key < *value)) {
			*value = e->key;
			*count = e->count;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ceil(n/2)-th smallest distance: the distribution of every distance
 * names its bucket; the exact counts of the distances in that bucket alone
 * are sorted and walked. */
uint64_t vxt_bd_seek_median(const struct vxt_bd_seek *s)
{
	const struct vxt_latdist *d = &s->dist;
	uint64_t *keys, seen = 0, rank = (s->n + 1) / 2, v = 0;
	size_t i, n = 0;
	uint32_t k;

	if (s->mode_full || !s->mlen || !d->b)
		return vxt_latdist_quantile(d, 0.5);
	for (k = 0; k < d->nb && seen + d->b[k] < rank; k++)
		seen += d->b[k];
	if (k == d->nb)
		return d->max;
	keys = malloc((d->b[k] < s->mlen ? d->b[k] : s->mlen) * sizeof(*keys));
	if (!keys)
		return vxt_latdist_quantile(d, 0.5);
	for (i = 0; i < s->mcap; i++)
		if (s->mtab[i].count && vxt_latdist_bucket(s->mtab[i].key) == d->blo + k)
			keys[n++] = s->mtab[i].key;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i++) {
		seen += mode_slot(s->mtab, s->mcap, keys[i])->count;
		v = keys[i];
		if (seen >= rank)
			break;
	}
	free(keys);
	return v;
}

/* btt's distance: 0 when the I/O overlaps or follows the previous one,
 * else from the previous end (forward) or start (backward). */
HOT int seek_add(struct vxt_bd_seek *s, uint64_t start, uint64_t end)
{
	uint64_t a = 0;

	if (!((s->last_start <= start && start <= s->last_end) ||
	      (s->last_start <= end && end <= s->last_end))) {
		a = start - (start > s->last_end ? s->last_end : s->last_start);
		a = (int64_t)a < 0 ? -a : a;
	}
	s->last_start = start;
	s->last_end = end;
	s->n++;
	s->total += (double)a;
	if (stat_add(&s->dist, a) < 0)
		return -ENOMEM;
	return mode_add(s, a);
}

static void seek_free(struct vxt_bd_seek *s)
{
	vxt_latdist_free(&s->dist);
	free(s->mtab);
	free(s->mbits);
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

	group_free(&b->all);
	group_free(&b->kernel);
	for (i = 0; i < VXT_OP_COUNT; i++)
		group_free(&b->ops[i]);
	for (i = 0; i < b->ndev; i++) {
		group_free(&b->dev[i].g);
		seek_free(&b->dev[i].q2q);
		seek_free(&b->dev[i].d2d);
	}
	vxt_pairer_free(b->pr);
	for (i = 0; i < b->ncell; i++)
		group_free(&b->cell[i].g);
	free(b->cell);
	free(b->cellix);
	for (i = 0; i < b->capproc; i++)
		if (b->proc[i].pid || b->proc[i].comm)
			group_free(&b->proc[i].g);
	free(b->dev);
	free(b->proc);
	memset(b, 0, sizeof(*b));
}

static __attribute__((noinline)) struct vxt_bd_dev *dev_grow(struct vxt_breakdown *b,
								uint32_t object)
{
	size_t n = b->ndev ? b->ndev : 8;
	struct vxt_bd_dev *d;

	while (n <= object)
		n *= 2;
	d = realloc(b->dev, n * sizeof(*d));
	if (!d)
		return NULL;
	memset(d + b->ndev, 0, (n - b->ndev) * sizeof(*d));
	for (size_t i = b->ndev; i < n; i++)
		d[i].last_q = NONE;
	b->dev = d;
	b->ndev = n;
	b->dev[object].used = true;
	return &b->dev[object];
}

static inline struct vxt_bd_dev *dev_of(struct vxt_breakdown *b, uint32_t object)
{
	if (__builtin_expect(object >= b->ndev, 0))
		return dev_grow(b, object);
	b->dev[object].used = true;
	return &b->dev[object];
}

static uint64_t proc_hash(uint32_t pid, uint32_t comm)
{
	return ((uint64_t)pid << 32 | comm) * 0x9e3779b97f4a7c15ull >> 20;
}

static struct vxt_bd_group *proc_of(struct vxt_breakdown *b, uint32_t pid, uint32_t comm)
{
	size_t i;

	if (b->last_proc && b->last_pid == pid && b->last_comm == comm)
		return b->last_proc;
	if (!pid && !comm) {
		b->kernel_used = true;
		return &b->kernel;
	}
	if (2 * (b->nproc + 1) > b->capproc) {
		size_t cap = b->capproc ? 2 * b->capproc : 64, j;
		struct vxt_bd_proc *old = b->proc, *p = calloc(cap, sizeof(*p));

		if (!p)
			return NULL;
		for (j = 0; j < b->capproc; j++) {
			if (!old[j].pid && !old[j].comm)
				continue;
			for (i = proc_hash(old[j].pid, old[j].comm) & (cap - 1);
			     p[i].pid || p[i].comm; i = (i + 1) & (cap - 1))
				;
			p[i] = old[j];
		}
		free(old);
		b->proc = p;
		b->capproc = cap;
	}
	for (i = proc_hash(pid, comm) & (b->capproc - 1); b->proc[i].pid || b->proc[i].comm;
	     i = (i + 1) & (b->capproc - 1))
		if (b->proc[i].pid == pid && b->proc[i].comm == comm)
			break;
	if (!b->proc[i].pid && !b->proc[i].comm) {
		b->proc[i].pid = pid;
		b->proc[i].comm = comm;
		b->nproc++;
	}
	/* the table only moves when it grows, and that passes through here */
	b->last_pid = pid;
	b->last_comm = comm;
	b->last_proc = &b->proc[i].g;
	return b->last_proc;
}

const struct vxt_bd_group *vxt_bd_process(const struct vxt_breakdown *b, uint32_t pid,
					  uint32_t comm)
{
	size_t i;

	if (!pid && !comm)
		return b->kernel_used ? &b->kernel : NULL;
	if (!b->capproc)
		return NULL;
	for (i = proc_hash(pid, comm) & (b->capproc - 1); b->proc[i].pid || b->proc[i].comm;
	     i = (i + 1) & (b->capproc - 1))
		if (b->proc[i].pid == pid && b->proc[i].comm == comm)
			return &b->proc[i].g;
	return NULL;
}

static void unpaired(struct vxt_breakdown *b, enum vxt_bd_unpaired k, uint64_t ord)
{
	if (!b->unp[k].n++ || ord < b->unp[k].first)
		b->unp[k].first = ord;
}

static uint64_t cell_hash(uint32_t object, uint8_t op, uint32_t pid, uint32_t comm)
{
	uint64_t k = ((uint64_t)pid << 32 | comm) ^ ((uint64_t)object << 8 | op) * 0xff51afd7ed558ccdull;

	return k * 0x9e3779b97f4a7c15ull >> 20;
}

/* The slot of cellix[] holding (@object, @op, @pid, @comm), or the empty
 * one where it would go. */
static uint32_t *cell_ix_slot(const struct vxt_breakdown *b, uint32_t *t, size_t cap,
			      uint32_t object, uint8_t op, uint32_t pid, uint32_t comm)
{
	size_t i;

	for (i = cell_hash(object, op, pid, comm) & (cap - 1); t[i]; i = (i + 1) & (cap - 1)) {
		const struct vxt_bd_cell *c = &b->cell[t[i] - 1];

		if (c->object == object && c->op == op && c->pid == pid && c->comm == comm)
			break;
	}
	return &t[i];
}

/* Room for one more cell: cell[] (moved: last_cell[] forgets) and its
 * index (rebuilt when it grows). */
static int cell_room(struct vxt_breakdown *b)
{
	if (b->ncell == b->capcell) {
		if (vxt_grow(&b->cell, &b->capcell, b->ncell + 1, sizeof(*b->cell)) < 0)
			return -ENOMEM;
		memset(b->last_cell, 0, sizeof(b->last_cell));
	}
	if (2 * (b->ncell + 1) > b->capix) {
		size_t cap = b->capix ? 2 * b->capix : 64;
		uint32_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t j = 0; j < b->ncell; j++) {
			const struct vxt_bd_cell *c = &b->cell[j];

			*cell_ix_slot(b, t, cap, c->object, c->op, c->pid, c->comm) = (uint32_t)j + 1;
		}
		free(b->cellix);
		b->cellix = t;
		b->capix = cap;
	}
	return 0;
}

/* The cell of (@object, @op, @pid, @comm), made at its first interval: the
 * process group is made then too, so processes keep the order of their
 * first interval. */
static __attribute__((noinline)) struct vxt_bd_cell *
cell_find(struct vxt_breakdown *b, uint32_t object, uint8_t op, uint32_t pid, uint32_t comm)
{
	struct vxt_bd_cell *c;
	uint32_t *ix;

	if (cell_room(b) < 0)
		return NULL;
	ix = cell_ix_slot(b, b->cellix, b->capix, object, op, pid, comm);
	if (!*ix) {
		if (!proc_of(b, pid, comm))
			return NULL;
		c = &b->cell[b->ncell];
		memset(c, 0, sizeof(*c));
		c->object = object;
		c->op = op;
		c->pid = pid;
		c->comm = comm;
		*ix = (uint32_t)++b->ncell;
	}
	c = &b->cell[*ix - 1];
	b->last_cell[op] = c;
	return c;
}

/* cell_find(), the cell of @op found last first (reads and writes
 * interleave: one cache each keeps both hitting) */
static inline struct vxt_bd_cell *cell_of(struct vxt_breakdown *b, uint32_t object, uint8_t op,
					  uint32_t pid, uint32_t comm)
{
	struct vxt_bd_cell *c = b->last_cell[op];

	if (c && c->object == object && c->pid == pid && c->comm == comm)
		return c;
	return cell_find(b, object, op, pid, comm);
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

/* The pairer's I/Os of @ev's object, and *@st made ready for the step of
 * its phase (pairer_impl.h) that vxt_pairer_add() would take. */
HOT struct pobj *pair_begin(struct vxt_pairer *p, const struct vxt_event *ev,
			    struct vxt_pstep *st)
{
	pairer_step(st);
	return pairer_obj(p, ev->object);
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
	struct pobj *o;
	int rc;

	if (!(o = pair_begin(b->pr, ev, &st)))
		return -ENOMEM;
	rc = pairer_on_queue(b->pr, o, ev, ordinal, &st);
	return rc < 0 ? rc : on_queue(b, d, ev, &st, ordinal, keep);
}

/* A getrq, insert or merge (@k: its phase time). */
HOT int gim_ev(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal, bool keep,
	       int k)
{
	struct vxt_pstep st;
	struct pobj *o;
	int rc;

	if (!(o = pair_begin(b->pr, ev, &st)))
		return -ENOMEM;
	rc = pairer_on_phase(b->pr, o, ev, ordinal, &st, k);
	return rc < 0 ? rc : on_gim(b, ev, &st, ordinal, keep, k);
}

HOT int issue_ev(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		 uint64_t ordinal, bool keep)
{
	struct vxt_pstep st;
	struct pobj *o;
	int rc;

	if (!(o = pair_begin(b->pr, ev, &st)))
		return -ENOMEM;
	rc = pairer_on_issue(b->pr, o, ev, ordinal, &st);
	return rc < 0 ? rc : on_issue(b, d, ev, &st, ordinal, keep);
}

HOT int done_ev(struct vxt_breakdown *b, struct vxt_bd_dev *d, const struct vxt_event *ev,
		uint64_t ordinal, bool keep)
{
	struct vxt_pstep st;
	struct pobj *o;
	int rc;

	if (!(o = pair_begin(b->pr, ev, &st)))
		return -ENOMEM;
	rc = pairer_on_done(b->pr, o, ev, &st);
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

/* Add @from into @to; when @to is empty and @take, @from's buckets move
 * there instead of being copied. */
static int stat_fold(struct vxt_latdist *to, struct vxt_latdist *from, bool take)
{
	if (take && !to->count && !to->b) {
		*to = *from;
		from->b = NULL;
		return 0;
	}
	return vxt_latdist_merge(to, from);
}

/* Add the cells into the object, op and process groups. */
static int cells_fold(struct vxt_breakdown *b)
{
	for (size_t i = 0; i < b->ncell; i++) {
		struct vxt_bd_cell *c = &b->cell[i];
		struct vxt_bd_group *p;

		p = proc_of(b, c->pid, c->comm);
		if (!p)
			return -ENOMEM;
		for (unsigned iv = 0; iv < VXT_BD_IV_COUNT; iv++) {
			struct vxt_latdist *s = &c->g.iv[iv];

			if (!s->count)
				continue;
			if (vxt_latdist_merge(&b->dev[c->object].g.iv[iv], s) < 0 ||
			    vxt_latdist_merge(&b->ops[c->op].iv[iv], s) < 0 ||
			    stat_fold(&p->iv[iv], s, true) < 0)
				return -ENOMEM;
		}
		group_free(&c->g);
		memset(&c->g, 0, sizeof(c->g));
	}
	return 0;
}

int vxt_bd_finish(struct vxt_breakdown *b)
{
	int rc = 0;

	if (b->finished)
		return 0;
	b->finished = true;
	if (b->pr)
		vxt_pairer_each(b->pr, pending, b);
	if (cells_fold(b) < 0)
		rc = -ENOMEM;
	for (size_t i = 0; i < b->ndev; i++) {
		if (mode_flush(&b->dev[i].q2q) < 0 || mode_flush(&b->dev[i].d2d) < 0)
			rc = -ENOMEM;
		for (unsigned iv = 0; iv < VXT_BD_IV_COUNT; iv++)
			if (iv != VXT_BD_Q2Q && vxt_latdist_merge(&b->all.iv[iv], &b->dev[i].g.iv[iv]) < 0)
				rc = -ENOMEM;
	}
	return rc;
}
