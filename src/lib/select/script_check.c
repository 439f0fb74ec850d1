/* script_check.c - types and D's rules of a parsed script (the names and
 * Over 700 lines: D's type rules are one pass over the tree; the names and options it checks against are script_names.c.
 * options it may use are script_names.c's)
 *
 * After parsing: every variable read is assigned somewhere (this->x earlier
 * in the program), types are inferred from assignments and must agree,
 * calls have the right number and kind of arguments, printf formats match
 * their arguments, an aggregation keeps one function and one number of keys,
 * and each clause obeys the rules of speculation in DTrace's words:
 * speculate() comes before any data-recording action and once per clause,
 * no aggregation or exit() follows it, and a clause that commits or
 * discards records nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "script/bt_impl.h"

static bool field_is_str(int f)
{
	return f == SF_OBJECT || f == SF_PHASE || f == SF_OP || f == SF_COMM ||
	       f == SF_EXECNAME || f == SF_PROBENAME || f == SF_HOST || f == SF_PROBEPROV ||
	       f == SF_PROBEMOD || f == SF_PROBEFUNC;
}

/* ---- types ---- */

struct chk;
static int keep_format(struct chk *k, struct snode *n, const struct sconv *c, unsigned nc);

struct chk {
	struct vxt_script *s;
	char *err;
	bool changed;		/* inference: a type was learnt */
	bool final;		/* the checking pass (not inference) */
	bool *this_set;		/* this-> variables assigned so far, in program order */
	const struct sclause *cl;
	unsigned flags;		/* CF_* of the clause so far */
};

#define CF_SPEC		0x1
#define CF_COMMIT	0x2
#define CF_DATAREC	0x4
#define CF_AGG		0x8

static const char *type_name(int t)
{
	return t == SV_STR ? "string" : t == SV_INT ? "int" : "void";
}

static int check_expr(struct chk *k, struct snode *n, bool stmt);

/* The parsed format of printf or printa @n, kept for the run. */
static int keep_format(struct chk *k, struct snode *n, const struct sconv *c, unsigned nc)
{
	if (!k->final)
		return 0;
	n->fmt = vxt_script_alloc(k->s, sizeof(*n->fmt));
	if (!n->fmt || !(n->fmt->c = vxt_script_alloc(k->s, (nc ? nc : 1) * sizeof(*c))))
		return -ENOMEM;
	memcpy(n->fmt->c, c, nc * sizeof(*c));
	n->fmt->n = nc;
	return 0;
}

static int learn(struct chk *k, struct snode *target, int type, const struct snode *at)
{
	struct svar *v = &k->s->vars[target->idx];

	if (type == SV_NONE)
		return 0;
	if (v->type == SV_NONE) {
		v->type = (uint8_t)type;
		k->changed = true;
		return 0;
	}
	if (v->type != type && k->final)
		return vxt_script_fail(k->s, k->err, at->line, at->col,
				       "operands have incompatible types: %s = %s (%s was %s before)",
				       type_name(v->type), type_name(type), target->str,
				       type_name(v->type));
	return 0;
}

static bool is_lvalue(const struct snode *n)
{
	return n->kind == SN_GLOBAL || n->kind == SN_THIS || n->kind == SN_SELF ||
	       n->kind == SN_REQ || n->kind == SN_ARRAY;
}

static int check_var_read(struct chk *k, struct snode *n)
{
	struct svar *v = &k->s->vars[n->idx];

	if (!k->final)
		return 0;
	if (n->kind == SN_THIS ? !k->this_set[n->idx] : !v->assigned) {
		if (n->kind == SN_GLOBAL || n->kind == SN_ARRAY)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "failed to resolve %s: Unknown variable name "
					       "(used before it is set)", n->str);
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s has not yet been declared or assigned", n->str);
	}
	return 0;
}

static int check_keys(struct chk *k, struct snode *n)
{
	struct svar *v = &k->s->vars[n->idx];

	for (unsigned i = 0; i < n->nargs; i++) {
		if (check_expr(k, n->args[i], false) < 0)
			return -EINVAL;
		if (k->final && n->args[i]->type == SV_NONE)
			return vxt_script_fail(k->s, k->err, n->args[i]->line, n->args[i]->col,
					       "%s: key #%u has no value", n->str, i + 1);
	}
	if (!v->nkeys)
		v->nkeys = n->nargs;
	else if (v->nkeys != n->nargs && k->final)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s: %u keys here, %u where first used", n->str, n->nargs,
				       v->nkeys);
	return 0;
}

static int check_assign(struct chk *k, struct snode *n)
{
	struct snode *t = n->a;

	if (!is_lvalue(t))
		return vxt_script_fail(k->s, k->err, t->line, t->col,
				       "operator %s can only be applied to a writable variable",
				       vxt_stok_name((enum stok)n->op));
	if (t->kind == SN_ARRAY && check_keys(k, t) < 0)
		return -EINVAL;
	if (check_expr(k, n->b, false) < 0)
		return -EINVAL;
	if (n->b->type == SV_NONE && k->final)
		return vxt_script_fail(k->s, k->err, n->b->line, n->b->col,
				       "%s( ) has no value to assign",
				       n->b->kind == SN_CALL ? n->b->str : "expression");
	if (n->op != ST_ASSIGN) {
		if (k->final && n->b->type == SV_STR)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "operator %s requires operands of arithmetic type",
					       vxt_stok_name((enum stok)n->op));
		if (check_var_read(k, t) < 0)
			return -EINVAL;
	}
	if (n->op == ST_ASSIGN && n->b->kind == SN_NUM && n->b->num == 0) {
		/* D's `x = 0` frees a dynamic variable, a string too: it takes the
		 * variable's type from its other assignments */
		if (!k->final)
			goto typed;
		if (k->s->vars[t->idx].type == SV_STR) {
			n->b->kind = SN_STR;
			n->b->str = "";
			n->b->type = SV_STR;
		}
	}
	if (learn(k, t, n->op == ST_ASSIGN ? n->b->type : SV_INT, n) < 0)
		return -EINVAL;
typed:
	k->s->vars[t->idx].assigned = true;
	if (t->kind == SN_THIS && k->final)
		k->this_set[t->idx] = true;
	t->type = k->s->vars[t->idx].type;
	n->type = t->type;
	return 0;
}

static int proto(struct chk *k, const struct snode *n, unsigned want)
{
	if (n->nargs != want)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s( ) prototype mismatch: %u arg%s passed, %u expected",
				       n->str, n->nargs, n->nargs == 1 ? "" : "s", want);
	return 0;
}

static int want_int(struct chk *k, const struct snode *call, unsigned i)
{
	const struct snode *a = call->args[i];

	if (k->final && a->type != SV_INT)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "%s( ) argument #%u is incompatible with prototype: "
				       "prototype: int, argument: %s", call->str, i + 1,
				       a->kind == SN_AGG ? "aggregation" : type_name(a->type));
	return 0;
}

static int want_agg(struct chk *k, const struct snode *call, unsigned i)
{
	const struct snode *a = call->args[i];

	if (a->kind != SN_AGG)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "%s( ) argument #%u is incompatible with prototype: "
				       "prototype: aggregation, argument: %s", call->str, i + 1,
				       type_name(a->type));
	if (k->final && k->s->aggs[a->idx].fn < 0)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "undefined aggregation: @%s", a->str);
	return 0;
}

static bool is_const(const struct snode *n, int64_t *v)
{
	if (n->kind == SN_NUM) {
		*v = n->num;
		return true;
	}
	if (n->kind == SN_UNARY && n->op == ST_MINUS && n->a->kind == SN_NUM) {
		*v = -n->a->num;
		return true;
	}
	return false;
}

/* printf: the format into conversions, checked against the arguments. */
static int check_printf(struct chk *k, struct snode *n)
{
	const struct snode *f = n->args[0];
	struct sconv c[S_MAX_ARGS * 2 + 2];
	unsigned nc = 0, argi = 1;

	if (f->kind != SN_STR)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "printf( ) argument #1 is incompatible with prototype: "
				       "prototype: string constant, argument: %s",
				       type_name(f->type));
	if (vxt_script_parse_format(k->s, f->str, false, c, sizeof(c) / sizeof(c[0]), &nc,
				    f->line, f->col, k->err) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < nc; i++) {
		struct sconv *cv = &c[i];

		if (!cv->conv)
			continue;
		if (argi >= n->nargs)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "printf( ) prototype mismatch: conversion #%u (%s) is "
					       "missing a corresponding value argument", argi,
					       cv->spec);
		if (k->final) {
			const struct snode *a = n->args[argi];
			bool want_str = cv->conv == 's' || cv->conv == 'S';

			if ((want_str && a->type != SV_STR) || (!want_str && a->type != SV_INT))
				return vxt_script_fail(k->s, k->err, a->line, a->col,
						       "printf( ) argument #%u is incompatible with "
						       "conversion #%u prototype: conversion: %%%c, "
						       "argument: %s", argi + 1, argi, cv->conv,
						       a->kind == SN_AGG ? "aggregation" :
						       type_name(a->type));
		}
		argi++;
	}
	if (argi < n->nargs)
		return vxt_script_fail(k->s, k->err, n->args[argi]->line, n->args[argi]->col,
				       "printf( ) prototype mismatch: only %u arguments required by "
				       "this format string", argi);
	return keep_format(k, n, c, nc);
}

/* printa("format", @a ...): the format checked against the keys of each. */
static int check_printa_format(struct chk *k, struct snode *n)
{
	const struct snode *f = n->args[0];
	struct sconv c[S_MAX_ARGS * 2 + 2];
	unsigned nc = 0;
	int nval;

	nval = vxt_script_parse_format(k->s, f->str, true, c, sizeof(c) / sizeof(c[0]), &nc,
				       f->line, f->col, k->err);
	if (nval < 0)
		return -EINVAL;
	if (nval > 1)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "printa( ): one %%@ conversion per format here");
	if (n->nargs > 2)
		return vxt_script_fail(k->s, k->err, n->args[2]->line, n->args[2]->col,
				       "printa( ) with a format takes one aggregation here");
	if (k->final && n->nargs == 2) {
		const struct sagg *a = &k->s->aggs[n->args[1]->idx];
		unsigned nk = 0;

		for (unsigned i = 0; i < nc; i++)
			if (c[i].conv && c[i].conv != '@')
				nk++;
		if (nk > a->nkeys)
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "printa( ) format: %u conversions for the keys of @%s, "
					       "which has %u", nk, a->name, a->nkeys);
	}
	return keep_format(k, n, c, nc);
}

/* The rules of speculation for a statement that calls @fn (DTrace's words). */
static int clause_rule(struct chk *k, const struct snode *n, int fn)
{
	unsigned *f = &k->flags;

	if (!k->final)
		return 0;
	if (fn == FN_COMMIT || fn == FN_DISCARD) {
		if (*f & (CF_DATAREC | CF_AGG))
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "%s( ) may not follow data-recording action(s)",
					       n->str);
		if (*f & CF_SPEC)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "%s( ) may not follow speculate( )", n->str);
		*f |= CF_COMMIT;
		return 0;
	}
	if (fn == FN_SPECULATE) {
		if (*f & CF_SPEC)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "speculate( ) may not follow speculate( )");
		if (*f & CF_COMMIT)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "speculate( ) may not follow commit( )");
		if (*f & (CF_DATAREC | CF_AGG))
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "speculate( ) may not follow data-recording "
					       "action(s)");
		*f |= CF_SPEC;
		return 0;
	}
	if (fn == FN_COUNT || fn == FN_CLEAR || fn == FN_TRUNC) {	/* aggregating */
		if (*f & CF_COMMIT)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "aggregating actions may not follow commit( )");
		if (*f & CF_SPEC)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "aggregating actions may not follow speculate( )");
		*f |= CF_AGG;
		return 0;
	}
	if (fn == FN_EXIT && (*f & CF_SPEC))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "exit( ) may not follow speculate( )");
	if (fn == FN_PRINTA && (*f & CF_SPEC))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "printa( ) may not follow speculate( )");
	if (*f & CF_COMMIT)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "data-recording actions may not follow commit( )");
	if (!(*f & CF_SPEC))
		*f |= CF_DATAREC;
	return 0;
}

/* D's functions and actions that need a live kernel or process. */
static bool not_here(const char *name)
{
	static const char *const names[] = {
		"stack", "ustack", "jstack", "ustackdepth", "stackdepth", "copyin", "copyinstr",
		"copyinto", "copyout", "copyoutstr", "system", "raise", "stop", "panic",
		"breakpoint", "chill", "func", "ufunc", "sym", "usym", "mod", "umod", "uaddr",
		"tracemem", "getmajor", "getminor", "ddi_pathname", "progenyof", "rand",
		"mutex_owned", "mutex_owner", "rw_read_held", "freopen", "ftruncate", "setopt",
		"strjoin", "substr", "strlen", "index", "rindex", "basename", "dirname",
		"lltostr", "strtoll", "cleanpath", "inet_ntoa", "htonl", "ntohl", "bcopy",
		"alloca", "msgsize", "msgdsize", "printm", "print",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static int check_call(struct chk *k, struct snode *n, bool stmt)
{
	int fn = n->idx;

	if (fn < 0 && not_here(n->str))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s() is not available in block traces", n->str);
	if (fn < 0)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "failed to resolve %s( ): Unknown function name (speculation "
				       "speculate commit discard trace printf printa clear trunc "
				       "normalize denormalize exit)", n->str);
	if (fn >= FN_COUNT)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s( ) may only be used on the right of an aggregation: "
				       "@name[keys] = %s(...)", n->str, n->str);
	if (fn != FN_SPECULATION && !stmt && !vxt_bt_is_value(n))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s( ) is an action: it is a statement of its own, not a "
				       "value", n->str);
	for (unsigned i = 0; i < n->nargs; i++)
		if (n->args[i]->kind != SN_AGG && check_expr(k, n->args[i], false) < 0)
			return -EINVAL;
	n->type = fn == FN_SPECULATION ? SV_INT : SV_NONE;
	switch (fn) {
	case FN_SPECULATION:
		return proto(k, n, 0);
	case FN_BT:		/* bt_parse.c made it */
		if (vxt_bt_check_call(k->s, n, k->err) < 0)
			return -EINVAL;
		if (!stmt || !vxt_bt_prints(n))
			return 0;	/* delete, clear: as an assignment */
		break;
	case FN_SPECULATE: case FN_COMMIT: case FN_DISCARD: case FN_EXIT:
		if (proto(k, n, 1) < 0 || want_int(k, n, 0) < 0)
			return -EINVAL;
		break;
	case FN_TRACE:
		if (proto(k, n, 1) < 0)
			return -EINVAL;
		if (n->args[0]->kind == SN_AGG || (k->final && n->args[0]->type == SV_NONE))
			return vxt_script_fail(k->s, k->err, n->args[0]->line, n->args[0]->col,
					       "trace( ) argument #1 is incompatible with prototype: "
					       "prototype: int or string, argument: %s",
					       n->args[0]->kind == SN_AGG ? "aggregation" : "void");
		break;
	case FN_PRINTF:
		if (!n->nargs)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "printf( ) prototype mismatch: 0 args passed, at least "
					       "1 expected");
		for (unsigned i = 0; i < n->nargs; i++)
			if (n->args[i]->kind == SN_AGG)
				return vxt_script_fail(k->s, k->err, n->args[i]->line,
						       n->args[i]->col, "printf( ) argument #%u "
						       "is incompatible with prototype: an "
						       "aggregation (use printa)", i + 1);
		if (check_printf(k, n) < 0)
			return -EINVAL;
		break;
	case FN_PRINTA:
		if (!n->nargs)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "printa( ) prototype mismatch: 0 args passed, at least "
					       "1 expected");
		for (unsigned i = n->args[0]->kind == SN_STR; i < n->nargs; i++)
			if (want_agg(k, n, i) < 0)
				return -EINVAL;
		if (n->args[0]->kind == SN_STR && check_printa_format(k, n) < 0)
			return -EINVAL;
		break;
	case FN_NORMALIZE:
		if (proto(k, n, 2) < 0 || want_agg(k, n, 0) < 0 || want_int(k, n, 1) < 0)
			return -EINVAL;
		break;
	case FN_DENORMALIZE:
		if (proto(k, n, 1) < 0 || want_agg(k, n, 0) < 0)
			return -EINVAL;
		break;
	case FN_CLEAR:
		if (proto(k, n, 1) < 0 || want_agg(k, n, 0) < 0)
			return -EINVAL;
		break;
	case FN_TRUNC: {
		int64_t v;

		if (n->nargs < 1 || n->nargs > 2)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "trunc( ) prototype mismatch: %u args passed, 1 or 2 "
					       "expected", n->nargs);
		if (want_agg(k, n, 0) < 0)
			return -EINVAL;
		if (n->nargs == 2 && (!is_const(n->args[1], &v) || v < 0))
			return vxt_script_fail(k->s, k->err, n->args[1]->line, n->args[1]->col,
					       "trunc( ) argument #2 must be a non-negative integer "
					       "constant");
		break;
	}
	}
	if (stmt)
		return clause_rule(k, n, fn);
	return 0;
}

/* Whether llquantize's factor^(high + 1) overflows 64 bits. */
static bool llq_too_wide(const int64_t *v)
{
	int64_t x = 1;

	for (int64_t o = 0; o <= v[2]; o++)
		if (__builtin_mul_overflow(x, v[0], &x))
			return true;
	return false;
}

static int check_aggset(struct chk *k, struct snode *n)
{
	struct sagg *a = &k->s->aggs[n->idx];
	struct snode *f = n->a;
	int fn = f->idx;
	/* lquantize's step is 1 when left out, as in D */
	unsigned want = fn == FN_COUNT ? 0 : fn == FN_LQUANTIZE ? (f->nargs == 3 ? 3 : 4) :
			fn == FN_LLQUANTIZE ? 5 : 1;

	if (fn < 0 && not_here(f->str))
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "%s() is not available in block traces", f->str);
	if (fn < FN_COUNT)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "%s( ) is not an aggregating function (count sum avg min max "
				       "stddev quantize lquantize llquantize)", f->str);
	for (unsigned i = 0; i < n->nkeys; i++) {
		if (check_expr(k, n->keys[i], false) < 0)
			return -EINVAL;
		if (k->final && n->keys[i]->type == SV_NONE)
			return vxt_script_fail(k->s, k->err, n->keys[i]->line, n->keys[i]->col,
					       "@%s: key #%u has no value", n->str, i + 1);
	}
	for (unsigned i = 0; i < f->nargs; i++)
		if (f->args[i]->kind == SN_AGG || check_expr(k, f->args[i], false) < 0)
			return f->args[i]->kind == SN_AGG ?
			       vxt_script_fail(k->s, k->err, f->args[i]->line, f->args[i]->col,
					       "%s( ) argument #%u is incompatible with prototype: "
					       "an aggregation", f->str, i + 1) : -EINVAL;
	if (proto(k, f, want) < 0)
		return -EINVAL;
	if (want && want_int(k, f, 0) < 0)
		return -EINVAL;
	if (fn == FN_LQUANTIZE) {
		int64_t lo, hi, step, span;

		step = 1;
		if (!is_const(f->args[1], &lo) || !is_const(f->args[2], &hi) ||
		    (f->nargs == 4 && !is_const(f->args[3], &step)))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ) arguments #2-#4 must be integer "
					       "constants");
		/* hi - lo must itself be a number: lquantize(x, -INT64_MAX,
		 * INT64_MAX, 1) would wrap past the count of steps */
		if (hi <= lo || step <= 0 || __builtin_sub_overflow(hi, lo, &span) ||
		    span / step > 10000 || span % step)
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ): upper bound must be above the lower, "
					       "and a multiple of step above it, in at most 10000 "
					       "steps");
		if (k->final && a->fn == FN_LQUANTIZE &&
		    (a->lq_lo != lo || a->lq_hi != hi || a->lq_step != step))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ) of @%s: other bounds than where it was "
					       "first used (%u:%u)", n->str, a->line, a->col);
		a->lq_lo = lo;
		a->lq_hi = hi;
		a->lq_step = step;
	}
	if (fn == FN_LLQUANTIZE) {
		int64_t v[4];	/* factor, low, high, nsteps: DTrace's rules */

		for (unsigned i = 0; i < 4; i++)
			if (!is_const(f->args[i + 1], &v[i]))
				return vxt_script_fail(k->s, k->err, f->line, f->col,
						       "llquantize( ) arguments #2-#5 must be "
						       "integer constants");
		if (v[0] < 2 || v[0] > 65535 || v[1] < 0 || v[2] <= v[1] || v[2] > 65535 ||
		    v[3] < v[0] || v[3] > 65535 || v[3] % v[0] || llq_too_wide(v))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "llquantize( ): factor of 2 or more, low magnitude "
					       "below the high one, steps a multiple of the factor, "
					       "and the high order within 64 bits");
		if (k->final && a->fn == FN_LLQUANTIZE &&
		    (a->llq_factor != v[0] || a->lq_lo != v[1] || a->lq_hi != v[2] ||
		     a->lq_step != v[3]))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "llquantize( ) of @%s: other arguments than where it "
					       "was first used (%u:%u)", n->str, a->line, a->col);
		a->llq_factor = v[0];
		a->lq_lo = v[1];
		a->lq_hi = v[2];
		a->lq_step = v[3];
	}
	if (!k->final)
		return 0;
	if (a->fn >= 0 && a->fn != fn)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "aggregation redefined: @%s (current: %s( ), previous: %s( ) "
				       "at %u:%u)", n->str, f->str, vxt_script_func_name(a->fn),
				       a->line, a->col);
	if (a->fn >= 0 && a->nkeys != n->nkeys)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "aggregation redefined: @%s has %u keys here, %u at %u:%u",
				       n->str, n->nkeys, a->nkeys, a->line, a->col);
	if (a->fn < 0) {
		a->fn = fn;
		a->nkeys = n->nkeys;
		a->line = n->line;
		a->col = n->col;
	}
	return clause_rule(k, n, FN_COUNT);
}

/* A string compared with 0 (D's NULL, after a cast such as `(int)s == 0`)
 * is compared with "": an unset string variable reads "". */
static void null_string(const struct snode *s, struct snode *z)
{
	if (s->type == SV_STR && z->kind == SN_NUM && z->num == 0) {
		z->kind = SN_STR;
		z->str = "";
		z->type = SV_STR;
	}
}

static int check_expr(struct chk *k, struct snode *n, bool stmt)
{
	if (k->final && n->standin)	/* a name a block trace has no value for */
		vxt_script_warn(k->s, n->standin);
	switch (n->kind) {
	case SN_NUM:
		n->type = SV_INT;
		return 0;
	case SN_STR:
		n->type = SV_STR;
		return 0;
	case SN_FIELD:
		if (k->final && n->idx < 0)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "failed to resolve %s: Unknown variable name", n->str);
		n->type = field_is_str(n->idx) ? SV_STR : SV_INT;
		return 0;
	case SN_GLOBAL: case SN_THIS: case SN_SELF: case SN_REQ:
		n->type = k->s->vars[n->idx].type;
		return check_var_read(k, n);
	case SN_ARRAY:
		if (check_keys(k, n) < 0)
			return -EINVAL;
		n->type = k->s->vars[n->idx].type;
		return check_var_read(k, n);
	case SN_AGG:
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "@%s: an aggregation can only be printed (printa), cleared "
				       "or truncated", n->str);
	case SN_ASSIGN:
		return check_assign(k, n);
	case SN_INCDEC:
		if (!is_lvalue(n->a))
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "operator %s can only be applied to a writable variable",
					       vxt_stok_name((enum stok)n->op));
		if (n->a->kind == SN_ARRAY && check_keys(k, n->a) < 0)
			return -EINVAL;
		if (check_var_read(k, n->a) < 0 || learn(k, n->a, SV_INT, n) < 0)
			return -EINVAL;
		k->s->vars[n->a->idx].assigned = true;
		n->type = n->a->type = SV_INT;
		return 0;
	case SN_CALL:
		return check_call(k, n, stmt);
	case SN_AGGSET:
		return check_aggset(k, n);
	case SN_COND:
		if (stmt && vxt_snode_cond_action(n)) {	/* runs the operand it picks */
			if (check_expr(k, n->a, false) < 0 || check_expr(k, n->b, true) < 0 ||
			    check_expr(k, n->c, true) < 0)
				return -EINVAL;
			n->type = SV_NONE;
			return 0;
		}
		if (check_expr(k, n->a, false) < 0 || check_expr(k, n->b, false) < 0 ||
		    check_expr(k, n->c, false) < 0)
			return -EINVAL;
		if (k->final && n->b->type != n->c->type)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "operator ?: operands must have compatible types "
					       "(%s, %s)", type_name(n->b->type),
					       type_name(n->c->type));
		n->type = n->b->type;
		return 0;
	default:
		break;
	}
	/* unary and binary operators */
	if (check_expr(k, n->a, false) < 0 || (n->b && check_expr(k, n->b, false) < 0))
		return -EINVAL;
	n->type = SV_INT;
	if (!k->final)
		return 0;
	if (n->a->type == SV_NONE || (n->b && n->b->type == SV_NONE))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "operator %s: an operand has no value",
				       vxt_stok_name((enum stok)n->op));
	if (n->kind == SN_BINARY && (n->op == ST_EQ || n->op == ST_NE || n->op == ST_LT ||
				     n->op == ST_LE || n->op == ST_GT || n->op == ST_GE)) {
		null_string(n->a, n->b);
		null_string(n->b, n->a);
		if (n->a->type != n->b->type)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "operator %s operands have incompatible types: %s %s %s",
					       vxt_stok_name((enum stok)n->op), type_name(n->a->type),
					       vxt_stok_name((enum stok)n->op), type_name(n->b->type));
		return 0;
	}
	if (n->kind == SN_AND || n->kind == SN_OR || n->kind == SN_XORXOR ||
	    (n->kind == SN_UNARY && n->op == ST_NOT))
		return 0;	/* strings are true when not empty */
	if (n->a->type == SV_STR || (n->b && n->b->type == SV_STR))
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "operator %s requires operand%s of arithmetic type",
				       vxt_stok_name((enum stok)n->op), n->b ? "s" : "");
	return 0;
}

/* Whether statement @st (and the operands a ?: of it may run) records. */
static void note_records(struct sclause *c, const struct snode *st)
{
	if (vxt_snode_cond_action(st)) {
		note_records(c, st->b);
		note_records(c, st->c);
		return;
	}
	if (st->kind == SN_CALL && (st->idx == FN_SPECULATE || st->idx == FN_TRACE ||
				    st->idx == FN_PRINTF || st->idx == FN_PRINTA ||
				    vxt_bt_prints(st)))
		c->records = true;
	if (st->kind == SN_CALL && (st->idx == FN_TRACE || st->idx == FN_PRINTF ||
				    vxt_bt_prints(st)))
		c->has_text = true;
}

static int check_clause(struct chk *k, struct sclause *c)
{
	k->cl = c;
	k->flags = 0;
	if (c->pred) {
		if (check_expr(k, c->pred, false) < 0)
			return -EINVAL;
		if (k->final && c->pred->type == SV_NONE)
			return vxt_script_fail(k->s, k->err, c->pred->line, c->pred->col,
					       "predicate has no value");
	}
	for (unsigned i = 0; i < c->nstmts; i++) {
		struct snode *st = c->stmts[i];

		if (check_expr(k, st, true) < 0)
			return -EINVAL;
		if (k->final)
			note_records(c, st);
	}
	if (!c->nstmts && !c->folded)
		c->records = c->has_default = true;
	if (k->final && (c->probes & (SP_BEGIN | SP_END | SP_TICK)) &&
	    (c->probes & ~(SP_BEGIN | SP_END | SP_TICK)))
		return vxt_script_fail(k->s, k->err, c->line, c->col,
				       "a clause cannot mix io::: probes with BEGIN, END or tick "
				       "probes (the fields would have no event)");
	return 0;
}

int vxt_script_check(struct vxt_script *s, char *err)
{
	struct chk k = { .s = s, .err = err };
	int rc = 0;

	k.this_set = calloc(s->nvars + 1, sizeof(*k.this_set));
	if (!k.this_set)
		return -ENOMEM;
	/* infer the types of variables from their assignments, to a fixed point */
	for (unsigned round = 0; round < 16; round++) {
		k.changed = false;
		for (unsigned i = 0; i < s->ncl && rc == 0; i++)
			rc = check_clause(&k, &s->cl[i]);
		if (rc < 0 || !k.changed)
			break;
	}
	for (unsigned i = 0; i < s->nvars; i++)	/* only ever `x = 0`: an integer */
		if (s->vars[i].type == SV_NONE && s->vars[i].assigned)
			s->vars[i].type = SV_INT;
	for (unsigned i = 0; i < s->naggs; i++)
		s->aggs[i].fn = -1;	/* the checking pass defines them in order */
	k.final = true;
	for (unsigned i = 0; i < s->ncl && rc == 0; i++)
		rc = check_clause(&k, &s->cl[i]);
	/* an aggregation printed before it is defined in the text is still fine */
	free(k.this_set);
	return rc;
}
