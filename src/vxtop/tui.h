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

#include "vxtop.h"

/* Colour roles; one table maps them to colours or monochrome attributes. */
enum tui_role {
	TR_NORMAL,
	TR_HEADER,
	TR_TITLE,	/* column titles */
	TR_SORTCOL,	/* the sorted column's title */
	TR_SELECTED,
	TR_IDLE,	/* objects without I/O: faded */
	TR_ERROR,
	TR_WARN,
	TR_KEY,		/* key names in the key bar */
	TR_KEYTEXT,
	TR_PAUSED,
	TR_GOOD,
	TR_HEAT1, TR_HEAT2, TR_HEAT3, TR_HEAT4, TR_HEAT5,
	TR_COUNT
};

/* Reactions of a key. */
#define TUI_REDRAW	0x1
#define TUI_QUIT	0x2
#define TUI_ROWS	0x4	/* rebuild rows (sort, filter, selection) */

struct tui;

struct tui_screen {
	const char *name;
	/* Draw in lines [top, bottom) of the terminal. */
	void (*draw)(struct tui *t, int top, int bottom);
	/* @return a reaction mask, or -1 when the key is not the screen's. */
	int (*on_key)(struct tui *t, int key);
	const char *keys;	/* key bar text, "key:label key:label" */
};

extern const struct tui_screen tui_table_screen;
extern const struct tui_screen tui_errors_screen;
extern const struct tui_screen tui_heat_screen;
extern const struct tui_screen tui_detail_screen;
extern const struct tui_screen tui_help_screen;

enum tui_prompt { TP_NONE, TP_FILTER, TP_SORT };

enum heat_metric { HM_IOPS, HM_MBS, HM_UTIL, HM_P99, HM_ERRORS, HM_COUNT };

struct tui {
	struct vxtop_collector *c;
	struct vxtop_cfg *cfg;
	const struct tui_screen *scr;
	const struct tui_screen *back;	/* where Esc returns */
	bool paused;
	uint64_t frozen_seq;		/* the interval shown while paused */
	uint64_t frozen_nerrs;
	bool has_snap;
	struct vxtop_row *rows;
	size_t nrows, caprows, nidle;
	size_t sel;			/* selected row */
	uint32_t sel_object;		/* kept across re-sorts */
	size_t top;			/* first row shown */
	size_t err_top;			/* error list scroll */
	enum heat_metric heat;
	enum tui_prompt prompt;
	char line[64];			/* prompt text being typed */
	size_t sort_pick;
	char glob[64];
	char msg[128];			/* shown in place of the key bar once */
	unsigned closed;		/* intervals closed since the last draw */
	bool color, ascii;
};

/* Attribute of @role. */
int tui_attr(const struct tui *t, enum tui_role role);
/* printf at (@y, @x), clipped to @width columns (-1 = to the edge). */
void tui_print(int y, int x, int width, int attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Shade @level (0..8) as a heat cell or a sparkline bar at (@y, @x). */
void tui_heat_cell(const struct tui *t, int y, int x, unsigned level);
void tui_spark_cell(const struct tui *t, int y, int x, unsigned level);
/* The shown interval and the ones before it (@back = 0: the shown one). */
const struct vxtop_snap *tui_snap(const struct tui *t, size_t back);
/* The @back-th newest error as of the shown moment, or NULL. */
const struct vxtop_err *tui_err(const struct tui *t, uint64_t back);
uint64_t tui_nerrs(const struct tui *t);
/* Selection moves shared by list screens. @return a reaction or -1. */
int tui_move_key(struct tui *t, int key, size_t n, size_t *sel, int page);
/* Wall clock "HH:MM:SS.mmm" of @real_ns. */
char *tui_clock(uint64_t real_ns, bool ms, char *buf, size_t size);
/* Level 0..8 of @v on a scale to @max; @log for a log scale. */
unsigned tui_level(double v, double max, bool log);
/* Value of @metric for object @id in @s. */
double tui_metric(const struct tui *t, const struct vxtop_snap *s, uint32_t id,
		  enum heat_metric metric);
const char *tui_metric_name(enum heat_metric m);
/* Switch to @s, remembering where Esc returns. */
void tui_show(struct tui *t, const struct tui_screen *s);

#endif
