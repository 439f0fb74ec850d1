/* script_agg.c - aggregations: count, sum, avg, min, max, quantize, lquantize
 *
 * Each aggregation is a hash table from its keys to a value; its memory
 * counts against aggsize (a key that does not fit is an aggregation drop).
 * Printing follows dtrace(1)'s layout: entries sorted by value, keys left,
 * values right; distributions with the "value --- Distribution --- count"
 * header and 40 '@' for the whole, from one empty row before the first
 * bucket in use to one after the last.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"

/* The bytes malloc() really takes for @n (glibc: 8 bytes of header, in
 * 16-byte steps, 32 at least). */
static size_t chunk(size_t n)
{
	n = (n + 8 + 15) & ~(size_t)15;
	return n < 32 ? 32 : n;
}

/* What one key costs: its value and its buckets as malloc() takes them, and
 * its slots in the table and in a statement's raw-key cache. Both double
 * when past half full, so right after a doubling a key has 4 slots of each;
 * counting 4 makes aggsize bound the memory aggregations really take. */
size_t vxt_sagg_entry_size(const struct sagg *a)
{
	size_t n = 4 * sizeof(struct sent) + 4 * sizeof(struct sfastent) +
		   chunk(sizeof(struct saggval));

	if (a->fn == FN_QUANTIZE)
		n += chunk(QZ_BUCKETS * sizeof(uint64_t));
	else if (a->fn == FN_LQUANTIZE)
		n += chunk((size_t)((a->lq_hi - a->lq_lo) / a->lq_step + 2) * sizeof(uint64_t));
	return n;
}

/* What keeping the strings of @key takes that the script does not hold yet:
 * each new one's bytes as malloc() takes them and 4 slots of the table they
 * are interned in (it doubles past half full, as the others). */
static size_t strings_size(struct vxt_script *s, const struct skey *key)
{
	size_t n = 0;

	for (uint32_t i = 0; i < key->n; i++) {
		struct skey k = { .ns = NS_STRPOOL, .n = 1 };
		uint32_t j;

		if (key->k[i].type != SV_STR)
			continue;
		for (j = 0; j < i && !(key->k[j].type == SV_STR &&
				       !strcmp(key->k[j].s, key->k[i].s)); j++)
			;
		if (j < i)
			continue;	/* counted already */
		k.k[0] = key->k[i];
		if (!vxt_stab_find(&s->vtab, &k, vxt_stab_hash(&k)))
			n += chunk(strlen(key->k[i].s) + 1) + 4 * sizeof(struct sent);
	}
	return n;
}

static unsigned qz_bucket(int64_t v)
{
	if (v == 0)
		return 64;
	if (v > 0)
		return 65 + (unsigned)(63 - __builtin_clzll((uint64_t)v));
	if (v == INT64_MIN)
		return 0;
	return 63 - (unsigned)(63 - __builtin_clzll((uint64_t)-v));
}

static int64_t qz_value(unsigned i)
{
	if (i == 64)
		return 0;
	if (i > 64)
		return (int64_t)(1ull << (i - 65));
	if (i == 0)
		return INT64_MIN;
	return -(int64_t)(1ull << (63 - i));
}

static unsigned lq_bucket(const struct sagg *a, int64_t v)
{
	unsigned n = (unsigned)((a->lq_hi - a->lq_lo) / a->lq_step);

	if (v < a->lq_lo)
		return 0;
	if (v >= a->lq_hi)
		return n + 1;
	return 1 + (unsigned)((v - a->lq_lo) / a->lq_step);
}

void vxt_sagg_add_to(const struct sagg *a, struct saggval *d, int64_t v)
{
	d->count++;
	d->sum = (int64_t)((uint64_t)d->sum + (uint64_t)v);	/* wraps, as DTrace's sum does */
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	if (a->fn == FN_QUANTIZE)
		d->buckets[qz_bucket(v)]++;
	else if (a->fn == FN_LQUANTIZE)
		d->buckets[lq_bucket(a, v)]++;
}

int vxt_sagg_add(struct vxt_script *s, struct sagg *a, const struct skey *key, int64_t v,
		 struct saggval **out)
{
	uint64_t h = vxt_stab_hash(key);
	struct sent *e = vxt_stab_find(&a->tab, key, h);
	struct saggval *d;

	if (out)
		*out = NULL;
	if (!e) {
		size_t sz = vxt_sagg_entry_size(a) + strings_size(s, key);
		struct skey kept;

		if (s->agg_bytes + sz > s->opt.aggsize) {
			s->st.agg_drops++;
			return 0;
		}
		kept.ns = key->ns;
		kept.n = key->n;
		memcpy(kept.k, key->k, key->n * sizeof(key->k[0]));
		if (vxt_sintern_key(s, &kept) < 0)
			return -ENOMEM;
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		if (a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE) {
			d->nbuckets = a->fn == FN_QUANTIZE ? QZ_BUCKETS :
				      (unsigned)((a->lq_hi - a->lq_lo) / a->lq_step + 2);
			d->buckets = calloc(d->nbuckets, sizeof(*d->buckets));
			if (!d->buckets) {
				free(d);
				return -ENOMEM;
			}
		}
		e = vxt_stab_insert(&a->tab, &kept, h);
		if (!e) {
			free(d->buckets);
			free(d);
			return -ENOMEM;
		}
		e->agg = d;
		d->min = INT64_MAX;
		d->max = INT64_MIN;
		s->agg_bytes += sz;
		a->entries++;
	}
	d = e->agg;
	vxt_sagg_add_to(a, d, v);
	if (out)
		*out = d;
	return 0;
}

static int64_t agg_value(const struct sagg *a, const struct saggval *d)
{
	switch (a->fn) {
	case FN_COUNT: return d->count;
	case FN_SUM: return d->sum;
	case FN_AVG: return d->count ? d->sum / d->count : 0;
	case FN_MIN: return d->count ? d->min : 0;
	case FN_MAX: return d->count ? d->max : 0;
	default: return d->count;	/* distributions sort by their count */
	}
}

static const struct sagg *sort_agg;

static int key_cmp(const struct skey *a, const struct skey *b)
{
	for (uint32_t i = 0; i < a->n && i < b->n; i++) {
		const struct sval *x = &a->k[i], *y = &b->k[i];
		int c;

		if (x->type == SV_STR && y->type == SV_STR)
			c = strcmp(x->s, y->s);
		else
			c = (x->i > y->i) - (x->i < y->i);
		if (c)
			return c;
	}
	return 0;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct sent *a = *(const struct sent *const *)pa;
	const struct sent *b = *(const struct sent *const *)pb;
	int64_t va = agg_value(sort_agg, a->agg), vb = agg_value(sort_agg, b->agg);

	if (va != vb)
		return va < vb ? -1 : 1;
	return key_cmp(&a->key, &b->key);
}

static void print_keys(const struct vxt_script *s, const struct skey *k, FILE *out,
		       bool own_line)
{
	char esc[S_TEXT_MAX];

	for (uint32_t i = 0; i < k->n; i++) {
		if (k->k[i].type == SV_STR)
			fprintf(out, own_line ? "  %s" : k->n > 1 ? "  %-16s" : "  %-50s",
				vxt_sprintable(s, k->k[i].s, esc, sizeof(esc)));
		else
			fprintf(out, "  %16" PRId64, k->k[i].i);
	}
	if (own_line && k->n)
		fputc('\n', out);
}

static void dist_row(FILE *out, const char *label, uint64_t n, uint64_t total)
{
	unsigned ats = total ? (unsigned)((n * 40 + total / 2) / total) : 0;

	fprintf(out, "%16s |", label);
	for (unsigned i = 0; i < 40; i++)
		fputc(i < ats ? '@' : ' ', out);
	fprintf(out, " %-9" PRIu64 "\n", n);
}

static void print_dist(const struct sagg *a, const struct saggval *d, bool keyed, FILE *out)
{
	unsigned first = d->nbuckets, last = 0;
	uint64_t total = 0;
	char label[32];

	for (unsigned i = 0; i < d->nbuckets; i++)
		if (d->buckets[i]) {
			if (first == d->nbuckets)
				first = i;
			last = i;
			total += d->buckets[i];
		}
	if (first == d->nbuckets)
		return;
	if (first > 0)
		first--;
	if (last + 1 < d->nbuckets)
		last++;
	fprintf(out, "%s%16s %41s %-9s\n", keyed ? "" : "\n", "value", "------------- Distribution -------------",
		"count");
	for (unsigned i = first; i <= last; i++) {
		if (a->fn == FN_QUANTIZE) {
			snprintf(label, sizeof(label), "%" PRId64, qz_value(i));
		} else if (i == 0) {
			snprintf(label, sizeof(label), "< %" PRId64, a->lq_lo);
		} else if (i == d->nbuckets - 1) {
			snprintf(label, sizeof(label), ">= %" PRId64, a->lq_hi);
		} else {
			snprintf(label, sizeof(label), "%" PRId64,
				 a->lq_lo + (int64_t)(i - 1) * a->lq_step);
		}
		dist_row(out, label, d->buckets[i], total);
	}
}

void vxt_sagg_print(const struct vxt_script *s, struct sagg *a, FILE *out)
{
	struct sent **v;
	size_t n = 0;
	bool dist = a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE;

	(void)s;
	if (!a->tab.n)
		return;
	v = malloc(a->tab.n * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < a->tab.cap; i++)
		if (a->tab.e[i].hash)
			v[n++] = &a->tab.e[i];
	sort_agg = a;
	qsort(v, n, sizeof(*v), ent_cmp);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct saggval *d = v[i]->agg;

		if (dist) {
			print_keys(s, &v[i]->key, out, true);
			print_dist(a, d, v[i]->key.n > 0, out);
			fputc('\n', out);
		} else {
			print_keys(s, &v[i]->key, out, false);
			fprintf(out, "%s%16" PRId64 "\n", v[i]->key.n ? " " : "  ", agg_value(a, d));
		}
	}
	free(v);
}

static void free_val(struct saggval *d)
{
	if (d) {
		free(d->buckets);
		free(d);
	}
}

void vxt_sagg_clear(struct vxt_script *s, struct sagg *a, bool trunc, int64_t keep)
{
	if (!trunc) {
		for (size_t i = 0; i < a->tab.cap; i++) {
			struct saggval *d = a->tab.e[i].agg;

			if (!a->tab.e[i].hash)
				continue;
			d->count = d->sum = 0;
			d->min = INT64_MAX;
			d->max = INT64_MIN;
			if (d->buckets)
				memset(d->buckets, 0, d->nbuckets * sizeof(*d->buckets));
		}
		return;
	}
	a->gen++;	/* entries go: the raw-key caches are stale */
	if (keep > 0 && (size_t)keep < a->tab.n) {
		/* keep the @keep largest: drop the smallest ones */
		struct sent **v = malloc(a->tab.n * sizeof(*v));
		struct stab nt = { 0 };
		size_t n = 0;

		if (!v)
			return;
		for (size_t i = 0; i < a->tab.cap; i++)
			if (a->tab.e[i].hash)
				v[n++] = &a->tab.e[i];
		sort_agg = a;
		qsort(v, n, sizeof(*v), ent_cmp);
		for (size_t i = 0; i < n; i++) {
			if (i < n - (size_t)keep) {
				free_val(v[i]->agg);
				s->agg_bytes -= vxt_sagg_entry_size(a);
				continue;
			}
			struct sent *e = vxt_stab_insert(&nt, &v[i]->key, v[i]->hash);

			if (e)
				e->agg = v[i]->agg;
			else
				free_val(v[i]->agg);
		}
		free(v);
		vxt_stab_free(&a->tab);
		a->tab = nt;
		a->entries = nt.n;
		return;
	}
	if (keep > 0)
		return;
	for (size_t i = 0; i < a->tab.cap; i++)
		if (a->tab.e[i].hash)
			free_val(a->tab.e[i].agg);
	s->agg_bytes -= a->entries * vxt_sagg_entry_size(a);
	vxt_stab_free(&a->tab);
	a->entries = 0;
}

void vxt_sagg_free(struct sagg *a)
{
	for (size_t i = 0; i < a->tab.cap; i++)
		if (a->tab.e[i].hash)
			free_val(a->tab.e[i].agg);
	vxt_stab_free(&a->tab);
}
