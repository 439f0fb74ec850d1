/* script_agg.c - aggregations: count, sum, avg, min, max, stddev,
 * quantize, lquantize
 *
 * Each aggregation is a hash table (script_tab.c) from its keys to a value
 * kept in the key's entry, as large as its function needs; its memory
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
#include "script/bt_impl.h"

/* The bytes malloc() really takes for @n (glibc: 8 bytes of header, in
 * 16-byte steps, 32 at least). */
static size_t chunk(size_t n)
{
	n = (n + 8 + 15) & ~(size_t)15;
	return n < 32 ? 32 : n;
}

/* llquantize: the bucket of @v (dtrace_aggregate_llquantize_bucket()):
 * 0 below factor^low, then each order of magnitude in at most nsteps
 * buckets, the last at and above factor^(high + 1). With @v INT64_MAX, the
 * number of the last. */
static unsigned llq_bucket(const struct sagg *a, int64_t v)
{
	int64_t f = a->llq_factor, cur = 1, last, next;
	unsigned base = 1;

	for (int64_t o = 0; o < a->lq_lo; o++)
		cur *= f;
	if (v < (last = cur))
		return 0;
	cur *= f;
	for (int64_t o = a->lq_lo; o <= a->lq_hi; o++) {
		int64_t nb = cur > a->lq_step ? a->lq_step : cur;

		if (__builtin_mul_overflow(cur, f, &next))
			next = INT64_MAX;
		if (v < cur)
			return base + (unsigned)((v - last) / (cur / nb));
		base += (unsigned)(nb - nb / f);
		last = cur;
		cur = next;
	}
	return base;
}

unsigned vxt_sagg_nbuckets(const struct sagg *a)
{
	if (a->fn == FN_LLQUANTIZE)
		return llq_bucket(a, INT64_MAX) + 1;
	if (a->fn == FN_QUANTIZE)
		return QZ_BUCKETS;
	if (a->fn == FN_LQUANTIZE)
		return (unsigned)((a->lq_hi - a->lq_lo) / a->lq_step + 2);
	return 0;
}

size_t vxt_saggval_size(const struct sagg *a)
{
	switch (a->fn) {
	case FN_COUNT: return offsetof(struct saggval, sum);
	case FN_SUM: case FN_AVG: return offsetof(struct saggval, min);
	case FN_MIN: case FN_MAX: return offsetof(struct saggval, sumsq);
	case FN_STDDEV: return offsetof(struct saggval, buckets);
	default: return offsetof(struct saggval, buckets) + vxt_sagg_nbuckets(a) * sizeof(uint64_t);
	}
}

/* What one key costs: its entry and 4 slots of its table (the slots double
 * past half full, so right after a doubling a key has 4), and 4 slots of a
 * statement's raw-key cache when one has a cache (keys of strings the event
 * has as numbers: object, op, comm): count() of one integer 48 bytes. */
size_t vxt_sagg_entry_size(const struct sagg *a)
{
	struct stab t;

	vxt_stab_init(&t, a->nkeys, vxt_saggval_size(a));
	return vxt_stab_key_size(&t) + (a->cached ? 4 * sizeof(struct sfastent) : 0);
}

/* What keeping the strings of @key takes that the script does not hold yet:
 * each new one's bytes as malloc() takes them and what a key of the string
 * pool costs. */
static size_t strings_size(struct vxt_script *s, const struct skey *key)
{
	size_t n = 0;

	for (uint32_t i = 0; i < key->n; i++) {
		struct skey k = { .n = 1 };
		uint32_t j;

		if (key->k[i].type != SV_STR)
			continue;
		for (j = 0; j < i && !(key->k[j].type == SV_STR &&
				       !strcmp(key->k[j].s, key->k[i].s)); j++)
			;
		if (j < i)
			continue;	/* counted already */
		k.k[0] = key->k[i];
		if (!vxt_stab_find(&s->spool, &k, vxt_stab_hash(&k)))
			n += chunk(strlen(key->k[i].s) + 1) + vxt_stab_key_size(&s->spool);
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

#define QZ_ZERO 64	/* quantize: the bucket of 0 */

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

__extension__ typedef unsigned __int128 u128;

static u128 sumsq_of(const struct saggval *d)
{
	return (u128)d->sumsq[1] << 64 | d->sumsq[0];
}

void vxt_sagg_add_to(const struct sagg *a, struct saggval *d, int64_t v)
{
	d->count++;
	switch (a->fn) {	/* only the fields of its function's value */
	case FN_SUM: case FN_AVG:
		d->sum = (int64_t)((uint64_t)d->sum + (uint64_t)v);	/* wraps */
		break;
	case FN_MIN: case FN_MAX:
		d->sum = (int64_t)((uint64_t)d->sum + (uint64_t)v);	/* wraps */
		if (v < d->min)
			d->min = v;
		if (v > d->max)
			d->max = v;
		break;
	case FN_STDDEV: {
		u128 q = sumsq_of(d) + (u128)((__int128)v * v);

		d->sum = (int64_t)((uint64_t)d->sum + (uint64_t)v);	/* wraps */
		d->sumsq[0] = (uint64_t)q;
		d->sumsq[1] = (uint64_t)(q >> 64);
		break;
	}
	case FN_QUANTIZE:
		d->buckets[qz_bucket(v)]++;
		break;
	case FN_LQUANTIZE:
		d->buckets[lq_bucket(a, v)]++;
		break;
	case FN_LLQUANTIZE:
		d->buckets[llq_bucket(a, v)]++;
		break;
	}
}

/* A value as it starts (count 0). */
static void value_reset(const struct sagg *a, struct saggval *d)
{
	memset(d, 0, vxt_saggval_size(a));
	if (a->fn == FN_MIN || a->fn == FN_MAX || a->fn == FN_STDDEV) {
		d->min = INT64_MAX;
		d->max = INT64_MIN;
	}
}

int vxt_sagg_add(struct vxt_script *s, struct sagg *a, const struct skey *key, int64_t v,
		 struct saggval **out)
{
	uint64_t h = vxt_stab_hash(key);
	struct sent *e;
	struct saggval *d;

	if (out)
		*out = NULL;
	if (!a->tab.esize)
		vxt_stab_init(&a->tab, a->nkeys, vxt_saggval_size(a));
	e = vxt_stab_find(&a->tab, key, h);
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
		e = vxt_stab_insert(&a->tab, &kept, h);
		if (!e)
			return -ENOMEM;
		value_reset(a, vxt_sent_value(&a->tab, e));
		s->agg_bytes += sz;
		a->entries++;
	}
	d = vxt_sent_value(&a->tab, e);
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
	case FN_STDDEV: {	/* as dt_stddev(): of the integer mean */
		int64_t avg;
		u128 aos, sq, r = 0;

		if (!d->count)
			return 0;
		aos = sumsq_of(d) / (u128)d->count;
		avg = d->sum / d->count;
		sq = (u128)((__int128)avg * avg);
		if (aos <= sq)
			return 0;
		aos -= sq;
		for (u128 bit = (u128)1 << 126; bit; bit >>= 2)	/* integer square root */
			if (aos >= r + bit) {
				aos -= r + bit;
				r = (r >> 1) + bit;
			} else {
				r >>= 1;
			}
		return (int64_t)r;
	}
	default: return d->count;	/* distributions sort by their count */
	}
}

/* The value as printed: normalize() divides it. */
static int64_t shown_value(const struct sagg *a, const struct saggval *d)
{
	int64_t v = agg_value(a, d);

	return a->normal ? v / a->normal : v;
}

static const struct sagg *sort_agg;

/* Keys in order: strings by content, integers by value. */
static int key_cmp(const struct sent *a, const struct sent *b)
{
	for (uint32_t i = 0; i < a->n && i < b->n; i++) {
		int c;

		if ((a->strs & b->strs) >> i & 1)
			c = strcmp((const char *)(uintptr_t)a->k[i], (const char *)(uintptr_t)b->k[i]);
		else
			c = (a->k[i] > b->k[i]) - (a->k[i] < b->k[i]);
		if (c)
			return c;
	}
	return 0;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct sent *a = *(const struct sent *const *)pa;
	const struct sent *b = *(const struct sent *const *)pb;
	int64_t va = agg_value(sort_agg, vxt_sent_value(&sort_agg->tab, a));
	int64_t vb = agg_value(sort_agg, vxt_sent_value(&sort_agg->tab, b));

	if (va != vb)
		return va < vb ? -1 : 1;
	return key_cmp(a, b);
}

/* The entries of @a sorted as dtrace prints them (by value, then keys);
 * *@n of them. Caller frees. NULL when empty or out of memory. */
static struct sent **sorted(struct sagg *a, size_t *n)
{
	struct sent **v;

	*n = 0;
	if (!a->tab.n || !(v = malloc(a->tab.n * sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < a->tab.cap; i++) {
		struct sent *e = vxt_stab_at(&a->tab, i);

		if (e)
			v[(*n)++] = e;
	}
	sort_agg = a;
	qsort(v, *n, sizeof(*v), ent_cmp);
	return v;
}

/* Keys as dt_print_datum() prints them (dt_consume.c): a string "  %-50s",
 * an integer " %16lld", or " %8d" when its D type is 32 bits wide
 * (a->key32). */
static void print_keys(const struct vxt_script *s, const struct sagg *a, const struct skey *k,
		       FILE *out)
{
	char esc[S_TEXT_MAX];

	for (uint32_t i = 0; i < k->n; i++) {
		if (k->k[i].type == SV_STR)
			fprintf(out, "  %-50s", vxt_sprintable(s, k->k[i].s, esc, sizeof(esc)));
		else if (a->key32 >> i & 1)
			fprintf(out, " %8" PRId32, (int32_t)k->k[i].i);
		else
			fprintf(out, " %16" PRId64, k->k[i].i);
	}
}

static void dist_row(FILE *out, const char *label, uint64_t n, uint64_t total)
{
	unsigned ats = total ? (unsigned)((n * 40 + total / 2) / total) : 0;

	fprintf(out, "%16s |", label);
	for (unsigned i = 0; i < 40; i++)
		fputc(i < ats ? '@' : ' ', out);
	fprintf(out, " %-9" PRIu64 "\n", n);
}

/* llquantize: the label of bucket @i of @nb (dt_print_llquantize()). */
static void llq_label(const struct sagg *a, unsigned i, unsigned nb, char *label, size_t size)
{
	int64_t f = a->llq_factor, value = 1, next, step;
	unsigned bin = 1;

	for (int64_t o = 0; o < a->lq_lo; o++)
		value *= f;
	if (i == 0) {
		snprintf(label, size, "< %" PRId64, value);
		return;
	}
	next = value * f;
	step = next > a->lq_step ? next / a->lq_step : 1;
	for (int64_t o = a->lq_lo; o <= a->lq_hi && bin < i;) {
		bin++;
		if ((value += step) != next)
			continue;
		if (__builtin_mul_overflow(value, f, &next))
			next = INT64_MAX;
		step = next > a->lq_step ? next / a->lq_step : 1;
		o++;
	}
	snprintf(label, size, i == nb - 1 ? ">= %" PRId64 : "%" PRId64, value);
}

static void print_dist(const struct sagg *a, const struct saggval *d, FILE *out)
{
	unsigned nb = vxt_sagg_nbuckets(a), first = nb, last = 0;
	uint64_t total = 0;
	char label[32];

	for (unsigned i = 0; i < nb; i++)
		if (d->buckets[i]) {
			if (first == nb)
				first = i;
			last = i;
			total += d->buckets[i];
		}
	if (first == nb) {	/* cleared: the buckets around zero, as dtrace */
		first = a->fn == FN_QUANTIZE ? QZ_ZERO - 1 : 0;
		last = a->fn == FN_QUANTIZE ? QZ_ZERO + 1 : a->fn == FN_LQUANTIZE ? 2 : 1;
	} else {
		if (first > 0)
			first--;
		if (last + 1 < nb)
			last++;
	}
	fprintf(out, "\n%16s %41s %-9s\n", "value", "------------- Distribution -------------",
		"count");
	for (unsigned i = first; i <= last; i++) {
		if (a->fn == FN_QUANTIZE) {
			snprintf(label, sizeof(label), "%" PRId64, qz_value(i));
		} else if (a->fn == FN_LLQUANTIZE) {
			llq_label(a, i, nb, label, sizeof(label));
		} else if (i == 0) {
			snprintf(label, sizeof(label), "< %" PRId64, a->lq_lo);
		} else if (i == nb - 1) {
			snprintf(label, sizeof(label), ">= %" PRId64, a->lq_hi);
		} else {
			snprintf(label, sizeof(label), "%" PRId64,
				 a->lq_lo + (int64_t)(i - 1) * a->lq_step);
		}
		dist_row(out, label, d->buckets[i], total);
	}
}

void vxt_sagg_print(const struct vxt_script *s, struct sagg *a, bool lead, FILE *out)
{
	size_t n;
	struct sent **v;
	bool dist = a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE || a->fn == FN_LLQUANTIZE;

	if (s->bt) {		/* bpftrace's layout */
		vxt_bt_agg_print(s, a, out);
		return;
	}
	v = sorted(a, &n);
	if (!v)
		return;
	if (lead)
		fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct saggval *d = vxt_sent_value(&a->tab, v[i]);
		struct skey k;

		vxt_sent_key(v[i], &k);
		print_keys(s, a, &k, out);
		if (dist)
			print_dist(a, d, out);
		else if (a->fn == FN_STDDEV)
			fprintf(out, " %16" PRIu64, (uint64_t)shown_value(a, d));
		else
			fprintf(out, " %16" PRId64, shown_value(a, d));
		fputc('\n', out);	/* dt_print_aggs() ends each entry so */
	}
	free(v);
}

void vxt_sagg_printa(const struct vxt_script *s, struct sagg *a, const struct sfmt *fmt,
		     FILE *out)
{
	bool dist = a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE || a->fn == FN_LLQUANTIZE;
	size_t n;
	struct sent **v = sorted(a, &n);
	char buf[1024];

	(void)s;
	for (size_t i = 0; v && i < n; i++) {
		const struct saggval *d = vxt_sent_value(&a->tab, v[i]);
		struct skey k;
		unsigned ki = 0;

		vxt_sent_key(v[i], &k);
		for (unsigned j = 0; j < fmt->n; j++) {
			const struct sconv *c = &fmt->c[j];

			if (!c->conv) {
				fwrite(c->text, 1, c->tlen, out);
			} else if (c->conv == '@' && dist) {
				print_dist(a, d, out);
			} else if (c->conv == '@') {
				vxt_script_format_conv(c, false, shown_value(a, d), NULL, buf,
						       sizeof(buf));
				fputs(buf, out);
			} else {
				const struct script_value *kv = ki < k.n ? &k.k[ki] : NULL;

				ki++;
				vxt_script_format_conv(c, kv && kv->type == SV_STR, kv ? kv->i : 0,
						       kv && kv->type == SV_STR ? kv->s : "", buf,
						       sizeof(buf));
				fputs(buf, out);
			}
		}
	}
	free(v);
}

void vxt_sagg_clear(struct vxt_script *s, struct sagg *a, bool trunc, int64_t keep)
{
	size_t n;
	struct sent **v;

	if (!trunc) {
		for (size_t i = 0; i < a->tab.cap; i++) {
			struct sent *e = vxt_stab_at(&a->tab, i);

			if (e)
				value_reset(a, vxt_sent_value(&a->tab, e));
		}
		return;
	}
	a->gen++;	/* entries go: the raw-key caches are stale */
	if (keep > 0 && (size_t)keep >= a->tab.n)
		return;
	if (keep <= 0) {
		s->agg_bytes -= a->entries * vxt_sagg_entry_size(a);
		vxt_stab_free(&a->tab);
		a->entries = 0;
		return;
	}
	/* keep the @keep largest: drop the smallest ones */
	v = sorted(a, &n);
	if (!v)
		return;
	for (size_t i = 0; i < n - (size_t)keep; i++) {
		vxt_stab_delete(&a->tab, v[i]);
		s->agg_bytes -= vxt_sagg_entry_size(a);
	}
	a->entries = a->tab.n;
	free(v);
}

void vxt_sagg_free(struct sagg *a)
{
	vxt_stab_free(&a->tab);
}
