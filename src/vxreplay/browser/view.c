/* view.c - the events the browser shows, and moving over them
 *
 * A virtual list over the whole file: a shown event is named by its ordinal.
 * With a filter, per-chunk match counts (filled by navigation and by the
 * counting job) let moves skip chunks with nothing shown without decoding
 * them. With speculation on, the shown events are a sorted ordinal array.
 * A chunk that does not decode (damage) is one row of the list, a gap named
 * by the chunk's first ordinal: moves stop on it once and go on past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "browser/model.h"

/* The per-chunk damage state covers @n chunks. @return 0 or -ENOMEM. */
static int grow_state(struct vr_view *v, size_t n)
{
	uint8_t *s;

	if (n <= v->nstate && v->chunk_state)
		return 0;
	s = realloc(v->chunk_state, n ? n : 1);
	if (!s)
		return -ENOMEM;
	memset(s + v->nstate, VR_CHUNK_UNKNOWN, (n ? n : 1) - v->nstate);
	v->chunk_state = s;
	v->nstate = n;
	return 0;
}

void vr_view_set_damaged(struct vr_view *v, size_t i)
{
	if (grow_state(v, i + 1) == 0)
		v->chunk_state[i] = VR_CHUNK_DAMAGED;
}

void vr_view_free(struct vr_view *v)
{
	free(v->objs);
	v->objs = NULL;
	v->nobjs = 0;
	free(v->chunk_match);
	free(v->chunk_state);
	v->chunk_match = NULL;
	v->chunk_state = NULL;
	v->nchunks = v->nstate = 0;
}

int vr_view_grow(struct vr_view *v)
{
	size_t n = vxt_reader_nchunks(v->rd);
	uint32_t *p;

	if (grow_state(v, n) < 0)
		return -ENOMEM;

	if (n <= v->nchunks && v->chunk_match)
		return 0;
	p = realloc(v->chunk_match, (n ? n : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->chunk_match = p;
	for (size_t i = v->nchunks; i < n; i++) {
		uint32_t ne = vxt_reader_chunk_nevents(v->rd, i);

		p[i] = v->match ? VR_UNKNOWN : ne;
		if (!v->match) {
			v->shown += ne;
			v->known++;
		}
	}
	v->nchunks = n;
	return 0;
}

int vr_view_set_match(struct vr_view *v, vr_match_fn fn, void *ctx)
{
	size_t nobj = vxt_objtab_count(vxt_reader_objects(v->rd));

	v->match = fn;
	v->match_ctx = ctx;
	v->nchunks = 0;
	v->known = 0;
	v->shown = 0;
	free(v->objs);
	v->objs = NULL;
	v->nobjs = 0;
	if (fn) {
		v->objs = calloc(nobj ? nobj : 1, sizeof(*v->objs));
		if (!v->objs)
			return -ENOMEM;
		v->nobjs = nobj;
	}
	return vr_view_grow(v);
}

/* The shown done events of a chunk into the objects' figures. */
static void count_objects(struct vr_view *v, const struct vxt_event *evs, size_t n,
			  uint64_t first)
{
	for (size_t k = 0; k < n && evs; k++) {
		const struct vxt_event *ev = &evs[k];
		struct vr_objfig *o;

		if (ev->phase != VXT_PH_DONE || ev->object >= v->nobjs ||
		    !vr_view_matches(v, ev, first + k))
			continue;
		o = &v->objs[ev->object];
		o->ios++;
		o->reads += ev->op == VXT_OP_READ;
		o->writes += ev->op == VXT_OP_WRITE;
		if (!ev->error && (ev->op == VXT_OP_READ || ev->op == VXT_OP_WRITE))
			o->bytes += ev->bytes;
		o->errors += ev->error != 0;
		o->lat_sum += ev->latency_ns;
	}
}

uint64_t vr_view_shown(const struct vr_view *v, bool *complete)
{
	if (v->spec_on) {
		*complete = true;
		return v->spec.n;
	}
	*complete = v->known == v->nchunks;
	return v->shown;
}

bool vr_view_matches(const struct vr_view *v, const struct vxt_event *ev, uint64_t ord)
{
	return !v->match || v->match(v->match_ctx, ev, ord);
}

void vr_view_set_count(struct vr_view *v, size_t i, uint32_t c, const struct vxt_event *evs,
		       size_t n)
{
	if (vr_view_grow(v) < 0 || i >= v->nchunks || v->chunk_match[i] != VR_UNKNOWN)
		return;
	count_objects(v, evs, n, vxt_reader_chunk_fixed(v->rd, i)->first_event);
	v->chunk_match[i] = c;
	v->shown += c;
	v->known++;
}

void vr_view_count(struct vr_view *v, size_t i, const struct vxt_event *evs, size_t n)
{
	uint32_t c = 0;
	uint64_t first;

	if (vr_view_grow(v) < 0 || i >= v->nchunks || v->chunk_match[i] != VR_UNKNOWN)
		return;
	first = vxt_reader_chunk_fixed(v->rd, i)->first_event;
	for (size_t k = 0; k < n; k++)
		c += vr_view_matches(v, &evs[k], first + k);
	count_objects(v, evs, n, first);
	v->chunk_match[i] = c;
	v->shown += c;
	v->known++;
}

/* Decode chunk @i for the view and fill its count; a chunk that does not
 * decode is damaged from then on. */
static const struct vxt_event *decode(struct vr_view *v, size_t i, size_t *n)
{
	const struct vxt_event *evs = vxt_reader_chunk_events(v->rd, i, n);

	if (!evs) {
		vr_view_set_damaged(v, i);
		return NULL;
	}
	if (i < v->nstate)
		v->chunk_state[i] = VR_CHUNK_OK;
	if (v->match)
		vr_view_count(v, i, evs, *n);
	return evs;
}

/* True when chunk @i is damaged; decodes it once to know, when it must. */
static bool damaged(struct vr_view *v, size_t i, bool must)
{
	size_t n;

	if (i < v->nstate && v->chunk_state[i] != VR_CHUNK_UNKNOWN)
		return v->chunk_state[i] == VR_CHUNK_DAMAGED;
	return must && !decode(v, i, &n);
}

long vr_view_gap(const struct vr_view *v, uint64_t ord)
{
	size_t i;

	if (v->spec_on || ord >= vxt_reader_nevents(v->rd))
		return -1;
	i = vxt_reader_chunk_of(v->rd, ord);
	if (i >= v->nstate || v->chunk_state[i] != VR_CHUNK_DAMAGED ||
	    vxt_reader_chunk_fixed(v->rd, i)->first_event != ord)
		return -1;
	return (long)i;
}

int vr_view_first_at(struct vr_view *v, uint64_t ord, uint64_t *out, unsigned budget)
{
	uint64_t total = vxt_reader_nevents(v->rd);

	if (v->spec_on) {
		size_t k = vxt_lower_bound_u64(v->spec.ord, v->spec.n, ord);

		if (k == v->spec.n)
			return 0;
		*out = v->spec.ord[k];
		return 1;
	}
	if (ord >= total)
		return 0;
	if (vr_view_grow(v) < 0)
		return -ENOMEM;
	for (size_t i = vxt_reader_chunk_of(v->rd, ord); i < v->nchunks; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk_fixed(v->rd, i);
		const struct vxt_event *evs;
		size_t n, k;

		if (damaged(v, i, !v->match)) {
			if (ord <= ci->first_event) {
				*out = ci->first_event;	/* the gap's row */
				return 1;
			}
			continue;
		}
		if (!v->match) {
			*out = ord > ci->first_event ? ord : ci->first_event;
			return 1;
		}
		if (v->chunk_match[i] == 0)
			continue;
		if (budget-- == 0)
			return -EAGAIN;
		evs = decode(v, i, &n);
		if (!evs) {
			if (ord <= ci->first_event) {
				*out = ci->first_event;
				return 1;
			}
			continue;
		}
		k = ord > ci->first_event ? ord - ci->first_event : 0;
		for (; k < n; k++)
			if (vr_view_matches(v, &evs[k], ci->first_event + k)) {
				*out = ci->first_event + k;
				return 1;
			}
	}
	return 0;
}

int vr_view_last_before(struct vr_view *v, uint64_t ord, uint64_t *out, unsigned budget)
{
	uint64_t total = vxt_reader_nevents(v->rd);

	if (v->spec_on) {
		size_t k = vxt_lower_bound_u64(v->spec.ord, v->spec.n, ord);

		if (k == 0)
			return 0;
		*out = v->spec.ord[k - 1];
		return 1;
	}
	if (ord > total)
		ord = total;
	if (ord == 0)
		return 0;
	if (vr_view_grow(v) < 0)
		return -ENOMEM;
	for (size_t i = vxt_reader_chunk_of(v->rd, ord - 1) + 1; i-- > 0;) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk_fixed(v->rd, i);
		const struct vxt_event *evs;
		size_t n, k;

		if (ci->nevents && damaged(v, i, !v->match)) {
			*out = ci->first_event;	/* the gap's row */
			return 1;
		}
		if (!v->match) {
			*out = ord - 1;
			return 1;
		}
		if (v->chunk_match[i] == 0)
			continue;
		if (budget-- == 0)
			return -EAGAIN;
		evs = decode(v, i, &n);
		if (!evs) {
			*out = ci->first_event;
			return 1;
		}
		k = ord - ci->first_event < n ? ord - ci->first_event : n;
		while (k-- > 0)
			if (vr_view_matches(v, &evs[k], ci->first_event + k)) {
				*out = ci->first_event + k;
				return 1;
			}
	}
	return 0;
}

int vr_view_get(struct vr_view *v, uint64_t ord, const struct vxt_event **ev)
{
	int rc = vxt_reader_seek_ordinal(v->rd, ord);

	if (rc < 0)
		return rc;
	rc = vxt_reader_next(v->rd, ev);
	return rc == 0 ? -ENOENT : rc;
}

void vr_spec_clear(struct vr_spec_set *s)
{
	free(s->ord);
	free(s->group);
	free(s->trigger);
	free(s->spec_id);
	memset(s, 0, sizeof(*s));
}

long vr_spec_group_of(const struct vr_spec_set *s, uint64_t ord)
{
	size_t k = vxt_lower_bound_u64(s->ord, s->n, ord);

	if (k == s->n || s->ord[k] != ord)
		return -1;
	return (long)s->group[k];
}

static int spec_next_error(struct vr_view *v, uint64_t ord, bool backward, uint64_t *out)
{
	size_t k = vxt_lower_bound_u64(v->spec.ord, v->spec.n, ord), left = 500000;
	const struct vxt_event *ev;

	while (backward ? k > 0 : k < v->spec.n) {
		size_t at = backward ? --k : k++;

		if (!left--) {
			*out = v->spec.ord[at];
			return -EAGAIN;
		}
		if (vr_view_get(v, v->spec.ord[at], &ev) == 1 && ev->error) {
			*out = v->spec.ord[at];
			return 1;
		}
	}
	return 0;
}

/* Errors of chunk @i at or after @from (or before @from, backward). */
static int chunk_error(struct vr_view *v, size_t i, uint64_t from, bool backward,
		       uint64_t *out)
{
	const struct vxt_chunk_info *ci = vxt_reader_chunk_fixed(v->rd, i);
	const struct vxt_event *evs;
	size_t n;

	if (!ci->nerrors || (v->match && v->chunk_match[i] == 0) || damaged(v, i, false))
		return 0;
	evs = decode(v, i, &n);
	if (!evs)
		return 0;	/* damaged: its errors are lost with it */
	if (backward) {
		size_t k = from - ci->first_event < n ? from - ci->first_event : n;

		if (from < ci->first_event)
			return 0;
		while (k-- > 0)
			if (evs[k].error && vr_view_matches(v, &evs[k], ci->first_event + k)) {
				*out = ci->first_event + k;
				return 1;
			}
		return 0;
	}
	for (size_t k = from > ci->first_event ? from - ci->first_event : 0; k < n; k++)
		if (evs[k].error && vr_view_matches(v, &evs[k], ci->first_event + k)) {
			*out = ci->first_event + k;
			return 1;
		}
	return 0;
}

#define ERROR_BUDGET 24	/* chunks decoded per search for an error */

int vr_view_next_error(struct vr_view *v, uint64_t ord, bool backward, uint64_t *out)
{
	size_t nch = vxt_reader_nchunks(v->rd), i;
	unsigned decoded = 0;
	int rc;

	if (v->spec_on)
		return spec_next_error(v, ord, backward, out);
	if (vr_view_grow(v) < 0)
		return -ENOMEM;
	if (!nch || (backward && ord == 0))
		return 0;
	i = vxt_reader_chunk_of(v->rd, backward ? ord - 1 : ord);
	for (;;) {
		bool ready = vxt_reader_chunk_ready(v->rd, i);	/* merged files: not yet merged */
		const struct vxt_chunk_info *ci = vxt_reader_chunk_fixed(v->rd, i);

		if (((ci->nerrors && (!v->match || v->chunk_match[i] != 0)) || !ready) &&
		    decoded++ == ERROR_BUDGET) {
			/* not found yet: say where to go on from */
			*out = ci->first_event + (backward ? ci->nevents : 0);
			return -EAGAIN;
		}
		rc = chunk_error(v, i, ord, backward, out);
		if (rc != 0)
			return rc;
		if (backward ? i == 0 : i + 1 == nch)
			return 0;
		i = backward ? i - 1 : i + 1;
	}
}
