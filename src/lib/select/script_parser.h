/* script_parser.h - the D-script parser's state and the parts its clause
 * level (script_clause.c) takes from its expression level (script_parse.c)
 * (internal to libvxtrace)
 */
#ifndef VXT_SCRIPT_PARSER_H
#define VXT_SCRIPT_PARSER_H

#include "script/script_impl.h"

struct sparser {
	struct vxt_script *s;
	struct slexer lx;
	struct stoken tok;
	bool have;		/* tok holds the next token */
	char *err;
	int depth;
	int parens;		/* open ( [ of the current expression */
	bool in_pred;
	int rc;			/* -ENOMEM when the lexer ran out */
};

/* The next token, read when needed (and kept until vxt_sp_take()); in a
 * probe list, where ':' '*' '-' belong to the names. */
struct stoken *vxt_sp_peek(struct sparser *p);
struct stoken *vxt_sp_peek_probe(struct sparser *p);
void vxt_sp_take(struct sparser *p);
/* "syntax error near ..." at @t. @return -EINVAL. */
int vxt_sp_syntax(struct sparser *p, const struct stoken *t);
/* Take a token of @type or fail. @return 0 or -EINVAL. */
int vxt_sp_expect(struct sparser *p, enum stok type);
/* An expression; an @aggregation statement. NULL on error (p->rc). */
struct snode *vxt_sp_expr(struct sparser *p);
struct snode *vxt_sp_agg_stmt(struct sparser *p);

#endif
