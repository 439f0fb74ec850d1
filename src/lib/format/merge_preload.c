/* merge_preload.c - the file chunks a merged chunk reaches, decompressed at once
 *
 * Merging a chunk decodes, file by file, the chunk each file is in when its
 * events come to the top of the merge: one after the other, each a zstd
 * decompression of every column. When the files' clocks overlap, the first
 * merged chunk reaches the first chunk of every file, so a first screen of
 * eight files waited for eight decompressions in a row. Before a merged
 * chunk is merged, the file chunks it may reach (those whose least merge
 * key is at most vxt_merge_reach()) and that are not held already are begun
 * together: on helper threads (one per CPU but the caller's, at most 8, none
 * on one CPU) and the caller, each with a zstd context and compressed-data
 * buffer of its own, each writing only its file's decoder. The merge then
 * finds them held. A chunk that fails is left as it was: the merge begins
 * it again and reports the damage as it always does, so the result is the
 * same with any number of threads.
 * The parts' decompressed columns and the workers' compressed data are
 * lent one block of memory on huge pages where the kernel gives them
 * (vxt_merge_lend()): eight chunks of about 400 KiB each written on 4 KiB
 * pages were some 800 page faults, the most costly part of a first screen
 * on a virtual machine.
 */
#include <stdint.h>
#include <stdlib.h>

#include "format/bigbuf.h"
#include "format/codec.h"
#include "format/merge_impl.h"
#include "format/par.h"
#include "format/vxtfile.h"

#define RAW_ALIGN 64	/* each part's share of the block starts on a cache line */

struct job {
	struct part *p;
	const struct vxt_chunk_info *ci;	/* read on the caller's thread */
	size_t chunk;
	int rc;
};

struct batch {
	struct job *jobs;
	struct vxt_merge *m;
};

/* Begin job @j's chunk with worker @w's zstd context and buffer. */
static void run_job(void *ctx, size_t j, unsigned w)
{
	struct batch *b = ctx;
	struct job *jb = &b->jobs[j];
	struct vxt_chunkdec *work = w ? &b->m->pool[w - 1] : &b->m->work;
	const struct vxt_reader *r = jb->p->r;
	char msg[200];

	vxt_chunkdec_swap_work(&jb->p->dec, work);
	jb->rc = vxt_chunkdec_begin(&jb->p->dec, vxt_reader_src(r), jb->ci, jb->chunk,
				    r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES,
				    (uint32_t)vxt_objtab_count(r->objs),
				    (uint32_t)vxt_strtab_count(r->strs), msg, sizeof(msg));
	vxt_chunkdec_swap_work(&jb->p->dec, work);
}

/* Contexts for @n helpers in m->pool. @return how many there are. */
static unsigned grow_pool(struct vxt_merge *m, unsigned n)
{
	struct vxt_chunkdec *pool;

	if (n <= m->npool)
		return n;
	pool = realloc(m->pool, n * sizeof(*pool));
	if (!pool)
		return m->npool;
	m->pool = pool;
	while (m->npool < n && vxt_chunkdec_init(&m->pool[m->npool]) == 0) {
		if (m->npool + 1 < m->ncomp)	/* area 0 is m->work's */
			vxt_chunkdec_lend_comp(&m->pool[m->npool],
					       m->comp_area + (m->npool + 1) * m->comp_need,
					       m->comp_need);
		m->npool++;
	}
	return m->npool;
}

void vxt_merge_preload(struct vxt_merge *m, size_t i)
{
	const struct vstart *st = &m->starts[i * m->np];
	struct batch b = { NULL, m };
	unsigned workers = vxt_par_workers(VXT_PAR_MAX);
	uint64_t reach;
	size_t njobs = 0;

	if (workers < 2 || m->np < 2 || (!m->work.dctx && vxt_chunkdec_init(&m->work) < 0))
		return;
	b.jobs = calloc(m->np, sizeof(*b.jobs));
	if (!b.jobs)
		return;
	reach = vxt_merge_reach(m, i);
	for (size_t k = 0; k < m->np; k++) {
		struct part *p = &m->p[k];
		size_t c;

		if (st[k].pos >= vxt_reader_nevents(p->r))
			continue;
		c = vxt_reader_chunk_of(p->r, st[k].pos);
		if (c == p->dec_chunk || p->key_lo[c] > reach)
			continue;
		b.jobs[njobs++] = (struct job){ p, vxt_reader_entry(p->r, c), c, 0 };
	}
	if (njobs < 2) {	/* nothing to do side by side */
		free(b.jobs);
		return;
	}
	workers = grow_pool(m, workers - 1) + 1;
	for (size_t j = 0; j < njobs; j++) {	/* what it held is not the chunk now */
		b.jobs[j].p->dec_chunk = SIZE_MAX;
		b.jobs[j].p->ev_n = 0;
	}
	vxt_par_run(njobs, workers, run_job, &b);
	for (size_t j = 0; j < njobs; j++)
		if (b.jobs[j].rc == 0)
			b.jobs[j].p->dec_chunk = b.jobs[j].chunk;
	free(b.jobs);
}

static size_t round_up(size_t n)
{
	return (n + RAW_ALIGN - 1) / RAW_ALIGN * RAW_ALIGN;
}

/* Bytes part @p's decoder needs for any chunk of its file's columns
 * (@comp false) or compressed data (true), rounded up. */
static size_t need_of(const struct part *p, bool comp)
{
	size_t need = 0;

	for (size_t c = 0; c < p->nch; c++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(p->r, c);
		size_t n = comp ? ci->data_size : ci->raw_size;

		need = n > need ? n : need;
	}
	return round_up(comp ? need : need + VXT_CODEC_SLACK);
}

void vxt_merge_lend(struct vxt_merge *m)
{
	size_t total = 0, at = 0, comp = 0;
	unsigned workers = vxt_par_workers(VXT_PAR_MAX);

	for (size_t k = 0; k < m->np; k++) {
		size_t c = need_of(&m->p[k], true);

		total += need_of(&m->p[k], false);
		comp = c > comp ? c : comp;
	}
	if (!m->work.dctx && vxt_chunkdec_init(&m->work) < 0)
		workers = 0;	/* no compressed data lent */
	m->raw_block = vxt_bigbuf_alloc(total + workers * comp, &m->raw_mapped);
	if (!m->raw_block)
		return;	/* the decoders allocate their own */
	for (size_t k = 0; k < m->np; k++) {
		size_t need = need_of(&m->p[k], false);

		vxt_chunkdec_lend_raw(&m->p[k].dec, m->raw_block + at, need);
		at += need;
	}
	m->comp_area = m->raw_block + at;
	m->comp_need = comp;
	m->ncomp = workers;
	if (workers)
		vxt_chunkdec_lend_comp(&m->work, m->comp_area, comp);
}

void vxt_merge_preload_free(struct vxt_merge *m)
{
	for (unsigned h = 0; h < m->npool; h++)
		vxt_chunkdec_free(&m->pool[h]);
	free(m->pool);
	m->pool = NULL;
	m->npool = 0;
	vxt_bigbuf_free(m->raw_block, m->raw_mapped);
	m->raw_block = m->comp_area = NULL;
	m->raw_mapped = m->comp_need = 0;
	m->ncomp = 0;
}
