/* bt_print.c - maps in bpftrace's layout
 *
 * `@name[k1, k2]: value` a line, entries by value, smallest first;
 * hist(), hist(v, k) and lhist() as `@name: ` then one row per bucket from the first
 * bucket used to the last, `[4, 8)          12 |@@@@@   |`: the label in 16
 * columns, the count in 8, a bar of up to 52 '@' scaled to the largest
 * bucket, an empty line between keys and after the map; stats() as
 * `count N, average A, total T` and avg() followed by an empty line too.
 * At END two newlines (bpftrace prints them as it stops), then every map
 * not empty, aggregations and maps used as variables, by name.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"

static void print_key(const char *name, const struct skey *k, FILE *out)
{
	fputs(name, out);
	if (!k->n)
		return;
	fputc('[', out);
	for (uint32_t i = 0; i < k->n; i++) {
		if (i)
			fputs(", ", out);
		if (k->k[i].type == SV_STR)
			fputs(k->k[i].s, out);
		else
			fprintf(out, "%" PRId64, k->k[i].i);
	}
	fputc(']', out);
}

static void hist_label(int power, char *buf, size_t size)
{
	static const char suf[] = { 0, 'K', 'M', 'G', 'T', 'P', 'E' };
	int s = power / 10 < 6 ? power / 10 : 6;

	if (suf[s])
		snprintf(buf, size, "%llu%c", 1ull << (power - 10 * s), suf[s]);
	else
		snprintf(buf, size, "%llu", 1ull << power);
}

static void lhist_label(int64_t v, char *buf, size_t size)
{
	if (v != 0 && v % 1048576 == 0)
		snprintf(buf, size, "%" PRId64 "M", v / 1048576);
	else if (v != 0 && v % 1024 == 0)
		snprintf(buf, size, "%" PRId64 "K", v / 1024);
	else
		snprintf(buf, size, "%" PRId64, v);
}

static void row(FILE *out, const char *label, uint64_t n, uint64_t max)
{
	int bar = max ? (int)((float)n / (float)max * 52) : 0;

	fprintf(out, "%-16s%8" PRIu64 " |", label, n);
	for (int i = 0; i < 52; i++)
		fputc(i < bar ? '@' : ' ', out);
	fputs("|\n", out);
}

/* D's quantize buckets (the negative ones at 0..63, 0 at 64, [1] at 65,
 * [2^k, 2^k+1) at 65 + k) as bpftrace's: (..., 0), [0], [1], [2, 4) ... */
static void print_hist(const struct sagg *a, const struct saggval *d, int64_t div, FILE *out)
{
	uint64_t b[QZ_BUCKETS - 62] = { 0 }, max = 0;
	int first = -1, last = -1;
	unsigned nb = QZ_BUCKETS - 63;

	for (unsigned i = 0; i < vxt_sagg_nbuckets(a); i++)
		b[i < 64 ? 0 : i - 63] += d->buckets[i];
	for (unsigned i = 0; i < nb; i++) {
		if (!b[i])
			continue;
		if (first < 0)
			first = (int)i;
		last = (int)i;
		if (b[i] > max)
			max = b[i];
	}
	for (int i = first; i >= 0 && i <= last; i++) {
		char label[80], lo[24], hi[24];

		if (i == 0) {
			snprintf(label, sizeof(label), "(..., 0)");
		} else if (i == 1) {
			snprintf(label, sizeof(label), "[0]");
		} else if (i == 2) {
			snprintf(label, sizeof(label), "[1]");
		} else {
			hist_label(i - 2, lo, sizeof(lo));
			hist_label(i - 1, hi, sizeof(hi));
			snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		}
		row(out, label, b[i] / (uint64_t)div, max);
	}
}

/* The label of bucket index @j's upper end in hist(v, k), as bpftrace's:
 * the index itself up to 2 << k (the buckets of one value), else the
 * value that starts index j + 1: 2^p * (2^k + the low k bits of j), p =
 * (j >> k) - 1, with K, M, G ... for p's powers of 1024. @exact: the
 * label is the index itself. */
static void histk_label(unsigned j, unsigned k, char *buf, size_t size, bool *exact)
{
	static const char suf[] = { 0, 'K', 'M', 'G', 'T', 'P', 'E' };
	unsigned n = 1u << k, power, decade;

	*exact = j <= (2u << k);
	if (*exact) {
		snprintf(buf, size, "%u", j);
		return;
	}
	power = (j >> k) - 1;
	decade = power / 10 < 6 ? power / 10 : 6;
	power -= 10 * decade;
	if (suf[decade])
		snprintf(buf, size, "%llu%c", (1ull << power) * (n + (j & (n - 1))), suf[decade]);
	else
		snprintf(buf, size, "%llu", (1ull << power) * (n + (j & (n - 1))));
}

/* hist(v, k), k > 0: lquantize's buckets of bpftrace's index (bucket i
 * holds index i - 1), labelled as bpftrace labels them: "(..., 0)" for
 * index 0, "[j - 1]" where both ends are the index itself, else "[lo, hi)". */
static void print_histk(const struct sagg *a, const struct saggval *d, unsigned k, int64_t div,
			FILE *out)
{
	int first = -1, last = -1, nb = (int)vxt_sagg_nbuckets(a);
	uint64_t max = 0;

	for (int i = 1; i + 1 < nb; i++) {
		if (!d->buckets[i])
			continue;
		if (first < 0)
			first = i - 1;
		last = i - 1;
		if (d->buckets[i] > max)
			max = d->buckets[i];
	}
	for (int j = first; j >= 0 && j <= last; j++) {
		char label[80], lo[24], hi[24];
		bool elo, ehi;

		histk_label((unsigned)j, k, hi, sizeof(hi), &ehi);
		if (j == 0) {
			snprintf(label, sizeof(label), "(..., %s)", hi);
		} else {
			histk_label((unsigned)j - 1, k, lo, sizeof(lo), &elo);
			if (elo && ehi)
				snprintf(label, sizeof(label), "[%s]", lo);
			else
				snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		}
		row(out, label, d->buckets[j + 1] / (uint64_t)div, max);
	}
}

static void print_lhist(const struct sagg *a, const struct saggval *d, FILE *out)
{
	int first = -1, last = -1, nb = (int)vxt_sagg_nbuckets(a);
	uint64_t max = 0;

	for (int i = 0; i < nb; i++) {
		if (!d->buckets[i])
			continue;
		if (first < 0)
			first = (int)i;
		last = (int)i;
		if (d->buckets[i] > max)
			max = d->buckets[i];
	}
	for (int i = first; i >= 0 && i <= last; i++) {
		char label[80], lo[24], hi[24];

		if (i == 0) {
			lhist_label(a->lq_lo, lo, sizeof(lo));
			snprintf(label, sizeof(label), "(..., %s)", lo);
		} else if (i == nb - 1) {
			lhist_label(a->lq_hi, lo, sizeof(lo));
			snprintf(label, sizeof(label), "[%s, ...)", lo);
		} else {
			lhist_label(a->lq_lo + (i - 1) * a->lq_step, lo, sizeof(lo));
			lhist_label(a->lq_lo + i * a->lq_step, hi, sizeof(hi));
			snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		}
		row(out, label, d->buckets[i], max);
	}
}

static int64_t value_of(const struct sagg *a, const struct saggval *d)
{
	switch (a->fn) {
	case FN_SUM: return d->sum;
	case FN_AVG: return d->count ? d->sum / d->count : 0;
	case FN_MIN: return d->count ? d->min : 0;
	case FN_MAX: return d->count ? d->max : 0;
	default: return d->count;
	}
}

static int cmp_key(const struct skey *a, const struct skey *b)
{
	for (uint32_t i = 0; i < a->n && i < b->n; i++) {
		const struct script_value *x = &a->k[i], *y = &b->k[i];
		int c = x->type == SV_STR && y->type == SV_STR ? strcmp(x->s, y->s) :
			(x->i > y->i) - (x->i < y->i);

		if (c)
			return c;
	}
	return 0;
}

static const struct sagg *sorting;

static int cmp_agg(const void *pa, const void *pb)
{
	const struct sent *a = *(const struct sent *const *)pa;
	const struct sent *b = *(const struct sent *const *)pb;
	int64_t va = value_of(sorting, vxt_sent_value(&sorting->tab, a));
	int64_t vb = value_of(sorting, vxt_sent_value(&sorting->tab, b));
	struct skey ka, kb;

	if (va != vb)
		return va < vb ? -1 : 1;
	vxt_sent_key(a, &ka);
	vxt_sent_key(b, &kb);
	return cmp_key(&ka, &kb);
}

/* The entries of @t (of array @ns when @ns >= 0), malloc'ed; NULL when
 * there are none (or no memory). */
static struct sent **entries(const struct stab *t, long ns, size_t *n)
{
	struct sent **v;

	*n = 0;
	if (!t->n || !(v = malloc(t->n * sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < t->cap; i++) {
		struct sent *e = vxt_stab_at(t, i);

		if (e && (ns < 0 || e->ns == (uint32_t)ns))
			v[(*n)++] = e;
	}
	if (!*n) {
		free(v);
		return NULL;
	}
	return v;
}

void vxt_bt_agg_print(const struct vxt_script *s, const struct sagg *a, FILE *out)
{
	vxt_bt_agg_print_top(s, a, out, 0, 1);
}

void vxt_bt_agg_print_top(const struct vxt_script *s, const struct sagg *a, FILE *out,
			  size_t top, int64_t div)
{
	uint8_t kind = (unsigned)(a - s->aggs) < BT_MAX_MAPS ? s->bt->aggkind[a - s->aggs] : 0;
	struct sent **v;
	size_t n;
	char name[72];

	v = entries(&a->tab, -1, &n);
	if (!v)
		return;
	sorting = a;
	qsort(v, n, sizeof(*v), cmp_agg);
	snprintf(name, sizeof(name), "@%s", a->name);
	for (size_t i = top && top < n ? n - top : 0; i < n; i++) {
		const struct saggval *d = vxt_sent_value(&a->tab, v[i]);
		struct skey k;

		vxt_sent_key(v[i], &k);
		print_key(name, &k, out);
		if (a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE) {
			fputs(": \n", out);	/* bpftrace's "key: " before a histogram */
			if (a->fn == FN_QUANTIZE)
				print_hist(a, d, div, out);
			else if (kind == BTK_HISTK)
				print_histk(a, d, s->bt->histk[a - s->aggs], div, out);
			else
				print_lhist(a, d, out);
			if (i + 1 < n)
				fputc('\n', out);
		} else if (kind == BTK_STATS) {
			fprintf(out, ": count %" PRId64 ", average %" PRId64 ", total %" PRId64 "\n",
				d->count, d->count ? d->sum / d->count : 0, d->sum);
		} else {
			fprintf(out, ": %" PRId64 "\n", value_of(a, d) / div);
		}
	}
	if (a->fn == FN_QUANTIZE || a->fn == FN_LQUANTIZE || a->fn == FN_AVG)
		fputc('\n', out);
	free(v);
}

static const struct stab *sorting_vars;

static int cmp_var(const void *pa, const void *pb)
{
	const struct sent *a = *(const struct sent *const *)pa;
	const struct sent *b = *(const struct sent *const *)pb;
	const struct script_value *va = vxt_sent_value(sorting_vars, a);
	const struct script_value *vb = vxt_sent_value(sorting_vars, b);
	struct skey ka, kb;

	if (va->type != SV_STR && vb->type != SV_STR && va->i != vb->i)
		return va->i < vb->i ? -1 : 1;
	vxt_sent_key(a, &ka);
	vxt_sent_key(b, &kb);
	return cmp_key(&ka, &kb);
}

static void print_val(const struct script_value *v, FILE *out)
{
	if (v->type == SV_STR)
		fprintf(out, ": %s\n", v->s);
	else
		fprintf(out, ": %" PRId64 "\n", v->i);
}

void vxt_bt_print_var(const struct vxt_script *s, unsigned var, FILE *out)
{
	const struct svar *sv = &s->vars[var];
	struct sent **v;
	size_t n = 0;

	if (sv->scope == SN_GLOBAL) {
		if (s->globals[var].type) {
			fputs(sv->name, out);
			print_val(&s->globals[var], out);
		}
		return;
	}
	v = entries(&s->vtab, var, &n);
	if (!v)
		return;
	sorting_vars = &s->vtab;
	qsort(v, n, sizeof(*v), cmp_var);
	for (size_t i = 0; i < n; i++) {
		struct skey k;

		vxt_sent_key(v[i], &k);
		print_key(sv->name, &k, out);
		print_val(vxt_sent_value(&s->vtab, v[i]), out);
	}
	free(v);
}

/* A map to print at END: an aggregation (var < 0) or a variable. */
struct endmap {
	const char *name;	/* with its '@' */
	int agg, var;
};

static int cmp_end(const void *pa, const void *pb)
{
	return strcmp(((const struct endmap *)pa)->name, ((const struct endmap *)pb)->name);
}

void vxt_bt_print_end(struct vxt_script *s, FILE *out)
{
	struct endmap *m = calloc(s->naggs + s->nvars + 1, sizeof(*m));
	char (*names)[72] = calloc(s->naggs + 1, sizeof(*names));
	size_t n = 0;

	fputs("\n\n", out);
	if (!m || !names || s->bt->no_print_maps)
		goto out;
	for (unsigned i = 0; i < s->naggs; i++)
		if (s->aggs[i].fn >= 0 && s->aggs[i].tab.n) {
			snprintf(names[i], sizeof(names[i]), "@%s", s->aggs[i].name);
			m[n].name = names[i];
			m[n].agg = (int)i;
			m[n++].var = -1;
		}
	for (unsigned i = 0; i < s->nvars; i++) {
		const struct svar *v = &s->vars[i];
		bool any = false;

		if (v->name[0] != '@')
			continue;
		if (v->scope == SN_GLOBAL)
			any = s->globals[i].type != SV_NONE;
		else if (v->scope == SN_ARRAY)
			for (size_t j = 0; j < s->vtab.cap && !any; j++) {
				const struct sent *e = vxt_stab_at(&s->vtab, j);

				any = e && e->ns == i;
			}
		if (any) {
			m[n].name = v->name;
			m[n].agg = -1;
			m[n++].var = (int)i;
		}
	}
	if (!n)
		goto out;
	qsort(m, n, sizeof(*m), cmp_end);
	for (size_t i = 0; i < n; i++) {
		if (m[i].agg >= 0)
			vxt_bt_agg_print(s, &s->aggs[m[i].agg], out);
		else
			vxt_bt_print_var(s, (unsigned)m[i].var, out);
	}
out:
	free(m);
	free(names);
}
