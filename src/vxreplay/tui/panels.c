/* panels.c - vxreplay's browser panels: header, list; layout
 * Over 700 lines: header, list and layout draw from one screen state and must agree on its rows.
 *
 * Each panel is a const table {draw, on_key, on_mouse}; the layout function
 * places them. The timeline (tlpanel.c) and the heatmap (heatpanel.c) share one time
 * axis: both start after a VR_LABEL_W label column; the timeline has a column
 * per bin, the heatmap too unless a profile gives it fewer, wider bins.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"
#include "browser/pairjob.h"

char *vr_reltime(const struct vr_app *a, uint64_t t, char *buf, size_t size)
{
	uint64_t base = a->m.t_first, d = t >= base ? t - base : base - t;

	snprintf(buf, size, "%s%" PRIu64 ".%06" PRIu64, t >= base ? "" : "-", d / VXT_NSEC_PER_SEC,
		 d % VXT_NSEC_PER_SEC / 1000);
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

/* The chunks known damaged: "chunk 7 skipped, 21845 events lost" or
 * "3 chunks skipped (7 9 12), 65535 events lost". @return how many. */
static size_t damage_summary(const struct vr_model *m, char *buf, size_t size)
{
	const struct vr_view *v = &m->view;
	char list[64] = "";
	size_t nbad = 0, first = 0, ln = 0;
	uint64_t lost = 0;

	for (size_t i = 0; i < v->nstate && i < vxt_reader_nchunks(m->rd); i++) {
		if (v->chunk_state[i] != VR_CHUNK_DAMAGED)
			continue;
		if (!nbad++)
			first = i;
		lost += vxt_reader_chunk_fixed(m->rd, i)->nevents;
		if (ln < sizeof(list) - 8)
			ln += (size_t)snprintf(list + ln, sizeof(list) - ln, "%s%zu", ln ? " " : "", i);
		else if (ln < sizeof(list) - 4)
			ln += (size_t)snprintf(list + ln, sizeof(list) - ln, " ...");
	}
	if (nbad == 1)
		snprintf(buf, size, "chunk %zu skipped, %" PRIu64 " events lost", first, lost);
	else if (nbad)
		snprintf(buf, size, "%zu chunks skipped (%s), %" PRIu64 " events lost", nbad, list,
			 lost);
	return nbad;
}

static void header_line2(struct vr_app *a, const struct tui_rect *r)
{
	char dmg[160];
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
	if (damage_summary(m, dmg, sizeof(dmg)))
		x = field(y, x, w, "damaged", TUI_R_ERROR, "%s", dmg);
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
	if (m->profile[0])
		x = field(y, x, w, "profile", TUI_R_HEADER_VALUE, "%s", m->profile);
	else if (m->view.spec_on)	/* s without a profile runs errors-in-context's rules */
		x = field(y, x, w, "profile", TUI_R_HEADER_VALUE, "none (s runs %s)",
			  m->spec_name);
	else
		x = field(y, x, w, "profile", TUI_R_DIM, "none");
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

/* ---- event list ---- */

/* Every column the list can show; a profile picks some by name. */
static const struct vr_coldef {
	const char *name;
	struct tui_column col;
} coldefs[VR_COL_COUNT] = {
	[VR_COL_TIME] = { "time", { "TIME", 12, TUI_RIGHT } },
	[VR_COL_WALL] = { "wall", { "WALL CLOCK", 16, TUI_RIGHT } },
	[VR_COL_OBJECT] = { "object", { "OBJECT", 9, TUI_LEFT } },
	[VR_COL_DEV] = { "dev", { "DEV", 8, TUI_LEFT } },
	[VR_COL_PHASE] = { "phase", { "PHASE", 6, TUI_LEFT } },
	[VR_COL_OP] = { "op", { "OP", 6, TUI_LEFT } },
	[VR_COL_FLAGS] = { "flags", { "FLAGS", 10, TUI_LEFT } },
	[VR_COL_SECTOR] = { "sector", { "SECTOR", 12, TUI_RIGHT } },
	[VR_COL_BYTES] = { "bytes", { "SIZE", 7, TUI_RIGHT } },
	[VR_COL_LATENCY] = { "latency", { "LATENCY", 9, TUI_RIGHT } },
	[VR_COL_ERROR] = { "error", { "STATUS", 10, TUI_RIGHT } },
	[VR_COL_PID] = { "pid", { "PID", 7, TUI_RIGHT } },
	[VR_COL_COMM] = { "comm", { "COMM", 16, TUI_LEFT } },
	[VR_COL_CPU] = { "cpu", { "CPU", 4, TUI_RIGHT } },
	[VR_COL_SPEC] = { "spec", { "SPEC", 6, TUI_RIGHT } },
	[VR_COL_MARK] = { "mark", { " ", 2, TUI_LEFT } },
	[VR_COL_ISSUE] = { "issue", { "ISSUED", 12, TUI_RIGHT } },
	[VR_COL_Q2C] = { "q2c", { "Q2C", 9, TUI_RIGHT } },
	[VR_COL_QUEUED] = { "queued", { "QUEUED", 12, TUI_RIGHT } },
	[VR_COL_Q2D] = { "q2d", { "QUEUE", 9, TUI_RIGHT } },
	[VR_COL_D2C] = { "d2c", { "D2C", 9, TUI_RIGHT } },
	[VR_COL_I2D] = { "i2d", { "I2D", 9, TUI_RIGHT } },
	[VR_COL_Q2G] = { "q2g", { "Q2G", 9, TUI_RIGHT } },
	[VR_COL_G2I] = { "g2i", { "G2I", 9, TUI_RIGHT } },
};

static const uint8_t default_cols[] = {
	VR_COL_TIME, VR_COL_OBJECT, VR_COL_PHASE, VR_COL_OP, VR_COL_SECTOR, VR_COL_BYTES,
	VR_COL_LATENCY, VR_COL_ERROR, VR_COL_PID, VR_COL_COMM,
};

int vr_column_parse(const char *name)
{
	for (int c = 0; c < VR_COL_COUNT; c++)
		if (c != VR_COL_ISSUE && c != VR_COL_QUEUED && !strcmp(coldefs[c].name, name))
			return c;	/* a profile names the intervals, not the phase times */
	return -1;
}

/* The object column's width: its 9 cells, or the longest name's and a gap
 * (host:object names of several hosts' files), up to a name's 31 bytes. */
static int object_width(const struct vr_app *a)
{
	const struct vxt_objtab *t = vxt_reader_objects(a->m.rd);
	size_t n = vxt_objtab_count(t), w = 8;

	for (size_t i = 0; i < n && w < VXT_OBJ_NAME_MAX - 1; i++) {
		size_t len = strlen(vxt_objtab_get(t, (uint32_t)i)->name);

		w = len > w ? len : w;
	}
	return (int)(w < VXT_OBJ_NAME_MAX - 1 ? w : VXT_OBJ_NAME_MAX - 1) + 1;
}

/* The columns shown: the profile's or the default, the speculation first
 * when it is on, the mark after the time. @return how many. */
static int columns(const struct vr_app *a, uint8_t *out, struct tui_column *cols)
{
	/* the I/O listing: when it was issued and completed, its latencies */
	static const uint8_t io_cols[] = {
		VR_COL_ISSUE, VR_COL_TIME, VR_COL_LATENCY, VR_COL_Q2C, VR_COL_OBJECT, VR_COL_OP,
		VR_COL_SECTOR, VR_COL_BYTES, VR_COL_ERROR, VR_COL_PID, VR_COL_COMM,
	};
	/* ... with every phase of each I/O when the trace has them */
	static const uint8_t io_phase_cols[] = {
		VR_COL_QUEUED, VR_COL_ISSUE, VR_COL_TIME, VR_COL_Q2C, VR_COL_Q2D, VR_COL_D2C,
		VR_COL_I2D, VR_COL_Q2G, VR_COL_G2I, VR_COL_OBJECT, VR_COL_OP, VR_COL_SECTOR, VR_COL_BYTES,
		VR_COL_ERROR, VR_COL_PID, VR_COL_COMM,
	};
	/* the event list: a completion's Q2C and queue time beside its D2C */
	static const uint8_t phase_cols[] = {
		VR_COL_TIME, VR_COL_OBJECT, VR_COL_PHASE, VR_COL_OP, VR_COL_SECTOR, VR_COL_BYTES,
		VR_COL_LATENCY, VR_COL_Q2C, VR_COL_Q2D, VR_COL_ERROR, VR_COL_PID, VR_COL_COMM,
	};
	bool ph = a->m.pair_state == VR_PAIR_RUNNING || a->m.pair_state == VR_PAIR_DONE;
	const uint8_t *src = a->m.io_only ? (ph ? io_phase_cols : io_cols) :
			     a->m.ncolumns ? a->m.columns : ph ? phase_cols : default_cols;
	unsigned ns = a->m.io_only ? (ph ? sizeof(io_phase_cols) : sizeof(io_cols)) :
		      a->m.ncolumns ? a->m.ncolumns : ph ? sizeof(phase_cols) : sizeof(default_cols);
	bool has_spec = false;
	int n = 0;

	for (unsigned i = 0; i < ns; i++)
		has_spec |= src[i] == VR_COL_SPEC;
	if (a->m.view.spec_on && !has_spec)
		out[n++] = VR_COL_SPEC;
	for (unsigned i = 0; i < ns && n < VR_MAX_COLS - 1; i++) {
		if (src[i] == VR_COL_SPEC && !a->m.view.spec_on)
			continue;
		out[n++] = src[i];
		if (src[i] == VR_COL_TIME)
			out[n++] = VR_COL_MARK;
	}
	for (int i = 0; i < n; i++) {
		cols[i] = coldefs[out[i]].col;
		if (out[i] == VR_COL_OBJECT)
			cols[i].width = object_width(a);
	}
	return n;
}

/* The columns that fit @w cells with the list scrolled sideways by
 * a->list_hcol columns: the time (and mark) columns stay, the scroll goes no
 * further than the last column fitting. *@more gets how many columns are out
 * of sight (scrolled off or not fitting). @return how many are shown. */
static int columns_shown(struct vr_app *a, int w, uint8_t *ids, struct tui_column *cols,
			 int *more)
{
	int n = columns(a, ids, cols), fixed = 0, fw = 0, rest = 0, max = 0, x = 0, cut = 0;

	for (int i = 0; i < n; i++)
		if (ids[i] == VR_COL_TIME) {
			fixed = i + 1 + (i + 1 < n && ids[i + 1] == VR_COL_MARK);
			break;
		}
	for (int i = 0; i < n; i++)
		*(i < fixed ? &fw : &rest) += cols[i].width;
	while (max < n - fixed - 1 && fw + rest > w)
		rest -= cols[fixed + max++].width;
	if (a->list_hcol > max)
		a->list_hcol = max;
	if (a->list_hcol < 0)
		a->list_hcol = 0;
	if (a->list_hcol) {
		memmove(ids + fixed, ids + fixed + a->list_hcol, (size_t)(n - fixed - a->list_hcol));
		memmove(cols + fixed, cols + fixed + a->list_hcol,
			(size_t)(n - fixed - a->list_hcol) * sizeof(*cols));
		n -= a->list_hcol;
	}
	for (int i = 0; i < n; i++) {
		x += cols[i].width - (i == n - 1);	/* the last one needs no gap after it */
		cut += x > w;
	}
	*more = a->list_hcol + cut;
	return n;
}

static void status_of(const struct vxt_event *ev, char *buf, size_t size)
{
	const char *n;

	if (ev->phase == VXT_PH_LOST) {
		snprintf(buf, size, "lost %" PRIu64, ev->sector);
		return;
	}
	if (!ev->error) {
		snprintf(buf, size, "%s", ev->phase == VXT_PH_DONE ? "ok" : "");
		return;
	}
	n = vxt_errno_name(ev->error);
	if (n)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "%d", ev->error);
}

/* A completion's phase time or interval from the pairing: "-" when that
 * phase was not paired (or not captured), "..." while the pass has not
 * reached it. */
static void phase_cell(struct vr_app *a, int col, uint64_t ord, const struct vxt_event *ev,
		       char *buf, size_t size)
{
	static const signed char iv[VR_COL_COUNT][2] = {
		[VR_COL_Q2C] = { VR_PH_Q, VR_PH_KINDS }, [VR_COL_Q2D] = { VR_PH_Q, VR_PH_D },
		[VR_COL_D2C] = { VR_PH_D, VR_PH_KINDS }, [VR_COL_I2D] = { VR_PH_I, VR_PH_D },
		[VR_COL_Q2G] = { VR_PH_Q, VR_PH_G }, [VR_COL_G2I] = { VR_PH_G, VR_PH_I },
	};
	struct vr_ioph_row r;
	uint64_t ns;
	int rc = vr_pair_get(&a->m, ord, ev, &r);

	if (rc == 0)
		return;
	if (rc < 0) {
		snprintf(buf, size, "...");
		return;
	}
	if (col == VR_COL_ISSUE || col == VR_COL_QUEUED) {
		ns = r.t[col == VR_COL_ISSUE ? VR_PH_D : VR_PH_Q];
		if (ns)
			vr_reltime(a, ns, buf, size);
		else
			snprintf(buf, size, "-");
		return;
	}
	if (vr_ioph_interval(&r, ev->time_ns, iv[col][0], iv[col][1], &ns))
		vxt_format_duration(ns, buf, size);
	else
		snprintf(buf, size, "-");
}

static void cell(struct vr_app *a, int col, uint64_t ord, const struct vxt_event *ev, long g,
		 char *buf, size_t size)
{
	const struct vxt_object *o;
	uint64_t lost_sector = 0;
	/* a lost event naming its I/O shows that I/O's object, op and place */
	bool named = vxt_event_lost_io(ev, &lost_sector);
	bool lost = ev->phase == VXT_PH_LOST && !named;

	buf[0] = 0;
	switch (col) {
	case VR_COL_TIME: vr_reltime(a, ev->time_ns, buf, size); break;
	case VR_COL_WALL:
		vxt_format_walltime(vxt_reader_to_real(a->m.rd, ev->time_ns), buf, size);
		break;
	case VR_COL_OBJECT: snprintf(buf, size, "%s", lost ? "-" : vr_objname(a, ev->object)); break;
	case VR_COL_DEV:
		o = vxt_objtab_get(vxt_reader_objects(a->m.rd), ev->object);
		if (o && !lost)
			snprintf(buf, size, "%u:%u", o->dev >> 20, o->dev & 0xfffff);
		break;
	case VR_COL_PHASE: snprintf(buf, size, "%s", vxt_phase_name(ev->phase)); break;
	case VR_COL_OP: snprintf(buf, size, "%s", lost ? "" : vxt_op_name(ev->op)); break;
	case VR_COL_FLAGS: vxt_flags_format(ev->flags, buf, size); break;
	case VR_COL_SECTOR:
		if (!lost)
			snprintf(buf, size, "%" PRIu64, named ? lost_sector : ev->sector);
		break;
	case VR_COL_BYTES:
		if (!lost)
			vxt_format_size(ev->bytes, buf, size);
		break;
	case VR_COL_LATENCY:
		if (ev->phase == VXT_PH_DONE)
			vxt_format_duration(ev->latency_ns, buf, size);
		break;
	case VR_COL_ERROR: status_of(ev, buf, size); break;
	case VR_COL_PID: snprintf(buf, size, "%u", ev->pid); break;
	case VR_COL_COMM:
		snprintf(buf, size, "%s", vxt_strtab_get(vxt_reader_strings(a->m.rd), ev->comm));
		break;
	case VR_COL_CPU: snprintf(buf, size, "%u", ev->cpu); break;
	case VR_COL_SPEC: if (g >= 0) snprintf(buf, size, "%ld", g); break;
	case VR_COL_ISSUE: case VR_COL_QUEUED: case VR_COL_Q2C: case VR_COL_Q2D:
	case VR_COL_D2C: case VR_COL_I2D: case VR_COL_Q2G: case VR_COL_G2I:
		phase_cell(a, col, ord, ev, buf, size);
		break;
	case VR_COL_MARK:
		snprintf(buf, size, "%s", vr_model_is_marked(&a->m, ord) ? tui_glyphs->mark : "");
		break;
	}
}

static int row_role(const struct vr_app *a, const struct vxt_event *ev, long g, bool sel,
		    bool focused)
{
	int role = TUI_R_NORMAL;

	if (ev->error)
		role = TUI_R_ERROR;
	else if (ev->phase == VXT_PH_LOST)
		role = TUI_R_WARN;
	else if (a->m.lat_crit_ns && ev->phase == VXT_PH_DONE && ev->latency_ns >= a->m.lat_crit_ns)
		role = TUI_R_WARN;
	else if (g >= 0 && (g & 1))
		role = TUI_R_DIM;
	if (sel)
		role = !focused ? TUI_R_SELECTED_DIM : (ev->error ? TUI_R_ERROR_SEL : TUI_R_SELECTED);
	return role;
}

/* The row of a damaged chunk: "── chunk 6 damaged: 20000 events lost
 * (1.500000s - 1.750000s) ──", across the list. */
static void gap_row(struct vr_app *a, int y, const struct tui_rect *r, uint64_t ord, bool sel,
		    bool focused)
{
	long gap = vr_view_gap(&a->m.view, ord);
	const struct vxt_chunk_info *ci;
	char t0[32], t1[32], text[160];
	int n, x;

	if (gap < 0)
		return;
	ci = vxt_reader_chunk_fixed(a->m.rd, (size_t)gap);
	snprintf(text, sizeof(text), " chunk %ld damaged: %u event%s lost (%ss - %ss) ", gap,
		 ci->nevents, ci->nevents == 1 ? "" : "s", vr_reltime(a, ci->first_ns, t0, sizeof(t0)),
		 vr_reltime(a, ci->last_ns, t1, sizeof(t1)));
	n = sel ? (focused ? TUI_R_ERROR_SEL : TUI_R_SELECTED_DIM) : TUI_R_ERROR;
	for (x = 0; x < r->w; x++)
		tui_puts(y, r->x + x, 1, n, tui_glyphs->hline);
	tui_puts(y, r->x + 2, r->w - 4, n, text);
}

static void list_row(struct vr_app *a, int y, const struct tui_rect *r, uint64_t ord,
		     bool sel, bool focused)
{
	uint8_t ids[VR_MAX_COLS];
	struct tui_column cols[VR_MAX_COLS];
	char c[VR_MAX_COLS][48];
	const char *cells[VR_MAX_COLS];
	const struct vxt_event *ev;
	int more, n = columns_shown(a, r->w, ids, cols, &more);
	long g = -1;

	if (vr_view_get(&a->m.view, ord, &ev) != 1) {
		gap_row(a, y, r, ord, sel, focused);
		return;
	}
	if (a->m.view.spec_on)
		g = vr_spec_group_of(&a->m.view.spec, ord);
	for (int i = 0; i < n; i++) {
		cell(a, ids[i], ord, ev, g, c[i], sizeof(c[i]));
		cells[i] = c[i];
	}
	tui_columns_row(y, r->x, r->w, cols, n, cells, row_role(a, ev, g, sel, focused));
}

/* The error a speculation group was committed for: its own first error, else
 * the nearest error on the same object in the view (a commit's follow-up
 * events can make a group of their own). @return its ordinal or UINT64_MAX. */
static uint64_t group_error(struct vr_app *a, long g, uint32_t object)
{
	const struct vr_spec_set *s = &a->m.view.spec;
	const struct vxt_event *ev;
	size_t k, lo;

	if (s->trigger[g] != UINT64_MAX)
		return s->trigger[g];
	lo = vxt_lower_bound_u64(s->ord, s->n, a->m.sel);
	for (size_t d = 0; d < 20000; d++) {
		bool any = false;

		if (lo >= d + 1) {
			k = lo - d - 1;
			any = true;
			if (vr_view_get(&a->m.view, s->ord[k], &ev) == 1 && ev->error &&
			    ev->object == object)
				return s->ord[k];
		}
		if (lo + d < s->n) {
			k = lo + d;
			any = true;
			if (vr_view_get(&a->m.view, s->ord[k], &ev) == 1 && ev->error &&
			    ev->object == object)
				return s->ord[k];
		}
		if (!any)
			break;
	}
	return UINT64_MAX;
}

/* The speculation of the cursor and the error it was committed for. */
static void spec_status(struct vr_app *a, char *buf, size_t size)
{
	const struct vr_spec_set *s = &a->m.view.spec;
	long g = a->m.has_sel ? vr_spec_group_of(s, a->m.sel) : -1;
	const struct vxt_event *ev;
	uint64_t trig;
	char t[32];

	buf[0] = 0;
	if (g < 0 || (size_t)g >= s->ngroups || vr_view_get(&a->m.view, a->m.sel, &ev) != 1)
		return;
	trig = group_error(a, g, ev->object);
	if (trig == UINT64_MAX || vr_view_get(&a->m.view, trig, &ev) != 1)
		return;
	snprintf(buf, size, "spec %ld: %s on %s at %ss  ", g,
		 vxt_errno_name(ev->error) ? vxt_errno_name(ev->error) : "error",
		 vr_objname(a, ev->object), vr_reltime(a, ev->time_ns, t, sizeof(t)));
}

static void list_draw(struct tui_panel *p, bool focused)
{
	struct vr_app *a = p->data;
	struct vr_model *m = &a->m;
	char t[240], pos[200], sp[128];
	uint8_t ids[VR_MAX_COLS];
	struct tui_column cols[VR_MAX_COLS];
	int more, all = columns(a, ids, cols), ncols = columns_shown(a, p->r.w, ids, cols, &more);
	bool complete;
	uint64_t shown = vr_view_shown(&m->view, &complete);
	int rows = p->r.h - 2;

	if (m->pair_state == VR_PAIR_NONE)
		vr_pair_want(m);
	snprintf(t, sizeof(t), "%s%s%s%s%s", m->io_only ?
		 (m->pair_state == VR_PAIR_RUNNING || m->pair_state == VR_PAIR_DONE ?
		  "Completed I/Os, each with its own phases (- = not paired)" :
		  "Completed I/Os (LATENCY = D2C; Q2C not captured)") : "Events",
		 m->view.spec_on ? " committed by speculation" : "",
		 m->filter_src[0] ? " (filtered)" : "", a->hidden[0] ? "  " : "", a->hidden);
	if (more)
		snprintf(t + strlen(t), sizeof(t) - strlen(t), "  %d of %d columns (Left/Right)",
			 all - more, all);

	sp[0] = 0;
	if (m->view.spec_on)
		spec_status(a, sp, sizeof(sp));
	if (m->has_sel)
		snprintf(pos, sizeof(pos), "%s#%" PRIu64 "  %s%" PRIu64 " shown", sp, m->sel,
			 complete ? "" : ">=", shown);
	else
		snprintf(pos, sizeof(pos), "nothing shown");
	tui_title(&p->r, focused, t, pos);
	if (rows < 1)
		return;
	tui_columns_head(p->r.y + 1, p->r.x, p->r.w, cols, ncols);
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
	case KEY_RIGHT:		/* the columns sideways (columns_shown() bounds it) */
		a->list_hcol++;
		break;
	case KEY_LEFT:
		a->list_hcol--;
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
	a->timeline = (struct tui_panel){ .ops = &vr_timeline_ops, .data = a, .visible = true,
					  .focusable = true };
	a->heatmap = (struct tui_panel){ .ops = &vr_heatmap_ops, .data = a, .visible = true,
					 .focusable = true };
	a->list = (struct tui_panel){ .ops = &list_ops, .data = a, .visible = true,
				      .focusable = true };
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* Heatmap rows outside [from, to) whose objects have errors in the window:
 * "sdb 30, sda 5", most errors first, into @buf. @return how many rows. */
int vr_heat_hidden_errors(const struct vr_app *a, int from, int to, char *buf, size_t size)
{
	const struct vxt_timeline *tl = vr_model_heat_timeline(&a->m);
	unsigned row[VR_LBA_ROWS_MAX > VR_MAX_ROWS ? VR_LBA_ROWS_MAX : VR_MAX_ROWS];
	uint64_t err[sizeof(row) / sizeof(row[0])];
	size_t n = 0;
	int found = 0;

	buf[0] = 0;
	for (unsigned r = 0; r < tl->nrows && tl->cells && (size_t)found < sizeof(row) / sizeof(row[0]);
	     r++) {
		uint64_t e = 0;
		int k;

		if ((int)r >= from && (int)r < to)
			continue;
		for (unsigned b = 0; b < tl->nbins; b++)
			e += tl->cells[(size_t)r * tl->nbins + b].errors;
		if (!e)
			continue;
		for (k = found++; k > 0 && err[k - 1] < e; k--) {
			err[k] = err[k - 1];
			row[k] = row[k - 1];
		}
		err[k] = e;
		row[k] = r;
	}
	for (int k = 0; k < found && n < size; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s %" PRIu64, k ? ", " : "",
				      tl->mode == VXT_TL_ROWS_LBA ? a->label_buf[row[k]] :
				      vr_objname(a, tl->row_obj[row[k]]), err[k]);
	return found;
}

/* The panels share the height by priority: the event list keeps
 * VR_LIST_MIN rows, then the timeline, then the heatmap get what they want
 * of the rest. A timeline that does not get VR_PANEL_MIN rows is hidden and
 * the list's title says so (a->hidden); a heatmap that does not becomes one
 * row saying why and which objects have errors (a->hm_need), taken from the
 * list when nothing is left (the list then has four events). */
#define VR_LIST_MIN	7	/* title, heading and five events */
#define VR_PANEL_MIN	3

void vr_layout(void *app, struct tui_screen *s, int lines, int cols)
{
	struct vr_app *a = app;
	int avail = lines - 1 - 3, y = 3, tl_h, hm_h, left;
	unsigned rows = a->m.lba ? (a->m.lba_rows ? a->m.lba_rows : VR_LBA_ROWS) : a->m.nrows;
	int tl_want = vr_timeline_compact(a) ? 3 : clampi(avail / 4, 5, 12);
	int hm_want = clampi(avail / 4, 2, (int)(rows ? rows : 1)) + 2;

	vr_pair_want(&a->m);	/* the list's phase columns need it from the start */

	(void)s;
	a->header.r = (struct tui_rect){ 0, 0, 3, cols };
	a->hidden[0] = 0;
	a->hm_need = 0;
	left = avail - VR_LIST_MIN;
	tl_h = tl_want < left ? tl_want : (left > 0 ? left : 0);
	if (tl_h < VR_PANEL_MIN) {
		snprintf(a->hidden, sizeof(a->hidden), "timeline hidden: %d more row%s needed",
			 VR_PANEL_MIN - tl_h, VR_PANEL_MIN - tl_h == 1 ? "" : "s");
		tl_h = 0;
	}
	left -= tl_h;
	hm_h = hm_want < left ? hm_want : left;
	if (hm_h < VR_PANEL_MIN) {
		/* one row says what is hidden: from what is left, else the list
		 * (the timeline's smallest plot, a bar row and its labels, stays) */
		a->hm_need = VR_PANEL_MIN - (hm_h > 0 ? hm_h : 0);
		hm_h = 1;
	}
	a->timeline.r = (struct tui_rect){ y, 0, tl_h, cols };
	a->timeline.visible = tl_h > 0;
	y += tl_h;
	a->heatmap.r = (struct tui_rect){ y, 0, hm_h, cols };
	a->heatmap.visible = true;
	a->heatmap.focusable = a->hm_need == 0;
	if (!a->hm_need)
		vr_lba_set_fit(&a->m, (unsigned)(hm_h > 2 ? hm_h - 2 : 1));
	y += hm_h;
	a->list.r = (struct tui_rect){ y, 0, lines - 1 - y, cols };
	vr_model_set_page(&a->m, (unsigned)clampi(a->list.r.h - 2, 1, VR_LIST_MAX));
	vr_model_set_window(&a->m, a->m.w0, a->m.w1, (unsigned)clampi(cols - VR_LABEL_W - 1, 1, 4096));
}
