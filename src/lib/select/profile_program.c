/* profile_program.c - a profile's `program:`, a D script run by the script engine
 *
 * The script is kept laid out as it sits in the file: blank lines for the
 * lines above it and, for a block scalar, each line indented as written, so
 * every message of the script compiler (formats/script.md) names the
 * profile's file, line and column. It is compiled once here to check it;
 * vxt_view_new() compiles it again for each run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "select/profile_impl.h"
#include "vxtrace/script.h"

/* @str laid out from @line, @col (block: every line indented by @indent). */
static char *lay_out(const char *str, unsigned line, unsigned col, unsigned indent, bool block,
		     size_t *len)
{
	size_t n = strlen(str), lines = 1, cap;
	char *out, *o;

	for (const char *p = str; *p; p++)
		lines += *p == '\n';
	cap = (line ? line - 1 : 0) + (col ? col - 1 : 0) + n + lines * (size_t)indent + 1;
	out = malloc(cap);
	if (!out)
		return NULL;
	o = out;
	for (unsigned i = 1; i < line; i++)
		*o++ = '\n';
	for (unsigned i = 1; i < (block ? indent + 1 : col); i++)
		*o++ = ' ';
	for (const char *p = str; *p; p++) {
		*o++ = *p;
		if (*p == '\n' && block && p[1])
			for (unsigned i = 0; i < indent; i++)
				*o++ = ' ';
	}
	*o = '\0';
	*len = (size_t)(o - out);
	return out;
}

int vxt_prof_program(struct pctx *c, const struct ynode *n)
{
	struct vxt_profile *p = c->p;
	struct vxt_script *s;
	unsigned line, col, indent;
	bool block;

	if (n->kind != Y_SCALAR || !n->str[0])
		return fail(c, n, "'program' takes a D script (formats/script.md), not %s",
			    n->kind == Y_SCALAR ? "an empty value" : "a mapping or a list");
	vxt_prof_expr_origin(c, n, &line, &col, &indent, &block);
	p->program = lay_out(n->str, line, col, indent, block, &p->program_len);
	if (!p->program)
		return -ENOMEM;
	s = vxt_script_compile(p->program, p->program_len, c->file, NULL, 0, c->err);
	if (!s)
		return -EINVAL;
	vxt_script_free(s);
	p->has_spec = true;
	return 0;
}
