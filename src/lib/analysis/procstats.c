/* procstats.c - completed I/O per (pid, command, object)
 *
 * Invariant: slot[] (a power of two, at most half full) maps each row's key
 * to its index + 1; rebuilt after a sort moves the rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/hash.h"
#include "vxtrace/procstats.h"
#include "vxtrace/util.h"

/* a row's key, apart */
struct pkey {
	uint32_t pid, comm, object;
};

static size_t key_hash(uint32_t pid, uint32_t comm, uint32_t object)
{
	uint64_t h = ((uint64_t)pid << 32 | comm) * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)object * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17);
}

static size_t row_hash(const struct vxt_proc_row *r)
{
	return key_hash(r->pid, r->comm, r->object);
}

static bool same_key(const struct vxt_proc_row *r, const struct pkey *k)
{
	return r->pid == k->pid && r->comm == k->comm && r->object == k->object;
}

#define SLOT_HASH(p, s) row_hash(&(p)->rows[*(s) - 1])
#define SLOT_MATCH(p, s, k) same_key(&(p)->rows[*(s) - 1], k)
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(ptab, uint32_t, const struct vxt_procstats *, struct pkey, SLOT_HASH,
		SLOT_MATCH, SLOT_EMPTY)

/* Point the (zeroed) slots at every row. */
static void fill(struct vxt_procstats *p)
{
	for (size_t i = 0; i < p->n; i++)
		p->slot[ptab_vacant(p->slot, p->nslots, row_hash(&p->rows[i]))] = (uint32_t)i + 1;
}

/* The row of the key, made when new. NULL: out of memory. */
static struct vxt_proc_row *row_of(struct vxt_procstats *p, uint32_t pid, uint32_t comm,
				   uint32_t object)
{
	struct pkey key = { pid, comm, object };
	struct vxt_proc_row *r;
	size_t k;

	if (ptab_room(&p->slot, &p->nslots, p->n, 64, p) < 0)
		return NULL;
	k = ptab_seek(p->slot, p->nslots, p, &key, key_hash(pid, comm, object));
	if (p->slot[k])
		return &p->rows[p->slot[k] - 1];
	if (p->n == p->cap && vxt_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows)) < 0)
		return NULL;
	r = &p->rows[p->n++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->comm = comm;
	r->object = object;
	p->slot[k] = (uint32_t)p->n;
	return r;
}

int vxt_procstats_add(struct vxt_procstats *p, const struct vxt_event *ev)
{
	struct vxt_proc_row *r;

	if (ev->phase != VXT_PH_DONE)
		return 0;
	r = row_of(p, ev->pid, ev->comm, ev->object);
	if (!r)
		return -ENOMEM;
	r->ios++;
	r->reads += ev->op == VXT_OP_READ;
	r->writes += ev->op == VXT_OP_WRITE;
	if (ev->error)
		r->errors++;
	else if (ev->op == VXT_OP_READ)
		r->bytes_read += ev->bytes;
	else if (ev->op == VXT_OP_WRITE)
		r->bytes_written += ev->bytes;
	if (ev->latency_ns || !ev->error)
		return vxt_latdist_add(&r->lat, ev->latency_ns);
	return 0;
}

static int busiest(const void *a, const void *b)
{
	const struct vxt_proc_row *x = a, *y = b;

	if (x->ios != y->ios)
		return x->ios > y->ios ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->object < y->object ? -1 : x->object > y->object;
}

void vxt_procstats_sort(struct vxt_procstats *p)
{
	if (p->n > 1)
		qsort(p->rows, p->n, sizeof(p->rows[0]), busiest);
	if (p->nslots) {
		memset(p->slot, 0, p->nslots * sizeof(*p->slot));
		fill(p);
	}
}

void vxt_procstats_clear(struct vxt_procstats *p)
{
	for (size_t i = 0; i < p->n; i++)
		vxt_latdist_free(&p->rows[i].lat);
	p->n = 0;
	if (p->slot)
		memset(p->slot, 0, p->nslots * sizeof(*p->slot));
}

void vxt_procstats_free(struct vxt_procstats *p)
{
	vxt_procstats_clear(p);
	free(p->rows);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}
