/* tui_color.h - one colour table, indexed by role, with a monochrome scheme
 *
 * Widgets never name colours: they ask for the attributes of a role. The
 * colour scheme is used when the terminal has colours; the monochrome scheme
 * (bold, reverse, underline only) when it has none, when TERM is "dumb", when
 * NO_COLOR is set to a non-empty value (https://no-color.org), or on request.
 */
#ifndef VXT_TUI_COLOR_H
#define VXT_TUI_COLOR_H

#include <stdbool.h>
#include <curses.h>

enum tui_role {
	TUI_R_NORMAL = 0,
	TUI_R_HEADER,		/* header labels */
	TUI_R_HEADER_VALUE,	/* header values */
	TUI_R_TITLE,		/* panel title, unfocused */
	TUI_R_TITLE_FOCUS,	/* panel title, focused */
	TUI_R_COLHEAD,		/* table column headings */
	TUI_R_SELECTED,		/* selected row in the focused panel */
	TUI_R_SELECTED_DIM,	/* selected row in an unfocused panel */
	TUI_R_ERROR,		/* failed I/O, error counts */
	TUI_R_ERROR_SEL,	/* a failed I/O that is also selected */
	TUI_R_WARN,		/* lost events, damage */
	TUI_R_GOOD,		/* "ok", sane states */
	TUI_R_DIM,		/* secondary text, idle objects */
	TUI_R_MARK,		/* user marks */
	TUI_R_CURSOR,		/* the time cursor on timelines and heatmaps */
	TUI_R_BAR,		/* timeline bars */
	TUI_R_KEY,		/* key bar: the key */
	TUI_R_KEY_LABEL,	/* key bar: what it does */
	TUI_R_PROMPT,		/* prompt line */
	TUI_R_MSG,		/* status message */
	TUI_R_MSG_ERROR,	/* status message about a failure */
	TUI_R_PROGRESS,		/* background work progress */
	TUI_R_HEAT1,		/* heat levels, coolest ... */
	TUI_R_HEAT2,
	TUI_R_HEAT3,
	TUI_R_HEAT4,
	TUI_R_HEAT5,
	TUI_R_HEAT6,
	TUI_R_HEAT7,
	TUI_R_HEAT8,		/* ... hottest */
	TUI_R_COUNT
};

#define TUI_HEAT_LEVELS 8

enum tui_color_mode {
	TUI_COLOR_AUTO = 0,	/* colour if the terminal and the environment allow it */
	TUI_COLOR_NEVER,	/* monochrome scheme */
};

/* Choose the scheme and set up colour pairs; call after initscr(). Can't fail. */
void tui_color_init(enum tui_color_mode mode);
/* True when the colour scheme is in use. */
bool tui_color_on(void);
/* @return the attributes of @role (A_NORMAL for an unknown role). */
attr_t tui_attr(int role);
/* True when the environment asks for no colour (NO_COLOR set and non-empty,
 * or TERM unset or "dumb"). Usable before initscr(). */
bool tui_color_env_mono(void);

#endif
