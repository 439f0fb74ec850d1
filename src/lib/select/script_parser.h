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
	struct sinline *inlines;	/* `inline` names (script_decl.c) */
	const char *typedefs[64];	/* names `typedef` declared */
	unsigned ntypedefs;
};

/* The next token, read when needed (and kept until vxt_sp_take()); in a
 * probe list, where ':' '*' '-' belong to the names. */
struct stoken *vxt_sp_peek(struct sparser *p);
struct stoken *vxt_sp_peek_probe(struct sparser *p);
void vxt_sp_take(struct sparser *p);
/* A zeroed node of @kind at @at's position, kept by the script; NULL
 * (p->rc -ENOMEM) when out of memory. */
struct script_node *vxt_sp_node(struct sparser *p, enum snk kind, const struct stoken *at);
/* "syntax error near ..." at @t. @return -EINVAL. */
int vxt_sp_syntax(struct sparser *p, const struct stoken *t);
/* Take a token of @type or fail. @return 0 or -EINVAL. */
int vxt_sp_expect(struct sparser *p, enum stok type);
/* An expression; an @aggregation statement. NULL on error (p->rc). */
struct script_node *vxt_sp_expr(struct sparser *p);
struct script_node *vxt_sp_agg_stmt(struct sparser *p);

/* script_dlang.c: D's names for block I/O. */
/* Identifier @at, taken, when it is one of D's names (an inline, args[N]->,
 * curpsinfo->, uid, B_READ ...): *@handled true and its node (NULL on
 * error); else *@handled false. */
struct script_node *vxt_sd_ident(struct sparser *p, const struct stoken *at, bool *handled);
/* Nodes for a constant at @at (@str: kept by the caller). NULL when out of
 * memory (p->rc). */
struct script_node *vxt_sd_num(struct sparser *p, const struct stoken *at, int64_t v);
struct script_node *vxt_sd_str(struct sparser *p, const struct stoken *at, const char *str);
/* script_decl.c: D's declarations and load-time constants. */
/* Inline @name: true with a copy of its tree in *@out (NULL when out of
 * memory), else false. */
bool vxt_sd_inline(struct sparser *p, const char *name, struct script_node **out);
/* $N or $$N at @at. NULL on error. */
struct script_node *vxt_sd_macro(struct sparser *p, const struct stoken *at);
/* A top-level declaration at probe token @t (inline, typedef, int x;
 * self int x[...]): *@handled true when it was one. @return 0 or -EINVAL. */
int vxt_sd_toplevel(struct sparser *p, const struct stoken *t, bool *handled);
/* Whether @w names a type; skip a type name at the next token. */
bool vxt_sd_is_type(const struct sparser *p, const char *w);
int vxt_sd_skip_type(struct sparser *p);
/* The integer value of constant tree @n. */
bool vxt_sd_const(const struct script_node *n, int64_t *v);
/* Statement *@st with ?: of constant conditions chosen (NULL when nothing
 * is left to do). @return 0. */
int vxt_sd_statement(struct sparser *p, struct script_node **st);

#endif
