/* tui_timeline.c - the timeline widget
 */
#include <math.h>

#include "tui_color.h"
#include "tui_timeline.h"

static int col_bin(int col, int w, int nbins)
{
	return (int)((int64_t)col * nbins / w);
}

/* The bins column @c covers: [*@b0, *@b1), at least one, none from @nbins on. */
static void col_bins(int c, int w, int nbins, int *b0, int *b1)
{
	*b0 = col_bin(c, w, nbins);
	*b1 = col_bin(c + 1, w, nbins);
	if (*b1 <= *b0)
		*b1 = *b0 + 1;
	if (*b1 > nbins)
		*b1 = nbins;
}

/* Value shown in column @c: the max over the bins it covers. */
static uint64_t col_value(const uint64_t *v, int c, int w, int nbins)
{
	uint64_t m = 0;
	int b0, b1;

	if (!v)
		return 0;
	col_bins(c, w, nbins, &b0, &b1);
	for (int b = b0; b < b1; b++)
		if (v[b] > m)
			m = v[b];
	return m;
}

/* True when some bin of column @c is flagged in @v. */
static bool col_any(const uint8_t *v, int c, int w, int nbins)
{
	int b0, b1;

	if (!v)
		return false;
	col_bins(c, w, nbins, &b0, &b1);
	for (int b = b0; b < b1; b++)
		if (v[b])
			return true;
	return false;
}

/* True when every bin of column @c is flagged in @v. */
static bool col_all(const uint8_t *v, int c, int w, int nbins)
{
	int b0, b1;

	if (!v)
		return false;
	col_bins(c, w, nbins, &b0, &b1);
	for (int b = b0; b < b1; b++)
		if (!v[b])
			return false;
	return true;
}

static int height_units(uint64_t v, uint64_t max, int units, bool log_scale)
{
	double f;
	int u;

	if (!v || !max)
		return 0;
	if (log_scale)
		f = log2((double)v + 1) / log2((double)max + 1);
	else
		f = (double)v / (double)max;
	u = (int)ceil(f * units);
	if (u < 1)
		u = 1;
	return u > units ? units : u;
}

static void draw_axis(const struct tui_rect *r, const struct tui_timeline *tl, int y)
{
	int cursor_col = -1;

	if (tl->cursor >= 0 && tl->nbins > 0)
		cursor_col = (int)((int64_t)tl->cursor * r->w / tl->nbins);
	for (int c = 0; c < r->w; c++) {
		const char *g = tui_glyphs->hline;
		int role = TUI_R_DIM;

		if (c == cursor_col) {
			g = tui_glyphs->cursor;
			role = TUI_R_CURSOR;
		} else if (tl->lost && col_value(tl->lost, c, r->w, tl->nbins)) {
			g = tui_glyphs->lost;
			role = TUI_R_WARN;
		} else if (tl->slow && col_value(tl->slow, c, r->w, tl->nbins)) {
			g = tui_glyphs->slow;
			role = TUI_R_WARN;
		} else if (col_any(tl->marks, c, r->w, tl->nbins)) {
			g = tui_glyphs->mark;
			role = TUI_R_MARK;
		}
		tui_fill(y, r->x + c, 1, role, g);
	}
}

void tui_timeline_draw(const struct tui_rect *r, const struct tui_timeline *tl)
{
	int rows = r->h - 1, units = rows * 8;
	uint64_t max = 0;

	if (r->h < 1 || r->w < 1 || tl->nbins < 1)
		return;
	for (int b = 0; b < tl->nbins && tl->val; b++)
		if (tl->val[b] > max)
			max = tl->val[b];
	for (int c = 0; c < r->w && rows > 0 && tl->val; c++) {
		int u = height_units(col_value(tl->val, c, r->w, tl->nbins), max, units,
				     tl->log_scale);

		if (!u && col_all(tl->uncaptured, c, r->w, tl->nbins)) {
			for (int k = 0; k < rows; k++)
				tui_fill(r->y + k, r->x + c, 1, TUI_R_DIM, tui_glyphs->shade[1]);
			continue;
		}

		for (int k = 0; k < rows && u > 0; k++, u -= 8)
			tui_fill(r->y + rows - 1 - k, r->x + c, 1, tl->bar_role,
				 tui_glyphs->bar[u >= 8 ? 8 : u]);
	}
	draw_axis(r, tl, r->y + r->h - 1);
}

int tui_timeline_bin_at(const struct tui_rect *r, const struct tui_timeline *tl, int x)
{
	if (x < r->x || x >= r->x + r->w || r->w <= 0)
		return -1;
	return col_bin(x - r->x, r->w, tl->nbins);
}

void tui_timeline_lane(int y, int x, int w, const char *label, int label_w,
		       const uint64_t *vals, int nbins, uint64_t max, int role)
{
	int pw = w - label_w - 1;

	tui_printw(y, x, label_w, TUI_R_NORMAL, "%-*s", label_w, label);
	for (int c = 0; c < pw; c++) {
		uint64_t v = col_value(vals, c, pw, nbins);
		int s = 0;

		if (v && max)
			s = 1 + (int)((v * 3 + max - 1) / max);
		if (s > 4)
			s = 4;
		tui_fill(y, x + label_w + 1 + c, 1, v ? role : TUI_R_DIM,
			 v ? tui_glyphs->shade[s] : " ");
	}
}
