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

#include "script/script_impl.h"

#define REQTAB_MIN	64

void vxt_sreqtab_find(const struct sreqtab *t, uint64_t ka, uint64_t kb,
		      struct sreq **started, struct sreq **queued)
{
	struct sreq *st = NULL, *qu = NULL;

	if (t->cap) {
		size_t mask = t->cap - 1;

		for (size_t i = vxt_sreq_hash(ka, kb) & mask; t->e[i].id; i = (i + 1) & mask) {
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

/* The first empty slot of @e (capacity @cap) from @h's home. */
static struct sreq *place(struct sreq *e, size_t cap, uint32_t h)
{
	size_t mask = cap - 1, i;

	for (i = h & mask; e[i].id; i = (i + 1) & mask)
		;
	return &e[i];
}

int vxt_sreqtab_grow(struct sreqtab *t)
{
	struct sreq *e;
	size_t cap, z;

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

void vxt_sreqtab_free(struct sreqtab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
