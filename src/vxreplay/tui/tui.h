/* tui.h - vxreplay's interactive trace browser
 *
 * What vxreplay does when given a FILE and no batch option: an ncurses
 * browser with a header, an error timeline, a heatmap and a virtual event
 * list over the whole file.
 */
#ifndef VXREPLAY_TUI_H
#define VXREPLAY_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vxreplay_tui_opts {
	const char *profile;		/* profile name or path applied at start, or NULL */
	const char *profile_dir;	/* extra directory searched for profiles, or NULL */
	const char *filter;		/* filter expression applied at start, or NULL */
	bool follow;			/* start following a growing file (as with F) */
	bool bench;			/* time scripted keys on a virtual screen, print figures */
	bool bench_first;		/* ... the first full screen only */
	bool ascii;			/* ASCII glyphs only */
	bool no_color;			/* monochrome scheme */
	const char *export_path;	/* default file name offered by x, or NULL */
	const char *const *paths;	/* several files as one trace, or NULL */
	size_t npaths;
	uint64_t t_start;		/* CLOCK_MONOTONIC ns at the program's start (--bench) */
};

/* Browse @path. @return the process exit status (0, or 1 after printing why
 * to stderr). */
int vxreplay_tui(const char *path, const struct vxreplay_tui_opts *opts);

#endif
