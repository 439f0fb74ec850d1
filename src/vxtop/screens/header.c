/* header.c - vxtop's header: two lines of fields, never cut
 *
 * The fields come in order of importance (source, interval, uptime, event
 * rate, lost, errors, totals; then the screen, sort, filter, objects, the
 * moment shown, the profile and its speculation counters). Each is put
 * whole where it fits, on the first line or the second, or left out whole;
 * below 80 columns the labels shorten. PAUSED and "source ended" keep their
 * place at the right of the second line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui.h"
#include "vxtrace/profile.h"

struct field {
	char text[96];
	int role;
	int plain;		/* the first @plain bytes (a label) are drawn plain */
};

struct flow {
	int y, x, last;		/* the line, the next column, the last line to use */
	int right;		/* columns kept free at the right of the first line */
};

/* Put @f at the next place it fits whole: on this line or the next one.
 * @return false when it fits nowhere (it is left out). */
static bool flow_put(struct flow *fl, const struct field *f)
{
	int w = (int)strlen(f->text), sep = fl->x ? 2 : 0;

	for (;;) {
		int limit = COLS - (fl->y == 1 ? fl->right : 0);

		if (fl->x + sep + w <= limit) {
			top_print(fl->y, fl->x + sep, f->plain, TUI_R_NORMAL, "%.*s", f->plain,
				  f->text);
			top_print(fl->y, fl->x + sep + f->plain, w - f->plain, f->role, "%s",
				  f->text + f->plain);
			fl->x += sep + w;
			return true;
		}
		if (fl->y >= fl->last || fl->x == 0)
			return false;
		fl->y++;
		fl->x = 0;
		sep = 0;
	}
}

static void field(struct field *f, int role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void field(struct field *f, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	f->role = role;
	f->plain = 0;
}

void top_header_draw(struct tui_panel *p, bool focused)
{
	struct top *t = p->data;
	const struct vxtop_snap *s = vxtop_model_snap(&t->c->model, 0);
	const struct vxtop_snap *shown = vxtop_shown_snap(&t->v, 0);
	double up = vxtop_collect_uptime(t->c);
	double sec = s ? (double)(s->end_ns - s->start_ns) / VXT_NSEC_PER_SEC : 0;
	uint64_t lost = vxtop_collect_lost(t->c);
	unsigned u = (unsigned)up;
	char iv[32], rate[32], tot[32], when[32], nb[VXT_ESCAPE_MAX(40)];
	struct field f[16];
	struct flow fl = { .y = p->r.y, .last = p->r.y + p->r.h - 1 };
	int n = 0, flags = 0;
	bool narrow = COLS < 80;	/* short labels: the fields stay whole */

	(void)focused;
	/* the header comes first: the rows of the moment drawn are built here */
	vxtop_shown_rows(&t->v);
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		top_print(0, 0, -1, TUI_R_NORMAL, "vxtop: terminal too small (%dx%d)", COLS, LINES);
		return;
	}
	vxt_format_duration(t->c->model.interval_ns, iv, sizeof(iv));
	vxtop_fmt_rate(s && sec > 0 ? s->events / sec : 0, rate, sizeof(rate));
	vxtop_fmt_rate((double)t->c->fed, tot, sizeof(tot));
	/* what must never be cut comes first: source, interval, uptime, rate, lost */
	field(&f[n++], TUI_R_NORMAL, "%s", vxt_text(t->c->name, nb, sizeof(nb)));
	field(&f[n++], TUI_R_NORMAL, "%s %s", narrow ? "iv" : "interval", iv);
	field(&f[n++], TUI_R_NORMAL, "up %u:%02u:%02u", u / 3600, u / 60 % 60, u % 60);
	field(&f[n++], TUI_R_NORMAL, "%s %s/s", narrow ? "ev" : "events", rate);
	field(&f[n], lost ? TUI_R_ERROR : TUI_R_NORMAL, "lost %llu", (unsigned long long)lost);
	f[n++].plain = 5;	/* the count is highlighted, not the word */
	field(&f[n++], TUI_R_NORMAL, "%s %llu", narrow ? "err" : "errors",
	      (unsigned long long)vxtop_model_obj_errors(&t->c->model, UINT32_MAX));
	field(&f[n++], TUI_R_NORMAL, "%s %s", narrow ? "tot" : "total", tot);
	/* the second line: what is shown */
	field(&f[n++], TUI_R_NORMAL, "[%s]", t->scr->name);
	field(&f[n++], TUI_R_NORMAL, "sort %s %s", vxtop_col_title(t->cfg->view.sort_col),
	      t->cfg->view.ascending ? "asc" : "desc");
	field(&f[n++], TUI_R_NORMAL, "filter %s", t->v.glob[0] ? t->v.glob : "-");
	field(&f[n++], TUI_R_NORMAL, "%s %zu (%zu idle)", narrow ? "obj" : "objects", t->v.nrows,
	      t->v.nidle);
	field(&f[n++], TUI_R_NORMAL, "shown %s",
	      shown ? top_clock(shown->real_end_ns, false, when, sizeof(when)) : "-");
	if (t->c->view) {
		struct vxt_view_stats vs;

		if (t->c->profile)
			field(&f[n++], TUI_R_WARN, "profile %s", t->c->profile->name);
		if (t->c->where)
			field(&f[n++], TUI_R_WARN, "where %.60s", t->c->where);
		vxt_view_get_stats(t->c->view, &vs);
		if (vs.has_spec)
			field(&f[n++], vs.spec.failed || vs.spec.drops ? TUI_R_ERROR : TUI_R_NORMAL,
			      "spec %llu committed, %llu failed, %llu drops",
			      (unsigned long long)vs.spec.committed,
			      (unsigned long long)vs.spec.failed,
			      (unsigned long long)vs.spec.drops);
	}
	/* the flags sit at the right of the second line; the fields flow around them */
	if (t->v.paused)
		flags += 8;
	if (t->c->ended)
		flags += 15;
	fl.right = flags;
	move(p->r.y, 0);
	clrtoeol();
	top_print(p->r.y, 0, 5, TUI_R_HEADER, "vxtop");
	fl.x = 4;	/* the separator leaves one space after the name */
	for (int i = 0; i < n; i++) {
		/* the second line starts with the screen's name */
		if (i == 7 && fl.y == p->r.y) {
			fl.y++;
			fl.x = 0;
		}
		flow_put(&fl, &f[i]);
	}
	if (t->c->ended)
		top_print(p->r.y + 1, COLS - flags, 14, TUI_R_WARN, " source ended ");
	if (t->v.paused)
		top_print(p->r.y + 1, COLS - 8, 8, TUI_R_MSG_ERROR, " PAUSED ");
}
