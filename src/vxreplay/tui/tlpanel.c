/* tlpanel.c - vxreplay's browser: the timeline panel
 *
 * One column per bin of the visible window. It plots a metric over time
 * (c switches): errors (with the lost and slow marks of a profile), IOPS,
 * MiB/s (2^20 bytes per second, the product's unit), the p50 / p99 latency (D2C) of
 * the bin's completions (latdist.h), or the p50 / p99 Q2C (queue to completion, from
 * the pairing of every phase, ivseries.h). Under the bars the axis carries the cursor and the
 * marks, and under it time labels in the event list's time base. With no
 * error in the file the error plot shrinks to the axis and says so. L shows
 * a lane per heatmap row, shaded by the same metric, with its scale and the
 * cursor on the axis.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "browser/ivseries.h"
#include "browser/axis.h"
#include "tui_timeline.h"

static const char *const metric_title[VR_TLM_COUNT] = {
	[VR_TLM_ERRORS] = "Errors", [VR_TLM_IOPS] = "IOPS", [VR_TLM_MBS] = "MiB/s",
	[VR_TLM_P50] = "Latency p50", [VR_TLM_P99] = "Latency p99",
	[VR_TLM_Q2C_P50] = "Q2C p50", [VR_TLM_Q2C_P99] = "Q2C p99",
};

static const char *const metric_label[VR_TLM_COUNT] = {
	[VR_TLM_ERRORS] = "errors", [VR_TLM_IOPS] = "IOPS", [VR_TLM_MBS] = "MiB/s",
	[VR_TLM_P50] = "p50", [VR_TLM_P99] = "p99",
	[VR_TLM_Q2C_P50] = "q2c p50", [VR_TLM_Q2C_P99] = "q2c p99",
};

const char *vr_tl_metric_name(int metric)
{
	return metric >= 0 && metric < VR_TLM_COUNT ? metric_title[metric] : "?";
}

static bool errors_plotted(const struct vr_app *a)
{
	return a->tl_metric == VR_TLM_ERRORS && (a->m.mark_kinds & VR_MARK_ERRORS);
}

bool vr_timeline_compact(const struct vr_app *a)
{
	return errors_plotted(a) && !a->lanes && a->m.total_errors == 0;
}

static bool q2c_metric(const struct vr_app *a)
{
	return a->tl_metric == VR_TLM_Q2C_P50 || a->tl_metric == VR_TLM_Q2C_P99;
}

static double metric_q(const struct vr_app *a)
{
	return a->tl_metric == VR_TLM_Q2C_P50 ? 0.50 : 0.99;
}

/* The value of bin @b (all objects) in the unit the bars use: errors, IOPS,
 * bytes per second, ns. @iv: with a Q2C metric, the bins' Q2C distributions. */
static uint64_t bin_value(const struct vr_app *a, const struct vxt_timeline *tl, unsigned b,
			  const struct vxt_latdist *iv)
{
	switch (a->tl_metric) {
	case VR_TLM_Q2C_P50: case VR_TLM_Q2C_P99:
		return iv ? vxt_latdist_quantile(&iv[b], metric_q(a)) : 0;
	case VR_TLM_IOPS: return (uint64_t)(vxt_timeline_iops(tl, b) + 0.5);
	case VR_TLM_MBS: return (uint64_t)(vxt_timeline_bps(tl, b) + 0.5);
	case VR_TLM_P50: return vxt_timeline_lat_quantile(tl, b, 0.50);
	case VR_TLM_P99: return vxt_timeline_lat_quantile(tl, b, 0.99);
	default: return tl->errors[b];
	}
}

/* The same for one cell (a lane); @iv: the cells' Q2C distributions. */
static uint64_t cell_value(const struct vr_app *a, const struct vxt_timeline *tl, unsigned r,
			   unsigned b, const struct vxt_latdist *iv)
{
	const struct vxt_tl_cell *c = &tl->cells[(size_t)r * tl->nbins + b];
	double s = (double)(vxt_timeline_bin_start(tl, b + 1) - vxt_timeline_bin_start(tl, b)) / 1e9;

	if (s <= 0)
		s = 1e-9;
	switch (a->tl_metric) {
	case VR_TLM_Q2C_P50: case VR_TLM_Q2C_P99:
		return iv ? vxt_latdist_quantile(&iv[(size_t)r * tl->nbins + b], metric_q(a)) : 0;
	case VR_TLM_IOPS: return (uint64_t)((double)c->ios / s + 0.5);
	case VR_TLM_MBS: return (uint64_t)((double)c->bytes / s + 0.5);
	case VR_TLM_P50: return vxt_timeline_cell_quantile(c, 0.50);
	case VR_TLM_P99: return vxt_timeline_cell_quantile(c, 0.99);
	default: return c->errors;
	}
}

/* Is the metric a latency quantile that some shown bin (row -1) or cell of
 * row @r does not know yet (completions counted from the index, not
 * decoded)? Its bars are then empty and its figures "...": the index's
 * powers of two are not the one distribution every view prints. */
static bool lat_pending(const struct vr_app *a, const struct vxt_timeline *tl, int r)
{
	if (a->tl_metric != VR_TLM_P50 && a->tl_metric != VR_TLM_P99)
		return false;
	for (unsigned b = 0; b < tl->nbins; b++)
		if (r < 0 ? vxt_timeline_lat_pending(tl, b) :
		    vxt_timeline_cell_pending(&tl->cells[(size_t)r * tl->nbins + b]))
			return true;
	return false;
}

/* @v (in bin_value()'s unit) for the label column; @pending: a latency not
 * known yet (lat_pending()), printed "...". */
static char *format_value(const struct vr_app *a, uint64_t v, bool pending, char *buf,
			  size_t size)
{
	switch (a->tl_metric) {
	case VR_TLM_IOPS:
		if (v >= 10000)
			snprintf(buf, size, "%.1fk", (double)v / 1e3);
		else
			snprintf(buf, size, "%" PRIu64, v);
		break;
	case VR_TLM_MBS:
		snprintf(buf, size, v >= 10485760000ull ? "%.0f" : "%.1f", (double)v / VXT_MIB);
		break;
	case VR_TLM_P50: case VR_TLM_P99: case VR_TLM_Q2C_P50: case VR_TLM_Q2C_P99:
		if (pending)
			snprintf(buf, size, "...");
		else
			vxt_format_duration(v, buf, size);
		break;
	default: snprintf(buf, size, "%" PRIu64, v); break;
	}
	return buf;
}

static struct tui_rect plot_rect(const struct tui_panel *p)
{
	/* title above, time labels below */
	return (struct tui_rect){ p->r.y + 1, p->r.x + VR_LABEL_W + 1, p->r.h - 2,
				  p->r.w - VR_LABEL_W - 1 };
}

/* True when the I/O shown is only what a profile kept (at record time, or
 * a speculative view now): a bin without events was not captured. */
static bool partial_capture(const struct vr_app *a)
{
	return vxt_reader_info(a->m.rd)->profile[0] || a->m.view.spec_on;
}

static void update_marks(struct vr_app *a, const struct vxt_timeline *tl)
{
	if (a->tl_marks_n != tl->nbins) {
		free(a->tl_marks);
		free(a->tl_uncapt);
		a->tl_marks = calloc(tl->nbins ? tl->nbins : 1, 1);
		a->tl_uncapt = calloc(tl->nbins ? tl->nbins : 1, 1);
		if (!a->tl_marks || !a->tl_uncapt) {
			free(a->tl_marks);
			free(a->tl_uncapt);
			a->tl_marks = a->tl_uncapt = NULL;
		}
		a->tl_marks_n = a->tl_marks ? tl->nbins : 0;
	}
	if (!a->tl_marks)
		return;
	memset(a->tl_marks, 0, a->tl_marks_n);
	for (unsigned b = 0; b < a->tl_marks_n; b++)
		a->tl_uncapt[b] = partial_capture(a) && !tl->events[b];
	for (unsigned i = 0; i < a->m.nmarks; i++) {
		int b = vxt_timeline_bin(tl, a->m.marks[i].time_ns);

		if (b >= 0)
			a->tl_marks[b] = 1;
	}
}

/* The key of the marks under the axis: "  ! lost  ◆ slow >=20ms". */
static void marks_key(const struct vr_app *a, char *buf, size_t size)
{
	char d[32];
	size_t n = 0;

	buf[0] = 0;
	if (a->m.mark_kinds & VR_MARK_LOST)
		n += (size_t)snprintf(buf + n, size - n, "  %s lost", tui_glyphs->lost);
	if (a->m.tl_slow && n < size)
		snprintf(buf + n, size - n, "  %s slow >=%s", tui_glyphs->slow,
			 vxt_format_duration(a->m.lat_crit_ns, d, sizeof(d)));
}

static void timeline_title(struct vr_app *a, const struct tui_panel *p, bool focused,
			   const struct vxt_timeline *tl, const char *extra)
{
	char t[240], b0[32], b1[32], bw[32], key[80];
	const char *what = a->tl_metric != VR_TLM_ERRORS ? metric_title[a->tl_metric] :
			   a->m.mark_kinds & VR_MARK_ERRORS ? "Errors" : "Timeline";

	marks_key(a, key, sizeof(key));
	if (partial_capture(a) && strlen(key) + 20 < sizeof(key))
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "  %s not captured",
			 tui_glyphs->shade[1]);
	snprintf(t, sizeof(t), "%s%s  %s..%ss  bin %s%s%s%s", what, a->lanes ? " by object" : "",
		 vr_reltime(a, tl->t0, b0, sizeof(b0)), vr_reltime(a, tl->t1, b1, sizeof(b1)),
		 vxt_format_duration((tl->t1 - tl->t0) / (tl->nbins ? tl->nbins : 1), bw, sizeof(bw)),
		 key, extra, a->m.tl_show_est ? "  (index estimate)" : "");
	tui_title(&p->r, focused, t, "+/- zoom  t/T one bin  c metric  e/E error");
}

/* The time labels under the axis, at round times of the event list's base. */
static void time_labels(struct vr_app *a, const struct tui_rect *pr, int y, int x0,
			const struct vxt_timeline *tl)
{
	struct vr_tick ticks[256];
	uint64_t step;
	unsigned n = vr_axis_ticks(tl->t0, tl->t1, a->m.t_first, (unsigned)pr->w, 12, ticks, 256,
				   &step);
	int end = -1;

	tui_printw(y, x0, VR_LABEL_W, TUI_R_DIM, "time s");
	for (unsigned i = 0; i < n; i++) {
		char l[32];
		int x = pr->x + (int)ticks[i].col;

		vr_axis_label(ticks[i].t, a->m.t_first, step, l, sizeof(l));
		if (x <= end || x + (int)strlen(l) > pr->x + pr->w)
			continue;
		end = x + tui_printw(y, x, pr->x + pr->w - x, TUI_R_DIM, "%s", l);
	}
}

/* The axis alone (cursor and marks), as the bars' bottom row. */
static void axis_only(struct vr_app *a, const struct tui_rect *pr, int y,
		      const struct vxt_timeline *tl)
{
	struct tui_rect ar = { y, pr->x, 1, pr->w };
	struct tui_timeline w = {
		.nbins = (int)tl->nbins, .lost = a->m.mark_kinds & VR_MARK_LOST ? tl->lost : NULL,
		.slow = a->m.tl_slow, .marks = a->tl_marks,
		.cursor = vxt_timeline_bin(tl, vr_model_cursor_time(&a->m)),
	};

	tui_timeline_draw(&ar, &w);
}

static void timeline_lanes(struct vr_app *a, const struct tui_panel *p,
			   const struct vxt_timeline *tl)
{
	static uint64_t lane[4096];
	unsigned n = tl->nbins < 4096 ? tl->nbins : 4096;
	struct tui_rect pr = plot_rect(p);
	int lanes = pr.h - 1, shown = 0;
	uint64_t max = 0;
	bool pending = false;
	char mx[32], key[160], more[32];
	const struct vxt_latdist *iv = q2c_metric(a) && vr_ivs_want(&a->m) != VR_IVS_NO_PHASES ?
				       vr_ivs_dists(&a->m, tl, VR_IVS_Q2C, true) : NULL;

	for (unsigned r = 0; r < tl->nrows; r++)
		for (unsigned b = 0; b < n; b++) {
			uint64_t v = cell_value(a, tl, r, b, iv);

			if (v > max)
				max = v;
		}
	for (int i = 0; i < lanes && (unsigned)i < tl->nrows; i++, shown++) {
		pending = pending || lat_pending(a, tl, i);
		for (unsigned b = 0; b < n; b++)
			lane[b] = cell_value(a, tl, (unsigned)i, b, iv);
		tui_timeline_lane(pr.y + i, p->r.x, p->r.w,
				  tl->mode == VXT_TL_ROWS_LBA ? a->label_buf[i] : vr_objname(a, tl->row_obj[i]),
				  VR_LABEL_W, lane, (int)n, max ? max : 1,
				  a->tl_metric == VR_TLM_ERRORS ? TUI_R_ERROR : TUI_R_NORMAL);
	}
	update_marks(a, tl);
	axis_only(a, &pr, pr.y + pr.h - 1, tl);
	tui_printw(pr.y + pr.h - 1, p->r.x, VR_LABEL_W, TUI_R_DIM, "%s", metric_label[a->tl_metric]);
	time_labels(a, &pr, pr.y + pr.h, p->r.x, tl);
	/* the legend: what each shade stands for */
	more[0] = 0;
	if ((unsigned)shown < tl->nrows)
		snprintf(more, sizeof(more), "  +%u rows not shown", tl->nrows - (unsigned)shown);
	snprintf(key, sizeof(key), "  %s%s%s%s%s up to %s %s/bin%s", tui_glyphs->shade[1],
		 tui_glyphs->shade[2], tui_glyphs->shade[3], tui_glyphs->shade[4],
		 max || pending ? "" : " (none)", format_value(a, max, pending, mx, sizeof(mx)),
		 metric_label[a->tl_metric], more);
	timeline_title(a, p, tui_screen_focused(&a->scr) == &a->timeline, tl, key);
}

static void draw_scale(struct vr_app *a, const struct tui_panel *p, const struct tui_rect *pr,
		       uint64_t max, bool pending)
{
	char v[32];

	if (pr->h > 1)
		tui_printw(pr->y, p->r.x, VR_LABEL_W, TUI_R_DIM, "%s",
			   format_value(a, max, pending, v, sizeof(v)));
	if (pr->h > 2)
		tui_printw(pr->y + pr->h - 2, p->r.x, VR_LABEL_W, TUI_R_DIM, "0");
	tui_printw(pr->y + pr->h - 1, p->r.x, VR_LABEL_W, TUI_R_DIM, "%s", metric_label[a->tl_metric]);
}

static void timeline_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	struct tui_rect pr = plot_rect(p);
	struct tui_timeline w;
	uint64_t max = 0;
	bool errs = errors_plotted(a), compact = vr_timeline_compact(a), none = false;
	bool pending;
	const struct vxt_latdist *iv = NULL;

	if (!tl->nbins || pr.h < 1)
		return;
	if (vr_model_indexing(&a->m)) {
		/* a large file's index is still being read: keys go on */
		timeline_title(a, p, focused, tl, "  computing...");
		tui_puts(pr.y + (pr.h - 1) / 2, pr.x + 2, pr.w - 2, TUI_R_DIM, "computing...");
		return;
	}
	if (q2c_metric(a)) {
		none = vr_ivs_want(&a->m) == VR_IVS_NO_PHASES;
		iv = none ? NULL : vr_ivs_dists(&a->m, tl, VR_IVS_Q2C, false);
	}
	if (a->lanes) {
		timeline_lanes(a, p, tl);
		return;
	}
	if (a->tl_vals_n < tl->nbins) {
		uint64_t *nv = realloc(a->tl_vals, tl->nbins * sizeof(*nv));

		if (!nv)
			return;
		a->tl_vals = nv;
		a->tl_vals_n = tl->nbins;
	}
	for (unsigned b = 0; b < tl->nbins; b++) {
		a->tl_vals[b] = errs || a->tl_metric != VR_TLM_ERRORS ? bin_value(a, tl, b, iv) : 0;
		if (a->tl_vals[b] > max)
			max = a->tl_vals[b];
	}
	pending = lat_pending(a, tl, -1);
	timeline_title(a, p, focused, tl, compact ? "  no errors in the file" :
		       vr_ivs_state(&a->m) == VR_IVS_RUNNING && q2c_metric(a) ?
		       "  (pairing the phases)" : pending ? "  (reading the latencies)" : "");
	update_marks(a, tl);
	w = (struct tui_timeline){
		.nbins = (int)tl->nbins,
		.val = errs || a->tl_metric != VR_TLM_ERRORS ? a->tl_vals : NULL,
		.lost = a->m.mark_kinds & VR_MARK_LOST ? tl->lost : NULL, .slow = a->m.tl_slow,
		.marks = a->tl_marks, .uncaptured = a->tl_uncapt,
		.cursor = vxt_timeline_bin(tl, vr_model_cursor_time(&a->m)),
		.bar_role = errs ? TUI_R_ERROR : TUI_R_NORMAL,
		.log_scale = a->tl_metric == VR_TLM_ERRORS,
	};
	tui_timeline_draw(&pr, &w);
	draw_scale(a, p, &pr, max, pending);
	if (!max && !pending && pr.h > 2 && w.val)
		tui_puts(pr.y + (pr.h - 1) / 2, pr.x + 2, pr.w - 2, TUI_R_DIM,
			 none ? "Q2C not available: the trace holds issue and completion only "
				"(captured with --phases issue)" :
			 errs ? "no errors in this window" : "no completed I/O in this window");
	time_labels(a, &pr, pr.y + pr.h, p->r.x, tl);
}

static int click_time(struct vr_app *a, int col)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);

	if (col < 0 || (unsigned)col >= tl->nbins)
		return TUI_NONE;
	vr_model_goto_time(&a->m, vxt_timeline_bin_start(tl, (unsigned)col));
	return TUI_REDRAW;
}

static int timeline_mouse(struct tui_panel *p, int y, int x)
{
	struct tui_rect pr = plot_rect(p);

	(void)y;
	return click_time(p->data, x - pr.x);
}

/* Left/Right: one bin; other keys go to the keymap. */
int vr_step_bin(struct vr_app *a, int dir)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	uint64_t bw = (tl->t1 - tl->t0) / (tl->nbins ? tl->nbins : 1);
	uint64_t c = vr_model_cursor_time(&a->m);

	if (!bw)
		bw = 1;
	if (dir > 0)
		vr_model_goto_time(&a->m, c + bw);
	else
		vr_model_goto_time(&a->m, c > bw ? c - bw : 0);
	return TUI_REDRAW;
}

static int timeline_key(struct tui_panel *p, int key)
{
	if (key == KEY_RIGHT)
		return vr_step_bin(p->data, 1);
	if (key == KEY_LEFT)
		return vr_step_bin(p->data, -1);
	return TUI_IGNORED;
}

const struct tui_panel_ops vr_timeline_ops = {
	.name = "timeline", .draw = timeline_draw, .on_key = timeline_key,
	.on_mouse = timeline_mouse,
};
