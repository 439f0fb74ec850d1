/* script_tab.c - the hash tables behind associative arrays, aggregations
 * and the script's strings
 *
 * Open addressing with linear probing and backward-shift deletion over
 * 4-byte slots naming entries; an entry holds its hash, its key (a
 * namespace, which array, and up to maxkeys values packed in 8 bytes each:
 * an integer, or an interned string's pointer) and its value, in blocks that
 * never move. Strings hash and compare by content. Real hashes are never
 * 0. The slots double past half full, so a key costs at most 4 of them
 * (16 bytes) and its entry: a count() key of one integer 48 bytes. A second,
 * smaller table keyed by two integers holds requests and self-> values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/hash.h"

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

uint64_t vxt_stab_hash(const struct skey *k)
{
	uint64_t h = mix(k->ns * 0x9e3779b97f4a7c15ull + k->n);

	for (uint32_t i = 0; i < k->n; i++) {
		const struct script_value *v = &k->k[i];

		if (v->type == SV_STR) {
			for (const unsigned char *p = (const unsigned char *)v->s; *p; p++)
				h = (h ^ *p) * 0x100000001b3ull;
			h = mix(h + 0x51);
		} else {
			h = mix(h ^ (uint64_t)v->i);
		}
	}
	return h ? h : 1;
}

bool vxt_value_eq(const struct script_value *a, const struct script_value *b)
{
	if ((a->type == SV_STR) != (b->type == SV_STR))
		return false;
	if (a->type == SV_STR)
		return a->s == b->s || !strcmp(a->s, b->s);
	return a->i == b->i;
}

/* Entry number @id (from 0). Blocks hold 1, 2, 4 ... S_TAB_BLOCK entries,
 * then S_TAB_BLOCK each, so a table takes at most twice its entries while
 * small, and one block more than they need when large. */
static struct sent *entry(const struct stab *t, uint32_t id)
{
	size_t b, off;

	if (id < S_TAB_BLOCK - 1) {
		b = (size_t)(31 - __builtin_clz(id + 1));
		off = id + 1 - ((size_t)1 << b);
	} else {
		b = S_TAB_SHIFT + (id - (S_TAB_BLOCK - 1)) / S_TAB_BLOCK;
		off = (id - (S_TAB_BLOCK - 1)) % S_TAB_BLOCK;
	}
	return (struct sent *)(t->blocks[b] + off * t->esize);
}

/* Entries of block @b. */
static size_t block_entries(size_t b)
{
	return b < S_TAB_SHIFT ? (size_t)1 << b : S_TAB_BLOCK;
}

void vxt_stab_init(struct stab *t, unsigned maxkeys, size_t vsize)
{
	memset(t, 0, sizeof(*t));
	t->maxkeys = maxkeys;
	t->vsize = (vsize + 7) & ~(size_t)7;
	t->esize = sizeof(struct sent) + maxkeys * sizeof(int64_t) + t->vsize;
}

size_t vxt_stab_key_size(const struct stab *t)
{
	return 4 * sizeof(uint32_t) + t->esize;
}

static bool key_eq(const struct sent *e, const struct skey *k)
{
	if (e->ns != k->ns || e->n != k->n)
		return false;
	for (uint32_t i = 0; i < k->n; i++) {
		const struct script_value *v = &k->k[i];
		bool str = e->strs >> i & 1;

		if (str != (v->type == SV_STR))
			return false;
		if (str ? strcmp((const char *)(uintptr_t)e->k[i], v->s) : e->k[i] != v->i)
			return false;
	}
	return true;
}

void vxt_sent_key(const struct sent *e, struct skey *k)
{
	k->ns = e->ns;
	k->n = e->n;
	for (uint32_t i = 0; i < e->n; i++) {
		struct script_value *v = &k->k[i];

		if (e->strs >> i & 1) {
			v->type = SV_STR;
			v->s = (const char *)(uintptr_t)e->k[i];
			v->i = 0;
		} else {
			v->type = SV_INT;
			v->i = e->k[i];
			v->s = NULL;
		}
	}
}

struct sent *vxt_stab_at(const struct stab *t, size_t i)
{
	return t->slot[i] ? entry(t, t->slot[i] - 1) : NULL;
}

/* a key looked for, with its hash; a match leaves its entry in *found, so
 * that a find computes the entry's place once */
struct hkey {
	const struct skey *k;
	uint64_t h;
	struct sent **found;
};

static bool slot_holds(const struct stab *t, uint32_t slot, const struct hkey *x)
{
	struct sent *e = entry(t, slot - 1);

	if (e->hash != x->h || !key_eq(e, x->k))
		return false;
	*x->found = e;
	return true;
}

/* slots: entry number + 1, 0 = empty; the entry holds its key's hash */
#define SLOT_HASH(t, s) ((size_t)entry(t, *(s) - 1)->hash)
#define SLOT_MATCH(t, s, x) slot_holds(t, *(s), x)
#define SLOT_IS(t, s, e) (entry(t, *(s) - 1) == (e))
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(skeys, uint32_t, const struct stab *, struct hkey, SLOT_HASH, SLOT_MATCH,
		SLOT_EMPTY)

/* the same slots, looked through for an entry itself */
VXT_HASH_DEFINE(sents, uint32_t, const struct stab *, struct sent, SLOT_HASH, SLOT_IS, SLOT_EMPTY)

struct sent *vxt_stab_find(const struct stab *t, const struct skey *k, uint64_t h)
{
	struct sent *found = NULL;
	struct hkey x = { k, h, &found };

	if (t->cap)
		skeys_seek(t->slot, t->cap, t, &x, (size_t)h);
	return found;
}

/* A free entry's number: a deleted one, or the next of the blocks. */
static int take_entry(struct stab *t, uint32_t *id)
{
	if (t->freel) {
		*id = t->freel - 1;
		t->freel = entry(t, *id)->ns;
		return 0;
	}
	if (t->nent == t->room) {
		char **b = realloc(t->blocks, (t->nblocks + 1) * sizeof(*b));

		if (!b)
			return -ENOMEM;
		t->blocks = b;
		if (!(b[t->nblocks] = malloc(block_entries(t->nblocks) * t->esize)))
			return -ENOMEM;
		t->room += (uint32_t)block_entries(t->nblocks);
		t->nblocks++;
	}
	*id = t->nent++;
	return 0;
}

struct sent *vxt_stab_insert(struct stab *t, const struct skey *k, uint64_t h)
{
	struct sent *e;
	uint32_t id;

	if (k->n > t->maxkeys || t->nent == UINT32_MAX - 1)
		return NULL;
	if (skeys_room(&t->slot, &t->cap, t->n, 64, t) < 0)
		return NULL;
	if (take_entry(t, &id) < 0)
		return NULL;
	e = entry(t, id);
	memset(e, 0, t->esize);
	e->hash = h;
	e->ns = k->ns;
	e->n = (uint8_t)k->n;
	for (uint32_t i = 0; i < k->n; i++) {
		if (k->k[i].type == SV_STR) {
			e->strs |= (uint8_t)(1u << i);
			e->k[i] = (int64_t)(uintptr_t)k->k[i].s;
		} else {
			e->k[i] = k->k[i].i;
		}
	}
	t->slot[skeys_vacant(t->slot, t->cap, (size_t)h)] = id + 1;
	t->n++;
	return e;
}

void vxt_stab_delete(struct stab *t, struct sent *e)
{
	size_t i = sents_seek(t->slot, t->cap, t, e, (size_t)e->hash);
	uint32_t id = t->slot[i] - 1;

	sents_remove(t->slot, t->cap, i, t);
	e->hash = 0;
	e->ns = t->freel;	/* the free list runs through deleted entries */
	t->freel = id + 1;
	t->n--;
}

void vxt_stab_free(struct stab *t)
{
	unsigned maxkeys = t->maxkeys;
	size_t vsize = t->vsize;

	if (!t->esize)
		return;	/* never set up (an aggregation cleared before its first
			 * value): it is set up when its function is known */
	for (size_t b = 0; b < t->nblocks; b++)
		free(t->blocks[b]);
	free(t->blocks);
	free(t->slot);
	vxt_stab_init(t, maxkeys, vsize);	/* empty, ready again */
}

/* ---- the integer-keyed table ---- */

static size_t ihash(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (size_t)h;
}

/* a key of two integers */
struct ikey {
	uint64_t a, b;
};

#define IENT_HASH(ctx, e) ihash((e)->a, (e)->b)
#define IENT_MATCH(ctx, e, k) ((e)->a == (k)->a && (e)->b == (k)->b)
#define IENT_EMPTY(e) (!(e)->p)
VXT_HASH_DEFINE(ikeys, struct ient, const void *, struct ikey, IENT_HASH, IENT_MATCH, IENT_EMPTY)

struct ient *vxt_itab_find(const struct itab *t, uint64_t a, uint64_t b)
{
	struct ikey k = { a, b };

	return ikeys_get(t->e, t->cap, NULL, &k, ihash(a, b));
}

int vxt_itab_put(struct itab *t, uint64_t a, uint64_t b, void *p)
{
	struct ient *e;

	if (ikeys_room(&t->e, &t->cap, t->n, 64, NULL) < 0)
		return -ENOMEM;
	e = &t->e[ikeys_vacant(t->e, t->cap, ihash(a, b))];
	e->a = a;
	e->b = b;
	e->p = p;
	t->n++;
	return 0;
}

struct ient *vxt_itab_claim(struct itab *t, uint64_t a, uint64_t b, bool *made)
{
	struct ikey k = { a, b };
	struct ient *e;

	*made = false;
	if (ikeys_room(&t->e, &t->cap, t->n, 64, NULL) < 0)
		return NULL;
	e = &t->e[ikeys_seek(t->e, t->cap, NULL, &k, ihash(a, b))];
	if (e->p)
		return e;
	e->a = a;
	e->b = b;
	t->n++;
	*made = true;
	return e;
}

void vxt_itab_delete(struct itab *t, struct ient *e)
{
	ikeys_remove(t->e, t->cap, (size_t)(e - t->e), NULL);
	t->n--;
}

void vxt_itab_free(struct itab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* ---- strings kept by the script (keys and values outlive the tables' names) ---- */

const char *vxt_sintern(struct vxt_script *s, const char *str, int *rc)
{
	struct skey k = { .n = 1 };
	struct sent *e;
	uint64_t h;
	char *dup;

	k.k[0].type = SV_STR;
	k.k[0].s = str;
	h = vxt_stab_hash(&k);
	e = vxt_stab_find(&s->spool, &k, h);
	if (e)
		return (const char *)(uintptr_t)e->k[0];
	dup = strdup(str);
	if (!dup)
		goto nomem;
	k.k[0].s = dup;
	e = vxt_stab_insert(&s->spool, &k, h);
	if (!e) {
		free(dup);
		goto nomem;
	}
	return dup;
nomem:
	*rc = -ENOMEM;
	return "";
}

int vxt_sintern_key(struct vxt_script *s, struct skey *k)
{
	int rc = 0;

	for (uint32_t i = 0; i < k->n; i++)
		if (k->k[i].type == SV_STR)
			k->k[i].s = vxt_sintern(s, k->k[i].s, &rc);
	return rc;
}
