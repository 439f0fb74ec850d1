/* heatpanel.c - vxreplay's browser: the heatmap panel
 *
 * Rows are the busiest objects (or LBA buckets of one object), columns time
 * bins of the visible window: a bin per column of the error timeline above
 * it, or a profile's own number of bins, each drawn over equal columns. The
 * legend gives the metric and its scale; cells with errors are overlaid.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"
#include "browser/heativ.h"
#include "tui_heatmap.h"

/* @name in @w columns: a host:object name too long for them keeps as much
 * of the object as it can, the host cut first (alpha:sdb -> alph:sdb). */
static void short_label(char *out, size_t size, const char *name, size_t w)
{
	const char *colon = strchr(name, ':');
	size_t len = strlen(name), obj, host;

	if (!colon || len <= w || w < 3) {
		snprintf(out, size, "%s", name);
		return;
	}
	obj = strlen(colon + 1);
	host = w > obj + 1 ? w - obj - 1 : 1;
	if (host > (size_t)(colon - name))
		host = (size_t)(colon - name);
	snprintf(out, size, "%.*s:%s", (int)host, name, colon + 1);
}

static void heat_labels(struct vr_app *a, const struct vxt_timeline *tl)
{
	for (unsigned r = 0; r < tl->nrows; r++) {
		if (tl->mode == VXT_TL_ROWS_LBA) {
			/* the row's first sector, as the list's SECTOR column counts */
			vr_sector_label(tl->lba_first + tl->lba_sectors / tl->nrows * r,
					tl->lba_sectors / tl->nrows, a->label_buf[r],
					sizeof(a->label_buf[r]));
		} else {
			short_label(a->label_buf[r], sizeof(a->label_buf[r]),
				    vr_objname(a, tl->row_obj[r]), VR_LABEL_W);
		}
		a->labels[r] = a->label_buf[r];
	}
}

/* Its own bins: "  12 bins of 500ms" (each drawn over several columns);
 * more bins than columns get a bin per column, and say so. */
static void heat_bins_note(struct vr_app *a, const struct vxt_timeline *tl, char *buf,
			   size_t size)
{
	char bw[32];

	buf[0] = 0;
	if (vr_heat_separate(&a->m))
		snprintf(buf, size, "  %u bins of %s", tl->nbins,
			 vxt_format_duration((tl->t1 - tl->t0) / tl->nbins, bw, sizeof(bw)));
	else if (a->m.heat_bins)
		snprintf(buf, size, "  %u bins do not fit: one per column", a->m.heat_bins);
}

/* The heatmap squeezed out by the layout: one row saying so, and naming
 * the objects with errors it would show. */
static void heat_stub(struct vr_app *a, const struct tui_panel *p, bool focused)
{
	char t[240], he[180];
	int n = snprintf(t, sizeof(t), "Heatmap hidden, %d row%s short", a->hm_need,
			 a->hm_need == 1 ? "" : "s");

	if (vr_heat_hidden_errors(a, 0, 0, he, sizeof(he)))
		snprintf(t + n, sizeof(t) - (size_t)n, "; errors: %s", he);
	tui_title(&p->r, focused, t, "o objects");
}

char *vr_sector_label(uint64_t s, uint64_t row, char *buf, size_t size)
{
	double unit = s < UINT64_C(10000000000) ? 1e6 : 1e9;
	int dec = 0;

	if (s < 100000000) {
		snprintf(buf, size, "%" PRIu64, s);
		return buf;
	}
	/* as many decimals as tell one row from the next, as the width allows */
	while (dec < 3 && unit > (double)(row ? row : 1)) {
		unit /= 10;
		dec++;
	}
	for (; dec >= 0; dec--) {
		if (s < UINT64_C(10000000000))
			snprintf(buf, size, "%.*fM", dec, (double)s / 1e6);
		else
			snprintf(buf, size, "%.*fG", dec, (double)s / 1e9);
		if (strlen(buf) <= VR_LABEL_W)
			break;
	}
	return buf;
}

/* "sdb by LBA: sectors 1024-9215 in 8 rows of 1024" and what is not shown. */
static void lba_title(struct vr_app *a, const struct vxt_timeline *tl, int shown, char *buf,
		      size_t size, const char *bins)
{
	uint64_t end = tl->lba_first + tl->lba_sectors, dev = vr_lba_sectors(&a->m);
	size_t n;

	if (end > dev && dev > tl->lba_first)
		end = dev;	/* the last row is cut at the object's end */
	n = (size_t)snprintf(buf, size, "Heatmap %s by LBA: sectors %" PRIu64 "-%" PRIu64
			     " in %u rows of %" PRIu64 "%s", vr_objname(a, tl->lba_object),
			     tl->lba_first, end - 1, tl->nrows, tl->lba_sectors / tl->nrows, bins);
	if (n < size && shown < (int)tl->nrows)
		n += (size_t)snprintf(buf + n, size - n, "  rows %d-%d of %u shown", a->hm_top + 1,
				      a->hm_top + shown, tl->nrows);
	if (n < size && tl->lba_outside)
		n += (size_t)snprintf(buf + n, size - n, "  %" PRIu64 " I/Os outside", tl->lba_outside);
	if (n < size && a->m.lba_want_fit && !a->m.tl_done)
		snprintf(buf + n, size - n, "  (finding the span touched)");
}

/* Is the heatmap's metric a latency quantile that some cell does not know
 * yet (completions counted from the index, not decoded)? Those cells are
 * blank and the scale "...", as the timeline's: the index's powers of two
 * are not the one distribution every view prints. */
static bool heat_lat_pending(const struct vxt_timeline *tl, const struct vxt_heatmap *hm)
{
	if (hm->metric != VXT_HEAT_LAT_P99 && hm->metric != VXT_HEAT_LAT_P50)
		return false;
	for (size_t i = 0; i < (size_t)tl->nrows * tl->nbins; i++)
		if (vxt_timeline_cell_pending(&tl->cells[i]))
			return true;
	return false;
}

static void heatmap_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_heat_timeline(&a->m);
	const struct vxt_heatmap *hm = vr_model_heatmap(&a->m);
	struct tui_rect gr = { p->r.y + 1, p->r.x, p->r.h - 2, p->r.w };
	struct tui_heatmap w;
	char t[300], lo[32], hi[32], bins[96];
	int shown;
	bool pending;

	if (!tl->nbins || hm->cols != tl->nbins)
		return;
	heat_labels(a, tl);
	if (a->hm_need > 0) {
		heat_stub(a, p, focused);
		return;
	}
	if (vr_model_indexing(&a->m)) {
		tui_title(&p->r, focused, tl->mode == VXT_TL_ROWS_LBA ? "Heatmap by LBA  computing..." :
			  "Heatmap by object  computing...", "");
		tui_puts(gr.y + (gr.h - 1) / 2, gr.x + 2, gr.w - 2, TUI_R_DIM, "computing...");
		return;
	}
	heat_bins_note(a, tl, bins, sizeof(bins));
	pending = heat_lat_pending(tl, hm);
	if (pending) {
		size_t n = strlen(bins);

		snprintf(bins + n, sizeof(bins) - n, "  (reading the latencies)");
	}
	if (a->hm_top > (int)hm->rows - gr.h)
		a->hm_top = (int)hm->rows - gr.h;
	if (a->hm_top < 0)
		a->hm_top = 0;
	shown = (int)hm->rows - a->hm_top < gr.h ? (int)hm->rows - a->hm_top : gr.h;
	if (tl->mode == VXT_TL_ROWS_LBA)
		lba_title(a, tl, shown, t, sizeof(t), bins);
	else
		snprintf(t, sizeof(t), "Heatmap by object, busiest first%s", bins);
	if (tl->mode != VXT_TL_ROWS_LBA && a->m.rows_left) {
		/* objects past the heatmap's rows: never hidden without a word */
		size_t n = strlen(t);

		snprintf(t + n, sizeof(t) - n, "  +%u objects not in it (%" PRIu64 " errors; o lists them)",
			 a->m.rows_left, a->m.rows_left_errors);
	}
	if (tl->mode != VXT_TL_ROWS_LBA && (int)hm->rows > gr.h) {
		/* rows scrolled out of sight: say how many, and any with errors */
		char he[120];
		size_t n = strlen(t);

		n += (size_t)snprintf(t + n, sizeof(t) - n, "  %d of %u rows", gr.h, hm->rows);
		if (n < sizeof(t) && vr_heat_hidden_errors(a, a->hm_top, a->hm_top + gr.h, he,
							   sizeof(he)))
			snprintf(t + n, sizeof(t) - n, ", errors out of sight: %s", he);
	}
	tui_title(&p->r, focused, t, tl->mode == VXT_TL_ROWS_LBA ? "z/Z zoom  [/] pan  H objects" :
		  "M metric  o objects");
	w = (struct tui_heatmap){
		.rows = (int)hm->rows, .cols = (int)hm->cols, .level = hm->level, .err = hm->err,
		.labels = a->labels, .label_w = VR_LABEL_W,
		.cursor = vxt_timeline_bin(tl, vr_model_cursor_time(&a->m)),
		.sel_row = focused ? a->hm_sel : -1, .top = a->hm_top,
		.span = vr_heat_separate(&a->m) ? (int)a->m.nbins : 0,
	};
	tui_heatmap_draw(&gr, &w);
	tui_heatmap_legend(p->r.y + p->r.h - 1, p->r.x, p->r.w, vr_heat_name(&a->m),
			   pending ? "..." : vxt_heat_format(hm->metric, hm->lo, lo, sizeof(lo)),
			   pending ? "..." : vxt_heat_format(hm->metric, hm->hi, hi, sizeof(hi)));
}

static int heatmap_mouse(struct tui_panel *p, int y, int x)
{
	struct vr_app *a = p->data;
	const struct vxt_heatmap *hm = vr_model_heatmap(&a->m);
	struct tui_rect gr = { p->r.y + 1, p->r.x, p->r.h - 2, p->r.w };
	const struct vxt_timeline *tl = vr_model_heat_timeline(&a->m);
	struct tui_heatmap w = { .rows = (int)hm->rows, .cols = (int)hm->cols,
				 .label_w = VR_LABEL_W, .top = a->hm_top,
				 .span = vr_heat_separate(&a->m) ? (int)a->m.nbins : 0 };
	int row, col;

	if (!tui_heatmap_hit(&gr, &w, y, x, &row, &col) || (unsigned)col >= tl->nbins)
		return TUI_NONE;
	a->hm_sel = row;
	vr_model_goto_time(&a->m, vxt_timeline_bin_start(tl, (unsigned)col));
	return TUI_REDRAW;
}

static int heatmap_key(struct tui_panel *p, int key)
{
	struct vr_app *a = p->data;

	switch (key) {
	case KEY_UP:
		if (a->hm_sel > 0)
			a->hm_sel--;
		if (a->hm_sel < a->hm_top)
			a->hm_top = a->hm_sel;
		return TUI_REDRAW;
	case KEY_DOWN:
		if (a->hm_sel + 1 < (int)a->m.hm.rows)
			a->hm_sel++;
		if (a->hm_sel >= a->hm_top + p->r.h - 2)
			a->hm_top = a->hm_sel - (p->r.h - 3);
		return TUI_REDRAW;
	case KEY_RIGHT:
		return vr_step_bin(a, 1);
	case KEY_LEFT:
		return vr_step_bin(a, -1);
	}
	return TUI_IGNORED;
}

const struct tui_panel_ops vr_heatmap_ops = {
	.name = "heatmap", .draw = heatmap_draw, .on_key = heatmap_key, .on_mouse = heatmap_mouse,
};
