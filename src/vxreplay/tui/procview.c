/* procview.c - vxreplay's browser: the per-process view and the I/O listing
 *
 * P opens a table with a row per process (pid and command) that completed
 * I/O shown in the window: the object table's figures (I/Os, bytes, errors,
 * average and p99 latency), busiest first, filled by a stepped job over the
 * window (the title says how far it got). i switches the list between every
 * event and one row per completed I/O (issued and completed times, D2C,
 * Q2C, process); the filter applies to both.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

static const struct tui_column proc_cols[] = {
	{ "PID", 8, TUI_RIGHT }, { "COMM", 17, TUI_LEFT }, { "IOS", 10, TUI_RIGHT },
	{ "BYTES", 9, TUI_RIGHT }, { "ERRORS", 8, TUI_RIGHT }, { "AVG LAT", 10, TUI_RIGHT },
	{ "P99 LAT", 10, TUI_RIGHT }, { "", 1, TUI_LEFT },
};

static void proc_cell(void *ctx, size_t row, int col, char *buf, size_t size, int *role)
{
	struct vr_app *a = ctx;
	const struct vr_proc *r;

	if (row >= a->m.procs.n)
		return;
	r = &a->m.procs.rows[row];
	switch (col) {
	case 0:
		if (!r->others)
			snprintf(buf, size, "%u", r->pid);
		break;
	case 1:
		snprintf(buf, size, "%s", r->others ? "(others)" :
			 vxt_strtab_get(vxt_reader_strings(a->m.rd), r->comm));
		break;
	case 2: snprintf(buf, size, "%" PRIu64, r->ios); break;
	case 3: vxt_format_size(r->bytes, buf, size); break;
	case 4: snprintf(buf, size, "%" PRIu64, r->errors); break;
	case 5: vxt_format_duration(vxt_latdist_mean(&r->lat), buf, size); break;
	case 6: vxt_format_duration(vxt_latdist_quantile(&r->lat, 0.99), buf, size); break;
	default: break;
	}
	if (col == 0 && r->errors)
		*role = TUI_R_ERROR;
}

/* The table's own drawing, after the rows and the title caught up with the job. */
static void proc_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = ((struct tui_table *)p->data)->ctx;
	struct vr_model *m = &a->m;
	const struct vr_job *j = &m->job[VR_JOB_PROCS];
	char b0[32], b1[32];
	size_t span = j->end > 0 ? j->end : 1;

	a->proct.list.n = m->procs.n;
	snprintf(a->proct.status, sizeof(a->proct.status), "%zu processes  %s..%ss%s  %s  Esc",
		 m->procs.n, vr_reltime(a, m->procs_w0, b0, sizeof(b0)),
		 vr_reltime(a, m->procs_w1, b1, sizeof(b1)), m->filter_src[0] ? " filtered" : "",
		 m->procs_done ? "complete" : j->active ? "counting" : "stopped");
	if (j->active && !m->procs_done) {
		size_t n = strlen(a->proct.status);

		snprintf(a->proct.status + n, sizeof(a->proct.status) - n, " %zu%%", j->next * 100 / span);
	}
	a->proc_base->draw(p, focused);
}

int vr_open_procs(struct vr_app *a)
{
	vr_model_procs_start(&a->m);
	a->proct.list.sel = a->proct.list.top = 0;
	tui_screen_push(&a->scr, &a->proct.panel);
	return TUI_REDRAW;
}

int vr_toggle_io_list(struct vr_app *a)
{
	struct vr_model *m = &a->m;

	if (m->view.spec_on) {
		tui_screen_msg(&a->scr, TUI_R_MSG, "the speculation view lists events (s turns it off)");
		return TUI_REDRAW;
	}
	if (vr_model_set_io_only(m, !m->io_only) < 0) {
		tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "out of memory");
		return TUI_REDRAW;
	}
	m->job[VR_JOB_COUNT] = (struct vr_job){ .active = m->view.match != NULL,
						.end = vxt_reader_nchunks(m->rd) };
	vr_model_rebin(m);
	vr_model_reseat(m);
	tui_screen_msg(&a->scr, TUI_R_MSG, m->io_only ? "list: one row per completed I/O (i: events)" :
		       "list: every event");
	return TUI_REDRAW;
}

void vr_procview_init(struct vr_app *a)
{
	tui_table_init(&a->proct, "Processes", proc_cols,
		       (int)(sizeof(proc_cols) / sizeof(proc_cols[0])), proc_cell, a);
	a->proc_base = a->proct.panel.ops;
	a->proc_ops = *a->proct.panel.ops;
	a->proc_ops.draw = proc_draw;
	a->proct.panel.ops = &a->proc_ops;
}
