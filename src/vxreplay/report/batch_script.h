/* batch_script.h - vxreplay --script in batch mode (see batch_script.c) */
#ifndef VXREPLAY_BATCH_SCRIPT_H
#define VXREPLAY_BATCH_SCRIPT_H

#include "report/report.h"

#define BATCH_SCRIPT_MAX_X	32

struct batch_script {
	struct vxt_script *s;
	struct vxt_script_stats st;
	FILE *text;			/* the script's output goes here, or NULL */
	uint64_t *kept;			/* file ordinals of the kept events, ascending */
	size_t nkept, cap, cursor;
	uint64_t considered;		/* events pushed */
	int exit_code;			/* exit()'s argument */
};

/* Load script @name (NAME.d on the profile search path with @dir, or a
 * path), with the -x settings @xopts (@nx of them) and the macro arguments
 * @margs ($1 ..., @nmargs of them); run the events in @c's
 * scope through it (those matching @filter, may be NULL), writing its
 * output to @text (NULL: none), and make @c keep the events it kept.
 * @return 0, else an exit status after printing why. */
int batch_script_begin(struct report_ctx *c, struct batch_script *bs, const char *name,
		       const char *dir, const char *const *xopts, unsigned nx,
		       const char *const *margs, unsigned nmargs, const char *filter, FILE *text);
/* DTrace's counters on stderr, one "vxreplay: NAME: ..." line each. */
void batch_script_problems(const struct batch_script *bs, FILE *out);
void batch_script_end(struct batch_script *bs);

#endif
