/* screens/procs.c - vxtop's P screen: the last interval's I/O per process, as biotop
 *
 * One row per (pid, command, object) that completed I/O in the last closed
 * interval, busiest first (vxt_procstats, the rows of `vxtop -b --processes`
 * and of vxreplay's --report processes): I/Os, KiB, average and p99 latency.
 */
#include <stdio.h>

#include <curses.h>

#include "tui.h"

static void procs_draw(struct top *t, int top, int bottom)
{
	const struct vxtop_model *m = &t->c->model;
	const struct vxt_procstats *p = &m->last_procs;
	const struct vxt_strtab *strs = vxtop_collect_strings(t->c);
	int rows = bottom - top - 1;

	top_print(top, 0, -1, TUI_R_COLHEAD, "%-*s", COLS, "");
	top_print(top, 0, -1, TUI_R_COLHEAD, "%7s %-16s %-16s %8s %10s %9s %9s", "PID", "COMM",
		  "OBJECT", "I/Os", "KiB", "AVG", "P99");
	if (!p->n)
		top_print(top + 1, 0, -1, TUI_R_DIM, "no I/O completed in the last interval");
	if (t->proc_top >= p->n)
		t->proc_top = p->n ? p->n - 1 : 0;
	for (int i = 0; i < rows && t->proc_top + (size_t)i < p->n; i++) {
		const struct vxt_proc_row *r = &p->rows[t->proc_top + (size_t)i];
		const struct vxt_object *ob = vxt_objtab_get(m->objs, r->object);
		const char *comm = strs ? vxt_strtab_get(strs, r->comm) : NULL;
		char a[16], q[16];

		top_print(top + 1 + i, 0, -1, r->errors ? TUI_R_ERROR : TUI_R_NORMAL,
			  "%7u %-16.16s %-16.16s %8llu %10.1f %9s %9s", r->pid, comm ? comm : "",
			  ob ? ob->name : "?", (unsigned long long)r->ios,
			  (double)(r->bytes_read + r->bytes_written) / 1024,
			  vxtop_fmt_lat((double)vxt_latdist_mean(&r->lat), a, sizeof(a)),
			  vxtop_fmt_lat((double)vxt_latdist_quantile(&r->lat, 0.99), q, sizeof(q)));
	}
}

static int procs_move(struct top *t, int key)
{
	return top_move_key(key, t->c->model.last_procs.n, &t->proc_top, LINES / 2);
}

static const struct tui_keybar_item procs_keybar[] = {
	{ "Esc", "Back" }, { "Up/Dn", "Scroll" }, { "o", "Objects" }, { "d/D", "Intvl" },
	{ "?", "Help" }, { "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_procs_screen = {
	.name = "processes",
	.draw = procs_draw,
	.on_move = procs_move,
	.keybar = procs_keybar,
};
