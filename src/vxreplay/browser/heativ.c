/* heativ.c - the heatmap's metrics, Q2C among them
 *
 * struct vxt_heatmap colours cells by what the timeline's cells hold (IOPS,
 * bytes, D2C latency p50 / p99, errors). Q2C p50 and p99 come from the
 * pairing of every phase (ivseries.h): each cell's value is the quantile of
 * the latency distribution of the Q2C of its completions, on a log scale, as the
 * latency metrics are. A trace of issue and completion alone has no Q2C:
 * every cell is empty, and the legend says the metric is not available.
 */
#include <errno.h>

#include "browser/heativ.h"
#include "browser/ivseries.h"
#include "browser/model.h"
#include "vxtrace/heatmap.h"

const char *vr_heat_name(const struct vr_model *m)
{
	if (m->metric_iv == VR_HEAT_Q2C_P50 || m->metric_iv == VR_HEAT_Q2C_P99) {
		bool none = vr_ivs_state(m) == VR_IVS_NO_PHASES;

		if (m->metric_iv == VR_HEAT_Q2C_P50)
			return none ? "q2c-p50 (not available: no queue phase)" : "q2c-p50";
		return none ? "q2c-p99 (not available: no queue phase)" : "q2c-p99";
	}
	return vxt_heat_metric_name(m->metric);
}

void vr_heat_next(struct vr_model *m)
{
	if (m->metric_iv == VR_HEAT_Q2C_P50) {
		m->metric_iv = VR_HEAT_Q2C_P99;
	} else if (m->metric_iv == VR_HEAT_Q2C_P99) {
		m->metric_iv = VR_HEAT_BY_METRIC;
		m->metric = 0;
	} else if (m->metric + 1 == VXT_HEAT_METRIC_COUNT) {
		m->metric_iv = VR_HEAT_Q2C_P50;
		vr_ivs_want(m);
	} else {
		m->metric = (enum vxt_heat_metric)(m->metric + 1);
	}
	m->hm_dirty = true;
}

int vr_heat_build(struct vr_model *m, const struct vxt_timeline *tl)
{
	struct vxt_heatmap *hm = &m->hm;
	const struct vxt_latdist *c;
	double q = m->metric_iv == VR_HEAT_Q2C_P50 ? 0.50 : 0.99;

	if (m->metric_iv != VR_HEAT_Q2C_P50 && m->metric_iv != VR_HEAT_Q2C_P99)
		return vxt_heatmap_build(hm, tl, m->metric,
					 m->heat_log || m->metric == VXT_HEAT_LAT_P99 ||
					 m->metric == VXT_HEAT_LAT_P50);
	/* the arrays, the error flags and a duration legend */
	if (vxt_heatmap_build(hm, tl, VXT_HEAT_LAT_P99, true) < 0)
		return -ENOMEM;
	hm->lo = hm->hi = 0;
	c = vr_ivs_want(m) == VR_IVS_NO_PHASES ? NULL : vr_ivs_dists(m, tl, VR_IVS_Q2C, true);
	for (size_t i = 0; i < (size_t)hm->rows * hm->cols; i++) {
		double v = c ? (double)vxt_latdist_quantile(&c[i], q) : 0;

		if (v > 0 && (hm->lo == 0 || v < hm->lo))
			hm->lo = v;
		if (v > hm->hi)
			hm->hi = v;
	}
	for (size_t i = 0; i < (size_t)hm->rows * hm->cols; i++) {
		double v = c ? (double)vxt_latdist_quantile(&c[i], q) : 0;

		hm->level[i] = (uint8_t)vxt_heat_level(v, hm->lo, hm->hi, true);
	}
	return 0;
}
