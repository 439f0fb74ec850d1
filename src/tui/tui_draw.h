/* tui_draw.h - glyph sets and clipped text for every widget
 *
 * Two glyph sets: UTF-8 block characters when the locale is UTF-8, and an
 * ASCII fallback (also forced by VXT_ASCII=1). Every glyph is one cell wide.
 * The text functions clip to a width so a panel never writes outside its rectangle.
 */
#ifndef VXT_TUI_DRAW_H
#define VXT_TUI_DRAW_H

#include <stdbool.h>
#include <curses.h>

struct tui_rect {
	int y, x, h, w;
};

struct tui_glyphs {
	const char *bar[9];	/* vertical bar eighths: bar[0] empty ... bar[8] full */
	const char *shade[5];	/* heat shades: shade[0] empty ... shade[4] full */
	const char *vline, *hline;
	const char *mark;	/* a user mark under the timeline */
	const char *lost;	/* lost events under the timeline */
	const char *slow;	/* slow I/O under the timeline */
	const char *err;	/* an error in a heatmap cell */
	const char *cursor;	/* the time cursor under the timeline */
	const char *scroll;	/* scroll bar thumb */
	const char *ellipsis;
};

/* The glyph set in use; set by tui_draw_init(). */
extern const struct tui_glyphs *tui_glyphs;

/* Pick the glyph set: UTF-8 unless @ascii or the locale is not UTF-8 or
 * VXT_ASCII is set. Call after setlocale(). Can't fail. */
void tui_draw_init(bool ascii);
/* True when the UTF-8 glyph set is in use. */
bool tui_draw_utf8(void);

/* True when the point is inside @r. */
bool tui_rect_has(const struct tui_rect *r, int y, int x);

/* printf at (y, x) with @role, at most @w cells; @return cells written. */
int tui_printw(int y, int x, int w, int role, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The same for a plain string. */
int tui_puts(int y, int x, int w, int role, const char *s);
/* @s right-aligned in @w cells. */
void tui_puts_right(int y, int x, int w, int role, const char *s);
/* Fill @w cells with @ch (a one-cell string) in @role. */
void tui_fill(int y, int x, int w, int role, const char *ch);
/* Clear rectangle @r. */
void tui_clear_rect(const struct tui_rect *r);
/* A title line across @r's first row: " title " in @role, rest filled. */
void tui_title(const struct tui_rect *r, bool focused, const char *title, const char *right);

#endif
