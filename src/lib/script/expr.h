/* expr.h - the expression levels the D and the bpftrace parsers share
 * (expr.c): prefix operators, binary operators by binding strength, ?:
 * assignments and argument lists, over a parser each reaches through
 * struct xparse
 * (internal to libvxtrace)
 */
#ifndef VXT_SCRIPT_EXPR_H
#define VXT_SCRIPT_EXPR_H

#include "script/script_impl.h"

/* A parser as the shared levels see it: its token stream, its own operand
 * level (postfix: primaries, members, calls), its message for an
 * expression nested past S_MAX_DEPTH, and its counters. */
struct xparse {
	void *p;
	struct vxt_script *s;
	int *rc;			/* -ENOMEM when a node can't be made */
	int *depth;			/* nesting, bounded by S_MAX_DEPTH */
	int *parens;			/* open ( [ ?: of the current expression */
	const bool *in_pred;		/* in a /predicate/: a bare '/' ends it */
	const struct stoken *tok;	/* the parser's current token */
	struct stoken *(*peek)(void *p);
	void (*take)(void *p);
	int (*expect)(void *p, enum stok type);
	struct script_node *(*operand)(void *p);
	/* one argument of a list (vxt_x_args()); NULL on error */
	struct script_node *(*arg)(void *p);
	/* says @msg at @line, @col in the dialect's words; -EINVAL */
	int (*fail)(void *p, unsigned line, unsigned col, const char *msg);
	bool nest_right;		/* ?: and = right operands count in depth (D) */
};

/* A prefix operator's operand or x->operand(); an assignment (the whole
 * expression). NULL on error (the parser's message or *x->rc). */
struct script_node *vxt_x_unary(const struct xparse *x);
struct script_node *vxt_x_assign(const struct xparse *x);
/* Up to S_MAX_ARGS arguments, by x->arg, separated by ',' up to @close
 * (taken) into @v, *@n. @return 0 or -EINVAL (said, or *x->rc). */
int vxt_x_args(const struct xparse *x, enum stok close, struct script_node **v, unsigned *n);

#endif
