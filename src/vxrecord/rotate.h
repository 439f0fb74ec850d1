/* rotate.h - vxrecord --rotate SIZE|TIME --keep N: the flight recorder's files
 *
 * The capture always goes to FILE. When it reaches SIZE bytes, or its events
 * span TIME, it is closed cleanly (footer and all) and renamed FILE.N, N one
 * more than the highest number already there (FILE.1 is the oldest); with
 * --keep N the file N numbers older is deleted. Older files are never
 * renamed. A ".vxt" suffix stays last: trace.vxt -> trace.1.vxt. An existing
 * FILE at start (a restarted recorder) is rotated away the same way instead
 * of being refused.
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
	bool scanned;			/* the directory was looked at ... */
	unsigned next;			/* ... and the next rotated file is FILE.next */
	bool have_first;		/* the current file has events ... */
	uint64_t first_ns;		/* ... the first at this time */
	uint64_t rotations;
	struct vxt_writer_stats done;	/* totals of the closed files */
};

#define ROTATE_MIN_NS 1000000000ull	/* --rotate TIME: at least 1s */
#define ROTATE_MIN_BYTES 8192		/* --rotate SIZE: at least 8K */

/* Parse "64M" (a size, binary suffix) or "10m" / "1h" (a time; m = minutes,
 * M = mebibytes). A unit is required. @return 0, -EINVAL, or -ERANGE below
 * the minimums. */
int rotate_parse(struct rotate *rt, const char *arg);
static inline bool rotate_enabled(const struct rotate *rt)
{
	return rt->max_bytes || rt->max_ns;
}
/* Name of rotated file @n (1 = oldest) into @buf. @return buf, or NULL if too long. */
char *rotate_name(const struct rotate *rt, unsigned n, char *buf, size_t size);
/* Whether every rotated name of rt->path fits a file name. @return 0 or -ENAMETOOLONG. */
int rotate_check_name(const struct rotate *rt);
/* Rename an existing FILE to the next number (the first call looks at the
 * directory once). @return 0 or -errno. */
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
