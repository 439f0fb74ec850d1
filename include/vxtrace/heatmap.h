/* heatmap.h - turning timeline cells into heat levels with a scale
 *
 * A metric (IOPS, bytes/s, latency p99, errors) is read from every cell of a
 * struct vxt_timeline and mapped to levels 0..VXT_HEAT_LEVELS (0 = nothing,
 * 1 = the coolest non-empty cell, VXT_HEAT_LEVELS = the hottest), linearly or
 * on a log scale. Error flags are kept apart so a view can overlay them.
 */
#ifndef VXTRACE_HEATMAP_H
#define VXTRACE_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

#define VXT_HEAT_LEVELS 8

enum vxt_heat_metric {
	VXT_HEAT_IOPS = 0,	/* completed I/Os per second */
	VXT_HEAT_BYTES,		/* bytes per second */
	VXT_HEAT_LAT_P99,	/* 99th percentile latency, ns */
	VXT_HEAT_ERRORS,	/* failed I/Os */
	VXT_HEAT_LAT_P50,	/* median latency, ns */
	VXT_HEAT_METRIC_COUNT
};

struct vxt_heatmap {
	unsigned rows, cols;
	enum vxt_heat_metric metric;
	bool log_scale;
	double lo, hi;		/* smallest non-zero and largest value */
	uint8_t *level;		/* rows * cols */
	uint8_t *err;		/* rows * cols: 1 when the cell holds errors */
};

/* "iops", "bytes", "latency-p99", "errors", "latency-p50". Can't fail. */
const char *vxt_heat_metric_name(enum vxt_heat_metric m);
/* Parse a name above (also "p99", "lat", "throughput"). @return the metric or -1. */
int vxt_heat_metric_parse(const char *s);
/* The value of @m in cell (row, bin) of @tl. */
double vxt_heat_value(const struct vxt_timeline *tl, unsigned row, unsigned bin,
		      enum vxt_heat_metric m);
/* Fill @hm from @tl (reallocating as needed). @return 0 or -ENOMEM. */
int vxt_heatmap_build(struct vxt_heatmap *hm, const struct vxt_timeline *tl,
		      enum vxt_heat_metric m, bool log_scale);
/* The level of @v on the scale [lo, hi]. Can't fail. */
unsigned vxt_heat_level(double v, double lo, double hi, bool log_scale);
/* Format a value of metric @m for a legend ("12.3k/s", "4.0M/s", "1.5ms"). @return buf. */
char *vxt_heat_format(enum vxt_heat_metric m, double v, char *buf, size_t size);
void vxt_heatmap_free(struct vxt_heatmap *hm);

#endif
