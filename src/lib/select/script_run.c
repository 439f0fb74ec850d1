/* script_run.c - running a checked script over events
 *
 * For each event: clean busy speculative buffers at cleanrate and fire due
 * tick probes (event time offline, vxt_script_tick() live), bind the event
 * to its request (script_dyn.c), then run the matching clauses in program
 * order. A clause's statements run in order; what it records (the event,
 * and the text of trace / printf) becomes one record in the principal
 * buffer (straight to the sink) or in the speculative buffer named by
 * speculate() (script_spec.c). A run-time error abandons the clause.
 * A clause of a common shape (a lone speculate(), or no record at all) has
 * a function of its own, picked once, without the steps it never needs.
 * An event probe's clause list is an array of steps (struct sstep), run by
 * one loop: the commonest predicates (/req->X/, /req->X && error/, /req->X
 * && .../) and lone actions on a req-> ID (speculate, commit, discard,
 * X = speculation()) are read from the step and run in the loop, two such
 * steps that always follow each other as one (a pair), a profile's clause
 * by calls to script_keyed.c, any other clause through its function. A
 * plain script's batch shares one context, and its events find their
 * requests by their phase's own step (the request table's walks are
 * inline, script_impl.h).
 *
 * An aggregation statement whose keys are all fields or integers keeps a
 * cache from the event's raw numbers to the aggregation's entry, so the
 * common @[object, op] = quantize(latency) hashes a few integers per event
 * and never a string.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/program.h"
#include "script/script_impl.h"

#define TICK_CATCHUP	1000	/* tick firings at most per event; later ones are skipped */

static void text_printf(struct ectx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text_printf(struct ectx *x, const char *fmt, ...)
{
	char buf[S_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		vxt_stext_add(x->s->text, &x->s->tlen, S_TEXT_MAX, buf,
			      (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void do_printf(struct ectx *x, const struct snode *n)
{
	const struct sfmt *f = n->fmt;
	unsigned argi = 1;
	char esc[S_TEXT_MAX];

	for (unsigned i = 0; i < f->n; i++) {
		const struct sconv *c = &f->c[i];
		struct sval v;

		if (!c->conv) {
			vxt_stext_add(x->s->text, &x->s->tlen, S_TEXT_MAX, c->text, c->tlen);
			continue;
		}
		v = vxt_seval(x, n->args[argi++]);
		if (c->conv == 'S' || c->conv == 'Y') {	/* D's own: formatted first */
			char buf[1024];

			vxt_script_format_conv(c, v.type == SV_STR, v.i, v.s, buf, sizeof(buf));
			text_printf(x, "%s", buf);
			continue;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (c->conv == 's')
			text_printf(x, c->spec, v.type == SV_STR ? vxt_sprintable(x->s, v.s, esc,
										  sizeof(esc)) : "");
		else if (c->conv == 'c')
			text_printf(x, c->spec, (int)v.i);
		else
			text_printf(x, c->spec, (long long)v.i);
#pragma GCC diagnostic pop
	}
}

int vxt_script_print_aggs(struct vxt_script *s, struct sagg *only, bool clear, bool at_end,
			  const struct sfmt *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f)
		return -ENOMEM;
	for (unsigned i = 0; i < s->naggs; i++) {
		struct sagg *a = &s->aggs[i];

		if ((only && a != only) || (at_end && a->printed) || a->fn < 0)
			continue;
		if (fmt)
			vxt_sagg_printa(s, a, fmt, f);
		else
			vxt_sagg_print(s, a, f);
		if (clear)
			vxt_sagg_clear(s, a, false, 0);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (len)
		rc = vxt_sspec_text(s, buf, len);
	free(buf);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	return rc;
}

/* ---- aggregations ---- */

static uint64_t fast_hash(const int64_t *k, unsigned n)
{
	uint64_t h = 0x84222325cbf29ce4ull;

	for (unsigned i = 0; i < n; i++) {
		h = (h ^ (uint64_t)k[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h ? h : 1;
}

/* The event's raw numbers for the keys of @n. @return false when some key
 * has none (no event, or a string that is not a field). */
static bool fast_keys(struct ectx *x, const struct snode *n, const struct sfast *f,
		      int64_t *k)
{
	const struct vxt_event *ev = x->ev;

	if (!f->usable || !ev)
		return false;
	for (unsigned i = 0; i < n->nkeys; i++) {
		struct sval v;

		switch (f->kind[i]) {
		case FK_OBJECT: k[i] = ev->object; break;
		case FK_OP: k[i] = ev->op; break;
		case FK_PHASE: k[i] = ev->phase; break;
		case FK_COMM: k[i] = ev->comm; break;
		default:
			v = vxt_seval(x, n->keys[i]);
			k[i] = v.i;
			break;
		}
	}
	return true;
}

static struct sfastent *fast_find(struct sfast *f, const int64_t *k, unsigned n, uint64_t h)
{
	size_t mask = f->cap - 1;

	for (size_t i = h & mask; f->e[i].h; i = (i + 1) & mask) {
		unsigned j;

		if (f->e[i].h != h)
			continue;
		for (j = 0; j < n && f->e[i].k[j] == k[j]; j++)
			;
		if (j == n)
			return &f->e[i];
	}
	return NULL;
}

static int fast_put(struct sfast *f, const int64_t *k, unsigned n, uint64_t h,
		    struct saggval *d)
{
	size_t mask, i;

	if (2 * (f->n + 1) > f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct sfastent *ne = calloc(cap, sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		for (size_t j = 0; j < f->cap; j++) {
			if (!f->e[j].h)
				continue;
			for (i = f->e[j].h & (cap - 1); ne[i].h; i = (i + 1) & (cap - 1))
				;
			ne[i] = f->e[j];
		}
		free(f->e);
		f->e = ne;
		f->cap = cap;
	}
	mask = f->cap - 1;
	for (i = h & mask; f->e[i].h; i = (i + 1) & mask)
		;
	f->e[i].h = h;
	memcpy(f->e[i].k, k, n * sizeof(*k));
	f->e[i].d = d;
	f->n++;
	return 0;
}

/* A key not in the raw-key cache (or no raw form): find or make the entry by
 * the keys' values, and cache it when it has a raw form. */
static __attribute__((noinline)) int agg_slow(struct ectx *x, const struct snode *n,
					      const int64_t *raw, bool fast, int64_t v)
{
	struct vxt_script *s = x->s;
	struct sagg *a = &s->aggs[n->idx];
	struct sfast *fa = &s->fast[n->num];
	struct saggval *d = NULL;
	struct skey k;
	uint64_t h = 0;
	int rc;

	if (fast) {
		if (fa->gen != a->gen) {	/* trunc() removed entries */
			if (fa->cap)
				memset(fa->e, 0, fa->cap * sizeof(*fa->e));
			fa->n = 0;
			fa->gen = a->gen;
		}
		h = fast_hash(raw, n->nkeys);
	}
	k.ns = (uint32_t)n->idx;
	k.n = n->nkeys;
	for (unsigned i = 0; i < n->nkeys; i++)
		k.k[i] = vxt_seval(x, n->keys[i]);
	rc = vxt_sagg_add(s, a, &k, v, &d);
	if (rc == 0 && fast && d)
		rc = fast_put(fa, raw, n->nkeys, h, d);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	if (s->st.mem_bytes > s->st.peak_mem_bytes)
		s->st.peak_mem_bytes = s->st.mem_bytes;
	return rc;
}

static int agg_set(struct ectx *x, const struct snode *n)
{
	struct vxt_script *s = x->s;
	struct sagg *a = &s->aggs[n->idx];
	struct sfast *fa = &s->fast[n->num];
	const struct snode *f = n->a;
	int64_t raw[S_MAX_KEYS], v = 1;
	bool fast = fast_keys(x, n, fa, raw);

	if (f->idx != FN_COUNT)
		v = vxt_sieval(x, f->args[0]);	/* checked: an integer */
	if (x->error)
		return 0;
	if (fast && fa->gen == a->gen && fa->cap) {	/* a key seen before */
		struct sfastent *e = fast_find(fa, raw, n->nkeys, fast_hash(raw, n->nkeys));

		if (e) {
			vxt_sagg_add_to(a, e->d, v);
			return 0;
		}
	}
	return agg_slow(x, n, raw, fast, v);
}

/* Number the aggregation statements and find which keys have a raw form. */

/* The raw-key cache of aggregation statement @st. */
static void prepare_one(struct vxt_script *s, struct snode *st)
{
	struct sfast *f;
	unsigned k;

	st->num = s->nfast;
	f = &s->fast[s->nfast++];
	f->usable = true;
	for (k = 0; k < st->nkeys; k++) {
		const struct snode *key = st->keys[k];

		if (key->kind == SN_FIELD && key->idx == SF_OBJECT)
			f->kind[k] = FK_OBJECT;
		else if (key->kind == SN_FIELD && key->idx == SF_OP)
			f->kind[k] = FK_OP;
		else if (key->kind == SN_FIELD && key->idx == SF_PHASE)
			f->kind[k] = FK_PHASE;
		else if (key->kind == SN_FIELD && (key->idx == SF_COMM || key->idx == SF_EXECNAME))
			f->kind[k] = FK_COMM;
		else if (key->type == SV_INT)
			f->kind[k] = FK_INT;
		else
			f->usable = false;
	}
	/* integer keys find their entry in the table as fast as in a cache,
	 * without its memory (80 bytes a slot) */
	for (k = 0; k < st->nkeys && f->kind[k] == FK_INT; k++)
		;
	if (st->nkeys && k == st->nkeys)
		f->usable = false;
	if (f->usable)
		s->aggs[st->idx].cached = true;
}

/* How many aggregation statements @st is or runs under ?:; with @s, each
 * gets its raw-key cache (prepare_one()). */
static unsigned agg_statements(struct vxt_script *s, struct snode *st)
{
	if (st->kind == SN_AGGSET) {
		if (s)
			prepare_one(s, st);
		return 1;
	}
	if (!vxt_snode_cond_action(st))
		return 0;
	return agg_statements(s, st->b) + agg_statements(s, st->c);
}

int vxt_script_prepare_fast(struct vxt_script *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->ncl; i++)
		for (unsigned j = 0; j < s->cl[i].nstmts; j++)
			n += agg_statements(NULL, s->cl[i].stmts[j]);
	s->fast = calloc(n + 1, sizeof(*s->fast));
	if (!s->fast)
		return -ENOMEM;
	for (unsigned i = 0; i < s->ncl; i++)
		for (unsigned j = 0; j < s->cl[i].nstmts; j++)
			agg_statements(s, s->cl[i].stmts[j]);
	return 0;
}



/* The value of argument @n: an integer one without the values in between. */
static struct sval int_arg(struct ectx *x, const struct snode *n)
{
	struct sval v = { .type = SV_INT };

	if (n->type != SV_INT)
		return vxt_seval(x, n);
	v.i = vxt_sieval(x, n);
	return v;
}

/* VAR = integer expression, for a req->, global or this-> variable (as
 * vxt_seval() of the assignment). @return 0 or -ENOMEM. */
static int assign_int(struct ectx *x, const struct snode *n)
{
	struct sval v = { .type = SV_INT };
	int rc;

	v.i = vxt_sieval(x, n->b);
	if (x->error)
		return x->rc;
	switch (n->a->kind) {
	case SN_GLOBAL:
		x->s->globals[n->a->idx] = v;
		break;
	case SN_THIS:
		x->s->thisv[n->a->idx] = v;
		break;
	default:
		rc = vxt_sdyn_set(x, n->a, v);
		if (rc < 0)
			x->rc = rc;
		break;
	}
	return x->rc;
}

/* Whether statement @n is VAR = integer for a req->, global or this-> VAR
 * (assign_int()). */
static inline bool int_assign(const struct snode *n)
{
	return n->kind == SN_ASSIGN && n->op == ST_ASSIGN && n->type == SV_INT &&
	       (n->a->kind == SN_REQ || n->a->kind == SN_GLOBAL || n->a->kind == SN_THIS);
}

static int stmt(struct ectx *x, const struct snode *n)
{
	struct vxt_script *s = x->s;
	struct sval v;

	if (n->kind == SN_AGGSET)
		return agg_set(x, n);
	if (vxt_snode_cond_action(n))	/* c ? action : other */
		return stmt(x, vxt_struth_of(x, n->a) ? n->b : n->c);
	if (int_assign(n))
		return assign_int(x, n);
	if (n->kind != SN_CALL || n->idx == FN_SPECULATION) {
		vxt_seval(x, n);
		return x->rc;
	}
	switch (n->idx) {
	case FN_SPECULATE:
		v = int_arg(x, n->args[0]);
		x->target = v.i > 0 && v.i <= s->opt.nspec &&
			    s->spec[v.i - 1].state == SB_ACTIVE ? v.i : -1;
		return 0;
	case FN_COMMIT: case FN_DISCARD:
		v = int_arg(x, n->args[0]);
		return x->error ? 0 : vxt_sspec_end(s, v.i, n->idx == FN_COMMIT);
	case FN_TRACE:
		v = vxt_seval(x, n->args[0]);
		if (v.type == SV_STR) {
			char esc[S_TEXT_MAX];

			text_printf(x, " %s", vxt_sprintable(s, v.s, esc, sizeof(esc)));
		}
		else
			text_printf(x, " %" PRId64, v.i);
		return 0;
	case FN_PRINTF:
		do_printf(x, n);
		return 0;
	case FN_EXIT:
		v = vxt_seval(x, n->args[0]);
		if (!x->error && !s->exited) {
			s->exited = true;
			s->exit_code = (int)v.i;
		}
		return 0;
	case FN_PRINTA: {
		bool formatted = n->args[0]->kind == SN_STR;
		int rc;

		/* what the clause printed before goes out first, as its records
		 * reach dtrace's buffer in order */
		if (x->target == 0 && s->tlen) {
			rc = vxt_sspec_text(s, s->text, s->tlen);
			s->tlen = 0;
			s->text[0] = '\0';
			if (rc < 0)
				return rc;
		}
		for (unsigned i = formatted; i < n->nargs; i++) {
			struct sagg *a = &s->aggs[n->args[i]->idx];

			a->printed = true;
			rc = vxt_script_print_aggs(s, a, false, false, formatted ? n->fmt : NULL);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	case FN_NORMALIZE:
		v = int_arg(x, n->args[1]);
		s->aggs[n->args[0]->idx].normal = v.i;
		return 0;
	case FN_DENORMALIZE:
		s->aggs[n->args[0]->idx].normal = 0;
		return 0;
	case FN_CLEAR:
		vxt_sagg_clear(s, &s->aggs[n->args[0]->idx], false, 0);
		return 0;
	case FN_TRUNC:
		vxt_sagg_clear(s, &s->aggs[n->args[0]->idx], true,
			       n->nargs == 2 ? (n->args[1]->kind == SN_NUM ? n->args[1]->num : 0) : 0);
		s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
		return 0;
	}
	return 0;
}

/* The clause's predicate over the event: 1 true, 0 false or a run-time
 * error (the clause is abandoned), negative out of memory. */
static inline __attribute__((always_inline)) int pred_holds(struct ectx *x,
							  const struct sclause *c)
{
	const struct snode *p = c->pred;
	bool t;

	if (!p)
		return 1;
	/* /req->X/ and /req->X && ...integer.../ read req->X in place */
	if (p->kind == SN_REQ && p->ifn)
		return vxt_sreq_int(x, p) != 0;
	if (p->kind == SN_AND && p->a->kind == SN_REQ && p->a->ifn && p->b->ifn) {
		if (!vxt_sreq_int(x, p->a))
			return 0;
		t = p->b->ifn(x, p->b) != 0;
	} else {
		t = p->ifn ? p->ifn(x, p) != 0 : vxt_struth_of(x, p);
	}
	if (x->rc < 0)
		return x->rc;
	return !x->error && t;
}

/* A clause's start over the event: its predicate (see pred_holds()). */
static inline __attribute__((always_inline)) int clause_enter(struct ectx *x,
							    const struct sclause *c)
{
	x->cl = c;
	x->error = false;
	return pred_holds(x, c);
}

/* A clause's result from its statements' @rc and the event's own. */
static inline int clause_rc(const struct ectx *x, int rc)
{
	return rc < 0 ? rc : x->rc < 0 ? x->rc : 0;
}

/* Any clause. */
static int run_clause(struct ectx *x, const struct sclause *c)
{
	struct vxt_script *s = x->s;
	int rc;

	rc = clause_enter(x, c);
	if (rc <= 0)
		return rc;
	rc = 0;
	x->target = 0;
	s->tlen = 0;
	s->text[0] = '\0';
	for (unsigned i = 0; i < c->nstmts && rc == 0 && !x->error; i++)
		rc = stmt(x, c->stmts[i]);
	if (rc < 0 || x->rc < 0)
		return rc < 0 ? rc : x->rc;
	if (x->error || !c->records)
		return 0;
	return vxt_sspec_record(x);
}

/* A clause that records nothing (no speculate, trace, printf or printa):
 * its statements alone. */
static int run_quiet(struct ectx *x, const struct sclause *c)
{
	int rc;

	rc = clause_enter(x, c);
	if (rc <= 0)
		return rc;
	rc = 0;
	for (unsigned i = 0; i < c->nstmts && rc == 0 && !x->error; i++)
		rc = stmt(x, c->stmts[i]);
	return clause_rc(x, rc);
}

/* { speculate(ID); }, ID an integer: the event into speculation ID. */
static int run_speculate(struct ectx *x, const struct sclause *c)
{
	struct vxt_script *s = x->s;
	int64_t id;
	int rc;

	rc = clause_enter(x, c);
	if (rc <= 0)
		return rc;
	id = vxt_sieval_req(x, c->stmts[0]->args[0]);
	if (x->rc < 0)
		return x->rc;
	if (x->error || id <= 0 || id > s->opt.nspec || s->spec[id - 1].state != SB_ACTIVE)
		return 0;	/* an invalid or inactive ID records nothing */
	return vxt_sspec_speculate(x, id);
}

/* { commit(ID); } or { discard(ID); }, ID an integer. */
static int run_end(struct ectx *x, const struct sclause *c)
{
	const struct snode *n = c->stmts[0];
	int64_t id;
	int rc;

	rc = clause_enter(x, c);
	if (rc <= 0)
		return rc;
	id = vxt_sieval_req(x, n->args[0]);
	rc = x->error ? 0 : vxt_sspec_end(x->s, id, n->idx == FN_COMMIT);
	return clause_rc(x, rc);
}

/* { VAR = integer; }, VAR a req->, global or this-> variable. */
static int run_assign(struct ectx *x, const struct sclause *c)
{
	int rc;

	rc = clause_enter(x, c);
	if (rc <= 0)
		return rc;
	rc = assign_int(x, c->stmts[0]);
	return clause_rc(x, rc);
}

/* Each clause's function, by its shape, and its records' bits. Can't fail. */
static void prepare_runs(struct vxt_script *s)
{
	for (unsigned i = 0; i < s->ncl; i++) {
		struct sclause *c = &s->cl[i];
		const struct snode *st = c->nstmts == 1 ? c->stmts[0] : NULL;

		c->rec_bits = (uint64_t)(i & 0xff) << SREC_CLAUSE_SHIFT | (c->has_text ? SREC_OWN : 0);
		c->done_probe = c->probes & SP_DONE ? SP_DONE : SP_ERROR;

		if (c->records && !c->has_text && st && st->kind == SN_CALL &&
		    st->idx == FN_SPECULATE && st->args[0]->type == SV_INT)
			c->run = run_speculate;
		else if (!c->records && st && st->kind == SN_CALL &&
			 (st->idx == FN_COMMIT || st->idx == FN_DISCARD) &&
			 st->args[0]->type == SV_INT)
			c->run = run_end;
		else if (!c->records && st && int_assign(st))
			c->run = run_assign;
		else if (!c->records)
			c->run = run_quiet;
		else
			c->run = run_clause;
	}
}

/* ---- an event probe's clause list as steps ---- */

/* Integer req-> variable in slot @slot of the event's request; 0 when unset
 * (an unset value's integer is 0). */
static inline int64_t step_req(const struct ectx *x, unsigned slot)
{
	const struct sdyn *d = x->req ? x->req->v : NULL;

	return d ? d->v[slot].i : 0;
}

/* /req->X && B/ of step @p, as pred_holds(). */
static inline __attribute__((always_inline)) int step_req_and(struct ectx *x,
							    const struct sstep *p)
{
	bool t;

	if (!step_req(x, p->pslot))
		return 0;
	t = p->pb->ifn(x, p->pb) != 0;
	if (x->rc < 0)
		return x->rc;
	return !x->error && t;
}

/* speculate(req->X) once the predicate holds, as run_speculate(): an event
 * into a buffer with room and no window is appended here. */
static inline __attribute__((always_inline)) int step_speculate(struct ectx *x,
							      const struct sstep *p)
{
	struct vxt_script *s = x->s;
	int64_t id = step_req(x, p->aslot);
	struct sspec *b;
	struct srec *r;

	if (id <= 0 || id > s->opt.nspec)
		return 0;
	b = &s->spec[id - 1];
	if (b->state != SB_ACTIVE)
		return 0;
	if (b->windowed || b->n == b->cap || s->track ||
	    b->bytes + VXT_SCRIPT_RECORD_SIZE > s->opt.specsize) {
		x->cl = p->c;
		x->probe = p->probe;
		return vxt_sspec_speculate(x, id);
	}
	r = &b->recs[b->n++];
	r->ev = *x->ev;
	r->m = p->mbits | (x->ordinal & SREC_ORDINAL);
	b->bytes += VXT_SCRIPT_RECORD_SIZE;
	vxt_sspec_mem(s, VXT_SCRIPT_RECORD_SIZE);
	return 0;
}

/* One step over the event (not SQ_CLAUSE: run_steps() calls those), as its
 * clause's function would run it. The context's clause, probe and error
 * are set only where something reads them: an expression, a record's slow
 * path. */
static inline __attribute__((always_inline)) int run_step(struct ectx *x,
							const struct sstep *p)
{
	int rc;

	if (p->pred == SQ_REQ) {	/* the commonest first */
		if (!step_req(x, p->pslot))
			return 0;
	} else switch (p->pred) {
	case SQ_NONE:
		break;
	case SQ_REQ_ERROR:
		if (!step_req(x, p->pslot) || !x->ev->error)
			return 0;
		break;
	case SQ_REQ_OK:
		if (!step_req(x, p->pslot) || x->ev->error)
			return 0;
		break;
	default:		/* SQ_REQ_AND, SQ_ANY: as clause_enter() */
		x->probe = p->probe;
		x->cl = p->c;
		x->error = false;
		rc = p->pred == SQ_REQ_AND ? step_req_and(x, p) : pred_holds(x, p->c);
		if (rc <= 0)
			return rc;
		break;
	}
	switch (p->act) {
	case SA_SPECULATE:
		return step_speculate(x, p);
	case SA_END:
		if (!p->commit && !x->s->keyed)
			return vxt_sspec_discard(x->s, step_req(x, p->aslot));
		rc = vxt_sspec_end(x->s, step_req(x, p->aslot), p->commit);
		return clause_rc(x, rc);
	default:		/* SA_OPEN */
		rc = vxt_sreq_set_int(x, p->aslot, vxt_sspec_open(x->s));
		return clause_rc(x, rc);
	}
}

/* Step @p and the next one, a pair (p->pair) run as one. */
static inline __attribute__((always_inline)) int run_pair(struct ectx *x,
							const struct sstep *p)
{
	struct vxt_script *s = x->s;
	const struct sstep *q = p + 1;
	int rc;

	if (p->pair == SPAIR_OPEN_SPECULATE) {	/* X = speculation(); then speculate(X) */
		rc = run_step(x, p);
		if (rc < 0)
			return rc;
		return step_req(x, q->pslot) ? step_speculate(x, q) : 0;
	}
	/* SPAIR_COMMIT_DISCARD: /X && error/ commit(); then /X && !error/ discard()
	 * (a commit leaves X as it is) */
	if (!step_req(x, p->pslot))
		return 0;
	if (x->ev->error) {
		rc = vxt_sspec_end(s, step_req(x, p->aslot), true);
		return clause_rc(x, rc);
	}
	if (!s->keyed)
		return vxt_sspec_discard(s, step_req(x, q->aslot));
	rc = vxt_sspec_end(s, step_req(x, q->aslot), false);
	return clause_rc(x, rc);
}

/* A profile's clause (SA_KEYED), as run_clause() or run_quiet() runs it,
 * calling script_keyed.c straight for its predicate and steps. */
static inline __attribute__((always_inline)) int run_keyed(struct ectx *x,
							 const struct sstep *p)
{
	const struct sclause *c = p->c;
	struct vxt_script *s = x->s;
	int rc = 0;

	x->probe = p->probe;
	x->cl = c;
	x->error = false;
	if (c->pred) {
		bool t = p->kspec >= 0 ? vxt_skeyed_active(s, x->key) == (bool)p->kspec :
					 vxt_skeyed_pred(x, c->pred);

		if (x->rc < 0)
			return x->rc;
		if (x->error || !t)
			return 0;
	}
	if (c->records) {
		x->target = 0;
		s->tlen = 0;
		s->text[0] = '\0';
	}
	for (unsigned i = 0; i < c->nstmts && rc == 0 && !x->error; i++)
		rc = vxt_skeyed_step(x, c->stmts[i]);
	if (rc < 0 || x->rc < 0)
		return rc < 0 ? rc : x->rc;
	if (x->error || !c->records)
		return 0;
	return vxt_sspec_record(x);
}

/* Run the steps of list @on, in program order; @keyed (a constant where it
 * is inlined): the script may be a profile's. */
static inline __attribute__((always_inline)) int run_steps(struct ectx *x, unsigned on,
							 bool keyed)
{
	struct vxt_script *s = x->s;
	const struct sstep *p = s->steps[on], *end = p + s->non[on];
	int rc = 0;

	if (!s->old_engine)
		return vxt_program_run(x, s->prog_on[on]);
	/* s->exited is false here (the event would not have come this far),
	 * and only a clause's own function can call exit() */
	for (; p < end; p++) {
		if (p->pred == SQ_CLAUSE) {
			x->probe = p->probe;
			rc = keyed && p->act == SA_KEYED ? run_keyed(x, p) : p->c->run(x, p->c);
			if (rc || s->exited)
				break;
			continue;
		}
		rc = p->pair ? run_pair(x, p++) : run_step(x, p);
		if (rc)
			break;
	}
	return rc;
}

/* Pair the steps of a list that run as one (struct sstep's pair). */
static void pair_steps(struct sstep *k, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i++) {
		struct sstep *p = &k[i], *q = &k[i + 1];

		if (p->pred != SQ_CLAUSE && p->act == SA_OPEN && q->pred == SQ_REQ &&
		    q->pslot == p->aslot && q->act == SA_SPECULATE)
			p->pair = SPAIR_OPEN_SPECULATE;
		else if (p->pred == SQ_REQ_ERROR && p->act == SA_END && p->commit &&
			 q->pred == SQ_REQ_OK && q->pslot == p->pslot && q->act == SA_END &&
			 !q->commit)
			p->pair = SPAIR_COMMIT_DISCARD;
		else
			continue;
		i++;	/* the next is taken */
	}
}

/* Whether @n is an integer req-> variable read in place (n->slot). */
static bool req_int_node(const struct snode *n)
{
	return n->kind == SN_REQ && n->ifn;
}

/* Whether @n is the field error. */
static bool is_error(const struct snode *n)
{
	return n->kind == SN_FIELD && n->idx == SF_ERROR;
}

/* Whether @c is a profile's clause: its predicate and statements are all
 * script_keyed.c's nodes. */
static bool keyed_clause(const struct sclause *c)
{
	if (c->pred && c->pred->kind != SN_KEYED)
		return false;
	for (unsigned i = 0; i < c->nstmts; i++)
		if (c->stmts[i]->kind != SN_KEYED || c->stmts[i]->idx == 0)
			return false;
	return true;
}

/* Clause @c of a list whose events fire it as @probe, as a step. */
static struct sstep make_step(const struct vxt_script *s, const struct sclause *c,
			      unsigned probe)
{
	const struct snode *st = c->nstmts == 1 ? c->stmts[0] : NULL;
	const struct snode *p = c->pred;
	struct sstep k = { .c = c, .probe = probe, .act = SA_CLAUSE };

	if (c->run == run_speculate && req_int_node(st->args[0])) {
		k.act = SA_SPECULATE;
		k.aslot = st->args[0]->slot;
		k.mbits = c->rec_bits | (uint64_t)(probe ? (unsigned)__builtin_ctz(probe) & 0xf : 0)
			  << SREC_PROBE_SHIFT | SREC_HAS_EVENT;
	} else if (c->run == run_end && req_int_node(st->args[0])) {
		k.act = SA_END;
		k.aslot = st->args[0]->slot;
		k.commit = st->idx == FN_COMMIT;
	} else if (c->run == run_assign && st->a->kind == SN_REQ && st->b->kind == SN_CALL &&
		   st->b->idx == FN_SPECULATION && st->b->ifn) {
		k.act = SA_OPEN;
		k.aslot = s->vars[st->a->idx].slot;
	}
	k.kspec = -1;
	if (s->keyed && keyed_clause(c)) {
		k.act = SA_KEYED;
		if (c->pred)
			k.kspec = (int8_t)vxt_skeyed_pred_spec(s, c->pred);
	}
	if (!p)
		k.pred = SQ_NONE;
	else if (req_int_node(p))
		k.pred = SQ_REQ;
	else if (p->kind == SN_AND && req_int_node(p->a) && is_error(p->b))
		k.pred = SQ_REQ_ERROR;
	else if (p->kind == SN_AND && req_int_node(p->a) && p->b->kind == SN_UNARY &&
		 p->b->op == ST_NOT && is_error(p->b->a))
		k.pred = SQ_REQ_OK;
	else if (p->kind == SN_AND && req_int_node(p->a) && p->b->ifn)
		k.pred = SQ_REQ_AND;
	else
		k.pred = SQ_ANY;
	k.pslot = k.pred == SQ_REQ ? p->slot : k.pred != SQ_ANY && k.pred != SQ_NONE ?
		  p->a->slot : 0;
	k.pb = k.pred == SQ_REQ_AND ? p->b : NULL;
	if (k.act == SA_CLAUSE || k.act == SA_KEYED)
		k.pred = SQ_CLAUSE;
	return k;
}

/* Run the clauses of probe @bit (and, for ticks, of interval @tick). */
static int fire(struct ectx *x, unsigned bit, uint64_t tick)
{
	struct vxt_script *s = x->s;
	int rc = 0;

	x->probe = bit;
	if (!s->old_engine) {
		const struct vxt_program *p = bit == SP_BEGIN ? s->prog_begin :
					      bit == SP_END ? s->prog_end : NULL;

		for (unsigned i = 0; !p && i < s->nticks; i++)
			if (s->ticks[i] == tick)
				p = s->prog_tick[i];
		return p ? vxt_program_run(x, p) : 0;
	}
	for (unsigned i = 0; i < s->ncl && rc == 0 && !s->exited; i++) {
		const struct sclause *c = &s->cl[i];

		if (!(c->probes & bit) || (bit == SP_TICK && c->tick_ns != tick))
			continue;
		rc = run_clause(x, c);
	}
	return rc;
}

/* The clause lists of the event probes, and each clause's function.
 * @return 0 or -ENOMEM. */
int vxt_script_prepare_on(struct vxt_script *s)
{
	static const unsigned bits[SON_COUNT] = {
		[SON_QUEUE] = SP_QUEUE, [SON_START] = SP_START, [SON_DONE] = SP_DONE | SP_ERROR,
		[SON_REQUEUE] = SP_REQUEUE, [SON_LOST] = SP_LOST, [SON_OTHER] = SP_OTHER,
		[SON_DONE_OK] = SP_DONE,
	};

	prepare_runs(s);
	for (unsigned k = 0; k < SON_COUNT; k++) {
		s->on[k] = calloc(s->ncl + 1, sizeof(*s->on[k]));
		s->steps[k] = calloc(s->ncl + 1, sizeof(*s->steps[k]));
		if (!s->on[k] || !s->steps[k])
			return -ENOMEM;
		s->non[k] = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			const struct sclause *c = &s->cl[i];

			if (!(c->probes & bits[k]))
				continue;
			s->steps[k][s->non[k]] = make_step(s, c, k == SON_DONE ? c->done_probe :
								 bits[k]);
			s->on[k][s->non[k]++] = c;
		}
		pair_steps(s->steps[k], s->non[k]);
	}
	return 0;
}

static int ticks_until(struct vxt_script *s, uint64_t now)
{
	struct ectx x = { .s = s };
	int rc = 0;

	for (unsigned i = 0; i < s->nticks && rc == 0; i++) {
		unsigned n = 0;

		if (!s->next_tick[i])
			s->next_tick[i] = now + s->ticks[i];
		while (now >= s->next_tick[i] && rc == 0 && !s->exited) {
			uint64_t saved = s->now;

			s->now = s->next_tick[i];
			rc = fire(&x, SP_TICK, s->ticks[i]);
			s->now = saved > s->now ? saved : s->now;
			s->next_tick[i] += s->ticks[i];
			if (++n == TICK_CATCHUP && now >= s->next_tick[i])
				s->next_tick[i] = now - (now - s->next_tick[i]) % s->ticks[i] +
						  s->ticks[i];
		}
	}
	return rc;
}

static void clock_to(struct vxt_script *s, uint64_t now)
{
	if (!s->have_now) {
		s->have_now = true;
		s->last_clean = now;
	}
	if (now > s->now)
		s->now = now;
	if (s->now - s->last_clean >= s->clean_ns) {
		vxt_sspec_clean(s);
		s->last_clean = s->now;
	}
}

/* ---- the entry points ---- */

/* Whether a script (not a profile) has clauses for events of @phase. */
static bool runs_clauses(const struct vxt_script *s, unsigned phase)
{
	switch (phase) {
	case VXT_PH_QUEUE: return s->non[SON_QUEUE];
	case VXT_PH_START: return s->non[SON_START];
	case VXT_PH_DONE: return s->non[SON_DONE];
	case VXT_PH_REQUEUE: return s->non[SON_REQUEUE];
	case VXT_PH_LOST: return s->non[SON_LOST];
	default: return false;
	}
}

/* Count event @ev and move the clock to it (replaying: cleaning busy
 * buffers as it goes; live: the clock is the source's). @plain (a constant
 * where it is inlined): the script is plain(). */
static inline __attribute__((always_inline)) void push_count(struct vxt_script *s,
							  const struct vxt_event *ev, bool plain)
{
	s->st.events_in++;
	if (plain || !s->live)
		clock_to(s, ev->time_ns);
	else if (ev->time_ns > s->now)
		s->now = ev->time_ns;
}

/* What every event does before its clauses: push_count(), fire due ticks
 * and pair its phases. @return 0, 1 when the event goes no further (a
 * tick's exit(), or nothing follows requests or keys and no clause is on
 * its phase), or negative. */
static inline __attribute__((always_inline)) int push_begin(struct vxt_script *s,
							 const struct vxt_event *ev, bool plain)
{
	push_count(s, ev, plain);
	if (plain)
		return !s->uses_req && !runs_clauses(s, ev->phase);
	if (!s->live && s->nticks) {
		int rc = ticks_until(s, ev->time_ns);

		if (rc < 0 || s->exited)
			return rc < 0 ? rc : 1;
	}
	if (s->pp && vxt_phasepair_add(s->pp, ev, &s->iv) < 0)
		return -ENOMEM;
	if (!s->uses_req && !s->keyed && !runs_clauses(s, ev->phase))
		return 1;	/* no request or key to follow, and no clause */
	return 0;
}

/* push_clauses() of a plain() script: the event's request, found by its
 * phase's own step, then its steps. */
static inline __attribute__((always_inline)) int push_plain(struct vxt_script *s,
							 struct ectx *x)
{
	const struct vxt_event *ev = x->ev;
	int rc;

	switch (ev->phase) {
	case VXT_PH_QUEUE:
	case VXT_PH_START:
		if (s->uses_req && (rc = vxt_sreq_open(s, ev, &x->req)) < 0)
			return rc;
		return run_steps(x, ev->phase == VXT_PH_START ? SON_START : SON_QUEUE, false);
	case VXT_PH_DONE:	/* a failed one runs the error-only clauses too */
		if (!s->uses_req)
			return run_steps(x, ev->error ? SON_DONE : SON_DONE_OK, false);
		x->req = vxt_sreq_of(s, ev);
		rc = run_steps(x, ev->error ? SON_DONE : SON_DONE_OK, false);
		if (x->req)
			vxt_sreq_close(s, x->req);
		return rc;
	case VXT_PH_REQUEUE:
		if (s->uses_req)
			x->req = vxt_sreq_of(s, ev);
		return run_steps(x, SON_REQUEUE, false);
	case VXT_PH_LOST:
		return run_steps(x, SON_LOST, false);
	default:
		return 0;
	}
}

/* The fields of a plain script's context @x that an event starts afresh,
 * for event @ev (ordinal @ordinal); the others are set before anything
 * reads them (clause, probe), or only profiles' keys use them. */
static inline __attribute__((always_inline)) void plain_reset(struct ectx *x,
							   const struct vxt_event *ev,
							   uint64_t ordinal)
{
	x->ev = ev;
	x->ordinal = ordinal;
	x->req = NULL;
	x->self = NULL;
	x->self_known = false;
	x->target = 0;
	x->error = false;
	x->rc = 0;
}

/* The clauses of event @ev, once push_begin() let it through (a plain
 * script's: push_plain()). */
static inline __attribute__((always_inline)) int push_clauses(struct vxt_script *s,
							   const struct vxt_event *ev,
							   uint64_t ordinal)
{
	static const struct ectx zero;	/* copied: cheaper than clearing in place */
	struct ectx x;
	int rc = 0;

	x = zero;
	x.s = s;
	x.ev = ev;
	x.ordinal = ordinal;
	if (s->uses_req) {
		rc = vxt_sreq_bind(s, ev, &x.req);
		if (rc < 0)
			return rc;
	}
	for (unsigned i = 0; i < s->nthis; i++)
		s->thisv[s->thisl[i]].type = SV_NONE;
	if (s->keyed && ev->phase != VXT_PH_LOST)
		vxt_skeyed_begin(&x);
	switch (ev->phase) {
	case VXT_PH_QUEUE: rc = run_steps(&x, SON_QUEUE, true); break;
	case VXT_PH_START: rc = run_steps(&x, SON_START, true); break;
	case VXT_PH_REQUEUE: rc = run_steps(&x, SON_REQUEUE, true); break;
	case VXT_PH_LOST: rc = run_steps(&x, SON_LOST, true); break;
	case VXT_PH_DONE:	/* a failed one runs the error-only clauses too */
		rc = run_steps(&x, ev->error ? SON_DONE : SON_DONE_OK, true);
		break;
	default:
		rc = s->keyed ? run_steps(&x, SON_OTHER, true) : 0;
		break;
	}
	if (s->keyed && ev->phase != VXT_PH_LOST)
		vxt_skeyed_end(&x);
	if (x.req && ev->phase == VXT_PH_DONE)
		vxt_sreq_close(s, x.req);
	return rc;
}

int vxt_script_push(struct vxt_script *s, const struct vxt_event *ev, uint64_t ordinal)
{
	int rc;

	if (s->exited || s->ended)
		return 0;
	rc = push_begin(s, ev, false);
	if (rc)
		return rc < 0 ? rc : 0;
	return push_clauses(s, ev, ordinal);
}

/* Whether script @s replays with no tick, phase pairing, key or this->
 * variable: its events need none of their steps. */
static bool plain(const struct vxt_script *s)
{
	return !s->live && !s->nticks && !s->pp && !s->keyed && !s->nthis;
}

/* vxt_script_push_many()'s loop; @quick: the phases whose events only
 * count; @is_plain (a constant where it is inlined): plain(s). */
static inline __attribute__((always_inline)) int push_run(struct vxt_script *s,
						       const struct vxt_event *ev, size_t n,
						       uint64_t ordinal, size_t *pushed,
						       uint32_t quick, bool is_plain)
{
	size_t i;
	int rc = 0;

	static const struct ectx zero;
	struct ectx x = zero;	/* a plain script's, kept over the batch */

	x.s = s;
	if (s->ended)		/* only vxt_script_end() sets it */
		n = 0;
	for (i = 0; i < n && !s->exited; i++) {
		const struct vxt_event *e = &ev[i];

		if (e->phase < 32 && (quick >> e->phase & 1)) {
			push_count(s, e, is_plain);
			continue;
		}
		rc = push_begin(s, e, is_plain);
		if (rc == 0 && is_plain) {
			plain_reset(&x, e, ordinal + i);
			rc = push_plain(s, &x);
		} else if (rc == 0) {
			rc = push_clauses(s, e, ordinal + i);
		}
		if (rc < 0) {
			i++;
			break;
		}
	}
	*pushed = i;
	return rc < 0 ? rc : 0;
}

int vxt_script_push_many(struct vxt_script *s, const struct vxt_event *ev, size_t n,
			 uint64_t ordinal, size_t *pushed)
{
	/* the phases whose events push_begin() would only push_count() (no
	 * tick, phase pairing, request or key followed, no clause on them) */
	uint32_t quick = 0;
	size_t done;
	int rc;

	if (!s->live && !s->nticks && !s->pp && !s->uses_req && !s->keyed)
		for (unsigned ph = 0; ph < 32; ph++)
			if (!runs_clauses(s, ph))
				quick |= 1u << ph;
	if (plain(s))
		rc = push_run(s, ev, n, ordinal, &done, quick, true);
	else
		rc = push_run(s, ev, n, ordinal, &done, quick, false);
	if (pushed)
		*pushed = done;
	return rc;
}

int vxt_script_tick(struct vxt_script *s, uint64_t now_ns)
{
	if (s->ended || s->exited)
		return 0;
	clock_to(s, now_ns);
	return ticks_until(s, now_ns);
}

int vxt_script_print_aggregations(struct vxt_script *s, bool clear)
{
	return vxt_script_print_aggs(s, NULL, clear, false, NULL);
}

int vxt_script_run_begin(struct vxt_script *s)
{
	struct ectx x = { .s = s };

	return fire(&x, SP_BEGIN, 0);
}

int vxt_script_end(struct vxt_script *s)
{
	struct ectx x = { .s = s };
	bool exited = s->exited;
	int rc;

	if (s->ended)
		return 0;
	s->ended = true;
	vxt_sspec_end_all(s);
	s->exited = false;	/* END runs after exit() too */
	rc = fire(&x, SP_END, 0);
	s->exited = s->exited || exited;
	if (rc == 0)
		rc = vxt_script_print_aggs(s, NULL, false, true, NULL);
	return rc;
}
