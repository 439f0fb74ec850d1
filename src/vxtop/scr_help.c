/* scr_help.c - vxtop's help screen: keys and columns
 */
#include <curses.h>

#include "tui.h"

static const char *const help_lines[] = {
	"Keys",
	"  space        pause: interval figures freeze; collecting, the header and",
	"               the counts since start go on",
	"  < >  F6      sort by the previous / next column, or pick one",
	"  I r          reverse the sort order",
	"  f /          filter objects by a name glob (sd*, dm-?); empty shows all",
	"  Up Down      select an object;  PgUp PgDn Home End",
	"  Enter        detail of the selected object: op mix, latency histogram, LBA heatmap",
	"  h            heatmap of the last intervals (M: metric)",
	"  e            error list (counts since start, newest errors)",
	"  d D          shorter / longer interval",
	"  Esc Left     back;  ^L redraw;  ? help;  q quit",
	"",
	"Columns (per interval)",
	"  r/s w/s      completed reads / writes per second",
	"  rMB/s wMB/s  megabytes (10^6) read / written per second",
	"  avg p99      average and 99th percentile completion latency",
	"  qd           I/Os in flight at the end of the interval",
	"  util%        share of the interval with at least one I/O in flight",
	"  err          failed I/Os in the interval",
	"",
	"Objects without I/O are drawn faded and sink slowly instead of vanishing.",
	"The header's lost count is the events the source dropped; it is never hidden.",
};

static void help_draw(struct top *t, int top, int bottom)
{
	(void)t;
	for (size_t i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++) {
		if (top + (int)i >= bottom)
			break;
		top_print(top + (int)i, 1, -1, help_lines[i][0] != ' ' ? TUI_R_HEADER :
			  TUI_R_NORMAL, "%s", help_lines[i]);
	}
}

const struct top_screen top_help_screen = {
	.name = "help",
	.draw = help_draw,
	.on_key = NULL,
	.keys = "Esc:back ?:close q:quit",
};
