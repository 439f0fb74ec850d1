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

/* ---- in-flight requests, for req-> ---- */

/* self-> and req-> values of one process or request (slots from svar.slot);
 * an unset value (type SV_NONE) has i 0. */
struct sdyn {
	unsigned nset;		/* values set (not 0): none left frees it */
	struct sdyn *next;	/* on a free list */
	struct sval v[];
};

/* An I/O in flight, in the request table (script_reqtab.c) itself. */
struct sreq {
	uint64_t ka, kb;	/* key: object << 32 | bytes, sector */
	uint64_t id;		/* FIFO order among equal keys; 0 = an empty slot */
	struct sdyn *v;		/* its req-> values, NULL = none set */
	uint32_t home;		/* the key's hash: its home slot is home & (cap - 1) */
	bool started;
};

struct sreqtab {
	struct sreq *e;
	size_t cap, n;		/* cap a power of two (or 0), n <= cap / 2 */
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

/* Backward-shift deletion in an open-addressed table with linear probing:
 * whether the entry at slot @at, whose home slot is @home, moves into the
 * hole at @hole (it may when its home does not lie after the hole, around
 * the table's end). */
static inline bool vxt_probe_fills_hole(size_t home, size_t hole, size_t at)
{
	return hole <= at ? (home <= hole || home > at) : (home <= hole && home > at);
}

/* The table's steps each event takes are inline, so its path makes no
 * call for them (script_reqtab.c has the rest, and its invariants). */

static inline uint32_t vxt_sreq_hash(uint64_t ka, uint64_t kb)
{
	uint64_t h = (ka * 0x9e3779b97f4a7c15ull) ^ (kb + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/* The request a done or requeue of key (@ka, @kb) binds: the oldest
 * started one, else the oldest queued one, NULL when there is none.
 * Borrowed; valid until the next add or delete. */
static inline struct sreq *vxt_sreqtab_bound(const struct sreqtab *t, uint64_t ka,
					     uint64_t kb)
{
	struct sreq *qu = NULL;
	size_t mask, i;

	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = vxt_sreq_hash(ka, kb) & mask; t->e[i].id; i = (i + 1) & mask) {
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

/* A queue (@start false) or a start of key (@ka, @kb), in one pass: a start
 * takes the oldest queued request of the key, marked started (*@out,
 * @return 1); else a new request, the newest of its key, without req->
 * values (*@out, @return 0). *@out is borrowed, valid until the next
 * change. @return -ENOMEM when the table cannot grow. */
static inline int vxt_sreqtab_claim(struct sreqtab *t, uint64_t ka, uint64_t kb, bool start,
				    struct sreq **out)
{
	uint32_t h = vxt_sreq_hash(ka, kb);
	struct sreq *r;
	size_t mask, i;

	if (2 * (t->n + 1) > t->cap && vxt_sreqtab_grow(t) < 0)
		return -ENOMEM;
	mask = t->cap - 1;
	for (i = h & mask; t->e[i].id; i = (i + 1) & mask) {
		r = &t->e[i];
		if (start && !r->started && r->ka == ka && r->kb == kb) {
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
	r->home = h;
	r->started = start;
	t->n++;
	*out = r;
	return 0;
}

/* Forget @r (its values are the caller's). Other requests may move. */
static inline void vxt_sreqtab_delete(struct sreqtab *t, struct sreq *r)
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


#endif
