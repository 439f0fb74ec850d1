/* tui_help.c - the help overlay, generated from the keymap table
 *
 * Lines are numbered virtually (before-text, keys, after-text) so nothing is
 * copied; the panel draws the window of them that fits.
 */
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

static int nlines(const struct tui_help *h)
{
	return count(h->before) + nkeys(h) + 1 + count(h->after);
}

static void draw_line(const struct tui_help *h, int i, int y, int x, int w)
{
	int nb = count(h->before), nk = nkeys(h);

	if (i < nb) {
		tui_puts(y, x, w, TUI_R_NORMAL, h->before[i]);
		return;
	}
	i -= nb;
	if (i < nk) {
		for (const struct tui_action *a = h->keys; a && a->fn; a++) {
			if (!a->keyname || i--)
				continue;
			tui_printw(y, x, w, TUI_R_KEY, "%12s", a->keyname);
			tui_puts(y, x + 14, w - 14, TUI_R_NORMAL, a->help);
			return;
		}
	}
	i -= nk + 1;
	if (i >= 0 && i < count(h->after))
		tui_puts(y, x, w, TUI_R_NORMAL, h->after[i]);
}

static void help_draw(struct tui_panel *p, bool focused)
{
	struct tui_help *h = p->data;
	int rows = p->r.h - 2, total = nlines(h);

	(void)focused;
	if (h->top > total - rows)
		h->top = total - rows;
	if (h->top < 0)
		h->top = 0;
	tui_title(&p->r, true, h->title,
		  total > rows ? "arrows scroll, any other key closes" : "any key closes");
	for (int i = 0; i < rows && h->top + i < total; i++)
		draw_line(h, h->top + i, p->r.y + 2 + i, p->r.x + 1, p->r.w - 2);
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
