/* strtab.c - interned strings, with an open-addressing hash for lookups
 *
 * Invariant: strs[0] is ""; the hash holds id+1 (0 = empty slot) and is kept
 * at most half full. A table with a limit never holds more than limit
 * strings: the last id is VXT_STR_MANY, and every new string beyond it maps
 * to that id and is counted in over.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/hash.h"
#include "vxtrace/strtab.h"
#include "vxtrace/util.h"

struct vxt_strtab {
	char **strs;
	size_t n, cap;
	uint32_t *hash;
	size_t hcap;		/* power of two */
	size_t limit;		/* 0 = none */
	uint32_t many;		/* id of VXT_STR_MANY once the limit is reached, else 0 */
	uint64_t over;		/* distinct strings mapped to it */
};

static uint32_t hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* a string looked for: @len bytes at @s, no NUL among them */
struct skey {
	const char *s;
	size_t len;
};

static size_t id_hash(const struct vxt_strtab *t, uint32_t slot)
{
	const char *c = t->strs[slot - 1];

	return hash_str(c, strlen(c));
}

static bool id_match(const struct vxt_strtab *t, uint32_t slot, const struct skey *k)
{
	const char *c = t->strs[slot - 1];

	return !strncmp(c, k->s, k->len) && c[k->len] == '\0';
}

#define SLOT_HASH(t, s) id_hash(t, *(s))
#define SLOT_MATCH(t, s, k) id_match(t, *(s), k)
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(idtab, uint32_t, const struct vxt_strtab *, struct skey, SLOT_HASH, SLOT_MATCH,
		SLOT_EMPTY)

struct vxt_strtab *vxt_strtab_new(void)
{
	struct vxt_strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (vxt_strtab_intern(t, "", 0) != 0) {
		vxt_strtab_free(t);
		return NULL;
	}
	return t;
}

void vxt_strtab_free(struct vxt_strtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->hash);
	free(t);
}

static int64_t intern(struct vxt_strtab *t, const char *s, size_t len);

int64_t vxt_strtab_intern(struct vxt_strtab *t, const char *s, size_t len)
{
	int64_t id;

	if (!t->limit || t->n + 1 < t->limit)
		return intern(t, s, len);
	/* full but for the last slot: known strings keep their ids, new ones share it */
	id = vxt_strtab_find(t, s, len);
	if (id >= 0)
		return id;
	if (!t->many) {
		id = intern(t, VXT_STR_MANY, strlen(VXT_STR_MANY));
		if (id < 0)
			return id;
		t->many = (uint32_t)id;
	}
	t->over++;
	return t->many;
}

void vxt_strtab_set_limit(struct vxt_strtab *t, size_t limit)
{
	t->limit = limit < 2 ? 2 : limit;
}

uint64_t vxt_strtab_over(const struct vxt_strtab *t)
{
	return t->over;
}

int64_t vxt_strtab_find(const struct vxt_strtab *t, const char *s, size_t len)
{
	struct skey k;
	uint32_t *slot;

	if (len > VXT_STR_MAX)
		len = VXT_STR_MAX;
	if (memchr(s, '\0', len))
		len = strlen(s);
	k = (struct skey){ s, len };
	slot = idtab_get(t->hash, t->hcap, t, &k, hash_str(s, len));
	return slot ? (int64_t)*slot - 1 : -1;
}

static int64_t intern(struct vxt_strtab *t, const char *s, size_t len)
{
	struct skey k;
	size_t i;
	char *copy;

	if (len > VXT_STR_MAX)
		len = VXT_STR_MAX;
	if (memchr(s, '\0', len))
		len = strlen(s);
	if (idtab_room(&t->hash, &t->hcap, t->n, 64, t) < 0)
		return -ENOMEM;
	k = (struct skey){ s, len };
	i = idtab_seek(t->hash, t->hcap, t, &k, hash_str(s, len));
	if (t->hash[i])
		return t->hash[i] - 1;
	if (vxt_grow(&t->strs, &t->cap, t->n + 1, sizeof(*t->strs)) < 0)
		return -ENOMEM;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->strs[t->n] = copy;
	t->hash[i] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

const char *vxt_strtab_get(const struct vxt_strtab *t, uint32_t id)
{
	return id < t->n ? t->strs[id] : "";
}

size_t vxt_strtab_count(const struct vxt_strtab *t)
{
	return t->n;
}
