/* script_check.c - types and D's rules of a parsed script: expressions,
 * variables, clauses, and the passes over them
 *
 * After parsing: every variable read is assigned somewhere (this->x earlier
 * in the program), types are inferred from assignments and must agree, and
 * operators have operands of the types they take. Calls and actions are
 * script_check_call.c's, aggregation statements script_check_agg.c's; the
 * names and options checked against are script_names.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "script/bt_impl.h"
#include "select/script_check.h"

static bool field_is_str(int f)
{
	return f == SF_OBJECT || f == SF_PHASE || f == SF_OP || f == SF_COMM ||
	       f == SF_EXECNAME || f == SF_PROBENAME || f == SF_HOST || f == SF_PROBEPROV ||
	       f == SF_PROBEMOD || f == SF_PROBEFUNC;
}

const char *vxt_check_type_name(int t)
{
	return t == SV_STR ? "string" : t == SV_INT ? "int" : "void";
}

static int learn(struct checker *k, struct script_node *target, int type, const struct script_node *at)
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
				       vxt_check_type_name(v->type), vxt_check_type_name(type), target->str,
				       vxt_check_type_name(v->type));
	return 0;
}

static bool is_lvalue(const struct script_node *n)
{
	return n->kind == SN_GLOBAL || n->kind == SN_THIS || n->kind == SN_SELF ||
	       n->kind == SN_REQ || n->kind == SN_ARRAY;
}

static int check_var_read(struct checker *k, struct script_node *n)
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

static int check_keys(struct checker *k, struct script_node *n)
{
	struct svar *v = &k->s->vars[n->idx];

	for (unsigned i = 0; i < n->nargs; i++) {
		if (vxt_check_expr(k, n->args[i], false) < 0)
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

static int check_assign(struct checker *k, struct script_node *n)
{
	struct script_node *t = n->a;

	if (!is_lvalue(t))
		return vxt_script_fail(k->s, k->err, t->line, t->col,
				       "operator %s can only be applied to a writable variable",
				       vxt_stok_name((enum stok)n->op));
	if (t->kind == SN_ARRAY && check_keys(k, t) < 0)
		return -EINVAL;
	if (vxt_check_expr(k, n->b, false) < 0)
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

/* A string compared with 0 (D's NULL, after a cast such as `(int)s == 0`)
 * is compared with "": an unset string variable reads "". */
static void null_string(const struct script_node *s, struct script_node *z)
{
	if (s->type == SV_STR && z->kind == SN_NUM && z->num == 0) {
		z->kind = SN_STR;
		z->str = "";
		z->type = SV_STR;
	}
}

int vxt_check_expr(struct checker *k, struct script_node *n, bool stmt)
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
		return vxt_check_call(k, n, stmt);
	case SN_AGGSET:
		return vxt_check_aggset(k, n);
	case SN_COND:
		if (stmt && vxt_script_node_cond_action(n)) {	/* runs the operand it picks */
			if (vxt_check_expr(k, n->a, false) < 0 || vxt_check_expr(k, n->b, true) < 0 ||
			    vxt_check_expr(k, n->c, true) < 0)
				return -EINVAL;
			n->type = SV_NONE;
			return 0;
		}
		if (vxt_check_expr(k, n->a, false) < 0 || vxt_check_expr(k, n->b, false) < 0 ||
		    vxt_check_expr(k, n->c, false) < 0)
			return -EINVAL;
		if (k->final && n->b->type != n->c->type)
			return vxt_script_fail(k->s, k->err, n->line, n->col,
					       "operator ?: operands must have compatible types "
					       "(%s, %s)", vxt_check_type_name(n->b->type),
					       vxt_check_type_name(n->c->type));
		n->type = n->b->type;
		return 0;
	default:
		break;
	}
	/* unary and binary operators */
	if (vxt_check_expr(k, n->a, false) < 0 || (n->b && vxt_check_expr(k, n->b, false) < 0))
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
					       vxt_stok_name((enum stok)n->op), vxt_check_type_name(n->a->type),
					       vxt_stok_name((enum stok)n->op), vxt_check_type_name(n->b->type));
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
static void note_records(struct sclause *c, const struct script_node *st)
{
	if (vxt_script_node_cond_action(st)) {
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

static int check_clause(struct checker *k, struct sclause *c)
{
	k->cl = c;
	k->flags = 0;
	if (c->pred) {
		if (vxt_check_expr(k, c->pred, false) < 0)
			return -EINVAL;
		if (k->final && c->pred->type == SV_NONE)
			return vxt_script_fail(k->s, k->err, c->pred->line, c->pred->col,
					       "predicate has no value");
	}
	for (unsigned i = 0; i < c->nstmts; i++) {
		struct script_node *st = c->stmts[i];

		if (vxt_check_expr(k, st, true) < 0)
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
	struct checker k = { .s = s, .err = err };
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
