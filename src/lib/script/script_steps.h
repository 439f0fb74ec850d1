/* script_steps.h - the steps each event takes through the engine's state,
 * inline (internal to libvxtrace)
 *
 * Dynamic variable space, binding an event to its request and closing it,
 * an integer into a request's values, speculative buffers opened, emptied
 * and discarded: inline so the event's path makes no call for them
 * (script_dyn.c, script_spec.c have the rest). Included at the end of
 * script_impl.h, whose types they use.
 */
#ifndef VXT_SCRIPT_STEPS_H
#define VXT_SCRIPT_STEPS_H

/* The steps every event with requests followed takes are inline here, so
 * the event's path makes no call for them. */

/* Take (@delta > 0) or give back dynamic variable space. @return false,
 * counting a dynamic variable drop, when @delta does not fit dynvarsize. */
static inline bool vxt_sdyn_take(struct vxt_script *s, int64_t delta)
{
	if (delta > 0 && s->st.dyn_bytes + (uint64_t)delta > s->opt.dynvarsize) {
		s->st.dyn_drops++;
		return false;
	}
	s->st.dyn_bytes += (uint64_t)delta;
	if (s->st.dyn_bytes > s->st.peak_dyn_bytes)
		s->st.peak_dyn_bytes = s->st.dyn_bytes;
	return true;
}

/* What a request's req-> values take of dynvarsize. */
static inline int64_t vxt_sreqv_size(const struct vxt_script *s)
{
	return (int64_t)(sizeof(struct sdyn) + s->nreqv * sizeof(struct script_value));
}

/* The hash of @ev's request key (object, bytes, sector) in the request
 * table: computed once per event, for every step that finds its request
 * (run.c binds an event to its request: vxt_sreq_open() for a queue or
 * start, vxt_sreq_of() for a done or requeue). */
static inline uint32_t vxt_sreq_event_hash(const struct vxt_event *ev)
{
	return vxt_sreq_hash((uint64_t)ev->object << 32 | ev->bytes, ev->sector);
}

/* The request of queue or start @ev, of key hash @h (*@out, NULL = none:
 * not followed, its req-> are 0): a start takes the oldest queued one of
 * its key (object, sector, bytes), else a new one opens. @return 0 or
 * -ENOMEM. */
static inline __attribute__((always_inline)) int vxt_sreq_open(struct vxt_script *s,
							     const struct vxt_event *ev,
							     uint32_t h, struct sreq **out)
{
	int rc = vxt_sreqtab_claim_h(&s->reqs, (uint64_t)ev->object << 32 | ev->bytes,
				     ev->sector, h, ev->phase == VXT_PH_START, out);

	if (rc != 0)
		return rc < 0 ? rc : 0;	/* error, or a queued request started */
	if (!vxt_sdyn_take(s, (int64_t)S_REQ_SIZE)) {
		vxt_sreqtab_delete(&s->reqs, *out);
		*out = NULL;
	}
	return 0;
}

/* The request of done or requeue @ev, of key hash @h: the oldest started
 * one of its key, else the oldest queued one, NULL when none; a requeue's
 * is queued again. */
static inline __attribute__((always_inline)) struct sreq *vxt_sreq_of(struct vxt_script *s,
								    const struct vxt_event *ev,
								    uint32_t h)
{
	struct sreq *r = vxt_sreqtab_bound_h(&s->reqs, (uint64_t)ev->object << 32 | ev->bytes,
					     ev->sector, h);

	if (r && ev->phase == VXT_PH_REQUEUE)
		r->started = false;	/* started or not, it is queued again */
	return r;
}

/* Integer @i (0 unsets) into slot @slot of the event's request's req->
 * values (nothing without a request), as vxt_sdyn_set() of an integer:
 * a value into values the request has, or into a set reused from the free
 * list, here; anything else through vxt_sreq_set(). @return 0 or -ENOMEM. */
static inline __attribute__((always_inline)) int vxt_sreq_set_int(struct firing *x, unsigned slot,
								 int64_t i)
{
	struct vxt_script *s = x->s;
	struct script_value v = { .type = SV_INT, .i = i };
	struct script_value *to;
	struct sdyn *d;

	if (!x->req || !i)
		return x->req ? vxt_sreq_set(x, slot, v) : 0;
	d = x->req->v;
	if (!d) {
		if (!s->free_reqv)
			return vxt_sreq_set(x, slot, v);
		if (!vxt_sdyn_take(s, vxt_sreqv_size(s)))
			return 0;
		d = s->free_reqv;
		s->free_reqv = d->next;
		d->nset = 0;
		d->next = NULL;
		for (unsigned k = 0; k < s->nreqv; k++) {
			d->v[k].type = SV_NONE;
			d->v[k].i = 0;
		}
		x->req->v = d;
	}
	to = &d->v[slot];
	if (!to->type)
		d->nset++;
	to->type = SV_INT;	/* field by field: a copy of @v through the stack
				 * would stall on its two smaller stores */
	to->i = i;
	to->s = NULL;
	return 0;
}

/* After the done's clauses: forget @r, as bound, and its req-> values. */
static inline void vxt_sreq_close(struct vxt_script *s, struct sreq *r)
{
	int64_t size = (int64_t)S_REQ_SIZE;

	if (r->v) {
		r->v->next = s->free_reqv;
		s->free_reqv = r->v;
		size += vxt_sreqv_size(s);
	}
	vxt_sdyn_take(s, -size);	/* one give-back for both */
	vxt_sreqtab_delete(&s->reqs, r);
}

/* script_spec.c: speculative buffers and the principal buffer. */
/* The fields of a record's default text, without `quiet` (deliver()'s CPU
 * column and event_text(): all but flags and command). */
#define S_TEXT_FIELDS (VXT_FIELD_CPU | VXT_FIELD_OBJECT | VXT_FIELD_PHASE_OP | \
		       VXT_FIELD_SECTOR | VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_ERROR | \
		       VXT_FIELD_PID | VXT_FIELD_LOST_COUNT)
/* The clause's record (x->target, the text in s->text) into its buffer. */
int vxt_sspec_record(struct firing *x);
int vxt_sspec_end(struct vxt_script *s, int64_t id, bool commit);
void vxt_sspec_clean(struct vxt_script *s);
/* END: discard every active buffer (eof_discarded). */
void vxt_sspec_end_all(struct vxt_script *s);
/* A text-only record straight to the principal buffer. */
int vxt_sspec_text(struct vxt_script *s, const char *text, size_t len);
/* Speculative buffers hold @delta bytes more. Can't fail. */
static inline void vxt_sspec_mem(struct vxt_script *s, int64_t delta)
{
	s->spec_bytes += (uint64_t)delta;
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	if (s->st.mem_bytes > s->st.peak_mem_bytes)
		s->st.peak_mem_bytes = s->st.mem_bytes;
}
/* The buffer of speculation ID @id (1..nspec): its records while it is
 * active. */
static inline struct sspec *vxt_sspec_buf(const struct vxt_script *s, int64_t id)
{
	return &s->spec[s->spec_ids[id - 1] & SPEC_BUF];
}

/* Whether @id (any value) is an active speculation ID. */
static inline bool vxt_sspec_active(const struct vxt_script *s, int64_t id)
{
	return (uint64_t)id - 1 < s->opt.nspec && (s->spec_ids[id - 1] & SPEC_ACTIVE);
}

/* speculation(): a free ID made active with a free buffer, its id; 0
 * when no ID is free (a failed speculation). Can't fail. */
static inline int64_t vxt_sspec_open(struct vxt_script *s)
{
	struct sspec *b;
	uint32_t id, buf;

	if (!s->nfree) {
		if (s->nbusy)
			s->st.failed_busy++;
		else
			s->st.failed_unavail++;
		return 0;
	}
	id = s->freel[--s->nfree];
	buf = s->buf_free[--s->nbuf_free];	/* as many buffers as IDs */
	s->spec_ids[id - 1] = SPEC_ACTIVE | buf;
	b = &s->spec[buf];
	b->n = 0;
	b->bytes = 0;

	s->st.opened++;
	if (++s->st.active > s->st.peak_active)
		s->st.peak_active = s->st.active;
	return id;
}

/* Buffer @b forgets its records. */
static inline void vxt_sspec_empty(struct vxt_script *s, struct sspec *b)
{
	vxt_sspec_mem(s, -(int64_t)b->bytes);
	b->head = 0;
	b->n = 0;
	b->txhead = b->txn = 0;
	b->bytes = 0;
	b->has_ev = false;
	b->gen = ++s->spec_gen;
}

/* Active ID @id leaves its buffer, emptied, to the next speculation(). */
static inline void vxt_sspec_release(struct vxt_script *s, int64_t id)
{
	uint32_t buf = s->spec_ids[id - 1] & SPEC_BUF;

	vxt_sspec_empty(s, &s->spec[buf]);
	s->buf_free[s->nbuf_free++] = buf;
	s->spec_ids[id - 1] = buf;	/* free or busy: the caller's lists say */
	s->st.active--;
}

/* discard(@id) of a script (not a profile): vxt_sspec_end(s, @id, false).
 * @return 0. */
static inline int vxt_sspec_discard(struct vxt_script *s, int64_t id)
{
	if (!vxt_sspec_active(s, id))
		return 0;	/* 0 is always invalid, and harmless; busy or free */
	s->st.discarded++;
	vxt_sspec_release(s, id);
	s->busyl[s->nbusy++] = (uint32_t)id;
	return 0;
}

/* Forget the records of buffer @id older than its window (s->now). */
int vxt_sspec_expire(struct vxt_script *s, uint32_t id);


#endif
