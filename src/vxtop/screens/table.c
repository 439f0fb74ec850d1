/* table.c - vxtop's main screen: the object table and the error ticker
 *
 * One row per object with the shown interval's figures and a sparkline of
 * I/O per second over the last intervals; idle objects are drawn faded. The
 * newest errors run along the bottom with the counts since start.
 */
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

#define NAME_W 12
#define TICKER_MAX 6

/* 78 columns in all: the table fits an 80-column terminal. */
static const int col_w[VXTOP_COL_COUNT] = {
	[VXTOP_COL_NAME] = NAME_W, [VXTOP_COL_RPS] = 7, [VXTOP_COL_WPS] = 7,
	[VXTOP_COL_RMBS] = 7, [VXTOP_COL_WMBS] = 7, [VXTOP_COL_AVG] = 7,
	[VXTOP_COL_P99] = 7, [VXTOP_COL_QD] = 4, [VXTOP_COL_UTIL] = 6, [VXTOP_COL_ERR] = 4,
};

static int table_width(void)
{
	int w = 0;

	for (unsigned i = 0; i < VXTOP_COL_COUNT; i++)
		w += col_w[i] + 1;
	return w;
}

static void fmt_cell(const struct vxtop_row *r, unsigned col, char *buf, size_t size)
{
	double v = r->v[col];

	switch (col) {
	case VXTOP_COL_NAME:
		snprintf(buf, size, "%s", r->name);
		break;
	case VXTOP_COL_RPS: case VXTOP_COL_WPS:
		vxtop_fmt_rate(v, buf, size);
		break;
	case VXTOP_COL_RMBS: case VXTOP_COL_WMBS:
		snprintf(buf, size, v >= 99.95 ? "%.0f" : "%.1f", v);
		break;
	case VXTOP_COL_AVG: case VXTOP_COL_P99:
		vxtop_fmt_lat(v, buf, size);
		break;
	case VXTOP_COL_UTIL:
		snprintf(buf, size, "%.1f", v);
		break;
	default:
		snprintf(buf, size, "%.0f", v);
	}
}

static void draw_titles(struct top *t, int y, int spark_w)
{
	int x = 0;

	top_print(y, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	for (unsigned i = 0; i < VXTOP_COL_COUNT; i++) {
		int a = i == t->cfg->view.sort_col ? TUI_R_TITLE_FOCUS : TUI_R_COLHEAD;

		if (i == VXTOP_COL_NAME)
			top_print(y, x, col_w[i], a, "%-*s", col_w[i], vxtop_col_title(i));
		else
			top_print(y, x, col_w[i], a, "%*s", col_w[i], vxtop_col_title(i));
		x += col_w[i] + 1;
	}
	if (spark_w > 4)
		top_print(y, x, spark_w, TUI_R_COLHEAD, "IO/s trend (%d)", spark_w);
}

static void draw_spark(struct top *t, int y, int x, int w, uint32_t id)
{
	double v[256], max = 0;
	int i;

	if (w > 256)
		w = 256;
	for (i = 0; i < w; i++) {
		v[i] = vxtop_metric(&t->c->model, vxtop_shown_snap(&t->v, (size_t)(w - 1 - i)), id, HM_IOPS);
		if (v[i] > max)
			max = v[i];
	}
	for (i = 0; i < w; i++)
		top_spark_cell(y, x + i, vxtop_level(v[i], max, false));
}

static void draw_row(struct top *t, int y, const struct vxtop_row *r, bool sel, int spark_w)
{
	int base = sel ? TUI_R_SELECTED : r->idle ? TUI_R_DIM : TUI_R_NORMAL;
	char buf[64];
	int x = 0;

	if (sel)
		top_print(y, 0, -1, base, "%-*s", COLS, "");
	for (unsigned i = 0; i < VXTOP_COL_COUNT; i++) {
		int a = base;

		fmt_cell(r, i, buf, sizeof(buf));
		if (i == VXTOP_COL_ERR && r->v[i] > 0 && !sel)
			a = TUI_R_ERROR;
		if (i == VXTOP_COL_NAME)
			top_print(y, x, col_w[i], a, "%-*s", col_w[i], buf);
		else
			top_print(y, x, col_w[i], a, "%*s", col_w[i], buf);
		x += col_w[i] + 1;
	}
	if (spark_w > 0)
		draw_spark(t, y, x, spark_w, r->object);
}

/* The error ticker: a summary line and the newest errors. @return lines used. */
static int draw_ticker(struct top *t, int y, int lines)
{
	const struct vxtop_model *m = &t->c->model;
	uint64_t total = vxtop_model_obj_errors(m, UINT32_MAX);
	int x, i, n = 0;

	if (lines < 1)
		return 0;
	top_print(y, 0, -1, total ? TUI_R_ERROR : TUI_R_GOOD,
		  total ? "errors since start: %llu " : "no errors since start",
		  (unsigned long long)total);
	getyx(stdscr, i, x);
	for (size_t k = 0; k < m->nkinds && x < COLS; k++) {
		const struct vxt_object *ob = vxt_objtab_get(m->objs, m->kinds[k].object);
		const char *en = vxt_errno_name(m->kinds[k].error);

		top_print(y, x, -1, TUI_R_NORMAL, " %s %s x%llu", ob ? ob->name : "?", en ? en : "?",
			  (unsigned long long)m->kinds[k].count);
		getyx(stdscr, i, x);
		if (i != y)
			break;
	}
	for (i = 1; i < lines; i++) {
		const struct vxtop_err *e = vxtop_shown_err(&t->v, (uint64_t)(i - 1));
		struct top_err_text et;

		if (!e)
			break;
		top_err_text(m, e, &et);
		top_print(y + i, 0, -1, TUI_R_NORMAL, "  %s  %-*s %-6s sector %-12llu %6s  %s",
			  et.when, NAME_W, et.object, vxt_op_name(e->op), (unsigned long long)e->sector,
			  et.size, et.errno_name);
		n++;
	}
	return n + 1;
}

static void table_draw(struct top *t, int top, int bottom)
{
	int avail = bottom - top, tick, body, spark_w, y;
	uint64_t nerrs = vxtop_shown_nerrs(&t->v);
	size_t i;

	tick = 1 + (int)(nerrs < TICKER_MAX - 1 ? nerrs : TICKER_MAX - 1);
	if (tick > avail / 3)
		tick = avail / 3;
	body = avail - tick - 1;	/* titles */
	spark_w = COLS - table_width() - 1;
	if (spark_w > 60)
		spark_w = 60;
	if (spark_w < 8)
		spark_w = 0;	/* too narrow to tell a trend */
	draw_titles(t, top, spark_w);
	if (t->v.sel < t->top)
		t->top = t->v.sel;
	if (body > 0 && t->v.sel >= t->top + (size_t)body)
		t->top = t->v.sel - (size_t)body + 1;
	for (i = t->top, y = top + 1; i < t->v.nrows && y < top + 1 + body; i++, y++)
		draw_row(t, y, &t->v.rows[i], i == t->v.sel, spark_w);
	if (!t->v.nrows)
		top_print(top + 1, 0, -1, TUI_R_DIM, "%s",
			  t->v.glob[0] ? "no object matches the filter" : "waiting for I/O...");
	draw_ticker(t, bottom - tick, tick);
}

static int table_move(struct top *t, int key)
{
	top_move_key(key, t->v.nrows, &t->v.sel, LINES - 8);
	vxtop_shown_select(&t->v, t->v.sel);
	return TUI_REDRAW;
}

static const struct tui_keybar_item table_keybar[] = {
	{ "?", "Help" }, { "Spc", "Pause" }, { "<>", "Sort" }, { "/", "Filter" },
	{ "e", "Errors" }, { "h", "Heat" }, { "Enter", "Detail" }, { "d/D", "Intvl" },
	{ "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_table_screen = {
	.name = "objects",
	.draw = table_draw,
	.on_move = table_move,
	.keybar = table_keybar,
};
