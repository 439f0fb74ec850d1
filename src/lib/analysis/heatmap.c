/* heatmap.c - heat levels and scales from timeline cells
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vxtrace/heatmap.h"

static const char *const metric_names[VXT_HEAT_METRIC_COUNT] = {
	[VXT_HEAT_IOPS] = "iops",
	[VXT_HEAT_BYTES] = "bytes",
	[VXT_HEAT_LAT_P99] = "latency-p99",
	[VXT_HEAT_ERRORS] = "errors",
	[VXT_HEAT_LAT_P50] = "latency-p50",
};

const char *vxt_heat_metric_name(enum vxt_heat_metric m)
{
	return (unsigned)m < VXT_HEAT_METRIC_COUNT ? metric_names[m] : "?";
}

int vxt_heat_metric_parse(const char *s)
{
	for (int m = 0; m < VXT_HEAT_METRIC_COUNT; m++)
		if (!strcasecmp(s, metric_names[m]))
			return m;
	if (!strcasecmp(s, "p99") || !strcasecmp(s, "lat") || !strcasecmp(s, "latency"))
		return VXT_HEAT_LAT_P99;
	if (!strcasecmp(s, "p50"))
		return VXT_HEAT_LAT_P50;
	if (!strcasecmp(s, "throughput") || !strcasecmp(s, "bw"))
		return VXT_HEAT_BYTES;
	return -1;
}

double vxt_heat_value(const struct vxt_timeline *tl, unsigned row, unsigned bin,
		      enum vxt_heat_metric m)
{
	const struct vxt_tl_cell *c = &tl->cells[(size_t)row * tl->nbins + bin];
	double secs = (double)(tl->t1 - tl->t0) / tl->nbins / VXT_NSEC_PER_SEC;

	switch (m) {
	case VXT_HEAT_IOPS:
		return c->ios / secs;
	case VXT_HEAT_BYTES:
		return (double)c->bytes / secs;
	case VXT_HEAT_LAT_P99:
		return (double)vxt_timeline_cell_quantile(c, 0.99);
	case VXT_HEAT_ERRORS:
		return c->errors;
	case VXT_HEAT_LAT_P50:
		return (double)vxt_timeline_cell_quantile(c, 0.5);
	default:
		return 0;
	}
}

unsigned vxt_heat_level(double v, double lo, double hi, bool log_scale)
{
	double f;
	unsigned lv;

	if (v <= 0 || hi <= 0)
		return 0;
	if (hi <= lo || v >= hi)
		return v >= hi ? VXT_HEAT_LEVELS : 1;
	if (log_scale && lo > 0)
		f = v <= lo ? 0 : log(v / lo) / log(hi / lo);
	else
		f = v / hi;
	lv = 1 + (unsigned)(f * (VXT_HEAT_LEVELS - 1) + 0.5);
	return lv > VXT_HEAT_LEVELS ? VXT_HEAT_LEVELS : lv;
}

int vxt_heatmap_build(struct vxt_heatmap *hm, const struct vxt_timeline *tl,
		      enum vxt_heat_metric m, bool log_scale)
{
	size_t n = (size_t)tl->nrows * tl->nbins;

	if (hm->rows * hm->cols != n || !hm->level) {
		free(hm->level);
		free(hm->err);
		hm->level = malloc(n ? n : 1);
		hm->err = malloc(n ? n : 1);
		if (!hm->level || !hm->err) {
			vxt_heatmap_free(hm);
			return -ENOMEM;
		}
	}
	hm->rows = tl->nrows;
	hm->cols = tl->nbins;
	hm->metric = m;
	hm->log_scale = log_scale;
	hm->lo = 0;
	hm->hi = 0;
	for (unsigned r = 0; r < hm->rows; r++)
		for (unsigned b = 0; b < hm->cols; b++) {
			double v = vxt_heat_value(tl, r, b, m);

			if (v > 0 && (hm->lo == 0 || v < hm->lo))
				hm->lo = v;
			if (v > hm->hi)
				hm->hi = v;
		}
	for (unsigned r = 0; r < hm->rows; r++)
		for (unsigned b = 0; b < hm->cols; b++) {
			size_t i = (size_t)r * hm->cols + b;

			hm->level[i] = (uint8_t)vxt_heat_level(vxt_heat_value(tl, r, b, m),
							       hm->lo, hm->hi, log_scale);
			hm->err[i] = tl->cells[i].errors != 0;
		}
	return 0;
}

char *vxt_heat_format(enum vxt_heat_metric m, double v, char *buf, size_t size)
{
	static const char units[] = " kMGTP";
	int u = 0;
	const char *suffix;

	if (m == VXT_HEAT_LAT_P99 || m == VXT_HEAT_LAT_P50) {
		if (v >= VXT_NSEC_PER_SEC)
			snprintf(buf, size, "%.2fs", v / VXT_NSEC_PER_SEC);
		else if (v >= 1e6)
			snprintf(buf, size, "%.1fms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.0fus", v / 1e3);
		else
			snprintf(buf, size, "%.0fns", v);
		return buf;
	}
	while (v >= 1000 && u < 5) {
		v /= (m == VXT_HEAT_BYTES ? 1024 : 1000);
		u++;
	}
	suffix = m == VXT_HEAT_ERRORS ? "" : (m == VXT_HEAT_BYTES ? "B/s" : "/s");

	if (u)
		snprintf(buf, size, "%.1f%c%s", v, units[u], suffix);
	else
		snprintf(buf, size, "%.0f%s", v, suffix);
	return buf;
}

void vxt_heatmap_free(struct vxt_heatmap *hm)
{
	free(hm->level);
	free(hm->err);
	memset(hm, 0, sizeof(*hm));
}
