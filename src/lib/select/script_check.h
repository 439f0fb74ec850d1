/* script_check.h - the type checker's state and the steps its files share
 * (internal to libvxtrace)
 *
 * script_check.c checks expressions, variables and clauses and drives the
 * passes; script_check_call.c checks calls of functions and actions and the
 * rules of speculation; script_check_agg.c checks aggregation statements.
 * Every check runs twice: once to infer the types of variables from their
 * assignments (k->final false: only learn), once to check (k->final true:
 * report the first error through vxt_script_fail()).
 */
#ifndef VXT_SELECT_SCRIPT_CHECK_H
#define VXT_SELECT_SCRIPT_CHECK_H

#include "script/script_impl.h"

struct checker {
	struct vxt_script *s;
	char *err;
	bool changed;		/* inference: a type was learnt */
	bool final;		/* the checking pass (not inference) */
	bool *this_set;		/* this-> variables assigned so far, in program order */
	const struct sclause *cl;
	unsigned flags;		/* CF_* of the clause so far */
};

/* what a clause did so far, for the rules of speculation */
#define CF_SPEC		0x1
#define CF_COMMIT	0x2
#define CF_DATAREC	0x4
#define CF_AGG		0x8

/* "string", "int" or "void", for messages. */
const char *vxt_check_type_name(int t);

/* Check expression @n (a statement when @stmt) and set its type.
 * @return 0, or -EINVAL with the message in k->err. */
int vxt_check_expr(struct checker *k, struct script_node *n, bool stmt);

/* A call of a D function or action (SN_CALL). @return as vxt_check_expr(). */
int vxt_check_call(struct checker *k, struct script_node *n, bool stmt);

/* An aggregation statement @name[keys] = fn(args) (SN_AGGSET). @return as
 * vxt_check_expr(). */
int vxt_check_aggset(struct checker *k, struct script_node *n);

/* @n has exactly @want arguments. @return as vxt_check_expr(). */
int vxt_check_proto(struct checker *k, const struct script_node *n, unsigned want);

/* Argument @i of @call is an integer. @return as vxt_check_expr(). */
int vxt_check_want_int(struct checker *k, const struct script_node *call, unsigned i);

/* Whether @n is an integer constant (a number or its negation), into @v. */
bool vxt_check_is_const(const struct script_node *n, int64_t *v);

/* Whether @name is a D function or action that needs a live kernel or process. */
bool vxt_check_not_here(const char *name);

/* The rules of speculation for a statement of the clause that calls @fn
 * (DTrace's words). @return as vxt_check_expr(). */
int vxt_check_rule(struct checker *k, const struct script_node *n, int fn);

#endif
