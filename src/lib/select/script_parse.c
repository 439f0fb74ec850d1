/* script_parse.c - from tokens to clauses of expression trees
 *
 * Recursive descent over D's grammar, restricted to what block-I/O scripts
 * need: probe lists, a /predicate/, statements separated by ';' (C's
 * expressions with D's precedence, assignments, ++ and --, calls,
 * @aggregations) and `#pragma D option` lines. Names are bound here to
 * fields, variables and aggregations; script_check.c checks them. A '/'
 * outside parentheses ends a predicate, as in D. This file is the token,
 * name and expression level; probes, predicates, statements and pragmas are
 * script_clause.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "script/expr.h"
#include "script/tok.h"
#include "select/script_parser.h"
#include "vxtrace/util.h"


void *vxt_script_alloc(struct vxt_script *s, size_t size)
{
	void *p;

	if (vxt_grow(&s->mem, &s->capmem, s->nmem + 1, sizeof(*s->mem)) < 0)
		return NULL;
	p = calloc(1, size ? size : 1);
	if (p)
		s->mem[s->nmem++] = p;
	return p;
}

static char *sdup(struct vxt_script *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = vxt_script_alloc(s, n);

	if (p)
		memcpy(p, str, n);
	return p;
}

int vxt_script_fail(const struct vxt_script *s, char *err, unsigned line, unsigned col,
		    const char *fmt, ...)
{
	char msg[VXT_ERRBUF_SIZE - 200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)	/* one printable line */
		if (*p == '\n' || *p == '\t' || !isprint((unsigned char)*p))
			*p = ' ';
	if (!line)	/* a -x setting: no position */
		snprintf(err, VXT_ERRBUF_SIZE, "%.180s: %s", s->file, msg);
	else
		snprintf(err, VXT_ERRBUF_SIZE, "%.160s:%u:%u: %s", s->file, line, col, msg);
	return -EINVAL;
}

/* ---- tokens ---- */

/* The next token, by @next (a lexer's entry), read when needed. */
static struct stoken *peek_by(struct sparser *p,
			      int (*next)(struct slexer *, struct stoken *))
{
	if (!p->have) {
		if (next(&p->lx, &p->tok) < 0) {
			p->rc = -ENOMEM;
			p->tok.type = ST_ERROR;
			snprintf(p->tok.msg, sizeof(p->tok.msg), "out of memory");
		}
		p->have = true;
	}
	return &p->tok;
}

struct stoken *vxt_sp_peek(struct sparser *p)
{
	return peek_by(p, vxt_slex_next);
}

struct stoken *vxt_sp_peek_probe(struct sparser *p)
{
	return peek_by(p, vxt_slex_probe);
}

void vxt_sp_take(struct sparser *p)
{
	p->have = false;
}

int vxt_sp_syntax(struct sparser *p, const struct stoken *t)
{
	if (t->type == ST_ERROR)
		return vxt_script_fail(p->s, p->err, t->line, t->col, "%s", t->msg);
	if (t->type == ST_END)
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "syntax error: unexpected end of file");
	if (t->str && t->type != ST_STR)
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "syntax error near \"%s%s\"", t->type == ST_AGG ? "@" : "",
				       t->str);
	if (t->type == ST_NUM)
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "syntax error near \"%lld\"", (long long)t->num);
	if (t->type == ST_STR)
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "syntax error near string constant");
	return vxt_script_fail(p->s, p->err, t->line, t->col, "syntax error near \"%s\"",
			       vxt_stok_name(t->type));
}

int vxt_sp_expect(struct sparser *p, enum stok type)
{
	struct stoken *t = vxt_sp_peek(p);

	if (t->type != type) {
		if (t->type == ST_ERROR || t->type == ST_END)
			return vxt_sp_syntax(p, t);
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "syntax error near \"%s\": expected \"%s\"",
				       t->str && t->type != ST_STR ? t->str : vxt_stok_name(t->type),
				       vxt_stok_name(type));
	}
	vxt_sp_take(p);
	return 0;
}

/* ---- names ---- */

/* A name's slot (slots.c), or -1 with the error said (p->rc on no memory). */
static int var_slot(struct sparser *p, uint8_t scope, const char *name, unsigned line,
		    unsigned col)
{
	int v = vxt_slot_var(p->s, scope, name, line, col);

	if (v == -ENAMETOOLONG)
		vxt_script_fail(p->s, p->err, line, col, "identifier '%.40s...' is too long", name);
	else if (v < 0)
		p->rc = v;
	return v < 0 ? -1 : v;
}

static int agg_slot(struct sparser *p, const char *name, unsigned line, unsigned col)
{
	int v = vxt_slot_agg(p->s, name, line, col);

	if (v == -ENAMETOOLONG)
		vxt_script_fail(p->s, p->err, line, col, "identifier '%.40s...' is too long", name);
	else if (v < 0)
		p->rc = v;
	return v < 0 ? -1 : v;
}

struct script_node *vxt_sp_node(struct sparser *p, enum snk kind, const struct stoken *at)
{
	return vxt_script_node_new(p->s, &p->rc, kind, at->line, at->col);
}

/* ---- expressions ---- */

static struct script_node *assign_expr(struct sparser *p);
static struct script_node *unary(struct sparser *p);
static struct script_node *postfix(struct sparser *p);

/* The shared expression levels (expr.c) over this parser. */
static struct stoken *x_peek(void *p)
{
	return vxt_sp_peek(p);
}

static void x_take(void *p)
{
	vxt_sp_take(p);
}

static int x_expect(void *p, enum stok type)
{
	return vxt_sp_expect(p, type);
}

static struct script_node *x_operand(void *p)
{
	return postfix(p);
}

static int x_fail(void *v, unsigned line, unsigned col, const char *msg)
{
	struct sparser *p = v;

	return vxt_script_fail(p->s, p->err, line, col, "%s", msg);
}

/* An argument: an expression, or a bare @aggregation (printa(@a),
 * clear(@a) ...). */
static struct script_node *x_arg(void *v)
{
	struct sparser *p = v;
	struct stoken *t = vxt_sp_peek(p);
	struct script_node *a;

	if (t->type != ST_AGG)
		return assign_expr(p);
	a = vxt_sp_node(p, SN_AGG, t);
	if (!a)
		return NULL;
	a->str = sdup(p->s, t->str);
	a->idx = agg_slot(p, t->str, t->line, t->col);
	if (a->idx < 0 || !a->str)
		return NULL;
	vxt_sp_take(p);
	return a;
}

static struct xparse xparse(struct sparser *p)
{
	return (struct xparse){
		.p = p, .s = p->s, .rc = &p->rc, .depth = &p->depth, .parens = &p->parens,
		.in_pred = &p->in_pred, .tok = &p->tok, .peek = x_peek, .take = x_take,
		.expect = x_expect, .operand = x_operand, .arg = x_arg, .fail = x_fail,
		.nest_right = true,
	};
}

static int arg_list(struct sparser *p, enum stok close, struct script_node ***out, unsigned *n)
{
	struct script_node *v[S_MAX_ARGS];
	struct xparse x = xparse(p);

	if (vxt_x_args(&x, close, v, n) < 0)
		return -EINVAL;
	*out = vxt_script_alloc(p->s, (*n ? *n : 1) * sizeof(**out));
	if (!*out)
		return p->rc = -ENOMEM;
	memcpy(*out, v, *n * sizeof(**out));
	return 0;
}

/* self->x[k, ...] (and this->x[...], req->x[...]): an associative array
 * named "self->x" whose first key is the owner (the pid; the I/O's arg0). */
static struct script_node *scoped_array(struct sparser *p, enum snk k, const char *name,
				  const struct stoken *at)
{
	struct script_node *n = vxt_sp_node(p, SN_ARRAY, at), *owner, **keys;
	unsigned nk;

	if (!n)
		return NULL;
	n->str = sdup(p->s, name);
	n->idx = var_slot(p, SN_ARRAY, name, at->line, at->col);
	vxt_sp_take(p);
	if (n->idx < 0 || !n->str || arg_list(p, ST_RBRACK, &keys, &nk) < 0)
		return NULL;
	if (!nk || nk + 1 > S_MAX_KEYS) {
		vxt_script_fail(p->s, p->err, at->line, at->col,
				"%s: 1 to %d keys", name, S_MAX_KEYS - 1);
		return NULL;
	}
	owner = vxt_sp_node(p, k == SN_THIS ? SN_NUM : SN_FIELD, at);
	n->args = vxt_script_alloc(p->s, (nk + 1) * sizeof(*n->args));
	if (!owner || !n->args)
		return NULL;
	if (k != SN_THIS) {
		owner->idx = k == SN_SELF ? SF_PID : SF_ARG0;
		owner->str = vxt_script_field_name(owner->idx);
		if (k == SN_REQ)
			p->s->uses_req = true;
	}
	n->args[0] = owner;
	memcpy(n->args + 1, keys, nk * sizeof(*keys));
	n->nargs = nk + 1;
	return n;
}

/* An expression up to its ')' (taken), past a '(': a '/' in it divides. */
static struct script_node *paren_expr(struct sparser *p)
{
	struct script_node *n;

	p->parens++;
	n = vxt_sp_expr(p);
	if (!n || vxt_sp_expect(p, ST_RPAREN) < 0)
		return NULL;
	p->parens--;
	return n;
}

static struct script_node *primary(struct sparser *p)
{
	struct stoken *t = vxt_sp_peek(p);
	struct stoken at = *t;
	struct script_node *n;

	switch (t->type) {
	case ST_NUM:
		n = vxt_sp_node(p, SN_NUM, t);
		if (n)
			n->num = t->num;
		vxt_sp_take(p);
		return n;
	case ST_STR:
		n = vxt_sp_node(p, SN_STR, t);
		if (n && !(n->str = sdup(p->s, t->str)))
			return NULL;
		vxt_sp_take(p);
		return n;
	case ST_LPAREN:
		vxt_sp_take(p);
		t = vxt_sp_peek(p);
		if (t->type == ST_IDENT && vxt_sd_is_type(p, t->str)) {
			/* a cast: D's values here are integers and strings, as they were */
			vxt_sd_skip_type(p);
			if (vxt_sp_expect(p, ST_RPAREN) < 0)
				return NULL;
			return unary(p);
		}
		return paren_expr(p);
	case ST_IDENT:
		break;
	case ST_AGG:	/* an operand of ?: (`OPT_x ? @a[k] = sum(v) : 1`) */
		return vxt_sp_agg_stmt(p);
	default:
		vxt_sp_syntax(p, t);
		return NULL;
	}
	vxt_sp_take(p);
	if (!strcmp(at.str, "stringof") && vxt_sp_peek(p)->type == ST_LPAREN) {
		vxt_sp_take(p);
		return paren_expr(p);
	}
	{
		bool handled;

		n = vxt_sd_ident(p, &at, &handled);
		if (handled) {
			if (n && n->kind == SN_FIELD && n->idx == SF_ARG0)
				p->s->uses_req = true;
			return n;
		}
	}
	if (!strcmp(at.str, "this") || !strcmp(at.str, "self") || !strcmp(at.str, "req")) {
		enum snk k = at.str[0] == 't' ? SN_THIS : at.str[0] == 's' ? SN_SELF : SN_REQ;
		char name[80];

		if (vxt_sp_expect(p, ST_ARROW) < 0)
			return NULL;
		t = vxt_sp_peek(p);
		if (t->type != ST_IDENT) {
			vxt_sp_syntax(p, t);
			return NULL;
		}
		snprintf(name, sizeof(name), "%s->%s", at.str, t->str);
		vxt_sp_take(p);
		if (vxt_sp_peek(p)->type == ST_LBRACK)
			return scoped_array(p, k, name, &at);
		n = vxt_sp_node(p, k, &at);
		if (!n)
			return NULL;
		n->str = sdup(p->s, name);
		n->idx = var_slot(p, (uint8_t)k, name + strlen(at.str) + 2, at.line, at.col);
		return n->idx < 0 || !n->str ? NULL : n;
	}
	if (vxt_sp_peek(p)->type == ST_LPAREN) {	/* a call */
		n = vxt_sp_node(p, SN_CALL, &at);
		if (!n)
			return NULL;
		n->str = sdup(p->s, at.str);
		n->idx = vxt_script_func(at.str);
		vxt_sp_take(p);
		if (!n->str || arg_list(p, ST_RPAREN, &n->args, &n->nargs) < 0)
			return NULL;
		return n;
	}
	if (vxt_sp_peek(p)->type == ST_LBRACK) {	/* an associative array */
		n = vxt_sp_node(p, SN_ARRAY, &at);
		if (!n)
			return NULL;
		n->str = sdup(p->s, at.str);
		n->idx = var_slot(p, SN_ARRAY, at.str, at.line, at.col);
		vxt_sp_take(p);
		if (n->idx < 0 || !n->str || arg_list(p, ST_RBRACK, &n->args, &n->nargs) < 0)
			return NULL;
		if (!n->nargs) {
			vxt_script_fail(p->s, p->err, at.line, at.col,
					"associative array %s needs at least one key", at.str);
			return NULL;
		}
		if (n->nargs > S_MAX_KEYS) {
			vxt_script_fail(p->s, p->err, at.line, at.col,
					"associative array %s: at most %d keys", at.str, S_MAX_KEYS);
			return NULL;
		}
		return n;
	}
	n = vxt_sp_node(p, SN_FIELD, &at);
	if (!n || !(n->str = sdup(p->s, at.str)))
		return NULL;
	n->idx = vxt_script_field(at.str);
	if (n->idx >= SF_Q2D && n->idx <= SF_I2D)
		p->s->uses_iv = true;
	if (n->idx == SF_ARG0)
		p->s->uses_req = true;
	if (n->idx >= 0)
		return n;
	n->num = vxt_script_errno(at.str);
	if (n->num > 0) {
		n->kind = SN_NUM;
		return n;
	}
	n->kind = SN_GLOBAL;
	n->idx = var_slot(p, SN_GLOBAL, at.str, at.line, at.col);
	return n->idx < 0 ? NULL : n;
}

static struct script_node *postfix(struct sparser *p)
{
	struct script_node *n = primary(p), *m;
	struct stoken *t;

	if (!n)
		return NULL;
	t = vxt_sp_peek(p);
	if (t->type != ST_INC && t->type != ST_DEC)
		return n;
	m = vxt_sp_node(p, SN_INCDEC, t);
	if (!m)
		return NULL;
	m->op = t->type;
	m->num = 1;
	m->a = n;
	vxt_sp_take(p);
	return m;
}

static struct script_node *unary(struct sparser *p)
{
	struct xparse x = xparse(p);

	return vxt_x_unary(&x);
}

static struct script_node *assign_expr(struct sparser *p)
{
	struct xparse x = xparse(p);

	return vxt_x_assign(&x);
}

struct script_node *vxt_sp_expr(struct sparser *p)
{
	return assign_expr(p);
}

/* @name[keys] = func(args) */
struct script_node *vxt_sp_agg_stmt(struct sparser *p)
{
	struct stoken at = *vxt_sp_peek(p);
	struct script_node *n = vxt_sp_node(p, SN_AGGSET, &at), *f;

	if (!n)
		return NULL;
	n->str = sdup(p->s, at.str);
	n->idx = agg_slot(p, at.str, at.line, at.col);
	vxt_sp_take(p);
	if (n->idx < 0 || !n->str)
		return NULL;
	if (vxt_sp_peek(p)->type == ST_LBRACK) {
		vxt_sp_take(p);
		if (arg_list(p, ST_RBRACK, &n->keys, &n->nkeys) < 0)
			return NULL;
		if (n->nkeys > S_MAX_KEYS) {
			vxt_script_fail(p->s, p->err, at.line, at.col,
					"@%s: at most %d keys", at.str, S_MAX_KEYS);
			return NULL;
		}
	}
	if (vxt_sp_expect(p, ST_ASSIGN) < 0)
		return NULL;
	f = primary(p);
	if (!f)
		return NULL;
	if (f->kind != SN_CALL) {
		vxt_script_fail(p->s, p->err, f->line, f->col,
				"@%s: an aggregation is assigned an aggregating function "
				"(count sum avg min max quantize lquantize)", at.str);
		return NULL;
	}
	n->a = f;
	return n;
}
