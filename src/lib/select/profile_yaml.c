/* profile_yaml.c - a small, bounded YAML tree for the profile loader
 *
 * libyaml's event parser feeds a tree of scalars, mappings and sequences with
 * the position of every node. Bounds: nodes, depth, string length, anchors
 * and aliases (an alias points at its anchor's node, so nothing is copied;
 * the checker bounds the visits). Mapping keys must be scalars.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "select/profile_impl.h"
#include "vxtrace/util.h"

int vxt_prof_fail(struct pctx *c, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* messages quote the profile's text: one line, no terminal controls */
	for (char *m = msg; *m; m++)
		if ((unsigned char)*m < 0x20 || *m == 0x7f)
			*m = '?';
	snprintf(c->err, VXT_ERRBUF_SIZE, "%s:%u:%u: %s", c->file, line, col, msg);
	return -EINVAL;
}

void vxt_ytree_free(struct ytree *t)
{
	for (size_t i = 0; i < t->nall; i++) {
		free(t->all[i]->str);
		free(t->all[i]->kid);
		free(t->all[i]);
	}
	free(t->all);
	for (unsigned i = 0; i < t->nanchors; i++)
		free(t->anchor[i].name);
}

static struct ynode *ynew(struct pctx *c, struct ytree *t, enum ykind kind,
			  const yaml_mark_t *m)
{
	struct ynode *n;

	if (t->nall >= Y_MAX_NODES) {
		vxt_prof_fail(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
			 "profile too large (more than %d YAML nodes)", Y_MAX_NODES);
		return NULL;
	}
	if (vxt_grow(&t->all, &t->capall, t->nall + 1, sizeof(*t->all)) < 0)
		goto out_nomem;
	n = calloc(1, sizeof(*n));
	if (!n)
		goto out_nomem;
	n->kind = kind;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	t->all[t->nall++] = n;
	return n;

out_nomem:
	snprintf(c->err, VXT_ERRBUF_SIZE, "%s: out of memory", c->file);
	return NULL;
}

static int yadd(struct pctx *c, struct ynode *parent, struct ynode *kid)
{
	if (vxt_grow(&parent->kid, &parent->cap, parent->n + 1, sizeof(*parent->kid)) < 0) {
		snprintf(c->err, VXT_ERRBUF_SIZE, "%s: out of memory", c->file);
		return -ENOMEM;
	}
	parent->kid[parent->n++] = kid;
	return 0;
}

static int yanchor(struct pctx *c, struct ytree *t, const yaml_char_t *name, struct ynode *n)
{
	if (!name)
		return 0;
	if (t->nanchors == Y_MAX_ANCHORS)
		return fail(c, n, "too many anchors (more than %d)", Y_MAX_ANCHORS);
	t->anchor[t->nanchors].name = strdup((const char *)name);
	if (!t->anchor[t->nanchors].name)
		return -ENOMEM;
	t->anchor[t->nanchors++].node = n;
	return 0;
}

static struct ynode *yalias(struct pctx *c, struct ytree *t, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;

	if (++t->naliases > Y_MAX_ALIASES) {
		vxt_prof_fail(c, (unsigned)ev->start_mark.line + 1, (unsigned)ev->start_mark.column + 1,
			 "too many aliases (more than %d)", Y_MAX_ALIASES);
		return NULL;
	}
	for (unsigned i = t->nanchors; i-- > 0;)
		if (!strcmp(t->anchor[i].name, name))
			return t->anchor[i].node;
	vxt_prof_fail(c, (unsigned)ev->start_mark.line + 1, (unsigned)ev->start_mark.column + 1,
		 "unknown alias '*%s'", name);
	return NULL;
}

/* Turn one parser event into the tree. @return 1 at the end of the document,
 * 0 to go on, negative on error. */
static int yevent(struct pctx *c, struct ytree *t, yaml_event_t *ev,
		  struct ynode **stack, unsigned *depth)
{
	struct ynode *n = NULL, *top = *depth ? stack[*depth - 1] : NULL;
	const yaml_char_t *anchor = NULL;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length > Y_MAX_SCALAR)
			return vxt_prof_fail(c, (unsigned)ev->start_mark.line + 1,
					(unsigned)ev->start_mark.column + 1,
					"string too long (more than %d bytes)", Y_MAX_SCALAR);
		n = ynew(c, t, Y_SCALAR, &ev->start_mark);
		if (!n)
			return -EINVAL;
		n->style = ev->data.scalar.style;
		n->str = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!n->str)
			return -ENOMEM;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_ALIAS_EVENT:
		n = yalias(c, t, ev);
		if (!n)
			return -EINVAL;
		break;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (*depth >= Y_MAX_DEPTH)
			return vxt_prof_fail(c, (unsigned)ev->start_mark.line + 1,
					(unsigned)ev->start_mark.column + 1,
					"nested too deeply (more than %d levels)", Y_MAX_DEPTH);
		n = ynew(c, t, ev->type == YAML_MAPPING_START_EVENT ? Y_MAP : Y_SEQ,
			 &ev->start_mark);
		if (!n)
			return -EINVAL;
		anchor = ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.anchor :
			 ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		(*depth)--;
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		return 1;
	default:
		return 0;
	}
	if (yanchor(c, t, anchor, n) < 0)
		return -EINVAL;
	if (top) {
		if (top->kind == Y_MAP && top->n % 2 == 0 && n->kind != Y_SCALAR)
			return fail(c, n, "a key must be a plain name");
		if (yadd(c, top, n) < 0)
			return -ENOMEM;
	} else {
		t->root = n;
	}
	if (ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT)
		stack[(*depth)++] = n;
	return 0;
}

int vxt_yparse(struct pctx *c, struct ytree *t)
{
	struct ynode *stack[Y_MAX_DEPTH];
	unsigned depth = 0;
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(c->err, VXT_ERRBUF_SIZE, "%s: out of memory", c->file);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, c->len);
	while (rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			const yaml_mark_t *m = &parser.problem_mark;

			rc = vxt_prof_fail(c, (unsigned)m->line + 1, (unsigned)m->column + 1,
				      "YAML: %s%s%s", parser.problem ? parser.problem : "syntax error",
				      parser.context ? " " : "", parser.context ? parser.context : "");
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT)
			rc = 1;
		else
			rc = yevent(c, t, &ev, stack, &depth);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc < 0 ? rc : 0;
}
