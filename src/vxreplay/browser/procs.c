/* procs.c - completed I/O per process (see procs.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "browser/procs.h"
#include "vxtrace/hash.h"
#include "vxtrace/timeline.h"
#include "vxtrace/util.h"

static size_t proc_hash(uint64_t key)
{
	return (size_t)(key * UINT64_C(0x9e3779b97f4a7c15) >> 32);
}

static uint64_t row_key(const struct vr_proc *r)
{
	return (uint64_t)r->pid << 32 | r->comm;
}

/* slot: row index + 1, 0 = empty */
#define SLOT_HASH(p, s) proc_hash(row_key(&(p)->rows[*(s) - 1]))
#define SLOT_MATCH(p, s, k) (row_key(&(p)->rows[*(s) - 1]) == *(k))
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(ptab, uint32_t, const struct vr_procs *, uint64_t, SLOT_HASH, SLOT_MATCH,
		SLOT_EMPTY)

/* Point the (zeroed) slots at every row but "(others)". */
static void fill(struct vr_procs *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->rows[i].others)
			p->slot[ptab_vacant(p->slot, p->nslots, proc_hash(row_key(&p->rows[i])))] =
				(uint32_t)i + 1;
}

static struct vr_proc *new_row(struct vr_procs *p)
{
	if (p->n == p->cap && vxt_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows)) < 0)
		return NULL;
	memset(&p->rows[p->n], 0, sizeof(p->rows[0]));
	return &p->rows[p->n++];
}

static struct vr_proc *find(struct vr_procs *p, uint32_t pid, uint32_t comm)
{
	uint64_t key = (uint64_t)pid << 32 | comm;
	struct vr_proc *r;
	size_t k;

	if (ptab_room(&p->slot, &p->nslots, p->n, 256, p) < 0)
		return NULL;
	k = ptab_seek(p->slot, p->nslots, p, &key, proc_hash(key));
	if (p->slot[k])
		return &p->rows[p->slot[k] - 1];
	if (p->n >= VR_PROCS_MAX) {
		/* the bound: one row for every process past it */
		if (p->others)
			return &p->rows[p->others - 1];
		r = new_row(p);
		if (r) {
			r->others = true;
			p->others = p->n;
		}
		return r;
	}
	r = new_row(p);
	if (!r)
		return NULL;
	r->pid = pid;
	r->comm = comm;
	p->slot[k] = (uint32_t)p->n;
	return r;
}

int vr_procs_add(struct vr_procs *p, const struct vxt_event *ev)
{
	struct vr_proc *r;

	if (ev->phase != VXT_PH_DONE)
		return 0;
	r = find(p, ev->pid, ev->comm);
	if (!r)
		return -ENOMEM;
	r->ios++;
	r->bytes += ev->bytes;
	r->errors += ev->error != 0;
	if (ev->latency_ns || !ev->error)
		return vxt_latdist_add(&r->lat, ev->latency_ns);
	return 0;
}

static int busiest(const void *a, const void *b)
{
	const struct vr_proc *x = a, *y = b;

	if (x->others != y->others)
		return x->others ? 1 : -1;
	if (x->ios != y->ios)
		return x->ios > y->ios ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

void vr_procs_sort(struct vr_procs *p)
{
	if (p->n > 1)
		qsort(p->rows, p->n, sizeof(p->rows[0]), busiest);
	if (p->others)
		p->others = p->n;	/* sorted last */
	if (p->nslots) {
		memset(p->slot, 0, p->nslots * sizeof(*p->slot));
		fill(p);
	}
}

void vr_procs_clear(struct vr_procs *p)
{
	for (size_t i = 0; i < p->n; i++)
		vxt_latdist_free(&p->rows[i].lat);
	p->n = 0;
	p->others = 0;
	if (p->slot)
		memset(p->slot, 0, p->nslots * sizeof(*p->slot));
}

void vr_procs_free(struct vr_procs *p)
{
	for (size_t i = 0; i < p->n; i++)
		vxt_latdist_free(&p->rows[i].lat);
	free(p->rows);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}
