/* tui_prompt.h - the one-line prompt (filter, jump, search, export ...)
 *
 * Owned by the screen manager: while open it gets every key. On Enter it calls
 * the done function; if that writes a message into @err the prompt stays open
 * with the text kept and the message shown (e.g. a filter's syntax error), so
 * nothing the application had is lost. Esc closes it without calling done.
 * Up and Down recall what was accepted at a prompt of the same label.
 */
#ifndef VXT_TUI_PROMPT_H
#define VXT_TUI_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_PROMPT_MAX 256

/* @return a reaction mask; write a message to @err (size @errsz) to keep the
 * prompt open. */
typedef int (*tui_prompt_done_fn)(void *app, const char *text, char *err, size_t errsz);

struct tui_prompt {
	bool active;
	char label[48];
	char buf[TUI_PROMPT_MAX];
	int len, pos;
	char err[200];
	tui_prompt_done_fn done;
	int hist_pos;			/* recalled entry; the count of entries = none */
	char typed[TUI_PROMPT_MAX];	/* what was typed before recalling */
};

void tui_prompt_open(struct tui_prompt *p, const char *label, const char *init,
		     tui_prompt_done_fn done);
/* Feed a key. @return a reaction mask (TUI_CLOSE when the prompt closed). */
int tui_prompt_key(struct tui_prompt *p, void *app, int key);
/* Draw on line @y (and the error line above it when there is an error). */
void tui_prompt_draw(const struct tui_prompt *p, int y, int cols);

#endif
