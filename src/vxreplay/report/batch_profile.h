/* batch_profile.h - vxreplay --profile for batch reports (see batch_profile.c) */
#ifndef VXREPLAY_BATCH_PROFILE_H
#define VXREPLAY_BATCH_PROFILE_H

#include "report/report.h"

struct batch_profile {
	struct vxt_reader *r;
	struct vxt_profile *p;
	struct vxt_view_stats st;	/* of the first pass */
	uint64_t *kept;			/* file ordinals the view keeps, ascending */
	size_t nkept, cap, cursor;
	struct vxt_event *held;		/* the kept events, kept[i]'s at [i] */
	bool held_off;			/* more than BATCH_PROFILE_HELD_MAX */
};

/* The bytes of kept events the first pass holds for the report's pass;
 * past it the report's pass reads the file again. */
#define BATCH_PROFILE_HELD_MAX ((size_t)64 << 20)

/* Load profile @name (search path with @dir), run the events in @c's scope
 * through its view (with the extra @filter, may be NULL), and make @c keep
 * what it kept (from memory when it held them all: report_ctx.held; a
 * caller whose report reads the events not kept too clears it). @return 0, else an exit status after printing why. */
int batch_profile_begin(struct report_ctx *c, struct batch_profile *bp, const char *name,
			const char *dir, const char *filter);
void batch_profile_end(struct batch_profile *bp);

#endif
