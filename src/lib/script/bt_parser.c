/* bt_parser.c - the bpftrace parser's tokens and names: its token access,
 * its errors with file:line:col in bpftrace's words, tree nodes and strings,
 * variables, maps and $locals, and the first pass over the tokens that
 * decides which maps are aggregations (those assigned an aggregating
 * function) before any is read
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/tok.h"

/* ---- tokens and names ---- */

static struct stoken *peek_mode(struct btparser *p, bool probe)
{
	if (!p->have) {
		if (vxt_btlex_next(&p->lx, &p->tok, probe) < 0) {
			p->rc = -ENOMEM;
			p->tok.type = ST_ERROR;
			snprintf(p->tok.msg, sizeof(p->tok.msg), "out of memory");
		}
		p->have = true;
	}
	return &p->tok;
}

struct stoken *vxt_btp_peek(struct btparser *p)
{
	return peek_mode(p, false);
}

struct stoken *vxt_btp_peek_probe(struct btparser *p)
{
	return peek_mode(p, true);
}

void vxt_btp_take(struct btparser *p)
{
	p->have = false;
}

int vxt_btp_fail(struct btparser *p, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[VXT_ERRBUF_SIZE - 200];
	va_list ap;

	if (p->err[0])		/* the first error stands */
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return vxt_script_fail(p->s, p->err, line, col, "%s", msg);
}

int vxt_btp_syntax(struct btparser *p, const struct stoken *t)
{
	if (t->type == ST_ERROR)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: %s", t->msg);
	if (t->type == ST_END)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected "
				    "end of file");
	if (t->type == ST_STR)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected string");
	if (t->type == ST_NUM)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected integer");
	if (t->str)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected %s%s",
				    t->type == ST_AGG ? "@" : "", t->str);
	return vxt_btp_fail(p, t->line, t->col, "ERROR: syntax error, unexpected %s",
			    vxt_stok_name(t->type));
}

int vxt_btp_expect(struct btparser *p, enum stok type)
{
	struct stoken *t = vxt_btp_peek(p);

	if (t->type != type) {
		if (t->type == ST_ERROR || t->type == ST_END)
			return vxt_btp_syntax(p, t);
		return vxt_btp_fail(p, t->line, t->col,
				    "ERROR: syntax error, unexpected %s%s, expecting %s",
				    t->type == ST_AGG ? "@" : "",
				    t->str && t->type != ST_STR ? t->str : vxt_stok_name(t->type),
				    vxt_stok_name(type));
	}
	vxt_btp_take(p);
	return 0;
}

struct script_node *vxt_btp_node(struct btparser *p, enum snk kind, unsigned line, unsigned col)
{
	return vxt_script_node_new(p->s, &p->rc, kind, line, col);
}

char *vxt_btp_dup(struct btparser *p, const char *str)
{
	size_t n = strlen(str) + 1;
	char *d = vxt_script_alloc(p->s, n);

	if (!d) {
		p->rc = -ENOMEM;
		return NULL;
	}
	memcpy(d, str, n);
	return d;
}

int vxt_btp_var(struct btparser *p, uint8_t scope, const char *name, unsigned line,
		unsigned col)
{
	int v = vxt_slot_var(p->s, scope, name, line, col);

	if (v == -ENAMETOOLONG)
		vxt_btp_fail(p, line, col, "ERROR: identifier '%.40s...' is too long", name);
	else if (v < 0)
		p->rc = v;
	return v < 0 ? -1 : v;
}

int vxt_btp_agg_slot(struct btparser *p, const char *name, unsigned line, unsigned col)
{
	int v;

	for (unsigned i = 0; i < p->s->naggs; i++)
		if (!strcmp(p->s->aggs[i].name, name))
			return (int)i;
	if (p->s->naggs == BT_MAX_MAPS)
		return vxt_btp_fail(p, line, col, "ERROR: too many maps (at most %d)",
				    BT_MAX_MAPS), -1;
	v = vxt_slot_agg(p->s, name, line, col);
	if (v == -ENAMETOOLONG)
		vxt_btp_fail(p, line, col, "ERROR: identifier '%.40s...' is too long", name);
	else if (v < 0)
		p->rc = v;
	return v < 0 ? -1 : v;
}

struct btmap *vxt_btp_map(struct btparser *p, const char *name)
{
	for (unsigned i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].name + 1, name))
			return &p->maps[i];
	return NULL;
}

struct btlocal *vxt_btp_local(struct btparser *p, const char *name, bool make)
{
	for (unsigned i = 0; i < p->nlocals; i++)
		if (!strcmp(p->locals[i].name, name))
			return &p->locals[i];
	if (!make || p->nlocals == BT_MAX_LOCALS)
		return NULL;
	snprintf(p->locals[p->nlocals].name, sizeof(p->locals[0].name), "%s", name);
	p->locals[p->nlocals].arity = 0;
	p->locals[p->nlocals].set = false;
	return &p->locals[p->nlocals++];
}

/* ---- which maps aggregate: one pass over the tokens ---- */

bool vxt_btp_is_aggfn(const char *w)
{
	static const char *const fns[] = {
		"count", "sum", "avg", "min", "max", "hist", "lhist", "stats",
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i], w))
			return true;
	return false;
}

int vxt_btp_scan_maps(struct btparser *p, const char *text, size_t len)
{
	struct slexer lx;
	struct stoken t[4];
	int rc = 0;
	enum stok prev = ST_END;

	vxt_btlex_init(&lx, text, len);
	memset(t, 0, sizeof(t));
	if (vxt_btlex_next(&lx, &t[0], false) < 0)
		rc = -ENOMEM;
	while (rc == 0 && t[0].type != ST_END && t[0].type != ST_ERROR) {
		if (t[0].type == ST_AGG) {
			struct btmap *m = vxt_btp_map(p, t[0].str);
			bool keyed = false, pre = prev == ST_INC || prev == ST_DEC;
			int depth = 0;

			if (!m) {
				if (p->nmaps == BT_MAX_MAPS)
					break;
				m = &p->maps[p->nmaps++];
				snprintf(m->name, sizeof(m->name), "@%s", t[0].str);
				m->kind = BM_UNKNOWN;
			}
			if (vxt_btlex_next(&lx, &t[0], false) < 0) {
				rc = -ENOMEM;
				break;
			}
			if (t[0].type == ST_LBRACK) {
				keyed = true;
				do {
					if (t[0].type == ST_LBRACK)
						depth++;
					if (t[0].type == ST_RBRACK)
						depth--;
					if (vxt_btlex_next(&lx, &t[0], false) < 0)
						rc = -ENOMEM;
				} while (rc == 0 && depth > 0 && t[0].type != ST_END &&
					 t[0].type != ST_ERROR);
			}
			if (keyed)
				m->keyed = true;
			if (pre || t[0].type == ST_ASSIGN || t[0].type == ST_ADDEQ ||
			    t[0].type == ST_SUBEQ || t[0].type == ST_MULEQ || t[0].type == ST_DIVEQ ||
			    t[0].type == ST_INC || t[0].type == ST_DEC)
				m->assigned = true;
			prev = t[0].type;
			if (rc == 0 && t[0].type == ST_ASSIGN) {
				if (vxt_btlex_next(&lx, &t[1], false) < 0 ||
				    vxt_btlex_next(&lx, &t[2], false) < 0) {
					rc = -ENOMEM;
					break;
				}
				if (t[1].type == ST_IDENT && vxt_btp_is_aggfn(t[1].str) &&
				    t[2].type == ST_LPAREN)
					m->kind = BM_AGG;
				t[0] = t[2];
				prev = t[1].type;
			}
			continue;
		}
		prev = t[0].type;
		if (vxt_btlex_next(&lx, &t[0], false) < 0)
			rc = -ENOMEM;
	}
	for (unsigned i = 0; i < p->nmaps; i++)
		if (p->maps[i].kind == BM_UNKNOWN)
			p->maps[i].kind = p->maps[i].keyed ? BM_ARRAY : BM_SCALAR;
	vxt_slex_free(&lx);
	return rc;
}
