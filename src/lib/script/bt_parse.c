/* bt_parse.c - bpftrace's expressions, to the D parser's tree
 *
 * C's operators with C's precedence; $locals are this-> variables (one
 * per tuple element for a tuple), $N the program's arguments, tuples calls
 * of BT_TUPLE; maps and calls are bt_calls.c's. Names a recording cannot
 * give (kstack, ksym) are empty strings, with a warning at load.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/expr.h"

struct script_node **vxt_btp_copy_args(struct btparser *p, struct script_node *const *v, unsigned n)
{
	struct script_node **out = vxt_script_alloc(p->s, (n ? n : 1) * sizeof(*out));

	if (!out) {
		p->rc = -ENOMEM;
		return NULL;
	}
	memcpy(out, v, n * sizeof(*out));
	return out;
}

static struct script_node *local_elem(struct btparser *p, const char *name, unsigned i,
				unsigned line, unsigned col)
{
	char buf[80];
	struct script_node *n = vxt_btp_node(p, SN_THIS, line, col);

	if (!n)
		return NULL;
	snprintf(buf, sizeof(buf), "%s.%u", name, i);
	n->str = vxt_btp_dup(p, buf);
	n->idx = vxt_btp_var(p, SN_THIS, buf, line, col);
	return n->str && n->idx >= 0 ? n : NULL;
}

int vxt_btp_keys(struct btparser *p, struct script_node *const *in, unsigned nin, struct script_node **v,
		 unsigned *n)
{
	*n = 0;
	for (unsigned i = 0; i < nin; i++) {
		struct script_node *k = in[i];
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

/* $N: the program's Nth argument (vxreplay FILE --script P -- ARGS), an
 * integer when it reads as one, else a string; 0 when not given, as
 * bpftrace reads a missing one. */
static struct script_node *positional(struct btparser *p, const struct stoken *at)
{
	char *end;
	unsigned long n = strtoul(at->str + 1, &end, 10);
	const char *v = n >= 1 && n <= p->s->nmargs ? p->s->margs[n - 1] : NULL;
	struct script_node *r;

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

static struct script_node *primary(struct btparser *p)
{
	struct stoken *t = vxt_btp_peek(p);
	struct stoken at = *t;
	struct script_node *n;

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
		struct script_node *v[S_MAX_ARGS];
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
			if (!(v[nv++] = vxt_btp_assign(p)))
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
		n->args = vxt_btp_copy_args(p, v, nv);
		n->nargs = nv;
		return n->args ? n : NULL;
	}
	case ST_AGG:
		vxt_btp_take(p);
		return vxt_btp_map_ref(p, &at);
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
		return vxt_btp_call(p, &at);
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

static struct script_node *postfix(struct btparser *p)
{
	struct script_node *n = primary(p), *m;
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

/* The shared expression levels (expr.c) over this parser, with C's
 * binding strengths (bpftrace's lexer makes no ^^). */
static struct stoken *x_peek(void *p)
{
	return vxt_btp_peek(p);
}

static void x_take(void *p)
{
	vxt_btp_take(p);
}

static int x_expect(void *p, enum stok type)
{
	return vxt_btp_expect(p, type);
}

static struct script_node *x_operand(void *p)
{
	return postfix(p);
}

static struct script_node *x_arg(void *p)
{
	return vxt_btp_assign(p);
}

static int x_fail(void *p, unsigned line, unsigned col, const char *msg)
{
	return vxt_btp_fail(p, line, col, "ERROR: %s", msg);
}

static struct xparse xparse(struct btparser *p)
{
	return (struct xparse){
		.p = p, .s = p->s, .rc = &p->rc, .depth = &p->depth, .parens = &p->parens,
		.in_pred = &p->in_pred, .tok = &p->tok, .peek = x_peek, .take = x_take,
		.expect = x_expect, .operand = x_operand, .arg = x_arg,
		.fail = x_fail,
	};
}

static struct script_node *unary(struct btparser *p)
{
	struct xparse x = xparse(p);

	return vxt_x_unary(&x);
}

struct script_node *vxt_btp_assign(struct btparser *p)
{
	struct xparse x = xparse(p);

	return vxt_x_assign(&x);
}

/* Arguments up to @close, each an expression (or a bare @map). */
int vxt_btp_args(struct btparser *p, enum stok close, struct script_node **v, unsigned *n)
{
	struct xparse x = xparse(p);

	return vxt_x_args(&x, close, v, n);
}

struct script_node *vxt_btp_unary(struct btparser *p)
{
	return unary(p);
}

struct script_node *vxt_btp_expr(struct btparser *p)
{
	return vxt_btp_assign(p);
}
