/* rotate.c - vxrecord's file rotation: numbered names, shifting, size and time
 *
 * Files rotate on a size check every few thousand events (the size grows as
 * chunks close, so a file may pass SIZE by up to one chunk) and exactly at
 * the first event that would make a file span TIME or more.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rotate.h"

#define ROTATE_SLICE 4096	/* events written between size checks */

int rotate_parse(struct rotate *rt, const char *arg)
{
	size_t len = strlen(arg);
	uint64_t v;

	if (!len || (arg[len - 1] >= '0' && arg[len - 1] <= '9'))
		return -EINVAL;
	if (vxt_parse_duration(arg, &v) == 0 && v) {
		rt->max_ns = v;
		rt->max_bytes = 0;
		return 0;
	}
	if (vxt_parse_size(arg, &v) == 0 && v) {
		rt->max_bytes = v;
		rt->max_ns = 0;
		return 0;
	}
	return -EINVAL;
}

char *rotate_name(const struct rotate *rt, unsigned n, char *buf, size_t size)
{
	size_t len = strlen(rt->path);
	int w;

	if (len > 4 && !strcmp(rt->path + len - 4, ".vxt"))
		w = snprintf(buf, size, "%.*s.%u.vxt", (int)(len - 4), rt->path, n);
	else
		w = snprintf(buf, size, "%s.%u", rt->path, n);
	return w < 0 || (size_t)w >= size ? NULL : buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* rename(@from, @to) unless @from is missing. */
static int move(const char *from, const char *to)
{
	if (rename(from, to) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int rotate_shift(struct rotate *rt)
{
	char a[4096], b[4096];
	unsigned first;
	int rc;

	if (!exists(rt->path))
		return 0;
	if (rt->keep) {
		/* FILE.keep drops out; FILE.(keep-1) ... FILE.1 move up one */
		if (!rotate_name(rt, rt->keep, a, sizeof(a)))
			return -ENAMETOOLONG;
		if (unlink(a) < 0 && errno != ENOENT)
			return -errno;
		first = rt->keep - 1;
	} else {
		/* keep all: every FILE.n moves up one, the oldest first */
		first = 0;
		while (rotate_name(rt, first + 1, a, sizeof(a)) && exists(a))
			first++;
	}
	for (unsigned i = first; i >= 1; i--) {
		if (!rotate_name(rt, i, a, sizeof(a)) || !rotate_name(rt, i + 1, b, sizeof(b)))
			return -ENAMETOOLONG;
		rc = move(a, b);
		if (rc < 0)
			return rc;
	}
	if (!rotate_name(rt, 1, b, sizeof(b)))
		return -ENAMETOOLONG;
	return move(rt->path, b);
}

/* Close the current file, shift the names, open the next file. */
static int rotate_now(struct rotate *rt, struct vxt_writer **w,
		      const struct vxt_writer_opts *opts, struct vxt_objtab *objs,
		      struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_writer_stats st;
	int rc;

	rc = vxt_writer_flush(*w);	/* the totals count closed chunks */
	vxt_writer_get_stats(*w, &st);
	if (rc < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s", vxt_writer_error(*w));
		vxt_writer_close(*w, NULL);
		*w = NULL;
		return rc;
	}
	rc = vxt_writer_close(*w, err);
	*w = NULL;
	if (rc < 0)
		return rc;
	rt->done.events += st.events;
	rt->done.chunks += st.chunks;
	rt->done.raw_bytes += st.raw_bytes;
	rt->done.file_bytes += st.file_bytes;
	rt->done.lost += st.lost;
	rt->done.errors += st.errors;
	rt->done.names_over += st.names_over;
	rt->rotations++;
	rt->have_first = false;
	rc = rotate_shift(rt);
	if (rc < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: rotating: %s", rt->path, strerror(-rc));
		return rc;
	}
	*w = vxt_writer_open(rt->path, opts, objs, strs, err);
	return *w ? 0 : -EIO;
}

/* How many of @ev[0..n) fit the current file by time. */
static size_t fit_time(struct rotate *rt, const struct vxt_event *ev, size_t n)
{
	size_t i;

	if (!rt->max_ns)
		return n;
	for (i = 0; i < n; i++) {
		if (!rt->have_first) {
			rt->have_first = true;
			rt->first_ns = ev[i].time_ns;
		}
		if (ev[i].time_ns >= rt->first_ns && ev[i].time_ns - rt->first_ns >= rt->max_ns)
			break;
	}
	return i;
}

int rotate_write(struct rotate *rt, struct vxt_writer **w, const struct vxt_event *ev,
		 size_t n, const struct vxt_writer_opts *opts, struct vxt_objtab *objs,
		 struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_writer_stats st;
	size_t k;
	int rc;

	while (n) {
		k = fit_time(rt, ev, n);
		if (rt->max_bytes && k > ROTATE_SLICE)
			k = ROTATE_SLICE;	/* check the size often enough */
		if (k && (rc = vxt_writer_write(*w, ev, k)) < 0) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s", vxt_writer_error(*w));
			return rc;
		}
		ev += k;
		n -= k;
		vxt_writer_get_stats(*w, &st);
		if (n || (rt->max_bytes && st.file_bytes >= rt->max_bytes)) {
			rc = rotate_now(rt, w, opts, objs, strs, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

void rotate_add_totals(const struct rotate *rt, struct vxt_writer_stats *st)
{
	st->events += rt->done.events;
	st->chunks += rt->done.chunks;
	st->raw_bytes += rt->done.raw_bytes;
	st->file_bytes += rt->done.file_bytes;
	st->lost += rt->done.lost;
	st->errors += rt->done.errors;
	st->names_over += rt->done.names_over;
}
