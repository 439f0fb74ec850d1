/* slots.c - what the D parser (script_parse.c) and the bpftrace parser
 * (bt_parser.c, bt_parse.c) both do: the slots of the variables and
 * aggregations a script names, new tree nodes, and the classes and binding
 * strengths of C's operators (tok.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/tok.h"

int vxt_slot_var(struct vxt_script *s, uint8_t scope, const char *name, unsigned line,
		 unsigned col)
{
	for (unsigned i = 0; i < s->nvars; i++)
		if (s->vars[i].scope == scope && !strcmp(s->vars[i].name, name))
			return (int)i;
	if (strlen(name) >= sizeof(s->vars[0].name))
		return -ENAMETOOLONG;
	if (s->nvars == s->capvars) {
		unsigned cap = s->capvars ? 2 * s->capvars : 32;
		struct svar *v = realloc(s->vars, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->vars = v;
		s->capvars = cap;
	}
	memset(&s->vars[s->nvars], 0, sizeof(s->vars[0]));
	snprintf(s->vars[s->nvars].name, sizeof(s->vars[0].name), "%s", name);
	s->vars[s->nvars].scope = scope;
	s->vars[s->nvars].line = line;
	s->vars[s->nvars].col = col;
	return (int)s->nvars++;
}

int vxt_slot_agg(struct vxt_script *s, const char *name, unsigned line, unsigned col)
{
	for (unsigned i = 0; i < s->naggs; i++)
		if (!strcmp(s->aggs[i].name, name))
			return (int)i;
	if (strlen(name) >= sizeof(s->aggs[0].name))
		return -ENAMETOOLONG;
	if (s->naggs == s->capaggs) {
		unsigned cap = s->capaggs ? 2 * s->capaggs : 8;
		struct sagg *a = realloc(s->aggs, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		s->aggs = a;
		s->capaggs = cap;
	}
	memset(&s->aggs[s->naggs], 0, sizeof(s->aggs[0]));
	snprintf(s->aggs[s->naggs].name, sizeof(s->aggs[0].name), "%s", name);
	s->aggs[s->naggs].fn = -1;
	s->aggs[s->naggs].line = line;
	s->aggs[s->naggs].col = col;
	return (int)s->naggs++;
}

struct script_node *vxt_script_node_new(struct vxt_script *s, int *rc, enum snk kind, unsigned line,
			    unsigned col)
{
	struct script_node *n = vxt_script_alloc(s, sizeof(*n));

	if (!n) {
		*rc = -ENOMEM;
		return NULL;
	}
	n->kind = (uint8_t)kind;
	n->line = line;
	n->col = col;
	return n;
}

int vxt_tok_prec(enum stok t, bool slash_ends)
{
	switch (t) {
	case ST_OROR: return 1;
	case ST_XORXOR: return 2;
	case ST_ANDAND: return 3;
	case ST_OR: return 4;
	case ST_XOR: return 5;
	case ST_AND: return 6;
	case ST_EQ: case ST_NE: return 7;
	case ST_LT: case ST_LE: case ST_GT: case ST_GE: return 8;
	case ST_SHL: case ST_SHR: return 9;
	case ST_PLUS: case ST_MINUS: return 10;
	case ST_SLASH: return slash_ends ? 0 : 11;
	case ST_STAR: case ST_PERCENT: return 11;
	default: return 0;
	}
}

enum snk vxt_tok_binary_kind(enum stok t)
{
	return t == ST_ANDAND ? SN_AND : t == ST_OROR ? SN_OR : t == ST_XORXOR ? SN_XORXOR :
	       SN_BINARY;
}

bool vxt_tok_unary(enum stok t)
{
	return t == ST_NOT || t == ST_MINUS || t == ST_TILDE || t == ST_PLUS || t == ST_INC ||
	       t == ST_DEC;
}

bool vxt_tok_assign(enum stok t)
{
	return t == ST_ASSIGN || t == ST_ADDEQ || t == ST_SUBEQ || t == ST_MULEQ ||
	       t == ST_DIVEQ;
}
