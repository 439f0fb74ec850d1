/* rotate.c - vxrecord's file rotation: numbered names, size and time
 *
 * Files rotate on a size check every few thousand events (the size grows as
 * chunks close, so a file may pass SIZE by up to one chunk) and exactly at
 * the first event that would make a file span TIME or more. A rotated file
 * takes the next number (the highest in the directory plus one, looked up
 * once at start), so a rotation is one rename and, with --keep, one unlink.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
	if (vxt_parse_duration(arg, &v) == 0) {
		if (v < ROTATE_MIN_NS)
			return -ERANGE;
		rt->max_ns = v;
		rt->max_bytes = 0;
		return 0;
	}
	if (vxt_parse_size(arg, &v) == 0) {
		if (v < ROTATE_MIN_BYTES)
			return -ERANGE;
		rt->max_bytes = v;
		rt->max_ns = 0;
		return 0;
	}
	return -EINVAL;
}

/* The parts around the number: "trace." and ".vxt", or "FILE." and "". */
static void name_parts(const struct rotate *rt, size_t *stem, const char **suffix)
{
	size_t len = strlen(rt->path);

	if (len > 4 && !strcmp(rt->path + len - 4, ".vxt")) {
		*stem = len - 4;
		*suffix = ".vxt";
	} else {
		*stem = len;
		*suffix = "";
	}
}

int rotate_check_name(const struct rotate *rt)
{
	char buf[PATH_MAX];
	const char *base;

	if (!rotate_name(rt, UINT_MAX, buf, sizeof(buf)))
		return -ENAMETOOLONG;
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	return strlen(base) > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* @return N if @name is the rotated name number N of @rt (in its directory), else 0. */
static unsigned number_of(const struct rotate *rt, const char *name)
{
	const char *base = strrchr(rt->path, '/'), *suffix, *p;
	size_t stem, blen;
	unsigned long n;
	char *end;

	name_parts(rt, &stem, &suffix);
	base = base ? base + 1 : rt->path;
	blen = stem - (size_t)(base - rt->path);
	if (strncmp(name, base, blen) || name[blen] != '.')
		return 0;
	p = name + blen + 1;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (errno || n > UINT_MAX - 1 || strcmp(end, suffix) || (size_t)(end - p) > 10)
		return 0;
	return (unsigned)n;
}

/* Once: the next number is one past the highest in the directory; with
 * --keep, the ones already past it go. */
static int scan_numbers(struct rotate *rt)
{
	char dir[PATH_MAX], name[PATH_MAX];
	const char *slash = strrchr(rt->path, '/');
	unsigned max = 0, n;
	struct dirent *de;
	DIR *d;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rt->path + 1), rt->path);
	else
		snprintf(dir, sizeof(dir), ".");
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if ((n = number_of(rt, de->d_name)) > max)
			max = n;
	if (rt->keep && max) {
		rewinddir(d);
		/* the file rotated next is max + 1: keep max + 2 - keep .. max */
		while ((de = readdir(d))) {
			n = number_of(rt, de->d_name);
			if (n && (uint64_t)n + rt->keep <= (uint64_t)max + 1 &&
			    rotate_name(rt, n, name, sizeof(name)))
				unlink(name);
		}
	}
	closedir(d);
	rt->next = max + 1;
	rt->scanned = true;
	return 0;
}

char *rotate_name(const struct rotate *rt, unsigned n, char *buf, size_t size)
{
	const char *suffix;
	size_t stem;
	int w;

	name_parts(rt, &stem, &suffix);
	w = snprintf(buf, size, "%.*s.%u%s", (int)stem, rt->path, n, suffix);
	return w < 0 || (size_t)w >= size ? NULL : buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int rotate_shift(struct rotate *rt)
{
	char to[PATH_MAX], old[PATH_MAX];
	int rc;

	if (!rt->scanned && (rc = scan_numbers(rt)) < 0)
		return rc;
	if (!exists(rt->path))
		return 0;
	if (rt->next == UINT_MAX || !rotate_name(rt, rt->next, to, sizeof(to)))
		return -ENAMETOOLONG;
	if (exists(to))
		return -EEXIST;		/* made since the scan: not ours to replace */
	if (rename(rt->path, to) < 0)
		return -errno;
	/* with --keep N, the one N numbers back drops out */
	if (rt->keep && rt->next > rt->keep && rotate_name(rt, rt->next - rt->keep, old, sizeof(old)) &&
	    unlink(old) < 0 && errno != ENOENT)
		return -errno;
	rt->next++;
	return 0;
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
