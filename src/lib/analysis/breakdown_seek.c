/* breakdown_seek.c - the breakdown's seek distances: the mode counter's
 * slow paths, and the mode and median of the distances
 *
 * The fast paths, taken per queue and issue, are inline in
 * breakdown_seek.h. The median is exact while the mode table holds every
 * distance, else the distribution's.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/breakdown_seek.h"

static int mode_bits(struct vxt_bd_seek *s)
{
	s->mbits = calloc((size_t)1 << (MODE_BITS_LG - 6), sizeof(*s->mbits));
	if (!s->mbits)
		return -ENOMEM;
	for (size_t j = 0; j < s->mcap; j++)
		if (s->mtab[j].count)
			s->mbits[mode_word(s->mtab[j].key)] |= mode_mask(s->mtab[j].key);
	return 0;
}

/* mode_count() when the table must grow first, or becomes full. */
__attribute__((noinline)) int vxt_bd_mode_count_slow(struct vxt_bd_seek *s, uint64_t d)
{
	if (s->mlen >= VXT_BD_MODE_MAX) {
		if (mode_bits(s) < 0)
			return -ENOMEM;
		mode_count_full(s, d);
		return 0;
	}
	if (modetab_room(&s->mtab, &s->mcap, s->mlen, 1024, NULL) < 0)
		return -ENOMEM;
	mode_insert(s, d);
	return 0;
}

/* Count the pending distances, oldest first, then the late ones. */
int vxt_bd_mode_flush(struct vxt_bd_seek *s)
{
	int rc = 0;

	for (; s->npend && !rc; s->npend--)
		rc = mode_count(s, s->pend[(s->pend_at - s->npend) % VXT_BD_PEND]);
	for (; s->nlate; s->nlate--)
		mode_probe(s, s->late[(s->late_at - s->nlate) % VXT_BD_LATE]);
	return rc;
}

void vxt_bd_seek_mode(const struct vxt_bd_seek *s, uint64_t *value, uint64_t *count)
{
	*value = 0;
	*count = 0;
	for (size_t i = 0; i < s->mcap; i++) {
		const struct vxt_bd_mode *e = &s->mtab[i];

		if (e->count > *count || (e->count && e->count == *count && e->key < *value)) {
			*value = e->key;
			*count = e->count;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ceil(n/2)-th smallest distance: the distribution of every distance
 * names its bucket; the exact counts of the distances in that bucket alone
 * are sorted and walked. */
uint64_t vxt_bd_seek_median(const struct vxt_bd_seek *s)
{
	const struct vxt_latdist *d = &s->dist;
	uint64_t *keys, seen = 0, rank = (s->n + 1) / 2, v = 0;
	size_t i, n = 0;
	uint32_t k;

	if (s->mode_full || !s->mlen || !d->b)
		return vxt_latdist_quantile(d, 0.5);
	for (k = 0; k < d->nb && seen + d->b[k] < rank; k++)
		seen += d->b[k];
	if (k == d->nb)
		return d->max;
	keys = malloc((d->b[k] < s->mlen ? d->b[k] : s->mlen) * sizeof(*keys));
	if (!keys)
		return vxt_latdist_quantile(d, 0.5);
	for (i = 0; i < s->mcap; i++)
		if (s->mtab[i].count && vxt_latdist_bucket(s->mtab[i].key) == d->blo + k)
			keys[n++] = s->mtab[i].key;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i++) {
		seen += mode_slot(s->mtab, s->mcap, keys[i])->count;
		v = keys[i];
		if (seen >= rank)
			break;
	}
	free(keys);
	return v;
}

void vxt_bd_seek_free(struct vxt_bd_seek *s)
{
	vxt_latdist_free(&s->dist);
	free(s->mtab);
	free(s->mbits);
}
