/* aggcache.c - a file reader's per-object chunk aggregates, read when asked
 *
 * Most of an index is its per-object aggregates (192 bytes an object a
 * chunk: 35 MB for 1000M events on four devices). The reader keeps every
 * entry's fixed part and, per chunk, where its aggregates lie in the file
 * (in the footer's copy of the entry, else in the entry before the chunk's
 * data); vxt_reader_chunk() reads the aggregates of a page of AGG_PAGE chunks
 * when one of them is asked for, and the least recently used pages go when
 * the pages hold more than AGG_BUDGET bytes or AGG_SLOTS pages. The two
 * pages used last always stay: a caller may hold two entries at once.
 * The bytes passed their entry's CRC when the index was read; a page that
 * no longer reads or names known objects (the file was changed since) gives
 * its chunks no aggregates, and the reader's error says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/reader_impl.h"
#include "format/vxtfile.h"
#include "vxtrace/util.h"

#define AGG_PAGE	256		/* chunks a page */
#define AGG_SLOTS	16		/* pages kept at most */
#define AGG_BUDGET	(4u << 20)	/* bytes of aggregates kept, beyond two pages */
#define AGG_GAP		4096		/* bytes between two entries' aggregates read through */
#define AGG_READ	(64u << 10)	/* bytes one read may span */

struct aggpage {
	size_t page;
	struct vxt_objagg *a;
	size_t n;
	uint64_t used;
};

struct vxt_aggcache {
	uint64_t *off;			/* per chunk: file offset of its aggregates */
	uint32_t *n;			/* per chunk: how many */
	size_t cap;
	struct aggpage pages[AGG_SLOTS];
	unsigned npages;
	size_t last_page;		/* the page used last, or SIZE_MAX */
	uint64_t tick;
	size_t bytes;
};

int vxt_aggcache_note(struct vxt_reader *r, size_t i, uint64_t off, uint32_t n)
{
	struct vxt_aggcache *c = r->aggs;

	if (!c) {
		c = r->aggs = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->last_page = SIZE_MAX;
	}
	if (i >= c->cap) {
		/* two arrays of one length: each grows from the length they share */
		size_t ocap = c->cap, ncap = c->cap;

		if (vxt_grow(&c->off, &ocap, i + 1, sizeof(*c->off)) < 0 ||
		    vxt_grow(&c->n, &ncap, i + 1, sizeof(*c->n)) < 0)
			return -ENOMEM;
		c->cap = ncap;
	}
	c->off[i] = off;
	c->n[i] = n;
	return 0;
}

static void page_range(const struct vxt_reader *r, size_t page, size_t *first, size_t *end)
{
	*first = page * AGG_PAGE;
	*end = *first + AGG_PAGE < r->n ? *first + AGG_PAGE : r->n;
}

static void evict(struct vxt_reader *r, unsigned k)
{
	struct vxt_aggcache *c = r->aggs;
	struct aggpage p = c->pages[k];
	size_t first, end;

	page_range(r, p.page, &first, &end);
	for (size_t i = first; i < end && i < c->cap; i++)
		r->chunks[i].objagg = NULL;
	free(p.a);
	c->bytes -= p.n * sizeof(*p.a);
	c->pages[k] = c->pages[--c->npages];
	if (c->last_page == p.page)
		c->last_page = SIZE_MAX;
}

/* Make room for @bytes more: the oldest pages go, the two newest stay. */
static void make_room(struct vxt_reader *r, size_t bytes)
{
	struct vxt_aggcache *c = r->aggs;

	while (c->npages >= AGG_SLOTS || (c->npages > 2 && c->bytes + bytes > AGG_BUDGET)) {
		unsigned old = 0;

		for (unsigned k = 1; k < c->npages; k++)
			if (c->pages[k].used < c->pages[old].used)
				old = k;
		evict(r, old);
	}
}

/* The @n aggregates of a chunk at @p into @out: all of known objects? */
static bool parse_chunk(struct vxt_reader *r, const uint8_t *p, uint32_t n, struct vxt_objagg *out)
{
	struct vxt_cur cur = { p, p + (size_t)n * VXT_OBJAGG_SIZE, false };
	size_t nobj = vxt_objtab_count(r->objs);

	for (uint32_t k = 0; k < n; k++) {
		vxt_get_objagg(&cur, &out[k]);
		if (out[k].object >= nobj)
			return false;
	}
	return !cur.bad;
}

/* A chunk whose aggregates no longer read: it keeps none. */
static void drop_chunk(struct vxt_reader *r, size_t i)
{
	r->aggs->n[i] = 0;
	r->chunks[i].nobjagg = 0;
	r->chunks[i].objagg = NULL;
	vxt_reader_seterr(r, -EBADMSG,
			  "chunk %zu: index entry changed since the file was opened (offset %llu)",
			  i, (unsigned long long)r->chunks[i].offset);
}

/* The aggregates of chunks [@first, @end) into @out, in chunk order, when
 * @set each chunk's objagg pointed at its own. Entries that lie close
 * together are read at once, through a buffer of at most AGG_READ bytes (a
 * larger one would be new memory, page faults, at each call). A chunk whose
 * aggregates no longer read gets none (drop_chunk()).
 * @return how many were written, or -ENOMEM */
static long read_aggs(struct vxt_reader *r, size_t first, size_t end, struct vxt_objagg *out,
		      bool set)
{
	struct vxt_aggcache *c = r->aggs;
	uint8_t *buf = NULL;
	size_t bufcap = 0, k = 0;

	for (size_t i = first; i < end;) {
		uint64_t s, e;
		size_t j;

		if (!c->n[i]) {
			i++;
			continue;
		}
		s = c->off[i];
		e = s + (uint64_t)c->n[i] * VXT_OBJAGG_SIZE;
		for (j = i + 1; j < end; j++) {
			uint64_t je = c->off[j] + (uint64_t)c->n[j] * VXT_OBJAGG_SIZE;

			if (!c->n[j])
				continue;
			if (c->off[j] < e || c->off[j] - e > AGG_GAP || je - s > AGG_READ)
				break;
			e = je;
		}
		if (e - s > bufcap) {
			uint8_t *nb = realloc(buf, e - s);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			bufcap = e - s;
		}
		if (vxt_chunksrc_read(&r->src, s, buf, e - s) < 0) {
			for (; i < j; i++)
				if (c->n[i])
					drop_chunk(r, i);
			continue;
		}
		for (; i < j; i++) {
			if (!c->n[i])
				continue;
			if (parse_chunk(r, buf + (c->off[i] - s), c->n[i], out + k)) {
				if (set)
					r->chunks[i].objagg = out + k;
				k += c->n[i];
			} else {
				drop_chunk(r, i);
			}
		}
	}
	free(buf);
	return (long)k;
}

static void load_page(struct vxt_reader *r, size_t page)
{
	struct vxt_aggcache *c = r->aggs;
	size_t first, end, total = 0;
	struct vxt_objagg *a;

	page_range(r, page, &first, &end);
	for (size_t i = first; i < end; i++)
		total += c->n[i];
	if (!total)
		return;
	make_room(r, total * sizeof(*a));
	a = malloc(total * sizeof(*a));
	if (!a)
		return;	/* no aggregates for now: asked again, read again */
	if (read_aggs(r, first, end, a, true) < 0) {
		for (size_t i = first; i < end; i++)
			r->chunks[i].objagg = NULL;
		free(a);
		return;
	}
	c->pages[c->npages++] = (struct aggpage){ .page = page, .a = a, .n = total,
						  .used = ++c->tick };
	c->bytes += total * sizeof(*a);
	c->last_page = page;
}

long vxt_aggcache_copy(struct vxt_reader *r, size_t first, size_t end, struct vxt_objagg *out)
{
	size_t known = r->aggs ? r->aggs->cap : 0;

	end = end < r->n ? end : r->n;
	/* chunks whose aggregates were never noted have none to read */
	for (size_t i = first > known ? first : known; i < end; i++)
		r->chunks[i].nobjagg = 0;
	if (first >= end || first >= known)
		return 0;
	return read_aggs(r, first, end < known ? end : known, out, false);
}

void vxt_aggcache_load(struct vxt_reader *r, size_t i)
{
	struct vxt_aggcache *c = r->aggs;
	size_t page = i / AGG_PAGE;

	if (!c || i >= r->n || i >= c->cap)
		return;
	if (r->chunks[i].objagg || !c->n[i]) {
		if (page == c->last_page)
			return;
		for (unsigned k = 0; k < c->npages; k++)
			if (c->pages[k].page == page) {
				c->pages[k].used = ++c->tick;
				c->last_page = page;
			}
		return;
	}
	/* a page read before the file grew into it is read again whole */
	for (unsigned k = 0; k < c->npages; k++)
		if (c->pages[k].page == page) {
			evict(r, k);
			break;
		}
	load_page(r, page);
}

void vxt_aggcache_reset(struct vxt_reader *r)
{
	struct vxt_aggcache *c = r->aggs;

	if (!c)
		return;
	while (c->npages)
		evict(r, 0);
	c->last_page = SIZE_MAX;
}

void vxt_aggcache_free(struct vxt_reader *r)
{
	struct vxt_aggcache *c = r->aggs;

	if (!c)
		return;
	vxt_aggcache_reset(r);
	free(c->off);
	free(c->n);
	free(c);
	r->aggs = NULL;
}
