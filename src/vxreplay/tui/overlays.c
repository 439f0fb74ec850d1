/* overlays.c - vxreplay's modal views: event detail, objects, marks
 *
 * Overlays are panels pushed on the screen manager; they take every key and
 * close on Esc or q (TUI_CLOSE).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "browser/script.h"

/* ---- event detail ---- */

#define PAIR_SCAN 200000	/* events searched for the other half of an I/O */

struct pair {
	bool found;
	uint64_t ord;
	struct vxt_event ev;
	bool lost;		/* no done: a lost event closed the I/O (ord, ev) */
};

static bool same_io(const struct vxt_event *a, const struct vxt_event *b)
{
	return a->object == b->object && a->sector == b->sector && a->bytes == b->bytes &&
	       a->op == b->op;
}

/* Does lost event @e name the I/O of start @s (vxt_event_lost_io())? */
static bool lost_of(const struct vxt_event *e, const struct vxt_event *s)
{
	uint64_t sector;

	return vxt_event_lost_io(e, &sector) && sector == s->sector &&
	       e->object == s->object && e->op == s->op;
}

/* The start of a done event, or the done of a start: scan on the job reader.
 * A start with no done after it closed by a lost event: the one naming it,
 * else the first lost event after it naming no I/O (p.lost). */
static struct pair io_pair_of(struct vr_model *m, uint64_t ord, const struct vxt_event *ev)
{
	struct pair p = { 0 };
	const struct vxt_event *e;
	bool want_start = ev->phase == VXT_PH_DONE;
	struct vxt_event me = *ev;
	struct vxt_reader *jr = vr_model_job_reader(m);
	int n = 0;

	if (!jr || (ev->phase != VXT_PH_DONE && ev->phase != VXT_PH_START))
		return p;
	vxt_reader_seek_ordinal(jr, want_start ? ord : ord + 1);
	while (n++ < PAIR_SCAN) {
		uint64_t at;

		if (want_start) {
			if (vxt_reader_prev(jr, &e) != 1)
				break;
			at = vxt_reader_tell(jr);
		} else {
			at = vxt_reader_tell(jr);
			if (vxt_reader_next(jr, &e) != 1)
				break;
		}
		if (e->phase == (want_start ? VXT_PH_START : VXT_PH_DONE) && same_io(e, &me)) {
			p.found = true;
			p.lost = false;
			p.ord = at;
			p.ev = *e;
			break;
		}
		if (!want_start && e->phase == VXT_PH_LOST && !p.lost &&
		    (!e->lost_io || lost_of(e, &me))) {
			p.lost = true;
			p.ord = at;
			p.ev = *e;
			if (e->lost_io)
				break;
		}
	}
	return p;
}

static struct pair pair;		/* the other half of the I/O of ... */
static uint64_t pair_ord = UINT64_MAX;	/* ... this event */

static int line(int *y, const struct tui_rect *r, int role, const char *label, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

static int line(int *y, const struct tui_rect *r, int role, const char *label, const char *fmt,
		...)
{
	char buf[512];
	va_list ap;

	if (*y >= r->y + r->h)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tui_printw(*y, r->x + 2, 14, TUI_R_HEADER, "%s", label);
	tui_puts(*y, r->x + 16, r->w - 17, role, buf);
	(*y)++;
	return 1;
}

static void io_line(struct vr_app *a, int *y, const struct tui_rect *r, const char *label,
		    uint64_t ord, const struct vxt_event *ev)
{
	char t[32], w[32], l[32];

	line(y, r, ev->error ? TUI_R_ERROR : TUI_R_NORMAL, label,
	     "#%-10" PRIu64 " %ss  %s%s%s%s%s", ord, vr_reltime(a, ev->time_ns, t, sizeof(t)),
	     vxt_format_walltime(vxt_reader_to_real(a->m.rd, ev->time_ns), w, sizeof(w)),
	     ev->phase == VXT_PH_DONE ? "  latency " : "",
	     ev->phase == VXT_PH_DONE ? vxt_format_duration(ev->latency_ns, l, sizeof(l)) : "",
	     ev->error ? "  " : "", ev->error ? (vxt_errno_name(ev->error) ? vxt_errno_name(ev->error) : "error") : "");
}

static void detail_fields(struct vr_app *a, const struct tui_rect *r, int *y,
			  const struct vxt_event *ev)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(a->m.rd), ev->object);
	char t[32], w[32], fl[64], sz[16], l[32];
	const char *en = vxt_errno_name(ev->error);

	line(y, r, TUI_R_NORMAL, "time", "%ss  %s  (monotonic %" PRIu64 " ns)",
	     vr_reltime(a, ev->time_ns, t, sizeof(t)),
	     vxt_format_walltime(vxt_reader_to_real(a->m.rd, ev->time_ns), w, sizeof(w)), ev->time_ns);
	if (o)
		line(y, r, TUI_R_NORMAL, "object", "%s  (%s, dev %u:%u, id %u)", o->name,
		     vxt_obj_kind_name(o->kind), o->dev >> 20, o->dev & 0xfffff, o->id);
	line(y, r, TUI_R_NORMAL, "phase", "%s", vxt_phase_name(ev->phase));
	line(y, r, TUI_R_NORMAL, "op", "%s  flags %s", vxt_op_name(ev->op),
	     *vxt_flags_format(ev->flags, fl, sizeof(fl)) ? fl : "-");
	if (ev->phase == VXT_PH_LOST)
		line(y, r, TUI_R_WARN, "lost", "%" PRIu64 " events", ev->sector);
	else
		line(y, r, TUI_R_NORMAL, "sector", "%" PRIu64 "  (%u bytes, %s)", ev->sector,
		     ev->bytes, vxt_format_size(ev->bytes, sz, sizeof(sz)));
	if (ev->phase == VXT_PH_DONE)
		line(y, r, TUI_R_NORMAL, "latency", "%s  (%" PRIu64 " ns)",
		     vxt_format_duration(ev->latency_ns, l, sizeof(l)), ev->latency_ns);
	line(y, r, ev->error ? TUI_R_ERROR : TUI_R_NORMAL, "status", "%s (%d)",
	     ev->error ? (en ? en : "error") : "ok", ev->error);
	line(y, r, TUI_R_NORMAL, "process", "pid %u  comm %s  cpu %u", ev->pid,
	     vxt_strtab_get(vxt_reader_strings(a->m.rd), ev->comm), ev->cpu);
}

static void detail_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	const struct vxt_event *evp;
	struct vxt_event ev;
	struct pair pr;
	char title[64];
	long g;
	int y = p->r.y + 2;

	(void)focused;
	snprintf(title, sizeof(title), "Event #%" PRIu64, a->detail_ord);
	tui_title(&p->r, true, title, "Esc/q closes");
	if (vr_view_get(&a->m.view, a->detail_ord, &evp) != 1) {
		tui_puts(y, p->r.x + 2, p->r.w - 2, TUI_R_ERROR, vxt_reader_error(a->m.rd));
		return;
	}
	ev = *evp;
	detail_fields(a, &p->r, &y, &ev);
	if (a->m.view.spec_on && (g = vr_spec_group_of(&a->m.view.spec, a->detail_ord)) >= 0) {
		uint64_t trig = (size_t)g < a->m.view.spec.ngroups ? a->m.view.spec.trigger[g]
								 : UINT64_MAX;

		if (trig != UINT64_MAX)
			line(&y, &p->r, TUI_R_NORMAL, "speculation", "%ld, committed by event #%" PRIu64,
			     g, trig);
		else
			line(&y, &p->r, TUI_R_NORMAL, "speculation", "%ld", g);
	}
	y++;
	if (ev.phase != VXT_PH_DONE && ev.phase != VXT_PH_START)
		return;
	tui_puts(y++, p->r.x + 1, p->r.w - 2, TUI_R_TITLE, " Its whole I/O ");
	/* the scan is done once per event shown, not at every redraw */
	if (a->detail_ord != pair_ord) {
		pair = io_pair_of(&a->m, a->detail_ord, &ev);
		pair_ord = a->detail_ord;
	}
	pr = pair;
	if (ev.phase == VXT_PH_DONE) {
		if (pr.found)
			io_line(a, &y, &p->r, "start", pr.ord, &pr.ev);
		else
			line(&y, &p->r, TUI_R_DIM, "start", "not in the trace (issued before it began?)");
		io_line(a, &y, &p->r, "done", a->detail_ord, &ev);
	} else {
		io_line(a, &y, &p->r, "start", a->detail_ord, &ev);
		char t[32];

		if (pr.found)
			io_line(a, &y, &p->r, "done", pr.ord, &pr.ev);
		else if (pr.lost)
			line(&y, &p->r, TUI_R_ERROR, "done", "lost: closed by the lost event #%" PRIu64
			     " at %ss (%s)", pr.ord, vr_reltime(a, pr.ev.time_ns, t, sizeof(t)),
			     !pr.ev.lost_io ? "the source dropped events" :
			     !strcmp(vxt_reader_info(a->m.rd)->source, "tracefs") ?
			     "a ring overrun took its completion" :
			     "its completion never ran the BPF programs");
		else
			line(&y, &p->r, TUI_R_DIM, "done", "not in the trace (still in flight at the end?)");
	}
}

static int detail_key(struct tui_panel *p, int key)
{
	(void)p;
	if (key == '\r' || key == '\n' || key == KEY_ENTER)
		return TUI_CLOSE | TUI_REDRAW;
	return TUI_IGNORED;
}

static const struct tui_panel_ops detail_ops = {
	.name = "detail", .draw = detail_draw, .on_key = detail_key,
};

int vr_open_detail(struct vr_app *a)
{
	if (!a->m.has_sel)
		return TUI_NONE;
	a->detail_ord = a->m.sel;
	tui_screen_push(&a->scr, &a->detail);
	return TUI_REDRAW;
}

/* ---- object table ---- */

static const struct tui_column obj_cols[] = {
	{ "OBJECT", 22, TUI_LEFT },	/* host:object with several hosts */ { "KIND", 10, TUI_LEFT }, { "IOS", 10, TUI_RIGHT },
	{ "READS", 10, TUI_RIGHT }, { "WRITES", 10, TUI_RIGHT }, { "BYTES", 9, TUI_RIGHT },
	{ "ERRORS", 8, TUI_RIGHT }, { "AVG LAT", 10, TUI_RIGHT }, { "", 1, TUI_LEFT },
};

/* The figures of the events the filter shows, as the counting found them
 * (struct vr_view's objs): complete once every chunk is counted. */
static void objrows_filtered(struct vr_app *a, size_t nobj)
{
	const struct vr_view *v = &a->m.view;

	for (size_t i = 0; i < nobj && i < v->nobjs; i++) {
		const struct vr_objfig *f = &v->objs[i];
		struct vr_objrow *o = &a->objrows[i];

		o->ios = f->ios;
		o->reads = f->reads;
		o->writes = f->writes;
		o->bytes = f->bytes;
		o->errors = f->errors;
		o->lat_sum = f->lat_sum;
	}
}

/* The figures from the index: every event of the file. */
static void objrows_index(struct vr_app *a, size_t nobj)
{
	for (size_t c = 0; c < vxt_reader_npieces(a->m.rd); c++) {
		const struct vxt_chunk_info *ci = vxt_reader_piece(a->m.rd, c);

		for (uint32_t k = 0; k < ci->nobjagg; k++) {
			const struct vxt_objagg *g = &ci->objagg[k];
			struct vr_objrow *o;

			if (g->object >= nobj)
				continue;
			o = &a->objrows[g->object];
			for (int op = 0; op < VXT_OP_COUNT; op++)
				o->ios += g->ios[op];
			o->reads += g->ios[VXT_OP_READ];
			o->writes += g->ios[VXT_OP_WRITE];
			o->bytes += g->bytes_read + g->bytes_written;
			o->errors += g->errors;
			o->lat_sum += g->lat_sum_ns;
		}
	}
}

/* The rows of the table: under a filter, of the events it shows; else of
 * the whole file. */
static void build_objrows(struct vr_app *a)
{
	size_t nobj = vxt_objtab_count(vxt_reader_objects(a->m.rd));

	free(a->objrows);
	a->objrows = calloc(nobj ? nobj : 1, sizeof(*a->objrows));
	a->nobjrows = 0;
	if (!a->objrows)
		return;
	for (size_t i = 0; i < nobj; i++)
		a->objrows[i].id = (uint32_t)i;
	if (a->m.view.match)
		objrows_filtered(a, nobj);
	else
		objrows_index(a, nobj);
	/* busiest first (insertion sort: object tables are small) */
	for (size_t i = 1; i < nobj; i++) {
		struct vr_objrow t = a->objrows[i];
		size_t j = i;

		for (; j > 0 && a->objrows[j - 1].ios < t.ios; j--)
			a->objrows[j] = a->objrows[j - 1];
		a->objrows[j] = t;
	}
	a->nobjrows = nobj;
}

static void obj_cell(void *ctx, size_t row, int col, char *buf, size_t size, int *role)
{
	struct vr_app *a = ctx;
	const struct vr_objrow *o = &a->objrows[row];
	const struct vxt_object *ob = vxt_objtab_get(vxt_reader_objects(a->m.rd), o->id);

	switch (col) {
	case 0: snprintf(buf, size, "%s", ob ? ob->name : "?"); break;
	case 1: snprintf(buf, size, "%s", ob ? vxt_obj_kind_name(ob->kind) : ""); break;
	case 2: snprintf(buf, size, "%" PRIu64, o->ios); break;
	case 3: snprintf(buf, size, "%" PRIu64, o->reads); break;
	case 4: snprintf(buf, size, "%" PRIu64, o->writes); break;
	case 5: vxt_format_size(o->bytes, buf, size); break;
	case 6: snprintf(buf, size, "%" PRIu64, o->errors); break;
	case 7: vxt_format_duration(o->ios ? o->lat_sum / o->ios : 0, buf, size); break;
	default: break;
	}
	if (col == 0 && o->errors)
		*role = TUI_R_ERROR;
}

/* The filter shown and "object == NAME": both (a filter already there is kept). */
static void filter_with_object(const struct vr_app *a, const char *name, char *buf, size_t size)
{
	size_t n = 0;

	if (a->m.filter_src[0])
		n = (size_t)snprintf(buf, size, "(%s) && ", a->m.filter_src);
	if (n >= size)
		n = 0;
	n += (size_t)snprintf(buf + n, size - n, "object == \"");
	for (const char *p = name; *p && n + 4 < size; p++) {
		if (*p == '"' || *p == '\\')
			buf[n++] = '\\';
		buf[n++] = *p;
	}
	snprintf(buf + n, size - n, "\"");
}

static int obj_key(void *ctx, struct tui_table *t, int key)
{
	struct vr_app *a = ctx;
	const struct vxt_object *ob;
	char expr[sizeof(a->m.filter_src) + 160], err[256];

	if (!a->nobjrows)
		return TUI_IGNORED;
	ob = vxt_objtab_get(vxt_reader_objects(a->m.rd), a->objrows[t->list.sel].id);
	if (!ob)
		return TUI_IGNORED;
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		filter_with_object(a, ob->name, expr, sizeof(expr));
		if (strlen(expr) >= sizeof(a->m.filter_src))
			tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "filter too long (%zu bytes, at most %zu)",
				       strlen(expr), sizeof(a->m.filter_src) - 1);
		else if (vr_apply_filter(a, expr, err, sizeof(err)) < 0)
			tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "%s", err);
		else
			tui_screen_msg(&a->scr, TUI_R_MSG, "filter: %s", expr);
		return TUI_CLOSE | TUI_REDRAW;
	}
	if (key == 'l') {
		vr_model_set_lba(&a->m, true, ob->id);
		a->hm_top = 0;
		return TUI_CLOSE | TUI_RELAYOUT;
	}
	return TUI_IGNORED;
}

int vr_open_objects(struct vr_app *a)
{
	const struct vr_view *v = &a->m.view;
	size_t bad = 0;
	char more[96] = "";

	build_objrows(a);
	for (size_t i = 0; i < v->nstate; i++)
		bad += v->chunk_state[i] == VR_CHUNK_DAMAGED;
	if (v->match && v->known < v->nchunks)
		snprintf(more, sizeof(more), " (counted %zu of %zu chunks so far: o again updates)",
			 v->known, v->nchunks);
	else if (bad)
		snprintf(more, sizeof(more), " (%zu damaged chunk%s left out)", bad,
			 bad == 1 ? "" : "s");
	a->objects.list.n = a->nobjrows;
	if (v->match)
		snprintf(a->objects.status, sizeof(a->objects.status),
			 "filtered: %.40s%s  Enter: add to the filter  l: LBA  Esc: close",
			 a->m.filter_src, more);
	else
		snprintf(a->objects.status, sizeof(a->objects.status),
			 "whole file  Enter: filter to it  l: LBA heatmap  Esc: close");
	tui_screen_push(&a->scr, &a->objects.panel);
	return TUI_REDRAW;
}

/* ---- marks ---- */

static const struct tui_column mark_cols[] = {
	{ "#", 4, TUI_RIGHT }, { "EVENT", 12, TUI_RIGHT }, { "TIME", 14, TUI_RIGHT },
	{ "OBJECT", 10, TUI_LEFT }, { "OP", 8, TUI_LEFT }, { "STATUS", 10, TUI_LEFT },
};

static void mark_cell(void *ctx, size_t row, int col, char *buf, size_t size, int *role)
{
	struct vr_app *a = ctx;
	const struct vr_mark *mk = &a->m.marks[row];
	const struct vxt_event *ev;
	const char *en;

	switch (col) {
	case 0: snprintf(buf, size, "%zu", row + 1); return;
	case 1: snprintf(buf, size, "#%" PRIu64, mk->ord); return;
	case 2: vr_reltime(a, mk->time_ns, buf, size); return;
	default: break;
	}
	if (vr_view_get(&a->m.view, mk->ord, &ev) != 1)
		return;
	if (col == 3)
		snprintf(buf, size, "%s", vr_objname(a, ev->object));
	else if (col == 4)
		snprintf(buf, size, "%s", vxt_op_name(ev->op));
	else if (col == 5) {
		en = vxt_errno_name(ev->error);
		snprintf(buf, size, "%s", ev->error ? (en ? en : "error") : "ok");
		if (ev->error)
			*role = TUI_R_ERROR;
	}
}

static int mark_key(void *ctx, struct tui_table *t, int key)
{
	struct vr_app *a = ctx;

	if (!a->m.nmarks)
		return TUI_IGNORED;
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		vr_model_goto_ord(&a->m, a->m.marks[t->list.sel].ord);
		return TUI_CLOSE | TUI_REDRAW;
	}
	if (key == 'd' || key == KEY_DC) {
		unsigned i = (unsigned)t->list.sel;

		vr_model_delete_mark(&a->m, i);
		t->list.n = a->m.nmarks;
		vr_show_note(a);
		return TUI_REDRAW;
	}
	return TUI_IGNORED;
}

int vr_open_marks(struct vr_app *a)
{
	if (!a->m.nmarks) {
		tui_screen_msg(&a->scr, TUI_R_MSG, "no marks yet (m marks the event)");
		return TUI_REDRAW;
	}
	a->markt.list.n = a->m.nmarks;
	/* start on the last mark at or before the cursor */
	a->markt.list.sel = 0;
	a->markt.list.top = 0;
	for (unsigned i = 0; i < a->m.nmarks; i++)
		if (a->m.has_sel && a->m.marks[i].ord <= a->m.sel)
			a->markt.list.sel = i;
	snprintf(a->markt.status, sizeof(a->markt.status), "Enter: go there  d: delete  Esc: close");
	tui_screen_push(&a->scr, &a->markt.panel);
	return TUI_REDRAW;
}

/* ---- profiles ---- */

#define VR_MAX_PROFILES 128

static const struct tui_column prof_cols[] = {
	{ "PROFILE", 32, TUI_LEFT }, { "DESCRIPTION", 1, TUI_LEFT },
};

static void prof_cell(void *ctx, size_t row, int col, char *buf, size_t size, int *role)
{
	struct vr_app *a = ctx;
	const char *name = row == 0 ? "(none)" : a->profnames[row - 1];

	if (row == (size_t)a->nprof + 1) {	/* the last row asks for a file */
		snprintf(buf, size, "%s", col == 1 ? "a .d script or a .yaml profile by its path" :
			 "(a file...)");
		return;
	}

	if (col == 1) {
		snprintf(buf, size, "%s", row == 0 ? "no profile: every event, the default panels" :
			 a->profdesc[row - 1]);
		return;
	}
	snprintf(buf, size, "%s%s", name,
		 (row == 0 ? !a->m.profile[0] : !strcmp(name, a->m.profile)) ? "  (applied)" : "");
	if (row && !strcmp(name, a->m.profile))
		*role = TUI_R_HEADER_VALUE;
}

static int prof_file_done(void *app, const char *text, char *err, size_t errsz)
{
	struct vr_app *a = app;

	if (!*text)
		return TUI_CLOSE;
	if (vr_apply_profile(a, text, err, errsz) < 0)
		return TUI_REDRAW;	/* the prompt stays open with the message */
	if (a->m.note[0])	/* what the script says at load */
		vr_show_note(a);
	else
		tui_screen_msg(&a->scr, TUI_R_MSG, "%s %s", vr_script_is_name(text) ? "script" :
			       "profile", a->m.profile);
	return TUI_CLOSE | TUI_RELAYOUT;
}

static int prof_key(void *ctx, struct tui_table *t, int key)
{
	struct vr_app *a = ctx;
	char err[VXT_ERRBUF_SIZE];
	const char *name;

	if (key != '\r' && key != '\n' && key != KEY_ENTER)
		return TUI_IGNORED;
	if (t->list.sel == (size_t)a->nprof + 1) {
		tui_screen_prompt(&a->scr, "Script or profile file: ", "", prof_file_done);
		return TUI_CLOSE | TUI_REDRAW;
	}
	name = t->list.sel == 0 ? "" : a->profnames[t->list.sel - 1];
	if (vr_apply_profile(a, name, err, sizeof(err)) < 0) {
		tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "%s", err);
		return TUI_CLOSE | TUI_REDRAW;
	}
	if (a->m.note[0])	/* what the script says at load */
		vr_show_note(a);
	else
		tui_screen_msg(&a->scr, TUI_R_MSG, !*name ? "no profile%s" :
			       vr_script_is_name(name) ? "script %s" : "profile %s", name);
	return TUI_CLOSE | TUI_RELAYOUT;
}

int vr_open_profiles(struct vr_app *a)
{
	int nyaml;

	if (!a->profnames)
		a->profnames = calloc(VR_MAX_PROFILES, sizeof(*a->profnames));
	if (!a->profnames)
		return TUI_NONE;
	if (!a->profdesc)
		a->profdesc = calloc(VR_MAX_PROFILES, sizeof(*a->profdesc));
	if (!a->profdesc)
		return TUI_NONE;
	a->nprof = vr_profile_names(&a->m, a->profnames, VR_MAX_PROFILES);
	nyaml = a->nprof;
	a->nprof += vr_script_names(&a->m, a->profnames + a->nprof, VR_MAX_PROFILES - a->nprof);
	for (int i = 0; i < a->nprof; i++)
		if (i < nyaml)
			vr_profile_describe(&a->m, a->profnames[i], a->profdesc[i],
					    sizeof(a->profdesc[i]));
		else
			vr_script_describe(&a->m, a->profnames[i], a->profdesc[i],
					   sizeof(a->profdesc[i]));
	a->proft.list.n = (size_t)a->nprof + 2;
	a->proft.list.sel = 0;
	for (int i = 0; i < a->nprof; i++)
		if (!strcmp(a->profnames[i], a->m.profile))
			a->proft.list.sel = (size_t)i + 1;
	snprintf(a->proft.status, sizeof(a->proft.status), "%d found  Enter: apply  Esc: close",
		 a->nprof);
	tui_screen_push(&a->scr, &a->proft.panel);
	return TUI_REDRAW;
}

void vr_overlays_init(struct vr_app *a)
{
	tui_table_init(&a->proft, "Profiles", prof_cols,
		       (int)(sizeof(prof_cols) / sizeof(prof_cols[0])), prof_cell, a);
	a->proft.on_key = prof_key;
	a->detail = (struct tui_panel){ .ops = &detail_ops, .data = a, .visible = true };
	tui_table_init(&a->objects, "Objects", obj_cols,
		       (int)(sizeof(obj_cols) / sizeof(obj_cols[0])), obj_cell, a);
	a->objects.on_key = obj_key;
	tui_table_init(&a->markt, "Marks", mark_cols,
		       (int)(sizeof(mark_cols) / sizeof(mark_cols[0])), mark_cell, a);
	a->markt.on_key = mark_key;
}

void vr_overlays_free(struct vr_app *a)
{
	free(a->objrows);
	a->objrows = NULL;
	free(a->profnames);
	a->profnames = NULL;
	free(a->profdesc);
	a->profdesc = NULL;
}
