/* breakdown_tables.c - the breakdown's device, process and cell tables
 *
 * Devices by object id; processes and cells in open-addressing tables
 * (a cell's index, cellix[], holds its place in cell[] plus one, 0 empty),
 * each found last kept to skip the lookup. At the end the cells are folded
 * into the device, op and process groups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/breakdown_tables.h"
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
__attribute__((noinline)) struct vxt_bd_cell *
vxt_bd_cell_find(struct vxt_breakdown *b, uint32_t object, uint8_t op, uint32_t pid,
		 uint32_t comm)
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
