/* tui_panels.c - vxreplay's browser panels: header, timeline, heatmap, list
 *
 * Each panel is a const table {draw, on_key, on_mouse}; the layout function
 * places them. The timeline and the heatmap share one time axis: both start
 * after a VR_LABEL_W label column and have a column per bin.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "tui_app.h"
#include "tui_heatmap.h"
#include "tui_timeline.h"

char *vr_reltime(const struct vr_app *a, uint64_t t, char *buf, size_t size)
{
	uint64_t base = a->m.t_first, d = t >= base ? t - base : base - t;

	snprintf(buf, size, "%s%" PRIu64 ".%06" PRIu64, t >= base ? "" : "-", d / 1000000000,
		 d % 1000000000 / 1000);
	return buf;
}

const char *vr_objname(const struct vr_app *a, uint32_t id)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(a->m.rd), id);

	return o ? o->name : "?";
}

static char *walltime(const struct vr_app *a, uint64_t t, char *buf, size_t size)
{
	return vxt_format_walltime(vxt_reader_to_real(a->m.rd, t), buf, size);
}

/* ---- header ---- */

static int field(int y, int x, int w, const char *label, int role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int field(int y, int x, int w, const char *label, int role, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (x >= w)
		return x;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = tui_printw(y, x, w - x, TUI_R_HEADER, "%s ", label);
	n += tui_puts(y, x + n, w - x - n, role, buf);
	return x + n + 2;
}

static void header_line1(struct vr_app *a, const struct tui_rect *r)
{
	struct vr_model *m = &a->m;
	char b1[32], b2[32], b3[32];
	const char *base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
	int x = 0, w = r->x + r->w;

	x = field(r->y, x, w, "vxreplay", TUI_R_HEADER_VALUE, "%s", base);
	x = field(r->y, x, w, "host", TUI_R_HEADER_VALUE, "%s", m->info->host);
	x = field(r->y, x, w, "source", TUI_R_HEADER_VALUE, "%s", m->info->source);
	x = field(r->y, x, w, "span", TUI_R_HEADER_VALUE, "%s (%s - %s)",
		  vxt_format_duration(m->t_last - m->t_first, b1, sizeof(b1)),
		  walltime(a, m->t_first, b2, sizeof(b2)), walltime(a, m->t_last, b3, sizeof(b3)));
}

static void header_line2(struct vr_app *a, const struct tui_rect *r)
{
	struct vr_model *m = &a->m;
	uint64_t c = vr_model_cursor_time(m);
	char b1[32], b2[32];
	bool complete;
	uint64_t shown = vr_view_shown(&m->view, &complete);
	int x = 0, w = r->x + r->w, y = r->y + 1;

	x = field(y, x, w, "cursor", TUI_R_HEADER_VALUE, "%ss %s", vr_reltime(a, c, b1, sizeof(b1)),
		  walltime(a, c, b2, sizeof(b2)));
	x = field(y, x, w, "events", TUI_R_HEADER_VALUE, "%s%" PRIu64 "/%" PRIu64,
		  complete ? "" : ">=", shown, vxt_reader_nevents(m->rd));
	x = field(y, x, w, "errors", m->total_errors ? TUI_R_ERROR : TUI_R_HEADER_VALUE,
		  "%" PRIu64, m->total_errors);
	x = field(y, x, w, "lost", m->total_lost ? TUI_R_WARN : TUI_R_HEADER_VALUE, "%" PRIu64,
		  m->total_lost);
	if (m->following)
		x = field(y, x, w, "", TUI_R_WARN, "following");
	(void)x;
}

static void header_line3(struct vr_app *a, const struct tui_rect *r)
{
	struct vr_model *m = &a->m;
	const char *why = NULL;
	int64_t dmg = vxt_reader_damage(m->rd, &why);
	int x = 0, w = r->x + r->w, y = r->y + 2;

	x = field(y, x, w, "filter", m->filter_src[0] ? TUI_R_HEADER_VALUE : TUI_R_DIM, "%s",
		  m->filter_src[0] ? m->filter_src : "none");
	x = field(y, x, w, "profile", m->profile[0] ? TUI_R_HEADER_VALUE : TUI_R_DIM, "%s",
		  m->profile[0] ? m->profile : "none");
	if (m->view.spec_on)
		x = field(y, x, w, "spec", TUI_R_HEADER_VALUE, "on %s", m->view.spec.summary);
	else
		x = field(y, x, w, "spec", TUI_R_DIM, "off");
	if (dmg >= 0)
		x = field(y, x, w, "damaged", TUI_R_WARN, "at %" PRId64 ": %s (kept what precedes)",
			  dmg, why ? why : "");
	else if (vxt_reader_recovered(m->rd))
		x = field(y, x, w, "", TUI_R_WARN, "no footer: recovered by scan");
	(void)x;
}

static void header_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;

	(void)focused;
	header_line1(a, &p->r);
	if (p->r.h > 1)
		header_line2(a, &p->r);
	if (p->r.h > 2)
		header_line3(a, &p->r);
}

static const struct tui_panel_ops header_ops = { .name = "header", .draw = header_draw };

/* ---- timeline ---- */

static struct tui_rect plot_rect(const struct tui_panel *p)
{
	return (struct tui_rect){ p->r.y + 1, p->r.x + VR_LABEL_W + 1, p->r.h - 1,
				  p->r.w - VR_LABEL_W - 1 };
}

static void update_marks(struct vr_app *a, const struct vxt_timeline *tl)
{
	if (a->tl_marks_n != tl->nbins) {
		free(a->tl_marks);
		a->tl_marks = calloc(tl->nbins ? tl->nbins : 1, 1);
		a->tl_marks_n = a->tl_marks ? tl->nbins : 0;
	}
	if (!a->tl_marks)
		return;
	memset(a->tl_marks, 0, a->tl_marks_n);
	for (unsigned i = 0; i < a->m.nmarks; i++) {
		int b = vxt_timeline_bin(tl, a->m.marks[i].time_ns);

		if (b >= 0)
			a->tl_marks[b] = 1;
	}
}

static void timeline_title(struct vr_app *a, const struct tui_panel *p, bool focused,
			   const struct vxt_timeline *tl)
{
	char t[160], b0[32], b1[32], bw[32];

	snprintf(t, sizeof(t), "%s  %s..%ss  bin %s%s", a->lanes ? "Errors by object" :
		 "Errors", vr_reltime(a, tl->t0, b0, sizeof(b0)), vr_reltime(a, tl->t1, b1, sizeof(b1)),
		 vxt_format_duration((tl->t1 - tl->t0) / (tl->nbins ? tl->nbins : 1), bw, sizeof(bw)),
		 a->m.tl_show_est ? "  (index estimate)" : "");
	tui_title(&p->r, focused, t, "+/- zoom  t/T bin  e/E error");
}

static void timeline_lanes(struct vr_app *a, const struct tui_panel *p,
			   const struct vxt_timeline *tl)
{
	static uint64_t lane[4096];
	unsigned n = tl->nbins < 4096 ? tl->nbins : 4096;
	uint64_t max = 1;

	for (unsigned r = 0; r < tl->nrows; r++)
		for (unsigned b = 0; b < n; b++)
			if (tl->cells[(size_t)r * tl->nbins + b].errors > max)
				max = tl->cells[(size_t)r * tl->nbins + b].errors;
	for (int i = 0; i < p->r.h - 1 && (unsigned)i < tl->nrows; i++) {
		for (unsigned b = 0; b < n; b++)
			lane[b] = tl->cells[(size_t)i * tl->nbins + b].errors;
		tui_timeline_lane(p->r.y + 1 + i, p->r.x, p->r.w,
				  tl->mode == VXT_TL_ROWS_LBA ? a->label_buf[i] : vr_objname(a, tl->row_obj[i]),
				  VR_LABEL_W, lane, (int)n, max, TUI_R_ERROR);
	}
}

static void timeline_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	struct tui_rect pr = plot_rect(p);
	struct tui_timeline w;
	uint64_t max = 0;

	if (!tl->nbins)
		return;
	timeline_title(a, p, focused, tl);
	if (a->lanes) {
		timeline_lanes(a, p, tl);
		return;
	}
	update_marks(a, tl);
	for (unsigned b = 0; b < tl->nbins; b++)
		if (tl->errors[b] > max)
			max = tl->errors[b];
	w = (struct tui_timeline){
		.nbins = (int)tl->nbins, .val = tl->errors, .lost = tl->lost, .marks = a->tl_marks,
		.cursor = vxt_timeline_bin(tl, vr_model_cursor_time(&a->m)),
		.bar_role = TUI_R_ERROR, .log_scale = true,
	};
	tui_timeline_draw(&pr, &w);
	tui_printw(pr.y, p->r.x, VR_LABEL_W, TUI_R_DIM, "%" PRIu64, max);
	if (pr.h > 2)
		tui_printw(pr.y + pr.h - 2, p->r.x, VR_LABEL_W, TUI_R_DIM, "0");
	tui_printw(pr.y + pr.h - 1, p->r.x, VR_LABEL_W, TUI_R_DIM, "errors");
}

static int click_time(struct vr_app *a, int col)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);

	if (col < 0 || (unsigned)col >= tl->nbins)
		return TUI_NONE;
	vr_model_goto_time(&a->m, vxt_timeline_bin_start(tl, (unsigned)col));
	return TUI_REDRAW;
}

static int timeline_mouse(struct tui_panel *p, int y, int x)
{
	struct tui_rect pr = plot_rect(p);

	(void)y;
	return click_time(p->data, x - pr.x);
}

/* Left/Right: one bin; other keys go to the keymap. */
static int step_bin(struct vr_app *a, int dir)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	uint64_t bw = (tl->t1 - tl->t0) / (tl->nbins ? tl->nbins : 1);
	uint64_t c = vr_model_cursor_time(&a->m);

	if (!bw)
		bw = 1;
	if (dir > 0)
		vr_model_goto_time(&a->m, c + bw);
	else
		vr_model_goto_time(&a->m, c > bw ? c - bw : 0);
	return TUI_REDRAW;
}

static int timeline_key(struct tui_panel *p, int key)
{
	if (key == KEY_RIGHT)
		return step_bin(p->data, 1);
	if (key == KEY_LEFT)
		return step_bin(p->data, -1);
	return TUI_IGNORED;
}

static const struct tui_panel_ops timeline_ops = {
	.name = "timeline", .draw = timeline_draw, .on_key = timeline_key,
	.on_mouse = timeline_mouse,
};

/* ---- heatmap ---- */

static void heat_labels(struct vr_app *a, const struct vxt_timeline *tl)
{
	for (unsigned r = 0; r < tl->nrows; r++) {
		if (tl->mode == VXT_TL_ROWS_LBA) {
			char sz[16];

			vxt_format_size(tl->lba_sectors * 512 / tl->nrows * r, sz, sizeof(sz));
			snprintf(a->label_buf[r], sizeof(a->label_buf[r]), "%s", sz);
		} else {
			snprintf(a->label_buf[r], sizeof(a->label_buf[r]), "%s",
				 vr_objname(a, tl->row_obj[r]));
		}
		a->labels[r] = a->label_buf[r];
	}
}

static void heatmap_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	const struct vxt_heatmap *hm = vr_model_heatmap(&a->m);
	struct tui_rect gr = { p->r.y + 1, p->r.x, p->r.h - 2, p->r.w };
	struct tui_heatmap w;
	char t[160], lo[32], hi[32];

	if (!tl->nbins || hm->cols != tl->nbins)
		return;
	heat_labels(a, tl);
	if (tl->mode == VXT_TL_ROWS_LBA)
		snprintf(t, sizeof(t), "Heatmap %s by LBA  (H: objects)", vr_objname(a, tl->lba_object));
	else
		snprintf(t, sizeof(t), "Heatmap by object, busiest first");
	tui_title(&p->r, focused, t, "M metric  o objects");
	if (a->hm_top > (int)hm->rows - gr.h)
		a->hm_top = (int)hm->rows - gr.h;
	if (a->hm_top < 0)
		a->hm_top = 0;
	w = (struct tui_heatmap){
		.rows = (int)hm->rows, .cols = (int)hm->cols, .level = hm->level, .err = hm->err,
		.labels = a->labels, .label_w = VR_LABEL_W,
		.cursor = vxt_timeline_bin(tl, vr_model_cursor_time(&a->m)),
		.sel_row = focused ? a->hm_sel : -1, .top = a->hm_top,
	};
	tui_heatmap_draw(&gr, &w);
	tui_heatmap_legend(p->r.y + p->r.h - 1, p->r.x, p->r.w, vxt_heat_metric_name(hm->metric),
			   vxt_heat_format(hm->metric, hm->lo, lo, sizeof(lo)),
			   vxt_heat_format(hm->metric, hm->hi, hi, sizeof(hi)));
}

static int heatmap_mouse(struct tui_panel *p, int y, int x)
{
	struct vr_app *a = p->data;
	const struct vxt_heatmap *hm = vr_model_heatmap(&a->m);
	struct tui_rect gr = { p->r.y + 1, p->r.x, p->r.h - 2, p->r.w };
	struct tui_heatmap w = { .rows = (int)hm->rows, .cols = (int)hm->cols,
				 .label_w = VR_LABEL_W, .top = a->hm_top };
	int row, col;

	if (!tui_heatmap_hit(&gr, &w, y, x, &row, &col))
		return TUI_NONE;
	a->hm_sel = row;
	return click_time(a, col);
}

static int heatmap_key(struct tui_panel *p, int key)
{
	struct vr_app *a = p->data;

	switch (key) {
	case KEY_UP:
		if (a->hm_sel > 0)
			a->hm_sel--;
		if (a->hm_sel < a->hm_top)
			a->hm_top = a->hm_sel;
		return TUI_REDRAW;
	case KEY_DOWN:
		if (a->hm_sel + 1 < (int)a->m.hm.rows)
			a->hm_sel++;
		if (a->hm_sel >= a->hm_top + p->r.h - 2)
			a->hm_top = a->hm_sel - (p->r.h - 3);
		return TUI_REDRAW;
	case KEY_RIGHT:
		return step_bin(a, 1);
	case KEY_LEFT:
		return step_bin(a, -1);
	}
	return TUI_IGNORED;
}

static const struct tui_panel_ops heatmap_ops = {
	.name = "heatmap", .draw = heatmap_draw, .on_key = heatmap_key, .on_mouse = heatmap_mouse,
};

/* ---- event list ---- */

static const struct tui_column list_cols[] = {
	{ "TIME", 12, TUI_RIGHT }, { " ", 2, TUI_LEFT }, { "OBJECT", 9, TUI_LEFT },
	{ "PHASE", 6, TUI_LEFT }, { "OP", 6, TUI_LEFT }, { "SECTOR", 12, TUI_RIGHT },
	{ "SIZE", 7, TUI_RIGHT }, { "LATENCY", 9, TUI_RIGHT }, { "STATUS", 10, TUI_RIGHT },
	{ "PID", 7, TUI_RIGHT }, { "COMM", 16, TUI_LEFT },
};
#define NLIST_COLS ((int)(sizeof(list_cols) / sizeof(list_cols[0])))

static const struct tui_column spec_cols[] = {
	{ "SPEC", 6, TUI_RIGHT }, { "TIME", 12, TUI_RIGHT }, { " ", 2, TUI_LEFT },
	{ "OBJECT", 9, TUI_LEFT }, { "PHASE", 6, TUI_LEFT }, { "OP", 6, TUI_LEFT },
	{ "SECTOR", 12, TUI_RIGHT }, { "SIZE", 7, TUI_RIGHT }, { "LATENCY", 9, TUI_RIGHT },
	{ "STATUS", 10, TUI_RIGHT }, { "PID", 7, TUI_RIGHT }, { "COMM", 16, TUI_LEFT },
};
#define NSPEC_COLS ((int)(sizeof(spec_cols) / sizeof(spec_cols[0])))

static void status_of(const struct vxt_event *ev, char *buf, size_t size)
{
	const char *n;

	if (ev->phase == VXT_PH_LOST) {
		snprintf(buf, size, "lost %" PRIu64, ev->sector);
		return;
	}
	if (!ev->error) {
		snprintf(buf, size, ev->phase == VXT_PH_DONE ? "ok" : "");
		return;
	}
	n = vxt_errno_name(ev->error);
	if (n)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "%d", ev->error);
}

static void list_row(struct vr_app *a, int y, const struct tui_rect *r, uint64_t ord,
		     bool sel, bool focused)
{
	const struct vxt_event *ev;
	char c[12][40];
	const char *cells[12];
	int k = 0, role;
	long g = -1;

	if (vr_view_get(&a->m.view, ord, &ev) != 1)
		return;
	if (a->m.view.spec_on) {
		g = vr_spec_group_of(&a->m.view.spec, ord);
		snprintf(c[k++], 40, "%ld", g);
	}
	vr_reltime(a, ev->time_ns, c[k++], 40);
	snprintf(c[k++], 40, "%s", vr_model_is_marked(&a->m, ord) ? tui_glyphs->mark : "");
	snprintf(c[k++], 40, "%s", ev->phase == VXT_PH_LOST ? "-" : vr_objname(a, ev->object));
	snprintf(c[k++], 40, "%s", vxt_phase_name(ev->phase));
	snprintf(c[k++], 40, "%s", ev->phase == VXT_PH_LOST ? "" : vxt_op_name(ev->op));
	snprintf(c[k++], 40, "%" PRIu64, ev->phase == VXT_PH_LOST ? 0 : ev->sector);
	vxt_format_size(ev->bytes, c[k++], 40);
	if (ev->phase == VXT_PH_DONE)
		vxt_format_duration(ev->latency_ns, c[k++], 40);
	else
		c[k++][0] = 0;
	status_of(ev, c[k++], 40);
	snprintf(c[k++], 40, "%u", ev->pid);
	snprintf(c[k++], 40, "%s", vxt_strtab_get(vxt_reader_strings(a->m.rd), ev->comm));
	for (int i = 0; i < k; i++)
		cells[i] = c[i];
	role = ev->error ? TUI_R_ERROR : (ev->phase == VXT_PH_LOST ? TUI_R_WARN : TUI_R_NORMAL);
	if (g >= 0 && !ev->error && (g & 1))
		role = TUI_R_DIM;
	if (sel)
		role = !focused ? TUI_R_SELECTED_DIM : (ev->error ? TUI_R_ERROR_SEL : TUI_R_SELECTED);
	if (a->m.view.spec_on)
		tui_columns_row(y, r->x, r->w, spec_cols, NSPEC_COLS, cells, role);
	else
		tui_columns_row(y, r->x, r->w, list_cols, NLIST_COLS, cells, role);
}

static void list_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	struct vr_model *m = &a->m;
	char t[128], pos[64];
	bool complete;
	uint64_t shown = vr_view_shown(&m->view, &complete);
	int rows = p->r.h - 2;

	snprintf(t, sizeof(t), "Events%s%s", m->view.spec_on ? " committed by speculation" : "",
		 m->filter_src[0] ? " (filtered)" : "");
	if (m->has_sel)
		snprintf(pos, sizeof(pos), "#%" PRIu64 "  %s%" PRIu64 " shown", m->sel,
			 complete ? "" : ">=", shown);
	else
		snprintf(pos, sizeof(pos), "nothing shown");
	tui_title(&p->r, focused, t, pos);
	if (rows < 1)
		return;
	if (m->view.spec_on)
		tui_columns_head(p->r.y + 1, p->r.x, p->r.w, spec_cols, NSPEC_COLS);
	else
		tui_columns_head(p->r.y + 1, p->r.x, p->r.w, list_cols, NLIST_COLS);
	a->nlist = vr_model_rows(m, a->list_ords, rows < VR_LIST_MAX ? rows : VR_LIST_MAX);
	for (int i = 0; i < a->nlist; i++)
		list_row(a, p->r.y + 2 + i, &p->r, a->list_ords[i],
			 m->has_sel && a->list_ords[i] == m->sel, focused);
	if (!m->has_sel)
		tui_puts(p->r.y + 2, p->r.x + 1, p->r.w - 1, TUI_R_DIM,
			 m->view.spec_on ? "no speculation committed anything" :
			 "no event matches the filter");
}

static int list_key(struct tui_panel *p, int key)
{
	struct vr_app *a = p->data;
	long page = p->r.h - 3 > 1 ? p->r.h - 3 : 1;

	switch (key) {
	case KEY_UP: case 'k':
		vr_model_move(&a->m, -1);
		break;
	case KEY_DOWN:
		vr_model_move(&a->m, 1);
		break;
	case KEY_PPAGE:
		vr_model_move(&a->m, -page);
		break;
	case KEY_NPAGE: case ' ':
		vr_model_move(&a->m, page);
		break;
	default:
		return TUI_IGNORED;
	}
	return TUI_REDRAW;
}

static int list_mouse(struct tui_panel *p, int y, int x)
{
	struct vr_app *a = p->data;
	int i = y - p->r.y - 2;

	(void)x;
	if (i >= 0 && i < a->nlist)
		vr_model_move(&a->m, i - (int)a->m.sel_row);
	return TUI_REDRAW;
}

static const struct tui_panel_ops list_ops = {
	.name = "events", .draw = list_draw, .on_key = list_key, .on_mouse = list_mouse,
};

/* ---- layout ---- */

void vr_panels_init(struct vr_app *a)
{
	a->header = (struct tui_panel){ .ops = &header_ops, .data = a, .visible = true };
	a->timeline = (struct tui_panel){ .ops = &timeline_ops, .data = a, .visible = true,
					  .focusable = true };
	a->heatmap = (struct tui_panel){ .ops = &heatmap_ops, .data = a, .visible = true,
					 .focusable = true };
	a->list = (struct tui_panel){ .ops = &list_ops, .data = a, .visible = true,
				      .focusable = true };
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

void vr_layout(void *app, struct tui_screen *s, int lines, int cols)
{
	struct vr_app *a = app;
	int avail = lines - 1 - 3, y = 3, tl_h, hm_rows, hm_h;
	unsigned rows = a->m.lba ? VR_LBA_ROWS : a->m.nrows;

	(void)s;
	a->header.r = (struct tui_rect){ 0, 0, 3, cols };
	tl_h = clampi(avail / 4, 5, 12);
	hm_rows = clampi(avail / 4, 2, (int)(rows ? rows : 1));
	hm_h = hm_rows + 2;
	if (avail - tl_h - hm_h < 4) {		/* tiny terminals: the list first */
		tl_h = clampi(avail - hm_h - 4, 2, tl_h);
		hm_h = clampi(avail - tl_h - 4, 0, hm_h);
	}
	a->timeline.r = (struct tui_rect){ y, 0, tl_h, cols };
	y += tl_h;
	a->heatmap.r = (struct tui_rect){ y, 0, hm_h, cols };
	a->heatmap.visible = hm_h >= 3;
	y += hm_h;
	a->list.r = (struct tui_rect){ y, 0, lines - 1 - y, cols };
	vr_model_set_page(&a->m, (unsigned)clampi(a->list.r.h - 2, 1, VR_LIST_MAX));
	vr_model_set_window(&a->m, a->m.w0, a->m.w1, (unsigned)clampi(cols - VR_LABEL_W - 1, 1, 4096));
}
