/* html_charts.c - the HTML report's over-time charts and latency histogram
 *
 * From the report's timeline (every completion in scope, per interval):
 * IOPS, MiB/s (2^20 bytes per second) and the p50 / p99 latency per interval
 * as bar and line charts, and the log2 latency histogram of the scope (and
 * of the busiest objects, in a table) with the p50 and p99 buckets marked.
 * Inline SVG and tables only; times count from the file's start.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"
#include "report/html_charts.h"
#include "vxtrace/breakdown.h"
#include "vxtrace/timeline.h"

#define SVG_W	960
#define PLOT_X	110
#define PLOT_W	(SVG_W - PLOT_X - 20)
#define HIST_OBJS 8	/* objects with a column of their own in the histogram table */

static void axis(FILE *out, const struct vxt_timeline *tl, uint64_t start_ns, int y)
{
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", PLOT_X,
		y, PLOT_X + PLOT_W, y);
	for (int i = 0; i <= 4; i++) {
		uint64_t t = tl->t0 + (tl->t1 - tl->t0) / 4 * (uint64_t)i;

		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.3f s</text>\n",
			PLOT_X + PLOT_W * i / 4, y + 14, (double)(t - start_ns) / VXT_NSEC_PER_SEC);
	}
}

/* A bar per interval of @v (in @unit), scaled to the peak; with @partial an
 * interval without events is a grey "not captured" band instead. */
static void bars(FILE *out, const char *id, const char *title, const char *unit,
		 const struct vxt_timeline *tl, const double *v, uint64_t start_ns, bool partial)
{
	const int top = 10, h = 110, base = top + h;
	double bw = (double)PLOT_W / tl->nbins, max = 0;

	for (unsigned b = 0; b < tl->nbins; b++)
		if (v[b] > max)
			max = v[b];
	fprintf(out, "<h3>%s</h3>\n<svg id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"%s\">\n", title, id, SVG_W, base + 22, SVG_W, base + 22,
		title);
	for (unsigned b = 0; b < tl->nbins; b++) {
		double bh = max > 0 ? (double)h * v[b] / max : 0;

		if (partial && !tl->events[b]) {
			fprintf(out, "<rect class=\"not-captured\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"%d\" fill=\"#e0e0e0\"><title>%.3f s: not captured</title>"
				"</rect>\n", PLOT_X + bw * b, top, bw, h,
				(double)(vxt_timeline_bin_start(tl, b) - start_ns) / VXT_NSEC_PER_SEC);
			continue;
		}
		fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#5b8db8\"><title>%.3f s: %.1f %s</title></rect>\n", PLOT_X + bw * b,
			base - bh, bw > 2 ? bw - 1 : bw, bh,
			(double)(vxt_timeline_bin_start(tl, b) - start_ns) / VXT_NSEC_PER_SEC, v[b],
			unit);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f %s</text>\n", PLOT_X - 6,
		top + 10, max, unit);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", PLOT_X - 6, base);
	axis(out, tl, start_ns, base);
	fputs("</svg>\n", out);
}

static void latency_lines(FILE *out, const struct vxt_timeline *tl, uint64_t start_ns)
{
	const int top = 10, h = 110, base = top + h;
	double bw = (double)PLOT_W / tl->nbins;
	uint64_t max = 0;
	char m[32];
	static const double q[2] = { 0.50, 0.99 };
	static const char *const col[2] = { "#2e7d32", "#c0392b" }, *const name[2] = { "p50", "p99" };

	for (unsigned b = 0; b < tl->nbins; b++)
		if (vxt_timeline_lat_quantile(tl, b, 0.99) > max)
			max = vxt_timeline_lat_quantile(tl, b, 0.99);
	fprintf(out, "<h3>Latency p50 and p99</h3>\n<svg id=\"latency-over-time\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"latency over time\">\n",
		SVG_W, base + 22, SVG_W, base + 22);
	for (int k = 0; k < 2; k++) {
		fprintf(out, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" points=\"", name[k],
			col[k]);
		for (unsigned b = 0; b < tl->nbins; b++)
			if (tl->ios[b])
				fprintf(out, "%.1f,%.1f ", PLOT_X + bw * (b + 0.5),
					base - (max ? (double)h * (double)vxt_timeline_lat_quantile(tl, b, q[k]) /
						(double)max : 0));
		fputs("\"/>\n", out);
	}
	for (unsigned b = 0; b < tl->nbins; b++) {
		char a[32], c[32];

		if (tl->ios[b])
			fprintf(out, "<rect class=\"lat\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"none\" pointer-events=\"all\"><title>%.3f s: p50 %s, p99 %s"
				"</title></rect>\n", PLOT_X + bw * b, top, bw, h,
				(double)(vxt_timeline_bin_start(tl, b) - start_ns) / VXT_NSEC_PER_SEC,
				vxt_format_duration(vxt_timeline_lat_quantile(tl, b, 0.5), a, sizeof(a)),
				vxt_format_duration(vxt_timeline_lat_quantile(tl, b, 0.99), c, sizeof(c)));
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", PLOT_X - 6,
		top + 10, vxt_format_duration(max, m, sizeof(m)));
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", PLOT_X - 6, base);
	axis(out, tl, start_ns, base);
	fputs("</svg>\n", out);
}

void html_over_time(FILE *out, const struct vxt_timeline *tl, uint64_t start_ns, bool partial)
{
	double *v = calloc(tl->nbins ? tl->nbins : 1, sizeof(*v));

	if (!v) {
		fputs("<p>charts: out of memory</p>\n", out);
		return;
	}
	fputs("<section id=\"over-time\">\n<h2>Throughput and latency over time</h2>\n<figure>\n",
	      out);
	for (unsigned b = 0; b < tl->nbins; b++)
		v[b] = vxt_timeline_iops(tl, b);
	bars(out, "iops-over-time", "IOPS", "I/O/s", tl, v, start_ns, partial);
	for (unsigned b = 0; b < tl->nbins; b++)
		v[b] = vxt_timeline_bps(tl, b) / VXT_MIB;
	bars(out, "mbs-over-time", "MiB/s", "MiB/s", tl, v, start_ns, partial);
	latency_lines(out, tl, start_ns);
	fprintf(out, "<figcaption>Completed I/Os per second, MiB/s (2^20 bytes per second) and the "
		"p50 / p99 latency of each interval (green p50, red p99; formats/reports.md, "
		"Percentiles)%s.</figcaption>\n</figure>\n</section>\n", partial ?
		"; only the I/O a profile or script kept is here: grey intervals held none of it "
		"and were not captured, not idle" : "");
	free(v);
}

/* The bucket of quantile @q of @h (nearest rank), or -1. */
static int qbucket(const uint64_t *h, double q)
{
	uint64_t n = 0, want, cum = 0;

	for (int k = 0; k < VXT_LAT_BUCKETS; k++)
		n += h[k];
	if (!n)
		return -1;
	want = (uint64_t)(q * (double)n);
	if ((double)want < q * (double)n)
		want++;
	if (!want)
		want = 1;
	for (int k = 0; k < VXT_LAT_BUCKETS; k++) {
		cum += h[k];
		if (cum >= want)
			return k;
	}
	return VXT_LAT_BUCKETS - 1;
}

void html_latency_histogram(FILE *out, const struct vxt_timeline *tl,
			    const char *(*name)(void *ctx, uint32_t id), void *ctx)
{
	uint64_t all[VXT_LAT_BUCKETS] = { 0 }, max = 0;
	static uint64_t per[HIST_OBJS][VXT_LAT_BUCKETS];
	unsigned nobj = tl->mode == VXT_TL_ROWS_OBJECT ? (tl->nrows < HIST_OBJS ? tl->nrows : HIST_OBJS) : 0;
	int lo = -1, hi = -1, p50, p99;
	const int bar_h = 16, top = 4;
	char a[32], b[32];

	memset(per, 0, sizeof(per));
	vxt_timeline_lat_total(tl, all);
	for (unsigned r = 0; r < nobj; r++)
		for (unsigned bin = 0; bin < tl->nbins; bin++)
			for (int k = 0; k < VXT_LAT_BUCKETS; k++)
				per[r][k] += tl->cells[(size_t)r * tl->nbins + bin].lat[k];
	for (int k = 0; k < VXT_LAT_BUCKETS; k++)
		if (all[k]) {
			if (lo < 0)
				lo = k;
			hi = k;
			if (all[k] > max)
				max = all[k];
		}
	p50 = qbucket(all, 0.50);
	p99 = qbucket(all, 0.99);
	fputs("<section id=\"latency\">\n<h2>Latency histogram</h2>\n", out);
	if (lo < 0) {
		fputs("<p>no completed I/O in scope</p>\n</section>\n", out);
		return;
	}
	fprintf(out, "<figure>\n<svg id=\"latency-histogram\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
		"%d %d\" role=\"img\" aria-label=\"latency histogram\">\n", SVG_W,
		top + bar_h * (hi - lo + 1) + 8, SVG_W, top + bar_h * (hi - lo + 1) + 8);
	for (int k = lo; k <= hi; k++) {
		int y = top + bar_h * (k - lo);
		double w = (double)(PLOT_W - 60) * (double)all[k] / (double)max;

		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s - %s</text>\n", PLOT_X - 6,
			y + bar_h - 4, vxt_format_duration(UINT64_C(1) << k, a, sizeof(a)),
			vxt_format_duration(UINT64_C(2) << k, b, sizeof(b)));
		fprintf(out, "<rect class=\"bucket\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\"><title>%" PRIu64 " I/Os</title></rect>\n", PLOT_X, y, w, bar_h - 2,
			k >= p99 ? "#c0392b" : "#5b8db8", all[k]);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\">%" PRIu64 "%s</text>\n", PLOT_X + w + 4,
			y + bar_h - 4, all[k], k == p50 && k == p99 ? "  p50 p99" : k == p50 ? "  p50" :
			k == p99 ? "  p99" : "");
	}
	fputs("</svg>\n<figcaption>Completed I/Os by latency (issue to completion), in log2 "
	      "buckets; the p50 and p99 buckets are marked (red from p99 on).</figcaption>\n"
	      "</figure>\n", out);
	/* the numbers, with the busiest objects apart */
	fputs("<table id=\"latency-table\">\n<tr><th>latency</th><th>all</th>", out);
	for (unsigned r = 0; r < nobj; r++) {
		fputs("<th>", out);
		html_text(out, name(ctx, tl->row_obj[r]));
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int k = lo; k <= hi; k++) {
		fprintf(out, "<tr data-bucket=\"%d\"><td>%s - %s%s</td><td>%" PRIu64 "</td>", k,
			vxt_format_duration(UINT64_C(1) << k, a, sizeof(a)),
			vxt_format_duration(UINT64_C(2) << k, b, sizeof(b)),
			k == p50 && k == p99 ? " (p50, p99)" : k == p50 ? " (p50)" : k == p99 ? " (p99)" : "",
			all[k]);
		for (unsigned r = 0; r < nobj; r++)
			fprintf(out, "<td>%" PRIu64 "</td>", per[r][k]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n</section>\n", out);
}

static void bd_row(FILE *out, const char *name, const struct vxt_latdist *s)
{
	char a[32], b[32], d[32], e[32], f[32];

	if (!s->count)
		return;
	fprintf(out, "<tr data-iv=\"%s\"><td>%s</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
		"<td>%s</td><td>%s</td><td>%s</td></tr>\n", name, name, s->count,
		vxt_format_duration(s->min, a, sizeof(a)),
		vxt_format_duration((s->sum + s->count / 2) / s->count, b, sizeof(b)),
		vxt_format_duration(s->max, d, sizeof(d)),
		vxt_format_duration(vxt_latdist_quantile(s, 0.50), e, sizeof(e)),
		vxt_format_duration(vxt_latdist_quantile(s, 0.99), f, sizeof(f)));
}

void html_breakdown(FILE *out, const struct vxt_breakdown *b)
{
	fputs("<section id=\"breakdown\">\n<h2>Where the time goes</h2>\n", out);
	if (!b->all_phases)
		fputs("<p>The trace holds issue and completion only: D2C below; Q2C, Q2G, G2I, "
		      "I2D and the other queue-side intervals were not captured.</p>\n", out);
	fputs("<table id=\"breakdown-table\">\n<tr><th>interval</th><th>N</th><th>min</th>"
	      "<th>avg</th><th>max</th><th>p50</th><th>p99</th></tr>\n", out);
	for (unsigned iv = 0; iv < VXT_BD_IV_COUNT; iv++)
		bd_row(out, vxt_bd_iv_name(iv), &b->all.iv[iv]);
	fputs("</table>\n<p class=\"meta\">All objects in scope, as <code>vxreplay FILE --report "
	      "breakdown</code> gives them (formats/reports.md).</p>\n</section>\n", out);
}
