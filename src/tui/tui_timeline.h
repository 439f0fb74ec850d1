/* tui_timeline.h - the timeline widget: one bar per column, marks beneath
 *
 * Draws per-bin values (error counts, events ...) as vertical bars of block
 * characters (ASCII steps without UTF-8) over all but the last row of a
 * rectangle (no bars when val is NULL); the last row is the axis with the
 * cursor, lost-event marks ("!"), slow-I/O marks and user marks, in that
 * order of precedence; a column whose bins were not captured (a capture that
 * kept only some windows) is shaded dim. Any non-zero bin shows at least the lowest step, so a
 * single error is never invisible. The data comes from a model that bins
 * by column (see vxtrace/timeline.h); the widget only draws.
 */
#ifndef VXT_TUI_TIMELINE_H
#define VXT_TUI_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "tui_draw.h"

struct tui_timeline {
	int nbins;
	const uint64_t *val;	/* nbins values */
	const uint64_t *lost;	/* nbins lost counts, or NULL */
	const uint64_t *slow;	/* nbins counts of slow I/O, or NULL */
	const uint8_t *marks;	/* nbins user-mark flags, or NULL */
	const uint8_t *uncaptured;	/* nbins flags: nothing was captured then
					 * (a column all such is shaded, dim), or NULL */
	int cursor;		/* bin of the cursor, -1 = none */
	int bar_role;		/* role of the bars (TUI_R_ERROR for errors) */
	bool log_scale;		/* log2 heights: small bursts stay visible next to big ones */
};

/* Draw @tl in @r (r->h >= 2). Columns map to bins proportionally. */
void tui_timeline_draw(const struct tui_rect *r, const struct tui_timeline *tl);
/* @return the bin under screen column @x of @r, or -1. */
int tui_timeline_bin_at(const struct tui_rect *r, const struct tui_timeline *tl, int x);
/* One lane: a row of shades for @vals scaled to @max, after a label. */
void tui_timeline_lane(int y, int x, int w, const char *label, int label_w,
		       const uint64_t *vals, int nbins, uint64_t max, int role);

#endif
