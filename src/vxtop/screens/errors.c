/* errors.c - vxtop's error list: counts since start and the newest errors
 *
 * The top part counts errors per object and errno since start; below, the
 * newest errors first (time, object, op, sector, size, errno, process),
 * scrollable over the last VXTOP_ERR_RING errors.
 */
#include <stdio.h>

#include <curses.h>

#include "tui.h"

static int draw_kinds(struct top *t, int y, int max)
{
	const struct vxtop_model *m = &t->c->model;
	int n = 0;

	top_print(y, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	top_print(y, 0, -1, TUI_R_COLHEAD, "%-16s %-10s %10s  %s", "OBJECT", "ERRNO",
		  "COUNT", "LAST");
	for (size_t k = 0; k < m->nkinds && n + 1 < max; k++, n++) {
		const struct vxtop_errkind *e = &m->kinds[k];
		const struct vxt_object *ob = vxt_objtab_get(m->objs, e->object);
		const char *en = vxt_errno_name(e->error);
		char when[32];

		top_print(y + 1 + n, 0, -1, TUI_R_ERROR, "%-16s %-10s %10llu  %s",
			  ob ? ob->name : "?", en ? en : "?", (unsigned long long)e->count,
			  top_clock(e->last_ns - m->anchor_mono + m->anchor_real, true, when,
				    sizeof(when)));
	}
	if (!m->nkinds) {
		top_print(y + 1, 0, -1, TUI_R_GOOD, "no errors since start");
		n++;
	}
	return n + 1;
}

static void errors_draw(struct top *t, int top, int bottom)
{
	const struct vxtop_model *m = &t->c->model;
	const struct vxt_strtab *strs = vxtop_collect_strings(t->c);
	uint64_t nerrs = vxtop_shown_nerrs(&t->v), kept = nerrs < VXTOP_ERR_RING ? nerrs : VXTOP_ERR_RING;
	int y = top + draw_kinds(t, top, (bottom - top) / 3) + 1, rows;

	top_print(y, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	top_print(y, 0, -1, TUI_R_COLHEAD, "%-12s  %-14s %-8s %14s %7s  %-10s %7s  %s",
		  "TIME", "OBJECT", "OP", "SECTOR", "SIZE", "ERRNO", "PID", "COMM");
	rows = bottom - y - 1;
	if (t->err_top + 1 > kept)
		t->err_top = kept ? kept - 1 : 0;
	for (int i = 0; i < rows; i++) {
		const struct vxtop_err *e = vxtop_shown_err(&t->v, t->err_top + (uint64_t)i);
		struct top_err_text et;

		if (!e)
			break;
		top_err_text(m, e, &et);
		top_print(y + 1 + i, 0, -1, TUI_R_NORMAL, "%-12s  %-14s %-8s %14llu %7s  %-10s %7u  %s",
			  et.when, et.object, vxt_op_name(e->op), (unsigned long long)e->sector, et.size,
			  et.errno_name, e->pid, strs ? vxt_strtab_get(strs, e->comm) : "");
	}
	if (nerrs > kept)
		top_print(bottom - 1, 0, -1, TUI_R_DIM, "(the newest %llu of %llu shown)",
			  (unsigned long long)kept, (unsigned long long)nerrs);
}

static int errors_move(struct top *t, int key)
{
	uint64_t nerrs = vxtop_shown_nerrs(&t->v);
	size_t n = nerrs < VXTOP_ERR_RING ? (size_t)nerrs : VXTOP_ERR_RING;

	return top_move_key(key, n, &t->err_top, LINES / 2);
}

static const struct tui_keybar_item errors_keybar[] = {
	{ "Esc", "Back" }, { "Up/Dn", "Scroll" }, { "Spc", "Pause" }, { "h", "Heat" },
	{ "d/D", "Intvl" }, { "?", "Help" }, { "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_errors_screen = {
	.name = "errors",
	.draw = errors_draw,
	.on_move = errors_move,
	.keybar = errors_keybar,
};
