/* vm_ops.c - the ops of the run loop that take more than a few lines
 *
 * Associative arrays (in the script's hash table, charged to dynvarsize),
 * the text of trace() and printf() (strings escaped when the script's
 * output is a terminal), and aggregations. An aggregation statement whose
 * keys all have raw forms keeps a cache from the event's raw numbers
 * (object id, op, phase, command id, integers) to its entry, so the common
 * @[object, op] = quantize(latency) hashes a few integers per event and
 * never a string; a miss finds the entry by the keys' values and caches it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/vm_impl.h"
#include "vxtrace/hash.h"

/* ---- associative arrays ---- */

/* The key of @nkeys values @keys in name space @var (an array, an
 * aggregation). */
static void array_key(struct skey *k, unsigned var, const struct script_value *keys, unsigned nkeys)
{
	k->ns = var;
	k->n = nkeys;
	for (unsigned i = 0; i < nkeys; i++)
		k->k[i] = keys[i];
}

/* The table of array @var: a clause-local one's lives for one firing and
 * is not charged to dynvarsize (DTrace's clause-locals are not dynamic
 * variables). */
static inline struct stab *array_table(struct vxt_script *s, unsigned var)
{
	return s->vars[var].local ? &s->ltab : &s->vtab;
}

struct script_value vxt_vm_array_get(struct firing *x, unsigned var, const struct script_value *keys,
			     unsigned nkeys)
{
	struct script_value zero = { .type = x->s->vars[var].type == SV_STR ? SV_STR : SV_INT, .s = "" };
	struct skey k;
	struct sent *e;

	struct stab *t = array_table(x->s, var);

	array_key(&k, var, keys, nkeys);
	e = vxt_stab_find(t, &k, vxt_stab_hash(&k));
	return e ? *(struct script_value *)vxt_sent_value(t, e) : zero;
}

int vxt_vm_array_set(struct firing *x, unsigned var, const struct script_value *keys, unsigned nkeys,
		     struct script_value v)
{
	struct vxt_script *s = x->s;
	struct stab *t = array_table(s, var);
	bool charged = !s->vars[var].local;
	struct skey k;
	struct sent *e;
	uint64_t h;

	array_key(&k, var, keys, nkeys);
	h = vxt_stab_hash(&k);
	e = vxt_stab_find(t, &k, h);
	if (vxt_value_frees(&v)) {	/* D: assigning 0 (a string: "") frees a dynamic variable */
		if (e) {
			vxt_stab_delete(t, e);
			if (charged)
				vxt_sdyn_take(s, -(int64_t)S_ARRAY_SIZE(s));
		}
		return 0;
	}
	if (!e) {
		if (charged && !vxt_sdyn_take(s, (int64_t)S_ARRAY_SIZE(s)))
			return 0;	/* a dynamic variable drop */
		if (vxt_sintern_key(s, &k) < 0 || !(e = vxt_stab_insert(t, &k, h)))
			return -ENOMEM;
	}
	*(struct script_value *)vxt_sent_value(t, e) = v;
	return 0;
}

/* ---- text ---- */

void vxt_vm_trace(struct firing *x, const struct script_value *v)
{
	struct vxt_script *s = x->s;
	char esc[S_TEXT_MAX];

	if (v->type == SV_STR)
		vxt_stext_printf(s->text, &s->tlen, S_TEXT_MAX, " %s",
				 vxt_sprintable(s, v->s, esc, sizeof(esc)));
	else
		vxt_stext_printf(s->text, &s->tlen, S_TEXT_MAX, " %" PRId64, v->i);
}

void vxt_vm_printf(struct firing *x, const struct sfmt *f, const struct script_value *args)
{
	struct vxt_script *s = x->s;
	char esc[S_TEXT_MAX];
	unsigned argi = 0;

	for (unsigned i = 0; i < f->n; i++) {
		const struct sconv *c = &f->c[i];
		const struct script_value *v;

		if (!c->conv) {
			vxt_stext_add(s->text, &s->tlen, S_TEXT_MAX, c->text, c->tlen);
			continue;
		}
		v = &args[argi++];
		/* D's own, and a %c of a NUL byte (its blanks): formatted first */
		if (c->conv == 'S' || c->conv == 'Y' || (c->conv == 'c' && !(unsigned char)v->i)) {
			char buf[1024];

			vxt_script_format_conv(c, v->type == SV_STR, v->i, v->s, buf, sizeof(buf));
			vxt_stext_add(s->text, &s->tlen, S_TEXT_MAX, buf, strlen(buf));
			continue;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (c->conv == 's')
			vxt_stext_printf(s->text, &s->tlen, S_TEXT_MAX, c->spec, v->type == SV_STR ?
					 vxt_sprintable(s, v->s, esc, sizeof(esc)) : "");
		else if (c->conv == 'c')
			vxt_stext_printf(s->text, &s->tlen, S_TEXT_MAX, c->spec, (int)v->i);
		else
			vxt_stext_printf(s->text, &s->tlen, S_TEXT_MAX, c->spec, (long long)v->i);
#pragma GCC diagnostic pop
	}
}

/* ---- aggregations ---- */

int vxt_vm_aggregate(struct firing *x, const struct script_node *n, const struct script_value *keys,
		     int64_t v)
{
	struct vxt_script *s = x->s;
	struct skey k;
	int rc;

	array_key(&k, (unsigned)n->idx, keys, n->nkeys);
	rc = vxt_sagg_add(s, &s->aggs[n->idx], &k, n->a->idx == FN_COUNT ? 1 : v, NULL);
	vxt_sspec_mem(s, 0);	/* the peak */
	return rc;
}

static uint64_t raw_hash(const struct script_value *k, unsigned n)
{
	uint64_t h = 0x84222325cbf29ce4ull;

	for (unsigned i = 0; i < n; i++) {
		h = (h ^ (uint64_t)k[i].i) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h ? h : 1;
}

/* a raw key looked for in the cache: @n values and their hash */
struct rawkey {
	const struct script_value *k;
	unsigned n;
	uint64_t h;
};

static bool cache_match(const struct sfastent *e, const struct rawkey *r)
{
	unsigned j;

	if (e->h != r->h)
		return false;
	for (j = 0; j < r->n && e->k[j] == r->k[j].i; j++)
		;
	return j == r->n;
}

#define FAST_HASH(ctx, e) ((size_t)(e)->h)
#define FAST_MATCH(ctx, e, r) cache_match(e, r)
#define FAST_EMPTY(e) (!(e)->h)
VXT_HASH_DEFINE(ftab, struct sfastent, const void *, struct rawkey, FAST_HASH, FAST_MATCH,
		FAST_EMPTY)

static int cache_put(struct sfast *f, const struct script_value *k, unsigned n, uint64_t h,
		     struct saggval *d)
{
	size_t i;

	if (ftab_room(&f->e, &f->cap, f->n, 64, NULL) < 0)
		return -ENOMEM;
	i = ftab_vacant(f->e, f->cap, (size_t)h);
	f->e[i].h = h;
	for (unsigned j = 0; j < n; j++)
		f->e[i].k[j] = k[j].i;
	f->e[i].d = d;
	f->n++;
	return 0;
}

/* A key not in the cache: the entry by the keys' values, then cached. */
static __attribute__((noinline)) int raw_miss(struct firing *x, const struct script_node *n,
					      const struct script_value *raw, uint64_t h, int64_t v)
{
	struct vxt_script *s = x->s;
	struct sfast *f = &s->fast[n->num];
	struct saggval *d = NULL;
	struct skey k;
	int rc;

	k.ns = (uint32_t)n->idx;
	k.n = n->nkeys;
	for (unsigned i = 0; i < n->nkeys; i++)
		k.k[i] = vxt_vm_raw_key(n->keys[i]) ? vxt_sfield(x, n->keys[i]->idx) : raw[i];
	rc = vxt_sagg_add(s, &s->aggs[n->idx], &k, v, &d);
	if (rc == 0 && d)
		rc = cache_put(f, raw, n->nkeys, h, d);
	vxt_sspec_mem(s, 0);	/* the peak */
	return rc;
}

int vxt_vm_aggregate_raw(struct firing *x, const struct script_node *n, const struct script_value *raw,
			 int64_t v)
{
	struct vxt_script *s = x->s;
	struct sagg *a = &s->aggs[n->idx];
	struct sfast *f = &s->fast[n->num];
	uint64_t h = raw_hash(raw, n->nkeys);

	if (n->a->idx == FN_COUNT)
		v = 1;
	if (f->gen != a->gen) {		/* trunc() removed entries */
		if (f->cap)
			memset(f->e, 0, f->cap * sizeof(*f->e));
		f->n = 0;
		f->gen = a->gen;
	}
	if (f->cap) {
		struct rawkey r = { raw, n->nkeys, h };
		struct sfastent *e = ftab_get(f->e, f->cap, NULL, &r, (size_t)h);

		if (e) {
			vxt_sagg_add_to(a, e->d, v);
			return 0;
		}
	}
	return raw_miss(x, n, raw, h, v);
}
