/* slots.c - the variables and aggregations a script names, by slot: what
 * the D parser (script_parse.c) and the bpftrace parser (bt_parser.c) both
 * do when they meet a name (tok.h)
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
