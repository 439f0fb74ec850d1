/* script.c - vxtop's script screen: what the --script printed
 *
 * The newest interval's output of the script (printa() of its aggregations
 * at each tick, printf(), trace()), redrawn as intervals close, with the
 * script's counters; Up and Down scroll it.
 */
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

static int nlines(const char *p)
{
	int n = 0;

	for (; p && *p; p++)
		n += *p == '\n';
	return n + (p && p[-1] != '\n');
}

static void script_draw(struct top *t, int top, int bottom)
{
	const struct vxtop_script *vs = t->c->script;
	struct vxt_script_stats st;
	char when[32], probs[512], line[VXT_ESCAPE_MAX(512)];
	const char *p;
	int y = top, total, skip;

	if (!vs) {
		top_print(y, 0, -1, TUI_R_DIM, "no script: start vxtop with --script NAME "
			  "(formats/script.md)");
		return;
	}
	vxt_script_get_stats(vs->s, &st);
	top_print(y++, 0, -1, TUI_R_COLHEAD, "script %s  %s %s  events %llu  errors %llu  "
		  "agg drops %llu", vxtop_script_name(vs),
		  vs->shown.n ? "output of the interval ending" : "no output yet",
		  vs->shown.n ? top_clock(vs->shown_end_ns - t->c->model.anchor_mono +
					  t->c->model.anchor_real, false, when, sizeof(when)) : "",
		  (unsigned long long)st.events_in, (unsigned long long)st.errors,
		  (unsigned long long)st.agg_drops);
	vxt_script_format_problems(&st, probs, sizeof(probs));
	if (probs[0] && y < bottom) {
		probs[strcspn(probs, "\n")] = '\0';
		top_print(y++, 0, -1, TUI_R_ERROR, "%s", probs);
	}
	total = nlines(vs->shown.p);
	if (t->script_top > (size_t)(total > 0 ? total - 1 : 0))
		t->script_top = total > 0 ? (size_t)total - 1 : 0;
	skip = (int)t->script_top;
	for (p = vs->shown.p; p && *p && y < bottom;) {
		size_t n = strcspn(p, "\n"), k = n < 512 ? n : 512;
		char raw[513];

		memcpy(raw, p, k);
		raw[k] = '\0';
		p += n + (p[n] == '\n');
		if (skip-- > 0)
			continue;
		vxt_escape_text(raw, line, sizeof(line));
		top_print(y++, 0, -1, TUI_R_NORMAL, "%s", line);
	}
}

static int script_move(struct top *t, int key)
{
	size_t n = t->c->script ? (size_t)nlines(t->c->script->shown.p) : 0;

	return top_move_key(key, n, &t->script_top, LINES / 2);
}

static const struct tui_keybar_item script_keybar[] = {
	{ "a", "Table" }, { "Up/Dn", "Scroll" }, { "Spc", "Pause" }, { "e", "Errors" },
	{ "d/D", "Intvl" }, { "?", "Help" }, { "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_script_screen = {
	.name = "script",
	.draw = script_draw,
	.on_move = script_move,
	.keybar = script_keybar,
};
