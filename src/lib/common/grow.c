/* grow.c - room for one more item in a growing array
 *
 * The arrays the library builds as it reads (object rows, per-device counts)
 * grow by doubling, from 16 items; vxt_grow() is that one rule.
 */
#include <errno.h>
#include <stdlib.h>

#include "vxtrace/util.h"

int vxt_grow(void *array, size_t *cap, size_t want, size_t size)
{
	void **pp = array;
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (want <= *cap)
		return 0;
	while (ncap < want)
		ncap *= 2;
	n = realloc(*pp, ncap * size);
	if (!n)
		return -ENOMEM;
	*pp = n;
	*cap = ncap;
	return 0;
}
