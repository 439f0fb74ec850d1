/* script_eval.c - running a checked script over events
 *
 * For each event: clean busy speculative buffers at cleanrate and fire due
 * tick probes (event time offline, vxt_script_tick() live), bind the event
 * to its request (for req->: queue or start opens one, FIFO per object,
 * sector and size; done closes the oldest started one), then run the
 * matching clauses in program order. A clause's statements run in order;
 * what it records (the event, and the text of trace / printf) becomes one
 * record in the principal buffer (straight to the sink) or in the
 * speculative buffer named by speculate(). A run-time error (division by
 * zero) abandons the clause and is counted, as in DTrace.
 *
 * Speculative buffers are DTrace's: ids 1..nspec, states free, active and
 * busy; commit() and discard() leave a buffer busy until the next clean.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/script_impl.h"

#define NS_STRPOOL	0xfffffff0u
#define NS_REQS		0xfffffff1u
#define TICK_CATCHUP	1000	/* tick firings at most per event; later ones are skipped */

struct ectx {
	struct vxt_script *s;
	const struct vxt_event *ev;	/* NULL for BEGIN, END, tick */
	uint64_t ordinal;
	uint64_t req;			/* the event's request id, 0 = none */
	const struct sclause *cl;
	unsigned probe;			/* the SP_* bit that fired */
	int64_t target;			/* 0 principal, >0 speculation, -1 nowhere */
	bool error;
	int rc;
};

/* ---- strings kept by the script (keys and values outlive the tables' names) ---- */

static const char *intern(struct vxt_script *s, const char *str, int *rc)
{
	struct skey k = { .ns = NS_STRPOOL, .n = 1 };
	struct sent *e;
	uint64_t h;
	char *dup;

	k.k[0].type = SV_STR;
	k.k[0].s = str;
	h = vxt_stab_hash(&k);
	e = vxt_stab_find(&s->vtab, &k, h);
	if (e)
		return e->key.k[0].s;
	dup = strdup(str);
	if (!dup)
		goto nomem;
	k.k[0].s = dup;
	e = vxt_stab_insert(&s->vtab, &k, h);
	if (!e) {
		free(dup);
		goto nomem;
	}
	return dup;
nomem:
	*rc = -ENOMEM;
	return "";
}

static int intern_key(struct vxt_script *s, struct skey *k)
{
	int rc = 0;

	for (uint32_t i = 0; i < k->n; i++)
		if (k->k[i].type == SV_STR)
			k->k[i].s = intern(s, k->k[i].s, &rc);
	return rc;
}

/* ---- fields ---- */

static const char *probe_name(unsigned bit)
{
	switch (bit) {
	case SP_QUEUE: return "queue";
	case SP_START: return "start";
	case SP_DONE: return "done";
	case SP_REQUEUE: return "requeue";
	case SP_ERROR: return "error";
	case SP_LOST: return "lost";
	case SP_BEGIN: return "BEGIN";
	case SP_END: return "END";
	default: return "tick";
	}
}

static const char *obj_name(const struct vxt_script *s, uint32_t id)
{
	const struct vxt_object *o = s->objs ? vxt_objtab_get(s->objs, id) : NULL;

	return o ? o->name : "";
}

static struct sval field(const struct ectx *x, int f)
{
	const struct vxt_event *ev = x->ev;
	struct sval v = { .type = SV_INT };
	const struct vxt_object *o;

	if (!ev) {
		if (f == SF_OBJECT || f == SF_PHASE || f == SF_OP || f == SF_COMM ||
		    f == SF_EXECNAME || f == SF_PROBENAME) {
			v.type = SV_STR;
			v.s = f == SF_PROBENAME ? probe_name(x->probe) : "";
		} else if (f == SF_TIMESTAMP || f == SF_TIME) {
			v.i = (int64_t)(f == SF_TIME && x->s->now > x->s->time_base ?
					x->s->now - x->s->time_base : f == SF_TIME ? 0 : x->s->now);
		}
		return v;
	}
	switch (f) {
	case SF_TIME:
		v.i = ev->time_ns > x->s->time_base ? (int64_t)(ev->time_ns - x->s->time_base) : 0;
		break;
	case SF_TIMESTAMP: v.i = (int64_t)ev->time_ns; break;
	case SF_OBJECT:
		v.type = SV_STR;
		v.s = obj_name(x->s, ev->object);
		break;
	case SF_DEV:
		o = x->s->objs ? vxt_objtab_get(x->s->objs, ev->object) : NULL;
		v.i = o ? o->dev : 0;
		break;
	case SF_PHASE:
		v.type = SV_STR;
		v.s = vxt_phase_name(ev->phase);
		break;
	case SF_OP:
		v.type = SV_STR;
		v.s = vxt_op_name(ev->op);
		break;
	case SF_FLAGS: v.i = ev->flags; break;
	case SF_SECTOR: v.i = (int64_t)ev->sector; break;
	case SF_BYTES: v.i = ev->bytes; break;
	case SF_LATENCY: v.i = (int64_t)ev->latency_ns; break;
	case SF_ERROR: v.i = -(int64_t)ev->error; break;
	case SF_PID: v.i = ev->pid; break;
	case SF_COMM: case SF_EXECNAME:
		v.type = SV_STR;
		v.s = x->s->strs ? vxt_strtab_get(x->s->strs, ev->comm) : "";
		break;
	case SF_CPU: v.i = ev->cpu; break;
	case SF_PROBENAME:
		v.type = SV_STR;
		v.s = probe_name(x->probe);
		break;
	}
	return v;
}

/* ---- variables ---- */

static struct sval eval(struct ectx *x, const struct snode *n);

static bool truth(const struct sval *v)
{
	return v->type == SV_STR ? v->s[0] != '\0' : v->i != 0;
}

/* The table key of variable @n (self->, req->, an array). @return false when
 * it has none (req-> without a request). */
static bool var_key(struct ectx *x, const struct snode *n, struct skey *k)
{
	k->ns = (uint32_t)n->idx;
	switch (n->kind) {
	case SN_SELF:
		k->n = 1;
		k->k[0].type = SV_INT;
		k->k[0].i = x->ev ? x->ev->pid : 0;
		return true;
	case SN_REQ:
		k->n = 1;
		k->k[0].type = SV_INT;
		k->k[0].i = (int64_t)x->req;
		return x->req != 0;
	default:
		k->n = n->nargs;
		for (unsigned i = 0; i < n->nargs; i++)
			k->k[i] = eval(x, n->args[i]);
		return true;
	}
}

static struct sval zero_of(const struct snode *n)
{
	struct sval v = { .type = n->type == SV_STR ? SV_STR : SV_INT, .s = "" };

	return v;
}

static struct sval var_read(struct ectx *x, const struct snode *n)
{
	struct vxt_script *s = x->s;
	struct skey k;
	struct sent *e;

	if (n->kind == SN_GLOBAL)
		return s->globals[n->idx].type ? s->globals[n->idx] : zero_of(n);
	if (n->kind == SN_THIS)
		return s->thisv[n->idx].type ? s->thisv[n->idx] : zero_of(n);
	if (!var_key(x, n, &k))
		return zero_of(n);
	e = vxt_stab_find(&s->vtab, &k, vxt_stab_hash(&k));
	return e ? e->val : zero_of(n);
}

static void var_write(struct ectx *x, const struct snode *n, struct sval v)
{
	struct vxt_script *s = x->s;
	struct skey k;
	struct sent *e;
	uint64_t h;
	bool zero = v.type != SV_STR && v.i == 0;

	if (v.type == SV_STR)
		v.s = intern(s, v.s, &x->rc);
	if (n->kind == SN_GLOBAL) {
		s->globals[n->idx] = v;
		return;
	}
	if (n->kind == SN_THIS) {
		s->thisv[n->idx] = v;
		return;
	}
	if (!var_key(x, n, &k))
		return;
	h = vxt_stab_hash(&k);
	e = vxt_stab_find(&s->vtab, &k, h);
	if (zero) {		/* D: assigning 0 frees a dynamic variable */
		if (e)
			vxt_stab_delete(&s->vtab, e);
		return;
	}
	if (!e) {
		if (intern_key(s, &k) < 0 || !(e = vxt_stab_insert(&s->vtab, &k, h))) {
			x->rc = -ENOMEM;
			return;
		}
	}
	e->val = v;
}

/* ---- expressions ---- */

static void runtime_error(struct ectx *x, const struct snode *at, const char *what)
{
	struct vxt_script *s = x->s;

	if (!x->error) {
		s->st.errors++;
		if (!strcmp(what, "division by zero"))
			s->st.div_zero++;
		if (!s->errs_seen) {
			s->errs_seen = malloc(160);
			if (s->errs_seen)
				snprintf(s->errs_seen, 160, "%s at %s:%u:%u, probe %s", what,
					 s->name, at->line, at->col, x->cl ? x->cl->probe_text : "?");
		}
	}
	x->error = true;
}

static struct sval num(int64_t i)
{
	struct sval v = { .type = SV_INT, .i = i };

	return v;
}

static int64_t arith(struct ectx *x, const struct snode *n, int64_t a, int64_t b)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	switch (n->op) {
	case ST_PLUS: return (int64_t)(ua + ub);
	case ST_MINUS: return (int64_t)(ua - ub);
	case ST_STAR: return (int64_t)(ua * ub);
	case ST_SLASH: case ST_DIVEQ: case ST_PERCENT:
		if (b == 0) {
			runtime_error(x, n, "division by zero");
			return 0;
		}
		if (a == INT64_MIN && b == -1)
			return n->op == ST_PERCENT ? 0 : INT64_MIN;
		return n->op == ST_PERCENT ? a % b : a / b;
	case ST_OR: return a | b;
	case ST_XOR: return a ^ b;
	case ST_AND: return a & b;
	case ST_SHL: return (int64_t)(ua << (ub & 63));
	case ST_SHR: return a >> (ub & 63);
	default: return 0;
	}
}

static struct sval compare(const struct snode *n, struct sval a, struct sval b)
{
	int c;

	if (a.type == SV_STR && b.type == SV_STR)
		c = strcmp(a.s, b.s);
	else
		c = (a.i > b.i) - (a.i < b.i);
	switch (n->op) {
	case ST_EQ: return num(c == 0);
	case ST_NE: return num(c != 0);
	case ST_LT: return num(c < 0);
	case ST_LE: return num(c <= 0);
	case ST_GT: return num(c > 0);
	default: return num(c >= 0);
	}
}

static int64_t speculation(struct ectx *x)
{
	struct vxt_script *s = x->s;
	struct sspec *b;
	uint32_t id;

	if (!s->nfree) {
		if (s->nbusy)
			s->st.failed_busy++;
		else
			s->st.failed_unavail++;
		return 0;
	}
	id = s->freel[--s->nfree];
	b = &s->spec[id - 1];
	b->state = SB_ACTIVE;
	b->n = 0;
	b->bytes = 0;
	s->st.opened++;
	if (++s->st.active > s->st.peak_active)
		s->st.peak_active = s->st.active;
	return id;
}

static struct sval eval(struct ectx *x, const struct snode *n)
{
	struct sval a, b;

	switch (n->kind) {
	case SN_NUM: return num(n->num);
	case SN_STR: {
		struct sval v = { .type = SV_STR, .s = n->str };

		return v;
	}
	case SN_FIELD: return field(x, n->idx);
	case SN_GLOBAL: case SN_THIS: case SN_SELF: case SN_REQ: case SN_ARRAY:
		return var_read(x, n);
	case SN_AND:
		a = eval(x, n->a);
		return num(truth(&a) && (b = eval(x, n->b), truth(&b)));
	case SN_OR:
		a = eval(x, n->a);
		return num(truth(&a) || (b = eval(x, n->b), truth(&b)));
	case SN_XORXOR:
		a = eval(x, n->a);
		b = eval(x, n->b);
		return num(truth(&a) != truth(&b));
	case SN_COND:
		a = eval(x, n->a);
		return truth(&a) ? eval(x, n->b) : eval(x, n->c);
	case SN_UNARY:
		a = eval(x, n->a);
		if (n->op == ST_NOT)
			return num(!truth(&a));
		if (n->op == ST_TILDE)
			return num(~a.i);
		return num((int64_t)(0 - (uint64_t)a.i));
	case SN_BINARY:
		a = eval(x, n->a);
		b = eval(x, n->b);
		if (n->op >= ST_EQ && n->op <= ST_GE)
			return compare(n, a, b);
		return num(arith(x, n, a.i, b.i));
	case SN_ASSIGN:
		b = eval(x, n->b);
		if (n->op != ST_ASSIGN) {
			static const int op_of[] = {
				[ST_ADDEQ] = ST_PLUS, [ST_SUBEQ] = ST_MINUS, [ST_MULEQ] = ST_STAR,
				[ST_DIVEQ] = ST_SLASH,
			};
			struct snode tmp = *n;

			a = var_read(x, n->a);
			tmp.op = op_of[n->op];
			b = num(arith(x, &tmp, a.i, b.i));
		}
		if (!x->error)
			var_write(x, n->a, b);
		return b;
	case SN_INCDEC:
		a = var_read(x, n->a);
		b = num((int64_t)((uint64_t)a.i + (n->op == ST_INC ? 1 : (uint64_t)-1)));
		var_write(x, n->a, b);
		return n->num ? a : b;
	case SN_CALL:
		if (n->idx == FN_SPECULATION)
			return num(speculation(x));
		return num(0);
	default:
		return num(0);
	}
}

/* ---- records ---- */

static void text_add(struct ectx *x, const char *p, size_t n)
{
	struct vxt_script *s = x->s;

	if (s->tlen + n >= S_TEXT_MAX)
		n = S_TEXT_MAX - 1 - s->tlen;
	memcpy(s->text + s->tlen, p, n);
	s->tlen += n;
	s->text[s->tlen] = '\0';
}

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
		text_add(x, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void do_printf(struct ectx *x, const struct snode *n)
{
	const struct sfmt *f = n->fmt;
	unsigned argi = 1;

	for (unsigned i = 0; i < f->n; i++) {
		const struct sconv *c = &f->c[i];
		struct sval v;

		if (!c->conv) {
			text_add(x, c->text, c->tlen);
			continue;
		}
		v = eval(x, n->args[argi++]);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (c->conv == 's')
			text_printf(x, c->spec, v.type == SV_STR ? v.s : "");
		else if (c->conv == 'c')
			text_printf(x, c->spec, (int)v.i);
		else
			text_printf(x, c->spec, (long long)v.i);
#pragma GCC diagnostic pop
	}
}

static void event_text(struct ectx *x)
{
	const struct vxt_event *ev = x->ev;

	if (ev->phase == VXT_PH_LOST) {
		text_printf(x, " lost %" PRIu64, vxt_event_lost_count(ev));
		return;
	}
	text_printf(x, " %s %s %" PRIu64 " %u", obj_name(x->s, ev->object), vxt_op_name(ev->op),
		    ev->sector, ev->bytes);
	if (ev->phase == VXT_PH_DONE)
		text_printf(x, " %" PRIu64 "ns", ev->latency_ns);
	if (ev->error)
		text_printf(x, " error %d", -ev->error);
	text_printf(x, " pid %u", ev->pid);
}

static int to_sink(struct vxt_script *s, const struct srec *r, uint64_t spec)
{
	struct vxt_script_rec out = {
		.has_event = r->has_event, .ev = r->ev, .ordinal = r->ordinal, .spec = spec,
		.text = r->text ? r->text : "", .len = r->len,
	};

	s->st.records++;
	if (r->has_event)
		s->st.kept_events++;
	return s->sink ? s->sink(s->sink_arg, &out) : 0;
}

static int header(struct vxt_script *s)
{
	static const char h[] = "CPU     ID                    FUNCTION:NAME\n";
	struct srec r = { .text = (char *)h, .len = sizeof(h) - 1 };

	if (s->opt.quiet || s->started_output)
		return 0;
	s->started_output = true;
	s->st.records--;	/* the header is not a record of the script */
	return to_sink(s, &r, 0);
}

static void mem_update(struct vxt_script *s, int64_t delta)
{
	s->spec_bytes += (uint64_t)delta;
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	if (s->st.mem_bytes > s->st.peak_mem_bytes)
		s->st.peak_mem_bytes = s->st.mem_bytes;
}

/* The clause's record into its target. */
static int record(struct ectx *x)
{
	struct vxt_script *s = x->s;
	struct srec r = { 0 };
	struct sspec *b;
	uint64_t size;

	if (x->target < 0)
		return 0;
	r.has_event = x->ev != NULL;
	if (x->ev) {
		r.ev = *x->ev;
		r.ordinal = x->ordinal;
	}
	r.len = s->tlen;
	r.text = s->text;
	if (x->target == 0) {
		int rc = header(s);

		return rc < 0 ? rc : to_sink(s, &r, 0);
	}
	b = &s->spec[x->target - 1];
	size = VXT_SCRIPT_RECORD_SIZE + r.len;
	if (b->bytes + size > s->opt.specsize) {
		s->st.spec_drops++;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct srec *v = realloc(b->recs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->recs = v;
		b->cap = cap;
	}
	r.text = NULL;
	if (r.len && !(r.text = malloc(r.len + 1)))
		return -ENOMEM;
	if (r.len)
		memcpy(r.text, s->text, r.len + 1);
	b->recs[b->n++] = r;
	b->bytes += size;
	mem_update(s, (int64_t)size);
	return 0;
}

static void buf_empty(struct vxt_script *s, struct sspec *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->recs[i].text);
	mem_update(s, -(int64_t)b->bytes);
	b->n = 0;
	b->bytes = 0;
}

/* commit() or discard() of @id. */
static int end_spec(struct ectx *x, int64_t id, bool commit)
{
	struct vxt_script *s = x->s;
	struct sspec *b;
	int rc = 0;

	if (id <= 0 || id > s->opt.nspec)
		return 0;	/* 0 is always invalid, and harmless */
	b = &s->spec[id - 1];
	if (b->state != SB_ACTIVE)
		return 0;	/* already committed or discarded: busy or free */
	if (commit) {
		if (b->bytes > s->opt.bufsize) {
			s->st.commit_drops++;
		} else {
			rc = header(s);
			for (size_t i = 0; i < b->n && rc == 0; i++)
				rc = to_sink(s, &b->recs[i], (uint64_t)id);
		}
		s->st.committed++;
	} else {
		s->st.discarded++;
	}
	buf_empty(s, b);
	b->state = SB_BUSY;
	s->busyl[s->nbusy++] = (uint32_t)id;
	s->st.active--;
	return rc;
}

static void clean(struct vxt_script *s)
{
	for (uint64_t i = 0; i < s->nbusy; i++) {
		s->spec[s->busyl[i] - 1].state = SB_FREE;
		s->freel[s->nfree++] = s->busyl[i];
	}
	s->nbusy = 0;
}

static int print_aggs(struct vxt_script *s, struct sagg *only, bool clear, bool at_end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct srec r = { 0 };
	int rc = 0;

	if (!f)
		return -ENOMEM;
	for (unsigned i = 0; i < s->naggs; i++) {
		struct sagg *a = &s->aggs[i];

		if ((only && a != only) || (at_end && a->printed) || a->fn < 0)
			continue;
		vxt_sagg_print(s, a, f);
		if (clear)
			vxt_sagg_clear(s, a, false, 0);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (len) {
		r.text = buf;
		r.len = len;
		rc = to_sink(s, &r, 0);
	}
	free(buf);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	return rc;
}

static int agg_set(struct ectx *x, const struct snode *n)
{
	struct vxt_script *s = x->s;
	struct sagg *a = &s->aggs[n->idx];
	const struct snode *f = n->a;
	struct skey k = { .ns = (uint32_t)n->idx, .n = n->nkeys };
	int64_t v = 1;
	int rc;

	for (unsigned i = 0; i < n->nkeys; i++)
		k.k[i] = eval(x, n->keys[i]);
	if (f->idx != FN_COUNT) {
		struct sval sv = eval(x, f->args[0]);

		v = sv.i;
	}
	if (x->error)
		return 0;
	if (intern_key(s, &k) < 0)
		return -ENOMEM;
	rc = vxt_sagg_add(s, a, &k, v);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	if (s->st.mem_bytes > s->st.peak_mem_bytes)
		s->st.peak_mem_bytes = s->st.mem_bytes;
	return rc;
}

static int stmt(struct ectx *x, const struct snode *n)
{
	struct vxt_script *s = x->s;
	struct sval v;

	if (n->kind == SN_AGGSET)
		return agg_set(x, n);
	if (n->kind != SN_CALL || n->idx == FN_SPECULATION) {
		eval(x, n);
		return x->rc;
	}
	switch (n->idx) {
	case FN_SPECULATE:
		v = eval(x, n->args[0]);
		x->target = v.i > 0 && v.i <= s->opt.nspec &&
			    s->spec[v.i - 1].state == SB_ACTIVE ? v.i : -1;
		return 0;
	case FN_COMMIT: case FN_DISCARD:
		v = eval(x, n->args[0]);
		return x->error ? 0 : end_spec(x, v.i, n->idx == FN_COMMIT);
	case FN_TRACE:
		v = eval(x, n->args[0]);
		if (v.type == SV_STR)
			text_printf(x, " %s", v.s);
		else
			text_printf(x, " %" PRId64, v.i);
		return 0;
	case FN_PRINTF:
		do_printf(x, n);
		return 0;
	case FN_EXIT:
		v = eval(x, n->args[0]);
		if (!x->error && !s->exited) {
			s->exited = true;
			s->exit_code = (int)v.i;
		}
		return 0;
	case FN_PRINTA:
		for (unsigned i = 0; i < n->nargs; i++) {
			struct sagg *a = &s->aggs[n->args[i]->idx];
			int rc;

			a->printed = true;
			rc = print_aggs(s, a, false, false);
			if (rc < 0)
				return rc;
		}
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

static int run_clause(struct ectx *x, const struct sclause *c)
{
	struct vxt_script *s = x->s;
	int rc = 0;

	x->cl = c;
	x->error = false;
	if (c->pred) {
		struct sval v = eval(x, c->pred);

		if (x->rc < 0)
			return x->rc;
		if (x->error || !truth(&v))
			return 0;
	}
	x->target = 0;
	s->tlen = 0;
	s->text[0] = '\0';
	if (!s->opt.quiet && c->records)
		text_printf(x, "%3u %6u %*s:%s ", x->ev ? x->ev->cpu : 0,
			    (unsigned)(c - s->cl) + 1, 31 - (int)strlen(probe_name(x->probe)), "",
			    probe_name(x->probe));
	for (unsigned i = 0; i < c->nstmts && rc == 0 && !x->error; i++)
		rc = stmt(x, c->stmts[i]);
	if (rc < 0 || x->rc < 0)
		return rc < 0 ? rc : x->rc;
	if (x->error || !c->records)
		return 0;
	if (!s->opt.quiet) {
		if (x->ev && !c->has_text)
			event_text(x);
		text_add(x, "\n", 1);
	}
	return record(x);
}

/* Run the clauses of probe @bit (and, for ticks, of interval @tick). */
static int fire(struct ectx *x, unsigned bit, uint64_t tick)
{
	struct vxt_script *s = x->s;
	int rc = 0;

	x->probe = bit;
	for (unsigned i = 0; i < s->ncl && rc == 0 && !s->exited; i++) {
		const struct sclause *c = &s->cl[i];

		if (!(c->probes & bit) || (bit == SP_TICK && c->tick_ns != tick))
			continue;
		rc = run_clause(x, c);
	}
	return rc;
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
		clean(s);
		s->last_clean = s->now;
	}
}

/* ---- requests ---- */

static struct sent *reqq_find(struct vxt_script *s, const struct vxt_event *ev, bool make,
			      int *rc)
{
	struct skey k = { .ns = NS_REQS, .n = 3 };
	struct sent *e;
	uint64_t h;

	k.k[0] = num(ev->object);
	k.k[1] = num((int64_t)ev->sector);
	k.k[2] = num(ev->bytes);
	h = vxt_stab_hash(&k);
	e = vxt_stab_find(&s->reqs, &k, h);
	if (e || !make)
		return e;
	e = vxt_stab_insert(&s->reqs, &k, h);
	if (!e || !(e->agg = calloc(1, sizeof(struct sreqq)))) {
		if (e)
			vxt_stab_delete(&s->reqs, e);
		*rc = -ENOMEM;
		return NULL;
	}
	return e;
}

/* Bind @ev to its request. @return its id (0 for none) or negative. */
static int64_t req_bind(struct vxt_script *s, const struct vxt_event *ev)
{
	struct sent *e;
	struct sreqq *q;
	int rc = 0;

	if (ev->phase == VXT_PH_QUEUE || ev->phase == VXT_PH_START) {
		e = reqq_find(s, ev, true, &rc);
		if (!e)
			return rc;
		q = e->agg;
		if (ev->phase == VXT_PH_START)
			for (unsigned i = 0; i < q->n; i++)
				if (!q->q[i].started) {
					q->q[i].started = true;
					return (int64_t)q->q[i].id;
				}
		if (q->n == q->cap) {
			unsigned cap = q->cap ? 2 * q->cap : 2;
			struct sreq *v = realloc(q->q, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			q->q = v;
			q->cap = cap;
		}
		q->q[q->n].id = ++s->next_req;
		q->q[q->n].started = ev->phase == VXT_PH_START;
		return (int64_t)q->q[q->n++].id;
	}
	if (ev->phase != VXT_PH_DONE && ev->phase != VXT_PH_REQUEUE)
		return 0;
	e = reqq_find(s, ev, false, &rc);
	if (!e)
		return 0;
	q = e->agg;
	for (unsigned i = 0; i < q->n; i++)
		if (q->q[i].started) {
			if (ev->phase == VXT_PH_REQUEUE)
				q->q[i].started = false;
			return (int64_t)q->q[i].id;
		}
	return q->n ? (int64_t)q->q[0].id : 0;
}

/* After done: forget request @id and its req-> variables. */
static void req_close(struct vxt_script *s, const struct vxt_event *ev, uint64_t id)
{
	int rc = 0;
	struct sent *e = reqq_find(s, ev, false, &rc);
	struct sreqq *q;

	for (unsigned i = 0; i < s->nvars; i++) {
		struct skey k = { .ns = i, .n = 1 };
		struct sent *v;

		if (s->vars[i].scope != SN_REQ)
			continue;
		k.k[0] = num((int64_t)id);
		v = vxt_stab_find(&s->vtab, &k, vxt_stab_hash(&k));
		if (v)
			vxt_stab_delete(&s->vtab, v);
	}
	if (!e)
		return;
	q = e->agg;
	for (unsigned i = 0; i < q->n; i++)
		if (q->q[i].id == id) {
			memmove(&q->q[i], &q->q[i + 1], (q->n - i - 1) * sizeof(q->q[0]));
			q->n--;
			break;
		}
	if (!q->n) {
		free(q->q);
		free(q);
		vxt_stab_delete(&s->reqs, e);
	}
}

/* ---- the entry points ---- */

int vxt_script_push(struct vxt_script *s, const struct vxt_event *ev, uint64_t ordinal)
{
	struct ectx x = { .s = s, .ev = ev, .ordinal = ordinal };
	int64_t req = 0;
	int rc = 0;

	if (s->exited || s->ended)
		return 0;
	s->st.events_in++;
	if (!s->live) {
		clock_to(s, ev->time_ns);
		rc = ticks_until(s, ev->time_ns);
		if (rc < 0 || s->exited)
			return rc;
	} else if (ev->time_ns > s->now) {
		s->now = ev->time_ns;
	}
	if (s->uses_req) {
		req = req_bind(s, ev);
		if (req < 0)
			return (int)req;
		x.req = (uint64_t)req;
	}
	for (unsigned i = 0; i < s->nvars; i++)
		if (s->vars[i].scope == SN_THIS)
			s->thisv[i].type = SV_NONE;
	switch (ev->phase) {
	case VXT_PH_QUEUE: rc = fire(&x, SP_QUEUE, 0); break;
	case VXT_PH_START: rc = fire(&x, SP_START, 0); break;
	case VXT_PH_REQUEUE: rc = fire(&x, SP_REQUEUE, 0); break;
	case VXT_PH_LOST: rc = fire(&x, SP_LOST, 0); break;
	case VXT_PH_DONE:
		x.probe = SP_DONE;
		for (unsigned i = 0; i < s->ncl && rc == 0 && !s->exited; i++) {
			const struct sclause *c = &s->cl[i];

			if (c->probes & SP_DONE) {
				x.probe = SP_DONE;
			} else if ((c->probes & SP_ERROR) && ev->error) {
				x.probe = SP_ERROR;
			} else {
				continue;
			}
			rc = run_clause(&x, c);
		}
		break;
	default:
		break;
	}
	if (req > 0 && ev->phase == VXT_PH_DONE)
		req_close(s, ev, (uint64_t)req);
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
	return print_aggs(s, NULL, clear, false);
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
	for (unsigned i = 0; i < s->opt.nspec; i++) {
		struct sspec *b = &s->spec[i];

		if (b->state == SB_ACTIVE) {
			buf_empty(s, b);
			b->state = SB_FREE;
			s->freel[s->nfree++] = i + 1;
			s->st.eof_discarded++;
			s->st.discarded++;
			s->st.active--;
		}
	}
	s->exited = false;	/* END runs after exit() too */
	rc = fire(&x, SP_END, 0);
	s->exited = s->exited || exited;
	if (rc == 0)
		rc = print_aggs(s, NULL, false, true);
	return rc;
}
