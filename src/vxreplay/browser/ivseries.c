/* ivseries.c - the browser's queue-side intervals over time: Q2C and queue
 * time (Q2D) of every completion shown
 *
 * A capture of issue and completion gives D2C in each completion's latency
 * (the timeline's cells); the queue-side intervals need every phase paired.
 * They come from the model's one pairing of the file (pairjob.h): a stepped
 * pass behind it reads each completion the filter shows, takes its Q2C and
 * Q2D from its row (vr_ioph_ivals(), as the filters' interval fields) and
 * keeps, for each with a known Q2C or Q2D, its time, object, first sector
 * and both values; nothing is paired a second time. The timeline's Q2C
 * metrics and the heatmap's Q2C colours read per-bin or per-cell latency
 * distributions (latdist.h, the reports' quantiles), the latency histogram
 * per-bin or per-cell log2 histograms, built from it for the window (one
 * walk; the per-bin ones are kept until the window or the series changes). A new filter starts the pass
 * again. Past VR_IVS_MAX completions the rest are left out (said).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ivseries.h"
#include "browser/model.h"
#include "browser/pairjob.h"
#include "vxtrace/util.h"

#define VR_IVS_MAX	(1u << 22)	/* completions kept (36 bytes each) */

/* What a per-bin cache was built for. */
struct ivs_key {
	bool valid;
	uint64_t gen, t0, t1;
	unsigned nbins;
	int kind;
};

struct vr_ivs {
	enum vr_ivs_state state;
	uint64_t *t, *sector;
	uint32_t *obj;
	uint64_t *v[VR_IVS_KINDS];	/* ns, VXT_IV_UNSET = not known */
	size_t n, cap;
	bool full;
	uint64_t gen;			/* bumped when the series changes */
	/* the cached histograms and distributions and what they were built for */
	uint32_t *hist;
	size_t hist_cap;
	struct ivs_key hist_key;
	struct vxt_latdist *dist;
	size_t ndist;
	struct ivs_key dist_key;
};

static const char *const kind_name[VR_IVS_KINDS] = { "Q2C", "queue (Q2D)" };

const char *vr_ivs_name(int kind)
{
	return kind >= 0 && kind < VR_IVS_KINDS ? kind_name[kind] : "?";
}

enum vr_ivs_state vr_ivs_state(const struct vr_model *m)
{
	return m->ivs ? m->ivs->state : VR_IVS_NONE;
}

static void start(struct vr_model *m)
{
	struct vr_ivs *s = m->ivs;

	s->n = 0;
	s->full = false;
	s->gen++;
	s->state = VR_IVS_RUNNING;
	vr_scan_stop(m, VR_JOB_IVS);
	m->job[VR_JOB_IVS] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
}

enum vr_ivs_state vr_ivs_want(struct vr_model *m)
{
	if (m->ivs)
		return m->ivs->state;
	if (!vr_model_queue_side(m))
		return VR_IVS_NO_PHASES;	/* asked again later: the file may grow */
	vr_pair_want(m);
	m->ivs = calloc(1, sizeof(*m->ivs));
	if (!m->ivs) {
		snprintf(m->note, sizeof(m->note), "pairing the intervals: out of memory");
		m->note_error = true;
		return VR_IVS_NONE;
	}
	start(m);
	return m->ivs->state;
}

static int grow(struct vr_ivs *s)
{
	/* arrays of one length: each grows from the length they share, to
	 * the same new length */
	size_t want = s->cap + 1, c;

	if ((c = s->cap, vxt_grow(&s->t, &c, want, sizeof(*s->t))) < 0 ||
	    (c = s->cap, vxt_grow(&s->sector, &c, want, sizeof(*s->sector))) < 0 ||
	    (c = s->cap, vxt_grow(&s->obj, &c, want, sizeof(*s->obj))) < 0)
		return -1;
	for (int k = 0; k < VR_IVS_KINDS; k++)
		if ((c = s->cap, vxt_grow(&s->v[k], &c, want, sizeof(*s->v[k]))) < 0)
			return -1;
	s->cap = c;
	return 0;
}

/* Keep completion @ev with intervals @iv. @return 0 or -1 (out of memory). */
static int keep(struct vr_ivs *s, const struct vxt_event *ev, const struct vxt_ivals *iv)
{
	if (iv->v[VXT_IV_Q2C] == VXT_IV_UNSET && iv->v[VXT_IV_Q2D] == VXT_IV_UNSET)
		return 0;
	if (s->n == VR_IVS_MAX) {
		s->full = true;
		return 0;
	}
	if (s->n == s->cap && grow(s) < 0)
		return -1;
	s->t[s->n] = ev->time_ns;
	s->sector[s->n] = ev->sector;
	s->obj[s->n] = ev->object;
	s->v[VR_IVS_Q2C][s->n] = iv->v[VXT_IV_Q2C];
	s->v[VR_IVS_Q2D][s->n] = iv->v[VXT_IV_Q2D];
	s->n++;
	return 0;
}

void vr_ivs_step(struct vr_model *m, struct vr_job *j)
{
	struct vr_ivs *s = m->ivs;
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (s && i < j->end) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk_fixed(m->rd, i);

		/* behind the pairing: wait while it has not paired this chunk */
		if (m->pair_state == VR_PAIR_RUNNING && m->job[VR_JOB_PAIR].active &&
		    ci->first_event + ci->nevents > m->ioph.through) {
			j->next--;
			return;
		}
		evs = vr_scan_chunk(m, VR_JOB_IVS, i, VXT_FIELD_ALL, &n);
		for (size_t k = 0; evs && k < n; k++) {
			uint64_t ord = ci->first_event + k;
			const struct vr_ioph_row *r;
			struct vxt_ivals iv;

			if (evs[k].phase != VXT_PH_DONE || !vr_view_matches(&m->view, &evs[k], ord))
				continue;
			r = ord < m->ioph.through ? vr_ioph_find(&m->ioph, ord) : NULL;
			if (!r)
				continue;
			vr_ioph_ivals(r, &evs[k], &iv);
			if (keep(s, &evs[k], &iv) < 0) {
				snprintf(m->note, sizeof(m->note), "pairing the intervals: out of memory");
				m->note_error = true;
				break;
			}
		}
		s->gen++;
		m->hm_dirty = true;	/* Q2C colours follow the pass */
	}
	if (j->next < j->end)
		return;
	j->active = false;
	if (!s)
		return;
	s->state = VR_IVS_DONE;
	if (s->full)
		snprintf(m->note, sizeof(m->note), "Q2C and queue time kept for the first %u "
			 "completed I/Os", VR_IVS_MAX);
	m->hm_dirty = true;
}

void vr_ivs_grow(struct vr_model *m, size_t first)
{
	struct vr_job *j = &m->job[VR_JOB_IVS];

	if (!m->ivs)
		return;
	if (!j->active)
		*j = (struct vr_job){ .active = true, .next = first, .begin = first };
	j->end = vxt_reader_nchunks(m->rd);
	m->ivs->state = VR_IVS_RUNNING;
}

void vr_ivs_restart(struct vr_model *m)
{
	if (m->ivs)
		start(m);
}

static void dists_free(struct vr_ivs *s)
{
	for (size_t i = 0; i < s->ndist; i++)
		vxt_latdist_free(&s->dist[i]);
	free(s->dist);
	s->dist = NULL;
	s->ndist = 0;
	s->dist_key.valid = false;
}

void vr_ivs_free(struct vr_model *m)
{
	struct vr_ivs *s = m->ivs;

	if (!s)
		return;
	m->job[VR_JOB_IVS].active = false;
	free(s->t);
	free(s->sector);
	free(s->obj);
	for (int k = 0; k < VR_IVS_KINDS; k++)
		free(s->v[k]);
	free(s->hist);
	dists_free(s);
	free(s);
	m->ivs = NULL;
}

static bool cached(const struct vr_ivs *s, const struct ivs_key *k, const struct vxt_timeline *tl,
		   int kind, bool per_row)
{
	return !per_row && k->valid && k->gen == s->gen && k->t0 == tl->t0 && k->t1 == tl->t1 &&
	       k->nbins == tl->nbins && k->kind == kind;
}

static void set_key(const struct vr_ivs *s, struct ivs_key *k, const struct vxt_timeline *tl,
		    int kind, bool per_row)
{
	*k = (struct ivs_key){ !per_row, s->gen, tl->t0, tl->t1, tl->nbins, kind };
}

/* The cell (row * nbins + bin) of kept completion @i in @tl, or -1. */
static long cell_of(const struct vr_ivs *s, size_t i, const struct vxt_timeline *tl, int kind,
		    bool per_row)
{
	struct vxt_event ev = { .object = s->obj[i], .sector = s->sector[i] };
	int b = vxt_timeline_bin(tl, s->t[i]), row = 0;

	if (b < 0 || s->v[kind][i] == VXT_IV_UNSET ||
	    (per_row && (row = vxt_timeline_row(tl, &ev)) < 0))
		return -1;
	return (long)row * tl->nbins + b;
}

const uint32_t *vr_ivs_bins(struct vr_model *m, const struct vxt_timeline *tl, int kind,
			    bool per_row)
{
	struct vr_ivs *s = m->ivs;
	size_t cells = (size_t)tl->nbins * (per_row ? tl->nrows : 1), need;

	if (!s || kind < 0 || kind >= VR_IVS_KINDS || !tl->nbins)
		return NULL;
	if (cached(s, &s->hist_key, tl, kind, per_row))
		return s->hist;
	need = cells * VXT_LAT_BUCKETS;
	if (need > s->hist_cap) {
		uint32_t *h = realloc(s->hist, need * sizeof(*h));

		if (!h)
			return NULL;
		s->hist = h;
		s->hist_cap = need;
	}
	memset(s->hist, 0, need * sizeof(*s->hist));
	for (size_t i = 0; i < s->n; i++) {
		long c = cell_of(s, i, tl, kind, per_row);

		if (c >= 0)
			s->hist[(size_t)c * VXT_LAT_BUCKETS + vxt_log2hist_bucket(s->v[kind][i])]++;
	}
	set_key(s, &s->hist_key, tl, kind, per_row);
	return s->hist;
}

const struct vxt_latdist *vr_ivs_dists(struct vr_model *m, const struct vxt_timeline *tl,
				       int kind, bool per_row)
{
	struct vr_ivs *s = m->ivs;
	size_t cells = (size_t)tl->nbins * (per_row ? tl->nrows : 1);

	if (!s || kind < 0 || kind >= VR_IVS_KINDS || !tl->nbins)
		return NULL;
	if (cached(s, &s->dist_key, tl, kind, per_row))
		return s->dist;
	dists_free(s);
	s->dist = calloc(cells, sizeof(*s->dist));
	if (!s->dist)
		return NULL;
	s->ndist = cells;
	for (size_t i = 0; i < s->n; i++) {
		long c = cell_of(s, i, tl, kind, per_row);

		if (c >= 0)
			vxt_latdist_add(&s->dist[c], s->v[kind][i]);	/* no memory: unplaced */
	}
	set_key(s, &s->dist_key, tl, kind, per_row);
	return s->dist;
}
