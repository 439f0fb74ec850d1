/* merge_aggs.c - the merged reader's pieces' aggregates, read a page at a time
 *
 * The pieces (every file's index entries on the merged clock) carry their
 * per-object aggregates only while their page is held: a page is up to
 * PIECE_PAGE consecutive chunks of one file, read from that file (through
 * its reader, vxt_aggcache_copy()) when one of its pieces is asked for, the
 * objects renumbered to the merged ids and sorted by them, into one of
 * PIECE_SLOTS buffers that are reused, never freed before the reader is. A
 * walk over all the pieces of 8 files of 10 M events (scan_index(), the
 * timeline of the whole trace) thus writes a few hundred KiB again and
 * again instead of 2.8 MiB of fresh memory, whose page faults cost more
 * than reading the entries twice from the page cache.
 * Invariant: a piece whose page is not held has objagg NULL and nobjagg 0;
 * the pieces of the two pages used last are held (a caller may hold two
 * pieces at once).
 */
#include <stdlib.h>

#include "format/merge_impl.h"

#define PIECE_PAGE 64	/* a file's chunks a page */

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

/* Pieces [@first, @end) lose their aggregates: their page is let go. */
static void drop_page(struct vxt_merge *m, size_t first, size_t end)
{
	for (size_t i = first; i < end && i < m->npieces; i++) {
		m->pieces[i].objagg = NULL;
		m->pieces[i].nobjagg = 0;
	}
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
	drop_page(m, v->first, v->end);
	v->first = v->end = SIZE_MAX;
	return v;
}

/* Read the page of pieces [@first, @end) of part @k into slot @s, ids
 * merged. A chunk whose aggregates no longer read keeps none (its file's
 * reader says why); out of memory, the page keeps none for now. */
static void read_page(struct vxt_merge *m, size_t k, size_t first, size_t end,
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
			return;
		s->a = g;
		s->cap = total;
	}
	if (total && vxt_aggcache_copy(p->r, c0, c1, s->a) < 0)
		return;
	g = s->a;
	for (size_t c = c0; c < c1; c++) {
		struct vxt_chunk_info *q = &m->pieces[m->piece_first[k] + c];
		bool sorted = true;

		/* 0 for a chunk whose aggregates no longer read */
		q->nobjagg = vxt_reader_chunk_fixed(p->r, c)->nobjagg;
		q->objagg = q->nobjagg ? g : NULL;
		for (uint32_t j = 0; j < q->nobjagg; j++) {
			g[j].object = g[j].object < p->nobj ? p->objmap[g[j].object] : 0;
			sorted = sorted && (!j || g[j - 1].object < g[j].object);
		}
		if (!sorted)	/* the merged ids need not keep the file's order */
			qsort(g, q->nobjagg, sizeof(*g), cmp_objagg);
		g += q->nobjagg;
	}
	s->first = first;
	s->end = end;
}

void vxt_merge_aggs_load(struct vxt_merge *m, size_t i)
{
	size_t k, first, end;
	struct piece_slot *s;

	if (i >= m->npieces)
		return;
	for (unsigned t = 0; t < MERGE_PIECE_SLOTS; t++) {
		s = &m->slots[t];
		if (s->first != SIZE_MAX && i >= s->first && i < s->end) {
			s->used = ++m->slot_tick;
			return;
		}
	}
	k = part_of(m, i);
	first = m->piece_first[k] + (i - m->piece_first[k]) / PIECE_PAGE * PIECE_PAGE;
	end = first + PIECE_PAGE;
	if (end > m->piece_first[k] + m->p[k].nch)
		end = m->piece_first[k] + m->p[k].nch;
	s = victim(m);
	s->used = ++m->slot_tick;
	read_page(m, k, first, end, s);
}

void vxt_merge_aggs_init(struct vxt_merge *m)
{
	for (unsigned s = 0; s < MERGE_PIECE_SLOTS; s++)
		m->slots[s] = (struct piece_slot){ .first = SIZE_MAX, .end = SIZE_MAX };
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
