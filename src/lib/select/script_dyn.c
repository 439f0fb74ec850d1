/* script_dyn.c - self-> and req-> variables, and the I/Os they belong to
 *
 * self-> values of a process live in one struct sdyn per pid (a table keyed
 * by the pid), req-> values in the request itself, so a read or write is one
 * lookup per event at most, not one per variable. A value set to 0 is freed,
 * as D frees a dynamic variable, and a process without values is forgotten.
 *
 * dynvarsize bounds this state as DTrace bounds its dynamic variables: a
 * process's or a request's values, an associative array's entry and each
 * I/O in flight (while req-> is used) take their size from it, and what
 * does not fit is not made and counts as a dynamic variable drop.
 *
 * Requests (script_reqtab.c): queue or start opens one, FIFO per (object,
 * sector, bytes): a start takes the oldest queued one, a done (or requeue)
 * the oldest started one, or else the oldest; after the done's clauses the
 * request and its req-> values go. The steps every such event takes
 * (binding, closing, an integer into values the request has) are inline in
 * script_impl.h; the rarer ones are here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"

static int64_t self_size(const struct vxt_script *s)
{
	return (int64_t)(sizeof(struct sdyn) + s->nself * sizeof(struct script_value) +
			 2 * sizeof(struct ient));
}

/* Values for @n variables, all unset, from the free list @fl first (their
 * types and integers cleared: an unset value's integer is 0, so an integer
 * variable reads without a look at its type). */
static struct sdyn *dyn_new(struct sdyn **fl, unsigned n)
{
	struct sdyn *d = *fl;

	if (!d)
		return calloc(1, sizeof(struct sdyn) + n * sizeof(struct script_value));
	*fl = d->next;
	d->nset = 0;
	d->next = NULL;
	for (unsigned i = 0; i < n; i++) {
		d->v[i].type = SV_NONE;
		d->v[i].i = 0;
	}
	return d;
}

static void dyn_put(struct sdyn **fl, struct sdyn *d)
{
	if (!d)
		return;
	d->next = *fl;
	*fl = d;
}

static void dyn_free_list(struct sdyn *d)
{
	while (d) {
		struct sdyn *next = d->next;

		free(d);
		d = next;
	}
}

static struct sdyn *self_of(struct firing *x)
{
	if (!x->self_known) {
		struct ient *e = x->ev ? vxt_itab_find(&x->s->selfs, x->ev->pid, 0) : NULL;

		x->self = e ? e->p : NULL;
		x->self_known = true;
	}
	return x->self;
}

/* Value @v (@zero: a zero, which unsets) into @slot of @d.
 * @return true when @d then holds no value (the caller frees it). */
static inline bool slot_store(struct sdyn *d, unsigned slot, struct script_value v, bool zero)
{
	if (zero) {
		if (d->v[slot].type) {
			d->v[slot].type = SV_NONE;
			d->v[slot].i = 0;	/* an unset integer reads 0 */
			d->nset--;
		}
		return !d->nset;
	}
	if (!d->v[slot].type)
		d->nset++;
	d->v[slot] = v;
	return false;
}

int vxt_sreq_set(struct firing *x, unsigned slot, struct script_value v)
{
	struct vxt_script *s = x->s;
	bool zero = vxt_value_frees(&v);
	struct sdyn *d;

	if (!x->req)
		return 0;	/* no request: nothing to set */
	d = x->req->v;
	if (!d) {
		if (zero || !vxt_sdyn_take(s, vxt_sreqv_size(s)))
			return 0;
		d = x->req->v = dyn_new(&s->free_reqv, s->nreqv);
		if (!d)
			return -ENOMEM;
	}
	if (slot_store(d, slot, v, zero)) {
		x->req->v = NULL;
		dyn_put(&s->free_reqv, d);
		vxt_sdyn_take(s, -vxt_sreqv_size(s));
	}
	return 0;
}

/* The self-> variable in slot @slot of the event's process := @v. */
static int self_set(struct firing *x, unsigned slot, struct script_value v)
{
	struct vxt_script *s = x->s;
	bool zero = vxt_value_frees(&v);
	struct sdyn *d;

	if (!x->ev)
		return 0;
	d = self_of(x);
	if (!d) {
		if (zero || !vxt_sdyn_take(s, self_size(s)))
			return 0;
		d = dyn_new(&s->free_self, s->nself);
		if (!d || vxt_itab_put(&s->selfs, x->ev->pid, 0, d) < 0) {
			free(d);
			return -ENOMEM;
		}
		x->self = d;
	}
	if (slot_store(d, slot, v, zero)) {
		vxt_itab_delete(&s->selfs, vxt_itab_find(&s->selfs, x->ev->pid, 0));
		x->self = NULL;
		dyn_put(&s->free_self, d);
		vxt_sdyn_take(s, -self_size(s));
	}
	return 0;
}

struct script_value *vxt_sself_get(struct firing *x, unsigned slot)
{
	struct sdyn *d = self_of(x);

	return d && d->v[slot].type ? &d->v[slot] : NULL;
}

int vxt_sself_set(struct firing *x, unsigned slot, struct script_value v)
{
	return self_set(x, slot, v);
}

void vxt_sdyn_free_all(struct vxt_script *s)
{
	for (size_t i = 0; i < s->reqs.cap; i++)
		if (s->reqs.e[i].id)
			free(s->reqs.e[i].v);
	vxt_sreqtab_free(&s->reqs);
	for (size_t i = 0; i < s->selfs.cap; i++)
		free(s->selfs.e[i].p);
	vxt_itab_free(&s->selfs);
	dyn_free_list(s->free_self);
	dyn_free_list(s->free_reqv);
}
