/* heativ.h - the heatmap's metrics, Q2C among them (heativ.c) */
#ifndef VXREPLAY_BROWSER_HEATIV_H
#define VXREPLAY_BROWSER_HEATIV_H

struct vr_model;
struct vxt_timeline;

/* The heatmap's colours beyond struct vxt_heatmap's metrics (m->metric_iv). */
enum { VR_HEAT_BY_METRIC, VR_HEAT_Q2C_P50, VR_HEAT_Q2C_P99 };

/* The metric's name for the legend: "iops" ... "latency-p50", "q2c-p50", "q2c-p99". */
const char *vr_heat_name(const struct vr_model *m);
/* The next metric (M): every struct vxt_heatmap metric, then Q2C p50 and p99. */
void vr_heat_next(struct vr_model *m);
/* Fill m->hm from @tl in the metric chosen. @return 0 or -ENOMEM. */
int vr_heat_build(struct vr_model *m, const struct vxt_timeline *tl);

#endif
