/* scan.c - reading a file's chunks in order, decoded ahead on helper threads
 *
 * A whole-file pass (a report, an export) spends most of its time in zstd
 * and the column decoder, which need nothing from the pass itself: helper
 * threads decode the next chunks into slots while the caller consumes the
 * current one. Chunks come out in file order whatever the threads do, so a
 * pass gives the same answer with any number of them.
 *
 * Slot k holds chunk c with c % nslots == k. A helper claims the next chunk
 * once its slot is free; the caller takes slot after slot in order and
 * frees the one it held when it asks for the next.
 * Helpers run at a lower priority than the caller (VXT_SCAN_HELPER_NICE
 * above it): the caller's thread runs whenever it has a chunk, so a pass
 * whose work on the events is heavy (a breakdown, a script) keeps a CPU of
 * its own, and the helpers take every cycle it leaves; a pass bound by
 * decoding (a summary) waits on them, and they have every CPU.
 * Decode memory is bounded by VXT_DECODE_BUDGET: a slot may grow to the
 * largest chunk the index claims (events, encoded columns and frames), and
 * there are only as many slots as fit the budget; when one does not, there
 * is one slot and no helper (a crafted file's claims cost one chunk's
 * worth, never one per thread).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "format/chunkdec.h"
#include "format/reader_impl.h"

#define VXT_DECODE_BUDGET (128ull << 20)	/* bytes of decode buffers, all slots */
#define VXT_SCAN_HELPER_NICE 5		/* helpers' nice above the caller's */

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_READY };

/* The most one slot may hold for chunks [first, end) of @r. */
static uint64_t slot_need(const struct vxt_reader *r, size_t first, size_t end)
{
	uint64_t max = 1;

	for (size_t i = first; i < end; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(r, i);
		uint64_t need = (uint64_t)ci->nevents * sizeof(struct vxt_event) +
				ci->raw_size + ci->data_size;

		if (need > max)
			max = need;
	}
	return max;
}

struct slot {
	struct vxt_chunkdec dec;
	size_t chunk;
	enum slot_state state;
	int rc;
	char msg[200];
};

struct vxt_scan {
	const struct vxt_reader *r;
	struct vxt_reader *mr;		/* the same, when merged */
	bool merged;
	const struct vxt_chunksrc *src;
	bool column_frames;
	uint32_t nobjs, nstrs;
	size_t next_claim;		/* next chunk for a helper */
	size_t next_out;		/* next chunk for the caller */
	size_t end;			/* chunks of the reader when the scan began */
	size_t held;			/* slot the caller holds, or SIZE_MAX */
	unsigned nslots;
	struct slot *slots;
	unsigned nthreads;
	pthread_t *threads;
	pthread_mutex_t mu;
	pthread_cond_t ready, freed;
	bool stop;
	char err[VXT_ERRBUF_SIZE];
};

static void decode_into(struct vxt_scan *s, struct slot *sl)
{
	if (s->merged)	/* several files' chunks merged: in the caller's thread */
		sl->rc = vxt_reader_decode_into(s->mr, &sl->dec, sl->chunk, sl->msg,
						sizeof(sl->msg));
	else
		sl->rc = vxt_chunkdec_run(&sl->dec, s->src, vxt_reader_entry(s->r, sl->chunk),
					  sl->chunk, s->column_frames, s->nobjs, s->nstrs,
					  sl->msg, sizeof(sl->msg));
}

/* The calling helper below the caller that started it (whose nice it
 * inherited); nothing when not allowed, the helper is then its equal. */
static void lower_priority(void)
{
	id_t tid = (id_t)gettid();
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (nice == -1 && errno)
		return;
	nice += VXT_SCAN_HELPER_NICE;
	(void)setpriority(PRIO_PROCESS, tid, nice < 19 ? nice : 19);
}

static void *helper(void *arg)
{
	struct vxt_scan *s = arg;

	lower_priority();
	pthread_mutex_lock(&s->mu);
	while (!s->stop && s->next_claim < s->end) {
		struct slot *sl = &s->slots[s->next_claim % s->nslots];

		if (sl->state != SLOT_FREE) {
			pthread_cond_wait(&s->freed, &s->mu);
			continue;
		}
		sl->chunk = s->next_claim++;
		sl->state = SLOT_BUSY;
		pthread_mutex_unlock(&s->mu);
		decode_into(s, sl);
		pthread_mutex_lock(&s->mu);
		sl->state = SLOT_READY;
		pthread_cond_broadcast(&s->ready);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct vxt_scan *vxt_scan_start(struct vxt_reader *r, size_t first, unsigned fields,
				unsigned threads)
{
	struct vxt_scan *s = calloc(1, sizeof(*s));
	pthread_attr_t attr;

	if (!s)
		return NULL;
	s->r = s->mr = r;
	s->merged = vxt_reader_is_merged(r);
	if (s->merged)
		threads = 0;	/* the files' readers are not shared between threads */
	s->src = vxt_reader_src(r);
	s->column_frames = vxt_reader_info(r)->incompat & VXT_INCOMPAT_COLUMN_FRAMES;
	s->nobjs = (uint32_t)vxt_objtab_count(vxt_reader_objects(r));
	s->nstrs = (uint32_t)vxt_strtab_count(vxt_reader_strings(r));
	s->end = vxt_reader_nchunks(r);
	s->next_claim = s->next_out = first < s->end ? first : s->end;
	s->held = SIZE_MAX;
	if (threads > 8)
		threads = 8;
	/* the caller's slot, and two per helper so none waits on the caller,
	 * as many as the budget holds */
	s->nslots = threads ? 2 * threads + 1 : 1;
	if (threads) {	/* (a merged reader's entries are not all complete: one slot) */
		uint64_t fit = VXT_DECODE_BUDGET / slot_need(r, s->next_claim, s->end);

		if (fit < s->nslots)
			s->nslots = fit < 2 ? 1 : (unsigned)fit;
		if (s->nslots == 1)
			threads = 0;
		else if (threads > (s->nslots - 1) / 2)
			threads = (s->nslots - 1) / 2 ? (s->nslots - 1) / 2 : 1;
	}
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	s->threads = calloc(threads ? threads : 1, sizeof(*s->threads));
	if (!s->slots || !s->threads)
		goto fail;
	for (unsigned k = 0; k < s->nslots; k++) {
		if (vxt_chunkdec_init(&s->slots[k].dec) < 0)
			goto fail;
		s->slots[k].dec.fields = fields | VXT_FIELD_TIME | VXT_FIELD_PHASE_OP |
					 VXT_FIELD_OBJECT;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->ready, NULL);
	pthread_cond_init(&s->freed, NULL);
	/* small stacks: decoding needs little, and a process may run with a
	 * tight address-space limit; threads that cannot start are done without */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (unsigned k = 0; k < threads; k++) {
		if (pthread_create(&s->threads[k], &attr, helper, s) != 0)
			break;
		s->nthreads++;
	}
	pthread_attr_destroy(&attr);
	if (!s->nthreads && s->nslots > 1) {
		/* decoding in the caller's thread needs one slot */
		for (unsigned k = 1; k < s->nslots; k++)
			vxt_chunkdec_free(&s->slots[k].dec);
		s->nslots = 1;
	}
	return s;
fail:
	if (s->slots)
		for (unsigned k = 0; k < s->nslots; k++)
			vxt_chunkdec_free(&s->slots[k].dec);
	free(s->slots);
	free(s->threads);
	free(s);
	return NULL;
}

int vxt_scan_next(struct vxt_scan *s, size_t *chunk, const struct vxt_event **ev, size_t *n)
{
	struct slot *sl;
	int rc;

	pthread_mutex_lock(&s->mu);
	if (s->held != SIZE_MAX) {
		s->slots[s->held].state = SLOT_FREE;
		s->held = SIZE_MAX;
		pthread_cond_broadcast(&s->freed);
	}
	if (s->next_out >= s->end) {
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	sl = &s->slots[s->next_out % s->nslots];
	if (!s->nthreads) {
		sl->chunk = s->next_out;
		pthread_mutex_unlock(&s->mu);
		decode_into(s, sl);
		pthread_mutex_lock(&s->mu);
		sl->state = SLOT_READY;
	}
	while (sl->state != SLOT_READY || sl->chunk != s->next_out)
		pthread_cond_wait(&s->ready, &s->mu);
	rc = sl->rc;
	if (rc < 0) {
		snprintf(s->err, sizeof(s->err), "%s: %s", vxt_reader_name(s->r), sl->msg);
		sl->state = SLOT_FREE;
		*chunk = s->next_out;
		if (rc == -ENOMEM) {
			s->next_out = s->end;	/* nothing after it */
			s->stop = true;
		} else {
			s->next_out++;		/* damage: the next call goes on after it */
		}
		pthread_cond_broadcast(&s->freed);
		pthread_mutex_unlock(&s->mu);
		return rc;
	}
	s->held = s->next_out % s->nslots;
	*chunk = s->next_out++;
	pthread_mutex_unlock(&s->mu);
	*ev = sl->dec.ev;
	*n = (s->merged ? vxt_reader_chunk(s->r, *chunk) : vxt_reader_entry(s->r, *chunk))->nevents;
	return 1;
}

const char *vxt_scan_error(const struct vxt_scan *s)
{
	return s->err;
}

void vxt_scan_stop(struct vxt_scan *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->freed);
	pthread_cond_broadcast(&s->ready);
	pthread_mutex_unlock(&s->mu);
	for (unsigned k = 0; k < s->nthreads; k++)
		pthread_join(s->threads[k], NULL);
	for (unsigned k = 0; k < s->nslots; k++)
		vxt_chunkdec_free(&s->slots[k].dec);
	pthread_cond_destroy(&s->ready);
	pthread_cond_destroy(&s->freed);
	pthread_mutex_destroy(&s->mu);
	free(s->slots);
	free(s->threads);
	free(s);
}

unsigned vxt_scan_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* one CPU: helpers would only take turns with the caller */
	return n < 2 ? 0 : n > 4 ? 4 : (unsigned)n;
}
