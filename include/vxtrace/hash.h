/* hash.h - one open-addressing hash table, as a template of inline functions
 *
 * The table is an array of slots the caller owns: cap slots, cap a power of
 * two (or 0 before the first key), linear probing from a key's home slot
 * (its hash & (cap - 1)), backward-shift deletion (no tombstones), at most
 * half full. A slot is the entry itself (a key and its value) or an index
 * into rows kept elsewhere (e.g. row number + 1, 0 = empty). A zeroed slot
 * must be empty. VXT_HASH_DEFINE(name, S, C, K, hash_of, match, empty) writes
 *
 *   S *name_get(S *t, size_t cap, C ctx, const K *k, size_t h)
 *         the slot holding *k, NULL when none (cap may be 0)
 *   size_t name_seek(const S *t, size_t cap, C ctx, const K *k, size_t h)
 *         the slot holding *k, else the empty slot where it goes (cap > 0)
 *   size_t name_next(const S *t, size_t cap, C ctx, const K *k, size_t i)
 *         the next slot after i along its run holding *k, else the empty
 *         slot that ends the run: with name_seek, a walk over every key
 *         equal to *k, in the order they were put (cap > 0)
 *   size_t name_vacant(const S *t, size_t cap, size_t h)
 *         the first empty slot of h's probe run: where a key goes that is
 *         known to be new, or that goes after its equals (cap > 0)
 *   int name_room(S **t, size_t *cap, size_t n, size_t first, C ctx)
 *         room for one key more than the n the table holds, doubling it
 *         (or making it with @first slots) past half full; slot numbers
 *         and pointers into it go stale when it grows. @return 0 or -ENOMEM
 *   int name_resize(S **t, size_t *cap, size_t ncap, C ctx)
 *         every key moved to a new zeroed table of ncap slots (a power of
 *         two, more than twice the keys), the old one freed: keys equal in
 *         match() keep their order along their probe run. @return 0 or -ENOMEM
 *   void name_remove(S *t, size_t cap, size_t i, C ctx)
 *         slot i emptied (zeroed); later keys of its run move back into it
 *
 * where h is the key's hash, hash_of(ctx, s) the hash of the key in
 * occupied slot s (stored in it, or computed again: equal to the h its key
 * was put with, at least in the bits below the largest cap), match(ctx, s, k)
 * says occupied slot s holds *k, and empty(s) says slot s holds no key; s is
 * a const S *. They are functions or macros the compiler sees, so they are
 * inlined into the loops: the table costs what one written for S costs.
 *
 *   struct ent { uint64_t key; uint32_t count; };     // key 0 is never used
 *   #define ENT_HASH(ctx, s) ((size_t)((s)->key * 0x9e3779b97f4a7c15ull >> 32))
 *   #define ENT_MATCH(ctx, s, k) ((s)->key == *(k))
 *   #define ENT_EMPTY(s) (!(s)->key)
 *   VXT_HASH_DEFINE(enttab, struct ent, const void *, uint64_t, ENT_HASH, ENT_MATCH,
 *                   ENT_EMPTY)
 */
#ifndef VXTRACE_HASH_H
#define VXTRACE_HASH_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Backward-shift deletion: whether the key at slot @at, whose home slot is
 * @home, moves into the hole at @hole (it may when its home does not lie
 * after the hole, counting around the table's end). */
static inline bool vxt_hash_fills_hole(size_t home, size_t hole, size_t at)
{
	return hole <= at ? (home <= hole || home > at) : (home <= hole && home > at);
}

/* a file uses the few functions it needs of the ones the template writes */
#define VXT_HASH_FN static inline __attribute__((unused))

#define VXT_HASH_DEFINE(name, S, C, K, hash_of, match, empty)                          \
	VXT_HASH_FN size_t name##_seek(const S *t, size_t cap, C ctx, const K *k,       \
				       size_t h)                                        \
	{                                                                               \
		size_t mask = cap - 1, i;                                               \
                                                                                        \
		(void)ctx;                                                              \
		for (i = h & mask; !empty(&t[i]); i = (i + 1) & mask)                   \
			if (match(ctx, &t[i], k))                                       \
				break;                                                  \
		return i;                                                               \
	}                                                                               \
	VXT_HASH_FN size_t name##_next(const S *t, size_t cap, C ctx, const K *k,       \
				       size_t i)                                        \
	{                                                                               \
		size_t mask = cap - 1;                                                  \
                                                                                        \
		(void)ctx;                                                              \
		for (i = (i + 1) & mask; !empty(&t[i]); i = (i + 1) & mask)             \
			if (match(ctx, &t[i], k))                                       \
				break;                                                  \
		return i;                                                               \
	}                                                                               \
	VXT_HASH_FN S *name##_get(S *t, size_t cap, C ctx, const K *k, size_t h)       \
	{                                                                               \
		size_t i;                                                               \
                                                                                        \
		if (!cap)                                                               \
			return NULL;                                                    \
		i = name##_seek(t, cap, ctx, k, h);                                     \
		return empty(&t[i]) ? NULL : &t[i];                                     \
	}                                                                               \
	VXT_HASH_FN size_t name##_vacant(const S *t, size_t cap, size_t h)             \
	{                                                                               \
		size_t mask = cap - 1, i;                                               \
                                                                                        \
		for (i = h & mask; !empty(&t[i]); i = (i + 1) & mask)                   \
			;                                                               \
		return i;                                                               \
	}                                                                               \
	VXT_HASH_FN int name##_resize(S **t, size_t *cap, size_t ncap, C ctx)          \
	{                                                                               \
		S *o = *t, *n = calloc(ncap, sizeof(*n));                               \
		size_t z = 0;                                                           \
                                                                                        \
		(void)ctx;                                                              \
		if (!n)                                                                 \
			return -ENOMEM;                                                 \
		/* from an empty slot on, so that no probe run is cut at the end */     \
		while (z < *cap && !empty(&o[z]))                                       \
			z++;                                                            \
		for (size_t j = 1; j <= *cap; j++) {                                    \
			const S *s = &o[(z + j) & (*cap - 1)];                          \
                                                                                        \
			if (!empty(s))                                                  \
				n[name##_vacant(n, ncap, hash_of(ctx, s))] = *s;        \
		}                                                                       \
		free(o);                                                                \
		*t = n;                                                                 \
		*cap = ncap;                                                            \
		return 0;                                                               \
	}                                                                               \
	VXT_HASH_FN int name##_room(S **t, size_t *cap, size_t n, size_t first, C ctx) \
	{                                                                               \
		if (2 * (n + 1) <= *cap)                                                \
			return 0;                                                       \
		return name##_resize(t, cap, *cap ? 2 * *cap : first, ctx);             \
	}                                                                               \
	VXT_HASH_FN void name##_remove(S *t, size_t cap, size_t i, C ctx)              \
	{                                                                               \
		size_t mask = cap - 1, j = i;                                           \
                                                                                        \
		(void)ctx;                                                              \
		for (;;) {                                                              \
			j = (j + 1) & mask;                                             \
			if (empty(&t[j]))                                               \
				break;                                                  \
			if (vxt_hash_fills_hole(hash_of(ctx, &t[j]) & mask, i, j)) {    \
				t[i] = t[j];                                            \
				i = j;                                                  \
			}                                                               \
		}                                                                       \
		memset(&t[i], 0, sizeof(t[i]));                                         \
	}

#endif
