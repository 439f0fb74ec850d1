/* latdist.h - the one latency distribution every view reads its quantiles from
 *
 * Exact count, sum, minimum and maximum; quantiles from log-linear buckets
 * with 7 significant bits (128 buckets per power of two, values under 256
 * their own bucket), or from the samples themselves while there are at most
 * VXT_LATDIST_EXACT of them. The rule (formats/reports.md): the q quantile is
 * the nearest-rank sample, the smallest with at least q of the samples at or
 * below it; vxt_latdist_quantile() returns the top of the bucket holding it,
 * clamped to [min, max], so it is never below the exact value and at most
 * 1/128 (0.79%) above it, exact under 256 ns and for up to 8 samples, and
 * p99 >= p50 always.
 *
 * A zeroed struct is an empty distribution; buckets are allocated when the
 * ninth sample comes, over the range of powers of two seen only.
 *
 *   struct vxt_latdist d = { 0 };
 *   vxt_latdist_add(&d, ns);             // per completion
 *   p99 = vxt_latdist_quantile(&d, 0.99);
 *   vxt_latdist_free(&d);
 */
#ifndef VXTRACE_LATDIST_H
#define VXTRACE_LATDIST_H

#include <stddef.h>
#include <stdint.h>

#define VXT_LATDIST_BITS 7
#define VXT_LATDIST_SUB (1u << VXT_LATDIST_BITS)	/* buckets per power of two */
#define VXT_LATDIST_BUCKETS (58u * VXT_LATDIST_SUB)	/* 0 .. 2^64 - 1 */
#define VXT_LATDIST_EXACT 8		/* samples kept as they are */

struct vxt_latdist {
	uint64_t count;			/* samples */
	uint64_t sum;			/* their sum (wraps past 2^64 ns) */
	uint64_t min, max;		/* 0 when empty */
	uint64_t *b;			/* counts of buckets blo .. blo + nb - 1; NULL
					 * while the samples are in few[] */
	uint32_t blo, nb;
	uint64_t unplaced;		/* counted, in no bucket (out of memory) */
	uint64_t few[VXT_LATDIST_EXACT];	/* the samples while b is NULL */
};

/* The bucket of @v. Can't fail. */
static inline unsigned vxt_latdist_bucket(uint64_t v)
{
	unsigned lg = 63u ^ (unsigned)__builtin_clzll(v | (2 * VXT_LATDIST_SUB - 1));

	return ((lg - VXT_LATDIST_BITS) << VXT_LATDIST_BITS) +
	       (unsigned)(v >> (lg - VXT_LATDIST_BITS));
}

/* The smallest and the largest value of bucket @i. */
uint64_t vxt_latdist_bucket_low(unsigned i);
uint64_t vxt_latdist_bucket_high(unsigned i);

/* vxt_latdist_add() past its fast path. */
int vxt_latdist_add_slow(struct vxt_latdist *d, uint64_t v);

/* Count one sample. @return 0, or -ENOMEM when its bucket could not be
 * allocated (it is then counted in count, sum, min, max and unplaced). */
static inline int vxt_latdist_add(struct vxt_latdist *d, uint64_t v)
{
	uint32_t i;

	if (v < d->min || !d->count)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->count++;
	d->sum += v;
	if (__builtin_expect(d->b != NULL, 1)) {
		i = vxt_latdist_bucket(v) - d->blo;
		if (i < d->nb) {
			d->b[i]++;
			return 0;
		}
	}
	return vxt_latdist_add_slow(d, v);
}

/* Count @n samples of value @v (coarser sources: the kernel's counts). */
int vxt_latdist_add_n(struct vxt_latdist *d, uint64_t v, uint64_t n);
/* Add every sample of @src to @dst. @return 0 or -ENOMEM (as add). */
int vxt_latdist_merge(struct vxt_latdist *dst, const struct vxt_latdist *src);
/* Make @dst a copy of @src (@dst freed first). @return 0 or -ENOMEM, and
 * then @dst is empty. */
int vxt_latdist_copy(struct vxt_latdist *dst, const struct vxt_latdist *src);
/* Free the buckets and empty @d; a zeroed or freed one is fine. */
void vxt_latdist_free(struct vxt_latdist *d);
/* Empty @d, keeping its allocation. */
void vxt_latdist_clear(struct vxt_latdist *d);

/* The nearest rank of quantile @q (0..1) among @n samples: ceil(q n),
 * at least 1, at most n; what every exact percentile of the product uses. */
uint64_t vxt_latdist_rank(double q, uint64_t n);
/* @return the @q quantile (0..1) as the header says; 0 when empty. Can't fail. */
uint64_t vxt_latdist_quantile(const struct vxt_latdist *d, double q);
/* @return the mean, rounded down; 0 when empty. */
uint64_t vxt_latdist_mean(const struct vxt_latdist *d);

/* Fold @d into @nb log2 buckets: out[k] += samples in [2^k, 2^(k+1)) (k = 0
 * also holds 0), the last bucket everything above. Can't fail. */
void vxt_latdist_log2(const struct vxt_latdist *d, uint64_t *out, unsigned nb);

/* A flat copy of @d for storage (SQL's hist column): @return the bytes
 * written to @buf, or the size needed when @size is too small. */
size_t vxt_latdist_encode(const struct vxt_latdist *d, void *buf, size_t size);
/* Add the distribution encoded in @buf to @d. @return 0, -EINVAL when @buf
 * is no encoding, -ENOMEM. */
int vxt_latdist_merge_encoded(struct vxt_latdist *d, const void *buf, size_t size);

#endif
