/* keep.h - vxrecord --profile: what reaches the file (see keep.c) */
#ifndef VXRECORD_KEEP_H
#define VXRECORD_KEEP_H

#include <stdio.h>

#include "vxtrace/vxtrace.h"
#include "keep_script.h"

struct keep {
	const char *profile;		/* --profile NAME, or NULL */
	const char *profile_dir;	/* --profile-dir */
	const char *filter;		/* --filter EXPR (formats/filter.md), or NULL */
	struct vxt_profile *p;
	struct vxt_view *v;
	struct vxt_batch out;		/* the kept part of the last batch */
	bool based;			/* the time base is set */
	struct vxt_source *kernel;	/* the source runs the profile in the kernel:
					 * no view; borrowed, for its counters */
	struct keep_script script;	/* --script, -x */
	struct vxt_batch passed;	/* --filter's part of a batch, for the script */
	bool live;			/* a live source: the script's clock is the wall clock */
	bool all_phases;		/* the source captures every phase (--phases all) */
	int64_t wall_off_ns;		/* the source's wall clock minus its event clock */
};

/* Can the kernel run --profile (struct vxt_kspec)? Loads the profile to
 * see. @return 1 with @ks filled, 0 (with why it runs in user space in
 * @why; "" when there is no profile), or -1 with a message in @err. */
int keep_kernel_program(struct keep *k, struct vxt_kspec *ks, char *why, size_t len,
			char err[VXT_ERRBUF_SIZE]);
/* Load the profile and make its view (none when k->kernel is set: the
 * kernel keeps what the profile keeps). Without --profile, nothing to do.
 * @return 0 or -1 with a message in @err. */
int keep_open(struct keep *k, const struct vxt_objtab *objs, const struct vxt_strtab *strs,
	      char err[VXT_ERRBUF_SIZE]);
/* Live, with --script: fire the script's due ticks. @return the batch to
 * write, or NULL when out of memory. */
struct vxt_batch *keep_tick(struct keep *k);
/* The script called exit(): stop capturing. */
bool keep_exited(const struct keep *k);
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
