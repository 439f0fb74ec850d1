/* iopair.c - in-flight I/O table matching completions with issues
 *
 * A chained hash table over a node pool: nodes are indices into one array,
 * freed nodes go to a free list, buckets double when the load passes 1.
 * New entries go to the tail of their chain so equal keys come out oldest
 * first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/iopair.h"
#include "vxtrace/util.h"

#define NIL UINT32_MAX

struct node {
	uint64_t sector;
	uint32_t dev, size;
	uint32_t next;
	struct vxt_iopair_val v;
};

struct vxt_iopair {
	uint32_t *bucket;	/* head index per bucket */
	uint32_t nbucket;	/* power of two */
	struct node *node;
	uint32_t nnode;		/* nodes used from the array */
	size_t cap;		/* nodes allocated */
	uint32_t free;		/* free list head */
	uint32_t count;		/* live entries */
};

static uint32_t hash(uint32_t dev, uint64_t sector, uint32_t size)
{
	uint64_t h = sector * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)dev << 32 | size) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h ^ h >> 29);
}

static int set_buckets(struct vxt_iopair *p, uint32_t n)
{
	uint32_t *b = malloc(n * sizeof(*b));

	if (!b)
		return -ENOMEM;
	memset(b, 0xff, n * sizeof(*b));
	free(p->bucket);
	p->bucket = b;
	p->nbucket = n;
	return 0;
}

struct vxt_iopair *vxt_iopair_new(void)
{
	struct vxt_iopair *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (set_buckets(p, 1024) < 0) {
		free(p);
		return NULL;
	}
	p->free = NIL;
	return p;
}

void vxt_iopair_free(struct vxt_iopair *p)
{
	if (!p)
		return;
	free(p->bucket);
	free(p->node);
	free(p);
}

static void clear(struct vxt_iopair *p)
{
	memset(p->bucket, 0xff, p->nbucket * sizeof(*p->bucket));
	p->nnode = 0;
	p->free = NIL;
	p->count = 0;
}

/* Link node @i at the tail of its chain. */
static void link_tail(struct vxt_iopair *p, uint32_t i)
{
	struct node *n = &p->node[i];
	uint32_t *slot = &p->bucket[hash(n->dev, n->sector, n->size) & (p->nbucket - 1)];

	while (*slot != NIL)
		slot = &p->node[*slot].next;
	n->next = NIL;
	*slot = i;
}

static int grow(struct vxt_iopair *p)
{
	uint32_t i, j, nb = p->nbucket * 2;
	struct vxt_iopair tmp;

	tmp = *p;
	tmp.bucket = NULL;
	if (set_buckets(&tmp, nb) < 0)
		return -ENOMEM;
	/* relink every live node: walk the old chains in order to keep age order */
	for (i = 0; i < p->nbucket; i++)
		for (j = p->bucket[i]; j != NIL;) {
			uint32_t next = p->node[j].next;

			link_tail(&tmp, j);
			j = next;
		}
	free(p->bucket);
	p->bucket = tmp.bucket;
	p->nbucket = nb;
	return 0;
}

static int alloc_node(struct vxt_iopair *p, uint32_t *out)
{
	if (p->free != NIL) {
		*out = p->free;
		p->free = p->node[*out].next;
		return 0;
	}
	if (p->nnode == p->cap &&
	    vxt_grow(&p->node, &p->cap, (size_t)p->nnode + 1, sizeof(*p->node)) < 0)
		return -ENOMEM;
	*out = p->nnode++;
	return 0;
}

int vxt_iopair_put(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		   const struct vxt_iopair_val *v)
{
	uint32_t i;

	if (p->count >= VXT_IOPAIR_MAX)
		clear(p);
	if (p->count >= p->nbucket && grow(p) < 0)
		return -ENOMEM;
	if (alloc_node(p, &i) < 0)
		return -ENOMEM;
	p->node[i].dev = dev;
	p->node[i].sector = sector;
	p->node[i].size = size;
	p->node[i].v = *v;
	link_tail(p, i);
	p->count++;
	return 0;
}

bool vxt_iopair_take(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		     struct vxt_iopair_val *v)
{
	uint32_t *slot = &p->bucket[hash(dev, sector, size) & (p->nbucket - 1)];
	struct node *n;

	while (*slot != NIL) {
		n = &p->node[*slot];
		if (n->sector == sector && n->dev == dev && n->size == size) {
			uint32_t i = *slot;

			*v = n->v;
			*slot = n->next;
			n->next = p->free;
			p->free = i;
			p->count--;
			return true;
		}
		slot = &n->next;
	}
	return false;
}

uint32_t vxt_iopair_sweep(struct vxt_iopair *p,
			  bool (*keep)(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
				       const struct vxt_iopair_val *v),
			  void *arg)
{
	uint32_t b, gone = 0;

	for (b = 0; b < p->nbucket; b++) {
		uint32_t *slot = &p->bucket[b];

		while (*slot != NIL) {
			uint32_t i = *slot;
			struct node *n = &p->node[i];

			if (keep(arg, n->dev, n->sector, n->size, &n->v)) {
				slot = &n->next;
				continue;
			}
			*slot = n->next;
			n->next = p->free;
			p->free = i;
			p->count--;
			gone++;
		}
	}
	return gone;
}

uint32_t vxt_iopair_count(const struct vxt_iopair *p)
{
	return p->count;
}
