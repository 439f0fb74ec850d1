/* bt_calls.c - bpftrace's maps and calls, to the D parser's tree: a map
 * read or written as a variable (a global, an associative array), calls
 * lowered to D's functions or to FN_BT actions (bt_run.c), and the
 * statement @name[keys] = f(args) of an aggregating function (count sum avg
 * min max hist lhist stats)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "script/bt_impl.h"

/* @name or @name[keys] read or written as a variable. */
struct script_node *vxt_btp_map_ref(struct btparser *p, const struct stoken *at)
{
	const struct btmap *m = vxt_btp_map(p, at->str);
	struct script_node *n, *v[S_MAX_ARGS];
	unsigned nv = 0;

	if (!m || !m->assigned)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: Undefined map: @%s", at->str),
		       NULL;
	if (m && m->kind == BM_AGG)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: @%s is an aggregation: it "
				    "is printed, not read (print(@%s))", at->str, at->str), NULL;
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		struct script_node *raw[S_MAX_ARGS];
		unsigned nraw;

		vxt_btp_take(p);
		if (vxt_btp_args(p, ST_RBRACK, raw, &nraw) < 0 || vxt_btp_keys(p, raw, nraw, v, &nv) < 0)
			return NULL;
		if (!nv)
			return vxt_btp_fail(p, at->line, at->col, "ERROR: syntax error, unexpected ]"),
			       NULL;
	}
	if (m && (m->kind == BM_ARRAY) != (nv > 0))
		return vxt_btp_fail(p, at->line, at->col, "ERROR: Argument mismatch for @%s: "
				    "trying to access with %s arguments when map expects %s "
				    "arguments", at->str, nv ? "some" : "no", nv ? "no" : "some"),
		       NULL;
	n = vxt_btp_node(p, nv ? SN_ARRAY : SN_GLOBAL, at->line, at->col);
	if (!n)
		return NULL;
	{
		char name[72];

		snprintf(name, sizeof(name), "@%s", at->str);
		n->str = vxt_btp_dup(p, name);
		n->idx = vxt_btp_var(p, nv ? SN_ARRAY : SN_GLOBAL, name, at->line, at->col);
	}
	if (!n->str || n->idx < 0)
		return NULL;
	if (nv && !(n->args = vxt_btp_copy_args(p, v, nv)))
		return NULL;
	n->nargs = nv;
	return n;
}

static struct script_node *call_node(struct btparser *p, int fn, const struct stoken *at,
			       struct script_node *const *args, unsigned nargs)
{
	struct script_node *n = vxt_btp_node(p, SN_CALL, at->line, at->col);

	if (!n)
		return NULL;
	n->idx = fn;
	n->str = vxt_btp_dup(p, fn == FN_BT ? at->str : vxt_script_func_name(fn));
	n->args = vxt_btp_copy_args(p, args, nargs);
	n->nargs = nargs;
	return n->str && n->args ? n : NULL;
}

/* The map the next token names, an argument of @fname (the token in @at,
 * not taken); NULL when it names none written (the error said). */
static const struct btmap *map_named(struct btparser *p, const char *fname, struct stoken *at)
{
	struct stoken *t = vxt_btp_peek(p);
	const struct btmap *m;

	if (t->type != ST_AGG)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: %s() expects a map argument",
				    fname), NULL;
	*at = *t;
	m = vxt_btp_map(p, at->str);
	if (!m || !m->assigned)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: Undefined map: @%s", at->str),
		       NULL;
	return m;
}

/* A map argument (print, clear, zero, delete, has_key): its reference, an
 * SN_AGG for an aggregation. */
static struct script_node *map_arg(struct btparser *p, const char *fname, bool keys)
{
	struct stoken at;
	const struct btmap *m = map_named(p, fname, &at);

	if (!m)
		return NULL;
	vxt_btp_take(p);
	if (m && m->kind == BM_AGG) {
		struct script_node *n = vxt_btp_node(p, SN_AGG, at.line, at.col);

		if (!n)
			return NULL;
		n->str = vxt_btp_dup(p, at.str);
		n->idx = vxt_btp_agg_slot(p, at.str, at.line, at.col);
		return n->str && n->idx >= 0 ? n : NULL;
	}
	if (!keys || !m || m->kind != BM_ARRAY) {	/* the whole map: its variable */
		struct script_node *n = vxt_btp_node(p, SN_NUM, at.line, at.col);
		char name[72];

		if (!n)
			return NULL;
		snprintf(name, sizeof(name), "@%s", at.str);
		n->str = vxt_btp_dup(p, name);
		n->num = vxt_btp_var(p, m && m->kind == BM_ARRAY ? SN_ARRAY : SN_GLOBAL, name,
				     at.line, at.col);
		n->idx = m && m->kind == BM_ARRAY;	/* 1: an array */
		return n->str && n->num >= 0 ? n : NULL;
	}
	return vxt_btp_map_ref(p, &at);
}

/* delete(@m, k...), delete(@m[k]), has_key(@m, k...): the element. */
static struct script_node *elem_arg(struct btparser *p, const char *fname)
{
	struct stoken at;
	struct script_node *raw[S_MAX_ARGS], *v[S_MAX_ARGS], *n;
	unsigned nraw = 0, nv;
	const struct btmap *m = map_named(p, fname, &at);

	if (!m)
		return NULL;
	if (m->kind != BM_ARRAY)
		return vxt_btp_fail(p, at.line, at.col, "ERROR: %s() expects a map with keys: "
				    "@%s is %s", fname, at.str,
				    m && m->kind == BM_AGG ? "an aggregation" : "a value"), NULL;
	vxt_btp_take(p);
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		vxt_btp_take(p);
		if (vxt_btp_args(p, ST_RBRACK, raw, &nraw) < 0)
			return NULL;
	} else {
		if (vxt_btp_expect(p, ST_COMMA) < 0)
			return NULL;
		p->parens++;
		for (;;) {
			if (nraw == S_MAX_ARGS)
				return vxt_btp_fail(p, at.line, at.col, "ERROR: too many keys"), NULL;
			if (!(raw[nraw++] = vxt_btp_assign(p)))
				return NULL;
			if (vxt_btp_peek(p)->type != ST_COMMA)
				break;
			vxt_btp_take(p);
		}
		p->parens--;
	}
	if (vxt_btp_keys(p, raw, nraw, v, &nv) < 0)
		return NULL;
	n = vxt_btp_node(p, SN_ARRAY, at.line, at.col);
	if (!n)
		return NULL;
	{
		char name[72];

		snprintf(name, sizeof(name), "@%s", at.str);
		n->str = vxt_btp_dup(p, name);
		n->idx = vxt_btp_var(p, SN_ARRAY, name, at.line, at.col);
	}
	n->args = vxt_btp_copy_args(p, v, nv);
	n->nargs = nv;
	return n->str && n->idx >= 0 && n->args ? n : NULL;
}

struct script_node *vxt_btp_call(struct btparser *p, const struct stoken *at)
{
	const char *f = at->str;
	struct script_node *v[S_MAX_ARGS], *a, *n;
	unsigned nv = 0;
	static const struct { const char *name; int fn; } same[] = {
		{ "printf", FN_PRINTF }, { "speculation", FN_SPECULATION },
		{ "speculate", FN_SPECULATE }, { "commit", FN_COMMIT }, { "discard", FN_DISCARD },
	};

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(f, same[i].name)) {
			if (vxt_btp_args(p, ST_RPAREN, v, &nv) < 0)
				return NULL;
			return call_node(p, same[i].fn, at, v, nv);
		}
	if (!strcmp(f, "exit")) {
		if (vxt_btp_args(p, ST_RPAREN, v, &nv) < 0)
			return NULL;
		if (!nv && !(v[nv++] = vxt_btp_node(p, SN_NUM, at->line, at->col)))
			return NULL;
		return call_node(p, FN_EXIT, at, v, 1);
	}
	if (!strcmp(f, "print") || !strcmp(f, "clear") || !strcmp(f, "zero")) {
		p->parens++;
		if (vxt_btp_peek(p)->type == ST_AGG) {
			a = map_arg(p, f, false);
		} else if (f[0] == 'p') {
			a = vxt_btp_assign(p);
		} else {
			map_arg(p, f, false);
			return NULL;
		}
		if (!a)
			return NULL;
		v[nv++] = a;
		while (f[0] == 'p' && vxt_btp_peek(p)->type == ST_COMMA) {	/* top, div */
			vxt_btp_take(p);
			if (nv == 3 || a->kind != SN_AGG)
				return vxt_btp_fail(p, at->line, at->col, "ERROR: print() takes "
						    "%s", a->kind == SN_AGG ? "at most 3 arguments" :
						    "one argument when it is not a map"), NULL;
			if (!(v[nv++] = vxt_btp_assign(p)))
				return NULL;
		}
		if (vxt_btp_expect(p, ST_RPAREN) < 0)
			return NULL;
		p->parens--;
		if (a->kind == SN_AGG) {
			if (f[0] == 'p' && nv == 1)
				return call_node(p, FN_PRINTA, at, v, 1);
			if (f[0] == 'p') {	/* print(@m, top[, div]) */
				n = call_node(p, FN_BT, at, v, nv);
				if (n)
					n->num = BTA_PRINT;
				return n;
			}
			return call_node(p, f[0] == 'c' ? FN_TRUNC : FN_CLEAR, at, v, 1);
		}
		n = call_node(p, FN_BT, at, v, nv);
		if (n)
			n->num = f[0] == 'p' ? BTA_PRINT : BTA_CLEAR;
		return n;
	}
	if (!strcmp(f, "delete") || !strcmp(f, "has_key")) {
		p->parens++;
		a = elem_arg(p, f);
		if (!a || vxt_btp_expect(p, ST_RPAREN) < 0)
			return NULL;
		p->parens--;
		if (f[0] == 'h')	/* D keeps no element of value 0 */
			return a;
		n = call_node(p, FN_BT, at, &a, 1);
		if (n)
			n->num = BTA_DELETE;
		return n;
	}
	if (!strcmp(f, "time") || !strcmp(f, "strftime")) {
		if (vxt_btp_args(p, ST_RPAREN, v, &nv) < 0)
			return NULL;
		if (f[0] == 't' && nv > 1)
			return vxt_btp_fail(p, at->line, at->col, "ERROR: time() takes up to one "
					    "argument (%u provided)", nv), NULL;
		if (f[0] == 's' && nv != 2)
			return vxt_btp_fail(p, at->line, at->col, "ERROR: strftime() requires two "
					    "arguments (%u provided)", nv), NULL;
		if (nv && v[0]->kind != SN_STR)
			return vxt_btp_fail(p, v[0]->line, v[0]->col, "ERROR: %s() expects a "
					    "string literal as the format", f), NULL;
		n = call_node(p, FN_BT, at, v, nv);
		if (n)
			n->num = f[0] == 't' ? BTA_TIME : BTA_STRFTIME;
		return n;
	}
	if (!strcmp(f, "str") || !strcmp(f, "ksym") || !strcmp(f, "usym") ||
	    !strcmp(f, "kstack") || !strcmp(f, "ustack")) {
		if (vxt_btp_args(p, ST_RPAREN, v, &nv) < 0)
			return NULL;
		if (f[0] == 's')	/* strings are strings already */
			return nv == 1 ? v[0] : (vxt_btp_fail(p, at->line, at->col,
					 "ERROR: str() requires one argument"), NULL);
		return vxt_btp_builtin(p, at);
	}
	if (vxt_btp_is_aggfn(f))
		return vxt_btp_fail(p, at->line, at->col, "ERROR: %s() should be directly "
				    "assigned to a map", f), NULL;
	return vxt_btp_fail(p, at->line, at->col, "ERROR: Unknown function: '%s'", f), NULL;
}

/* hist(v, k) for k > 0 at @ft (@raw its two arguments): lquantize(idx, 0,
 * top + 1, 1) of bpftrace's bucket index of v (bt_run.c), so every index
 * has its own bucket. */
static struct script_node *hist_k(struct btparser *p, const struct stoken *ft, struct script_node **raw)
{
	struct script_node *idx = call_node(p, FN_BT, ft, raw, 2), *a[4], *f;

	if (!idx)
		return NULL;
	idx->num = BTA_LOG2K;
	a[0] = idx;
	for (int i = 1; i < 4; i++) {
		if (!(a[i] = vxt_btp_node(p, SN_NUM, ft->line, ft->col)))
			return NULL;
	}
	a[2]->num = BT_HIST_TOP(raw[1]->num) + 1;
	a[3]->num = 1;
	f = call_node(p, FN_LQUANTIZE, ft, a, 4);
	if (f)
		f->str = vxt_btp_dup(p, ft->str);
	return f && f->str ? f : NULL;
}

/* @name[keys] = f(args), f aggregating: an SN_AGGSET. */
struct script_node *vxt_btp_agg_stmt(struct btparser *p)
{
	static const struct { const char *name; int fn; uint8_t kind; } fns[] = {
		{ "count", FN_COUNT, BTK_PLAIN }, { "sum", FN_SUM, BTK_PLAIN },
		{ "avg", FN_AVG, BTK_PLAIN }, { "min", FN_MIN, BTK_PLAIN },
		{ "max", FN_MAX, BTK_PLAIN }, { "hist", FN_QUANTIZE, BTK_HIST },
		{ "lhist", FN_LQUANTIZE, BTK_LHIST }, { "stats", FN_AVG, BTK_STATS },
	};
	struct stoken at = *vxt_btp_peek(p), ft;
	struct script_node *n = vxt_btp_node(p, SN_AGGSET, at.line, at.col), *f;
	struct script_node *raw[S_MAX_ARGS], *v[S_MAX_ARGS];
	unsigned nraw = 0, nv = 0;
	int k = -1;
	uint8_t kind, hk = 0;

	if (!n)
		return NULL;
	n->str = vxt_btp_dup(p, at.str);
	n->idx = vxt_btp_agg_slot(p, at.str, at.line, at.col);
	vxt_btp_take(p);
	if (n->idx < 0 || !n->str)
		return NULL;
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		vxt_btp_take(p);
		if (vxt_btp_args(p, ST_RBRACK, raw, &nraw) < 0 || vxt_btp_keys(p, raw, nraw, v, &nv) < 0)
			return NULL;
	}
	n->keys = vxt_btp_copy_args(p, v, nv);
	n->nkeys = nv;
	if (!n->keys || vxt_btp_expect(p, ST_ASSIGN) < 0)
		return NULL;
	ft = *vxt_btp_peek(p);
	if (ft.type != ST_IDENT)
		return vxt_btp_syntax(p, &ft), NULL;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, ft.str))
			k = (int)i;
	if (k < 0)
		return vxt_btp_syntax(p, &ft), NULL;
	vxt_btp_take(p);
	if (vxt_btp_expect(p, ST_LPAREN) < 0 || vxt_btp_args(p, ST_RPAREN, raw, &nraw) < 0)
		return NULL;
	f = call_node(p, fns[k].fn, &ft, raw, nraw);
	if (!f)
		return NULL;
	f->str = vxt_btp_dup(p, ft.str);	/* messages name bpftrace's function */
	if (fns[k].fn == FN_LQUANTIZE && nraw != 4)
		return vxt_btp_fail(p, ft.line, ft.col, "ERROR: lhist() requires 4 arguments "
				    "(%u provided)", nraw), NULL;
	kind = fns[k].kind;
	if (fns[k].fn == FN_QUANTIZE && nraw == 2) {	/* hist(v, k) */
		if (raw[1]->kind != SN_NUM || raw[1]->num < 0 || raw[1]->num > BT_HIST_KMAX)
			return vxt_btp_fail(p, raw[1]->line, raw[1]->col, "ERROR: hist: bits "
					    "argument must be in range 0-%d", BT_HIST_KMAX), NULL;
		hk = (uint8_t)raw[1]->num;
		f->nargs = 1;
		if (hk && !(f = hist_k(p, &ft, raw)))
			return NULL;
		if (hk)
			kind = BTK_HISTK;
	}
	{
		struct sbt *b = p->s->bt;

		if ((b->aggkind[n->idx] != BTK_PLAIN && b->aggkind[n->idx] != kind) ||
		    (b->aggkind[n->idx] == BTK_HISTK && b->histk[n->idx] != hk))
			return vxt_btp_fail(p, ft.line, ft.col, "ERROR: Type mismatch for @%s: "
					    "trying to assign value of type '%s' when map "
					    "already contains a value of another type", at.str,
					    ft.str), NULL;
		b->aggkind[n->idx] = kind;
		b->histk[n->idx] = hk;
	}
	n->a = f;
	return f->str ? n : NULL;
}
