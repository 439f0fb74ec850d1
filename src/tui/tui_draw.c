/* tui_draw.c - glyph sets and clipped text for every widget
 *
 * Text is treated as bytes of ASCII or UTF-8; widths count code points, which
 * is right for the names and numbers the tools print (no wide CJK cells).
 * Control bytes and invalid UTF-8 are drawn escaped (vxt_escape_text()).
 */
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/escape.h"

#include "tui_color.h"
#include "tui_draw.h"

static const struct tui_glyphs utf8_glyphs = {
	.bar = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
		 "\u2587", "\u2588" },
	.shade = { " ", "\u2591", "\u2592", "\u2593", "\u2588" },
	.vline = "\u2502", .hline = "\u2500",
	.mark = "\u25b2", .lost = "!", .slow = "\u25c6", .err = "\u00d7", .cursor = "\u2503",
	.scroll = "\u2588", .ellipsis = "\u2026",
};

static const struct tui_glyphs ascii_glyphs = {
	.bar = { " ", ".", ".", "_", "-", "=", "=", "#", "#" },
	.shade = { " ", ".", ":", "+", "#" },
	.vline = "|", .hline = "-",
	.mark = "^", .lost = "!", .slow = "s", .err = "x", .cursor = "|",
	.scroll = "#", .ellipsis = "~",
};

const struct tui_glyphs *tui_glyphs = &ascii_glyphs;

void tui_draw_init(bool ascii)
{
	const char *cs = nl_langinfo(CODESET);
	const char *env = getenv("VXT_ASCII");

	if (ascii || (env && *env && strcmp(env, "0")) || !cs || strcmp(cs, "UTF-8"))
		tui_glyphs = &ascii_glyphs;
	else
		tui_glyphs = &utf8_glyphs;
}

bool tui_draw_utf8(void)
{
	return tui_glyphs == &utf8_glyphs;
}

bool tui_rect_has(const struct tui_rect *r, int y, int x)
{
	return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

/* Bytes of @s that fit in @w cells (UTF-8 continuation bytes take none). */
static int clip_bytes(const char *s, int w, int *cells)
{
	int i = 0, n = 0;

	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (n == w)
			break;
		n++;
	}
	*cells = n;
	return i;
}

int tui_puts(int y, int x, int w, int role, const char *s)
{
	char esc[2048];
	int cells, bytes;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	/* names from traces: a newline or an escape sequence must not reach the
	 * terminal (nor break the layout); shown as \n, \e ... */
	if (!vxt_text_is_plain(s))
		s = vxt_text(s, esc, sizeof(esc));
	if (x + w > COLS)
		w = COLS - x;
	bytes = clip_bytes(s, w, &cells);
	attrset(tui_attr(role));
	mvaddnstr(y, x, s, bytes);
	attrset(A_NORMAL);
	return cells;
}

int tui_printw(int y, int x, int w, int role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_puts(y, x, w, role, buf);
}

void tui_puts_right(int y, int x, int w, int role, const char *s)
{
	int cells;

	clip_bytes(s, 1 << 30, &cells);
	if (cells < w)
		tui_puts(y, x + w - cells, cells, role, s);
	else
		tui_puts(y, x, w, role, s);
}

void tui_fill(int y, int x, int w, int role, const char *ch)
{
	if (y < 0 || y >= LINES)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attrset(tui_attr(role));
	move(y, x);
	for (int i = 0; i < w; i++)
		addstr(ch);
	attrset(A_NORMAL);
}

void tui_clear_rect(const struct tui_rect *r)
{
	for (int i = 0; i < r->h; i++)
		tui_fill(r->y + i, r->x, r->w, TUI_R_NORMAL, " ");
}

void tui_title(const struct tui_rect *r, bool focused, const char *title, const char *right)
{
	int role = focused ? TUI_R_TITLE_FOCUS : TUI_R_TITLE;
	int n;

	tui_fill(r->y, r->x, r->w, role, " ");
	n = tui_printw(r->y, r->x, r->w, role, " %s ", title);
	if (right && *right && n < r->w)
		tui_puts_right(r->y, r->x + n, r->w - n - 1, role, right);
}
