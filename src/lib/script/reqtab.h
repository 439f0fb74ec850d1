/* reqtab.h - the table of the I/Os in flight that req-> follows, and the
 * dynamic values of a process or request (internal to libvxtrace)
 *
 * The steps each event takes (find, claim, delete) are inline, so the
 * event's path makes no call for them; script_reqtab.c has the rest, and
 * the table's invariants. Included by script_impl.h.
 */
#ifndef VXT_SCRIPT_REQTAB_H
#define VXT_SCRIPT_REQTAB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/hash.h"

/* ---- in-flight requests, for req-> ---- */

/* self-> and req-> values of one process or request (slots from svar.slot);
 * an unset value (type SV_NONE) has i 0. */
struct sdyn {
	unsigned nset;		/* values set (not 0): none left frees it */
	struct sdyn *next;	/* on a free list */
	struct script_value v[];
};

/* An I/O in flight, in the request table (script_reqtab.c) itself: 32
 * bytes, so that two slots share a cache line and none straddles two (the
 * table is aligned to one). */
struct sreq {
	uint64_t ka, kb;	/* key: object << 32 | bytes, sector */
	uint64_t id : 63;	/* FIFO order among equal keys; 0 = an empty slot */
	uint64_t started : 1;
	struct sdyn *v;		/* its req-> values, NULL = none set */
};
_Static_assert(sizeof(struct sreq) == 32, "a request slot is 32 bytes");

/* The table is at most 1 / SREQTAB_FILL full. Every event's walk ends at
 * the first empty slot after its request's, and whether the next slot is
 * empty is a branch the processor cannot foresee: a quarter full, the
 * walks of a start and of a done's deletion go past their first slot
 * about half as often as half full, for twice the slots. */
#define SREQTAB_FILL	4

struct sreqtab {
	struct sreq *e;
	size_t cap, n;		/* cap a power of two (or 0), n <= cap / SREQTAB_FILL */
	uint64_t next_id;
};

/* The oldest started and the oldest not started request of key (@ka, @kb),
 * NULL when there is none, by a walk over the key's whole probe run.
 * Borrowed; valid until the next add or delete. */
void vxt_sreqtab_find(const struct sreqtab *t, uint64_t ka, uint64_t kb,
		      struct sreq **started, struct sreq **queued);
/* The table twice as large (or made): room for one more request; pointers
 * into it go stale. @return 0 or -ENOMEM. */
int vxt_sreqtab_grow(struct sreqtab *t);
void vxt_sreqtab_free(struct sreqtab *t);

/* The hash of key (@ka, @kb): a request's home slot is its hash & (cap - 1). */
static inline uint32_t vxt_sreq_hash(uint64_t ka, uint64_t kb)
{
	uint64_t h = (ka * 0x9e3779b97f4a7c15ull) ^ (kb + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/* the table on vxtrace/hash.h: a slot is the request, id 0 = empty; a
 * key's requests are walked with sreqs_seek() then sreqs_next(), oldest
 * first. A walk compares the sector first: most slots it passes hold other
 * keys, and most of those another sector. A slot's hash is computed again
 * where it is needed (a deletion's backward shift, a growth), not kept. */
struct sreq_key {
	uint64_t ka, kb;
	uint32_t h;		/* vxt_sreq_hash(ka, kb) */
};

#define SREQ_HASH(ctx, r) ((size_t)vxt_sreq_hash((r)->ka, (r)->kb))
#define SREQ_MATCH(ctx, r, k) ((r)->kb == (k)->kb && (r)->ka == (k)->ka)
#define SREQ_EMPTY(r) (!(r)->id)
VXT_HASH_DEFINE(sreqs, struct sreq, const void *, struct sreq_key, SREQ_HASH, SREQ_MATCH,
		SREQ_EMPTY)

/* The table's steps each event takes are inline, so its path makes no
 * call for them (script_reqtab.c has the rest, and its invariants). */

/* The request a done or requeue of key (@ka, @kb), of hash @h
 * (vxt_sreq_hash()), binds: the oldest started one, else the oldest queued
 * one, NULL when there is none. Borrowed; valid until the next add or
 * delete. */
static inline struct sreq *vxt_sreqtab_bound_h(const struct sreqtab *t, uint64_t ka,
					       uint64_t kb, uint32_t h)
{
	const struct sreq_key k = { ka, kb, h };
	struct sreq *qu = NULL;
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = sreqs_seek(t->e, t->cap, NULL, &k, h); t->e[i].id;
	     i = sreqs_next(t->e, t->cap, NULL, &k, i)) {
		struct sreq *r = &t->e[i];

		if (r->started)
			return r;	/* the first is the oldest */
		if (!qu)
			qu = r;
	}
	return qu;
}

/* vxt_sreqtab_bound_h() of the key's hash. */
static inline struct sreq *vxt_sreqtab_bound(const struct sreqtab *t, uint64_t ka,
					     uint64_t kb)
{
	return vxt_sreqtab_bound_h(t, ka, kb, vxt_sreq_hash(ka, kb));
}

/* A queue (@start false) or a start of key (@ka, @kb), of hash @h
 * (vxt_sreq_hash()), in one pass: a start takes the oldest queued request
 * of the key, marked started (*@out, @return 1); else a new request, the
 * newest of its key, without req-> values (*@out, @return 0). *@out is
 * borrowed, valid until the next change. @return -ENOMEM when the table
 * cannot grow. */
/* (inlined always: the event's path makes no call for it) */
static inline __attribute__((always_inline)) int
vxt_sreqtab_claim_h(struct sreqtab *t, uint64_t ka, uint64_t kb, uint32_t h, bool start,
		    struct sreq **out)
{
	const struct sreq_key k = { ka, kb, h };
	struct sreq *r;
	size_t i;

	if (SREQTAB_FILL * (t->n + 1) > t->cap && vxt_sreqtab_grow(t) < 0)
		return -ENOMEM;
	for (i = sreqs_seek(t->e, t->cap, NULL, &k, h); t->e[i].id;
	     i = sreqs_next(t->e, t->cap, NULL, &k, i)) {
		r = &t->e[i];
		if (start && !r->started) {
			r->started = true;	/* the first is the oldest */
			*out = r;
			return 1;
		}
	}
	r = &t->e[i];		/* an empty slot: the newest of its key */
	r->ka = ka;
	r->kb = kb;
	r->id = ++t->next_id;
	r->v = NULL;
	r->started = start;
	t->n++;
	*out = r;
	return 0;
}

/* vxt_sreqtab_claim_h() of the key's hash. */
static inline int vxt_sreqtab_claim(struct sreqtab *t, uint64_t ka, uint64_t kb, bool start,
				    struct sreq **out)
{
	return vxt_sreqtab_claim_h(t, ka, kb, vxt_sreq_hash(ka, kb), start, out);
}

/* Forget @r (its values are the caller's). Other requests may move. */
static inline void vxt_sreqtab_delete(struct sreqtab *t, struct sreq *r)
{
	sreqs_remove(t->e, t->cap, (size_t)(r - t->e), NULL);
	t->n--;
}

#endif
