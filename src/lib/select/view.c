/* view.c - filter then speculation over a stream of events
 *
 * Without speculation the kept events wait in a small FIFO; with it they go
 * through the speculation (spec.c), which returns them in input order. Every
 * profile's speculation runs on the script engine: a `program:` is compiled
 * as a script, `speculation:` and `context:` rules as a keyed script
 * (script_keyed.c). Ordinals count every pushed event, kept or not, so a
 * caller reading a file from its start gets the file's event numbers.
 * When a filter reads an interval field (q2c, ...), every pushed event goes
 * through a phase pairer (phasepair.h) before the filters see it, so a
 * completion is judged by its own I/O's intervals even where the filter
 * drops that I/O's earlier phases; on those the intervals are unknown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/spec_impl.h"
#include "vxtrace/phasepair.h"
#include "vxtrace/view.h"

struct vxt_view {
	struct vxt_filter *pf;		/* the profile's filter, or NULL */
	struct vxt_filter *xf;		/* the extra filter, or NULL */
	struct vxt_spec *spec;		/* speculation (on the script engine), or NULL */
	struct vxt_phasepair *pp;	/* a filter reads intervals: the pairer, else NULL */
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

static int open_script(struct vxt_view *v, const struct vxt_profile *p,
		       const struct vxt_objtab *objs, const struct vxt_strtab *strs, char *err)
{
	struct vxt_script *sc;
	uint64_t held;

	sc = vxt_script_compile(p->program, p->program_len, p->path[0] ? p->path : p->name,
				NULL, 0, err);
	if (!sc)
		return -EINVAL;
	/* what waits for an older speculation is held within bufsize */
	held = vxt_script_get_options(sc)->bufsize / VXT_SCRIPT_RECORD_SIZE;
	v->spec = vxt_spec_of_script(sc, false, objs, strs, held ? held : 1, err);
	return v->spec ? 0 : -EINVAL;
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
	if ((v->pf && vxt_filter_uses_intervals(v->pf)) ||
	    (v->xf && vxt_filter_uses_intervals(v->xf))) {
		v->pp = vxt_phasepair_new();
		if (!v->pp) {
			snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
			goto out_free;
		}
	}
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
	vxt_phasepair_free(v->pp);
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
		struct vxt_ivals iv;
		struct vxt_filter_ctx ctx = { .iv = v->pp ? &iv : NULL };
		int rc;

		if (v->pp && vxt_phasepair_add(v->pp, e, &iv) < 0)
			return -ENOMEM;
		if (!lost && ((v->pf && !vxt_filter_eval(v->pf, e, &ctx)) ||
			      (v->xf && !vxt_filter_eval(v->xf, e, &ctx)))) {
			v->st.filtered_out++;
			v->seq++;
			v->st.events_in++;
			continue;
		}
		rc = v->spec ? vxt_spec_push_at(v->spec, e, v->seq) : enqueue(v, e, v->seq);
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
	if (v->spec) {
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
}

void vxt_view_get_stats(const struct vxt_view *v, struct vxt_view_stats *st)
{
	*st = v->st;
	if (v->spec)
		vxt_spec_get_stats(v->spec, &st->spec);
}
