/* script.h - vxtop --script: a D-style script over the live events
 *
 * Every event the model counts goes to the script too (include/vxtrace/
 * script.h); tick probes fire by the wall clock for a live source and by
 * event time when following a file. What reaches the script's principal
 * buffer (printa() of its aggregations, printf(), trace()) is collected per
 * vxtop interval: at each close the interval's text becomes `last`, which the
 * batch output prints and the script screen draws (the newest non-empty one
 * stays shown). The text kept per interval is bounded; the excess is
 * counted. No curses here.
 */
#ifndef VXTOP_SCRIPT_H
#define VXTOP_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/vxtrace.h"
#include "vxtrace/script.h"

#define VXTOP_SCRIPT_TEXT_MAX (1u << 20)	/* bytes of output kept per interval */

struct vxtop_text {
	char *p;
	size_t n, cap;
};

struct vxtop_script {
	struct vxt_script *s;
	bool live;			/* ticks by the clock (vxtop_script_tick) */
	uint64_t ordinal;		/* events pushed */
	struct vxtop_text cur;		/* since the last interval closed */
	struct vxtop_text last;		/* the last closed interval's */
	struct vxtop_text shown;	/* the newest non-empty interval's */
	uint64_t shown_end_ns;		/* ... the source time it ended at */
	struct vxtop_text end;		/* what END printed */
	uint64_t text_dropped;		/* bytes over VXTOP_SCRIPT_TEXT_MAX */
	bool ended;
};

/* Find and compile script @name (a path, or NAME.d in the profile
 * directories, @dir first); @xopts: -x settings; @margs: its $1 .... @return 0, or -EINVAL with
 * "file:line:col: message" in @err. */
int vxtop_script_open(struct vxtop_script *vs, const char *name, const char *dir,
		      const char *const *xopts, unsigned nx, const char *const *margs,
		      unsigned nmargs, char *err, size_t errsz);
/* Run BEGIN. @live: ticks by the wall clock. @return 0 or a negative errno. */
int vxtop_script_start(struct vxtop_script *vs, const struct vxt_objtab *objs,
		       const struct vxt_strtab *strs, bool live, uint64_t time_base);
/* Run the clauses for @n events. @return 0 or a negative errno. */
int vxtop_script_feed(struct vxtop_script *vs, const struct vxt_event *ev, size_t n);
/* Fire the ticks due at source time @now_ns: live, as the clock goes; by
 * event time, at an interval's end (a tick there belongs to the interval). */
int vxtop_script_tick(struct vxtop_script *vs, uint64_t now_ns);
/* An interval ended at source time @end_ns: its text becomes `last`. */
void vxtop_script_close_interval(struct vxtop_script *vs, uint64_t end_ns);
/* Run END (once): its text goes to `end`. @return 0 or a negative errno. */
int vxtop_script_end(struct vxtop_script *vs);
void vxtop_script_free(struct vxtop_script *vs);
/* The script's name. */
const char *vxtop_script_name(const struct vxtop_script *vs);

#endif
