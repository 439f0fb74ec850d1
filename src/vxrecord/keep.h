/* keep.h - vxrecord --profile: what reaches the file (see keep.c) */
#ifndef VXRECORD_KEEP_H
#define VXRECORD_KEEP_H

#include <stdio.h>

#include "vxtrace/vxtrace.h"

struct keep {
	const char *profile;		/* --profile NAME, or NULL */
	const char *profile_dir;	/* --profile-dir */
	struct vxt_profile *p;
	struct vxt_view *v;
	struct vxt_batch out;		/* the kept part of the last batch */
	bool based;			/* the time base is set */
};

/* Load the profile and make its view. Without --profile, nothing to do.
 * @return 0 or -1 with a message in @err. */
int keep_open(struct keep *k, const struct vxt_objtab *objs, const struct vxt_strtab *strs,
	      char err[VXT_ERRBUF_SIZE]);
/* Run @b through the view; @return the batch to write (@b itself without a
 * profile), or NULL when out of memory. */
struct vxt_batch *keep_batch(struct keep *k, struct vxt_batch *b);
/* End of input: what the view still holds. @return the batch to write. */
struct vxt_batch *keep_finish(struct keep *k);
/* "  kept N, committed C, discarded D" for the progress line ("" without a profile). */
const char *keep_progress(const struct keep *k, char *buf, size_t size);
/* The closing lines: kept, speculation figures, DTrace's warnings. */
void keep_summary(const struct keep *k, FILE *out);
void keep_close(struct keep *k);

#endif
