/* tui_table.c - columns, list scrolling and the indexed table panel
 */
#include <string.h>

#include "tui_table.h"

static void cell_at(int y, int x, int w, const struct tui_column *c, const char *s, int role)
{
	if (c->align == TUI_RIGHT)
		tui_puts_right(y, x, w, role, s);
	else
		tui_puts(y, x, w, role, s);
}

static int col_width(const struct tui_column *cols, int ncols, int i, int x0, int x, int w)
{
	int cw = cols[i].width;

	if (i == ncols - 1 || x + cw > x0 + w)
		cw = x0 + w - x;
	return cw < 0 ? 0 : cw;
}

void tui_columns_head(int y, int x, int w, const struct tui_column *cols, int ncols)
{
	int cx = x;

	tui_fill(y, x, w, TUI_R_COLHEAD, " ");
	for (int i = 0; i < ncols && cx < x + w; i++) {
		int cw = col_width(cols, ncols, i, x, cx, w);

		cell_at(y, cx, cw - (i < ncols - 1), &cols[i], cols[i].title, TUI_R_COLHEAD);
		cx += cw;
	}
}

void tui_columns_row(int y, int x, int w, const struct tui_column *cols, int ncols,
		     const char *const *cells, int role)
{
	int cx = x;

	tui_fill(y, x, w, role, " ");
	for (int i = 0; i < ncols && cx < x + w; i++) {
		int cw = col_width(cols, ncols, i, x, cx, w);

		cell_at(y, cx, cw - (i < ncols - 1), &cols[i], cells[i], role);
		cx += cw;
	}
}

void tui_list_fix(struct tui_list *l, int page)
{
	if (page < 1)
		page = 1;
	if (l->n == 0) {
		l->sel = l->top = 0;
		return;
	}
	if (l->sel >= l->n)
		l->sel = l->n - 1;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + (size_t)page)
		l->top = l->sel - (size_t)page + 1;
}

int tui_list_key(struct tui_list *l, int key, int page)
{
	size_t p = page > 1 ? (size_t)page - 1 : 1;

	switch (key) {
	case KEY_UP:
		if (l->sel > 0)
			l->sel--;
		break;
	case KEY_DOWN:
		if (l->sel + 1 < l->n)
			l->sel++;
		break;
	case KEY_PPAGE:
		l->sel = l->sel > p ? l->sel - p : 0;
		break;
	case KEY_NPAGE:
		l->sel = l->sel + p < l->n ? l->sel + p : (l->n ? l->n - 1 : 0);
		break;
	case KEY_HOME: case 'g':
		l->sel = 0;
		break;
	case KEY_END: case 'G':
		l->sel = l->n ? l->n - 1 : 0;
		break;
	default:
		return TUI_IGNORED;
	}
	tui_list_fix(l, page);
	return TUI_REDRAW;
}

static void table_draw(struct tui_panel *p, bool focused)
{
	struct tui_table *t = p->data;
	const struct tui_rect *r = &p->r;
	int page = r->h - 2;
	char bufs[16][128];
	const char *cells[16];

	tui_title(r, focused, t->title, t->status);
	if (r->h < 2)
		return;
	tui_columns_head(r->y + 1, r->x, r->w, t->cols, t->ncols);
	tui_list_fix(&t->list, page);
	for (int i = 0; i < page; i++) {
		size_t row = t->list.top + (size_t)i;
		int role = TUI_R_NORMAL;

		if (row >= t->list.n)
			break;
		for (int c = 0; c < t->ncols && c < 16; c++) {
			bufs[c][0] = 0;
			t->cell(t->ctx, row, c, bufs[c], sizeof(bufs[c]), &role);
			cells[c] = bufs[c];
		}
		if (row == t->list.sel)
			role = focused ? (role == TUI_R_ERROR ? TUI_R_ERROR_SEL : TUI_R_SELECTED)
				       : TUI_R_SELECTED_DIM;
		tui_columns_row(r->y + 2 + i, r->x, r->w, t->cols, t->ncols, cells, role);
	}
}

static int table_key(struct tui_panel *p, int key)
{
	struct tui_table *t = p->data;
	int r = tui_list_key(&t->list, key, p->r.h - 2);

	if (!(r & TUI_IGNORED))
		return r;
	return t->on_key ? t->on_key(t->ctx, t, key) : TUI_IGNORED;
}

static int table_mouse(struct tui_panel *p, int y, int x)
{
	struct tui_table *t = p->data;
	int i = y - p->r.y - 2;

	(void)x;
	if (i >= 0 && t->list.top + (size_t)i < t->list.n)
		t->list.sel = t->list.top + (size_t)i;
	return TUI_REDRAW;
}

static const struct tui_panel_ops table_ops = {
	.name = "table",
	.draw = table_draw,
	.on_key = table_key,
	.on_mouse = table_mouse,
};

void tui_table_init(struct tui_table *t, const char *title, const struct tui_column *cols,
		    int ncols, tui_table_cell_fn cell, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->title = title;
	t->cols = cols;
	t->ncols = ncols > 16 ? 16 : ncols;
	t->cell = cell;
	t->ctx = ctx;
	t->panel.ops = &table_ops;
	t->panel.data = t;
	t->panel.visible = true;
	t->panel.focusable = true;
}
