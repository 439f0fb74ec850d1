/* tui.c - vxtop's screen manager: terminal setup, the loop, header, keys
 *
 * The loop lets the collector wait on the source and the terminal together;
 * the screen is drawn once per closed interval or after a key. Only this file
 * handles KEY_RESIZE, the prompt line and the terminal's restoration (also on
 * SIGINT/SIGTERM/SIGHUP and on a fatal error).
 */
#include <signal.h>
#include <math.h>
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
#define DEAD_TERMINAL_STEPS 50

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

void top_heat_cell(const struct top *t, int y, int x, unsigned level)
{
	(void)t;
	if (level > TUI_HEAT_LEVELS)
		level = TUI_HEAT_LEVELS;
	/* as the shared heatmap widget: 1-2 light, 3-4 medium, 5-6 dark, 7-8 full */
	tui_fill(y, x, 1, level ? TUI_R_HEAT1 + (int)level - 1 : TUI_R_NORMAL,
		 tui_glyphs->shade[(level + 1) / 2]);
}

void top_spark_cell(const struct top *t, int y, int x, unsigned level)
{
	(void)t;
	if (level > TUI_HEAT_LEVELS)
		level = TUI_HEAT_LEVELS;
	tui_fill(y, x, 1, level ? TUI_R_HEAT1 + (int)level - 1 : TUI_R_NORMAL,
		 tui_glyphs->bar[level]);
}

unsigned top_level(double v, double max, bool log)
{
	double f;

	if (!(v > 0) || !(max > 0))
		return 0;
	/* log: three decades below the maximum, 1/10 of it two thirds up */
	f = log ? 1 + log10(v / max) / 3 : v / max;
	if (f <= 0)
		return 1;
	if (f >= 1)
		return 8;
	return 1 + (unsigned)(f * 7.999);
}

const struct vxtop_snap *top_snap(const struct top *t, size_t back)
{
	const struct vxtop_model *m = &t->c->model;
	const struct vxtop_snap *newest = vxtop_model_snap(m, 0);
	size_t skip = 0;

	if (!newest)
		return NULL;
	if (t->paused) {
		skip = (size_t)(newest->seq - t->frozen_seq);
		if (skip >= m->nsnap)
			skip = m->nsnap - 1;	/* fell out of the ring: the oldest */
	}
	return vxtop_model_snap(m, skip + back);
}

uint64_t top_nerrs(const struct top *t)
{
	return t->paused ? t->frozen_nerrs : t->c->model.nerrs;
}

const struct vxtop_err *top_err(const struct top *t, uint64_t back)
{
	return vxtop_model_err(&t->c->model, back + (t->c->model.nerrs - top_nerrs(t)));
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

double top_metric(const struct top *t, const struct vxtop_snap *s, uint32_t id,
		  enum heat_metric metric)
{
	struct vxtop_row r;

	if (!vxtop_snap_obj(s, id))
		return 0;
	vxtop_row_fill(&t->c->model, s, id, &r);
	switch (metric) {
	case HM_IOPS:
		return r.v[VXTOP_COL_RPS] + r.v[VXTOP_COL_WPS];
	case HM_MBS:
		return r.v[VXTOP_COL_RMBS] + r.v[VXTOP_COL_WMBS];
	case HM_UTIL:
		return r.v[VXTOP_COL_UTIL];
	case HM_P99:
		return r.v[VXTOP_COL_P99];
	case HM_ERRORS:
		return r.v[VXTOP_COL_ERR];
	default:
		return 0;
	}
}

const char *top_metric_name(enum heat_metric m)
{
	static const char *const names[HM_COUNT] = { "IO/s", "MB/s", "util%", "p99 latency",
						     "errors" };

	return m < HM_COUNT ? names[m] : "?";
}

void top_show(struct top *t, const struct top_screen *s)
{
	if (t->scr != s && t->scr != &top_help_screen)
		t->back = t->scr;
	t->scr = s;
}

int top_move_key(struct top *t, int key, size_t n, size_t *sel, int page)
{
	(void)t;
	if (page < 1)
		page = 1;
	switch (key) {
	case KEY_UP: case 'k':
		if (*sel > 0)
			(*sel)--;
		break;
	case KEY_DOWN: case 'j':
		if (*sel + 1 < n)
			(*sel)++;
		break;
	case KEY_PPAGE:
		*sel = *sel > (size_t)page ? *sel - page : 0;
		break;
	case KEY_NPAGE:
		*sel = *sel + page < n ? *sel + page : (n ? n - 1 : 0);
		break;
	case KEY_HOME: case 'g':
		*sel = 0;
		break;
	case KEY_END: case 'G':
		*sel = n ? n - 1 : 0;
		break;
	default:
		return -1;
	}
	return TUI_REDRAW | TOP_ROWS;
}

/* ---- rows ---- */

static void build_rows(struct top *t)
{
	const struct vxtop_model *m = &t->c->model;
	size_t need = vxtop_model_nobjects(m), i;
	struct vxtop_view v = t->cfg->view;

	if (need > t->caprows) {
		struct vxtop_row *r = realloc(t->rows, need * sizeof(*r));

		if (!r)
			return;		/* keep the old rows; the next interval retries */
		t->rows = r;
		t->caprows = need;
	}
	v.glob = t->glob;
	v.by_id = false;
	t->nrows = vxtop_rows(m, top_snap(t, 0), &v, t->rows);
	t->nidle = 0;
	for (i = 0; i < t->nrows; i++)
		t->nidle += t->rows[i].idle != 0;
	/* follow the selected object through re-sorts */
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].object == t->sel_object) {
			t->sel = i;
			return;
		}
	if (t->sel >= t->nrows)
		t->sel = t->nrows ? t->nrows - 1 : 0;
	if (t->nrows)
		t->sel_object = t->rows[t->sel].object;
}

/* ---- header, key bar, prompt ---- */

/* What --profile and --where keep, and the speculations in DTrace's words. */
static void draw_view_line(struct top *t)
{
	struct vxt_view_stats vs;
	int y, x;

	if (!t->c->view)
		return;
	getyx(stdscr, y, x);
	if (t->c->profile)
		top_print(y, x, -1, TUI_R_WARN, "  profile %s", t->c->profile->name);
	if (t->c->where) {
		getyx(stdscr, y, x);
		top_print(y, x, -1, TUI_R_WARN, "  where %s", t->c->where);
	}
	vxt_view_get_stats(t->c->view, &vs);
	if (!vs.has_spec)
		return;
	getyx(stdscr, y, x);
	top_print(y, x, -1, vs.spec.failed || vs.spec.drops ? TUI_R_ERROR : TUI_R_NORMAL,
		  "  spec %llu committed, %llu failed, %llu drops",
		  (unsigned long long)vs.spec.committed, (unsigned long long)vs.spec.failed,
		  (unsigned long long)vs.spec.drops);
}

static void draw_header(struct top *t)
{
	const struct vxtop_snap *s = vxtop_model_snap(&t->c->model, 0);
	const struct vxtop_snap *shown = top_snap(t, 0);
	double up = vxtop_collect_uptime(t->c);
	double sec = s ? (double)(s->end_ns - s->start_ns) / VXT_NSEC_PER_SEC : 0;
	uint64_t lost = vxtop_collect_lost(t->c);
	unsigned u = (unsigned)up;
	char iv[32], rate[32], tot[32], when[32];
	int x;

	vxt_format_duration(t->c->model.interval_ns, iv, sizeof(iv));
	vxtop_fmt_rate(s && sec > 0 ? s->events / sec : 0, rate, sizeof(rate));
	vxtop_fmt_rate((double)t->c->fed, tot, sizeof(tot));
	move(0, 0);
	clrtoeol();
	top_print(0, 0, -1, TUI_R_HEADER, "vxtop");
	/* what must never be cut comes first: source, interval, uptime, rate, lost */
	top_print(0, 6, -1, TUI_R_NORMAL, "%.20s  interval %s  up %u:%02u:%02u  events %s/s  lost ",
		  t->c->name, iv, u / 3600, u / 60 % 60, u % 60, rate);
	getyx(stdscr, u, x);
	top_print(0, x, -1, lost ? TUI_R_ERROR : TUI_R_NORMAL, "%llu",
		  (unsigned long long)lost);
	getyx(stdscr, u, x);
	top_print(0, x, -1, TUI_R_NORMAL, "  errors %llu  total %s",
		  (unsigned long long)vxtop_model_obj_errors(&t->c->model, UINT32_MAX), tot);
	move(1, 0);
	clrtoeol();
	top_print(1, 0, -1, TUI_R_NORMAL, "[%s]  sort %s %s  filter %s  objects %zu (%zu idle)  shown %s",
		  t->scr->name, vxtop_col_title(t->cfg->view.sort_col),
		  t->cfg->view.ascending ? "asc" : "desc", t->glob[0] ? t->glob : "-",
		  t->nrows, t->nidle,
		  shown ? top_clock(shown->real_end_ns, false, when, sizeof(when)) : "-");
	draw_view_line(t);
	if (t->c->ended)
		top_print(1, COLS - 23, -1, TUI_R_WARN, " source ended ");
	if (t->paused)
		top_print(1, COLS - 8, -1, TUI_R_MSG_ERROR, " PAUSED ");
}

static void draw_keybar(struct top *t)
{
	const char *p = t->scr->keys;
	int y = LINES - 1, x = 0;

	move(y, 0);
	clrtoeol();
	if (t->prompt == TP_FILTER) {
		top_print(y, 0, -1, TUI_R_KEY, "filter (glob, empty = all): ");
		getyx(stdscr, y, x);
		top_print(y, x, -1, TUI_R_NORMAL, "%s_", t->line);
		return;
	}
	if (t->msg[0]) {
		top_print(y, 0, -1, TUI_R_WARN, "%s", t->msg);
		t->msg[0] = '\0';
		return;
	}
	while (*p && x < COLS) {
		const char *colon = strchr(p, ':'), *sp;
		int kl, ll;

		if (!colon)
			break;
		sp = strchr(colon, ' ');
		kl = (int)(colon - p);
		ll = sp ? (int)(sp - colon - 1) : (int)strlen(colon + 1);
		top_print(y, x, kl, TUI_R_KEY, "%.*s", kl, p);
		x += kl;
		top_print(y, x, ll + 2, TUI_R_KEY_LABEL, " %.*s ", ll, colon + 1);
		x += ll + 3;
		p = sp ? sp + 1 : colon + 1 + ll;
	}
}

static void draw_sort_menu(struct top *t)
{
	int h = VXTOP_COL_COUNT + 2, w = 44, y0 = 3, x0 = 2;
	int i;

	for (i = 0; i < h && y0 + i < LINES - 1; i++)
		top_print(y0 + i, x0, w, TUI_R_KEY_LABEL, "%-*s", w, "");
	top_print(y0, x0 + 1, w - 2, TUI_R_KEY_LABEL, "Sort by (Enter, Esc)");
	for (i = 0; i < VXTOP_COL_COUNT && y0 + 1 + i < LINES - 1; i++)
		top_print(y0 + 1 + i, x0 + 1, w - 2,
			  (size_t)i == t->sort_pick ? TUI_R_SELECTED :
			  TUI_R_KEY_LABEL,
			  "%c %-6s %-32s", (unsigned)i == t->cfg->view.sort_col ? '*' : ' ',
			  vxtop_col_title((unsigned)i), vxtop_col_name((unsigned)i));
}

static void draw(struct top *t)
{
	erase();
	build_rows(t);
	if (LINES < 6 || COLS < 40) {
		top_print(0, 0, -1, TUI_R_NORMAL, "vxtop: terminal too small (%dx%d)", COLS, LINES);
		refresh();
		return;
	}
	if (t->c->rotations != t->rotations) {
		char nb[VXT_ESCAPE_MAX(80)];

		snprintf(t->msg, sizeof(t->msg), "%s was rotated: following the new file",
			 vxt_text(t->c->follow_path, nb, sizeof(nb)));
		t->rotations = t->c->rotations;
	}
	draw_header(t);
	t->scr->draw(t, 2, LINES - 1);
	if (t->prompt == TP_SORT)
		draw_sort_menu(t);
	draw_keybar(t);
	refresh();
}

/* ---- keys ---- */

static void set_sort(struct top *t, unsigned col)
{
	if (col == t->cfg->view.sort_col)
		return;
	t->cfg->view.sort_col = col;
	t->cfg->view.ascending = col == VXTOP_COL_NAME;
}

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
	snprintf(t->msg, sizeof(t->msg), "interval %s",
		 vxt_format_duration(interval_steps[i], buf, sizeof(buf)));
}

static int prompt_key(struct top *t, int key)
{
	size_t n = strlen(t->line);

	if (t->prompt == TP_SORT) {
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
			set_sort(t, (unsigned)t->sort_pick);
			t->prompt = TP_NONE;
			break;
		case 27: case KEY_F(6): case 'q':
			t->prompt = TP_NONE;
			break;
		}
		return TUI_REDRAW | TOP_ROWS;
	}
	switch (key) {
	case '\n': case '\r': case KEY_ENTER:
		snprintf(t->glob, sizeof(t->glob), "%s", t->line);
		t->prompt = TP_NONE;
		t->top = 0;
		break;
	case 27:
		t->prompt = TP_NONE;
		break;
	case KEY_BACKSPACE: case 127: case 8:
		if (n)
			t->line[n - 1] = '\0';
		break;
	default:
		if (key >= 32 && key < 127 && n + 1 < sizeof(t->line)) {
			t->line[n] = (char)key;
			t->line[n + 1] = '\0';
		}
	}
	return TUI_REDRAW | TOP_ROWS;
}

static void toggle_pause(struct top *t)
{
	const struct vxtop_snap *s = vxtop_model_snap(&t->c->model, 0);

	const struct vxtop_model *m = &t->c->model;

	t->paused = !t->paused;
	if (!t->paused)
		return;
	t->frozen_seq = s ? s->seq : 0;
	t->frozen_nerrs = m->nerrs;
	/* the detail's last-interval histograms freeze too */
	free(t->frozen_lat);
	t->frozen_lat = calloc(m->nobj ? m->nobj : 1, sizeof(*t->frozen_lat));
	t->nfrozen_lat = t->frozen_lat ? m->nobj : 0;
	for (size_t i = 0; i < t->nfrozen_lat; i++)
		t->frozen_lat[i] = m->obj[i].last_lat;
}

const struct vxt_hist *top_last_lat(const struct top *t, uint32_t id)
{
	const struct vxtop_model *m = &t->c->model;

	if (t->paused)
		return id < t->nfrozen_lat ? &t->frozen_lat[id] : NULL;
	return id < m->nobj ? &m->obj[id].last_lat : NULL;
}

/* Keys every screen shares. @return a reaction, or -1. */
static int global_key(struct top *t, int key)
{
	int col;

	switch (key) {
	case 'q':
		return TUI_QUIT;
	case ' ':
		toggle_pause(t);
		return TUI_REDRAW | TOP_ROWS;
	case 'd':
		change_interval(t, -1);
		return TUI_REDRAW;
	case 'D':
		change_interval(t, +1);
		return TUI_REDRAW;
	case '?': case KEY_F(1):
		top_show(t, t->scr == &top_help_screen ? t->back : &top_help_screen);
		return TUI_REDRAW;
	case 'e':
		top_show(t, t->scr == &top_errors_screen ? &top_table_screen : &top_errors_screen);
		return TUI_REDRAW;
	case 'h':
		top_show(t, t->scr == &top_heat_screen ? &top_table_screen : &top_heat_screen);
		return TUI_REDRAW;
	case 27: case KEY_LEFT: case KEY_BACKSPACE: case 127:
		top_show(t, t->scr == &top_table_screen || !t->back ? &top_table_screen : t->back);
		if (t->scr == t->back)
			t->back = &top_table_screen;
		return TUI_REDRAW;
	case '<': case '>':
		col = (int)t->cfg->view.sort_col + (key == '<' ? -1 : 1);
		set_sort(t, (unsigned)((col + VXTOP_COL_COUNT) % VXTOP_COL_COUNT));
		return TUI_REDRAW | TOP_ROWS;
	case 'I': case 'r':
		t->cfg->view.ascending = !t->cfg->view.ascending;
		return TUI_REDRAW | TOP_ROWS;
	case KEY_F(6):
		t->prompt = TP_SORT;
		t->sort_pick = t->cfg->view.sort_col;
		return TUI_REDRAW;
	case 'f': case '/':
		t->prompt = TP_FILTER;
		snprintf(t->line, sizeof(t->line), "%s", t->glob);
		return TUI_REDRAW;
	case 12:	/* ^L */
		clearok(curscr, TRUE);
		return TUI_REDRAW;
	case KEY_RESIZE:
		return TUI_REDRAW;
	}
	return -1;
}

static int handle_key(struct top *t, int key)
{
	int r;

	if (t->prompt != TP_NONE)
		return prompt_key(t, key);
	r = t->scr->on_key ? t->scr->on_key(t, key) : -1;
	if (r >= 0)
		return r;
	r = global_key(t, key);
	return r >= 0 ? r : 0;
}

/* ---- setup and the loop ---- */

static void on_close(struct vxtop_collector *c, const struct vxtop_snap *s, void *arg)
{
	struct top *t = arg;

	(void)c;
	(void)s;
	t->closed++;
	t->shown++;
}

static void on_stop(int sig)
{
	(void)sig;
	vxtop_stop = 1;
}

/* The shared screen manager sets up the terminal, colours, glyphs and the
 * fatal-signal paths; vxtop runs its own loop (it waits on the source and the
 * terminal together), so SIGINT/SIGTERM/SIGHUP come back to vxtop_stop. */
static int start_curses(struct top *t)
{
	struct tui_screen_opts o = {
		.color = t->cfg->mono ? TUI_COLOR_NEVER : TUI_COLOR_AUTO,
		.ascii = t->cfg->ascii,
	};
	struct sigaction sa = { .sa_handler = on_stop };

	if (tui_screen_init(&t->scr_mgr, &o) < 0)
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	intrflush(stdscr, FALSE);
	nodelay(stdscr, TRUE);
	return 0;
}

int vxtop_tui(struct vxtop_collector *c, struct vxtop_cfg *cfg)
{
	struct top t = {
		.c = c,
		.cfg = cfg,
		.scr = &top_table_screen,
		.back = &top_table_screen,
	};
	bool input, redraw = true;
	int rc = 0, key, r, nkeys, dead = 0;

	if (cfg->view.glob)
		snprintf(t.glob, sizeof(t.glob), "%s", cfg->view.glob);
	c->on_close = on_close;
	c->arg = &t;
	if (start_curses(&t) < 0)
		return 1;
	while (!vxtop_stop) {
		if (redraw || t.closed) {
			draw(&t);
			redraw = false;
			t.closed = 0;
		}
		if (cfg->count && t.shown >= cfg->count)
			break;	/* -n: like top, leave after COUNT intervals */
		rc = vxtop_collect_step(c, STDIN_FILENO, &input);
		if (rc < 0)
			break;
		/* Also without input: a resize arrives as a key after SIGWINCH. */
		r = 0;
		nkeys = 0;
		while ((key = getch()) != ERR) {
			r |= handle_key(&t, key);
			nkeys++;
		}
		/* A terminal that stays readable without keys has hung up. */
		dead = input && !nkeys ? dead + 1 : 0;
		if (dead > DEAD_TERMINAL_STEPS)
			break;
		if (r & TUI_QUIT)
			break;
		redraw = r != 0;
	}
	tui_screen_end(&t.scr_mgr);
	c->on_close = NULL;
	free(t.rows);
	free(t.frozen_lat);
	if (rc < 0) {
		fprintf(stderr, "vxtop: %s\n", c->err);
		return 1;
	}
	return 0;
}
