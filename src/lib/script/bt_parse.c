/* bt_parse.c - bpftrace's expressions, to the D parser's tree
 * Over 700 lines: one recursive-descent parser of bpftrace's grammar; its lexer and token helpers are still to share the D front-end's.
 *
 * C's operators with C's precedence; $locals are this-> variables (one
 * per tuple element for a tuple), maps are aggregations when assigned an
 * aggregating function (count sum avg min max hist lhist stats), else
 * associative arrays (with keys) or globals (without), named with their
 * '@'. Calls are lowered to D's functions or to FN_BT actions (bt_run.c).
 * Names a recording cannot give (kstack, ksym) are empty strings, with a
 * warning at load.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"

/* ---- tokens and names ---- */

static struct stoken *peek_mode(struct btparser *p, bool probe)
{
	if (!p->have) {
		if (vxt_btlex_next(&p->lx, &p->tok, probe) < 0) {
			p->rc = -ENOMEM;
			p->tok.type = ST_ERROR;
			snprintf(p->tok.msg, sizeof(p->tok.msg), "out of memory");
		}
		p->have = true;
	}
	return &p->tok;
}

struct stoken *vxt_btp_peek(struct btparser *p)
{
	return peek_mode(p, false);
}

struct stoken *vxt_btp_peek_probe(struct btparser *p)
{
	return peek_mode(p, true);
}

void vxt_btp_take(struct btparser *p)
{
	p->have = false;
}

int vxt_btp_fail(struct btparser *p, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[VXT_ERRBUF_SIZE - 200];
	va_list ap;

	if (p->err[0])		/* the first error stands */
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return vxt_script_fail(p->s, p->err, line, col, "%s", msg);
}

int vxt_btp_syntax(struct btparser *p, const struct stoken *t)
{
	if (t->type == ST_ERROR)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: %s", t->msg);
	if (t->type == ST_END)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected "
				    "end of file");
	if (t->type == ST_STR)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected string");
	if (t->type == ST_NUM)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected integer");
	if (t->str)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected %s%s",
				    t->type == ST_AGG ? "@" : "", t->str);
	return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected %s",
			    vxt_stok_name(t->type));
}

int vxt_btp_expect(struct btparser *p, enum stok type)
{
	struct stoken *t = vxt_btp_peek(p);

	if (t->type != type) {
		if (t->type == ST_ERROR || t->type == ST_END)
			return vxt_btp_syntax(p, t);
		return vxt_btp_fail(p, t->line, t->col,
				    "ERROR: syntax error, unexpected %s%s, expecting %s",
				    t->type == ST_AGG ? "@" : "",
				    t->str && t->type != ST_STR ? t->str : vxt_stok_name(t->type),
				    vxt_stok_name(type));
	}
	vxt_btp_take(p);
	return 0;
}

struct snode *vxt_btp_node(struct btparser *p, enum snk kind, unsigned line, unsigned col)
{
	struct snode *n = vxt_script_alloc(p->s, sizeof(*n));

	if (!n) {
		p->rc = -ENOMEM;
		return NULL;
	}
	n->kind = (uint8_t)kind;
	n->line = line;
	n->col = col;
	return n;
}

char *vxt_btp_dup(struct btparser *p, const char *str)
{
	size_t n = strlen(str) + 1;
	char *d = vxt_script_alloc(p->s, n);

	if (!d) {
		p->rc = -ENOMEM;
		return NULL;
	}
	memcpy(d, str, n);
	return d;
}

int vxt_btp_var(struct btparser *p, uint8_t scope, const char *name, unsigned line,
		unsigned col)
{
	struct vxt_script *s = p->s;

	for (unsigned i = 0; i < s->nvars; i++)
		if (s->vars[i].scope == scope && !strcmp(s->vars[i].name, name))
			return (int)i;
	if (strlen(name) >= sizeof(s->vars[0].name)) {
		vxt_btp_fail(p, line, col, "ERROR: identifier '%.40s...' is too long", name);
		return -1;
	}
	if (s->nvars == s->capvars) {
		unsigned cap = s->capvars ? 2 * s->capvars : 32;
		struct svar *v = realloc(s->vars, cap * sizeof(*v));

		if (!v) {
			p->rc = -ENOMEM;
			return -1;
		}
		s->vars = v;
		s->capvars = cap;
	}
	memset(&s->vars[s->nvars], 0, sizeof(s->vars[0]));
	snprintf(s->vars[s->nvars].name, sizeof(s->vars[0].name), "%s", name);
	s->vars[s->nvars].scope = scope;
	s->vars[s->nvars].line = line;
	s->vars[s->nvars].col = col;
	return (int)s->nvars++;
}

static int agg_slot(struct btparser *p, const char *name, unsigned line, unsigned col)
{
	struct vxt_script *s = p->s;

	for (unsigned i = 0; i < s->naggs; i++)
		if (!strcmp(s->aggs[i].name, name))
			return (int)i;
	if (s->naggs == BT_MAX_MAPS)
		return vxt_btp_fail(p, line, col, "ERROR: too many maps (at most %d)",
				    BT_MAX_MAPS), -1;
	if (s->naggs == s->capaggs) {
		unsigned cap = s->capaggs ? 2 * s->capaggs : 8;
		struct sagg *a = realloc(s->aggs, cap * sizeof(*a));

		if (!a) {
			p->rc = -ENOMEM;
			return -1;
		}
		s->aggs = a;
		s->capaggs = cap;
	}
	memset(&s->aggs[s->naggs], 0, sizeof(s->aggs[0]));
	snprintf(s->aggs[s->naggs].name, sizeof(s->aggs[0].name), "%s", name);
	s->aggs[s->naggs].fn = -1;
	s->aggs[s->naggs].line = line;
	s->aggs[s->naggs].col = col;
	return (int)s->naggs++;
}

struct btmap *vxt_btp_map(struct btparser *p, const char *name)
{
	for (unsigned i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].name + 1, name))
			return &p->maps[i];
	return NULL;
}

struct btlocal *vxt_btp_local(struct btparser *p, const char *name, bool make)
{
	for (unsigned i = 0; i < p->nlocals; i++)
		if (!strcmp(p->locals[i].name, name))
			return &p->locals[i];
	if (!make || p->nlocals == BT_MAX_LOCALS)
		return NULL;
	snprintf(p->locals[p->nlocals].name, sizeof(p->locals[0].name), "%s", name);
	p->locals[p->nlocals].arity = 0;
	p->locals[p->nlocals].set = false;
	return &p->locals[p->nlocals++];
}

/* ---- which maps aggregate: one pass over the tokens ---- */

static bool is_aggfn(const char *w)
{
	static const char *const fns[] = {
		"count", "sum", "avg", "min", "max", "hist", "lhist", "stats",
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i], w))
			return true;
	return false;
}

int vxt_btp_scan_maps(struct btparser *p, const char *text, size_t len)
{
	struct slexer lx;
	struct stoken t[4];
	int rc = 0;
	enum stok prev = ST_END;

	vxt_btlex_init(&lx, text, len);
	memset(t, 0, sizeof(t));
	if (vxt_btlex_next(&lx, &t[0], false) < 0)
		rc = -ENOMEM;
	while (rc == 0 && t[0].type != ST_END && t[0].type != ST_ERROR) {
		if (t[0].type == ST_AGG) {
			struct btmap *m = vxt_btp_map(p, t[0].str);
			bool keyed = false, pre = prev == ST_INC || prev == ST_DEC;
			int depth = 0;

			if (!m) {
				if (p->nmaps == BT_MAX_MAPS)
					break;
				m = &p->maps[p->nmaps++];
				snprintf(m->name, sizeof(m->name), "@%s", t[0].str);
				m->kind = BM_UNKNOWN;
			}
			if (vxt_btlex_next(&lx, &t[0], false) < 0) {
				rc = -ENOMEM;
				break;
			}
			if (t[0].type == ST_LBRACK) {
				keyed = true;
				do {
					if (t[0].type == ST_LBRACK)
						depth++;
					if (t[0].type == ST_RBRACK)
						depth--;
					if (vxt_btlex_next(&lx, &t[0], false) < 0)
						rc = -ENOMEM;
				} while (rc == 0 && depth > 0 && t[0].type != ST_END &&
					 t[0].type != ST_ERROR);
			}
			if (keyed)
				m->keyed = true;
			if (pre || t[0].type == ST_ASSIGN || t[0].type == ST_ADDEQ ||
			    t[0].type == ST_SUBEQ || t[0].type == ST_MULEQ || t[0].type == ST_DIVEQ ||
			    t[0].type == ST_INC || t[0].type == ST_DEC)
				m->assigned = true;
			prev = t[0].type;
			if (rc == 0 && t[0].type == ST_ASSIGN) {
				if (vxt_btlex_next(&lx, &t[1], false) < 0 ||
				    vxt_btlex_next(&lx, &t[2], false) < 0) {
					rc = -ENOMEM;
					break;
				}
				if (t[1].type == ST_IDENT && is_aggfn(t[1].str) &&
				    t[2].type == ST_LPAREN)
					m->kind = BM_AGG;
				t[0] = t[2];
				prev = t[1].type;
			}
			continue;
		}
		prev = t[0].type;
		if (vxt_btlex_next(&lx, &t[0], false) < 0)
			rc = -ENOMEM;
	}
	for (unsigned i = 0; i < p->nmaps; i++)
		if (p->maps[i].kind == BM_UNKNOWN)
			p->maps[i].kind = p->maps[i].keyed ? BM_ARRAY : BM_SCALAR;
	vxt_slex_free(&lx);
	return rc;
}

/* ---- expressions ---- */

static struct snode *assign_expr(struct btparser *p);

/* Arguments up to @close, each an expression (or a bare @map). */
static int arg_list(struct btparser *p, enum stok close, struct snode **v, unsigned *n)
{
	struct stoken *t;

	*n = 0;
	p->parens++;
	if (vxt_btp_peek(p)->type != close) {
		for (;;) {
			struct snode *a;

			t = vxt_btp_peek(p);
			if (*n == S_MAX_ARGS)
				return vxt_btp_fail(p, t->line, t->col, "ERROR: too many arguments "
						    "(at most %d)", S_MAX_ARGS);
			a = assign_expr(p);
			if (!a)
				return -EINVAL;
			v[(*n)++] = a;
			if (vxt_btp_peek(p)->type != ST_COMMA)
				break;
			vxt_btp_take(p);
		}
	}
	if (vxt_btp_expect(p, close) < 0)
		return -EINVAL;
	p->parens--;
	return 0;
}

static struct snode **copy_args(struct btparser *p, struct snode *const *v, unsigned n)
{
	struct snode **out = vxt_script_alloc(p->s, (n ? n : 1) * sizeof(*out));

	if (!out) {
		p->rc = -ENOMEM;
		return NULL;
	}
	memcpy(out, v, n * sizeof(*out));
	return out;
}

static struct snode *local_elem(struct btparser *p, const char *name, unsigned i,
				unsigned line, unsigned col)
{
	char buf[80];
	struct snode *n = vxt_btp_node(p, SN_THIS, line, col);

	if (!n)
		return NULL;
	snprintf(buf, sizeof(buf), "%s.%u", name, i);
	n->str = vxt_btp_dup(p, buf);
	n->idx = vxt_btp_var(p, SN_THIS, buf, line, col);
	return n->str && n->idx >= 0 ? n : NULL;
}

int vxt_btp_keys(struct btparser *p, struct snode *const *in, unsigned nin, struct snode **v,
		 unsigned *n)
{
	*n = 0;
	for (unsigned i = 0; i < nin; i++) {
		struct snode *k = in[i];
		const struct btlocal *l = k->kind == SN_THIS && k->str[0] == '$' ?
					  vxt_btp_local(p, k->str, false) : NULL;
		unsigned m = k->kind == SN_CALL && k->idx == BT_TUPLE ? k->nargs :
			     l && l->arity ? l->arity : 1;

		if (*n + m > S_MAX_KEYS)
			return vxt_btp_fail(p, k->line, k->col, "ERROR: a map takes at most %d "
					    "keys", S_MAX_KEYS);
		for (unsigned j = 0; j < m; j++) {
			if (k->kind == SN_CALL && k->idx == BT_TUPLE)
				v[*n] = k->args[j];
			else if (l && l->arity)
				v[*n] = local_elem(p, l->name, j, k->line, k->col);
			else
				v[*n] = k;
			if (!v[(*n)++])
				return -EINVAL;
		}
	}
	return 0;
}

/* @name or @name[keys] read or written as a variable. */
static struct snode *map_ref(struct btparser *p, const struct stoken *at)
{
	const struct btmap *m = vxt_btp_map(p, at->str);
	struct snode *n, *v[S_MAX_ARGS];
	unsigned nv = 0;

	if (!m || !m->assigned)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: Undefined map: @%s", at->str),
		       NULL;
	if (m && m->kind == BM_AGG)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: @%s is an aggregation: it "
				    "is printed, not read (print(@%s))", at->str, at->str), NULL;
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		struct snode *raw[S_MAX_ARGS];
		unsigned nraw;

		vxt_btp_take(p);
		if (arg_list(p, ST_RBRACK, raw, &nraw) < 0 || vxt_btp_keys(p, raw, nraw, v, &nv) < 0)
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
	if (nv && !(n->args = copy_args(p, v, nv)))
		return NULL;
	n->nargs = nv;
	return n;
}

static struct snode *call_node(struct btparser *p, int fn, const struct stoken *at,
			       struct snode *const *args, unsigned nargs)
{
	struct snode *n = vxt_btp_node(p, SN_CALL, at->line, at->col);

	if (!n)
		return NULL;
	n->idx = fn;
	n->str = vxt_btp_dup(p, fn == FN_BT ? at->str : vxt_script_func_name(fn));
	n->args = copy_args(p, args, nargs);
	n->nargs = nargs;
	return n->str && n->args ? n : NULL;
}

/* A map argument (print, clear, zero, delete, has_key): its reference, an
 * SN_AGG for an aggregation. */
static struct snode *map_arg(struct btparser *p, const char *fname, bool keys)
{
	struct stoken *t = vxt_btp_peek(p), at;
	const struct btmap *m;

	if (t->type != ST_AGG)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: %s() expects a map argument",
				    fname), NULL;
	at = *t;
	m = vxt_btp_map(p, at.str);
	if (!m || !m->assigned)
		return vxt_btp_fail(p, at.line, at.col, "ERROR: Undefined map: @%s", at.str), NULL;
	vxt_btp_take(p);
	if (m && m->kind == BM_AGG) {
		struct snode *n = vxt_btp_node(p, SN_AGG, at.line, at.col);

		if (!n)
			return NULL;
		n->str = vxt_btp_dup(p, at.str);
		n->idx = agg_slot(p, at.str, at.line, at.col);
		return n->str && n->idx >= 0 ? n : NULL;
	}
	if (!keys || !m || m->kind != BM_ARRAY) {	/* the whole map: its variable */
		struct snode *n = vxt_btp_node(p, SN_NUM, at.line, at.col);
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
	return map_ref(p, &at);
}

/* delete(@m, k...), delete(@m[k]), has_key(@m, k...): the element. */
static struct snode *elem_arg(struct btparser *p, const char *fname)
{
	struct stoken *t = vxt_btp_peek(p), at;
	struct snode *raw[S_MAX_ARGS], *v[S_MAX_ARGS], *n;
	unsigned nraw = 0, nv;
	const struct btmap *m;

	if (t->type != ST_AGG)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: %s() expects a map argument",
				    fname), NULL;
	at = *t;
	m = vxt_btp_map(p, at.str);
	if (!m || !m->assigned)
		return vxt_btp_fail(p, at.line, at.col, "ERROR: Undefined map: @%s", at.str), NULL;
	if (m->kind != BM_ARRAY)
		return vxt_btp_fail(p, at.line, at.col, "ERROR: %s() expects a map with keys: "
				    "@%s is %s", fname, at.str,
				    m && m->kind == BM_AGG ? "an aggregation" : "a value"), NULL;
	vxt_btp_take(p);
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		vxt_btp_take(p);
		if (arg_list(p, ST_RBRACK, raw, &nraw) < 0)
			return NULL;
	} else {
		if (vxt_btp_expect(p, ST_COMMA) < 0)
			return NULL;
		p->parens++;
		for (;;) {
			if (nraw == S_MAX_ARGS)
				return vxt_btp_fail(p, at.line, at.col, "ERROR: too many keys"), NULL;
			if (!(raw[nraw++] = assign_expr(p)))
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
	n->args = copy_args(p, v, nv);
	n->nargs = nv;
	return n->str && n->idx >= 0 && n->args ? n : NULL;
}

static struct snode *call(struct btparser *p, const struct stoken *at)
{
	const char *f = at->str;
	struct snode *v[S_MAX_ARGS], *a, *n;
	unsigned nv = 0;
	static const struct { const char *name; int fn; } same[] = {
		{ "printf", FN_PRINTF }, { "speculation", FN_SPECULATION },
		{ "speculate", FN_SPECULATE }, { "commit", FN_COMMIT }, { "discard", FN_DISCARD },
	};

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(f, same[i].name)) {
			if (arg_list(p, ST_RPAREN, v, &nv) < 0)
				return NULL;
			return call_node(p, same[i].fn, at, v, nv);
		}
	if (!strcmp(f, "exit")) {
		if (arg_list(p, ST_RPAREN, v, &nv) < 0)
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
			a = assign_expr(p);
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
			if (!(v[nv++] = assign_expr(p)))
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
		if (arg_list(p, ST_RPAREN, v, &nv) < 0)
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
		if (arg_list(p, ST_RPAREN, v, &nv) < 0)
			return NULL;
		if (f[0] == 's')	/* strings are strings already */
			return nv == 1 ? v[0] : (vxt_btp_fail(p, at->line, at->col,
					 "ERROR: str() requires one argument"), NULL);
		return vxt_btp_builtin(p, at);
	}
	if (is_aggfn(f))
		return vxt_btp_fail(p, at->line, at->col, "ERROR: %s() should be directly "
				    "assigned to a map", f), NULL;
	return vxt_btp_fail(p, at->line, at->col, "ERROR: Unknown function: '%s'", f), NULL;
}

/* $N: the program's Nth argument (vxreplay FILE --script P -- ARGS), an
 * integer when it reads as one, else a string; 0 when not given, as
 * bpftrace reads a missing one. */
static struct snode *positional(struct btparser *p, const struct stoken *at)
{
	char *end;
	unsigned long n = strtoul(at->str + 1, &end, 10);
	const char *v = n >= 1 && n <= p->s->nmargs ? p->s->margs[n - 1] : NULL;
	struct snode *r;

	if (*end)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: syntax error, unexpected %s",
				    at->str), NULL;
	if (n == 0)
		v = p->s->name;
	if (v && *v) {
		long long i = strtoll(v, &end, 0);

		if (!*end) {
			r = vxt_btp_node(p, SN_NUM, at->line, at->col);
			if (r)
				r->num = i;
			return r;
		}
		r = vxt_btp_node(p, SN_STR, at->line, at->col);
		if (r && !(r->str = vxt_btp_dup(p, v)))
			return NULL;
		return r;
	}
	return vxt_btp_node(p, SN_NUM, at->line, at->col);	/* 0 */
}

static struct snode *primary(struct btparser *p)
{
	struct stoken *t = vxt_btp_peek(p);
	struct stoken at = *t;
	struct snode *n;

	switch (t->type) {
	case ST_NUM:
		n = vxt_btp_node(p, SN_NUM, t->line, t->col);
		if (n)
			n->num = t->num;
		vxt_btp_take(p);
		return n;
	case ST_STR:
		n = vxt_btp_node(p, SN_STR, t->line, t->col);
		if (n && !(n->str = vxt_btp_dup(p, t->str)))
			return NULL;
		vxt_btp_take(p);
		return n;
	case ST_LPAREN: {	/* (e) or a tuple (a, b, ...) */
		struct snode *v[S_MAX_ARGS];
		unsigned nv = 0;

		vxt_btp_take(p);
		p->parens++;
		t = vxt_btp_peek(p);
		if (t->type == ST_IDENT && !strcmp(t->str, "struct"))	/* a cast */
			return vxt_btp_cast(p, &at);
		for (;;) {
			if (nv == S_MAX_KEYS)
				return vxt_btp_fail(p, at.line, at.col, "ERROR: a tuple has at "
						    "most %d elements here", S_MAX_KEYS), NULL;
			if (!(v[nv++] = assign_expr(p)))
				return NULL;
			if (vxt_btp_peek(p)->type != ST_COMMA)
				break;
			vxt_btp_take(p);
		}
		if (vxt_btp_expect(p, ST_RPAREN) < 0)
			return NULL;
		p->parens--;
		if (nv == 1)
			return v[0];
		n = vxt_btp_node(p, SN_CALL, at.line, at.col);
		if (!n)
			return NULL;
		n->idx = BT_TUPLE;
		n->str = "tuple";
		n->args = copy_args(p, v, nv);
		n->nargs = nv;
		return n->args ? n : NULL;
	}
	case ST_AGG:
		vxt_btp_take(p);
		return map_ref(p, &at);
	case ST_IDENT:
		break;
	default:
		vxt_btp_syntax(p, t);
		return NULL;
	}
	vxt_btp_take(p);
	if (at.str[0] == '$' && isdigit((unsigned char)at.str[1]))
		return positional(p, &at);
	if (at.str[0] == '$') {
		struct btlocal *l = vxt_btp_local(p, at.str, false);

		if (!l || !l->set) {
			if (vxt_btp_peek(p)->type != ST_ASSIGN)
				return vxt_btp_fail(p, at.line, at.col, "ERROR: Undefined or "
						    "undeclared variable: %s", at.str), NULL;
		}
		n = vxt_btp_node(p, SN_THIS, at.line, at.col);
		if (!n)
			return NULL;
		n->str = vxt_btp_dup(p, at.str);
		n->idx = vxt_btp_var(p, SN_THIS, at.str, at.line, at.col);
		return n->str && n->idx >= 0 ? n : NULL;
	}
	if (vxt_btp_peek(p)->type == ST_LPAREN) {
		vxt_btp_take(p);
		return call(p, &at);
	}
	n = vxt_btp_builtin(p, &at);
	if (n || p->rc < 0 || p->err[0])
		return n;
	if (!strcmp(at.str, "true") || !strcmp(at.str, "false")) {
		n = vxt_btp_node(p, SN_NUM, at.line, at.col);
		if (n)
			n->num = at.str[0] == 't';
		return n;
	}
	return vxt_btp_fail(p, at.line, at.col, "ERROR: Unknown identifier: '%s'", at.str), NULL;
}

static struct snode *postfix(struct btparser *p)
{
	struct snode *n = primary(p), *m;
	struct stoken *t;

	if (!n || !(n = vxt_btp_members(p, n)))	/* ->member, .member */
		return NULL;
	t = vxt_btp_peek(p);
	if (t->type != ST_INC && t->type != ST_DEC)
		return n;
	m = vxt_btp_node(p, SN_INCDEC, t->line, t->col);
	if (!m)
		return NULL;
	m->op = t->type;
	m->num = 1;
	m->a = n;
	vxt_btp_take(p);
	return m;
}

static struct snode *unary(struct btparser *p)
{
	struct stoken *t = vxt_btp_peek(p);
	struct stoken at = *t;
	struct snode *n, *a;

	if (t->type != ST_NOT && t->type != ST_MINUS && t->type != ST_TILDE &&
	    t->type != ST_PLUS && t->type != ST_INC && t->type != ST_DEC)
		return postfix(p);
	if (++p->depth > S_MAX_DEPTH)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: expression nested too deeply"),
		       NULL;
	vxt_btp_take(p);
	a = unary(p);
	p->depth--;
	if (!a)
		return NULL;
	if (at.type == ST_PLUS)
		return a;
	n = vxt_btp_node(p, at.type == ST_INC || at.type == ST_DEC ? SN_INCDEC : SN_UNARY,
			 at.line, at.col);
	if (!n)
		return NULL;
	n->op = at.type;
	n->a = a;
	return n;
}

/* C's binding strengths; a '/' outside parentheses ends a predicate. */
static int prec(const struct btparser *p, enum stok t)
{
	switch (t) {
	case ST_OROR: return 1;
	case ST_ANDAND: return 3;
	case ST_OR: return 4;
	case ST_XOR: return 5;
	case ST_AND: return 6;
	case ST_EQ: case ST_NE: return 7;
	case ST_LT: case ST_LE: case ST_GT: case ST_GE: return 8;
	case ST_SHL: case ST_SHR: return 9;
	case ST_PLUS: case ST_MINUS: return 10;
	case ST_SLASH: return p->in_pred && !p->parens ? 0 : 11;
	case ST_STAR: case ST_PERCENT: return 11;
	default: return 0;
	}
}

static struct snode *binary(struct btparser *p, int min)
{
	struct snode *l = unary(p);

	if (++p->depth > S_MAX_DEPTH)
		return vxt_btp_fail(p, p->tok.line, p->tok.col, "ERROR: expression nested too "
				    "deeply"), NULL;
	while (l) {
		struct stoken *t = vxt_btp_peek(p);
		struct stoken at = *t;
		int pr = prec(p, t->type);
		struct snode *r, *n;

		if (!pr || pr < min)
			break;
		vxt_btp_take(p);
		r = binary(p, pr + 1);
		if (!r)
			return NULL;
		n = vxt_btp_node(p, at.type == ST_ANDAND ? SN_AND : at.type == ST_OROR ? SN_OR :
				 SN_BINARY, at.line, at.col);
		if (!n)
			return NULL;
		n->op = at.type;
		n->a = l;
		n->b = r;
		l = n;
	}
	p->depth--;
	return l;
}

static struct snode *cond_expr(struct btparser *p)
{
	struct snode *c = binary(p, 1), *n;
	struct stoken at;

	if (!c || vxt_btp_peek(p)->type != ST_QUEST)
		return c;
	at = *vxt_btp_peek(p);
	vxt_btp_take(p);
	n = vxt_btp_node(p, SN_COND, at.line, at.col);
	if (!n)
		return NULL;
	n->a = c;
	p->parens++;
	n->b = assign_expr(p);
	p->parens--;
	if (!n->b || vxt_btp_expect(p, ST_COLON) < 0)
		return NULL;
	n->c = cond_expr(p);
	return n->c ? n : NULL;
}

static struct snode *assign_expr(struct btparser *p)
{
	struct snode *l = cond_expr(p), *n;
	struct stoken *t;
	struct stoken at;

	if (!l)
		return NULL;
	t = vxt_btp_peek(p);
	if (t->type != ST_ASSIGN && t->type != ST_ADDEQ && t->type != ST_SUBEQ &&
	    t->type != ST_MULEQ && t->type != ST_DIVEQ)
		return l;
	at = *t;
	vxt_btp_take(p);
	n = vxt_btp_node(p, SN_ASSIGN, at.line, at.col);
	if (!n)
		return NULL;
	n->op = at.type;
	n->a = l;
	n->b = assign_expr(p);
	return n->b ? n : NULL;
}

struct snode *vxt_btp_unary(struct btparser *p)
{
	return unary(p);
}

struct snode *vxt_btp_expr(struct btparser *p)
{
	return assign_expr(p);
}

/* @name[keys] = f(args), f aggregating: an SN_AGGSET. */
struct snode *vxt_btp_agg_stmt(struct btparser *p)
{
	static const struct { const char *name; int fn; uint8_t kind; } fns[] = {
		{ "count", FN_COUNT, BTK_PLAIN }, { "sum", FN_SUM, BTK_PLAIN },
		{ "avg", FN_AVG, BTK_PLAIN }, { "min", FN_MIN, BTK_PLAIN },
		{ "max", FN_MAX, BTK_PLAIN }, { "hist", FN_QUANTIZE, BTK_HIST },
		{ "lhist", FN_LQUANTIZE, BTK_LHIST }, { "stats", FN_AVG, BTK_STATS },
	};
	struct stoken at = *vxt_btp_peek(p), ft;
	struct snode *n = vxt_btp_node(p, SN_AGGSET, at.line, at.col), *f;
	struct snode *raw[S_MAX_ARGS], *v[S_MAX_ARGS];
	unsigned nraw = 0, nv = 0;
	int k = -1;

	if (!n)
		return NULL;
	n->str = vxt_btp_dup(p, at.str);
	n->idx = agg_slot(p, at.str, at.line, at.col);
	vxt_btp_take(p);
	if (n->idx < 0 || !n->str)
		return NULL;
	if (vxt_btp_peek(p)->type == ST_LBRACK) {
		vxt_btp_take(p);
		if (arg_list(p, ST_RBRACK, raw, &nraw) < 0 || vxt_btp_keys(p, raw, nraw, v, &nv) < 0)
			return NULL;
	}
	n->keys = copy_args(p, v, nv);
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
	if (vxt_btp_expect(p, ST_LPAREN) < 0 || arg_list(p, ST_RPAREN, raw, &nraw) < 0)
		return NULL;
	f = call_node(p, fns[k].fn, &ft, raw, nraw);
	if (!f)
		return NULL;
	f->str = vxt_btp_dup(p, ft.str);	/* messages name bpftrace's function */
	if (fns[k].fn == FN_LQUANTIZE && nraw != 4)
		return vxt_btp_fail(p, ft.line, ft.col, "ERROR: lhist() requires 4 arguments "
				    "(%u provided)", nraw), NULL;
	if (fns[k].fn == FN_QUANTIZE && nraw == 2) {	/* hist(v, k): k = 0 only */
		if (raw[1]->kind != SN_NUM || raw[1]->num != 0)
			return vxt_btp_fail(p, raw[1]->line, raw[1]->col, "ERROR: hist(): only "
					    "k = 0 (one bucket per power of 2) is supported"), NULL;
		f->nargs = 1;
	}
	{
		struct sbt *b = p->s->bt;

		if (b->aggkind[n->idx] != BTK_PLAIN && b->aggkind[n->idx] != fns[k].kind)
			return vxt_btp_fail(p, ft.line, ft.col, "ERROR: Type mismatch for @%s: "
					    "trying to assign value of type '%s' when map "
					    "already contains a value of another type", at.str,
					    ft.str), NULL;
		b->aggkind[n->idx] = fns[k].kind;
	}
	n->a = f;
	return f->str ? n : NULL;
}
