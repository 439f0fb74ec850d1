/* tui_heatmap.h - the heatmap widget: rows x time columns of shaded cells
 *
 * Each cell shows a level 0..TUI_HEAT_LEVELS (0 = nothing) as a shade
 * character coloured by heat role, so levels read the same with colours,
 * in monochrome and in ASCII. Cells with errors are overlaid with an error
 * glyph. Rows carry a label on the left. The levels come from a model
 * (see vxtrace/heatmap.h); the widget only draws.
 */
#ifndef VXT_TUI_HEATMAP_H
#define VXT_TUI_HEATMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "tui_draw.h"

struct tui_heatmap {
	int rows, cols;			/* data grid */
	const uint8_t *level;		/* rows * cols, row-major */
	const uint8_t *err;		/* rows * cols error flags, or NULL */
	const char *const *labels;	/* one per row */
	int label_w;			/* label column width */
	int cursor;			/* data column of the cursor, -1 = none */
	int sel_row;			/* highlighted row, -1 = none */
	int top;			/* first row shown */
	int span;			/* screen columns the data columns are spread
					 * over (fewer data columns, drawn wider);
					 * 0 = a screen column per data column */
};

/* Draw the grid in @r after the labels: a screen column per data column, or
 * with @span, each data column over span / cols screen columns. */
void tui_heatmap_draw(const struct tui_rect *r, const struct tui_heatmap *hm);
/* Map a click to (row, col) of the data. @return false outside the cells. */
bool tui_heatmap_hit(const struct tui_rect *r, const struct tui_heatmap *hm, int y, int x,
		     int *row, int *col);
/* The legend "lo [shades] hi  x errors" on one line. */
void tui_heatmap_legend(int y, int x, int w, const char *metric, const char *lo,
			const char *hi);

#endif
