/* latdist.c - the one latency distribution: exact for a few samples, else
 * log-linear buckets with 7 significant bits
 *
 * Invariant: b == NULL and count <= VXT_LATDIST_EXACT with the samples in
 * few[0 .. count), or b holds buckets blo .. blo + nb - 1 (both ends whole
 * powers of two) whose counts add up to count - unplaced.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/latdist.h"

#define SUB VXT_LATDIST_SUB
#define ENC_MAGIC 0x31444c56u	/* "VLD1" */

uint64_t vxt_latdist_bucket_low(unsigned i)
{
	unsigned o;

	if (i < 2 * SUB)
		return i;
	o = i / SUB - 1;
	return (uint64_t)(SUB + i % SUB) << o;
}

uint64_t vxt_latdist_bucket_high(unsigned i)
{
	if (i < 2 * SUB)
		return i;
	return vxt_latdist_bucket_low(i) + ((uint64_t)1 << (i / SUB - 1)) - 1;
}

/* Make buckets @first .. @last held, keeping the counts. @return 0 or -ENOMEM. */
static int cover(struct vxt_latdist *d, unsigned first, unsigned last)
{
	uint32_t lo, hi, n;
	uint64_t *b;

	if (d->b) {
		if (d->blo < first)
			first = d->blo;
		if (d->blo + d->nb - 1 > last)
			last = d->blo + d->nb - 1;
	}
	lo = first & ~(SUB - 1);
	hi = (last | (SUB - 1)) + 1;
	n = hi - lo;
	b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (d->b) {
		memcpy(b + (d->blo - lo), d->b, d->nb * sizeof(*b));
		free(d->b);
	}
	d->b = b;
	d->blo = lo;
	d->nb = n;
	return 0;
}

/* Put @n samples of @v in their bucket (count and the rest already done). */
static int place(struct vxt_latdist *d, uint64_t v, uint64_t n)
{
	unsigned i = vxt_latdist_bucket(v);

	if ((!d->b || i - d->blo >= d->nb) && cover(d, i, i) < 0) {
		d->unplaced += n;
		return -ENOMEM;
	}
	d->b[i - d->blo] += n;
	return 0;
}

/* Move the samples of few[] (@k of them) into buckets. */
static int spill(struct vxt_latdist *d, uint64_t k)
{
	unsigned first = UINT32_MAX, last = 0;

	for (uint64_t j = 0; j < k; j++) {
		unsigned i = vxt_latdist_bucket(d->few[j]);

		first = i < first ? i : first;
		last = i > last ? i : last;
	}
	if (k && cover(d, first, last) < 0) {
		d->unplaced += k;
		return -ENOMEM;
	}
	for (uint64_t j = 0; j < k; j++)
		d->b[vxt_latdist_bucket(d->few[j]) - d->blo]++;
	return 0;
}

int vxt_latdist_add_slow(struct vxt_latdist *d, uint64_t v)
{
	if (!d->b) {
		if (d->count <= VXT_LATDIST_EXACT) {
			d->few[d->count - 1] = v;
			return 0;
		}
		if (spill(d, d->count - 1) < 0)	/* without @v: placed below */
			return d->unplaced++, -ENOMEM;
	}
	return place(d, v, 1);
}

static void count_n(struct vxt_latdist *d, uint64_t v, uint64_t n)
{
	if (v < d->min || !d->count)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->count += n;
	d->sum += v * n;
}

int vxt_latdist_add_n(struct vxt_latdist *d, uint64_t v, uint64_t n)
{
	uint64_t was = d->count;

	if (!n)
		return 0;
	if (n == 1)
		return vxt_latdist_add(d, v);
	count_n(d, v, n);
	if (!d->b && d->count <= VXT_LATDIST_EXACT) {
		for (uint64_t j = was; j < d->count; j++)
			d->few[j] = v;
		return 0;
	}
	if (!d->b && spill(d, was) < 0)
		return d->unplaced += n, -ENOMEM;
	return place(d, v, n);
}

int vxt_latdist_merge(struct vxt_latdist *dst, const struct vxt_latdist *src)
{
	uint64_t was = dst->count;
	int rc = 0;

	if (!src->count)
		return 0;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->unplaced += src->unplaced;
	if (!dst->b && dst->count <= VXT_LATDIST_EXACT) {
		memcpy(dst->few + was, src->few, src->count * sizeof(src->few[0]));
		return 0;
	}
	if (!dst->b && spill(dst, was) < 0)
		rc = -ENOMEM;
	if (!src->b) {
		for (uint64_t j = 0; j < src->count; j++)
			if (place(dst, src->few[j], 1) < 0)
				rc = -ENOMEM;
		return rc;
	}
	if (!dst->b || src->blo < dst->blo || src->blo + src->nb > dst->blo + dst->nb) {
		if (cover(dst, src->blo, src->blo + src->nb - 1) < 0) {
			dst->unplaced += src->count - src->unplaced;
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < src->nb; i++)
		dst->b[src->blo + i - dst->blo] += src->b[i];
	return rc;
}

int vxt_latdist_copy(struct vxt_latdist *dst, const struct vxt_latdist *src)
{
	vxt_latdist_free(dst);
	if (vxt_latdist_merge(dst, src) < 0) {
		vxt_latdist_free(dst);
		return -ENOMEM;
	}
	return 0;
}

void vxt_latdist_free(struct vxt_latdist *d)
{
	free(d->b);
	memset(d, 0, sizeof(*d));
}

void vxt_latdist_clear(struct vxt_latdist *d)
{
	uint64_t *b = d->b;
	uint32_t lo = d->blo, n = d->nb;

	memset(d, 0, sizeof(*d));
	if (b) {
		memset(b, 0, n * sizeof(*b));
		d->b = b;
		d->blo = lo;
		d->nb = n;
	}
}

uint64_t vxt_latdist_rank(double q, uint64_t n)
{
	double r;
	uint64_t k;

	if (!n || q <= 0)
		return 1;
	if (q >= 1)
		return n;
	r = q * (double)n;
	k = (uint64_t)r;
	/* ceil, where q n a hair above a whole number is that number:
	 * 0.99 * 100 must be rank 99 however the product rounds */
	if ((double)k < r - (r > 1 ? r : 1) * 1e-12)
		k++;
	return k < 1 ? 1 : k > n ? n : k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t vxt_latdist_quantile(const struct vxt_latdist *d, double q)
{
	uint64_t placed = d->count - d->unplaced, rank, seen = 0, v;

	if (!d->count)
		return 0;
	if (!d->b) {
		uint64_t s[VXT_LATDIST_EXACT];

		memcpy(s, d->few, d->count * sizeof(s[0]));
		qsort(s, d->count, sizeof(s[0]), cmp_u64);
		return s[vxt_latdist_rank(q, d->count) - 1];
	}
	if (!placed)
		return d->max;
	rank = vxt_latdist_rank(q, placed);
	for (uint32_t i = 0; i < d->nb; i++) {
		seen += d->b[i];
		if (seen >= rank) {
			v = vxt_latdist_bucket_high(d->blo + i);
			return v < d->min ? d->min : v > d->max ? d->max : v;
		}
	}
	return d->max;
}

uint64_t vxt_latdist_mean(const struct vxt_latdist *d)
{
	return d->count ? d->sum / d->count : 0;
}

static unsigned log2_of(uint64_t v, unsigned nb)
{
	unsigned k = v ? 63u - (unsigned)__builtin_clzll(v) : 0;

	return k < nb ? k : nb - 1;
}

void vxt_latdist_log2(const struct vxt_latdist *d, uint64_t *out, unsigned nb)
{
	if (!nb)
		return;
	if (!d->b) {
		for (uint64_t j = 0; j < d->count; j++)
			out[log2_of(d->few[j], nb)]++;
		return;
	}
	/* a bucket lies inside one power of two */
	for (uint32_t i = 0; i < d->nb; i++)
		if (d->b[i])
			out[log2_of(vxt_latdist_bucket_low(d->blo + i), nb)] += d->b[i];
}

/* The encoding: magic, count, sum, min, max, unplaced, lo, n (u32 each for
 * the last two), then count samples when n == 0, else n bucket counts; all
 * little-endian as the host is (a hist column lives in one process). */
struct enc_head {
	uint32_t magic, lo, n, pad;
	uint64_t count, sum, min, max, unplaced;
};

size_t vxt_latdist_encode(const struct vxt_latdist *d, void *buf, size_t size)
{
	struct enc_head h = { ENC_MAGIC, d->b ? d->blo : 0, d->b ? d->nb : 0, 0,
			      d->count, d->sum, d->min, d->max, d->unplaced };
	size_t body = d->b ? d->nb * sizeof(uint64_t) : d->count * sizeof(uint64_t);

	if (size < sizeof(h) + body)
		return sizeof(h) + body;
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), d->b ? d->b : d->few, body);
	return sizeof(h) + body;
}

int vxt_latdist_merge_encoded(struct vxt_latdist *d, const void *buf, size_t size)
{
	struct vxt_latdist s = { 0 };
	struct enc_head h;
	size_t body;
	int rc;

	if (size < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != ENC_MAGIC || h.lo % SUB || h.n % SUB || h.lo + (uint64_t)h.n > VXT_LATDIST_BUCKETS ||
	    (!h.n && h.count > VXT_LATDIST_EXACT))
		return -EINVAL;
	body = h.n ? h.n * sizeof(uint64_t) : h.count * sizeof(uint64_t);
	if (size != sizeof(h) + body)
		return -EINVAL;
	s.count = h.count, s.sum = h.sum, s.min = h.min, s.max = h.max, s.unplaced = h.unplaced;
	if (h.n) {
		s.b = malloc(body);
		if (!s.b)
			return -ENOMEM;
		s.blo = h.lo, s.nb = h.n;
	}
	memcpy(s.b ? (void *)s.b : (void *)s.few, (const char *)buf + sizeof(h), body);
	rc = vxt_latdist_merge(d, &s);
	free(s.b);
	return rc;
}
