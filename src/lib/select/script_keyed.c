/* script_keyed.c - a profile's speculation rules compiled to the script engine
 *
 * A YAML profile's `speculation:` clauses and its `context:` shorthand
 * (formats/profile.md, spec.h) become clauses of a script: the probes map to
 * io::: probes (`any` also fires for the phases D has no probe for), a
 * predicate is its filter's table compiled inline into the clause's ops
 * (filter_lower.c), and each action an op of its own (keyed_speculation,
 * keyed_speculate, keyed_commit, keyed_discard, keyed_trace) that the ops
 * run through the functions here. A profile's speculation belongs to a key (object, pid,
 * both, or the request's object, sector and size): the ops find the
 * event's key in a table of keys, so `spec` in a predicate is "this key has
 * an active speculation", `speculation` opens one for the key, `speculate`
 * records the event into it, `commit` / `discard` end it. The buffers are the engine's
 * (script_spec.c), with what a context needs: a window (the buffer keeps
 * only its newest events, by time and by count, the oldest going first when
 * specsize is reached) and a follow-up after a commit (the key's events go
 * straight to the principal buffer, under the committed speculation, for a
 * time and a number of events). A profile's buffers are free again at once
 * after commit or discard, and a window that emptied with time is closed
 * every 4096 events (expired).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "script/compile_impl.h"
#include "script/program.h"
#include "script/script_impl.h"
#include "script/tok.h"
#include "select/spec_impl.h"

#define SWEEP_EVERY	4096	/* close emptied windows this often (events) */

struct skeyed {
	enum vxt_spec_key key;
	struct itab tab;	/* key -> struct skent * */
	struct skent *free;
	struct vxt_keyed_clause *cl;	/* a clause's predicate, window, follow-up */
	unsigned ncl;
	bool windows;		/* some clause opens a window: sweep */
	uint64_t last_sweep;
	uint32_t next_kgen;
};

static void make_key(enum vxt_spec_key key, const struct vxt_event *ev, uint64_t *a,
		     uint64_t *b)
{
	*b = key == VXT_SPEC_KEY_REQUEST ? (uint64_t)ev->object << 32 | ev->bytes : 0;
	switch (key) {
	case VXT_SPEC_KEY_PID: *a = ev->pid; break;
	case VXT_SPEC_KEY_OBJECT_PID: *a = (uint64_t)ev->object << 32 | ev->pid; break;
	case VXT_SPEC_KEY_REQUEST: *a = ev->sector; break;
	default: *a = ev->object; break;
	}
}

static bool following(const struct skent *k, uint64_t t)
{
	return k->follow_id && t <= k->follow_until && k->follow_left;
}

static void key_forget(struct skeyed *ky, uint64_t a, uint64_t b)
{
	struct ient *e = vxt_itab_find(&ky->tab, a, b);
	struct skent *k;

	if (!e)
		return;
	k = e->p;
	vxt_itab_delete(&ky->tab, e);
	k->next = ky->free;
	ky->free = k;
}

static struct skent *key_insert(struct skeyed *ky, uint64_t a, uint64_t b)
{
	struct skent *k = ky->free;

	if (k)
		ky->free = k->next;
	else if (!(k = malloc(sizeof(*k))))
		return NULL;
	memset(k, 0, sizeof(*k));
	k->a = a;
	k->b = b;
	if (vxt_itab_put(&ky->tab, a, b, k) < 0) {
		free(k);
		return NULL;
	}
	return k;
}

/* ---- the actions' ops ---- */

int vxt_skeyed_speculation(struct firing *x, unsigned clause)
{
	struct vxt_script *s = x->s;
	struct skeyed *ky = s->keyed;
	const struct vxt_keyed_clause *c = &ky->cl[clause];
	struct sspec *b;
	int64_t id;

	if (!x->key && !(x->key = key_insert(ky, x->ka, x->kb)))
		return -ENOMEM;
	if (vxt_skeyed_active(s, x->key))
		return 0;
	id = vxt_sspec_open(s);
	x->key->id = (uint32_t)id;
	if (!id)
		return 0;	/* counted as a failed speculation */
	b = vxt_sspec_buf(s, id);
	b->windowed = c->windowed;
	b->window_ns = c->window_ns;
	b->window_events = c->windowed ? c->window_events : 0;
	b->kgen = ++ky->next_kgen;
	s->kgen_of[id - 1] = b->kgen;
	b->ka = x->ka;
	b->kb = x->kb;
	x->key->kgen = b->kgen;
	return 0;
}

/* Where the clause's record goes: into the key's buffer, or straight out
 * while the key follows a commit; nowhere when the event is taken already
 * or the key has no speculation (speculate(0) is harmless). */
void vxt_skeyed_speculate(struct firing *x)
{
	struct skent *k = x->key;

	x->target = -1;
	if (x->taken || !k)
		return;
	if (following(k, x->ev->time_ns)) {
		x->taken = true;
		k->follow_left--;
		x->target = 0;
		x->via = k->follow_id;
		return;
	}
	if (!vxt_skeyed_active(x->s, k))
		return;
	x->taken = true;
	x->target = k->id;
}

int vxt_skeyed_finish(struct firing *x, unsigned clause, bool commit)
{
	const struct vxt_keyed_clause *c = &x->s->keyed->cl[clause];
	struct skent *k = x->key;
	uint32_t id;
	uint64_t as;
	int rc;

	if (!vxt_skeyed_active(x->s, k))
		return 0;
	id = k->id;
	as = k->kgen;
	k->id = 0;
	rc = vxt_sspec_end(x->s, id, commit);
	if (rc == 0 && commit && (c->follow_ns || c->follow_events)) {
		if (!c->follow_ns ||
		    __builtin_add_overflow(x->ev->time_ns, c->follow_ns, &k->follow_until))
			k->follow_until = UINT64_MAX;
		k->follow_left = c->follow_events ? c->follow_events : UINT32_MAX;
		k->follow_id = as;
	}
	return rc;
}

void vxt_skeyed_clause(const struct vxt_script *s, unsigned i, struct vxt_keyed_clause *out)
{
	*out = s->keyed->cl[i];
}

enum vxt_spec_key vxt_skeyed_key(const struct vxt_script *s)
{
	return s->keyed->key;
}

unsigned vxt_skeyed_op(const struct script_node *step)
{
	switch (step->idx) {
	case VXT_ACT_SPECULATION: return VXT_INSN_KEYED_SPECULATION;
	case VXT_ACT_SPECULATE: return VXT_INSN_KEYED_SPECULATE;
	case VXT_ACT_COMMIT: return VXT_INSN_KEYED_COMMIT;
	case VXT_ACT_DISCARD: return VXT_INSN_KEYED_DISCARD;
	default: return VXT_INSN_KEYED_TRACE;
	}
}

int vxt_skeyed_compile_pred(struct compiler *c, unsigned clause, int64_t *reject)
{
	const struct vxt_filter *f = c->s->keyed->cl[clause].pred;

	return f ? vxt_filter_emit(c, f, -1, reject) : 0;
}

/* ---- per event ---- */

void vxt_skeyed_begin(struct firing *x)
{
	struct skeyed *ky = x->s->keyed;
	struct ient *e;

	make_key(ky->key, x->ev, &x->ka, &x->kb);
	e = vxt_itab_find(&ky->tab, x->ka, x->kb);
	x->key = e ? e->p : NULL;
	x->taken = false;
}

void vxt_skeyed_closed(struct vxt_script *s, uint32_t id)
{
	/* its buffer, given back, keeps its key until the next speculation() */
	const struct sspec *b = vxt_sspec_buf(s, id);
	struct ient *e = vxt_itab_find(&s->keyed->tab, b->ka, b->kb);
	struct skent *k = e ? e->p : NULL;

	if (!k || k->id != id || k->kgen != b->kgen)
		return;
	k->id = 0;
	if (!following(k, s->now))
		key_forget(s->keyed, b->ka, b->kb);
}

/* Close the windows that emptied with time. */
static void sweep(struct vxt_script *s)
{
	for (unsigned i = 0; i < s->opt.nspec; i++) {
		struct sspec *b = vxt_sspec_buf(s, i + 1);

		if (!vxt_sspec_active(s, i + 1) || !b->windowed)
			continue;
		if (vxt_sspec_expire(s, i + 1) < 0 || b->head < b->n)
			continue;
		s->st.expired++;
		vxt_sspec_end(s, i + 1, false);
		vxt_skeyed_closed(s, i + 1);
	}
}

void vxt_skeyed_end(struct firing *x)
{
	struct vxt_script *s = x->s;
	struct skeyed *ky = s->keyed;

	if (x->key && !vxt_skeyed_active(s, x->key) && !following(x->key, x->ev->time_ns))
		key_forget(ky, x->ka, x->kb);
	x->key = NULL;
	if (ky->windows && s->st.active && x->ordinal + 1 - ky->last_sweep >= SWEEP_EVERY) {
		sweep(s);
		ky->last_sweep = x->ordinal + 1;
	}
}

void vxt_skeyed_free(struct vxt_script *s)
{
	struct skeyed *ky = s->keyed;

	if (!ky)
		return;
	for (size_t i = 0; i < ky->tab.cap; i++)
		free(ky->tab.e[i].p);
	vxt_itab_free(&ky->tab);
	while (ky->free) {
		struct skent *k = ky->free;

		ky->free = k->next;
		free(k);
	}
	if (ky->cl)
		for (unsigned i = 0; i < ky->ncl; i++)
			vxt_filter_free(ky->cl[i].pred);
	free(ky->cl);
	free(ky);
	free(s->kgen_of);
	s->keyed = NULL;
}

/* ---- compiling ---- */

static unsigned probes_of(unsigned mask)
{
	unsigned p = 0;

	if (mask == VXT_PROBE_ANY)
		return SP_QUEUE | SP_START | SP_DONE | SP_REQUEUE | SP_OTHER;
	if (mask & VXT_PROBE_START)
		p |= SP_START;
	if (mask & VXT_PROBE_DONE)
		p |= SP_DONE;
	if (mask & VXT_PROBE_REQUEUE)
		p |= SP_REQUEUE;
	return p;
}

static struct script_node *step(struct vxt_script *s, int what, unsigned clause, unsigned line,
				unsigned col)
{
	int rc;
	struct script_node *n = vxt_script_node_new(s, &rc, SN_KEYED, line, col);

	if (n) {
		n->type = SV_INT;
		n->idx = what;
		n->num = clause;
	}
	return n;
}

static int compile_clause(struct vxt_script *s, const struct vxt_spec_config *c, unsigned i,
			  const struct vxt_objtab *objs, const struct vxt_strtab *strs, char *err)
{
	const struct vxt_spec_clause *in = &c->clauses[i];
	struct vxt_keyed_clause *kc = &s->keyed->cl[i];
	struct sclause *cl = &s->cl[i];
	int rc;

	kc->windowed = in->windowed;
	kc->window_ns = in->window_ns;
	kc->window_events = in->window_events;
	kc->follow_ns = in->follow_ns;
	kc->follow_events = in->follow_events;
	if (in->windowed)
		s->keyed->windows = true;
	rc = vxt_spec_compile_pred(c, i, objs, strs, &kc->pred, err);
	if (rc < 0)
		return rc;
	if (kc->pred && vxt_filter_uses_intervals(kc->pred))
		s->uses_iv = true;	/* the run pairs the phases (phasepair.h) */
	cl->probes = probes_of(in->probes);
	cl->line = in->line;
	cl->col = in->col;
	snprintf(cl->probe_text, sizeof(cl->probe_text), "clause %u", i + 1);
	cl->stmts = vxt_script_alloc(s, in->nactions * sizeof(*cl->stmts));
	if (!cl->stmts)
		return -ENOMEM;
	for (unsigned a = 0; a < in->nactions; a++) {
		cl->stmts[a] = step(s, (int)in->actions[a], i, in->line, in->col);
		if (!cl->stmts[a])
			return -ENOMEM;
		if (in->actions[a] == VXT_ACT_SPECULATE || in->actions[a] == VXT_ACT_TRACE)
			cl->records = true;
	}
	cl->nstmts = in->nactions;
	return 0;
}

struct vxt_script *vxt_script_keyed(const struct vxt_spec_config *c,
				    const struct vxt_objtab *objs, const struct vxt_strtab *strs,
				    char err[VXT_ERRBUF_SIZE])
{
	const char *name = c->name ? c->name : "speculation";
	struct vxt_script *s;
	int rc;

	if (vxt_spec_check(c, err) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	vxt_script_defaults(s, name);
	s->opt.quiet = true;	/* the events are what a profile keeps */
	s->opt.nspec = c->nspec ? c->nspec : VXT_SPEC_DEFAULT_NSPEC;
	s->opt.nspec_set = true;
	s->opt.specsize = c->specsize ? c->specsize : VXT_SPEC_DEFAULT_SIZE;
	if (s->opt.bufsize < s->opt.specsize)	/* a commit always fits */
		s->opt.bufsize = s->opt.specsize;
	s->keyed = calloc(1, sizeof(*s->keyed));
	s->cl = calloc(c->nclauses, sizeof(*s->cl));
	if (!s->keyed || !s->cl)
		goto nomem;
	s->keyed->key = c->key;
	s->keyed->cl = calloc(c->nclauses, sizeof(*s->keyed->cl));
	if (!s->keyed->cl)
		goto nomem;
	s->keyed->ncl = c->nclauses;
	s->ncl = c->nclauses;
	for (unsigned i = 0; i < c->nclauses; i++) {
		rc = compile_clause(s, c, i, objs, strs, err);
		if (rc == -ENOMEM)
			goto nomem;
		if (rc < 0)
			goto fail;
	}
	if (vxt_script_alloc_runtime(s) < 0)
		goto nomem;
	s->kgen_of = calloc(s->opt.nspec, sizeof(*s->kgen_of));
	if (!s->kgen_of)
		goto nomem;
	return s;
nomem:
	snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", name);
fail:
	vxt_script_free(s);
	return NULL;
}
