/* extra.c - what a profile adds to the binning: heatmap bins, slow marks
 *
 * A profile's `heatmap.bins: N` gives the heatmap N time bins of its own over
 * the visible window (the error timeline keeps a bin per column); its
 * `timeline.mark: [slow]` marks the bins holding an I/O whose latency is at or
 * above `thresholds.latency.crit` (formats/profile.md). Both are filled by
 * the re-binning job next to the timeline: from the index where it is exact,
 * else from decoded events. A chunk whose index latency histogram cannot
 * reach the threshold has no slow I/O and is not decoded for the marks.
 */
#include <stdlib.h>
#include <string.h>

#include "browser/model.h"

#define EXTRA_HEAT 0x1	/* the chunk's events go into the heatmap's bins */
#define EXTRA_SLOW 0x2	/* ... and are looked at for slow I/O */

static bool slow_on(const struct vr_model *m)
{
	return (m->mark_kinds & VR_MARK_SLOW) && m->lat_crit_ns;
}

bool vr_heat_separate(const struct vr_model *m)
{
	return m->heat_bins && m->heat_bins < m->nbins;
}

void vr_extra_free(struct vr_model *m)
{
	vxt_timeline_free(&m->htl);
	vxt_timeline_free(&m->htl_est);
	free(m->tl_slow);
	m->tl_slow = NULL;
}

static int init_tl(struct vr_model *m, struct vxt_timeline *tl, unsigned nbins)
{
	if (!m->lba)
		return vxt_timeline_init(tl, m->w0, m->w1, nbins, m->rows, m->nrows);
	return vr_lba_init(m, tl, nbins);
}

int vr_extra_init(struct vr_model *m)
{
	int rc = 0;

	vr_extra_free(m);
	if (vr_heat_separate(m)) {
		rc = init_tl(m, &m->htl, m->heat_bins);
		if (!rc)
			rc = init_tl(m, &m->htl_est, m->heat_bins);
	}
	if (!rc && slow_on(m)) {
		m->tl_slow = calloc(m->nbins ? m->nbins : 1, sizeof(*m->tl_slow));
		if (!m->tl_slow)
			rc = -1;
	}
	if (rc)
		vr_extra_free(m);
	return rc;
}

void vr_extra_index_part(struct vr_model *m, const struct vxt_chunk_info *ci, bool est)
{
	if (!m->htl.nbins)
		return;
	if (est)
		vxt_timeline_add_chunk(&m->htl_est, ci);
	else if (vxt_timeline_chunk_exact(&m->htl, ci))
		vxt_timeline_add_chunk(&m->htl, ci);
}

/* A chunk goes to the exact bins when its entry is exact there, else to the
 * estimate alone; vr_extra_index_done() then adds the exact bins into the
 * estimate, so no entry is read twice. */
void vr_extra_index(struct vr_model *m, const struct vxt_chunk_info *ci)
{
	if (!m->htl.nbins)
		return;
	if (vxt_timeline_chunk_exact(&m->htl, ci))
		vxt_timeline_add_chunk(&m->htl, ci);
	else
		vxt_timeline_add_chunk(&m->htl_est, ci);
}

void vr_extra_index_done(struct vr_model *m)
{
	if (m->htl.nbins)
		vr_tl_sum_into(&m->htl_est, &m->htl);
}

void vr_tl_sum_into(struct vxt_timeline *to, const struct vxt_timeline *from)
{
	size_t nb = from->nbins, nc = (size_t)from->nrows * nb;

	if (to->nbins != from->nbins || to->nrows != from->nrows)
		return;
	for (size_t b = 0; b < nb; b++) {
		to->events[b] += from->events[b];
		to->errors[b] += from->errors[b];
		to->lost[b] += from->lost[b];
		to->ios[b] += from->ios[b];
		to->undecoded[b] += from->undecoded[b];
		to->bytes[b] += from->bytes[b];
	}
	for (size_t k = 0; k < nb * VXT_LAT_BUCKETS; k++)
		to->lat[k] += from->lat[k];
	for (size_t b = 0; b < nb; b++)
		vxt_latdist_merge(&to->dist[b], &from->dist[b]);	/* out of memory: unplaced */
	for (size_t c = 0; c < nc && to->cells; c++) {
		vxt_latdist_merge(&to->cells[c].dist, &from->cells[c].dist);
		to->cells[c].ios += from->cells[c].ios;
		to->cells[c].undecoded += from->cells[c].undecoded;
		to->cells[c].errors += from->cells[c].errors;
		to->cells[c].bytes += from->cells[c].bytes;
		for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
			to->cells[c].lat[k] += from->cells[c].lat[k];
	}
}

/* True when the chunk's index allows a latency at or above @crit. */
static bool may_be_slow(const struct vxt_chunk_info *ci, uint64_t crit)
{
	for (uint32_t k = 0; k < ci->nobjagg; k++) {
		const uint32_t *h = ci->objagg[k].lat_hist;

		for (unsigned b = VXT_LAT_BUCKETS; b-- > 0;) {
			if (!h[b])
				continue;
			/* bucket b holds [2^b, 2^(b+1)); the last one has no end */
			if (b + 1 >= VXT_LAT_BUCKETS || b >= 63 || (UINT64_C(2) << b) - 1 >= crit)
				return true;
			break;
		}
	}
	return false;
}

unsigned vr_extra_needs(const struct vr_model *m, const struct vxt_chunk_info *ci,
			bool index_ok)
{
	unsigned need = 0;

	if (m->htl.nbins && !(index_ok && vxt_timeline_chunk_exact(&m->htl, ci)))
		need |= EXTRA_HEAT;
	if (m->tl_slow && vxt_timeline_chunk_overlaps(&m->tl, ci) &&
	    may_be_slow(ci, m->lat_crit_ns))
		need |= EXTRA_SLOW;
	return need;
}

void vr_extra_add(struct vr_model *m, unsigned need, const struct vxt_event *ev)
{
	int b;

	if (need & EXTRA_HEAT)
		vxt_timeline_add(&m->htl, ev);
	if ((need & EXTRA_SLOW) && ev->phase == VXT_PH_DONE && ev->latency_ns >= m->lat_crit_ns) {
		b = vxt_timeline_bin(&m->tl, ev->time_ns);
		if (b >= 0)
			m->tl_slow[b]++;
	}
}

const struct vxt_timeline *vr_model_heat_timeline(const struct vr_model *m)
{
	if (!m->htl.nbins)
		return vr_model_timeline(m);
	return m->tl_show_est ? &m->htl_est : &m->htl;
}
