/* tui_help.c - the help overlay, generated from the keymap table
 *
 * Lines are numbered virtually (before-text, keys, after-text) so nothing is
 * copied; each is wrapped at word breaks to the panel's width, and the panel
 * draws the window of screen rows that fits (arrows and pages scroll).
 */
#include <stdio.h>
#include <string.h>

#include "tui_help.h"

static int count(const char *const *v)
{
	int n = 0;

	while (v && v[n])
		n++;
	return n;
}

static int nkeys(const struct tui_help *h)
{
	int n = 0;

	for (const struct tui_action *a = h->keys; a && a->fn; a++)
		if (a->keyname)
			n++;
	return n;
}

#define KEY_COL 14	/* the key names' column; the help text starts after it */

/* Cells of the @len bytes at @s (UTF-8: continuation bytes take none). */
static int cells(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* The bytes of @s that fit @w cells, cut after a word when one fits:
 * the first screen row of @s, wrapped. *@next is where the next row starts. */
static size_t row_len(const char *s, int w, const char **next)
{
	size_t n = strlen(s), cut = 0, i = 0;

	if (w < 1)
		w = 1;
	if (cells(s, n) <= w) {
		*next = s + n;
		return n;
	}
	for (int c = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++c > w)
			break;
		if (s[i] == ' ')
			cut = i;
	}
	if (!cut)
		cut = i;	/* one word longer than the row: cut it */
	*next = s + cut;
	while (**next == ' ')
		(*next)++;
	return cut;
}

/* Screen rows of @s wrapped to @w cells (an empty line is one row). */
static int rows_of(const char *s, int w)
{
	int n = 0;

	do {
		row_len(s, w, &s);
		n++;
	} while (*s);
	return n;
}

/* Line @i of the help (before-text, keys, a blank, after-text), as its key
 * name (NULL for text) and text. @return false past the end. */
static bool entry(const struct tui_help *h, int i, const char **key, const char **text)
{
	int nb = count(h->before), nk = nkeys(h);

	*key = NULL;
	if (i < nb) {
		*text = h->before[i];
		return true;
	}
	i -= nb;
	if (i < nk) {
		for (const struct tui_action *a = h->keys; a && a->fn; a++) {
			if (!a->keyname || i--)
				continue;
			*key = a->keyname;
			*text = a->help ? a->help : "";
			return true;
		}
	}
	i -= nk;
	*text = "";
	if (i == 0)
		return true;
	i--;
	if (i >= 0 && i < count(h->after)) {
		*text = h->after[i];
		return true;
	}
	return false;
}

/* Screen rows of the whole help at width @w. */
static int nrows(const struct tui_help *h, int w)
{
	const char *k, *t;
	int n = 0;

	for (int i = 0; entry(h, i, &k, &t); i++)
		n += rows_of(t, k ? w - KEY_COL : w);
	return n;
}

/* Screen row @row of the help, wrapped to @w cells, at (@y, @x). */
static void draw_row(const struct tui_help *h, int row, int y, int x, int w)
{
	const char *k, *t;

	for (int i = 0; entry(h, i, &k, &t); i++) {
		int tw = k ? w - KEY_COL : w, n = rows_of(t, tw);
		const char *next;
		char buf[512];
		size_t len;

		if (row >= n) {
			row -= n;
			continue;
		}
		if (k && row == 0)
			tui_printw(y, x, w, TUI_R_KEY, "%12s", k);
		for (; row > 0; row--)
			row_len(t, tw, &t);
		len = row_len(t, tw, &next);
		snprintf(buf, sizeof(buf), "%.*s", (int)len, t);
		tui_puts(y, k ? x + KEY_COL : x, tw, TUI_R_NORMAL, buf);
		return;
	}
}

static void help_draw(struct tui_panel *p, bool focused)
{
	struct tui_help *h = p->data;
	int rows = p->r.h - 2, w = p->r.w - 2, total = nrows(h, w);

	(void)focused;
	if (h->top > total - rows)
		h->top = total - rows;
	if (h->top < 0)
		h->top = 0;
	tui_title(&p->r, true, h->title,
		  total > rows ? "arrows scroll, any other key closes" : "any key closes");
	for (int i = 0; i < rows && h->top + i < total; i++)
		draw_row(h, h->top + i, p->r.y + 2 + i, p->r.x + 1, w);
}

static int help_key(struct tui_panel *p, int key)
{
	struct tui_help *h = p->data;
	int page = p->r.h - 3;

	switch (key) {
	case KEY_UP: case 'k':
		h->top--;
		return TUI_REDRAW;
	case KEY_DOWN: case 'j':
		h->top++;
		return TUI_REDRAW;
	case KEY_PPAGE:
		h->top -= page;
		return TUI_REDRAW;
	case KEY_NPAGE: case ' ':
		h->top += page;
		return TUI_REDRAW;
	default:
		return TUI_CLOSE | TUI_REDRAW;
	}
}

static const struct tui_panel_ops help_ops = {
	.name = "help",
	.draw = help_draw,
	.on_key = help_key,
};

void tui_help_init(struct tui_help *h, const char *title, const struct tui_action *keys,
		   const char *const *before, const char *const *after)
{
	memset(h, 0, sizeof(*h));
	h->title = title;
	h->keys = keys;
	h->before = before;
	h->after = after;
	h->panel.ops = &help_ops;
	h->panel.data = h;
	h->panel.visible = true;
}
