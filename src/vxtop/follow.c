/* follow.c - vxtop's collector on a .vxt file instead of a source
 *
 * A file being written is followed as tail -f does (what it holds is
 * history; appended chunks are read 10 times a second), and its path as
 * tail -F does: when the path names another file (a recorder with --rotate
 * renamed the old one away), the rest of the old file is read and the new
 * one is followed from its first event. A finished file (one with its
 * footer) is read through, CLOSED_STEP_EVENTS a step, and then the source
 * ends.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "collect.h"
#include "collect_impl.h"

#define FOLLOW_LAG_NS 1500000000ull	/* a recorder closes a chunk each second */
#define FOLLOW_WAIT_NS 5000000000ull	/* wait this long for the file to appear */
#define CLOSED_STEP_EVENTS 65536	/* a finished file: events read per step */

int vxtop_follow_open(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	uint64_t give_up = vxt_now_mono() + FOLLOW_WAIT_NS;
	struct timespec nap = { 0, 100000000 };
	int rc;

	for (;;) {
		struct stat st;

		c->rd = vxt_reader_open(o->follow, c->err);
		if (c->rd || vxt_now_mono() > give_up)
			break;
		/* a fifo or a directory never becomes a trace: no wait */
		if (stat(o->follow, &st) == 0 && !S_ISREG(st.st_mode))
			break;
		nanosleep(&nap, NULL);
	}
	if (!c->rd)
		return -ENOENT;
	if (!vxt_reader_recovered(c->rd)) {
		/* finished (it has its footer): read it through, then end */
		c->closed = true;
		c->lag_ns = 0;
		snprintf(c->name, sizeof(c->name), "file %s", o->follow);
		return 0;
	}
	{
		struct stat st;

		c->follow_path = o->follow;
		if (stat(o->follow, &st) == 0) {
			c->follow_dev = st.st_dev;
			c->follow_ino = st.st_ino;
		}
	}
	/* Like tail -f: what is already in the file is history. */
	rc = vxt_reader_seek_ordinal(c->rd, vxt_reader_nevents(c->rd));
	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "%s: %s", o->follow, vxt_reader_error(c->rd));
		return rc;
	}
	snprintf(c->name, sizeof(c->name), "follow %s", o->follow);
	c->lag_ns = FOLLOW_LAG_NS;
	return 0;
}

static int push_rest(struct vxtop_collector *c)
{
	const struct vxt_event *ev;
	struct vxt_event *slot;
	int rc;

	while ((rc = vxt_reader_next(c->rd, &ev)) == 1) {
		slot = vxt_batch_push(&c->batch);
		if (!slot) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			return -ENOMEM;
		}
		*slot = *ev;
	}
	if (rc < 0)
		snprintf(c->err, sizeof(c->err), "%s", vxt_reader_error(c->rd));
	return rc;
}

/* The path names another file now: finish the old one, follow the new one. */
static int check_rotated(struct vxtop_collector *c)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *nr;
	struct stat st;
	int rc;

	if (c->closed || !c->follow_path || stat(c->follow_path, &st) < 0 ||
	    (st.st_dev == c->follow_dev && st.st_ino == c->follow_ino))
		return 0;
	nr = vxt_reader_open(c->follow_path, err);
	if (!nr)
		return 0;	/* not written far enough yet: look again next time */
	/* the recorder closed the old file before renaming it: take its rest */
	rc = vxt_reader_refresh(c->rd);
	if (rc == 0)
		rc = push_rest(c);
	if (rc == 0)
		rc = vxtop_collect_take_batch(c);
	if (rc < 0) {
		vxt_reader_close(nr);
		return rc;
	}
	vxt_reader_close(c->rd);
	c->rd = nr;
	c->follow_dev = st.st_dev;
	c->follow_ino = st.st_ino;
	c->model.objs = vxt_reader_objects(nr);
	c->rotations++;
	return c->view ? vxtop_collect_rebuild_view(c) : 0;
}

int vxtop_follow_read(struct vxtop_collector *c)
{
	const struct vxt_event *ev;
	struct vxt_event *slot;
	int rc;

	size_t taken = 0;

	if (!c->closed && vxt_now_mono() < c->next_refresh)
		return 0;
	c->next_refresh = vxt_now_mono() + FOLLOW_POLL_NS;
	rc = c->closed ? 0 : vxt_reader_refresh(c->rd);
	if (rc < 0)
		goto fail;
	c->model.objs = vxt_reader_objects(c->rd);
	if (c->view && c->view_objs != c->model.objs) {
		/* the reader rebuilt its tables: a view on the new ones */
		rc = vxtop_collect_rebuild_view(c);
		if (rc < 0)
			return rc;
	}
	while ((!c->closed || taken < CLOSED_STEP_EVENTS) &&
	       (rc = vxt_reader_next(c->rd, &ev)) == 1) {
		slot = vxt_batch_push(&c->batch);
		if (!slot) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			return -ENOMEM;
		}
		*slot = *ev;
		taken++;
	}
	if (rc < 0)
		goto fail;
	if (c->closed && rc == 0)
		c->ended = true;
	rc = vxtop_collect_take_batch(c);
	return rc < 0 ? rc : check_rotated(c);
fail:
	snprintf(c->err, sizeof(c->err), "%s", vxt_reader_error(c->rd));
	return rc;
}
