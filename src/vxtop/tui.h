/* tui.h - vxtop's live screens: the screen manager and what screens share
 *
 * Each screen is a const table of functions (draw, on_key). Keys return a
 * reaction mask the main loop applies once. The shown interval is frozen while
 * paused; the header (source, interval, uptime, events/s, lost) stays live.
 */
#ifndef VXTOP_TUI_H
#define VXTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_color.h"
#include "tui_draw.h"
#include "tui_heatmap.h"
#include "tui_screen.h"
#include "vxtop.h"

/* Reactions of a key: TUI_REDRAW and TUI_QUIT of tui_screen.h, and: */
#define TOP_ROWS	0x100	/* rebuild rows (sort, filter, selection) */

struct top;

struct top_screen {
	const char *name;
	/* Draw in lines [top, bottom) of the terminal. */
	void (*draw)(struct top *t, int top, int bottom);
	/* @return a reaction mask, or -1 when the key is not the screen's. */
	int (*on_key)(struct top *t, int key);
	const char *keys;	/* key bar text, "key:label key:label" */
};

extern const struct top_screen top_table_screen;
extern const struct top_screen top_errors_screen;
extern const struct top_screen top_heat_screen;
extern const struct top_screen top_detail_screen;
extern const struct top_screen top_help_screen;

enum top_prompt { TP_NONE, TP_FILTER, TP_SORT };

enum heat_metric { HM_IOPS, HM_MBS, HM_UTIL, HM_P99, HM_ERRORS, HM_COUNT };

struct top {
	struct vxtop_collector *c;
	struct vxtop_cfg *cfg;
	const struct top_screen *scr;
	const struct top_screen *back;	/* where Esc returns */
	bool paused;
	uint64_t frozen_seq;		/* the interval shown while paused */
	uint64_t frozen_nerrs;
	struct vxt_hist *frozen_lat;	/* per object, as of the pause */
	size_t nfrozen_lat;
	bool has_snap;
	struct vxtop_row *rows;
	size_t nrows, caprows, nidle;
	size_t sel;			/* selected row */
	uint32_t sel_object;		/* kept across re-sorts */
	size_t top;			/* first row shown */
	size_t err_top;			/* error list scroll */
	enum heat_metric heat;
	enum top_prompt prompt;
	char line[64];			/* prompt text being typed */
	size_t sort_pick;
	char glob[64];
	char msg[128];			/* shown in place of the key bar once */
	uint64_t rotations;		/* of the followed file, said so far */
	unsigned closed;		/* intervals closed since the last draw */
	uint64_t shown;			/* intervals closed since start */
	struct tui_screen scr_mgr;	/* terminal setup and restoration */
};

/* printf at (@y, @x) in @role (enum tui_role), clipped to @width columns
 * (-1 = to the edge). */
void top_print(int y, int x, int width, int role, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Shade @level (0..TUI_HEAT_LEVELS) as a heat cell or a sparkline bar. */
void top_heat_cell(const struct top *t, int y, int x, unsigned level);
void top_spark_cell(const struct top *t, int y, int x, unsigned level);
/* The shown interval and the ones before it (@back = 0: the shown one). */
const struct vxtop_snap *top_snap(const struct top *t, size_t back);
/* The @back-th newest error as of the shown moment, or NULL. */
const struct vxtop_err *top_err(const struct top *t, uint64_t back);
uint64_t top_nerrs(const struct top *t);
/* Selection moves shared by list screens. @return a reaction or -1. */
int top_move_key(struct top *t, int key, size_t n, size_t *sel, int page);
/* Wall clock "HH:MM:SS.mmm" of @real_ns. */
char *top_clock(uint64_t real_ns, bool ms, char *buf, size_t size);
/* Level 0..8 of @v on a scale to @max; @log for a log scale. */
unsigned top_level(double v, double max, bool log);
/* Value of @metric for object @id in @s. */
double top_metric(const struct top *t, const struct vxtop_snap *s, uint32_t id,
		  enum heat_metric metric);
const char *top_metric_name(enum heat_metric m);
/* Latencies of object @id in the shown interval, or NULL. */
const struct vxt_hist *top_last_lat(const struct top *t, uint32_t id);
/* Switch to @s, remembering where Esc returns. */
void top_show(struct top *t, const struct top_screen *s);

#endif
