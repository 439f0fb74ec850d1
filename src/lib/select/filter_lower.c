/* filter_lower.c - a compiled filter as the script engine's ops
 *
 * A filter is a D predicate: every test of its jump table has a D node of
 * the same meaning (a comparison of time, flags, sector, bytes, latency,
 * error (D's error is the filter's errno, positive), pid, cpu, dev or an
 * interval with a number, a bit test, an object, command or host name
 * equal to a string or matching a glob (the glob op), op and phase equal to
 * one (their names, one a code), an interval known (the known op, before it
 * compares, as the filter tests it), and `spec`, the event's key has an
 * active speculation). The script compiler compiles each node once, and
 * the table's wiring becomes jumps between them, so a filter of any size
 * or nesting compiles in one pass: into a program of its own (filter_run.c)
 * or inline as a profile's predicate (script_keyed.c). A number past
 * INT64_MAX is its bit pattern: D compares sector, bytes, latency and the
 * intervals unsigned, as the filter does; a field D compares signed holds
 * no value of 2^63 or more, so its x <= V of such a V is `x >= 0 || x <= V`
 * in signed terms. `spec` is the keyed node, or,
 * for a filter run alone, the constant it is known to be.
 */
#include <errno.h>
#include <stdlib.h>

#include "script/compile_impl.h"
#include "script/script_impl.h"
#include "script/tok.h"
#include "select/filter_impl.h"
#include "select/spec_impl.h"

struct lowering {
	struct vxt_script *s;
	const struct vxt_filter *f;
	int spec;		/* -1: the keyed node; else the value of `spec` */
};

static struct script_node *node(struct lowering *l, unsigned kind, unsigned type)
{
	int rc;
	struct script_node *n = vxt_script_node_new(l->s, &rc, kind, 0, 0);

	if (n)
		n->type = (uint8_t)type;
	return n;
}

static struct script_node *pair(struct lowering *l, unsigned kind, int op, struct script_node *a,
			  struct script_node *b)
{
	struct script_node *n = a && b ? node(l, kind, SV_INT) : NULL;

	if (n) {
		n->op = op;
		n->a = a;
		n->b = b;
	}
	return n;
}

static struct script_node *negate(struct lowering *l, struct script_node *a)
{
	struct script_node *n = node(l, SN_UNARY, SV_INT);

	if (n) {
		n->op = ST_NOT;
		n->a = a;
	}
	return n;
}

/* The D field of filter field @ff, -1 when none reads the same. */
static int field_of(unsigned ff)
{
	switch (ff) {
	case FF_FLAGS: return SF_FLAGS;
	case FF_SECTOR: return SF_SECTOR;
	case FF_BYTES: return SF_BYTES;
	case FF_LATENCY: return SF_LATENCY;
	case FF_ERROR: return SF_ERROR;
	case FF_PID: return SF_PID;
	case FF_CPU: return SF_CPU;
	case FF_OBJECT: return SF_OBJECT;
	case FF_COMM: return SF_COMM;
	case FF_HOST: return SF_HOST;
	case FF_TIME: return SF_TIME;	/* the script sets the filters' origin too */
	case FF_DEV: return SF_DEV;
	case FF_OP: return SF_OP;	/* by name: one name a code */
	case FF_PHASE: return SF_PHASE;
	case FF_Q2D: case FF_D2C: case FF_Q2C: case FF_Q2G: case FF_G2I: case FF_I2D:
		return SF_Q2D + (int)(ff - FF_Q2D);	/* both in VXT_IV_* order */
	default: return -1;
	}
}

/* Unsigned @fld < @val (@lt) or <= @val for a field D compares signed,
 * @val past INT64_MAX (its bit pattern in val->num): `fld >= 0 || fld <=
 * val` in signed terms. */
static struct script_node *unsigned_le(struct lowering *l, struct script_node *fld, struct script_node *val,
				 bool lt)
{
	struct script_node *zero = node(l, SN_NUM, SV_INT), *again = node(l, SN_FIELD, SV_INT);

	if (!zero || !again)
		return NULL;
	again->idx = fld->idx;
	return pair(l, SN_OR, ST_OROR, pair(l, SN_BINARY, ST_GE, again, zero),
		    pair(l, SN_BINARY, lt ? ST_LT : ST_LE, fld, val));
}

/* Test @t as a D node, NULL when out of memory (every test the parser
 * makes has one). */
static struct script_node *test_node(struct lowering *l, const struct ftest *t)
{
	int field = field_of(t->field);
	bool name = t->field == FF_OBJECT || t->field == FF_COMM || t->field == FF_HOST;
	bool code = t->field == FF_OP || t->field == FF_PHASE;
	unsigned op = t->op == FO_DEVCMP ? t->aux : t->op;
	struct script_node *fld, *val;

	if (t->field == FF_SPEC && t->op == FO_TRUE) {
		struct script_node *n = node(l, l->spec < 0 ? SN_KEYED : SN_NUM, SV_INT);

		if (n && l->spec < 0)
			n->idx = SK_ACTIVE;
		else if (n)
			n->num = l->spec;
		return n;
	}
	if (t->op == FO_SET && field >= SF_Q2D && field <= SF_I2D &&
	    (val = node(l, SN_KNOWN, SV_INT))) {	/* known: a value to compare */
		val->idx = field;
		return val;
	}
	if (name && t->op == FO_GLOB && (fld = node(l, SN_FIELD, SV_STR)) &&
	    (val = node(l, SN_GLOB, SV_INT))) {
		fld->idx = field;
		val->a = fld;
		val->str = l->f->pool + t->str;
		return val;
	}
	if (field < 0 || (name ? t->op != FO_STREQ : code ? t->op != FO_EQ : op > FO_BITS) ||
	    (t->field == FF_DEV) != (t->op == FO_DEVCMP))
		return NULL;
	fld = node(l, SN_FIELD, name || code ? SV_STR : SV_INT);
	val = node(l, name || code ? SN_STR : SN_NUM, name || code ? SV_STR : SV_INT);
	if (!fld || !val)
		return NULL;
	fld->idx = field;
	if (name)
		val->str = l->f->pool + t->str;
	else if (code)
		val->str = t->field == FF_OP ? vxt_op_name((unsigned)t->val) :
			   vxt_phase_name((unsigned)t->val);
	else
		val->num = (int64_t)t->val;
	if (op == FO_EQ && !name && !code && !t->val)
		return negate(l, fld);	/* field == 0 as !field */
	if ((op == FO_LT || op == FO_LE) && !name && !code && t->val > INT64_MAX &&
	    !vxt_cc_unsigned_field(field))
		return unsigned_le(l, fld, val, op == FO_LT);
	switch (op) {
	case FO_EQ: case FO_STREQ: return pair(l, SN_BINARY, ST_EQ, fld, val);
	case FO_LT: return pair(l, SN_BINARY, ST_LT, fld, val);
	case FO_LE: return pair(l, SN_BINARY, ST_LE, fld, val);
	default: return pair(l, SN_BINARY, ST_AND, fld, val);	/* FO_BITS */
	}
}

/* The label of jump target @to: a test, then ACCEPT and REJECT. */
static unsigned label(const struct vxt_filter *f, unsigned to)
{
	return to == FT_ACCEPT ? f->ntests : to == FT_REJECT ? f->ntests + 1 : to;
}

/* Whether test @t is of a name (object, host, comm) whose answers the
 * script keeps per id (a filter's own script, name_cache.c): the cached
 * name_match op, its answers in cache @i. */
static bool name_cached(const struct compiler *c, const struct ftest *t, unsigned i)
{
	return (t->field == FF_OBJECT || t->field == FF_COMM || t->field == FF_HOST) &&
	       (t->op == FO_STREQ || t->op == FO_GLOB) && i < c->s->nncache;
}

/* Test @i's node, compiled as the jump table wires it: to @tt when it
 * holds, to @ff when not, falling through to @next where one of them is.
 * A name test of a filter's own script is the cached name_match op; the
 * rest is the node as the script compiler compiles it. */
static void compile_test(struct compiler *c, const struct ftest *t, unsigned i,
			 struct script_node *n, unsigned tt, unsigned ff, unsigned next, int64_t *to)
{
	unsigned saved = c->next_reg, r = 0;

	if (name_cached(c, t, i)) {
		int f = n->a->idx;	/* which id the answers are kept by */

		r = vxt_cc_reg(c);
		vxt_cc_emit(c, VXT_INSN_NAME_MATCH, r, f == SF_COMM || f == SF_EXECNAME, i,
			    vxt_cc_node(c, n));
	}
	if (ff == next) {
		if (r)
			vxt_cc_jump(c, VXT_INSN_JUMP_IF, r, &to[tt]);
		else
			vxt_cc_test(c, n, true, &to[tt]);
	} else {
		if (r)
			vxt_cc_jump(c, VXT_INSN_JUMP_UNLESS, r, &to[ff]);
		else
			vxt_cc_test(c, n, false, &to[ff]);
		if (tt != next)
			vxt_cc_jump(c, VXT_INSN_JUMP, 0, &to[tt]);
	}
	c->next_reg = saved;
}

int vxt_filter_emit(struct compiler *c, const struct vxt_filter *f, int spec, int64_t *reject)
{
	struct lowering l = { .s = c->s, .f = f, .spec = spec };
	unsigned nl = f->ntests + 2, entry = label(f, f->entry);
	int64_t *to = malloc(nl * sizeof(*to));
	unsigned *at = malloc(nl * sizeof(*at));
	int rc = to && at ? 0 : -ENOMEM;

	for (unsigned i = 0; rc == 0 && i < nl; i++)
		to[i] = i == f->ntests + 1 ? *reject : NO_FIXUP;	/* refused: onto @reject */
	/* tests from the last: the parser's jumps all go to lower indexes, so
	 * most fall through to the next one emitted */
	if (rc == 0 && entry != (f->ntests ? f->ntests - 1 : f->ntests))
		vxt_cc_jump(c, VXT_INSN_JUMP, 0, &to[entry]);
	for (unsigned i = f->ntests; rc == 0 && i-- > 0;) {
		const struct ftest *t = &f->tests[i];
		struct script_node *n = test_node(&l, t);

		at[i] = vxt_cc_here(c);
		if (!n)
			rc = -ENOMEM;
		else
			compile_test(c, t, i, n, label(f, t->t), label(f, t->f),
				     i ? i - 1 : f->ntests, to);
	}
	if (rc == 0) {
		at[f->ntests] = vxt_cc_here(c);	/* accepted: what follows */
		for (unsigned i = 0; i <= f->ntests; i++)
			vxt_cc_patch(c, to[i], at[i]);
		*reject = to[f->ntests + 1];
	}
	free(to);
	free(at);
	return rc ? rc : c->rc;
}

struct vxt_program *vxt_filter_program(struct vxt_script *s, const struct vxt_filter *f,
				       int spec)
{
	struct vxt_program *p = calloc(1, sizeof(*p));
	struct compiler c = { .s = s, .p = p, .has_event = true, .next_reg = 1 };
	int64_t reject = NO_FIXUP;

	if (!p)
		return NULL;
	p->title = "filter";
	p->nregs = 1;
	if (vxt_filter_emit(&c, f, spec, &reject) < 0) {
		vxt_program_free(p);
		return NULL;
	}
	vxt_cc_emit(&c, VXT_INSN_RETURN, 0, 0, 0, 1);
	vxt_cc_patch(&c, reject, vxt_cc_here(&c));
	vxt_cc_emit(&c, VXT_INSN_RETURN, 0, 0, 0, 0);
	if (c.rc < 0) {
		vxt_program_free(p);
		return NULL;
	}
	return p;
}
