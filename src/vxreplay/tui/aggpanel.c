/* aggpanel.c - vxreplay's browser: the aggregations of the applied D script
 *
 * An overlay (A) with what the script's aggregations print at END over the
 * visible window and the filter (browser/script.h): count, sum, avg, min
 * and max as tables, quantize and lquantize as DTrace's ASCII
 * distributions, in printa's layout. The window and the filter can change
 * with the panel open (+ - zoom, / filter, keys of the main screen): the
 * aggregations are recomputed for the new view when it is drawn. Up, Down,
 * PgUp, PgDn, Home, End scroll.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"
#include "browser/script.h"

static void ns_rel(const struct vr_model *m, uint64_t t, char *buf, size_t size)
{
	uint64_t d = t > m->t_first ? t - m->t_first : 0;

	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, d / 1000000000u, d % 1000000000u);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void agg_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	struct vr_model *m = &a->m;
	char t[640], b0[32], b1[32];
	const char *text, *line;
	uint64_t w0, w1;
	bool done;
	int rows = p->r.h - 2, n, y;

	(void)focused;
	if (vr_script_agg_want(m) < 0) {
		tui_title(&p->r, true, "Aggregations", "Esc");
		tui_puts(p->r.y + 2, p->r.x + 2, p->r.w - 4, TUI_R_DIM, m->note);
		return;
	}
	text = vr_script_agg_text(m, &done, &w0, &w1);
	ns_rel(m, w0, b0, sizeof(b0));
	ns_rel(m, w1, b1, sizeof(b1));
	snprintf(t, sizeof(t), "Aggregations of %s  window %s..%ss%s%s", vr_script_applied(m), b0, b1,
		 m->filter_src[0] ? "  filter " : "", m->filter_src);
	tui_title(&p->r, true, t, "+ - zoom  / filter  Up/Down  Esc");
	if (!done) {
		tui_puts(p->r.y + 2, p->r.x + 2, p->r.w - 4, TUI_R_DIM, "aggregating...");
		return;
	}
	n = count_lines(text);
	if (!*text) {
		tui_puts(p->r.y + 2, p->r.x + 2, p->r.w - 4, TUI_R_DIM,
			 "no aggregation printed (no event of the view reached one)");
		return;
	}
	if (a->agg_top > n - rows)
		a->agg_top = n - rows;
	if (a->agg_top < 0)
		a->agg_top = 0;
	line = text;
	for (int k = 0; k < a->agg_top && line; k++) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	for (y = p->r.y + 1; line && *line && y < p->r.y + 1 + rows; y++) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		tui_printw(y, p->r.x + 1, p->r.w - 2, TUI_R_NORMAL, "%.*s", len, line);
		line = nl ? nl + 1 : NULL;
	}
}

/* A key of the main screen, run as if no overlay were open. */
static int main_key(struct vr_app *a, int key)
{
	for (const struct tui_action *k = vr_keys; k->fn; k++)
		if (k->key == key || (k->key2 && k->key2 == key))
			return k->fn(a);
	return TUI_IGNORED;
}

static int agg_key(struct tui_panel *p, int key)
{
	struct vr_app *a = p->data;
	int page = p->r.h > 3 ? p->r.h - 3 : 1;

	switch (key) {
	case KEY_DOWN: a->agg_top++; return TUI_REDRAW;
	case KEY_UP: a->agg_top--; return TUI_REDRAW;
	case KEY_NPAGE: a->agg_top += page; return TUI_REDRAW;
	case KEY_PPAGE: a->agg_top -= page; return TUI_REDRAW;
	case KEY_HOME: case 'g': a->agg_top = 0; return TUI_REDRAW;
	case KEY_END: case 'G': a->agg_top = 1 << 30; return TUI_REDRAW;
	case '+': case '=': case '-': case '/': case 'j':
		return main_key(a, key) | TUI_REDRAW;
	case 'A':
		vr_script_agg_stop(&a->m);
		return TUI_CLOSE | TUI_REDRAW;
	}
	return TUI_IGNORED;
}

static const struct tui_panel_ops agg_ops = {
	.name = "aggregations", .draw = agg_draw, .on_key = agg_key,
};

int vr_open_agg(struct vr_app *a)
{
	if (vr_script_agg_want(&a->m) < 0) {
		vr_show_note(a);
		return TUI_REDRAW;
	}
	a->agg = (struct tui_panel){ .ops = &agg_ops, .data = a, .visible = true };
	a->agg_top = 0;
	tui_screen_push(&a->scr, &a->agg);
	return TUI_REDRAW;
}
