/* histpanel.c - vxreplay's browser: the latency histogram of an object
 *
 * An overlay (b) with the log2 latency histogram of one object (or of all)
 * over the visible window and what the filter shows: a row per bucket from
 * the fastest to the slowest non-empty one, its I/O count and a bar, the
 * buckets holding p50 and p99 marked. The histogram is read from the
 * timeline's cells (a row per heatmap object), so it is exact once the
 * binning is done. Left/Right pick the object; 1, 2, 3 pick the interval:
 * D2C (issue to completion, the latency of every completion), Q2C (queue to
 * completion) and the queue time (Q2D); the last two come from the pairing
 * of every phase (ivseries.h), and are said not to be available when the
 * trace holds issue and completion only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"
#include "browser/ivseries.h"
#include "browser/pairjob.h"

enum { HIST_D2C, HIST_Q2C, HIST_QUEUE };

static const char *const hist_name[] = { "D2C", "Q2C", "queue (Q2D)" };

/* True when some chunk holds events beyond issues, completions and lost
 * records: queue-side phases (or requeues, marks) were captured. */
bool vr_has_queue_side(const struct vr_model *m)
{
	return vr_model_queue_side(m);
}

/* The histogram of row @row (-1 = every object) of @tl into @h. @return I/Os. */
uint64_t vr_hist_of(const struct vxt_timeline *tl, int row, uint64_t *h)
{
	uint64_t n = 0;

	memset(h, 0, VXT_LAT_BUCKETS * sizeof(*h));
	if (row < 0)
		vxt_timeline_lat_total(tl, h);
	else
		for (unsigned b = 0; b < tl->nbins; b++) {
			const struct vxt_tl_cell *c = &tl->cells[(size_t)row * tl->nbins + b];

			for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
				h[k] += c->lat[k];
		}
	for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
		n += h[k];
	return n;
}

/* The histogram of interval @kind (VR_IVS_*) of row @row (-1 = every object)
 * of @tl into @h, from the pairing of every phase. @return I/Os. */
static uint64_t iv_hist_of(struct vr_app *a, const struct vxt_timeline *tl, int kind, int row,
			   uint64_t *h)
{
	const uint32_t *c = vr_ivs_bins(&a->m, tl, kind, row >= 0);
	uint64_t n = 0;

	memset(h, 0, VXT_LAT_BUCKETS * sizeof(*h));
	if (!c)
		return 0;
	if (row >= 0)
		c += (size_t)row * tl->nbins * VXT_LAT_BUCKETS;
	for (unsigned b = 0; b < tl->nbins; b++)
		for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
			h[k] += c[(size_t)b * VXT_LAT_BUCKETS + k];
	for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
		n += h[k];
	return n;
}

/* The bucket holding quantile @q (nearest rank), or -1 when empty. */
static int quantile_bucket(const uint64_t *h, uint64_t n, double q)
{
	uint32_t h32[VXT_LAT_BUCKETS];

	if (!n)
		return -1;
	for (unsigned k = 0; k < VXT_LAT_BUCKETS; k++)
		h32[k] = h[k] > UINT32_MAX ? UINT32_MAX : (uint32_t)h[k];
	return (int)vxt_log2hist_bucket(vxt_log2hist_quantile(h32, VXT_LAT_BUCKETS, q));
}

static const char *row_name(struct vr_app *a, const struct vxt_timeline *tl)
{
	if (a->hist_row < 0)
		return "all objects";
	if (tl->mode == VXT_TL_ROWS_LBA)
		return vr_objname(a, tl->lba_object);
	return vr_objname(a, tl->row_obj[a->hist_row]);
}

static void hist_body(const struct tui_panel *p, const uint64_t *h, uint64_t n)
{
	uint64_t max = 0;
	int lo = -1, hi = -1, p50 = quantile_bucket(h, n, 0.50), p99 = quantile_bucket(h, n, 0.99);
	int y = p->r.y + 2, barw = p->r.w - 37 - 12;
	char l0[16], l1[16], line[48];

	for (int k = 0; k < VXT_LAT_BUCKETS; k++)
		if (h[k]) {
			if (lo < 0)
				lo = k;
			hi = k;
			if (h[k] > max)
				max = h[k];
		}
	tui_printw(y++, p->r.x + 2, p->r.w - 4, TUI_R_HEADER, "%-22s %10s  %s", "LATENCY", "I/OS",
		   "(log2 buckets)");
	if (lo < 0) {
		tui_puts(y, p->r.x + 2, p->r.w - 4, TUI_R_DIM, "no completed I/O in the window");
		return;
	}
	for (int k = lo; k <= hi && y < p->r.y + p->r.h - 1; k++, y++) {
		int w = barw > 0 && max ? (int)((h[k] * (uint64_t)barw + max - 1) / max) : 0;

		vxt_format_duration(UINT64_C(1) << k, l0, sizeof(l0));
		vxt_format_duration(UINT64_C(2) << k, l1, sizeof(l1));
		snprintf(line, sizeof(line), "%9s - %-9s", l0, l1);
		tui_printw(y, p->r.x + 2, 24, TUI_R_NORMAL, "%s", line);
		tui_printw(y, p->r.x + 25, 11, k == p99 || k == p50 ? TUI_R_HEADER_VALUE : TUI_R_NORMAL,
			   "%10" PRIu64, h[k]);
		if (w)
			for (int c = 0; c < w; c++)
				tui_fill(y, p->r.x + 37 + c, 1, k >= p99 && p99 >= 0 ? TUI_R_WARN : TUI_R_NORMAL,
					 tui_glyphs->bar[8]);
		if (k == p50 || k == p99)
			tui_printw(y, p->r.x + 38 + w, p->r.w - 40 - w, TUI_R_HEADER_VALUE, "<- %s%s",
				   k == p50 ? "p50" : "p99", k == p50 && k == p99 ? " p99" : "");
	}
}

static void hist_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	char t[300], b0[32], b1[32];
	uint64_t h[VXT_LAT_BUCKETS], n;
	enum vr_ivs_state st = VR_IVS_DONE;
	int kind = a->hist_kind == HIST_Q2C ? VR_IVS_Q2C : VR_IVS_Q2D;

	(void)focused;
	if (a->hist_row >= (int)tl->nrows)
		a->hist_row = -1;
	if (tl->mode == VXT_TL_ROWS_LBA && a->hist_row >= 0)
		a->hist_row = -1;	/* LBA rows are not objects: all of it */
	if (a->hist_kind == HIST_D2C) {
		n = vr_hist_of(tl, a->hist_row, h);
	} else {
		st = vr_ivs_want(&a->m);
		n = iv_hist_of(a, tl, kind, a->hist_row, h);
	}
	snprintf(t, sizeof(t), "Latency %s  %s  %s..%ss  %" PRIu64 " I/Os%s%s", hist_name[a->hist_kind],
		 row_name(a, tl), vr_reltime(a, tl->t0, b0, sizeof(b0)),
		 vr_reltime(a, tl->t1, b1, sizeof(b1)), n,
		 a->m.filter_src[0] ? "  (filtered)" : a->m.tl_show_est ? "  (index estimate)" : "",
		 st == VR_IVS_RUNNING ? "  (pairing the phases)" : "");
	tui_title(&p->r, true, t, "Left/Right object  1 D2C  2 Q2C  3 queue  Esc");
	if (vr_model_indexing(&a->m)) {
		tui_puts(p->r.y + 2, p->r.x + 2, p->r.w - 4, TUI_R_DIM, "computing...");
		return;
	}
	if (st == VR_IVS_NO_PHASES || st == VR_IVS_NONE) {
		tui_puts(p->r.y + 2, p->r.x + 2, p->r.w - 4, TUI_R_DIM, st == VR_IVS_NONE ?
			 "not available: pairing the phases ran out of memory" :
			 "breakdown not available: the trace holds issue and completion only "
			 "(captured with --phases issue); D2C is key 1");
		return;
	}
	hist_body(p, h, n);
}

static int hist_key(struct tui_panel *p, int key)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	int n = tl->mode == VXT_TL_ROWS_LBA ? 0 : (int)tl->nrows;

	switch (key) {
	case KEY_RIGHT:
		a->hist_row = a->hist_row + 1 >= n ? -1 : a->hist_row + 1;
		return TUI_REDRAW;
	case KEY_LEFT:
		a->hist_row = a->hist_row < 0 ? n - 1 : a->hist_row - 1;
		return TUI_REDRAW;
	case '1': case '2': case '3':
		a->hist_kind = key - '1';
		return TUI_REDRAW;
	case 'b':
		return TUI_CLOSE | TUI_REDRAW;
	}
	return TUI_IGNORED;
}

static const struct tui_panel_ops hist_ops = {
	.name = "histogram", .draw = hist_draw, .on_key = hist_key,
};

int vr_open_hist(struct vr_app *a)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	const struct vxt_event *ev;

	a->hist = (struct tui_panel){ .ops = &hist_ops, .data = a, .visible = true };
	a->hist_row = -1;
	/* the object of the heatmap row in focus, else of the cursor's event */
	if (tl->mode == VXT_TL_ROWS_OBJECT) {
		if (tui_screen_focused(&a->scr) == &a->heatmap && a->hm_sel >= 0 &&
		    (unsigned)a->hm_sel < tl->nrows)
			a->hist_row = a->hm_sel;
		else if (a->m.has_sel && vr_view_get(&a->m.view, a->m.sel, &ev) == 1 &&
			 ev->object < tl->nobj_map)
			a->hist_row = tl->obj_row[ev->object];
	}
	tui_screen_push(&a->scr, &a->hist);
	return TUI_REDRAW;
}
