/* export_html.c - vxreplay --report html: one self-contained page for a ticket
 *
 * Three passes over the events in scope: the first gathers per-object stats
 * and the time span, the second bins the span into a timeline, the third
 * feeds btt's breakdown (report/breakdown.c). The page has
 * a summary, an error timeline, IOPS / MiB/s / latency over time, an I/O
 * heatmap as inline SVG (a row per object, or per LBA range when the report
 * is about one object), the latency histogram and btt's breakdown
 * (html_charts.c), the object table and the first errors. No script, no external resource:
 * it reads the same offline, in a mail or attached to a ticket.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"
#include "report/html_charts.h"
#include "report/report.h"
#include "vxtrace/breakdown.h"
#include "vxtrace/heatmap.h"
#include "vxtrace/timeline.h"

#define HTML_BINS	120
#define HTML_ROWS	32	/* busiest objects in the heatmap */
#define HTML_LBA_ROWS	16	/* LBA buckets of one object's heatmap */
#define HTML_ERRORS	200	/* rows of the error table */
#define SVG_W		960
#define PLOT_X		110	/* left edge of the plots (labels before it) */
#define PLOT_W		(SVG_W - PLOT_X - 20)

/* Cool to hot, level 1..VXT_HEAT_LEVELS; readable in print and in grey. */
static const char *const heat_colors[VXT_HEAT_LEVELS + 1] = {
	"#f4f4f4", "#fff5c0", "#fee391", "#fec44f", "#fe9929",
	"#ec7014", "#cc4c02", "#993404", "#662506",
};

/* @s escaped for HTML, control bytes and invalid UTF-8 first as for a
 * terminal (escape.h), so the page shows "\e]0;..." as the text report does. */
static void html_str(FILE *out, const char *s)
{
	char esc[VXT_ESCAPE_MAX(256)];

	if (!vxt_text_is_plain(s))
		s = vxt_text(s, esc, sizeof(esc));
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out); break;
		}
	}
}

void html_text(FILE *out, const char *s)
{
	html_str(out, s);
}

static const char *obj_name(const struct report_ctx *c, uint32_t id)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(c->r), id);

	return o ? o->name : "?";
}

static void page_head(struct report_ctx *c, const struct vxt_stats *st,
		      const struct vxt_objstats *t)
{
	const struct vxt_file_info *in = vxt_reader_info(c->r);
	uint64_t span = st->last_ns > st->first_ns ? st->last_ns - st->first_ns : 0;
	char a[48], b[48];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>vxtrace report: ", c->out);
	html_str(c->out, in->host);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1000px}\n"
	      "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
	      "table{border-collapse:collapse;font-size:.9em}\n"
	      "td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}\n"
	      "td:first-child,th:first-child{text-align:left}\n"
	      "tr.bad td{background:#fde8e8}\n"
	      "figure{margin:0}figcaption{font-size:.85em;color:#555}\n"
	      "svg text{font-size:11px;font-family:sans-serif}\n"
	      ".meta{color:#555;font-size:.9em}\n"
	      "</style>\n</head>\n<body>\n<h1>vxtrace report</h1>\n<p class=\"meta\">host ", c->out);
	html_str(c->out, in->host);
	fputs(", source ", c->out);
	html_str(c->out, in->source);
	if (in->profile[0]) {
		fputs(", recorded with profile ", c->out);
		html_str(c->out, in->profile);
	}
	if (in->created_real_ns)
		fprintf(c->out, ", created %s", vxt_format_datetime(in->created_real_ns, a,
								  sizeof(a)));
	fputs("</p>\n", c->out);
	fputs("<section id=\"summary\">\n<table class=\"kv\">\n", c->out);
	fprintf(c->out, "<tr><th>span</th><td>%s</td></tr>\n",
		vxt_format_duration(span, a, sizeof(a)));
	fprintf(c->out, "<tr><th>events</th><td>%" PRIu64 "</td></tr>\n", st->events);
	fprintf(c->out, "<tr><th>I/Os</th><td>%" PRIu64 "</td></tr>\n", vxt_objstats_ios(t));
	fprintf(c->out, "<tr><th>bytes read / written</th><td>%s / %s</td></tr>\n",
		vxt_format_size(t->bytes_read, a, sizeof(a)),
		vxt_format_size(t->bytes_written, b, sizeof(b)));
	fprintf(c->out, "<tr><th>latency p50 / p99</th><td>%s / %s</td></tr>\n",
		vxt_format_duration(vxt_latdist_quantile(&t->lat, 0.5), a, sizeof(a)),
		vxt_format_duration(vxt_latdist_quantile(&t->lat, 0.99), b, sizeof(b)));
	fprintf(c->out, "<tr%s><th>errors</th><td id=\"total-errors\">%" PRIu64 "</td></tr>\n",
		t->errors ? " class=\"bad\"" : "", t->errors);
	fprintf(c->out, "<tr%s><th>lost events</th><td>%" PRIu64 "</td></tr>\n",
		st->lost ? " class=\"bad\"" : "", st->lost);
	fputs("</table>\n</section>\n", c->out);
}

/* Time axis under a plot whose baseline is at @y. */
static void svg_time_axis(FILE *out, const struct vxt_timeline *tl, uint64_t start_ns, int y)
{
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", PLOT_X,
		y, PLOT_X + PLOT_W, y);
	for (int i = 0; i <= 4; i++) {
		uint64_t t = tl->t0 + (tl->t1 - tl->t0) / 4 * (uint64_t)i;
		int x = PLOT_X + PLOT_W * i / 4;

		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.3f s</text>\n", x,
			y + 14, (double)(t - start_ns) / VXT_NSEC_PER_SEC);
	}
}

static void svg_error_timeline(struct report_ctx *c, const struct vxt_timeline *tl)
{
	const int top = 10, h = 150, base = top + h;
	double bw = (double)PLOT_W / tl->nbins;
	uint64_t maxerr = 0, maxios = 0, *ios = calloc(tl->nbins, sizeof(*ios));

	for (unsigned b = 0; b < tl->nbins; b++) {
		for (unsigned r = 0; ios && r < tl->nrows; r++)
			ios[b] += tl->cells[(size_t)r * tl->nbins + b].ios;
		if (tl->errors[b] > maxerr)
			maxerr = tl->errors[b];
		if (ios && ios[b] > maxios)
			maxios = ios[b];
	}
	fputs("<section>\n<h2>Errors over time</h2>\n<figure>\n", c->out);
	fprintf(c->out, "<svg id=\"error-timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
		"%d\" role=\"img\" aria-label=\"errors over time\">\n", SVG_W, base + 22, SVG_W,
		base + 22);
	if (ios && maxios) {
		fputs("<polyline class=\"ios\" fill=\"none\" stroke=\"#9ab\" points=\"", c->out);
		for (unsigned b = 0; b < tl->nbins; b++)
			fprintf(c->out, "%.1f,%.1f ", PLOT_X + bw * (b + 0.5),
				base - (double)h * (double)ios[b] / (double)maxios);
		fputs("\"/>\n", c->out);
	}
	for (unsigned b = 0; b < tl->nbins; b++) {
		double bh = maxerr ? (double)h * (double)tl->errors[b] / (double)maxerr : 0;

		if (tl->errors[b])
			fprintf(c->out, "<rect class=\"err\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"#c0392b\"><title>%.3f s: %" PRIu64
				" errors</title></rect>\n", PLOT_X + bw * b, base - bh,
				bw > 2 ? bw - 1 : bw, bh,
				(double)(vxt_timeline_bin_start(tl, b) - c->start_ns) / VXT_NSEC_PER_SEC,
				tl->errors[b]);
		if (tl->lost[b])
			fprintf(c->out, "<rect class=\"lost\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"4\" fill=\"#e67e22\"><title>%" PRIu64 " events lost"
				"</title></rect>\n", PLOT_X + bw * b, top, bw, tl->lost[b]);
	}
	fprintf(c->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRIu64 " errors</text>\n",
		PLOT_X - 6, top + 10, maxerr);
	fprintf(c->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", PLOT_X - 6,
		base);
	svg_time_axis(c->out, tl, c->start_ns, base);
	fputs("</svg>\n<figcaption>Red bars: failed I/Os per interval (scale on the left). "
	      "Grey line: completed I/Os, scaled to its own peak. Orange marks: lost events."
	      "</figcaption>\n</figure>\n</section>\n", c->out);
	free(ios);
}

static void svg_heatmap(struct report_ctx *c, const struct vxt_timeline *tl)
{
	struct vxt_heatmap hm = { 0 };
	const int cell_h = 18, top = 4;
	int base = top + cell_h * (int)tl->nrows;
	double bw = (double)PLOT_W / tl->nbins;
	char lo[24], hi[24];

	if (vxt_heatmap_build(&hm, tl, VXT_HEAT_IOPS, true) < 0) {
		fputs("<p>heatmap: out of memory</p>\n", c->out);
		return;
	}
	if (tl->mode == VXT_TL_ROWS_LBA) {
		fputs("<section>\n<h2>I/O per LBA range of ", c->out);
		html_str(c->out, obj_name(c, tl->lba_object));
		fputs("</h2>\n<figure>\n", c->out);
	} else {
		fputs("<section>\n<h2>I/O per object</h2>\n<figure>\n", c->out);
	}
	fprintf(c->out, "<svg id=\"heatmap\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"I/O per object heatmap\">\n", SVG_W, base + 50, SVG_W,
		base + 50);
	for (unsigned r = 0; r < tl->nrows; r++) {
		int y = top + cell_h * (int)r;

		fprintf(c->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", PLOT_X - 6,
			y + cell_h - 5);
		if (tl->mode == VXT_TL_ROWS_LBA)
			fprintf(c->out, "%s", vxt_format_size((unsigned __int128)tl->lba_sectors * r /
							       tl->nrows * 512, lo, sizeof(lo)));
		else
			html_str(c->out, obj_name(c, tl->row_obj[r]));
		fputs("</text>\n", c->out);
		for (unsigned b = 0; b < tl->nbins; b++) {
			size_t i = (size_t)r * tl->nbins + b;

			fprintf(c->out, "<rect class=\"cell\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"%d\" fill=\"%s\"%s><title>%.0f I/O/s, %u errors</title>"
				"</rect>\n", PLOT_X + bw * b, y, bw, cell_h - 1,
				heat_colors[hm.level[i]], hm.err[i] ?
				" stroke=\"#c0392b\" stroke-width=\"1.5\"" : "",
				vxt_heat_value(tl, r, b, VXT_HEAT_IOPS),
				tl->cells[i].errors);
		}
	}
	svg_time_axis(c->out, tl, c->start_ns, base);
	for (int l = 1; l <= VXT_HEAT_LEVELS; l++)
		fprintf(c->out, "<rect class=\"legend\" x=\"%d\" y=\"%d\" width=\"24\" height=\"10\" "
			"fill=\"%s\"/>\n", PLOT_X + 60 + 24 * l, base + 26, heat_colors[l]);
	fprintf(c->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", PLOT_X + 80,
		base + 35, vxt_heat_format(VXT_HEAT_IOPS, hm.lo, lo, sizeof(lo)));
	fprintf(c->out, "<text x=\"%d\" y=\"%d\">%s (log scale)</text>\n",
		PLOT_X + 90 + 24 * VXT_HEAT_LEVELS, base + 35,
		vxt_heat_format(VXT_HEAT_IOPS, hm.hi, hi, sizeof(hi)));
	fputs(tl->mode == VXT_TL_ROWS_LBA ?
	      "</svg>\n<figcaption>Completed I/Os per second in each LBA range (labelled by "
	      "its first byte) over time; cells outlined in red hold failed I/Os.</figcaption>\n"
	      "</figure>\n</section>\n" :
	      "</svg>\n<figcaption>Completed I/Os per second for each object over time, "
	      "busiest objects first; cells outlined in red hold failed I/Os.</figcaption>\n"
	      "</figure>\n</section>\n", c->out);
	vxt_heatmap_free(&hm);
}

static void object_table(struct report_ctx *c, const struct vxt_stats *st)
{
	const struct vxt_objtab *ot = vxt_reader_objects(c->r);

	fputs("<section>\n<h2>Objects</h2>\n<table id=\"objects\">\n<tr><th>object</th>"
	      "<th>kind</th><th>dev</th><th>I/Os</th><th>IOPS</th><th>reads</th><th>writes</th>"
	      "<th>read MiB/s</th><th>write MiB/s</th><th>p50</th><th>p99</th><th>max</th>"
	      "<th>errors</th><th>active</th></tr>\n", c->out);
	for (size_t i = 0; i < vxt_objtab_count(ot); i++) {
		const struct vxt_object *o = vxt_objtab_get(ot, (uint32_t)i);
		const struct vxt_objstats *s = vxt_stats_object(st, (uint32_t)i);
		uint64_t ios;
		double span;
		char a[16], b[16], d[16], e[16];

		if (!s)
			continue;
		ios = vxt_objstats_ios(s);
		/* rates over the time the object was active (formats/reports.md) */
		span = (double)vxt_objstats_active_ns(s) / VXT_NSEC_PER_SEC;
		fprintf(c->out, "<tr%s><td>", s->errors ? " class=\"bad\"" : "");
		html_str(c->out, o->name);
		fprintf(c->out, "</td><td>%s</td><td>%u:%u</td><td>%" PRIu64 "</td><td>%.1f</td>"
			"<td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.2f</td><td>%.2f</td><td>%s</td>"
			"<td>%s</td><td>%s</td><td>%" PRIu64 "</td><td>%s</td></tr>\n",
			vxt_obj_kind_name(o->kind), o->dev >> 20, o->dev & 0xfffff, ios,
			span > 0 ? (double)ios / span : 0, s->ios[VXT_OP_READ], s->ios[VXT_OP_WRITE],
			span > 0 ? (double)s->bytes_read / span / VXT_MIB : 0,
			span > 0 ? (double)s->bytes_written / span / VXT_MIB : 0,
			vxt_format_duration(vxt_latdist_quantile(&s->lat, 0.5), a, sizeof(a)),
			vxt_format_duration(vxt_latdist_quantile(&s->lat, 0.99), b, sizeof(b)),
			vxt_format_duration(s->lat.max, d, sizeof(d)), s->errors,
			vxt_format_duration(vxt_objstats_active_ns(s), e, sizeof(e)));
	}
	fputs("</table>\n</section>\n", c->out);
}

static void error_row(struct report_ctx *c, const struct vxt_event *ev)
{
	const char *en = vxt_errno_name(ev->error);
	char t[32], l[16];

	fprintf(c->out, "<tr><td>%s</td><td>", vxt_format_reltime(ev->time_ns, c->start_ns, t,
								 sizeof(t)));
	html_str(c->out, obj_name(c, ev->object));
	fprintf(c->out, "</td><td>%s</td><td>%" PRIu64 "</td><td>%u</td><td>", vxt_op_name(ev->op),
		ev->sector, ev->bytes);
	if (en)
		fputs(en, c->out);
	else
		fprintf(c->out, "%d", -ev->error);
	fprintf(c->out, "</td><td>%s</td><td>%u</td><td>",
		vxt_format_duration(ev->latency_ns, l, sizeof(l)), ev->pid);
	html_str(c->out, vxt_strtab_get(vxt_reader_strings(c->r), ev->comm));
	fputs("</td></tr>\n", c->out);
}

struct row_key {
	uint64_t ios;
	uint32_t id;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->ios != y->ios)
		return x->ios < y->ios ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Rows: objects with completed I/O, busiest first. @return the count, or -1. */
static int pick_rows(const struct vxt_stats *st, uint32_t *rows)
{
	struct row_key *k = calloc(st->nobj ? st->nobj : 1, sizeof(*k));
	size_t n = 0;

	if (!k)
		return -1;
	for (size_t i = 0; i < st->nobj; i++) {
		const struct vxt_objstats *s = vxt_stats_object(st, (uint32_t)i);

		if (s && vxt_objstats_ios(s))
			k[n++] = (struct row_key){ vxt_objstats_ios(s), (uint32_t)i };
	}
	qsort(k, n, sizeof(*k), row_cmp);
	if (n > HTML_ROWS)
		n = HTML_ROWS;
	for (size_t i = 0; i < n; i++)
		rows[i] = k[i].id;
	free(k);
	return (int)n;
}

static const char *row_name(void *ctx, uint32_t id)
{
	return obj_name(ctx, id);
}

/* Second pass: fill the timeline, then draw it. */
static int fill_timeline(struct report_ctx *c, struct vxt_timeline *tl)
{
	const struct vxt_event *ev;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	while ((rc = report_scope_next(c, &ev)) == 1)
		vxt_timeline_add(tl, ev);
	if (rc < 0)
		return 1;
	svg_error_timeline(c, tl);
	/* a capture or view that keeps only some I/O: empty intervals were not
	 * captured (formats/reports.md, Rates and units) */
	html_over_time(c->out, tl, c->start_ns,
		       vxt_reader_info(c->r)->profile[0] || c->keep || c->held);
	svg_heatmap(c, tl);
	html_latency_histogram(c->out, tl, row_name, c);
	return 0;
}

static int error_table(struct report_ctx *c, uint64_t nerrors)
{
	const struct vxt_event *ev;
	uint64_t shown = 0;
	int rc;

	fprintf(c->out, "<section>\n<h2>Errors</h2>\n<p>%" PRIu64 " failed I/Os%s</p>\n", nerrors,
		nerrors > HTML_ERRORS ? "; the first ones:" : "");
	if (!nerrors)
		return fputs("</section>\n", c->out), 0;
	fputs("<table id=\"errors\">\n<tr><th>time (s)</th><th>object</th><th>op</th>"
	      "<th>sector</th><th>bytes</th><th>error</th><th>latency</th><th>pid</th>"
	      "<th>comm</th></tr>\n", c->out);
	if (report_scope_begin(c) < 0)
		return 1;
	while (shown < HTML_ERRORS && (rc = report_scope_next(c, &ev)) == 1) {
		if (ev->phase != VXT_PH_DONE || !ev->error)
			continue;
		error_row(c, ev);
		shown++;
	}
	fputs("</table>\n</section>\n", c->out);
	return shown < HTML_ERRORS && rc < 0;
}

/* One object: a row per LBA range over the object's size (or as far as its
 * I/O reaches when the size is unknown). */
static int lba_timeline(struct report_ctx *c, struct vxt_timeline *tl,
			const struct vxt_stats *st, uint64_t end_sector)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(c->r),
						    (uint32_t)c->scope.object);
	uint64_t sectors = o && o->size ? o->size / 512 : end_sector;

	return vxt_timeline_init_lba(tl, st->first_ns, st->last_ns + 1, HTML_BINS,
				     (uint32_t)c->scope.object, sectors ? sectors : 1,
				     HTML_LBA_ROWS);
}

int report_html(struct report_ctx *c)
{
	struct vxt_timeline tl = { 0 };
	struct vxt_stats st;
	struct vxt_objstats total;
	const struct vxt_event *ev;
	uint32_t rows[HTML_ROWS];
	uint64_t end_sector = 0;
	int nrows, rc;

	vxt_stats_init(&st);
	if (report_scope_begin(c) < 0)
		return vxt_stats_free(&st), 1;
	for (size_t i = 0; i < vxt_reader_nchunks(c->r); i++)	/* as the summary */
		if (vxt_reader_chunk(c->r, i)->nlost) {
			if (vxt_stats_keep_flight(&st) < 0) {
				fprintf(stderr, "vxreplay: out of memory\n");
				return vxt_stats_free(&st), 1;
			}
			break;
		}
	while ((rc = report_scope_next(c, &ev)) == 1) {
		if (ev->phase != VXT_PH_LOST && ev->sector + ev->bytes / 512 > end_sector)
			end_sector = ev->sector + ev->bytes / 512;
		if (vxt_stats_add(&st, ev) < 0) {
			rc = -1;
			fprintf(stderr, "vxreplay: out of memory\n");
			break;
		}
	}
	if (rc < 0)
		return vxt_stats_free(&st), 1;
	vxt_stats_finish(&st);
	nrows = pick_rows(&st, rows);
	/* times count from the file's start (c->start_ns), as in every report:
	 * the same error has the same time with --object or --from */
	if (c->scope.object >= 0)
		rc = lba_timeline(c, &tl, &st, end_sector);
	else
		rc = nrows < 0 ? -ENOMEM : vxt_timeline_init(&tl, st.first_ns, st.last_ns + 1,
							      HTML_BINS, rows, (unsigned)nrows);
	if (rc < 0) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return vxt_stats_free(&st), 1;
	}
	vxt_stats_total(&st, &total);
	page_head(c, &st, &total);
	rc = fill_timeline(c, &tl);
	if (!rc) {
		struct vxt_breakdown bd;

		rc = report_breakdown_collect(c, &bd);
		if (!rc)
			html_breakdown(c->out, &bd);
		vxt_bd_free(&bd);
	}
	if (!rc) {
		object_table(c, &st);
		rc = error_table(c, total.errors);
	}
	fprintf(c->out, "<footer class=\"meta\"><p>vxreplay %s</p></footer>\n</body>\n</html>\n",
		vxt_version());
	vxt_timeline_free(&tl);
	vxt_objstats_free(&total);
	vxt_stats_free(&st);
	return rc;
}
