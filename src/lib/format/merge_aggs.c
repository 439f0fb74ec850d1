/* merge_aggs.c - the merged reader's pieces, their aggregates read a page at a time
 *
 * A piece is a file's index entry on the merged clock (vxt_reader_piece()):
 * made when asked for from the file's entry, its times shifted, into one of
 * two structs used in turn. Its per-object aggregates are held only while
 * its page is: a page is up to MERGE_PIECE_PAGE consecutive chunks of one
 * file, read from that file (through its reader, vxt_aggcache_copy()) when
 * one of its pieces is asked for, the objects renumbered to the merged ids
 * and sorted by them, into one of MERGE_PIECE_SLOTS buffers that are
 * reused, never freed before the reader is. A walk over all the pieces of
 * 8 files of 10 M events (scan_index(), the timeline of the whole trace)
 * thus writes a few hundred KiB again and again instead of 2.8 MiB of
 * aggregates and 290 KiB of entries of fresh memory, whose page faults
 * cost more than reading the entries twice from the page cache.
 * Invariant: the pieces of the two pages used last are held, so the two
 * pieces returned last stay as they were (a caller may hold two at once).
 */
#include <errno.h>
#include <stdlib.h>

#include "format/merge_impl.h"

static int cmp_objagg(const void *a, const void *b)
{
	const struct vxt_objagg *x = a, *y = b;

	return x->object < y->object ? -1 : x->object > y->object;
}

/* The part holding piece @i (pieces are file by file, each in chunk order). */
static size_t part_of(const struct vxt_merge *m, size_t i)
{
	size_t k = 0;

	while (k + 1 < m->np && m->piece_first[k + 1] <= i)
		k++;
	return k;
}

/* The slot to read a page into: a free one, else the least recently used. */
static struct piece_slot *victim(struct vxt_merge *m)
{
	struct piece_slot *v = &m->slots[0];

	for (unsigned s = 0; s < MERGE_PIECE_SLOTS; s++) {
		struct piece_slot *t = &m->slots[s];

		if (t->first == SIZE_MAX)
			return t;
		if (t->used < v->used)
			v = t;
	}
	v->first = v->end = SIZE_MAX;
	return v;
}

/* Read the page of pieces [@first, @end) of part @k into slot @s, ids
 * merged. A chunk whose aggregates no longer read keeps none (its file's
 * reader says why). @return 0, or -ENOMEM (the slot stays empty). */
static int read_page(struct vxt_merge *m, size_t k, size_t first, size_t end,
		     struct piece_slot *s)
{
	const struct part *p = &m->p[k];
	size_t c0 = first - m->piece_first[k], c1 = end - m->piece_first[k], total = 0;
	struct vxt_objagg *g;

	for (size_t c = c0; c < c1; c++)
		total += vxt_reader_chunk_fixed(p->r, c)->nobjagg;
	if (total > s->cap) {
		g = realloc(s->a, total * sizeof(*g));
		if (!g)
			return -ENOMEM;
		s->a = g;
		s->cap = total;
	}
	if (total && vxt_aggcache_copy(p->r, c0, c1, s->a) < 0)
		return -ENOMEM;
	g = s->a;
	for (size_t c = c0; c < c1; c++) {
		/* 0 for a chunk whose aggregates no longer read */
		uint32_t n = vxt_reader_chunk_fixed(p->r, c)->nobjagg;
		bool sorted = true;

		s->off[c - c0] = (uint32_t)(g - s->a);
		s->n[c - c0] = n;
		for (uint32_t j = 0; j < n; j++) {
			g[j].object = g[j].object < p->nobj ? p->objmap[g[j].object] : 0;
			sorted = sorted && (!j || g[j - 1].object < g[j].object);
		}
		if (!sorted)	/* the merged ids need not keep the file's order */
			qsort(g, n, sizeof(*g), cmp_objagg);
		g += n;
	}
	s->first = first;
	s->end = end;
	return 0;
}

/* The slot holding piece @i of part @k, its page read if it was not.
 * @return it, or NULL when out of memory. */
static struct piece_slot *hold(struct vxt_merge *m, size_t i, size_t k)
{
	size_t first, end;
	struct piece_slot *s;

	for (unsigned t = 0; t < MERGE_PIECE_SLOTS; t++) {
		s = &m->slots[t];
		if (s->first != SIZE_MAX && i >= s->first && i < s->end) {
			s->used = ++m->slot_tick;
			return s;
		}
	}
	first = m->piece_first[k] + (i - m->piece_first[k]) / MERGE_PIECE_PAGE * MERGE_PIECE_PAGE;
	end = first + MERGE_PIECE_PAGE;
	if (end > m->piece_first[k] + m->p[k].nch)
		end = m->piece_first[k] + m->p[k].nch;
	s = victim(m);
	s->used = ++m->slot_tick;
	return read_page(m, k, first, end, s) < 0 ? NULL : s;
}

size_t vxt_merge_npieces(const struct vxt_merge *m)
{
	return m->npieces;
}

const struct vxt_chunk_info *vxt_merge_piece(struct vxt_merge *m, size_t i)
{
	struct vxt_chunk_info *q;
	const struct part *p;
	struct piece_slot *s;
	size_t k;

	if (i >= m->npieces)
		return NULL;
	k = part_of(m, i);
	p = &m->p[k];
	s = hold(m, i, k);
	q = &m->ring[m->ring_next++ % 2];
	*q = *vxt_reader_chunk_fixed(p->r, i - m->piece_first[k]);
	q->first_ns += (uint64_t)p->shift;
	q->last_ns += (uint64_t)p->shift;
	q->nobjagg = s ? s->n[i - s->first] : 0;	/* out of memory: none for now */
	q->objagg = q->nobjagg ? s->a + s->off[i - s->first] : NULL;
	return q;
}

int vxt_merge_aggs_init(struct vxt_merge *m)
{
	for (unsigned s = 0; s < MERGE_PIECE_SLOTS; s++)
		m->slots[s] = (struct piece_slot){ .first = SIZE_MAX, .end = SIZE_MAX };
	m->piece_first = calloc(m->np ? m->np : 1, sizeof(*m->piece_first));
	if (!m->piece_first)
		return -ENOMEM;
	m->npieces = 0;
	for (size_t k = 0; k < m->np; k++) {
		m->piece_first[k] = m->npieces;
		m->npieces += m->p[k].nch;
	}
	return 0;
}

void vxt_merge_aggs_free(struct vxt_merge *m)
{
	for (unsigned s = 0; s < MERGE_PIECE_SLOTS; s++) {
		free(m->slots[s].a);
		m->slots[s] = (struct piece_slot){ .first = SIZE_MAX, .end = SIZE_MAX };
	}
	free(m->piece_first);
	m->piece_first = NULL;
}
