/* script_tab.c - the hash table behind script variables and aggregations
 *
 * Open addressing with linear probing and backward-shift deletion, keyed by
 * a namespace (which variable or aggregation) and up to S_MAX_KEYS values;
 * strings hash and compare by content. A hash of 0 marks an empty slot, so
 * real hashes are never 0. The table doubles past half full. A second,
 * smaller table keyed by two integers holds requests and self-> values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"

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
		const struct sval *v = &k->k[i];

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

bool vxt_sval_eq(const struct sval *a, const struct sval *b)
{
	if ((a->type == SV_STR) != (b->type == SV_STR))
		return false;
	if (a->type == SV_STR)
		return a->s == b->s || !strcmp(a->s, b->s);
	return a->i == b->i;
}

static bool key_eq(const struct skey *a, const struct skey *b)
{
	if (a->ns != b->ns || a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!vxt_sval_eq(&a->k[i], &b->k[i]))
			return false;
	return true;
}

struct sent *vxt_stab_find(struct stab *t, const struct skey *k, uint64_t h)
{
	size_t mask, i;

	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = h & mask; t->e[i].hash; i = (i + 1) & mask)
		if (t->e[i].hash == h && key_eq(&t->e[i].key, k))
			return &t->e[i];
	return NULL;
}

static struct sent *place(struct sent *e, size_t cap, uint64_t h)
{
	size_t mask = cap - 1, i;

	for (i = h & mask; e[i].hash; i = (i + 1) & mask)
		;
	return &e[i];
}

static int grow(struct stab *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct sent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].hash)
			*place(e, cap, t->e[i].hash) = t->e[i];
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

struct sent *vxt_stab_insert(struct stab *t, const struct skey *k, uint64_t h)
{
	struct sent *e;

	if (2 * (t->n + 1) > t->cap && grow(t) < 0)
		return NULL;
	e = place(t->e, t->cap, h);
	memset(e, 0, sizeof(*e));
	e->hash = h;
	e->key.ns = k->ns;
	e->key.n = k->n;
	memcpy(e->key.k, k->k, k->n * sizeof(k->k[0]));
	e->order = t->next_order++;
	t->n++;
	return e;
}

void vxt_stab_delete(struct stab *t, struct sent *e)
{
	size_t mask = t->cap - 1, i = (size_t)(e - t->e), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->e[j].hash)
			break;
		home = t->e[j].hash & mask;
		if (vxt_probe_fills_hole(home, i, j)) {
			t->e[i] = t->e[j];
			i = j;
		}
	}
	memset(&t->e[i], 0, sizeof(t->e[i]));
	t->n--;
}

void vxt_stab_free(struct stab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* ---- the integer-keyed table ---- */

static size_t ihome(uint64_t a, uint64_t b, size_t mask)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (size_t)h & mask;
}

struct ient *vxt_itab_find(const struct itab *t, uint64_t a, uint64_t b)
{
	size_t mask, i;

	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = ihome(a, b, mask); t->e[i].p; i = (i + 1) & mask)
		if (t->e[i].a == a && t->e[i].b == b)
			return &t->e[i];
	return NULL;
}

static struct ient *iplace(struct ient *e, size_t cap, uint64_t a, uint64_t b)
{
	size_t mask = cap - 1, i;

	for (i = ihome(a, b, mask); e[i].p; i = (i + 1) & mask)
		;
	return &e[i];
}

static int grow_itab(struct itab *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct ient *ne = calloc(cap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].p)
			*iplace(ne, cap, t->e[i].a, t->e[i].b) = t->e[i];
	free(t->e);
	t->e = ne;
	t->cap = cap;
	return 0;
}

int vxt_itab_put(struct itab *t, uint64_t a, uint64_t b, void *p)
{
	struct ient *e;

	if (2 * (t->n + 1) > t->cap && grow_itab(t) < 0)
		return -ENOMEM;
	e = iplace(t->e, t->cap, a, b);
	e->a = a;
	e->b = b;
	e->p = p;
	t->n++;
	return 0;
}

struct ient *vxt_itab_claim(struct itab *t, uint64_t a, uint64_t b, bool *made)
{
	size_t mask, i;

	*made = false;
	if (2 * (t->n + 1) > t->cap && grow_itab(t) < 0)
		return NULL;
	mask = t->cap - 1;
	for (i = ihome(a, b, mask); t->e[i].p; i = (i + 1) & mask)
		if (t->e[i].a == a && t->e[i].b == b)
			return &t->e[i];
	t->e[i].a = a;
	t->e[i].b = b;
	t->n++;
	*made = true;
	return &t->e[i];
}

void vxt_itab_delete(struct itab *t, struct ient *e)
{
	size_t mask = t->cap - 1, i = (size_t)(e - t->e), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->e[j].p)
			break;
		home = ihome(t->e[j].a, t->e[j].b, mask);
		if (vxt_probe_fills_hole(home, i, j)) {
			t->e[i] = t->e[j];
			i = j;
		}
	}
	memset(&t->e[i], 0, sizeof(t->e[i]));
	t->n--;
}

void vxt_itab_free(struct itab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
