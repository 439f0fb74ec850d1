/* tracefs_page.c - the events of one page of a tracefs ring (see
 * tracefs_page.h): the event types of the kernel's ring_buffer.c, a data
 * event of 1 to 28 words (its length in the type), 0 (its length in the
 * next word), 29 padding or a discarded event, 30 a time extension, 31 an
 * absolute time stamp.
 */
#include <string.h>

#include "source/tracefs_page.h"

#define COMMIT_MASK	((1u << 27) - 1)	/* the commit count's size bits */
#define TS_SHIFT	27
#define TS_MSB		(0xf8ull << 56)	/* absolute stamps lack these bits */
enum { T_DATA_MAX = 28, T_PADDING = 29, T_TIME_EXTEND = 30, T_TIME_STAMP = 31 };

static uint32_t rd32(const struct tfs_page *p, uint32_t at)
{
	uint32_t v;

	memcpy(&v, p->data + at, 4);
	return v;
}

int vxt_tfs_page_load(struct tfs_page *p, const void *page, size_t page_size,
		      int long_size, bool big)
{
	const unsigned char *b = page;
	uint64_t commit = 0;
	uint32_t start = 8 + (long_size == 4 ? 4 : 8);

	memset(p, 0, sizeof(*p));
	if (page_size < start)
		return -1;
	memcpy(&p->ts, b, 8);
	if (long_size == 4) {
		uint32_t c;

		memcpy(&c, b + 8, 4);
		commit = c;
	} else {
		memcpy(&commit, b + 8, 8);
	}
	p->big = big;
	p->data = b + start;
	p->size = (uint32_t)commit & COMMIT_MASK;
	if (p->size > page_size - start) {
		p->size = 0;
		return -1;
	}
	return 0;
}

const void *vxt_tfs_page_next(struct tfs_page *p, uint32_t *len, uint64_t *ts)
{
	while (p->pos + 4 <= p->size) {
		uint32_t h = rd32(p, p->pos), type, delta, n;
		uint32_t at = p->pos + 4;	/* after the header word */

		type = p->big ? h >> 27 : h & 31;
		delta = p->big ? h & ((1u << 27) - 1) : h >> 5;
		switch (type) {
		case T_PADDING:
			/* delta 0: the rest of the page; else a discarded event
			 * of array[0] bytes whose time still counts */
			if (!delta || at + 4 > p->size)
				return p->pos = p->size, NULL;
			p->ts += delta;
			p->pos = at + rd32(p, at);
			continue;
		case T_TIME_EXTEND:
		case T_TIME_STAMP:
			if (at + 4 > p->size)
				return p->pos = p->size, NULL;
			if (type == T_TIME_EXTEND)
				p->ts += ((uint64_t)rd32(p, at) << TS_SHIFT) + delta;
			else
				p->ts = ((uint64_t)rd32(p, at) << TS_SHIFT | delta) |
					(p->ts & TS_MSB);
			p->pos = at + 4;
			continue;
		case 0:
			if (at + 4 > p->size)
				return p->pos = p->size, NULL;
			n = rd32(p, at);	/* the data and this word */
			if (n < 4 || n > p->size - at)
				return p->pos = p->size, NULL;
			p->ts += delta;
			p->pos = at + n;
			*len = (n - 4 + 3) & ~3u;
			*ts = p->ts;
			return p->data + at + 4;
		default:
			n = type * 4;
			if (n > p->size - at)
				return p->pos = p->size, NULL;
			p->ts += delta;
			p->pos = at + n;
			*len = n;
			*ts = p->ts;
			return p->data + at;
		}
	}
	return NULL;
}
