/* phasepair.c - follow each I/O from its queue to its completion, in one
 * pass, for the interval fields of filters and scripts (phasepair.h)
 *
 * Open I/Os live in a node pool, chained per hash bucket of (object, first
 * sector); a chain is kept oldest first, so "the oldest open I/O at this
 * sector lacking phase X" is the first such node of its chain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/phasepair.h"

#define NONE UINT64_MAX
#define NIL UINT32_MAX

enum { T_Q, T_G, T_I, T_D, T_N };

struct node {
	uint32_t object, next;		/* next: in the bucket chain or the free list */
	uint64_t sector;
	uint64_t t[T_N];		/* phase times; NONE = not seen */
};

struct vxt_phasepair {
	uint32_t *bucket;		/* heads; NIL = empty */
	uint32_t nbucket;		/* a power of two */
	struct node *node;
	uint32_t nnode, capnode, free, open;
};

static const char *const names[VXT_IV_COUNT] = { "q2d", "d2c", "q2c", "q2g", "g2i", "i2d" };

const char *vxt_iv_name(unsigned iv)
{
	return iv < VXT_IV_COUNT ? names[iv] : NULL;
}

void vxt_ivals_unset(struct vxt_ivals *iv)
{
	for (unsigned i = 0; i < VXT_IV_COUNT; i++)
		iv->v[i] = VXT_IV_UNSET;
}

static uint32_t hash(const struct vxt_phasepair *p, uint32_t object, uint64_t sector)
{
	uint64_t h = (sector ^ (uint64_t)object << 48) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (p->nbucket - 1);
}

struct vxt_phasepair *vxt_phasepair_new(void)
{
	struct vxt_phasepair *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->nbucket = 1u << 12;
	p->bucket = malloc(p->nbucket * sizeof(*p->bucket));
	if (!p->bucket) {
		free(p);
		return NULL;
	}
	vxt_phasepair_reset(p);
	return p;
}

void vxt_phasepair_free(struct vxt_phasepair *p)
{
	if (!p)
		return;
	free(p->bucket);
	free(p->node);
	free(p);
}

void vxt_phasepair_reset(struct vxt_phasepair *p)
{
	memset(p->bucket, 0xff, p->nbucket * sizeof(*p->bucket));
	p->nnode = 0;
	p->free = NIL;
	p->open = 0;
}

uint32_t vxt_phasepair_open(const struct vxt_phasepair *p)
{
	return p->open;
}

/* Double the buckets, keeping each chain's order. */
static int grow(struct vxt_phasepair *p)
{
	uint32_t n = p->nbucket * 2, *b = malloc(n * sizeof(*b)), *tail, i, k, next;

	if (!b)
		return -ENOMEM;
	tail = malloc(n * sizeof(*tail));
	if (!tail) {
		free(b);
		return -ENOMEM;
	}
	memset(b, 0xff, n * sizeof(*b));
	for (i = 0; i < p->nbucket; i++)
		for (k = p->bucket[i]; k != NIL; k = next) {
			uint32_t h;

			next = p->node[k].next;
			p->nbucket = n;
			h = hash(p, p->node[k].object, p->node[k].sector);
			p->nbucket = n / 2;
			p->node[k].next = NIL;
			if (b[h] == NIL)
				b[h] = k;
			else
				p->node[tail[h]].next = k;
			tail[h] = k;
		}
	free(tail);
	free(p->bucket);
	p->bucket = b;
	p->nbucket = n;
	return 0;
}

/* A new open I/O at the end of its chain. @return its index or NIL. */
static uint32_t open_io(struct vxt_phasepair *p, uint32_t object, uint64_t sector)
{
	uint32_t k, *link;

	if (p->open >= VXT_PHASEPAIR_MAX)
		vxt_phasepair_reset(p);
	if (p->open >= 2 * p->nbucket && grow(p) < 0)
		return NIL;
	if (p->free != NIL) {
		k = p->free;
		p->free = p->node[k].next;
	} else {
		if (p->nnode == p->capnode) {
			uint32_t cap = p->capnode ? 2 * p->capnode : 1024;
			struct node *nd = realloc(p->node, cap * sizeof(*nd));

			if (!nd)
				return NIL;
			p->node = nd;
			p->capnode = cap;
		}
		k = p->nnode++;
	}
	p->node[k] = (struct node){ object, NIL, sector, { NONE, NONE, NONE, NONE } };
	for (link = &p->bucket[hash(p, object, sector)]; *link != NIL; link = &p->node[*link].next)
		;
	*link = k;
	p->open++;
	return k;
}

/* The link to the first open I/O at (object, sector) whose phase @lack is
 * unseen (T_N: any), or NULL. */
static uint32_t *find(struct vxt_phasepair *p, uint32_t object, uint64_t sector, int lack)
{
	uint32_t *link;

	for (link = &p->bucket[hash(p, object, sector)]; *link != NIL; link = &p->node[*link].next) {
		const struct node *n = &p->node[*link];

		if (n->object == object && n->sector == sector && (lack == T_N || n->t[lack] == NONE))
			return link;
	}
	return NULL;
}

static void close_io(struct vxt_phasepair *p, uint32_t *link)
{
	uint32_t k = *link;

	*link = p->node[k].next;
	p->node[k].next = p->free;
	p->free = k;
	p->open--;
}

static uint64_t span(uint64_t from, uint64_t to)
{
	return from == NONE || to == NONE || to < from ? VXT_IV_UNSET : to - from;
}

/* A merge of the bio queued at @ev's sector: it joins a request and has no
 * I/O of its own any more. A request not yet issued that starts where the
 * bio ends (a front merge) now starts at the bio's sector. */
static int on_merge(struct vxt_phasepair *p, const struct vxt_event *ev)
{
	uint32_t *link = find(p, ev->object, ev->sector, T_G), k;
	uint64_t t[T_N];

	if (link && p->node[*link].t[T_I] == NONE && p->node[*link].t[T_D] == NONE)
		close_io(p, link);
	if (!ev->bytes)
		return 0;
	link = find(p, ev->object, ev->sector + (ev->bytes >> 9), T_D);
	if (!link)
		return 0;
	memcpy(t, p->node[*link].t, sizeof(t));
	close_io(p, link);
	k = open_io(p, ev->object, ev->sector);
	if (k == NIL)
		return -ENOMEM;
	memcpy(p->node[k].t, t, sizeof(t));
	return 0;
}

int vxt_phasepair_add(struct vxt_phasepair *p, const struct vxt_event *ev,
		      struct vxt_ivals *out)
{
	uint32_t *link, k;
	struct node n;

	vxt_ivals_unset(out);
	switch (ev->phase) {
	case VXT_PH_QUEUE:
		k = open_io(p, ev->object, ev->sector);
		if (k == NIL)
			return -ENOMEM;
		p->node[k].t[T_Q] = ev->time_ns;
		return 0;
	case VXT_PH_GETRQ:
	case VXT_PH_INSERT:
	case VXT_PH_START: {
		int ph = ev->phase == VXT_PH_GETRQ ? T_G : ev->phase == VXT_PH_INSERT ? T_I : T_D;

		link = find(p, ev->object, ev->sector, ph);
		if (!link) {	/* its queue was not seen: from this phase on */
			k = open_io(p, ev->object, ev->sector);
			if (k == NIL)
				return -ENOMEM;
		} else {
			k = *link;
		}
		p->node[k].t[ph] = ev->time_ns;
		return 0;
	}
	case VXT_PH_REQUEUE:
		for (link = &p->bucket[hash(p, ev->object, ev->sector)]; *link != NIL;
		     link = &p->node[*link].next)
			if (p->node[*link].object == ev->object &&
			    p->node[*link].sector == ev->sector && p->node[*link].t[T_D] != NONE) {
				p->node[*link].t[T_D] = NONE;
				break;
			}
		return 0;
	case VXT_PH_MERGE:
		return on_merge(p, ev);
	case VXT_PH_SPLIT:
		link = find(p, ev->object, ev->sector, T_D);
		if (!link || !ev->bytes)
			return 0;
		n = p->node[*link];
		k = open_io(p, ev->object, ev->sector + (ev->bytes >> 9));
		if (k == NIL)
			return -ENOMEM;
		p->node[k].t[T_Q] = n.t[T_Q];
		return 0;
	case VXT_PH_DONE:
		break;
	default:
		return 0;
	}
	/* a completion: the oldest issued I/O at its sector, else the oldest */
	for (link = &p->bucket[hash(p, ev->object, ev->sector)]; *link != NIL;
	     link = &p->node[*link].next)
		if (p->node[*link].object == ev->object && p->node[*link].sector == ev->sector &&
		    p->node[*link].t[T_D] != NONE)
			break;
	if (*link == NIL)
		link = find(p, ev->object, ev->sector, T_N);
	if (!link) {
		if (ev->latency_ns)
			out->v[VXT_IV_D2C] = ev->latency_ns;
		return 0;
	}
	n = p->node[*link];
	close_io(p, link);
	out->v[VXT_IV_Q2D] = span(n.t[T_Q], n.t[T_D]);
	out->v[VXT_IV_D2C] = span(n.t[T_D], ev->time_ns);
	out->v[VXT_IV_Q2C] = span(n.t[T_Q], ev->time_ns);
	out->v[VXT_IV_Q2G] = span(n.t[T_Q], n.t[T_G]);
	out->v[VXT_IV_G2I] = span(n.t[T_G], n.t[T_I]);
	out->v[VXT_IV_I2D] = span(n.t[T_I], n.t[T_D]);
	if (out->v[VXT_IV_D2C] == VXT_IV_UNSET && n.t[T_D] == NONE && ev->latency_ns)
		out->v[VXT_IV_D2C] = ev->latency_ns;
	return 0;
}
