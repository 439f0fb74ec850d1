/* script_decl.c - D's top-level declarations and what is known at load
 *
 * `inline TYPE NAME = expr;` (a tree put where the name is used),
 * typedefs and declarations (`int x;`, `self int x[dev_t];`: accepted,
 * types come from assignments), casts' type names, the macro arguments $1
 * $$1 (vxt_script_load_args(), defaultargs), and constant folding: a `?:`
 * statement whose condition is known at load is the operand it picks, so
 * `OPT_time ? printf(...) : 1;` is the printf or nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "select/script_parser.h"

/* Inline constants: name -> its tree (a node list in parse order). */
struct sinline {
	const char *name;
	struct script_node *val;
	struct sinline *next;
};

static struct script_node *copy_tree(struct sparser *p, const struct script_node *n)
{
	struct script_node *c;

	if (!n)
		return NULL;
	c = vxt_script_alloc(p->s, sizeof(*c));
	if (!c) {
		p->rc = -ENOMEM;
		return NULL;
	}
	*c = *n;
	if ((n->a && !(c->a = copy_tree(p, n->a))) || (n->b && !(c->b = copy_tree(p, n->b))) ||
	    (n->c && !(c->c = copy_tree(p, n->c))))
		return NULL;
	if (n->nargs) {
		c->args = vxt_script_alloc(p->s, n->nargs * sizeof(*c->args));
		if (!c->args)
			return NULL;
		for (unsigned i = 0; i < n->nargs; i++)
			if (!(c->args[i] = copy_tree(p, n->args[i])))
				return NULL;
	}
	return c;
}

/* $N (an integer, or a string when not a number), $$N (a string); with
 * defaultargs, one not given reads 0 or "". */
struct script_node *vxt_sd_macro(struct sparser *p, const struct stoken *at)
{
	const char *name = at->str;
	bool str = name[1] == '$';
	const char *digits = name + (str ? 2 : 1);
	char *end;
	unsigned long n = strtoul(digits, &end, 10);
	const char *v;

	if (!*digits || *end)
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "macro variable %s is not available in block traces "
				       "($1 ... $9, $$1 ...)", name), NULL;
	if (n == 0)
		v = p->s->name;
	else if (n <= p->s->nmargs)
		v = p->s->margs[n - 1];
	else if (p->s->opt_defaultargs)
		v = NULL;
	else
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "macro argument %s is not defined (give it after --, or "
				       "#pragma D option defaultargs)", name), NULL;
	if (!v)
		return str ? vxt_sd_str(p, at, "") : vxt_sd_num(p, at, 0);
	if (!str) {
		long long i = strtoll(v, &end, 0);

		if (*v && !*end)
			return vxt_sd_num(p, at, i);
	}
	{
		char *kept = vxt_script_alloc(p->s, strlen(v) + 1);

		if (!kept) {
			p->rc = -ENOMEM;
			return NULL;
		}
		memcpy(kept, v, strlen(v) + 1);
		return vxt_sd_str(p, at, kept);
	}
}

bool vxt_sd_inline(struct sparser *p, const char *name, struct script_node **out)
{
	for (struct sinline *in = p->inlines; in; in = in->next)
		if (!strcmp(in->name, name)) {
			*out = copy_tree(p, in->val);
			return true;
		}
	return false;
}

/* ---- constant folding ---- */

bool vxt_sd_const(const struct script_node *n, int64_t *v)
{
	int64_t a, b;

	if (!n)
		return false;
	switch (n->kind) {
	case SN_NUM:
		*v = n->num;
		return true;
	case SN_UNARY:
		if (!vxt_sd_const(n->a, &a))
			return false;
		*v = n->op == ST_NOT ? !a : n->op == ST_TILDE ? ~a : (int64_t)(0 - (uint64_t)a);
		return true;
	case SN_AND: case SN_OR:	/* short-circuit: a known left may decide */
		if (!vxt_sd_const(n->a, &a))
			return false;
		if ((a != 0) == (n->kind == SN_OR)) {
			*v = a != 0;
			return true;
		}
		if (!vxt_sd_const(n->b, &b))
			return false;
		*v = b != 0;
		return true;
	case SN_COND:
		if (!vxt_sd_const(n->a, &a))
			return false;
		return vxt_sd_const(a ? n->b : n->c, v);
	case SN_BINARY:
		if (n->a->kind == SN_STR && n->b->kind == SN_STR &&
		    (n->op == ST_EQ || n->op == ST_NE)) {
			*v = (strcmp(n->a->str, n->b->str) == 0) == (n->op == ST_EQ);
			return true;
		}
		if (!vxt_sd_const(n->a, &a) || !vxt_sd_const(n->b, &b))
			return false;
		switch (n->op) {
		case ST_EQ: *v = a == b; return true;
		case ST_NE: *v = a != b; return true;
		case ST_LT: *v = a < b; return true;
		case ST_LE: *v = a <= b; return true;
		case ST_GT: *v = a > b; return true;
		case ST_GE: *v = a >= b; return true;
		case ST_PLUS: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
		case ST_MINUS: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
		case ST_STAR: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
		case ST_SLASH: case ST_PERCENT:
			if (!b || (a == INT64_MIN && b == -1))
				return false;
			*v = n->op == ST_SLASH ? a / b : a % b;
			return true;
		case ST_OR: *v = a | b; return true;
		case ST_XOR: *v = a ^ b; return true;
		case ST_AND: *v = a & b; return true;
		case ST_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
		case ST_SHR: *v = a >> (b & 63); return true;
		default: return false;
		}
	default:
		return false;
	}
}

/* Whether @n holds an action (a call other than speculation()). */
static bool has_action(const struct script_node *n)
{
	if (!n)
		return false;
	if ((n->kind == SN_CALL && n->idx != FN_SPECULATION) || n->kind == SN_AGGSET)
		return true;
	return has_action(n->a) || has_action(n->b) || has_action(n->c);
}

int vxt_sd_statement(struct sparser *p, struct script_node **st)
{
	struct script_node *n = *st;
	int64_t c;

	(void)p;
	while (n && n->kind == SN_COND && vxt_sd_const(n->a, &c))
		n = c ? n->b : n->c;
	if (n && vxt_sd_const(n, &c))
		n = NULL;	/* `OPT_x ? ... : 1` with OPT_x false: nothing to do */
	*st = n;
	return 0;
}

bool vxt_script_node_cond_action(const struct script_node *n)
{
	return n->kind == SN_COND && (has_action(n->b) || has_action(n->c));
}

/* ---- declarations ---- */

bool vxt_sd_is_type(const struct sparser *p, const char *w)
{
	static const char *const words[] = {
		"int", "char", "short", "long", "signed", "unsigned", "string", "void",
		"uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t",
		"int64_t", "size_t", "ssize_t", "uintptr_t", "dev_t", "pid_t", "uid_t",
		"hrtime_t", "off_t", "caddr_t", "diskaddr_t", "float", "double", "const",
		"volatile", "struct", "union", "enum", "bufinfo_t", "devinfo_t", "fileinfo_t",
		"psinfo_t", "lwpsinfo_t", "boolean_t", "processorid_t", "zoneid_t", "userland",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(words[i], w))
			return true;
	for (unsigned i = 0; i < p->ntypedefs; i++)
		if (!strcmp(p->typedefs[i], w))
			return true;
	return false;
}

int vxt_sd_skip_type(struct sparser *p)
{
	struct stoken *t;

	while ((t = vxt_sp_peek(p))->type == ST_IDENT && vxt_sd_is_type(p, t->str)) {
		bool tagged = !strcmp(t->str, "struct") || !strcmp(t->str, "union") ||
			      !strcmp(t->str, "enum");

		vxt_sp_take(p);
		if (tagged && vxt_sp_peek(p)->type == ST_IDENT)
			vxt_sp_take(p);
	}
	while (vxt_sp_peek(p)->type == ST_STAR)
		vxt_sp_take(p);
	return 0;
}

/* Skip to the ';' that ends a declaration, over balanced braces; the last
 * name outside braces into @last (may be NULL), a typedef's new name. */
static int skip_decl(struct sparser *p, const char **last)
{
	int depth = 0;

	for (;;) {
		struct stoken *t = vxt_sp_peek(p);

		if (t->type == ST_END || t->type == ST_ERROR)
			return vxt_sp_syntax(p, t);
		vxt_sp_take(p);
		if (t->type == ST_LBRACE)
			depth++;
		else if (t->type == ST_RBRACE)
			depth--;
		else if (t->type == ST_IDENT && depth == 0 && last)
			*last = t->str;
		else if (t->type == ST_SEMI && depth <= 0)
			return 0;
	}
}

static int decl_inline(struct sparser *p, const struct stoken *at)
{
	struct sinline *in;
	struct stoken *t;
	const char *name;

	vxt_sd_skip_type(p);
	t = vxt_sp_peek(p);
	if (t->type != ST_IDENT)
		return vxt_sp_syntax(p, t);
	name = t->str;
	vxt_sp_take(p);
	if (vxt_sp_expect(p, ST_ASSIGN) < 0)
		return -EINVAL;
	in = vxt_script_alloc(p->s, sizeof(*in));
	if (!in)
		return p->rc = -ENOMEM;
	in->name = name;
	p->parens = 0;
	in->val = vxt_sp_expr(p);
	if (!in->val)
		return -EINVAL;
	if (has_action(in->val))
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "inline %s: its value cannot call an action", name);
	in->next = p->inlines;
	p->inlines = in;
	return vxt_sp_expect(p, ST_SEMI);
}

static int decl_typedef(struct sparser *p)
{
	const char *last = NULL;

	if (skip_decl(p, &last) < 0)
		return -EINVAL;
	if (last && p->ntypedefs < sizeof(p->typedefs) / sizeof(p->typedefs[0]))
		p->typedefs[p->ntypedefs++] = last;
	return 0;
}

int vxt_sd_toplevel(struct sparser *p, const struct stoken *t, bool *handled)
{
	struct stoken at = *t;
	const char *w = t->str;

	*handled = false;
	if (t->type != ST_PROBE)
		return 0;
	if (!strcmp(w, "inline") || !strcmp(w, "typedef") || !strcmp(w, "self") ||
	    !strcmp(w, "this") || !strcmp(w, "static") || !strcmp(w, "extern") ||
	    vxt_sd_is_type(p, w)) {
		*handled = true;
		vxt_sp_take(p);
		if (!strcmp(w, "inline"))
			return decl_inline(p, &at);
		if (!strcmp(w, "typedef"))
			return decl_typedef(p);
		return skip_decl(p, NULL);	/* types come from assignments */
	}
	if (!strcmp(w, "translator") || !strcmp(w, "provider")) {
		*handled = true;
		return vxt_script_fail(p->s, p->err, at.line, at.col,
				       "%s definitions are not available in block traces", w);
	}
	return 0;
}
