/* procstats.c - completed I/O per (pid, command, object)
 *
 * Invariant: slot[] (a power of two, at most half full) maps each row's key
 * to its index + 1; rebuilt after a sort moves the rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/procstats.h"

static size_t key_hash(uint32_t pid, uint32_t comm, uint32_t object, size_t mask)
{
	uint64_t h = ((uint64_t)pid << 32 | comm) * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)object * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17) & mask;
}

/* Point the (zeroed) slots at every row. */
static void fill(struct vxt_procstats *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct vxt_proc_row *r = &p->rows[i];
		size_t k = key_hash(r->pid, r->comm, r->object, p->nslots - 1);

		while (p->slot[k])
			k = (k + 1) & (p->nslots - 1);
		p->slot[k] = (uint32_t)i + 1;
	}
}

static int rehash(struct vxt_procstats *p, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	free(p->slot);
	p->slot = slot;
	p->nslots = nslots;
	fill(p);
	return 0;
}

/* The row of the key, made when new. NULL: out of memory. */
static struct vxt_proc_row *row_of(struct vxt_procstats *p, uint32_t pid, uint32_t comm,
				   uint32_t object)
{
	struct vxt_proc_row *r;
	size_t k;

	if ((p->n + 1) * 2 > p->nslots && rehash(p, p->nslots ? p->nslots * 2 : 64) < 0)
		return NULL;
	for (k = key_hash(pid, comm, object, p->nslots - 1); p->slot[k];
	     k = (k + 1) & (p->nslots - 1)) {
		r = &p->rows[p->slot[k] - 1];
		if (r->pid == pid && r->comm == comm && r->object == object)
			return r;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct vxt_proc_row *rows = realloc(p->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		p->rows = rows;
		p->cap = cap;
	}
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
