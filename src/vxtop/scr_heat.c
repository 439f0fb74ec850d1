/* scr_heat.c - vxtop's heatmap: one strip per object over the last intervals
 *
 * Rows are the table's objects in the table's order, columns the intervals
 * (newest on the right), shaded by the chosen metric on one scale for the
 * whole map (log scale for rates and latency, linear for util%).
 */
#include <stdio.h>

#include <curses.h>

#include "tui.h"

#define LABEL_W 15

static void heat_draw(struct tui *t, int top, int bottom)
{
	int w = COLS - LABEL_W - 1, rows = bottom - top - 2;
	bool log = t->heat != HM_UTIL;
	double max = 0, v;
	size_t i, first;
	char mx[32];

	if (w < 4 || rows < 1)
		return;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - (size_t)rows + 1;
	first = t->top;
	for (i = first; i < t->nrows && i < first + (size_t)rows; i++)
		for (int c = 0; c < w; c++) {
			v = tui_metric(t, tui_snap(t, (size_t)c), t->rows[i].object, t->heat);
			if (v > max)
				max = v;
		}
	if (t->heat == HM_UTIL)
		max = 100;
	if (t->heat == HM_P99)
		vxtop_fmt_lat(max, mx, sizeof(mx));
	else
		snprintf(mx, sizeof(mx), "%.1f", max);
	tui_print(top, 0, -1, tui_attr(t, TR_TITLE), "%-*s", COLS, "");
	tui_print(top, 0, -1, tui_attr(t, TR_TITLE),
		  "heatmap of %s, last %d intervals, newest right; scale 0..%s (%s)   m: metric",
		  tui_metric_name(t->heat), w, mx, log ? "log" : "linear");
	for (i = first; i < t->nrows && i < first + (size_t)rows; i++) {
		int y = top + 1 + (int)(i - first);
		const struct vxtop_row *r = &t->rows[i];

		tui_print(y, 0, LABEL_W, tui_attr(t, i == t->sel ? TR_SELECTED :
			  r->idle ? TR_IDLE : TR_NORMAL), "%-*s", LABEL_W, r->name);
		for (int c = 0; c < w; c++) {
			v = tui_metric(t, tui_snap(t, (size_t)(w - 1 - c)), r->object, t->heat);
			tui_heat_cell(t, y, LABEL_W + 1 + c, tui_level(v, max, log));
		}
	}
	tui_print(bottom - 1, 0, -1, A_NORMAL, "low ");
	for (unsigned l = 1; l <= 8; l++)
		tui_heat_cell(t, bottom - 1, 3 + (int)l, l);
	tui_print(bottom - 1, 13, -1, A_NORMAL, "high");
}

static int heat_key(struct tui *t, int key)
{
	int r;

	if (key == 'm') {
		t->heat = (enum heat_metric)((t->heat + 1) % HM_COUNT);
		return TUI_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (t->nrows)
			tui_show(t, &tui_detail_screen);
		return TUI_REDRAW;
	}
	r = tui_move_key(t, key, t->nrows, &t->sel, LINES - 6);
	if (r >= 0 && t->sel < t->nrows)
		t->sel_object = t->rows[t->sel].object;
	return r;
}

const struct tui_screen tui_heat_screen = {
	.name = "heatmap",
	.draw = heat_draw,
	.on_key = heat_key,
	.keys = "m:metric Enter:detail Esc:back space:pause </>:sort f:filter d/D:interval q:quit",
};
