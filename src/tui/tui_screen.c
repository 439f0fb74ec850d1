/* tui_screen.c - the screen manager and main loop shared by vxreplay and vxtop
 *
 * Owns the terminal: start and end of curses, the signal paths that restore
 * it, KEY_RESIZE (handled here and nowhere else), mouse clicks, the prompt,
 * overlays, the key bar, and the stepped-work loop.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <locale.h>
#include <unistd.h>

#include "tui_screen.h"

static volatile sig_atomic_t stop_signal;
static bool curses_up;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* Fatal paths restore the terminal first, then die the way they would have. */
static void on_fatal_signal(int sig)
{
	if (curses_up)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
}

static int start_virtual(struct tui_screen *s, const struct tui_screen_opts *o)
{
	s->vout = fopen("/dev/null", "w");
	s->vin = fopen("/dev/null", "r");
	if (!s->vout || !s->vin)
		return -1;
	s->vscreen = newterm("xterm-256color", s->vout, s->vin);
	if (!s->vscreen)
		s->vscreen = newterm("vt100", s->vout, s->vin);
	if (!s->vscreen)
		return -1;
	set_term(s->vscreen);
	resizeterm(o->lines > 0 ? o->lines : 24, o->cols > 0 ? o->cols : 80);
	return 0;
}

int tui_screen_init(struct tui_screen *s, const struct tui_screen_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->tick_ms = o->tick_ms;
	s->need_layout = true;
	setlocale(LC_ALL, "");
	if (o->virtual_screen) {
		if (start_virtual(s, o) < 0) {
			fprintf(stderr, "cannot open a virtual screen\n");
			return -1;
		}
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "the browser needs a terminal (use a batch option)\n");
			return -1;
		}
		if (!newterm(NULL, stdout, stdin)) {
			fprintf(stderr, "cannot use terminal type '%s'\n",
				getenv("TERM") ? getenv("TERM") : "");
			return -1;
		}
		install_signals();
	}
	curses_up = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (o->mouse && !o->virtual_screen) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0);
	}
	tui_color_init(o->color);
	tui_draw_init(o->ascii);
	return 0;
}

void tui_screen_end(struct tui_screen *s)
{
	for (int i = 0; i < s->npanels; i++) {
		struct tui_panel *p = s->panels[i];

		if (p->ops->free)
			p->ops->free(p);
	}
	s->npanels = 0;
	s->noverlays = 0;
	if (!curses_up)
		return;
	curses_up = false;
	endwin();
	if (s->vscreen) {
		delscreen(s->vscreen);
		s->vscreen = NULL;
	}
	if (s->vout)
		fclose(s->vout);
	if (s->vin)
		fclose(s->vin);
	s->vout = s->vin = NULL;
}

int tui_screen_add(struct tui_screen *s, struct tui_panel *p)
{
	if (s->npanels == TUI_MAX_PANELS)
		return -1;
	s->panels[s->npanels++] = p;
	if (s->focus < 0 || !s->panels[s->focus]->focusable)
		s->focus = s->npanels - 1;
	return 0;
}

int tui_screen_push(struct tui_screen *s, struct tui_panel *p)
{
	if (s->noverlays == TUI_MAX_OVERLAYS)
		return -1;
	s->overlay[s->noverlays++] = p;
	s->need_layout = true;
	return 0;
}

void tui_screen_pop(struct tui_screen *s)
{
	if (s->noverlays > 0)
		s->noverlays--;
	s->need_layout = true;
}

struct tui_panel *tui_screen_top(const struct tui_screen *s)
{
	return s->noverlays ? s->overlay[s->noverlays - 1] : NULL;
}

struct tui_panel *tui_screen_focused(const struct tui_screen *s)
{
	if (s->focus < 0 || s->focus >= s->npanels)
		return NULL;
	return s->panels[s->focus];
}

void tui_screen_focus(struct tui_screen *s, struct tui_panel *p)
{
	for (int i = 0; i < s->npanels; i++)
		if (s->panels[i] == p)
			s->focus = i;
}

int tui_screen_focus_next(struct tui_screen *s)
{
	for (int n = 1; n <= s->npanels; n++) {
		int i = (s->focus + n) % s->npanels;

		if (s->panels[i]->visible && s->panels[i]->focusable) {
			s->focus = i;
			break;
		}
	}
	return TUI_REDRAW;
}

void tui_screen_msg(struct tui_screen *s, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	s->msg_role = role;
}

void tui_screen_prompt(struct tui_screen *s, const char *label, const char *init,
		       tui_prompt_done_fn done)
{
	tui_prompt_open(&s->prompt, label, init, done);
}

const struct tui_action *tui_screen_keys(const struct tui_screen *s)
{
	return s->keys;
}

/* ---- drawing ---- */

static void draw_keybar(struct tui_screen *s, int y)
{
	int x = 0;

	tui_fill(y, 0, s->cols, TUI_R_KEY_LABEL, " ");
	if (!s->keybar)
		return;
	for (const struct tui_keybar_item *k = s->keybar; k->key && x < s->cols; k++) {
		x += tui_puts(y, x, s->cols - x, TUI_R_KEY, k->key);
		x += tui_printw(y, x, s->cols - x, TUI_R_KEY_LABEL, "%-6s ", k->label);
	}
}

static void draw_bottom(struct tui_screen *s)
{
	int y = s->lines - 1;
	const char *prog = NULL;

	if (y < 0)
		return;
	if (s->prompt.active) {
		tui_prompt_draw(&s->prompt, y, s->cols);
		return;
	}
	if (s->msg[0]) {
		tui_fill(y, 0, s->cols, s->msg_role, " ");
		tui_printw(y, 0, s->cols, s->msg_role, " %s", s->msg);
	} else {
		draw_keybar(s, y);
	}
	if (s->app_ops && s->app_ops->busy && s->app_ops->busy(s->app) && s->app_ops->progress)
		prog = s->app_ops->progress(s->app);
	if (prog) {
		char buf[96];
		int n = snprintf(buf, sizeof(buf), " %s  Esc:cancel ", prog);

		if (n < s->cols)
			tui_puts(y, s->cols - n, n, TUI_R_PROGRESS, buf);
	}
}

static void do_layout(struct tui_screen *s)
{
	getmaxyx(stdscr, s->lines, s->cols);
	if (s->app_ops && s->app_ops->layout)
		s->app_ops->layout(s->app, s, s->lines, s->cols);
	/* overlays take the whole screen above the key bar */
	for (int i = 0; i < s->noverlays; i++)
		s->overlay[i]->r = (struct tui_rect){ 0, 0, s->lines - 1, s->cols };
	s->need_layout = false;
}

void tui_screen_draw(struct tui_screen *s)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	if (s->need_layout || rows != s->lines || cols != s->cols)
		do_layout(s);
	erase();
	for (int i = 0; i < s->npanels; i++) {
		struct tui_panel *p = s->panels[i];

		if (p->visible && p->r.h > 0 && p->r.w > 0)
			p->ops->draw(p, i == s->focus && !s->noverlays);
	}
	for (int i = 0; i < s->noverlays; i++) {
		struct tui_panel *p = s->overlay[i];

		tui_clear_rect(&p->r);
		p->ops->draw(p, i == s->noverlays - 1);
	}
	draw_bottom(s);
	wnoutrefresh(stdscr);
	doupdate();
}

void tui_screen_resize(struct tui_screen *s, int lines, int cols)
{
	resizeterm(lines, cols);
	s->need_layout = true;
}

/* ---- input ---- */

static const struct tui_action *find_action(const struct tui_action *keys, int key)
{
	for (const struct tui_action *a = keys; a && a->fn; a++)
		if (a->key == key || (a->key2 && a->key2 == key))
			return a;
	return NULL;
}

static int dispatch(struct tui_screen *s, int key);

static int on_mouse(struct tui_screen *s)
{
	MEVENT me;
	struct tui_panel *top = tui_screen_top(s);

	if (getmouse(&me) != OK)
		return TUI_NONE;
	/* the wheel moves like the arrows: one row (one event) a notch */
	if (me.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (s->prompt.active)
			return TUI_NONE;
		return dispatch(s, me.bstate & BUTTON4_PRESSED ? KEY_UP : KEY_DOWN);
	}
	if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return TUI_NONE;
	if (s->prompt.active)
		return TUI_NONE;
	if (top) {
		if (top->ops->on_mouse && tui_rect_has(&top->r, me.y, me.x))
			return top->ops->on_mouse(top, me.y, me.x);
		return TUI_NONE;
	}
	for (int i = 0; i < s->npanels; i++) {
		struct tui_panel *p = s->panels[i];

		if (!p->visible || !tui_rect_has(&p->r, me.y, me.x))
			continue;
		if (p->focusable)
			s->focus = i;
		if (p->ops->on_mouse)
			return p->ops->on_mouse(p, me.y, me.x) | TUI_REDRAW;
		return TUI_REDRAW;
	}
	return TUI_NONE;
}

static int dispatch(struct tui_screen *s, int key)
{
	struct tui_panel *top = tui_screen_top(s);
	struct tui_panel *f = tui_screen_focused(s);
	const struct tui_action *a;
	int r = TUI_IGNORED;

	if (s->prompt.active)
		return tui_prompt_key(&s->prompt, s->app, key) & ~TUI_CLOSE;
	if (top) {
		if (top->ops->on_key)
			r = top->ops->on_key(top, key);
		if ((r & TUI_IGNORED) && (key == TUI_KEY_ESC || key == 'q'))
			r = TUI_CLOSE | TUI_REDRAW;
		return r & ~TUI_IGNORED;
	}
	if (key == TUI_KEY_ESC && s->app_ops && s->app_ops->busy && s->app_ops->busy(s->app)) {
		s->app_ops->cancel(s->app);
		tui_screen_msg(s, TUI_R_MSG, "cancelled");
		return TUI_REDRAW;
	}
	if (f && f->visible && f->ops->on_key)
		r = f->ops->on_key(f, key);
	if (!(r & TUI_IGNORED))
		return r;
	a = find_action(s->keys, key);
	if (a)
		return a->fn(s->app);
	return TUI_NONE;
}

static int apply(struct tui_screen *s, int r)
{
	if (r & TUI_CLOSE) {
		tui_screen_pop(s);
		r |= TUI_REDRAW;
	}
	if (r & TUI_RELAYOUT) {
		s->need_layout = true;
		r |= TUI_REDRAW;
	}
	if ((r & TUI_RESEEK) && s->app_ops && s->app_ops->reseek)
		r |= s->app_ops->reseek(s->app) | TUI_REDRAW;
	return r;
}

int tui_screen_feed(struct tui_screen *s, int key)
{
	int r;

	if (key == KEY_RESIZE) {
		s->need_layout = true;
		clearok(curscr, TRUE);
		return TUI_REDRAW;
	}
	if (key == KEY_MOUSE)
		return apply(s, on_mouse(s));
	s->msg[0] = 0;
	r = dispatch(s, key);
	return apply(s, r | TUI_REDRAW);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A terminal readable this many waits in a row without a key has hung up. */
#define DEAD_TERMINAL_WAITS 50

/* The application waits (on its input and the terminal); then the keys that
 * came. @return the reactions; *@dead counts readable waits without a key. */
static int wait_app(struct tui_screen *s, int *dead, bool *urgent)
{
	bool tty = false;
	int key, nkeys = 0, r;

	r = apply(s, s->app_ops->wait(s->app, &tty));
	timeout(0);
	while (!(r & TUI_QUIT) && (key = getch()) != ERR) {
		r |= tui_screen_feed(s, key);
		*urgent = true;
		nkeys++;
	}
	*dead = tty && !nkeys ? *dead + 1 : 0;
	return r;
}

int tui_screen_run(struct tui_screen *s)
{
	bool dirty = true, urgent = true;	/* urgent: a key's effect, drawn at once */
	uint64_t last_draw = 0;
	int dead = 0;

	stop_signal = 0;
	for (;;) {
		bool busy = s->app_ops && s->app_ops->busy && s->app_ops->busy(s->app);
		int key, r = TUI_NONE;

		if (stop_signal)
			return stop_signal;
		/* while busy, draw at most every 80 ms so steps keep going */
		if (dirty && (urgent || !busy || now_ms() - last_draw >= 80)) {
			tui_screen_draw(s);
			last_draw = now_ms();
			dirty = urgent = false;
			/* drawing may start work (a layout re-bins) */
			busy = s->app_ops && s->app_ops->busy && s->app_ops->busy(s->app);
		}
		if (!busy && s->app_ops && s->app_ops->wait) {
			r = wait_app(s, &dead, &urgent);
			if (dead > DEAD_TERMINAL_WAITS)
				return SIGHUP;
			if (r & TUI_QUIT)
				return 0;
			if (r & TUI_REDRAW)
				dirty = true;
			continue;
		}
		timeout(busy ? 0 : (s->tick_ms > 0 ? s->tick_ms : 250));
		key = getch();
		if (key == ERR) {
			if (busy)
				r = s->app_ops->step(s->app);
			else if (s->tick_ms > 0 && s->app_ops && s->app_ops->tick)
				r = s->app_ops->tick(s->app);
			r = apply(s, r);
			/* the end of the work changes the progress line */
			if (busy && !s->app_ops->busy(s->app))
				r |= TUI_REDRAW;
		} else {
			r = tui_screen_feed(s, key);
			urgent = true;
		}
		if (r & TUI_QUIT)
			return 0;
		if (r & TUI_REDRAW)
			dirty = true;
	}
}
