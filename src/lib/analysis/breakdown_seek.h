/* breakdown_seek.h - the breakdown's seek distances: btt's distance and its
 * mode counter, inline (internal to the analysis layer)
 *
 * seek_add() counts one distance per queue or issue in the breakdown's
 * loop, so it and the mode counter's fast path are inline here;
 * breakdown_seek.c holds their slow paths, the flush at the end, and the
 * mode and median read from them.
 * Invariant: the mode table is at most half full; once VXT_BD_MODE_MAX
 * distinct values are in it, it never grows again and its filter (mbits)
 * turns away the values it does not hold.
 */
#ifndef VXT_BREAKDOWN_SEEK_H
#define VXT_BREAKDOWN_SEEK_H

#include <errno.h>

#include "vxtrace/breakdown.h"
#include "vxtrace/hash.h"

/* Written once into each caller's loop: no call per event. */
#define BD_SEEK_HOT static inline __attribute__((always_inline))

/* Out of line in breakdown_seek.c. */
int vxt_bd_mode_count_slow(struct vxt_bd_seek *s, uint64_t d);
int vxt_bd_mode_flush(struct vxt_bd_seek *s);
void vxt_bd_seek_free(struct vxt_bd_seek *s);

static inline size_t mode_hash(uint64_t d)
{
	return (size_t)((d * 0x9e3779b97f4a7c15ull) >> 32);
}

static inline size_t mode_home(uint64_t d, size_t cap)
{
	return mode_hash(d) & (cap - 1);
}

/* The mode table: a slot is a distance and its count (count 0 empty). */
#define MODE_HASH(ctx, s) mode_hash((s)->key)
#define MODE_MATCH(ctx, s, k) ((s)->key == *(k))
#define MODE_EMPTY(s) (!(s)->count)
VXT_HASH_DEFINE(modetab, struct vxt_bd_mode, const void *, uint64_t, MODE_HASH, MODE_MATCH,
		MODE_EMPTY)

/* The slot of @d, or the empty slot where it would go. */
static inline struct vxt_bd_mode *mode_slot(struct vxt_bd_mode *t, size_t cap, uint64_t d)
{
	return &t[modetab_seek(t, cap, NULL, &d, mode_hash(d))];
}

/* A full table takes no more values: two bits of one word per value (a
 * blocked Bloom filter of 2^MODE_BITS_LG bits, half a MiB) turn most
 * absent ones away without reaching the table. */
#define MODE_BITS_LG 22

static inline size_t mode_word(uint64_t d)
{
	return (size_t)((d * 0xc2b2ae3d27d4eb4full) >> (64 - MODE_BITS_LG + 6));
}

static inline uint64_t mode_mask(uint64_t d)
{
	uint64_t h = d * 0x165667b19e3779f9ull;

	return 1ull << (h >> 58) | 1ull << (h >> 52 & 63);
}

/* Count @d in the full table when it holds it. */
static inline void mode_probe(struct vxt_bd_seek *s, uint64_t d)
{
	struct vxt_bd_mode *e = mode_slot(s->mtab, s->mcap, d);

	if (e->count)
		e->count++;
	else
		s->mode_full = true;
}

/* @d passed the full table's filter: probe its slot once VXT_BD_LATE more
 * did, fetched now (the table is megabytes; a full table is counted in any
 * order with the same counts). */
BD_SEEK_HOT void mode_late(struct vxt_bd_seek *s, uint64_t d)
{
	unsigned k = s->late_at;

	if (s->nlate == VXT_BD_LATE)
		mode_probe(s, s->late[k]);
	else
		s->nlate++;
	__builtin_prefetch(&s->mtab[mode_home(d, s->mcap)], 1);
	s->late[k] = d;
	s->late_at = (k + 1) % VXT_BD_LATE;
}

/* Count @d against the full table (its filter built): the values already
 * there are still counted, any other is turned away. */
BD_SEEK_HOT void mode_count_full(struct vxt_bd_seek *s, uint64_t d)
{
	uint64_t m = mode_mask(d);

	if ((s->mbits[mode_word(d)] & m) != m)
		s->mode_full = true;
	else
		mode_late(s, d);
}

/* Count @d in a table with room for it. */
BD_SEEK_HOT void mode_insert(struct vxt_bd_seek *s, uint64_t d)
{
	struct vxt_bd_mode *e = mode_slot(s->mtab, s->mcap, d);

	if (!e->count) {
		e->key = d;
		s->mlen++;
	}
	e->count++;
}

/* Count @d: a filtered full table, or a slot of one with room, inline. */
BD_SEEK_HOT int mode_count(struct vxt_bd_seek *s, uint64_t d)
{
	if (s->mbits) {		/* full: the table never grows again */
		mode_count_full(s, d);
		return 0;
	}
	if (__builtin_expect(2 * (s->mlen + 1) > s->mcap, 0))
		return vxt_bd_mode_count_slow(s, d);
	mode_insert(s, d);
	return 0;
}

/* Count @d once the VXT_BD_PEND distances before it are: its slot, or
 * once the table is full the word of its filter (half a MiB: out of the
 * first-level caches), is fetched now and read later, so the cache misses
 * overlap the work between. The ring's next slot (pend_at) holds the
 * oldest once it is full. */
BD_SEEK_HOT int mode_add(struct vxt_bd_seek *s, uint64_t d)
{
	unsigned k = s->pend_at;
	int rc = 0;

	if (s->npend == VXT_BD_PEND)
		rc = mode_count(s, s->pend[k]);
	else
		s->npend++;
	if (s->mbits)
		__builtin_prefetch(&s->mbits[mode_word(d)]);
	else if (s->mcap)
		__builtin_prefetch(&s->mtab[mode_home(d, s->mcap)], 1);
	s->pend[k] = d;
	s->pend_at = (k + 1) % VXT_BD_PEND;
	return rc;
}

/* btt's distance: 0 when the I/O overlaps or follows the previous one,
 * else from the previous end (forward) or start (backward). */
BD_SEEK_HOT int seek_add(struct vxt_bd_seek *s, uint64_t start, uint64_t end)
{
	uint64_t a = 0;

	if (!((s->last_start <= start && start <= s->last_end) ||
	      (s->last_start <= end && end <= s->last_end))) {
		a = start - (start > s->last_end ? s->last_end : s->last_start);
		a = (int64_t)a < 0 ? -a : a;
	}
	s->last_start = start;
	s->last_end = end;
	s->n++;
	s->total += (double)a;
	if (vxt_latdist_add(&s->dist, a) < 0)
		return -ENOMEM;
	return mode_add(s, a);
}

#endif
