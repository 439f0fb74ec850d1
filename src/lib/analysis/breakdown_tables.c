/* breakdown_tables.c - the breakdown's device, process and cell tables
 *
 * Devices by object id; processes and cells in hash.h's tables (a cell's
 * index, cellix[], holds its place in cell[] plus one, 0 empty),
 * each found last kept to skip the lookup. At the end the cells are folded
 * into the device, op and process groups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/breakdown_tables.h"
#include "vxtrace/hash.h"
#include "vxtrace/util.h"

#define NONE UINT64_MAX

void vxt_bd_group_free(struct vxt_bd_group *g)
{
	for (unsigned i = 0; i < VXT_BD_IV_COUNT; i++)
		vxt_latdist_free(&g->iv[i]);
}

__attribute__((noinline)) struct vxt_bd_dev *vxt_bd_dev_grow(struct vxt_breakdown *b,
							     uint32_t object)
{
	size_t old = b->ndev;

	if (vxt_grow(&b->dev, &b->ndev, (size_t)object + 1, sizeof(*b->dev)) < 0)
		return NULL;
	memset(b->dev + old, 0, (b->ndev - old) * sizeof(*b->dev));
	for (size_t i = old; i < b->ndev; i++)
		b->dev[i].last_q = NONE;
	b->dev[object].used = true;
	return &b->dev[object];
}

/* The process table: a slot is the process, keyed by pid << 32 | comm. */
static size_t proc_hash(uint64_t key)
{
	return (size_t)(key * 0x9e3779b97f4a7c15ull >> 20);
}

static inline uint64_t proc_key(const struct vxt_bd_proc *p)
{
	return (uint64_t)p->pid << 32 | p->comm;
}

#define PROC_HASH(ctx, s) proc_hash(proc_key(s))
#define PROC_MATCH(ctx, s, k) (proc_key(s) == *(k))
#define PROC_EMPTY(s) (!(s)->pid && !(s)->comm)
VXT_HASH_DEFINE(proctab, struct vxt_bd_proc, const void *, uint64_t, PROC_HASH, PROC_MATCH,
		PROC_EMPTY)

static struct vxt_bd_group *proc_of(struct vxt_breakdown *b, uint32_t pid, uint32_t comm)
{
	uint64_t key = (uint64_t)pid << 32 | comm;
	struct vxt_bd_proc *p;

	if (b->last_proc && b->last_pid == pid && b->last_comm == comm)
		return b->last_proc;
	if (!pid && !comm) {
		b->kernel_used = true;
		return &b->kernel;
	}
	if (proctab_room(&b->proc, &b->capproc, b->nproc, 64, NULL) < 0)
		return NULL;
	p = &b->proc[proctab_seek(b->proc, b->capproc, NULL, &key, proc_hash(key))];
	if (PROC_EMPTY(p)) {
		p->pid = pid;
		p->comm = comm;
		b->nproc++;
	}
	/* the table only moves when it grows, and that passes through here */
	b->last_pid = pid;
	b->last_comm = comm;
	b->last_proc = &p->g;
	return b->last_proc;
}

const struct vxt_bd_group *vxt_bd_process(const struct vxt_breakdown *b, uint32_t pid,
					  uint32_t comm)
{
	uint64_t key = (uint64_t)pid << 32 | comm;
	struct vxt_bd_proc *p;

	if (!pid && !comm)
		return b->kernel_used ? &b->kernel : NULL;
	p = proctab_get(b->proc, b->capproc, NULL, &key, proc_hash(key));
	return p ? &p->g : NULL;
}

/* The cell index: a slot is 1 + a cell's place in cell[] (0 empty). */
struct cell_key {
	uint32_t object, pid, comm;
	uint8_t op;
};

static inline size_t cell_hash(uint32_t object, uint8_t op, uint32_t pid, uint32_t comm)
{
	uint64_t k = ((uint64_t)pid << 32 | comm) ^ ((uint64_t)object << 8 | op) * 0xff51afd7ed558ccdull;

	return (size_t)(k * 0x9e3779b97f4a7c15ull >> 20);
}

static inline size_t cell_hash_of(const struct vxt_bd_cell *c)
{
	return cell_hash(c->object, c->op, c->pid, c->comm);
}

static inline bool cell_is(const struct vxt_bd_cell *c, const struct cell_key *k)
{
	return c->object == k->object && c->op == k->op && c->pid == k->pid && c->comm == k->comm;
}

#define CELL_HASH(b, s) cell_hash_of(&(b)->cell[*(s) - 1])
#define CELL_MATCH(b, s, k) cell_is(&(b)->cell[*(s) - 1], k)
#define CELL_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(cellix, uint32_t, const struct vxt_breakdown *, struct cell_key, CELL_HASH,
		CELL_MATCH, CELL_EMPTY)

/* Room for one more cell: cell[] (moved: last_cell[] forgets) and its
 * index. */
static int cell_room(struct vxt_breakdown *b)
{
	if (b->ncell == b->capcell) {
		if (vxt_grow(&b->cell, &b->capcell, b->ncell + 1, sizeof(*b->cell)) < 0)
			return -ENOMEM;
		memset(b->last_cell, 0, sizeof(b->last_cell));
	}
	return cellix_room(&b->cellix, &b->capix, b->ncell, 64, b);
}

/* The cell of (@object, @op, @pid, @comm), made at its first interval: the
 * process group is made then too, so processes keep the order of their
 * first interval. */
__attribute__((noinline)) struct vxt_bd_cell *
vxt_bd_cell_find(struct vxt_breakdown *b, uint32_t object, uint8_t op, uint32_t pid,
		 uint32_t comm)
{
	struct cell_key k = {.object = object, .pid = pid, .comm = comm, .op = op};
	struct vxt_bd_cell *c;
	uint32_t *ix;

	if (cell_room(b) < 0)
		return NULL;
	ix = &b->cellix[cellix_seek(b->cellix, b->capix, b, &k, cell_hash(object, op, pid, comm))];
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
int vxt_bd_cells_fold(struct vxt_breakdown *b)
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
		vxt_bd_group_free(&c->g);
		memset(&c->g, 0, sizeof(c->g));
	}
	return 0;
}
