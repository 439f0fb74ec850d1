/* scr_heat.c - vxtop's heatmap: one strip per object over the last intervals
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
		const struct vxtop_snap *s = top_snap(t, (size_t)(w - 1 - c));
		const struct vxtop_osnap *o = vxtop_snap_obj(s, t->rows[i].object);

		v[c] = top_metric(t, s, t->rows[i].object, t->heat);
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
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - (size_t)rows + 1;
	first = t->top;
	n = t->nrows > first ? t->nrows - first : 0;
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
		labels[i] = t->rows[first + i].name;
	}
	if (t->heat == HM_UTIL)
		max = 100;
	for (i = 0; i < n * (size_t)w; i++)
		lv[i] = (uint8_t)top_level(v[i], max, log);
	if (t->heat == HM_P99)
		vxtop_fmt_lat(max, mx, sizeof(mx));
	else
		snprintf(mx, sizeof(mx), "%.1f", max);
	top_print(top, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	top_print(top, 0, -1, TUI_R_COLHEAD,
		  "heatmap of %s, last %d intervals, newest right; %s scale   M: metric",
		  top_metric_name(t->heat), w, log ? "log" : "linear");
	hm.rows = (int)n;
	hm.cols = w;
	hm.level = lv;
	hm.err = err;
	hm.labels = labels;
	hm.sel_row = t->sel >= first ? (int)(t->sel - first) : -1;
	tui_heatmap_draw(&r, &hm);
	tui_heatmap_legend(bottom - 1, 0, COLS, top_metric_name(t->heat), "0", mx);
out:
	free(v);
	free(lv);
	free(err);
	free(labels);
}

static int heat_key(struct top *t, int key)
{
	int r;

	if (key == 'M' || key == 'm') {	/* M as in vxreplay; m one release more */
		if (key == 'm')
			snprintf(t->msg, sizeof(t->msg), "the heatmap metric key is M (as in vxreplay)");
		t->heat = (enum heat_metric)((t->heat + 1) % HM_COUNT);
		return TUI_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (t->nrows)
			top_show(t, &top_detail_screen);
		return TUI_REDRAW;
	}
	r = top_move_key(t, key, t->nrows, &t->sel, LINES - 6);
	if (r >= 0 && t->sel < t->nrows)
		t->sel_object = t->rows[t->sel].object;
	return r;
}

const struct top_screen top_heat_screen = {
	.name = "heatmap",
	.draw = heat_draw,
	.on_key = heat_key,
	.keys = "M:metric Enter:detail Esc:back space:pause </>:sort f:filter d/D:interval q:quit",
};
