/* script.c - vxtop --script: the script's events, ticks and output per interval
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"
#include "vxtrace/util.h"

static int sink(void *arg, const struct vxt_script_rec *r)
{
	struct vxtop_script *vs = arg;
	struct vxtop_text *t = vs->ended ? &vs->end : &vs->cur;
	size_t len = r->len;

	if (!len)
		return 0;
	if (t->n + len > VXTOP_SCRIPT_TEXT_MAX) {
		vs->text_dropped += len;
		return 0;
	}
	if (t->n + len + 1 > t->cap && vxt_grow(&t->p, &t->cap, t->n + len + 1, 1) < 0)
		return -ENOMEM;
	memcpy(t->p + t->n, r->text, len);
	t->n += len;
	t->p[t->n] = '\0';
	return 0;
}

int vxtop_script_open(struct vxtop_script *vs, const char *name, const char *dir,
		      const char *const *xopts, unsigned nx, const char *const *margs,
		      unsigned nmargs, char *err, size_t errsz)
{
	char e[VXT_ERRBUF_SIZE], path[VXT_PROFILE_PATH_MAX];

	memset(vs, 0, sizeof(*vs));
	if (vxt_script_find(name, dir, path, sizeof(path), e) < 0) {
		snprintf(err, errsz, "%s", e);
		return -EINVAL;
	}
	vs->s = vxt_script_load_args(path, xopts, nx, margs, nmargs, e);
	if (!vs->s) {
		snprintf(err, errsz, "%s", e);
		return -EINVAL;
	}
	if (vxt_script_warnings(vs->s)[0])
		fprintf(stderr, "vxtop: %s: %s\n", path, vxt_script_warnings(vs->s));
	fputs(vxt_script_notes(vs->s, true), stderr);	/* a bpftrace program's */
	return 0;
}

int vxtop_script_start(struct vxtop_script *vs, const struct vxt_objtab *objs,
		       const struct vxt_strtab *strs, bool live, uint64_t time_base)
{
	vs->live = live;
	vxt_script_set_live(vs->s, live);
	vxt_script_set_time_base(vs->s, time_base);
	return vxt_script_start(vs->s, objs, strs, sink, vs);
}

int vxtop_script_feed(struct vxtop_script *vs, const struct vxt_event *ev, size_t n)
{
	int rc = vxt_script_push_many(vs->s, ev, n, vs->ordinal, NULL);

	vs->ordinal += n;	/* events after exit() keep their ordinals */
	return rc < 0 ? rc : 0;
}

int vxtop_script_tick(struct vxtop_script *vs, uint64_t now_ns)
{
	return vxt_script_tick(vs->s, now_ns);
}

static void swap(struct vxtop_text *a, struct vxtop_text *b)
{
	struct vxtop_text t = *a;

	*a = *b;
	*b = t;
}

void vxtop_script_close_interval(struct vxtop_script *vs, uint64_t end_ns)
{
	swap(&vs->last, &vs->cur);
	vs->cur.n = 0;
	if (vs->cur.p)
		vs->cur.p[0] = '\0';
	if (!vs->last.n)
		return;
	/* the screen keeps the newest output until another comes */
	if (vs->shown.cap < vs->last.n + 1) {
		char *p = realloc(vs->shown.p, vs->last.n + 1);

		if (!p)
			return;
		vs->shown.p = p;
		vs->shown.cap = vs->last.n + 1;
	}
	memcpy(vs->shown.p, vs->last.p, vs->last.n + 1);
	vs->shown.n = vs->last.n;
	vs->shown_end_ns = end_ns;
}

int vxtop_script_end(struct vxtop_script *vs)
{
	if (vs->ended || !vs->s)
		return 0;
	vs->ended = true;
	return vxt_script_end(vs->s);
}

void vxtop_script_free(struct vxtop_script *vs)
{
	vxt_script_free(vs->s);
	free(vs->cur.p);
	free(vs->last.p);
	free(vs->shown.p);
	free(vs->end.p);
	memset(vs, 0, sizeof(*vs));
}

const char *vxtop_script_name(const struct vxtop_script *vs)
{
	return vxt_script_name(vs->s);
}
