/* tui_heatmap.c - the heatmap widget
 */
#include "tui_color.h"
#include "tui_heatmap.h"

static const char *shade_of(int level)
{
	/* 1-2 light, 3-4 medium, 5-6 dark, 7-8 full */
	return tui_glyphs->shade[level <= 0 ? 0 : (level + 1) / 2];
}

static void draw_cell(const struct tui_heatmap *hm, int row, int col, int y, int x)
{
	int i = row * hm->cols + col;
	int lv = hm->level[i];

	if (hm->err && hm->err[i]) {
		tui_fill(y, x, 1, TUI_R_ERROR, tui_glyphs->err);
		return;
	}
	if (lv > 0) {
		tui_fill(y, x, 1, TUI_R_HEAT1 + lv - 1, shade_of(lv));
		return;
	}
	if (col == hm->cursor)
		tui_fill(y, x, 1, TUI_R_CURSOR, tui_glyphs->vline);
}

void tui_heatmap_draw(const struct tui_rect *r, const struct tui_heatmap *hm)
{
	int cw = r->w - hm->label_w - 1;

	for (int i = 0; i < r->h; i++) {
		int row = hm->top + i, y = r->y + i;

		if (row >= hm->rows)
			break;
		tui_printw(y, r->x, hm->label_w, row == hm->sel_row ? TUI_R_SELECTED : TUI_R_NORMAL,
			   "%-*s", hm->label_w, hm->labels[row]);
		if (hm->span > 0) {
			for (int x = 0; x < cw && x < hm->span; x++)
				draw_cell(hm, row, (int)((int64_t)x * hm->cols / hm->span), y,
					  r->x + hm->label_w + 1 + x);
			continue;
		}
		for (int c = 0; c < cw && c < hm->cols; c++)
			draw_cell(hm, row, c, y, r->x + hm->label_w + 1 + c);
	}
}

bool tui_heatmap_hit(const struct tui_rect *r, const struct tui_heatmap *hm, int y, int x,
		     int *row, int *col)
{
	int c = x - r->x - hm->label_w - 1, rw = y - r->y + hm->top;

	if (hm->span > 0)
		c = c < 0 || c >= hm->span ? -1 : (int)((int64_t)c * hm->cols / hm->span);
	if (!tui_rect_has(r, y, x) || c < 0 || c >= hm->cols || rw >= hm->rows)
		return false;
	*row = rw;
	*col = c;
	return true;
}

void tui_heatmap_legend(int y, int x, int w, const char *metric, const char *lo,
			const char *hi)
{
	int n = tui_printw(y, x, w, TUI_R_DIM, "%s %s ", metric, lo);

	for (int lv = 1; lv <= TUI_HEAT_LEVELS && n < w; lv++)
		n += tui_puts(y, x + n, 1, TUI_R_HEAT1 + lv - 1, shade_of(lv));
	n += tui_printw(y, x + n, w - n, TUI_R_DIM, " %s  ", hi);
	n += tui_puts(y, x + n, w - n, TUI_R_ERROR, tui_glyphs->err);
	tui_puts(y, x + n, w - n, TUI_R_DIM, " errors");
}
