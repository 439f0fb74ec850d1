/* profile_values.c - the typed values and mappings of a profile's YAML
 * tree: strings, bounded integers, durations, sizes, choices, filter
 * expressions (checked, their errors mapped back to the file) and mappings
 * of known keys, each failing with the file, line and column of its node
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "select/profile_impl.h"
#include "vxtrace/filter.h"
#include "vxtrace/profile.h"
#include "vxtrace/util.h"

/* ---- typed values ---- */

static const char *kind_name(const struct ynode *n)
{
	return n->kind == Y_MAP ? "a mapping" : n->kind == Y_SEQ ? "a list" : "a value";
}

bool vxt_prof_is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && n->style == YAML_PLAIN_SCALAR_STYLE &&
	       (!n->str[0] || !strcmp(n->str, "~") || !strcmp(n->str, "null"));
}

int vxt_prof_visit(struct pctx *c, const struct ynode *n)
{
	if (++c->visits > Y_MAX_VISITS)
		return fail(c, n, "profile too complex (aliases expand to more than %d nodes)",
			    Y_MAX_VISITS);
	return 0;
}

int vxt_prof_want_scalar(struct pctx *c, const struct ynode *n, const char *key, const char *what)
{
	if (vxt_prof_visit(c, n) < 0)
		return -EINVAL;
	if (n->kind != Y_SCALAR)
		return fail(c, n, "'%s' takes %s, not %s", key, what, kind_name(n));
	if (vxt_prof_is_null(n))
		return fail(c, n, "'%s' needs %s", key, what);
	return 0;
}

int vxt_prof_get_string(struct pctx *c, const struct ynode *n, const char *key, char **out)
{
	if (vxt_prof_want_scalar(c, n, key, "a string") < 0)
		return -EINVAL;
	free(*out);
	*out = strdup(n->str);
	return *out ? 0 : -ENOMEM;
}

int vxt_prof_get_uint(struct pctx *c, const struct ynode *n, const char *key, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	char *end;

	if (vxt_prof_want_scalar(c, n, key, "a number") < 0)
		return -EINVAL;
	errno = 0;
	*out = strtoull(n->str, &end, 10);
	if (errno || *end || end == n->str || n->str[0] == '-')
		return fail(c, n, "'%s' takes a number, not '%s'", key, n->str);
	if (*out < min || *out > max)
		return fail(c, n, "'%s' must be between %llu and %llu", key,
			    (unsigned long long)min, (unsigned long long)max);
	return 0;
}

int vxt_prof_get_duration(struct pctx *c, const struct ynode *n, const char *key, uint64_t *out)
{
	size_t len;

	if (vxt_prof_want_scalar(c, n, key, "a duration") < 0)
		return -EINVAL;
	len = strlen(n->str);
	if (!strcmp(n->str, "0")) {
		*out = 0;
		return 0;
	}
	if (len == 0 || (n->str[len - 1] >= '0' && n->str[len - 1] <= '9'))
		return fail(c, n, "'%s' takes a duration with a unit (e.g. 200ms), not '%s'", key,
			    n->str);
	if (vxt_parse_duration(n->str, out) < 0)
		return fail(c, n, "'%s' takes a duration (e.g. 200ms), not '%s'", key, n->str);
	return 0;
}

int vxt_prof_get_size(struct pctx *c, const struct ynode *n, const char *key, uint64_t *out)
{
	if (vxt_prof_want_scalar(c, n, key, "a size") < 0)
		return -EINVAL;
	if (vxt_parse_size(n->str, out) < 0)
		return fail(c, n, "'%s' takes a size (e.g. 1M), not '%s'", key, n->str);
	return 0;
}

/* One word of a list of choices; @return its index or fail. */
int vxt_prof_get_choice(struct pctx *c, const struct ynode *n, const char *key,
		      const char *const *choices, int nchoices, int *out)
{
	char list[200] = "";

	if (vxt_prof_want_scalar(c, n, key, "a name") < 0)
		return -EINVAL;
	for (int i = 0; i < nchoices; i++) {
		if (!strcmp(n->str, choices[i])) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", choices[i]);
	}
	return fail(c, n, "unknown %s '%s' (%s)", key, n->str, list);
}

/* Where an expression's text starts in the file, per scalar style. */
void vxt_prof_expr_origin(const struct pctx *c, const struct ynode *n, unsigned *line,
			  unsigned *col, unsigned *indent, bool *block)
{
	*line = n->line;
	*col = n->col;
	*indent = 0;
	*block = false;
	if (n->style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	    n->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
		(*col)++;
	} else if (n->style == YAML_LITERAL_SCALAR_STYLE ||
		   n->style == YAML_FOLDED_SCALAR_STYLE) {
		const char *s = c->text, *end = c->text + c->len;	/* not NUL-terminated */
		unsigned l = 1;

		*block = true;
		*line = n->line + 1;	/* the text starts under the indicator */
		while (s < end && l < *line)
			if (*s++ == '\n')
				l++;
		while (s + *indent < end && s[*indent] == ' ')
			(*indent)++;
		*col = *indent + 1;
	}
}

/* Compile @n as a filter expression to check it; fail with the file position. */
int vxt_prof_check_expr(struct pctx *c, const struct ynode *n, const char *key, unsigned flags,
		      unsigned *line, unsigned *col)
{
	struct vxt_filter_opts o = { .flags = flags };
	struct vxt_filter_error e;
	struct vxt_filter *f;
	unsigned indent;
	bool block;

	if (vxt_prof_want_scalar(c, n, key, "an expression") < 0)
		return -EINVAL;
	vxt_prof_expr_origin(c, n, line, col, &indent, &block);
	f = vxt_filter_compile_opts(n->str, &o, NULL, NULL, &e, NULL);
	if (f) {
		vxt_filter_free(f);
		return 0;
	}
	if (block)
		return vxt_prof_fail(c, *line + e.line - 1, indent + e.col, "%s", e.msg);
	return vxt_prof_fail(c, *line + e.line - 1, e.line == 1 ? *col + e.col - 1 : e.col, "%s",
			e.msg);
}

/* ---- mappings ---- */

/* Check @n is a mapping of known keys; @return the index of each key's value
 * through @idx (or -1), failing on unknown and repeated keys. */
int vxt_prof_get_map(struct pctx *c, const struct ynode *n, const char *what,
		   const char *const *keys, int nkeys, int *idx)
{
	char list[300] = "";

	if (vxt_prof_visit(c, n) < 0)
		return -EINVAL;
	if (n->kind != Y_MAP)
		return fail(c, n, "%s must be a mapping, not %s", what, kind_name(n));
	for (int k = 0; k < nkeys; k++) {
		idx[k] = -1;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
			 keys[k]);
	}
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const struct ynode *key = n->kid[i];
		int k;

		for (k = 0; k < nkeys; k++)
			if (!strcmp(key->str, keys[k]))
				break;
		if (k == nkeys)
			return fail(c, key, "unknown key '%s' in %s (%s)", key->str, what, list);
		if (idx[k] >= 0)
			return fail(c, key, "'%s' given twice in %s", key->str, what);
		idx[k] = (int)i + 1;
	}
	return 0;
}
