/* tui_help.h - the help overlay: every key of the keymap, then extra text
 *
 * Build it once with the keymap and a NULL-terminated array of extra lines,
 * push its panel with tui_screen_push(). Arrows and PgUp/PgDn scroll; any
 * other key closes it.
 */
#ifndef VXT_TUI_HELP_H
#define VXT_TUI_HELP_H

#include "tui_screen.h"

struct tui_help {
	struct tui_panel panel;
	const char *title;
	const struct tui_action *keys;
	const char *const *before;	/* lines above the key list, NULL-terminated; may be NULL */
	const char *const *after;	/* lines below it; may be NULL */
	int top;
};

/* Set up @h; its panel is h->panel. Can't fail. */
void tui_help_init(struct tui_help *h, const char *title, const struct tui_action *keys,
		   const char *const *before, const char *const *after);

#endif
