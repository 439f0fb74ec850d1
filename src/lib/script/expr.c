/* expr.c - the expression levels the D and the bpftrace parsers share:
 * prefix operators, binary operators climbed by binding strength, ?:, the
 * assignments and argument lists (expr.h); each parser brings its operands
 * and words
 */
#include <errno.h>
#include <stdio.h>

#include "script/expr.h"
#include "script/tok.h"

static struct script_node *node(const struct xparse *x, enum snk kind, const struct stoken *at)
{
	return vxt_script_node_new(x->s, x->rc, kind, at->line, at->col);
}

struct script_node *vxt_x_unary(const struct xparse *x)
{
	struct stoken *t = x->peek(x->p);
	struct stoken at = *t;
	struct script_node *n, *a;

	if (!vxt_tok_unary(t->type))
		return x->operand(x->p);
	if (++*x->depth > S_MAX_DEPTH) {
		x->fail(x->p, t->line, t->col, "expression nested too deeply");
		return NULL;
	}
	x->take(x->p);
	a = vxt_x_unary(x);
	--*x->depth;
	if (!a)
		return NULL;
	if (at.type == ST_PLUS)
		return a;
	n = node(x, at.type == ST_INC || at.type == ST_DEC ? SN_INCDEC : SN_UNARY, &at);
	if (!n)
		return NULL;
	n->op = at.type;
	n->a = a;
	return n;
}

/* Binary operators binding at least @min, left to right. */
static struct script_node *binary(const struct xparse *x, int min)
{
	struct script_node *l = vxt_x_unary(x);

	if (++*x->depth > S_MAX_DEPTH) {
		x->fail(x->p, x->tok->line, x->tok->col, "expression nested too deeply");
		return NULL;
	}
	while (l) {
		struct stoken *t = x->peek(x->p);
		struct stoken at = *t;
		int pr = vxt_tok_prec(t->type, *x->in_pred && !*x->parens);
		struct script_node *r, *n;

		if (!pr || pr < min)
			break;
		x->take(x->p);
		r = binary(x, pr + 1);
		if (!r)
			return NULL;
		n = node(x, vxt_tok_binary_kind(at.type), &at);
		if (!n)
			return NULL;
		n->op = at.type;
		n->a = l;
		n->b = r;
		l = n;
	}
	--*x->depth;
	return l;
}

/* One level deeper for the right operand of ?: or = at @t, which the
 * parser reaches by recursion, when x->nest_right. @return 0 or -EINVAL
 * past S_MAX_DEPTH. */
static int deeper(const struct xparse *x, const struct stoken *t)
{
	if (!x->nest_right || ++*x->depth <= S_MAX_DEPTH)
		return 0;
	return x->fail(x->p, t->line, t->col, "expression nested too deeply");
}

static void shallower(const struct xparse *x)
{
	if (x->nest_right)
		--*x->depth;
}

static struct script_node *cond_expr(const struct xparse *x)
{
	struct script_node *c = binary(x, 1), *n;
	struct stoken at;

	if (!c || x->peek(x->p)->type != ST_QUEST)
		return c;
	at = *x->peek(x->p);
	x->take(x->p);
	n = node(x, SN_COND, &at);
	if (!n)
		return NULL;
	n->a = c;
	if (deeper(x, &at) < 0)
		return NULL;
	++*x->parens;		/* a '/' between ? and : divides */
	n->b = vxt_x_assign(x);
	--*x->parens;
	if (!n->b || x->expect(x->p, ST_COLON) < 0)
		return NULL;
	n->c = cond_expr(x);
	shallower(x);
	return n->c ? n : NULL;
}

struct script_node *vxt_x_assign(const struct xparse *x)
{
	struct script_node *l = cond_expr(x), *n;
	struct stoken *t;
	struct stoken at;

	if (!l)
		return NULL;
	t = x->peek(x->p);
	if (!vxt_tok_assign(t->type))
		return l;
	at = *t;
	x->take(x->p);
	n = node(x, SN_ASSIGN, &at);
	if (!n)
		return NULL;
	n->op = at.type;
	n->a = l;
	if (deeper(x, &at) < 0)
		return NULL;
	n->b = vxt_x_assign(x);
	shallower(x);
	return n->b ? n : NULL;
}

int vxt_x_args(const struct xparse *x, enum stok close, struct script_node **v, unsigned *n)
{
	*n = 0;
	++*x->parens;
	if (x->peek(x->p)->type != close) {
		for (;;) {
			struct stoken *t = x->peek(x->p);
			struct script_node *a;

			if (*n == S_MAX_ARGS) {
				char msg[64];

				snprintf(msg, sizeof(msg), "too many arguments (at most %d)",
					 S_MAX_ARGS);
				return x->fail(x->p, t->line, t->col, msg);
			}
			a = x->arg(x->p);
			if (!a)
				return -EINVAL;
			v[(*n)++] = a;
			if (x->peek(x->p)->type != ST_COMMA)
				break;
			x->take(x->p);
		}
	}
	if (x->expect(x->p, close) < 0)
		return -EINVAL;
	--*x->parens;
	return 0;
}
