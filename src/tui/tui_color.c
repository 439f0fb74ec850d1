/* tui_color.c - the colour table by role and its monochrome twin
 *
 * Both schemes are const tables indexed by enum tui_role; tui_color_init()
 * picks one. Heat levels fall back to bold/reverse steps in monochrome, the
 * heatmap widget adds shade characters so levels stay readable either way.
 */
#include <stdlib.h>
#include <string.h>

#include "tui_color.h"

struct role_style {
	short fg, bg;		/* colour scheme; -1 = terminal default */
	attr_t cattr;		/* extra attributes with colours */
	attr_t mattr;		/* monochrome attributes */
};

static const struct role_style styles[TUI_R_COUNT] = {
	[TUI_R_NORMAL]		= { -1, -1, A_NORMAL, A_NORMAL },
	[TUI_R_HEADER]		= { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[TUI_R_HEADER_VALUE]	= { -1, -1, A_BOLD, A_BOLD },
	[TUI_R_TITLE]		= { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_UNDERLINE },
	[TUI_R_TITLE_FOCUS]	= { COLOR_BLACK, COLOR_GREEN, A_BOLD, A_REVERSE | A_BOLD },
	[TUI_R_COLHEAD]		= { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE },
	[TUI_R_SELECTED]	= { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TUI_R_SELECTED_DIM]	= { COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_UNDERLINE },
	[TUI_R_ERROR]		= { COLOR_RED, -1, A_BOLD, A_BOLD },
	[TUI_R_ERROR_SEL]	= { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[TUI_R_WARN]		= { COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[TUI_R_GOOD]		= { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[TUI_R_DIM]		= { COLOR_BLUE, -1, A_BOLD, A_DIM },
	[TUI_R_MARK]		= { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
	[TUI_R_CURSOR]		= { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[TUI_R_BAR]		= { COLOR_RED, -1, A_NORMAL, A_NORMAL },
	[TUI_R_KEY]		= { -1, -1, A_BOLD, A_BOLD },
	[TUI_R_KEY_LABEL]	= { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TUI_R_PROMPT]		= { -1, -1, A_BOLD, A_BOLD },
	[TUI_R_MSG]		= { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE },
	[TUI_R_MSG_ERROR]	= { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[TUI_R_PROGRESS]	= { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE },
	[TUI_R_HEAT1]		= { COLOR_BLUE, -1, A_NORMAL, A_DIM },
	[TUI_R_HEAT2]		= { COLOR_BLUE, -1, A_BOLD, A_DIM },
	[TUI_R_HEAT3]		= { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[TUI_R_HEAT4]		= { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[TUI_R_HEAT5]		= { COLOR_GREEN, -1, A_BOLD, A_NORMAL },
	[TUI_R_HEAT6]		= { COLOR_YELLOW, -1, A_NORMAL, A_BOLD },
	[TUI_R_HEAT7]		= { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[TUI_R_HEAT8]		= { COLOR_RED, -1, A_BOLD, A_BOLD },
};

static bool color_on;

bool tui_color_env_mono(void)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (nc && *nc)
		return true;
	return !term || !*term || !strcmp(term, "dumb");
}

void tui_color_init(enum tui_color_mode mode)
{
	color_on = mode == TUI_COLOR_AUTO && !tui_color_env_mono() && has_colors();
	if (!color_on)
		return;
	if (start_color() == ERR) {
		color_on = false;
		return;
	}
	if (COLOR_PAIRS <= TUI_R_COUNT) {
		color_on = false;
		return;
	}
	use_default_colors();
	for (int i = 1; i < TUI_R_COUNT; i++)
		init_pair(i, styles[i].fg, styles[i].bg);
}

bool tui_color_on(void)
{
	return color_on;
}

attr_t tui_attr(int role)
{
	if (role < 0 || role >= TUI_R_COUNT)
		return A_NORMAL;
	if (!color_on)
		return styles[role].mattr;
	if (role == TUI_R_NORMAL)
		return A_NORMAL;
	return COLOR_PAIR(role) | styles[role].cattr;
}
