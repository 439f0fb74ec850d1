/* tui_prompt.c - line editing for the prompt line
 *
 * Keys: printable characters insert, Backspace/Delete, Left/Right, Home/End
 * (also ^A/^E), ^U clears, Up/Down recall what was entered at the same
 * prompt before, Enter submits, Esc cancels.
 */
#include <string.h>

#include "tui_screen.h"

#define HIST_MAX 32

/* Accepted entries of every prompt, oldest first; a prompt recalls its own
 * (same label). */
static struct hist_entry {
	char label[48];
	char text[TUI_PROMPT_MAX];
} hist[HIST_MAX];
static int nhist;

static void hist_add(const struct tui_prompt *p)
{
	if (!p->buf[0])
		return;
	if (nhist && !strcmp(hist[nhist - 1].label, p->label) && !strcmp(hist[nhist - 1].text, p->buf))
		return;
	if (nhist == HIST_MAX)
		memmove(&hist[0], &hist[1], (HIST_MAX - 1) * sizeof(hist[0]));
	else
		nhist++;
	snprintf(hist[nhist - 1].label, sizeof(hist[0].label), "%s", p->label);
	snprintf(hist[nhist - 1].text, sizeof(hist[0].text), "%s", p->buf);
}

/* Step @dir (-1 older, +1 newer) through this prompt's entries. */
static void hist_step(struct tui_prompt *p, int dir)
{
	for (int i = p->hist_pos + dir; i >= 0 && i <= nhist; i += dir) {
		if (i == nhist) {
			p->hist_pos = nhist;
			snprintf(p->buf, sizeof(p->buf), "%s", p->typed);
			break;
		}
		if (strcmp(hist[i].label, p->label))
			continue;
		if (p->hist_pos == nhist)
			snprintf(p->typed, sizeof(p->typed), "%s", p->buf);
		p->hist_pos = i;
		snprintf(p->buf, sizeof(p->buf), "%s", hist[i].text);
		break;
	}
	p->len = p->pos = (int)strlen(p->buf);
}

void tui_prompt_open(struct tui_prompt *p, const char *label, const char *init,
		     tui_prompt_done_fn done)
{
	memset(p, 0, sizeof(*p));
	p->active = true;
	snprintf(p->label, sizeof(p->label), "%s", label);
	snprintf(p->buf, sizeof(p->buf), "%s", init ? init : "");
	p->len = p->pos = (int)strlen(p->buf);
	p->done = done;
	p->hist_pos = nhist;
}

static void insert(struct tui_prompt *p, int ch)
{
	if (p->len + 1 >= TUI_PROMPT_MAX)
		return;
	memmove(p->buf + p->pos + 1, p->buf + p->pos, (size_t)(p->len - p->pos + 1));
	p->buf[p->pos++] = (char)ch;
	p->len++;
}

static void delete_at(struct tui_prompt *p, int at)
{
	if (at < 0 || at >= p->len)
		return;
	memmove(p->buf + at, p->buf + at + 1, (size_t)(p->len - at));
	p->len--;
	if (p->pos > at)
		p->pos--;
}

static int submit(struct tui_prompt *p, void *app)
{
	int rc;

	p->err[0] = 0;
	rc = p->done ? p->done(app, p->buf, p->err, sizeof(p->err)) : 0;
	if (p->err[0])
		return (rc & ~TUI_CLOSE) | TUI_REDRAW;
	hist_add(p);
	p->active = false;
	return rc | TUI_CLOSE | TUI_REDRAW;
}

int tui_prompt_key(struct tui_prompt *p, void *app, int key)
{
	switch (key) {
	case TUI_KEY_ESC:
		p->active = false;
		return TUI_CLOSE | TUI_REDRAW;
	case '\n': case '\r': case KEY_ENTER:
		return submit(p, app);
	case KEY_BACKSPACE: case 127: case 8:
		delete_at(p, p->pos - 1);
		break;
	case KEY_DC:
		delete_at(p, p->pos);
		break;
	case KEY_LEFT:
		if (p->pos > 0)
			p->pos--;
		break;
	case KEY_RIGHT:
		if (p->pos < p->len)
			p->pos++;
		break;
	case KEY_UP:
		hist_step(p, -1);
		break;
	case KEY_DOWN:
		hist_step(p, 1);
		break;
	case KEY_HOME: case 1:
		p->pos = 0;
		break;
	case KEY_END: case 5:
		p->pos = p->len;
		break;
	case 21:	/* ^U */
		p->buf[0] = 0;
		p->len = p->pos = 0;
		break;
	default:
		if (key >= 32 && key < 256 && key != 127)
			insert(p, key);
		else
			return TUI_NONE;
	}
	p->err[0] = 0;
	return TUI_REDRAW;
}

void tui_prompt_draw(const struct tui_prompt *p, int y, int cols)
{
	int lw, room, off;

	if (p->err[0] && y > 0) {
		tui_fill(y - 1, 0, cols, TUI_R_MSG_ERROR, " ");
		tui_printw(y - 1, 0, cols, TUI_R_MSG_ERROR, " %s", p->err);
	}
	tui_fill(y, 0, cols, TUI_R_NORMAL, " ");
	lw = tui_puts(y, 0, cols, TUI_R_PROMPT, p->label);
	room = cols - lw - 1;
	if (room <= 0)
		return;
	off = p->pos > room ? p->pos - room : 0;
	tui_puts(y, lw, room, TUI_R_NORMAL, p->buf + off);
	/* the cursor: the character under it in reverse */
	attrset(A_REVERSE);
	mvaddch(y, lw + p->pos - off, p->pos < p->len ? (chtype)(unsigned char)p->buf[p->pos] : ' ');
	attrset(A_NORMAL);
}
