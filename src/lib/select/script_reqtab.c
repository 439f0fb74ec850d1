/* script_reqtab.c - the I/Os in flight of a script that uses req->
 *
 * One open-addressed table (linear probing, backward-shift deletion, at
 * most half full) whose slots are the requests themselves: no queue per
 * key, no allocation per I/O. Requests with the same key (object, bytes,
 * sector) sit in the same probe run, and their FIFO order is their id,
 * handed out in increasing order as they are added.
 * Invariant: every request lies between its home slot and the first empty
 * slot after it; id 0 marks an empty slot. Requests of one key lie in id
 * order along their probe run (an add goes after them all, a deletion's
 * backward shift and a growth keep their order), so the first of a key a
 * walk meets is its oldest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "select/script_impl.h"

#define REQTAB_MIN	64

static uint32_t req_hash(uint64_t ka, uint64_t kb)
{
	uint64_t h = (ka * 0x9e3779b97f4a7c15ull) ^ (kb + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

void vxt_sreqtab_find(const struct sreqtab *t, uint64_t ka, uint64_t kb,
		      struct sreq **started, struct sreq **queued)
{
	struct sreq *st = NULL, *qu = NULL;

	if (t->cap) {
		size_t mask = t->cap - 1;

		for (size_t i = req_hash(ka, kb) & mask; t->e[i].id; i = (i + 1) & mask) {
			struct sreq *r = &t->e[i];

			if (r->ka != ka || r->kb != kb)
				continue;
			if (r->started) {
				if (!st || r->id < st->id)
					st = r;
			} else if (!qu || r->id < qu->id) {
				qu = r;
			}
		}
	}
	*started = st;
	*queued = qu;
}

struct sreq *vxt_sreqtab_bound(const struct sreqtab *t, uint64_t ka, uint64_t kb)
{
	struct sreq *qu = NULL;
	size_t mask, i;

	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = req_hash(ka, kb) & mask; t->e[i].id; i = (i + 1) & mask) {
		struct sreq *r = &t->e[i];

		if (r->ka != ka || r->kb != kb)
			continue;
		if (r->started)
			return r;	/* the first is the oldest */
		if (!qu)
			qu = r;
	}
	return qu;
}

/* The first empty slot of @e (capacity @cap) from @h's home. */
static struct sreq *place(struct sreq *e, size_t cap, uint32_t h)
{
	size_t mask = cap - 1, i;

	for (i = h & mask; e[i].id; i = (i + 1) & mask)
		;
	return &e[i];
}

/* Room for one more request (pointers into @t go stale when it grows).
 * @return 0 or -ENOMEM. */
static int reserve(struct sreqtab *t)
{
	struct sreq *e;
	size_t cap, z;

	if (2 * (t->n + 1) <= t->cap)
		return 0;
	cap = t->cap ? 2 * t->cap : REQTAB_MIN;
	if (cap > (size_t)UINT32_MAX + 1)	/* homes are 32-bit */
		return -ENOMEM;
	e = calloc(cap, sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* from an empty slot on, so that no probe run is cut at the table's
	 * end: each key's requests go over in their order */
	for (z = 0; z < t->cap && t->e[z].id; z++)
		;
	for (size_t k = 1; k <= t->cap; k++) {
		const struct sreq *r = &t->e[(z + k) & (t->cap - 1)];

		if (r->id)
			*place(e, cap, r->home) = *r;
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

/* Request @r of key (@ka, @kb), hash @h, in an empty slot: the newest. */
static struct sreq *fill(struct sreqtab *t, struct sreq *r, uint64_t ka, uint64_t kb,
			 uint32_t h, bool started)
{
	r->ka = ka;
	r->kb = kb;
	r->id = ++t->next_id;
	r->v = NULL;
	r->home = h;
	r->started = started;
	t->n++;
	return r;
}

int vxt_sreqtab_claim(struct sreqtab *t, uint64_t ka, uint64_t kb, bool start,
		      struct sreq **out)
{
	uint32_t h = req_hash(ka, kb);
	size_t mask, i;

	if (reserve(t) < 0)
		return -ENOMEM;
	mask = t->cap - 1;
	for (i = h & mask; t->e[i].id; i = (i + 1) & mask) {
		struct sreq *r = &t->e[i];

		if (start && !r->started && r->ka == ka && r->kb == kb) {
			r->started = true;	/* the first is the oldest */
			*out = r;
			return 1;
		}
	}
	*out = fill(t, &t->e[i], ka, kb, h, start);
	return 0;
}

void vxt_sreqtab_delete(struct sreqtab *t, struct sreq *r)
{
	size_t mask = t->cap - 1, i = (size_t)(r - t->e), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->e[j].id)
			break;
		home = t->e[j].home & mask;
		if (vxt_probe_fills_hole(home, i, j)) {
			t->e[i] = t->e[j];
			i = j;
		}
	}
	t->e[i].id = 0;
	t->n--;
}

void vxt_sreqtab_free(struct sreqtab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
