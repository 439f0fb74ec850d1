/* vxtop.h - what vxtop's main, batch output and screens share
 */
#ifndef VXTOP_H
#define VXTOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "collect.h"
#include "model.h"

/* text table, one JSON array, JSON Lines (an object per line) */
enum vxtop_format { VXTOP_FMT_TEXT, VXTOP_FMT_JSON, VXTOP_FMT_JSONL };

struct vxtop_cfg {
	struct vxtop_opts src;
	bool batch;
	uint64_t count;			/* intervals to show; 0 = until stopped */
	enum vxtop_format format;
	struct vxtop_view view;
	bool sort_given;		/* --sort: batch output sorted too */
	bool processes;			/* --processes: batch rows per process too */
	bool mono;			/* no colours */
	bool ascii;			/* no Unicode block characters */
};

/* Set by SIGINT/SIGTERM/SIGHUP: leave the loop, clean up, exit. */
extern volatile sig_atomic_t vxtop_stop;

/* Batch mode: one table per interval on stdout. @return the exit status. */
int vxtop_batch(struct vxtop_collector *c, const struct vxtop_cfg *cfg);
/* The live screens. @return the exit status. */
int vxtop_tui(struct vxtop_collector *c, struct vxtop_cfg *cfg);

/* Shared formatting: latency as "1.23ms" / "870us" in @buf (width-friendly). */
char *vxtop_fmt_lat(double ns, char *buf, size_t size);
/* Print @p's lines on stdout, each escaped (names in it are the trace's). */
void vxtop_print_lines(const char *p);
/* A rate as "1234", "12.3k", "1.2M". */
char *vxtop_fmt_rate(double v, char *buf, size_t size);

#endif
