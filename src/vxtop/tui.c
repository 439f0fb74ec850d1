/* tui.c - vxtop's live screens on the shared screen manager
 *
 * The header, the body (the current screen) and the sort menu are panels;
 * the keys are an action table shown by the shared help overlay; the filter
 * is the shared prompt. The screen manager's loop waits in top_wait(), which
 * runs one collector step (source and terminal together), so the screen is
 * drawn once per closed interval or after a key. Terminal setup, resizes
 * and the restoration on signals are the screen manager's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "tui.h"
#include "vxtrace/profile.h"
#include "vxtrace/view.h"

static const uint64_t interval_steps[] = {
	100000000ull, 250000000ull, 500000000ull, 1000000000ull, 2000000000ull,
	5000000000ull, 10000000000ull, 30000000000ull, 60000000000ull,
};
#define NSTEPS (sizeof(interval_steps) / sizeof(interval_steps[0]))

void top_print(int y, int x, int width, int role, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	if (width < 0 || x + width > COLS)
		width = COLS - x;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tui_puts(y, x, width, role, buf);
}

void top_heat_cell(int y, int x, unsigned level)
{
	if (level > TUI_HEAT_LEVELS)
		level = TUI_HEAT_LEVELS;
	/* as the shared heatmap widget: 1-2 light, 3-4 medium, 5-6 dark, 7-8 full */
	tui_fill(y, x, 1, level ? TUI_R_HEAT1 + (int)level - 1 : TUI_R_NORMAL,
		 tui_glyphs->shade[(level + 1) / 2]);
}

void top_spark_cell(int y, int x, unsigned level)
{
	if (level > TUI_HEAT_LEVELS)
		level = TUI_HEAT_LEVELS;
	tui_fill(y, x, 1, level ? TUI_R_HEAT1 + (int)level - 1 : TUI_R_NORMAL,
		 tui_glyphs->bar[level]);
}

char *top_clock(uint64_t real_ns, bool ms, char *buf, size_t size)
{
	time_t sec = (time_t)(real_ns / VXT_NSEC_PER_SEC);
	struct tm tm;
	size_t n;

	localtime_r(&sec, &tm);
	n = strftime(buf, size, "%H:%M:%S", &tm);
	if (ms)
		snprintf(buf + n, size - n, ".%03u", (unsigned)(real_ns / 1000000 % 1000));
	return buf;
}

void top_err_text(const struct vxtop_model *m, const struct vxtop_err *e,
		  struct top_err_text *x)
{
	const struct vxt_object *ob = vxt_objtab_get(m->objs, e->object);
	const char *en = vxt_errno_name(e->error);

	x->object = ob ? ob->name : "?";
	x->errno_name = en ? en : "?";
	top_clock(e->real_ns, true, x->when, sizeof(x->when));
	vxt_format_size(e->bytes, x->size, sizeof(x->size));
}

void top_show(struct top *t, const struct top_screen *s)
{
	if (t->scr != s)
		t->back = t->scr;
	t->scr = s;
	t->scr_mgr.keybar = s->keybar;
}

void top_msg(struct top *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tui_screen_msg(&t->scr_mgr, TUI_R_WARN, "%s", buf);
}

int top_move_key(int key, size_t n, size_t *sel, int page)
{
	if (page < 1)
		page = 1;
	switch (key) {
	case KEY_UP:
		if (*sel > 0)
			(*sel)--;
		break;
	case KEY_DOWN:
		if (*sel + 1 < n)
			(*sel)++;
		break;
	case KEY_PPAGE:
		*sel = *sel > (size_t)page ? *sel - page : 0;
		break;
	case KEY_NPAGE:
		*sel = *sel + page < n ? *sel + page : (n ? n - 1 : 0);
		break;
	case KEY_HOME:
		*sel = 0;
		break;
	case KEY_END:
		*sel = n ? n - 1 : 0;
		break;
	}
	return TUI_REDRAW;
}

/* ---- the body: the current screen ---- */

static void body_draw(struct tui_panel *p, bool focused)
{
	struct top *t = p->data;

	(void)focused;
	t->scr->draw(t, p->r.y, p->r.y + p->r.h);
}

/* ---- the sort menu ---- */

static void sortmenu_draw(struct tui_panel *p, bool focused)
{
	struct top *t = p->data;
	int y0 = p->r.y, x0 = p->r.x, w = p->r.w;

	(void)focused;
	for (int i = 0; i < p->r.h; i++)
		top_print(y0 + i, x0, w, TUI_R_KEY_LABEL, "%-*s", w, "");
	top_print(y0, x0 + 1, w - 2, TUI_R_KEY_LABEL, "Sort by (Enter, Esc)");
	for (int i = 0; i < VXTOP_COL_COUNT && i + 1 < p->r.h; i++)
		top_print(y0 + 1 + i, x0 + 1, w - 2,
			  (size_t)i == t->sort_pick ? TUI_R_SELECTED : TUI_R_KEY_LABEL,
			  "%c %-6s %-32s", (unsigned)i == t->cfg->view.sort_col ? '*' : ' ',
			  vxtop_col_title((unsigned)i), vxtop_col_name((unsigned)i));
}

static void sortmenu_close(struct top *t)
{
	t->sorting = false;
	t->sortmenu.visible = false;
	tui_screen_focus(&t->scr_mgr, &t->body);
}

/* Modal while open: every key is the menu's. */
static int sortmenu_key(struct tui_panel *p, int key)
{
	struct top *t = p->data;

	switch (key) {
	case KEY_UP:
		if (t->sort_pick > 0)
			t->sort_pick--;
		break;
	case KEY_DOWN:
		if (t->sort_pick + 1 < VXTOP_COL_COUNT)
			t->sort_pick++;
		break;
	case '\n': case '\r': case KEY_ENTER:
		vxtop_shown_sort(&t->v, (unsigned)t->sort_pick);
		sortmenu_close(t);
		break;
	case TUI_KEY_ESC: case KEY_F(6): case 'q':
		sortmenu_close(t);
		break;
	}
	return TUI_REDRAW;
}

static const struct tui_panel_ops header_ops = { .name = "header", .draw = top_header_draw };
static const struct tui_panel_ops body_ops = { .name = "body", .draw = body_draw };
static const struct tui_panel_ops sortmenu_ops = {
	.name = "sort", .draw = sortmenu_draw, .on_key = sortmenu_key,
};

static void layout(void *app, struct tui_screen *s, int lines, int cols)
{
	struct top *t = app;
	bool fits = lines >= MIN_LINES && cols >= MIN_COLS;
	int mh = VXTOP_COL_COUNT + 2;

	(void)s;
	t->header.r = (struct tui_rect){ 0, 0, fits ? 2 : 1, cols };
	t->body.r = (struct tui_rect){ 2, 0, lines - 3, cols };
	t->body.visible = fits;
	if (mh > lines - 4)
		mh = lines - 4;
	t->sortmenu.r = (struct tui_rect){ 3, 2, mh, cols - 2 < 44 ? cols - 2 : 44 };
	t->sortmenu.visible = fits && t->sorting;
}

/* ---- the actions ---- */

static void change_interval(struct top *t, int dir)
{
	uint64_t cur = t->c->model.interval_ns;
	size_t i;
	char buf[32];

	if (dir < 0) {
		for (i = NSTEPS; i-- > 0;)
			if (interval_steps[i] < cur)
				break;
		if (i >= NSTEPS)
			i = 0;
	} else {
		for (i = 0; i < NSTEPS; i++)
			if (interval_steps[i] > cur)
				break;
		if (i == NSTEPS)
			i = NSTEPS - 1;
	}
	vxtop_collect_set_interval(t->c, interval_steps[i]);
	top_msg(t, "interval %s", vxt_format_duration(interval_steps[i], buf, sizeof(buf)));
}

static int filter_done(void *app, const char *text, char *err, size_t errsz)
{
	struct top *t = app;

	(void)err;
	(void)errsz;
	snprintf(t->v.glob, sizeof(t->v.glob), "%s", text);
	t->top = 0;
	return TUI_REDRAW;
}

static int act_help(void *app)
{
	struct top *t = app;

	t->help.top = 0;
	tui_screen_push(&t->scr_mgr, &t->help.panel);
	return TUI_REDRAW;
}

static int act_quit(void *app)
{
	(void)app;
	return TUI_QUIT;
}

static int act_pause(void *app)
{
	struct top *t = app;

	vxtop_shown_pause(&t->v, !t->v.paused);
	return TUI_REDRAW;
}

static int act_shorter(void *app)
{
	change_interval(app, -1);
	return TUI_REDRAW;
}

static int act_longer(void *app)
{
	change_interval(app, +1);
	return TUI_REDRAW;
}

/* e: the newest error (the error list), then each next older one, as
 * vxreplay's e walks to the next error; E back. */
static int act_next_error(void *app)
{
	struct top *t = app;

	if (t->scr != &top_errors_screen) {
		t->err_top = 0;
		top_show(t, &top_errors_screen);
		return TUI_REDRAW;
	}
	return top_errors_screen.on_move(t, KEY_DOWN);
}

static int act_prev_error(void *app)
{
	struct top *t = app;

	if (t->scr != &top_errors_screen) {
		t->err_top = 0;
		top_show(t, &top_errors_screen);
		return TUI_REDRAW;
	}
	return top_errors_screen.on_move(t, KEY_UP);
}

static int act_objects(void *app)
{
	top_show(app, &top_table_screen);
	return TUI_REDRAW;
}

static int act_heat(void *app)
{
	struct top *t = app;

	top_show(t, t->scr == &top_heat_screen ? &top_table_screen : &top_heat_screen);
	return TUI_REDRAW;
}

static int act_procs(void *app)
{
	struct top *t = app;

	top_show(t, t->scr == &top_procs_screen ? &top_table_screen : &top_procs_screen);
	return TUI_REDRAW;
}

static int act_script(void *app)
{
	struct top *t = app;

	top_show(t, t->scr == &top_script_screen ? &top_table_screen : &top_script_screen);
	return TUI_REDRAW;
}

static int act_metric(void *app)
{
	struct top *t = app;

	t->heat = (enum heat_metric)((t->heat + 1) % HM_COUNT);
	if (t->scr != &top_heat_screen)
		top_show(t, &top_heat_screen);
	return TUI_REDRAW;
}

static int act_old_metric(void *app)
{
	act_metric(app);
	top_msg(app, "the heatmap metric key is M (as in vxreplay)");
	return TUI_REDRAW;
}

static int act_detail(void *app)
{
	struct top *t = app;

	if (t->scr == &top_detail_screen)
		top_show(t, &top_table_screen);
	else if (t->scr != &top_errors_screen && t->v.nrows)
		top_show(t, &top_detail_screen);
	return TUI_REDRAW;
}

static int act_back(void *app)
{
	struct top *t = app;

	if (t->scr == &top_table_screen || !t->back || t->back == t->scr)
		top_show(t, &top_table_screen);
	else
		top_show(t, t->back);
	if (t->scr == t->back)
		t->back = &top_table_screen;
	return TUI_REDRAW;
}

static int step_sort(struct top *t, int dir)
{
	int col = (int)t->cfg->view.sort_col + dir;

	vxtop_shown_sort(&t->v, (unsigned)((col + VXTOP_COL_COUNT) % VXTOP_COL_COUNT));
	return TUI_REDRAW;
}

static int act_sort_prev(void *app)
{
	return step_sort(app, -1);
}

static int act_sort_next(void *app)
{
	return step_sort(app, +1);
}

static int act_reverse(void *app)
{
	struct top *t = app;

	t->cfg->view.ascending = !t->cfg->view.ascending;
	return TUI_REDRAW;
}

static int act_sort_menu(void *app)
{
	struct top *t = app;

	t->sorting = true;
	t->sort_pick = t->cfg->view.sort_col;
	tui_screen_focus(&t->scr_mgr, &t->sortmenu);
	return TUI_RELAYOUT;
}

static int act_filter(void *app)
{
	struct top *t = app;

	tui_screen_prompt(&t->scr_mgr, "filter (glob, empty = all): ", t->v.glob, filter_done);
	return TUI_REDRAW;
}

static int act_redraw(void *app)
{
	(void)app;
	clearok(curscr, TRUE);
	return TUI_REDRAW;
}

static int screen_move(struct top *t, int key)
{
	return t->scr->on_move ? t->scr->on_move(t, key) : TUI_NONE;
}

static int act_up(void *app) { return screen_move(app, KEY_UP); }
static int act_down(void *app) { return screen_move(app, KEY_DOWN); }
static int act_pgup(void *app) { return screen_move(app, KEY_PPAGE); }
static int act_pgdn(void *app) { return screen_move(app, KEY_NPAGE); }
static int act_home(void *app) { return screen_move(app, KEY_HOME); }
static int act_end(void *app) { return screen_move(app, KEY_END); }

/* The same key does the same thing as in vxreplay where both have it. */
static const struct tui_action top_keys[] = {
	{ '?', KEY_F(1), "? F1", "this help", act_help },
	{ KEY_DOWN, 0, "Down Up", "next / previous object (errors: scroll)", act_down },
	{ KEY_UP, 0, NULL, NULL, act_up },
	{ KEY_NPAGE, 0, "PgDn PgUp", "next / previous page", act_pgdn },
	{ KEY_PPAGE, 0, NULL, NULL, act_pgup },
	{ 'g', KEY_HOME, "g Home", "first object", act_home },
	{ 'G', KEY_END, "G End", "last object", act_end },
	{ ' ', 0, "space", "pause: interval figures freeze; collecting, the header and "
	  "the counts since start go on", act_pause },
	{ '<', 0, "< >", "sort by the previous / next column", act_sort_prev },
	{ '>', 0, NULL, NULL, act_sort_next },
	{ KEY_F(6), 0, "F6", "pick the sort column", act_sort_menu },
	{ 'I', 'r', "I r", "reverse the sort order", act_reverse },
	{ '/', 'f', "/ f", "filter objects by a name glob (sd*, dm-?); empty shows all",
	  act_filter },
	{ '\r', '\n', "Enter", "detail of the selected object: op mix, latency histogram, "
	  "LBA heatmap", act_detail },
	{ KEY_RIGHT, KEY_ENTER, NULL, NULL, act_detail },
	{ 'h', 0, "h", "heatmap of the last intervals", act_heat },
	{ 'M', 0, "M", "heatmap metric: IO/s, MiB/s, util%, p99 latency, errors", act_metric },
	{ 'm', 0, NULL, NULL, act_old_metric },
	{ 'e', 0, "e E", "the newest error (the error list), then the next / previous one",
	  act_next_error },
	{ 'E', 0, NULL, NULL, act_prev_error },
	{ 'o', 0, "o", "the object table", act_objects },
	{ 'P', 0, "P", "per process, as biotop: the last interval's I/Os, KiB, avg / p99 latency "
	  "of each process and object", act_procs },
	{ 'a', 0, "a", "the --script's output: its aggregations as printed each tick", act_script },
	{ 'd', 0, "d D", "shorter / longer interval", act_shorter },
	{ 'D', 0, NULL, NULL, act_longer },
	{ TUI_KEY_ESC, KEY_LEFT, "Esc Left", "back", act_back },
	{ KEY_BACKSPACE, 127, NULL, NULL, act_back },
	{ 12, 0, "^L", "redraw", act_redraw },
	{ 'q', KEY_F(10), "q F10", "quit", act_quit },
	{ 0 }
};

static const char *const help_before[] = { "Keys", NULL };
static const char *const help_after[] = {
	"Columns (per interval)",
	"  r/s w/s      completed reads / writes per second",
	"  rMB/s wMB/s  MB (2^20 bytes, as iostat) read / written per second",
	"  avg p99      average and 99th percentile completion latency",
	"  qd           I/Os in flight at the end of the interval",
	"  util%        share of the interval with at least one I/O in flight",
	"  err          failed I/Os in the interval",
	"",
	"Objects without I/O are drawn faded and sink slowly instead of vanishing.",
	"The header's lost count is the events the source dropped; it is never hidden.",
	NULL
};

/* ---- the loop's wait: one collector step ---- */

static int top_wait(void *app, bool *tty)
{
	struct top *t = app;
	int r = TUI_NONE;

	if (t->cfg->count && t->shown >= t->cfg->count)
		return TUI_QUIT;	/* -c: like top, leave after COUNT intervals */
	if (vxtop_collect_step(t->c, STDIN_FILENO, tty) < 0) {
		t->rc = 1;
		return TUI_QUIT;
	}
	if (t->c->rotations != t->rotations) {
		char nb[VXT_ESCAPE_MAX(80)];

		top_msg(t, "%s was rotated: following the new file",
			vxt_text(t->c->follow_path, nb, sizeof(nb)));
		t->rotations = t->c->rotations;
		r = TUI_REDRAW;
	}
	if (t->closed) {
		t->closed = 0;
		r = TUI_REDRAW;
	}
	return r;
}

static const struct tui_app_ops app_ops = {
	.layout = layout,
	.wait = top_wait,
};

static void on_close(struct vxtop_collector *c, const struct vxtop_snap *s, void *arg)
{
	struct top *t = arg;

	(void)c;
	(void)s;
	t->closed++;
	t->shown++;
}

static void panel(struct tui_panel *p, const struct tui_panel_ops *ops, struct top *t,
		  bool focusable)
{
	*p = (struct tui_panel){ .ops = ops, .data = t, .visible = true, .focusable = focusable };
}

int vxtop_tui(struct vxtop_collector *c, struct vxtop_cfg *cfg)
{
	struct tui_screen_opts o = {
		.color = cfg->mono ? TUI_COLOR_NEVER : TUI_COLOR_AUTO,
		.ascii = cfg->ascii,
	};
	struct top *t = calloc(1, sizeof(*t));
	int rc;

	if (!t) {
		fprintf(stderr, "vxtop: out of memory\n");
		return 1;
	}
	t->c = c;
	t->cfg = cfg;
	t->scr = t->back = &top_table_screen;
	if (c->script)
		t->scr = &top_script_screen;	/* what was asked for comes first */
	vxtop_shown_init(&t->v, &c->model, &cfg->view);
	c->on_close = on_close;
	c->arg = t;
	if (tui_screen_init(&t->scr_mgr, &o) < 0) {
		c->on_close = NULL;
		free(t);
		return 1;
	}
	t->scr_mgr.app = t;
	t->scr_mgr.app_ops = &app_ops;
	t->scr_mgr.keys = top_keys;
	t->scr_mgr.keybar = t->scr->keybar;
	panel(&t->header, &header_ops, t, false);
	panel(&t->body, &body_ops, t, true);
	panel(&t->sortmenu, &sortmenu_ops, t, true);
	t->sortmenu.visible = false;
	tui_help_init(&t->help, "vxtop help", top_keys, help_before, help_after);
	tui_screen_add(&t->scr_mgr, &t->header);
	tui_screen_add(&t->scr_mgr, &t->body);
	tui_screen_add(&t->scr_mgr, &t->sortmenu);
	tui_screen_focus(&t->scr_mgr, &t->body);
	tui_screen_run(&t->scr_mgr);
	tui_screen_end(&t->scr_mgr);
	c->on_close = NULL;
	rc = t->rc;
	vxtop_shown_free(&t->v);
	free(t);
	if (rc) {
		fprintf(stderr, "vxtop: %s\n", c->err);
		return 1;
	}
	/* as dtrace(1) at exit: END, and the aggregations not printed yet */
	if (vxtop_collect_end_script(c) < 0) {
		fprintf(stderr, "vxtop: %s\n", c->err);
		return 1;
	}
	if (c->script && c->script->end.n) {
		vxtop_print_lines(c->script->end.p);
		fflush(stdout);
	}
	return 0;
}
