/* ivseries.h - the browser's queue-side intervals over time (ivseries.c) */
#ifndef VXREPLAY_BROWSER_IVSERIES_H
#define VXREPLAY_BROWSER_IVSERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/timeline.h"

struct vr_model;
struct vr_job;

enum vr_ivs_kind { VR_IVS_Q2C, VR_IVS_Q2D, VR_IVS_KINDS };

enum vr_ivs_state {
	VR_IVS_NONE,		/* not asked for */
	VR_IVS_NO_PHASES,	/* the trace holds issue and completion only */
	VR_IVS_RUNNING,		/* the pass is on */
	VR_IVS_DONE,
};

/* "Q2C", "queue (Q2D)". */
const char *vr_ivs_name(int kind);
/* Start the pass when the trace has queue-side phases (else the state says
 * they are not captured). @return the state. */
enum vr_ivs_state vr_ivs_want(struct vr_model *m);
enum vr_ivs_state vr_ivs_state(const struct vr_model *m);
void vr_ivs_step(struct vr_model *m, struct vr_job *j);
/* Chunks from @first on were appended: pair them too. */
void vr_ivs_grow(struct vr_model *m, size_t first);
/* The filter changed: pair again (when asked for before). */
void vr_ivs_restart(struct vr_model *m);
void vr_ivs_free(struct vr_model *m);
/* The log2 histograms (VXT_LAT_BUCKETS each) of interval @kind of the
 * completions shown in the bins of @tl: per bin (@per_row false: nbins
 * histograms, every object) or per cell (nrows * nbins, row-major, as
 * tl->cells). Borrowed until the next call; NULL when out of memory or
 * before the pass started. */
const uint32_t *vr_ivs_bins(struct vr_model *m, const struct vxt_timeline *tl, int kind,
			    bool per_row);
/* The same as latency distributions (latdist.h: the quantiles the reports
 * give), one per bin or cell. Borrowed until the next call. */
const struct vxt_latdist *vr_ivs_dists(struct vr_model *m, const struct vxt_timeline *tl,
				       int kind, bool per_row);

#endif
