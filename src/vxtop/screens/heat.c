/* heat.c - vxtop's heatmap: one strip per object over the last intervals
 *
 * Rows are the table's objects in the table's order, columns the intervals
 * (newest on the right), shaded by the chosen metric on one scale for the
 * whole map (log scale for rates and latency, linear for util%).
 */
#include <stdio.h>
#include <stdlib.h>

#include <curses.h>

#include "tui.h"

#define LABEL_W 15

/* Shade of object row @i's cells; error cells flagged in @err. */
static double fill_row(struct top *t, size_t i, int w, double *v, uint8_t *err)
{
	double max = 0;

	for (int c = 0; c < w; c++) {
		const struct vxtop_snap *s = vxtop_shown_snap(&t->v, (size_t)(w - 1 - c));
		const struct vxtop_osnap *o = vxtop_snap_obj(s, t->v.rows[i].object);

		v[c] = vxtop_metric(&t->c->model, s, t->v.rows[i].object, t->heat);
		err[c] = o && o->errors && t->heat != HM_ERRORS;
		if (v[c] > max)
			max = v[c];
	}
	return max;
}

static void heat_draw(struct top *t, int top, int bottom)
{
	struct tui_rect r = { top + 1, 0, bottom - top - 2, COLS };
	int w = COLS - LABEL_W - 1, rows = r.h;
	bool log = t->heat != HM_UTIL;
	struct tui_heatmap hm = { .label_w = LABEL_W, .cursor = -1 };
	double *v = NULL, max = 0;
	uint8_t *lv = NULL, *err = NULL;
	const char **labels = NULL;
	size_t n, i, first;
	char mx[32];

	if (w < 4 || rows < 1)
		return;
	if (t->v.sel < t->top)
		t->top = t->v.sel;
	if (t->v.sel >= t->top + (size_t)rows)
		t->top = t->v.sel - (size_t)rows + 1;
	first = t->top;
	n = t->v.nrows > first ? t->v.nrows - first : 0;
	if (n > (size_t)rows)
		n = (size_t)rows;
	v = calloc(n * (size_t)w + 1, sizeof(*v));
	lv = calloc(n * (size_t)w + 1, 1);
	err = calloc(n * (size_t)w + 1, 1);
	labels = calloc(n + 1, sizeof(*labels));
	if (!v || !lv || !err || !labels)
		goto out;
	for (i = 0; i < n; i++) {
		double m = fill_row(t, first + i, w, v + i * (size_t)w, err + i * (size_t)w);

		max = m > max ? m : max;
		labels[i] = t->v.rows[first + i].name;
	}
	if (t->heat == HM_UTIL)
		max = 100;
	for (i = 0; i < n * (size_t)w; i++)
		lv[i] = (uint8_t)vxtop_level(v[i], max, log);
	if (t->heat == HM_P99)
		vxtop_fmt_lat(max, mx, sizeof(mx));
	else
		snprintf(mx, sizeof(mx), "%.1f", max);
	top_print(top, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	top_print(top, 0, -1, TUI_R_COLHEAD,
		  "heatmap of %s, last %d intervals, newest right; %s scale   M: metric",
		  vxtop_metric_name(t->heat), w, log ? "log" : "linear");
	hm.rows = (int)n;
	hm.cols = w;
	hm.level = lv;
	hm.err = err;
	hm.labels = labels;
	hm.sel_row = t->v.sel >= first ? (int)(t->v.sel - first) : -1;
	tui_heatmap_draw(&r, &hm);
	tui_heatmap_legend(bottom - 1, 0, COLS, vxtop_metric_name(t->heat), "0", mx);
out:
	free(v);
	free(lv);
	free(err);
	free(labels);
}

static int heat_move(struct top *t, int key)
{
	top_move_key(key, t->v.nrows, &t->v.sel, LINES - 6);
	vxtop_shown_select(&t->v, t->v.sel);
	return TUI_REDRAW;
}

static const struct tui_keybar_item heat_keybar[] = {
	{ "M", "Metric" }, { "Enter", "Detail" }, { "Esc", "Back" }, { "Spc", "Pause" },
	{ "<>", "Sort" }, { "/", "Filter" }, { "d/D", "Intvl" }, { "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_heat_screen = {
	.name = "heatmap",
	.draw = heat_draw,
	.on_move = heat_move,
	.keybar = heat_keybar,
};
