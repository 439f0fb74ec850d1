/* iopair.c - in-flight I/O table matching completions with issues
 *
 * Nodes in a pool (freed ones on a free list), found through an
 * open-addressing table of node index + 1 (vxtrace/hash.h), at most half
 * full. A new issue goes after the equal keys of its probe run, and the
 * table keeps their order as it grows and forgets, so equal keys come out
 * oldest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/hash.h"
#include "vxtrace/iopair.h"
#include "vxtrace/util.h"

#define NIL UINT32_MAX
#define FIRST_SLOTS 2048

struct node {
	uint64_t sector;
	uint32_t dev, size;
	uint32_t next;		/* on the free list */
	struct vxt_iopair_val v;
};

struct vxt_iopair {
	uint32_t *slot;		/* node index + 1, 0 = empty */
	size_t nslot;		/* power of two */
	struct node *node;
	uint32_t nnode;		/* nodes used from the array */
	size_t cap;		/* nodes allocated */
	uint32_t free;		/* free list head */
	uint32_t count;		/* live entries */
};

/* an I/O's key */
struct iokey {
	uint32_t dev, size;
	uint64_t sector;
};

static uint32_t hash(uint32_t dev, uint64_t sector, uint32_t size)
{
	uint64_t h = sector * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)dev << 32 | size) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h ^ h >> 29);
}

static bool node_is(const struct node *n, const struct iokey *k)
{
	return n->sector == k->sector && n->dev == k->dev && n->size == k->size;
}

#define SLOT_NODE(p, s) (&(p)->node[*(s) - 1])
#define SLOT_HASH(p, s) hash(SLOT_NODE(p, s)->dev, SLOT_NODE(p, s)->sector, SLOT_NODE(p, s)->size)
#define SLOT_MATCH(p, s, k) node_is(SLOT_NODE(p, s), k)
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(iotab, uint32_t, const struct vxt_iopair *, struct iokey, SLOT_HASH, SLOT_MATCH,
		SLOT_EMPTY)

struct vxt_iopair *vxt_iopair_new(void)
{
	struct vxt_iopair *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (iotab_resize(&p->slot, &p->nslot, FIRST_SLOTS, p) < 0) {
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
	free(p->slot);
	free(p->node);
	free(p);
}

static void clear(struct vxt_iopair *p)
{
	memset(p->slot, 0, p->nslot * sizeof(*p->slot));
	p->nnode = 0;
	p->free = NIL;
	p->count = 0;
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

/* Forget the entry in slot @k. */
static void forget(struct vxt_iopair *p, size_t k)
{
	uint32_t i = p->slot[k] - 1;

	iotab_remove(p->slot, p->nslot, k, p);
	p->node[i].next = p->free;
	p->free = i;
	p->count--;
}

int vxt_iopair_put(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		   const struct vxt_iopair_val *v)
{
	uint32_t i;

	if (p->count >= VXT_IOPAIR_MAX)
		clear(p);
	if (iotab_room(&p->slot, &p->nslot, p->count, FIRST_SLOTS, p) < 0)
		return -ENOMEM;
	if (alloc_node(p, &i) < 0)
		return -ENOMEM;
	p->node[i].dev = dev;
	p->node[i].sector = sector;
	p->node[i].size = size;
	p->node[i].v = *v;
	p->slot[iotab_vacant(p->slot, p->nslot, hash(dev, sector, size))] = i + 1;
	p->count++;
	return 0;
}

bool vxt_iopair_take(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		     struct vxt_iopair_val *v)
{
	const struct iokey key = { dev, size, sector };
	size_t k = iotab_seek(p->slot, p->nslot, p, &key, hash(dev, sector, size));

	if (!p->slot[k])
		return false;
	*v = p->node[p->slot[k] - 1].v;	/* the first of its run is the oldest */
	forget(p, k);
	return true;
}

uint32_t vxt_iopair_sweep(struct vxt_iopair *p,
			  bool (*keep)(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
				       const struct vxt_iopair_val *v),
			  void *arg)
{
	size_t mask = p->nslot - 1, z = 0;
	uint32_t gone = 0;

	/* from an empty slot on, along each probe run: entries forgotten move
	 * back into slots not yet passed, and none crosses the empty one */
	while (p->slot[z])
		z++;
	for (size_t j = 1; j <= p->nslot; j++) {
		size_t k = (z + j) & mask;

		while (p->slot[k]) {
			const struct node *n = &p->node[p->slot[k] - 1];

			if (keep(arg, n->dev, n->sector, n->size, &n->v))
				break;
			forget(p, k);
			gone++;
		}
	}
	return gone;
}

uint32_t vxt_iopair_count(const struct vxt_iopair *p)
{
	return p->count;
}
