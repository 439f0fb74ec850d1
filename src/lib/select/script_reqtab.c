/* script_reqtab.c - the I/Os in flight of a script that uses req->
 *
 * One open-addressed table (linear probing, backward-shift deletion, at
 * most a quarter full: SREQTAB_FILL in reqtab.h) whose slots are the
 * requests themselves: no queue per key, no allocation per I/O. Requests
 * with the same key (object, bytes, sector) sit in the same probe run, and
 * their FIFO order is their id, handed out in increasing order as they are
 * added.
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
	const struct sreq_key k = { ka, kb, vxt_sreq_hash(ka, kb) };
	struct sreq *st = NULL, *qu = NULL;

	if (t->cap) {
		for (size_t i = sreqs_seek(t->e, t->cap, NULL, &k, k.h);
		     t->e[i].id; i = sreqs_next(t->e, t->cap, NULL, &k, i)) {
			struct sreq *r = &t->e[i];

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

int vxt_sreqtab_grow(struct sreqtab *t)
{
	size_t cap = t->cap ? 2 * t->cap : REQTAB_MIN, z = 0;
	struct sreq *o = t->e, *n;

	if (cap > (size_t)UINT32_MAX + 1)	/* hashes are 32-bit */
		return -ENOMEM;
	n = aligned_alloc(64, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n, 0, cap * sizeof(*n));
	/* each key's requests over in their order, from an empty slot on so
	 * that no probe run is cut at the table's end (as sreqs_resize(), in
	 * a table aligned to a cache line) */
	while (z < t->cap && o[z].id)
		z++;
	for (size_t j = 1; j <= t->cap; j++) {
		const struct sreq *r = &o[(z + j) & (t->cap - 1)];

		if (r->id)
			n[sreqs_vacant(n, cap, SREQ_HASH(NULL, r))] = *r;
	}
	free(o);
	t->e = n;
	t->cap = cap;
	return 0;
}

void vxt_sreqtab_free(struct sreqtab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
