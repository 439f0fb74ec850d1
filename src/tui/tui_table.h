/* tui_table.h - columns, rows and a scrolling selection for lists and tables
 *
 * Two layers: column drawing (a heading line and rows of cells, used by any
 * list, including virtual ones that have no row numbers), and struct tui_list,
 * the scroll/selection state of a list of n rows with its key handling.
 * struct tui_table puts them together for an indexed table whose cells come
 * from a callback (object tables, marks, vxtop's device table).
 */
#ifndef VXT_TUI_TABLE_H
#define VXT_TUI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "tui_screen.h"

enum tui_align { TUI_LEFT = 0, TUI_RIGHT = 1 };

struct tui_column {
	const char *title;
	int width;		/* cells; the last column takes what is left */
	enum tui_align align;
};

/* The heading line. */
void tui_columns_head(int y, int x, int w, const struct tui_column *cols, int ncols);
/* One row of @ncols cells, each clipped to its column, in @role. */
void tui_columns_row(int y, int x, int w, const struct tui_column *cols, int ncols,
		     const char *const *cells, int role);

struct tui_list {
	size_t n;		/* rows */
	size_t sel;		/* selected row */
	size_t top;		/* first row shown */
};

/* Movement keys (arrows, PgUp/PgDn, Home/End, g/G) for a window of @page rows.
 * @return TUI_REDRAW, or TUI_IGNORED for other keys. */
int tui_list_key(struct tui_list *l, int key, int page);
/* Keep the selection in range and visible in @page rows. */
void tui_list_fix(struct tui_list *l, int page);

/* Cell text of row @row, column @col into @buf; return the row's role via
 * *role (set once per row, at col 0). */
typedef void (*tui_table_cell_fn)(void *ctx, size_t row, int col, char *buf, size_t size,
				  int *role);

struct tui_table {
	struct tui_panel panel;		/* panel.data = the table */
	const char *title;
	const struct tui_column *cols;
	int ncols;
	struct tui_list list;
	tui_table_cell_fn cell;
	void *ctx;
	/* Enter, or another key not used for movement. @return a reaction mask. */
	int (*on_key)(void *ctx, struct tui_table *t, int key);
	char status[128];		/* right side of the title */
};

/* Set up @t; its panel is t->panel. Can't fail. */
void tui_table_init(struct tui_table *t, const char *title, const struct tui_column *cols,
		    int ncols, tui_table_cell_fn cell, void *ctx);

#endif
