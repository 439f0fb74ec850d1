/* rotate.h - vxrecord --rotate SIZE|TIME --keep N: the flight recorder's files
 *
 * The capture always goes to FILE. When it reaches SIZE bytes, or its events
 * span TIME, it is closed cleanly (footer and all) and renamed FILE.1, the
 * older ones shifting to FILE.2, FILE.3 ...; with --keep N the one pushed
 * past N is deleted. A ".vxt" suffix stays last: trace.vxt -> trace.1.vxt.
 * An existing FILE at start (a restarted recorder) is rotated away the same
 * way instead of being refused.
 */
#ifndef VXRECORD_ROTATE_H
#define VXRECORD_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/vxtrace.h"

struct rotate {
	const char *path;		/* FILE */
	uint64_t max_bytes;		/* 0 = no size limit */
	uint64_t max_ns;		/* 0 = no time limit */
	unsigned keep;			/* rotated files kept; 0 = all */
	bool have_first;		/* the current file has events ... */
	uint64_t first_ns;		/* ... the first at this time */
	uint64_t rotations;
	struct vxt_writer_stats done;	/* totals of the closed files */
};

/* Parse "64M" (a size, binary suffix) or "10m" / "1h" (a time; m = minutes,
 * M = mebibytes). A unit is required. @return 0 or -EINVAL. */
int rotate_parse(struct rotate *rt, const char *arg);
static inline bool rotate_enabled(const struct rotate *rt)
{
	return rt->max_bytes || rt->max_ns;
}
/* Name of rotated file @n (1 = newest) into @buf. @return buf, or NULL if too long. */
char *rotate_name(const struct rotate *rt, unsigned n, char *buf, size_t size);
/* Move an existing FILE (and the older ones) out of the way. @return 0 or -errno. */
int rotate_shift(struct rotate *rt);
/*
 * Write @n events to *@w, rotating whenever the current file is full.
 * *@w is replaced by the next file's writer; on failure it may be NULL.
 * @return 0, or a negative errno with the message in @err.
 */
int rotate_write(struct rotate *rt, struct vxt_writer **w, const struct vxt_event *ev,
		 size_t n, const struct vxt_writer_opts *opts, struct vxt_objtab *objs,
		 struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE]);
/* Add the closed files' totals to @st (the current file's stats). */
void rotate_add_totals(const struct rotate *rt, struct vxt_writer_stats *st);

#endif
