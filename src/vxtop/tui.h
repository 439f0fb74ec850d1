/* tui.h - vxtop's live screens on the shared screen manager (src/tui)
 *
 * The screen manager owns the terminal, the loop, KEY_RESIZE, the prompt and
 * the key bar; vxtop gives it a header panel, a body panel that draws the
 * current screen (objects, errors, heatmap, detail), a sort menu, the action
 * table (the same keys as vxreplay's where both have them) and a wait
 * function that runs the collector. What is shown (the live or paused
 * interval, the rows) is the curses-free struct vxtop_shown.
 */
#ifndef VXTOP_TUI_H
#define VXTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_color.h"
#include "tui_draw.h"
#include "tui_heatmap.h"
#include "tui_help.h"
#include "tui_screen.h"
#include "shown.h"
#include "vxtop.h"

struct top;

struct top_screen {
	const char *name;
	/* Draw in lines [top, bottom) of the terminal. */
	void (*draw)(struct top *t, int top, int bottom);
	/* Up, Down, PgUp, PgDn, Home, End on this screen. @return a reaction mask. */
	int (*on_move)(struct top *t, int key);
	const struct tui_keybar_item *keybar;
};

extern const struct top_screen top_table_screen;
extern const struct top_screen top_errors_screen;
extern const struct top_screen top_heat_screen;
extern const struct top_screen top_detail_screen;
extern const struct top_screen top_script_screen;
extern const struct top_screen top_procs_screen;

struct top {
	struct vxtop_collector *c;
	struct vxtop_cfg *cfg;
	struct vxtop_shown v;		/* the shown moment and its rows */
	const struct top_screen *scr;
	const struct top_screen *back;	/* where Esc returns */
	size_t top;			/* first row shown */
	size_t err_top;			/* error list scroll */
	size_t script_top;		/* script output scroll */
	size_t proc_top;		/* process list scroll */
	enum heat_metric heat;
	bool sorting;			/* the sort menu is open */
	size_t sort_pick;
	uint64_t rotations;		/* of the followed file, said so far */
	unsigned closed;		/* intervals closed since the last draw */
	uint64_t shown;			/* intervals closed since start */
	int rc;				/* the collector's failure, or 0 */
	struct tui_screen scr_mgr;
	struct tui_panel header, body, sortmenu;
	struct tui_help help;
};

/* The smallest terminal vxtop draws in. */
#define MIN_LINES 6
#define MIN_COLS 40

/* printf at (@y, @x) in @role (enum tui_role), clipped to @width columns
 * (-1 = to the edge). */
void top_print(int y, int x, int width, int role, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Shade @level (0..TUI_HEAT_LEVELS) as a heat cell or a sparkline bar. */
void top_heat_cell(int y, int x, unsigned level);
void top_spark_cell(int y, int x, unsigned level);
/* Selection moves shared by list screens. @return a reaction. */
int top_move_key(int key, size_t n, size_t *sel, int page);
/* Wall clock "HH:MM:SS.mmm" of @real_ns. */
char *top_clock(uint64_t real_ns, bool ms, char *buf, size_t size);
/* The words of an error's row: its object ("?" when unknown), its errno's
 * name ("?"), its wall-clock time with ms and its size. */
struct top_err_text {
	const char *object, *errno_name;
	char when[32], size[16];
};
void top_err_text(const struct vxtop_model *m, const struct vxtop_err *e,
		  struct top_err_text *x);
/* Switch to @s, remembering where Esc returns. */
void top_show(struct top *t, const struct top_screen *s);
/* The header panel's draw (screens/header.c). */
void top_header_draw(struct tui_panel *p, bool focused);
/* A message on the key bar line until the next key. */
void top_msg(struct top *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
