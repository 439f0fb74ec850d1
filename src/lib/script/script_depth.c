/* script_depth.c - how deep a parsed script's expressions go
 *
 * The parser bounds its own recursion (parentheses, unary operators, the
 * right operands of ?: and =), but a chain of left-associative operators
 * (`1+1+1...`) is built by a loop into a tree as deep as the chain is long,
 * and every later pass (checking, compiling) walks trees by recursion. This
 * pass measures each tree without recursion and refuses one deeper than
 * S_MAX_TREE_DEPTH, before any recursive pass sees it.
 */
#include <errno.h>
#include <stdlib.h>

#include "script/script_impl.h"
#include "vxtrace/util.h"

struct pending {
	const struct script_node *n;
	unsigned depth;
};

struct walk {
	struct pending *stack;
	size_t n, cap;
};

static int push(struct walk *w, const struct script_node *n, unsigned depth)
{
	if (!n)
		return 0;
	if (vxt_grow(&w->stack, &w->cap, w->n + 1, sizeof(*w->stack)) < 0)
		return -ENOMEM;
	w->stack[w->n].n = n;
	w->stack[w->n].depth = depth;
	w->n++;
	return 0;
}

/* The tree of @root, depth first. @return 0, -EINVAL (message in @err) or
 * -ENOMEM. */
static int measure(struct walk *w, const struct vxt_script *s, const struct script_node *root,
		   char *err)
{
	int rc = push(w, root, 1);

	while (rc == 0 && w->n) {
		struct pending at = w->stack[--w->n];
		const struct script_node *n = at.n;

		if (at.depth > S_MAX_TREE_DEPTH)
			return vxt_script_fail(s, err, n->line, n->col,
					       "expression nested too deeply");
		rc = push(w, n->a, at.depth + 1);
		if (rc == 0)
			rc = push(w, n->b, at.depth + 1);
		if (rc == 0)
			rc = push(w, n->c, at.depth + 1);
		for (unsigned i = 0; rc == 0 && i < n->nargs; i++)
			rc = push(w, n->args[i], at.depth + 1);
		for (unsigned i = 0; rc == 0 && i < n->nkeys; i++)
			rc = push(w, n->keys[i], at.depth + 1);
	}
	return rc;
}

int vxt_script_check_depth(const struct vxt_script *s, char *err)
{
	struct walk w = { 0 };
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < s->ncl; i++) {
		const struct sclause *c = &s->cl[i];

		rc = measure(&w, s, c->pred, err);
		for (unsigned j = 0; rc == 0 && j < c->nstmts; j++)
			rc = measure(&w, s, c->stmts[j], err);
	}
	free(w.stack);
	return rc;
}
