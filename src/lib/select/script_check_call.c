/* script_check_call.c - types and D's rules of calls of functions and
 * actions
 *
 * Calls have the right number and kind of arguments, printf and printa
 * formats match their arguments (the parsed format is kept on the node for
 * the run), functions that need a live kernel or process are refused by
 * name, and each clause obeys the rules of speculation in DTrace's words:
 * speculate() comes before any data-recording action and once per clause,
 * no aggregation or exit() follows it, and a clause that commits or
 * discards records nothing.
 */
#include <errno.h>
#include <string.h>

#include "script/script_impl.h"
#include "script/bt_impl.h"
#include "select/script_check.h"

/* The parsed format of printf or printa @n, kept for the run. */
static int keep_format(struct checker *k, struct script_node *n, const struct sconv *c, unsigned nc)
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

int vxt_check_proto(struct checker *k, const struct script_node *n, unsigned want)
{
	if (n->nargs != want)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "%s( ) prototype mismatch: %u arg%s passed, %u expected",
				       n->str, n->nargs, n->nargs == 1 ? "" : "s", want);
	return 0;
}

int vxt_check_want_int(struct checker *k, const struct script_node *call, unsigned i)
{
	const struct script_node *a = call->args[i];

	if (k->final && a->type != SV_INT)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "%s( ) argument #%u is incompatible with prototype: "
				       "prototype: int, argument: %s", call->str, i + 1,
				       a->kind == SN_AGG ? "aggregation" : vxt_check_type_name(a->type));
	return 0;
}

static int want_agg(struct checker *k, const struct script_node *call, unsigned i)
{
	const struct script_node *a = call->args[i];

	if (a->kind != SN_AGG)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "%s( ) argument #%u is incompatible with prototype: "
				       "prototype: aggregation, argument: %s", call->str, i + 1,
				       vxt_check_type_name(a->type));
	if (k->final && k->s->aggs[a->idx].fn < 0)
		return vxt_script_fail(k->s, k->err, a->line, a->col,
				       "undefined aggregation: @%s", a->str);
	return 0;
}

bool vxt_check_is_const(const struct script_node *n, int64_t *v)
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
static int check_printf(struct checker *k, struct script_node *n)
{
	const struct script_node *f = n->args[0];
	struct sconv c[S_MAX_ARGS * 2 + 2];
	unsigned nc = 0, argi = 1;

	if (f->kind != SN_STR)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "printf( ) argument #1 is incompatible with prototype: "
				       "prototype: string constant, argument: %s",
				       vxt_check_type_name(f->type));
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
			const struct script_node *a = n->args[argi];
			bool want_str = cv->conv == 's' || cv->conv == 'S';

			if ((want_str && a->type != SV_STR) || (!want_str && a->type != SV_INT))
				return vxt_script_fail(k->s, k->err, a->line, a->col,
						       "printf( ) argument #%u is incompatible with "
						       "conversion #%u prototype: conversion: %%%c, "
						       "argument: %s", argi + 1, argi, cv->conv,
						       a->kind == SN_AGG ? "aggregation" :
						       vxt_check_type_name(a->type));
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
static int check_printa_format(struct checker *k, struct script_node *n)
{
	const struct script_node *f = n->args[0];
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
int vxt_check_rule(struct checker *k, const struct script_node *n, int fn)
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
bool vxt_check_not_here(const char *name)
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

int vxt_check_call(struct checker *k, struct script_node *n, bool stmt)
{
	int fn = n->idx;

	if (fn < 0 && vxt_check_not_here(n->str))
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
		if (n->args[i]->kind != SN_AGG && vxt_check_expr(k, n->args[i], false) < 0)
			return -EINVAL;
	n->type = fn == FN_SPECULATION ? SV_INT : SV_NONE;
	switch (fn) {
	case FN_SPECULATION:
		return vxt_check_proto(k, n, 0);
	case FN_BT:		/* bt_parse.c made it */
		if (vxt_bt_check_call(k->s, n, k->err) < 0)
			return -EINVAL;
		if (!stmt || !vxt_bt_prints(n))
			return 0;	/* delete, clear: as an assignment */
		break;
	case FN_SPECULATE: case FN_COMMIT: case FN_DISCARD: case FN_EXIT:
		if (vxt_check_proto(k, n, 1) < 0 || vxt_check_want_int(k, n, 0) < 0)
			return -EINVAL;
		break;
	case FN_TRACE:
		if (vxt_check_proto(k, n, 1) < 0)
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
		if (vxt_check_proto(k, n, 2) < 0 || want_agg(k, n, 0) < 0 || vxt_check_want_int(k, n, 1) < 0)
			return -EINVAL;
		break;
	case FN_DENORMALIZE:
		if (vxt_check_proto(k, n, 1) < 0 || want_agg(k, n, 0) < 0)
			return -EINVAL;
		break;
	case FN_CLEAR:
		if (vxt_check_proto(k, n, 1) < 0 || want_agg(k, n, 0) < 0)
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
		if (n->nargs == 2 && (!vxt_check_is_const(n->args[1], &v) || v < 0))
			return vxt_script_fail(k->s, k->err, n->args[1]->line, n->args[1]->col,
					       "trunc( ) argument #2 must be a non-negative integer "
					       "constant");
		break;
	}
	}
	if (stmt)
		return vxt_check_rule(k, n, fn);
	return 0;
}
