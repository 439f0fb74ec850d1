/* view.c - filter then speculation over a stream of events
 *
 * Without speculation the kept events wait in a small FIFO; with it they go
 * through the engine, which returns them in input order. A profile's
 * `program:` runs on the script engine: the events it records reach a heap
 * ordered by ordinal and leave it once no active speculative buffer holds an
 * older event (vxt_script_oldest_buffered()), so the output is in input
 * order too, each event once. Ordinals count every pushed event, kept or
 * not, so a caller reading a file from its start gets the file's event
 * numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/filter.h"
#include "vxtrace/script.h"
#include "vxtrace/view.h"

struct vxt_view {
	struct vxt_filter *pf;		/* the profile's filter, or NULL */
	struct vxt_filter *xf;		/* the extra filter, or NULL */
	struct vxt_spec *spec;		/* or NULL */
	struct vxt_script *script;	/* program:, or NULL */
	struct vxt_spec_event *heap;	/* program: recorded events, by ordinal */
	size_t heapn, heapcap;
	uint64_t last_out;		/* ordinal of the last event out, + 1 (0 = none) */
	bool ended;			/* program: END ran */
	struct vxt_spec_event *q;	/* FIFO when there is no speculation */
	size_t qhead, qn, qcap;
	uint64_t seq;
	struct vxt_view_stats st;
};

static int compile(const char *expr, const char *name, unsigned line, unsigned col,
		   const struct vxt_objtab *objs, const struct vxt_strtab *strs,
		   struct vxt_filter **out, char *err)
{
	struct vxt_filter_opts o = { .name = name, .line = line, .col = col };

	*out = vxt_filter_compile_opts(expr, &o, objs, strs, NULL, err);
	return *out ? 0 : -EINVAL;
}

/* ---- program: ---- */

static int heap_push(struct vxt_view *v, const struct vxt_event *ev, uint64_t seq, uint64_t spec)
{
	size_t i;

	if (v->heapn == v->heapcap) {
		size_t cap = v->heapcap ? 2 * v->heapcap : 1024;
		struct vxt_spec_event *h = realloc(v->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		v->heap = h;
		v->heapcap = cap;
	}
	for (i = v->heapn++; i > 0 && v->heap[(i - 1) / 2].seq > seq; i = (i - 1) / 2)
		v->heap[i] = v->heap[(i - 1) / 2];
	v->heap[i].ev = *ev;
	v->heap[i].seq = seq;
	v->heap[i].spec = spec;
	return 0;
}

static void heap_pop(struct vxt_view *v, struct vxt_spec_event *out)
{
	struct vxt_spec_event last;
	size_t i = 0, n;

	*out = v->heap[0];
	n = --v->heapn;
	if (!n)
		return;
	last = v->heap[n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && v->heap[c + 1].seq < v->heap[c].seq)
			c++;
		if (v->heap[c].seq >= last.seq)
			break;
		v->heap[i] = v->heap[c];
		i = c;
	}
	v->heap[i] = last;
}

static int script_sink(void *arg, const struct vxt_script_rec *r)
{
	struct vxt_view *v = arg;

	return r->has_event ? heap_push(v, &r->ev, r->ordinal, r->spec) : 0;
}

static int open_script(struct vxt_view *v, const struct vxt_profile *p,
		       const struct vxt_objtab *objs, const struct vxt_strtab *strs, char *err)
{
	int rc;

	v->script = vxt_script_compile(p->program, p->program_len, p->path[0] ? p->path : p->name,
				       NULL, 0, err);
	if (!v->script)
		return -EINVAL;
	vxt_script_track_buffered(v->script);
	rc = vxt_script_start(v->script, objs, strs, script_sink, v);
	if (rc < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", p->name, strerror(-rc));
		return rc;
	}
	return 0;
}

/* The next recorded event no commit can precede any more, each ordinal once. */
static int script_next(struct vxt_view *v, struct vxt_spec_event *out)
{
	for (;;) {
		uint64_t wm;

		if (!v->heapn)
			return 0;
		if (!v->ended) {
			wm = vxt_script_oldest_buffered(v->script);
			if (wm > v->seq)
				wm = v->seq;
			if (v->heap[0].seq >= wm)
				return 0;
		}
		heap_pop(v, out);
		if (v->last_out && out->seq < v->last_out)
			continue;	/* recorded twice (several clauses or commits) */
		v->last_out = out->seq + 1;
		return 1;
	}
}

static void script_stats(const struct vxt_view *v, struct vxt_spec_stats *sp)
{
	struct vxt_script_stats ss;

	vxt_script_get_stats(v->script, &ss);
	memset(sp, 0, sizeof(*sp));
	sp->events_in = ss.events_in;
	sp->events_out = v->st.events_out;
	sp->opened = ss.opened;
	sp->committed = ss.committed;
	sp->discarded = ss.discarded;
	sp->eof_discarded = ss.eof_discarded;
	sp->failed = ss.failed_unavail + ss.failed_busy;
	sp->drops = ss.spec_drops;
	sp->committed_events = ss.kept_events;
	sp->active = ss.active;
	sp->peak_active = ss.peak_active;
}

struct vxt_view *vxt_view_new(const struct vxt_profile *p, const char *filter,
			      const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			      char err[VXT_ERRBUF_SIZE])
{
	struct vxt_view *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	if (p && p->filter &&
	    compile(p->filter, p->path[0] ? p->path : p->name, p->filter_line, p->filter_col,
		    objs, strs, &v->pf, err) < 0)
		goto out_free;
	if (filter && compile(filter, "filter", 1, 1, objs, strs, &v->xf, err) < 0)
		goto out_free;
	if (p && p->program) {
		if (open_script(v, p, objs, strs, err) < 0)
			goto out_free;
		v->st.has_spec = true;
	} else if (p && p->has_spec) {
		v->spec = vxt_spec_new(&p->spec, objs, strs, err);
		if (!v->spec)
			goto out_free;
		v->st.has_spec = true;
	}
	return v;

out_free:
	vxt_view_free(v);
	return NULL;
}

void vxt_view_free(struct vxt_view *v)
{
	if (!v)
		return;
	vxt_filter_free(v->pf);
	vxt_filter_free(v->xf);
	vxt_spec_free(v->spec);
	vxt_script_free(v->script);
	free(v->heap);
	free(v->q);
	free(v);
}

void vxt_view_set_time_base(struct vxt_view *v, uint64_t base_ns)
{
	if (v->pf)
		vxt_filter_set_time_base(v->pf, base_ns);
	if (v->xf)
		vxt_filter_set_time_base(v->xf, base_ns);
	if (v->spec)
		vxt_spec_set_time_base(v->spec, base_ns);
	if (v->script)
		vxt_script_set_time_base(v->script, base_ns);
}

static int enqueue(struct vxt_view *v, const struct vxt_event *ev, uint64_t seq)
{
	struct vxt_spec_event *e;

	if (v->qn == v->qcap) {
		size_t cap = v->qcap ? 2 * v->qcap : 1024;
		struct vxt_spec_event *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t i = 0; i < v->qn; i++)
			q[i] = v->q[(v->qhead + i) % v->qcap];
		free(v->q);
		v->q = q;
		v->qcap = cap;
		v->qhead = 0;
	}
	e = &v->q[(v->qhead + v->qn++) % v->qcap];
	e->ev = *ev;
	e->seq = seq;
	e->spec = 0;
	return 0;
}

int vxt_view_push(struct vxt_view *v, const struct vxt_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct vxt_event *e = &ev[i];
		bool lost = e->phase == VXT_PH_LOST;
		int rc;

		if (!lost && ((v->pf && !vxt_filter_matches(v->pf, e)) ||
			      (v->xf && !vxt_filter_matches(v->xf, e)))) {
			v->st.filtered_out++;
			v->seq++;
			v->st.events_in++;
			continue;
		}
		if (v->script) {	/* lost markers are always kept */
			rc = lost ? heap_push(v, e, v->seq, 0) : 0;
			if (rc == 0)
				rc = vxt_script_push(v->script, e, v->seq);
		} else {
			rc = v->spec ? vxt_spec_push_at(v->spec, e, v->seq) : enqueue(v, e, v->seq);
		}
		if (rc < 0)
			return rc;
		v->seq++;
		v->st.events_in++;
	}
	return 0;
}

int vxt_view_push_at(struct vxt_view *v, const struct vxt_event *ev, uint64_t ordinal)
{
	if (ordinal < v->seq)
		return -EINVAL;
	v->seq = ordinal;
	return vxt_view_push(v, ev, 1);
}

int vxt_view_next(struct vxt_view *v, struct vxt_spec_event *out)
{
	if (v->script) {
		if (script_next(v, out) != 1)
			return 0;
	} else if (v->spec) {
		if (vxt_spec_next(v->spec, out) != 1)
			return 0;
	} else {
		if (!v->qn)
			return 0;
		*out = v->q[v->qhead];
		v->qhead = (v->qhead + 1) % v->qcap;
		v->qn--;
	}
	v->st.events_out++;
	return 1;
}

void vxt_view_finish(struct vxt_view *v)
{
	if (v->spec)
		vxt_spec_finish(v->spec);
	if (v->script && !v->ended) {
		vxt_script_end(v->script);	/* active buffers are discarded */
		v->ended = true;
	}
}

void vxt_view_get_stats(const struct vxt_view *v, struct vxt_view_stats *st)
{
	*st = v->st;
	if (v->spec)
		vxt_spec_get_stats(v->spec, &st->spec);
	if (v->script)
		script_stats(v, &st->spec);
}
