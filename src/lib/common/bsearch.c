/* bsearch.c - the lower bound of a value in a sorted array of 64-bit keys
 *
 * Ordinals, times and keys are kept sorted in plain uint64_t arrays; one
 * binary search serves them all.
 */
#include "vxtrace/util.h"

size_t vxt_lower_bound_u64(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
