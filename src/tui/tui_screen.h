/* tui_screen.h - the screen manager: panels, keymap, overlays, the main loop
 *
 * An application describes its screen as panels (const tables of functions:
 * draw, on_key, on_mouse, free) placed by its layout function, and its keys
 * as a table of actions. Every handler returns a reaction mask (TUI_REDRAW,
 * TUI_RESEEK, ...) that the main loop applies once. The screen manager is the
 * only place that handles KEY_RESIZE, and SIGINT/SIGTERM/fatal signals restore
 * the terminal before anything else.
 *
 * An application with input of its own (vxtop's live source) gives a wait
 * function: the loop then waits in it instead of in getch() and reads the
 * keys that came; a terminal that stays readable without keys has hung up.
 *
 * Heavy work runs in steps: while the application says it is busy, the loop
 * polls input without blocking and calls its step function between keys; Esc
 * cancels it.
 *
 *   static const struct tui_action keys[] = {
 *           { 'q', 0, "q", "quit", act_quit },
 *           { 0 }
 *   };
 *   tui_screen_init(&s, &opts);
 *   tui_screen_add(&s, &list_panel);
 *   rc = tui_screen_run(&s);
 *   tui_screen_end(&s);
 */
#ifndef VXT_TUI_SCREEN_H
#define VXT_TUI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <curses.h>

#include "tui_color.h"
#include "tui_draw.h"
#include "tui_prompt.h"

/* Reaction mask. */
#define TUI_NONE	0x00	/* handled, nothing to do */
#define TUI_REDRAW	0x01	/* draw the screen again */
#define TUI_RESEEK	0x02	/* the application's position changed: app->reseek() */
#define TUI_RELAYOUT	0x04	/* panel sizes changed: app->layout() */
#define TUI_QUIT	0x08	/* leave the main loop */
#define TUI_CLOSE	0x10	/* pop the top overlay */
#define TUI_IGNORED	0x20	/* not handled here: offer the key to the next handler */

#define TUI_KEY_ESC	27
#define TUI_MAX_PANELS	8
#define TUI_MAX_OVERLAYS 4

struct tui_screen;
struct tui_panel;

struct tui_panel_ops {
	const char *name;
	/* Draw inside p->r. @focused: the panel has the keyboard. */
	void (*draw)(struct tui_panel *p, bool focused);
	/* @return a reaction mask; TUI_IGNORED passes the key on. NULL = ignore. */
	int (*on_key)(struct tui_panel *p, int key);
	/* Button 1 click at screen (y, x) inside p->r. NULL = ignore. */
	int (*on_mouse)(struct tui_panel *p, int y, int x);
	/* Release p->data; NULL = nothing to free. Called by tui_screen_end(). */
	void (*free)(struct tui_panel *p);
};

struct tui_panel {
	const struct tui_panel_ops *ops;
	void *data;		/* the panel's own state */
	struct tui_rect r;	/* set by the layout function */
	bool visible;
	bool focusable;
};

/* One key of the application's keymap. The table ends with fn == NULL. */
struct tui_action {
	int key;		/* curses key code */
	int key2;		/* another code for the same action, 0 = none */
	const char *keyname;	/* as shown in the help; NULL = not shown */
	const char *help;
	int (*fn)(void *app);	/* @return a reaction mask */
};

/* One entry of the htop-style key bar. The table ends with key == NULL. */
struct tui_keybar_item {
	const char *key;
	const char *label;
};

struct tui_app_ops {
	/* Place the panels for a @lines x @cols screen (after start and resizes).
	 * The last line is the key bar's. */
	void (*layout)(void *app, struct tui_screen *s, int lines, int cols);
	/* Apply TUI_RESEEK. May be NULL. @return a further reaction mask. */
	int (*reseek)(void *app);
	/* True while stepped work is pending. May be NULL. */
	bool (*busy)(void *app);
	/* Do one bounded step of work (a few ms). @return a reaction mask. */
	int (*step)(void *app);
	/* Esc while busy: drop the pending work. */
	void (*cancel)(void *app);
	/* Called every tick_ms when idle (e.g. to follow a growing file). May be NULL. */
	int (*tick)(void *app);
	/* The progress text of pending work ("binning 45%"), or NULL. */
	const char *(*progress)(void *app);
	/* Wait for the terminal and the application's own input together (a live
	 * source), a bounded time; set *@tty when the terminal is readable. NULL =
	 * the loop waits on the terminal alone. @return a reaction mask. */
	int (*wait)(void *app, bool *tty);
};

struct tui_screen_opts {
	enum tui_color_mode color;
	bool ascii;		/* force the ASCII glyph set */
	bool mouse;		/* report button clicks */
	bool virtual_screen;	/* bench: draw to /dev/null at @lines x @cols */
	int lines, cols;
	int tick_ms;		/* idle tick; 0 = none */
};

struct tui_screen {
	const struct tui_app_ops *app_ops;
	void *app;
	const struct tui_action *keys;
	const struct tui_keybar_item *keybar;
	struct tui_panel *panels[TUI_MAX_PANELS];
	int npanels;
	int focus;
	struct tui_panel *overlay[TUI_MAX_OVERLAYS];
	int noverlays;
	struct tui_prompt prompt;
	char msg[256];
	int msg_role;
	int tick_ms;
	int lines, cols;
	bool need_layout;
	/* virtual screen */
	SCREEN *vscreen;
	FILE *vout, *vin;
};

/* Start curses (or a virtual screen) and install the signal handlers.
 * @return 0, or -1 when the terminal cannot be used (message on stderr). */
int tui_screen_init(struct tui_screen *s, const struct tui_screen_opts *opts);
/* Free the panels and restore the terminal. Safe to call twice. */
void tui_screen_end(struct tui_screen *s);

/* Add a panel (drawn in order; focusable ones take Tab in order). @return 0 or -1 when full. */
int tui_screen_add(struct tui_screen *s, struct tui_panel *p);
/* Push a modal overlay panel (help, detail ...). It gets every key first and
 * is popped on TUI_CLOSE. The screen manager frees nothing on pop. */
int tui_screen_push(struct tui_screen *s, struct tui_panel *p);
void tui_screen_pop(struct tui_screen *s);
struct tui_panel *tui_screen_top(const struct tui_screen *s);
/* The focused panel, or NULL. */
struct tui_panel *tui_screen_focused(const struct tui_screen *s);
void tui_screen_focus(struct tui_screen *s, struct tui_panel *p);
/* Move the focus to the next visible focusable panel. @return TUI_REDRAW. */
int tui_screen_focus_next(struct tui_screen *s);

/* A status line message until the next key. */
void tui_screen_msg(struct tui_screen *s, int role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Open the prompt line (see tui_prompt.h). */
void tui_screen_prompt(struct tui_screen *s, const char *label, const char *init,
		       tui_prompt_done_fn done);

/* Run the main loop until a handler returns TUI_QUIT or a signal asks to stop.
 * @return 0, or the signal number that stopped it. */
int tui_screen_run(struct tui_screen *s);
/* Process one key as if typed (bench and tests); @return the reaction applied. */
int tui_screen_feed(struct tui_screen *s, int key);
/* Lay out if needed and draw everything now. */
void tui_screen_draw(struct tui_screen *s);
/* Resize a virtual screen. */
void tui_screen_resize(struct tui_screen *s, int lines, int cols);

/* The help overlay text from the keymap: used by tui_help. */
const struct tui_action *tui_screen_keys(const struct tui_screen *s);

#endif
