/* filter_parse.c - compiling filter expressions
 *
 *   expr    := and ( '||' and )*
 *   and     := unary ( '&&' unary )*
 *   unary   := '!' unary | primary
 *   primary := '(' expr ')' | 'true' | 'false' | 'spec' | FIELD [ compare ]
 *   compare := relop VALUE | 'in' '(' VALUE ( ',' VALUE )* ')' | ( '~' | '!~' ) NAME
 *
 * The parser builds a small tree, checks every value against its field (units,
 * names, errno names), expands "in (a, b)" into a chain of ==, then lays the
 * tree out as a jump table (filter_impl.h). The first error stops the parse
 * and is reported with its line and column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "vxtrace/util.h"

enum nkind { N_TEST, N_AND, N_OR, N_NOT, N_TRUE, N_FALSE };

struct fnode {
	enum nkind kind;
	bool negate;		/* N_TEST: swap the test's successors */
	int a, b;
	struct ftest test;
};

struct fparser {
	struct flexer lx;
	struct ftoken tok;
	const char *src;
	unsigned flags;
	unsigned depth;
	unsigned ntokens;
	struct fnode *nodes;
	size_t nnodes, capnodes;
	unsigned ntests;
	char *pool;
	size_t poollen, poolcap;
	struct vxt_filter *f;		/* being filled by codegen */
	bool failed, nomem;
	unsigned eline, ecol;
	char emsg[200];
};

static const struct {
	const char *name;
	enum ffield field;
} field_names[] = {
	{ "time", FF_TIME }, { "object", FF_OBJECT }, { "dev", FF_DEV },
	{ "phase", FF_PHASE }, { "op", FF_OP }, { "flags", FF_FLAGS },
	{ "sector", FF_SECTOR }, { "bytes", FF_BYTES }, { "latency", FF_LATENCY },
	{ "error", FF_ERROR }, { "pid", FF_PID }, { "comm", FF_COMM }, { "cpu", FF_CPU },
	{ "host", FF_HOST }, { "q2d", FF_Q2D }, { "d2c", FF_D2C }, { "q2c", FF_Q2C },
	{ "q2g", FF_Q2G }, { "g2i", FF_G2I }, { "i2d", FF_I2D },
};

static const char field_list[] =
	"time object dev phase op flags sector bytes latency error pid comm cpu host "
	"q2d d2c q2c q2g g2i i2d";

static bool is_interval(enum ffield f)
{
	return f >= FF_Q2D && f <= FF_I2D;
}

static const char *field_name(enum ffield f)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (field_names[i].field == f)
			return field_names[i].name;
	return "spec";
}

/* ---- errors ---- */

__attribute__((format(printf, 3, 4)))
static int fail_at(struct fparser *p, const struct ftoken *t, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = true;
	p->eline = t->line;
	p->ecol = t->col;
	va_start(ap, fmt);
	vsnprintf(p->emsg, sizeof(p->emsg), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *describe(struct fparser *p, const struct ftoken *t, char *buf, size_t n)
{
	return vxt_ftok_describe(t, p->src, buf, n);
}

static int next(struct fparser *p)
{
	vxt_flex_next(&p->lx, &p->tok);
	p->ntokens++;
	if (p->tok.type == TK_ERROR)
		return fail_at(p, &p->tok, "%s", p->tok.msg);
	return 0;
}

/* ---- tree ---- */

static int new_node(struct fparser *p, enum nkind kind, int a, int b)
{
	if (vxt_grow(&p->nodes, &p->capnodes, p->nnodes + 1, sizeof(*p->nodes)) < 0) {
		p->nomem = true;
		return fail_at(p, &p->tok, "out of memory");
	}
	memset(&p->nodes[p->nnodes], 0, sizeof(p->nodes[0]));
	p->nodes[p->nnodes].kind = kind;
	p->nodes[p->nnodes].a = a;
	p->nodes[p->nnodes].b = b;
	return (int)p->nnodes++;
}

static int new_test(struct fparser *p, const struct ftoken *at, enum ffield field,
		    enum fop op, bool negate)
{
	int n;

	if (++p->ntests > VXT_FILTER_MAX_TESTS)
		return fail_at(p, at, "expression too long (more than %d comparisons)",
			       VXT_FILTER_MAX_TESTS);
	n = new_node(p, N_TEST, -1, -1);
	if (n < 0)
		return -1;
	p->nodes[n].negate = negate;
	p->nodes[n].test.field = field;
	p->nodes[n].test.op = op;
	return n;
}

static int pool_add(struct fparser *p, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (vxt_grow(&p->pool, &p->poolcap, p->poollen + n, 1) < 0) {
		p->nomem = true;
		return fail_at(p, &p->tok, "out of memory");
	}
	memcpy(p->pool + p->poollen, s, n);
	*off = (uint32_t)p->poollen;
	p->poollen += n;
	return 0;
}

/* ---- values ---- */

static bool is_value(const struct ftoken *t)
{
	return t->type == TK_IDENT || t->type == TK_NUM || t->type == TK_STR ||
	       t->type == TK_DEV;
}

static const char *value_text(struct fparser *p, const struct ftoken *v, char *buf, size_t n)
{
	if (v->type == TK_IDENT || v->type == TK_STR)
		return v->str;
	snprintf(buf, n, "%.*s", (int)v->len, p->src + v->pos);
	return buf;
}

/* A duration field: "20ms", or a bare 0. */
static int value_duration(struct fparser *p, enum ffield fld, const struct ftoken *v,
			  uint64_t *out)
{
	char b[64];

	if (v->type == TK_NUM && v->unit == UNIT_DURATION) {
		*out = v->val;
		return 0;
	}
	if (v->type == TK_NUM && v->unit == UNIT_NONE && v->val == 0 && !v->frac) {
		*out = 0;
		return 0;
	}
	if (v->type == TK_NUM && v->unit == UNIT_NONE)
		return fail_at(p, v, "'%s' needs a unit: %s is ambiguous (ns us ms s m h)",
			       field_name(fld), describe(p, v, b, sizeof(b)));
	return fail_at(p, v, "'%s' takes a duration (e.g. 20ms), not %s", field_name(fld),
		       describe(p, v, b, sizeof(b)));
}

static int value_plain(struct fparser *p, enum ffield fld, const struct ftoken *v,
		       bool sizes, uint64_t *out)
{
	char b[64];

	if (v->type == TK_NUM && (v->unit == UNIT_NONE || (sizes && v->unit == UNIT_SIZE))) {
		if (v->frac && v->unit == UNIT_NONE)
			return fail_at(p, v, "'%s' takes a whole number, not %s",
				       field_name(fld), describe(p, v, b, sizeof(b)));
		*out = v->val;
		return 0;
	}
	return fail_at(p, v, "'%s' takes %s, not %s", field_name(fld),
		       sizes ? "a size (e.g. 4k)" : "a number", describe(p, v, b, sizeof(b)));
}

/* A name from a word list: phase, op, errno, flag. */
static int value_name(struct fparser *p, enum ffield fld, const struct ftoken *v,
		      uint64_t *out)
{
	const char *s;
	char b[64];
	int r;

	if (v->type != TK_IDENT && v->type != TK_STR)
		return fail_at(p, v, "'%s' takes a name, not %s", field_name(fld),
			       describe(p, v, b, sizeof(b)));
	s = v->str;
	switch (fld) {
	case FF_PHASE:
		r = vxt_phase_parse(s);
		if (r < 0)
			return fail_at(p, v, "unknown phase '%s' (start done requeue lost mark "
				       "queue merge insert plug unplug remap split getrq)", s);
		break;
	case FF_OP:
		r = vxt_op_parse(s);
		if (r < 0)
			return fail_at(p, v, "unknown op '%s' (read write flush discard "
				       "write-zeroes passthru other)", s);
		break;
	case FF_ERROR:
		r = vxt_errno_parse(s);
		if (r <= 0)
			return fail_at(p, v, "unknown errno name '%s'", s);
		break;
	default:		/* FF_FLAGS */
		r = (int)vxt_flag_parse(s);
		if (!r)
			return fail_at(p, v, "unknown flag '%s' (sync fua meta preflush "
				       "recovery rahead bio)", s);
		break;
	}
	*out = (uint64_t)r;
	return 0;
}

/* Map a comparison token to a test op and whether the successors swap. */
static void relop(enum ftok cmp, enum fop *op, bool *negate)
{
	switch (cmp) {
	case TK_NE: *op = FO_EQ; *negate = true; break;
	case TK_LT: *op = FO_LT; *negate = false; break;
	case TK_LE: *op = FO_LE; *negate = false; break;
	case TK_GT: *op = FO_LE; *negate = true; break;
	case TK_GE: *op = FO_LT; *negate = true; break;
	default: *op = FO_EQ; *negate = false; break;
	}
}

static bool is_order(enum ftok cmp)
{
	return cmp == TK_LT || cmp == TK_LE || cmp == TK_GT || cmp == TK_GE;
}

static int name_test(struct fparser *p, enum ffield fld, enum ftok cmp,
		     const struct ftoken *v)
{
	char b[64];
	bool glob = cmp == TK_MATCH || cmp == TK_NMATCH;
	int n;

	if (v->type == TK_DEV)
		return fail_at(p, v, "'%s' takes a name, not %s", field_name(fld),
			       describe(p, v, b, sizeof(b)));
	n = new_test(p, v, fld, glob ? FO_GLOB : FO_STREQ, cmp == TK_NE || cmp == TK_NMATCH);
	if (n < 0 || pool_add(p, value_text(p, v, b, sizeof(b)), &p->nodes[n].test.str) < 0)
		return -1;
	return n;
}

/* One comparison of @fld against value token @v. */
static int make_test(struct fparser *p, enum ffield fld, enum ftok cmp,
		     const struct ftoken *op, const struct ftoken *v)
{
	char b[64];
	enum fop fop;
	bool neg;
	uint64_t val = 0;
	int n, rc;

	bool named = fld == FF_OBJECT || fld == FF_COMM || fld == FF_HOST;

	if ((cmp == TK_MATCH || cmp == TK_NMATCH) && !named)
		return fail_at(p, op, "%s applies to object, host and comm only",
			       describe(p, op, b, sizeof(b)));
	if (named) {
		if (is_order(cmp))
			return fail_at(p, op, "%s does not apply to '%s' (use == != in ~)",
				       describe(p, op, b, sizeof(b)), field_name(fld));
		return name_test(p, fld, cmp, v);
	}
	relop(cmp, &fop, &neg);
	if (is_interval(fld)) {	/* known && the comparison: false when unknown */
		int set, cmpn;

		if (value_duration(p, fld, v, &val) < 0)
			return -1;
		if (fop == FO_LT && val == 0)
			cmpn = new_node(p, neg ? N_TRUE : N_FALSE, -1, -1);
		else if ((cmpn = new_test(p, v, fld, fop, neg)) >= 0)
			p->nodes[cmpn].test.val = val;
		set = cmpn < 0 ? -1 : new_test(p, v, fld, FO_SET, false);
		return set < 0 ? -1 : new_node(p, N_AND, set, cmpn);
	}
	switch (fld) {
	case FF_TIME:
	case FF_LATENCY:
		rc = value_duration(p, fld, v, &val);
		break;
	case FF_BYTES:
		rc = value_plain(p, fld, v, true, &val);
		break;
	case FF_DEV:
		if (v->type == TK_DEV) {
			val = v->val;
			rc = 0;
		} else {
			rc = value_plain(p, fld, v, false, &val);
		}
		if (rc == 0) {
			n = new_test(p, v, fld, FO_DEVCMP, neg);
			if (n < 0)
				return -1;
			p->nodes[n].test.aux = fop;
			p->nodes[n].test.val = val;
			return n;
		}
		break;
	case FF_PHASE:
	case FF_OP:
		if (is_order(cmp))
			return fail_at(p, op, "%s does not apply to '%s' (use == != in)",
				       describe(p, op, b, sizeof(b)), field_name(fld));
		rc = value_name(p, fld, v, &val);
		break;
	case FF_ERROR:
		if (v->type == TK_IDENT || v->type == TK_STR)
			rc = value_name(p, fld, v, &val);
		else
			rc = value_plain(p, fld, v, false, &val);
		break;
	case FF_FLAGS:
		if (v->type == TK_IDENT || v->type == TK_STR) {
			if (is_order(cmp))
				return fail_at(p, op, "%s does not apply to a flag name (use == !=)",
					       describe(p, op, b, sizeof(b)));
			rc = value_name(p, fld, v, &val);
			fop = FO_BITS;
		} else {
			rc = value_plain(p, fld, v, false, &val);
		}
		break;
	default:		/* sector pid cpu */
		rc = value_plain(p, fld, v, false, &val);
		break;
	}
	if (rc < 0)
		return -1;
	if (fop == FO_LT && val == 0)	/* nothing is below 0 */
		return new_node(p, neg ? N_TRUE : N_FALSE, -1, -1);
	n = new_test(p, v, fld, fop, neg);
	if (n < 0)
		return -1;
	p->nodes[n].test.val = val;
	return n;
}

/* ---- grammar ---- */

static int parse_or(struct fparser *p);

static int parse_in(struct fparser *p, enum ffield fld, const struct ftoken *in)
{
	struct ftoken v, open;
	char b[64];
	int res = -1, n;

	if (next(p) < 0)
		return -1;
	if (p->tok.type != TK_LPAREN)
		return fail_at(p, &p->tok, "expected '(' after 'in'");
	open = p->tok;
	v = open;
	for (;;) {
		if (next(p) < 0)
			return -1;
		if (!is_value(&p->tok))
			return fail_at(p, &p->tok, "expected a value after %s",
				       describe(p, res < 0 ? &open : &v, b, sizeof(b)));
		v = p->tok;
		n = make_test(p, fld, TK_EQ, in, &v);
		if (n < 0)
			return -1;
		res = res < 0 ? n : new_node(p, N_OR, res, n);
		if (res < 0 || next(p) < 0)
			return -1;
		v = p->tok;	/* for "after ','" */
		if (p->tok.type == TK_RPAREN)
			break;
		if (p->tok.type != TK_COMMA)
			return fail_at(p, &p->tok, "expected ',' or ')' in the list, not %s",
				       describe(p, &p->tok, b, sizeof(b)));
	}
	return next(p) < 0 ? -1 : res;
}

static int parse_field(struct fparser *p, enum ffield fld, const struct ftoken *name)
{
	struct ftoken op;
	char b[64];
	enum ftok t = p->tok.type;
	int n;

	if (t == TK_IDENT && !strcmp(p->tok.str, "in")) {
		op = p->tok;
		return parse_in(p, fld, &op);
	}
	if (t < TK_EQ || t > TK_NMATCH) {
		if (fld == FF_ERROR) {	/* bare error: true on failure */
			n = new_test(p, name, FF_ERROR, FO_EQ, true);
			return n;
		}
		if (is_interval(fld))	/* bare interval: it is known */
			return new_test(p, name, fld, FO_SET, false);
		return fail_at(p, &p->tok, "expected a comparison after '%s', not %s",
			       field_name(fld), describe(p, &p->tok, b, sizeof(b)));
	}
	op = p->tok;
	if (next(p) < 0)
		return -1;
	if (!is_value(&p->tok))
		return fail_at(p, &p->tok, "expected a value after %s",
			       describe(p, &op, b, sizeof(b)));
	n = make_test(p, fld, t, &op, &p->tok);
	if (n < 0 || next(p) < 0)
		return -1;
	return n;
}

static int parse_primary(struct fparser *p)
{
	struct ftoken t = p->tok;
	char b[64];
	int n;

	if (t.type == TK_LPAREN) {
		if (next(p) < 0 || (n = parse_or(p)) < 0)
			return -1;
		if (p->tok.type != TK_RPAREN)
			return fail_at(p, &p->tok, "expected ')' to close '(' at %u:%u, not %s",
				       t.line, t.col, describe(p, &p->tok, b, sizeof(b)));
		return next(p) < 0 ? -1 : n;
	}
	if (t.type != TK_IDENT) {
		if (t.type == TK_END && p->ntokens == 1)
			return fail_at(p, &t, "empty expression");
		return fail_at(p, &t, "expected a field, '(' or '!', not %s",
			       describe(p, &t, b, sizeof(b)));
	}
	if (!strcmp(t.str, "true") || !strcmp(t.str, "false"))
		return next(p) < 0 ? -1 : new_node(p, t.str[0] == 't' ? N_TRUE : N_FALSE, -1, -1);
	if (!strcmp(t.str, "spec")) {
		if (!(p->flags & VXT_FILTER_SPEC))
			return fail_at(p, &t, "'spec' is only known in speculation predicates");
		n = new_test(p, &t, FF_SPEC, FO_TRUE, false);
		return n < 0 || next(p) < 0 ? -1 : n;
	}
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (!strcmp(t.str, field_names[i].name))
			return next(p) < 0 ? -1 : parse_field(p, field_names[i].field, &t);
	return fail_at(p, &t, "unknown field '%s' (%s)", t.str, field_list);
}

static int parse_unary(struct fparser *p)
{
	struct ftoken t = p->tok;
	int n;

	if (++p->depth > VXT_FILTER_MAX_DEPTH)
		return fail_at(p, &t, "expression nested too deeply (more than %d levels)",
			       VXT_FILTER_MAX_DEPTH);
	if (t.type == TK_NOT) {
		if (next(p) < 0 || (n = parse_unary(p)) < 0)
			return -1;
		n = new_node(p, N_NOT, n, -1);
	} else {
		n = parse_primary(p);
	}
	p->depth--;
	return n;
}

static int parse_and(struct fparser *p)
{
	int a = parse_unary(p), b;

	while (a >= 0 && p->tok.type == TK_AND) {
		if (next(p) < 0 || (b = parse_unary(p)) < 0)
			return -1;
		a = new_node(p, N_AND, a, b);
	}
	return a;
}

static int parse_or(struct fparser *p)
{
	int a = parse_and(p), b;

	while (a >= 0 && p->tok.type == TK_OR) {
		if (next(p) < 0 || (b = parse_and(p)) < 0)
			return -1;
		a = new_node(p, N_OR, a, b);
	}
	return a;
}

/* ---- layout ---- */

/* Lay out @node so that it continues at @t when true and @f when false;
 * @return the index where it starts (which may be @t or @f itself). */
static uint16_t gen(struct fparser *p, int node, uint16_t t, uint16_t f)
{
	const struct fnode *n = &p->nodes[node];
	struct ftest *ft;

	switch (n->kind) {
	case N_TRUE:
		return t;
	case N_FALSE:
		return f;
	case N_NOT:
		return gen(p, n->a, f, t);
	case N_AND:
		return gen(p, n->a, gen(p, n->b, t, f), f);
	case N_OR:
		return gen(p, n->a, t, gen(p, n->b, t, f));
	default:
		ft = &p->f->tests[p->f->ntests];
		*ft = n->test;
		vxt_ftest_lower(ft);
		ft->t = n->negate ? f : t;
		ft->f = n->negate ? t : f;
		return (uint16_t)p->f->ntests++;
	}
}

static void format_error(const struct fparser *p, const struct vxt_filter_opts *o,
			 struct vxt_filter_error *e, char *err)
{
	unsigned line0 = o && o->line ? o->line : 1, col0 = o && o->col ? o->col : 1;
	struct vxt_filter_error tmp;

	if (!e)
		e = &tmp;
	e->line = line0 + p->eline - 1;
	e->col = p->eline == 1 ? col0 + p->ecol - 1 : p->ecol;
	snprintf(e->msg, sizeof(e->msg), "%s", p->emsg);
	/* messages quote the expression: one line, no terminal controls */
	for (char *m = e->msg; *m; m++)
		if ((unsigned char)*m < 0x20 || *m == 0x7f)
			*m = '?';
	if (err)
		snprintf(err, VXT_ERRBUF_SIZE, "%s:%u:%u: %s", o && o->name ? o->name : "filter",
			 e->line, e->col, e->msg);
}

static struct vxt_filter *build(struct fparser *p, int root, const char *expr)
{
	struct vxt_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->tests = calloc(p->ntests ? p->ntests : 1, sizeof(*f->tests));
	f->src = strdup(expr);
	f->pool = p->pool;
	p->pool = NULL;
	if (!f->tests || !f->src) {
		vxt_filter_free(f);
		return NULL;
	}
	p->f = f;
	f->entry = gen(p, root, FT_ACCEPT, FT_REJECT);
	if (vxt_filter_make_programs(f) < 0) {
		vxt_filter_free(f);
		return NULL;
	}
	return f;
}

struct vxt_filter *vxt_filter_compile_opts(const char *expr, const struct vxt_filter_opts *o,
					   const struct vxt_objtab *objs,
					   const struct vxt_strtab *strs,
					   struct vxt_filter_error *e,
					   char err[VXT_ERRBUF_SIZE])
{
	struct fparser p = { .src = expr, .flags = o ? o->flags : 0 };
	struct vxt_filter *f = NULL;
	size_t len = strlen(expr);
	char *strbuf;
	int root = -1;

	if (len > VXT_FILTER_MAX_LEN) {
		p.failed = true;
		p.eline = p.ecol = 1;
		snprintf(p.emsg, sizeof(p.emsg), "expression too long (more than %d bytes)",
			 VXT_FILTER_MAX_LEN);
		goto out_error;
	}
	strbuf = malloc(2 * len + 2);
	if (!strbuf)
		goto out_nomem;
	vxt_flex_init(&p.lx, expr, strbuf, 2 * len + 2);
	if (next(&p) == 0)
		root = parse_or(&p);
	if (root >= 0 && p.tok.type != TK_END) {
		char b[64];

		fail_at(&p, &p.tok, p.tok.type == TK_RPAREN ? "unbalanced %s" :
			"expected '&&' or '||' before %s", describe(&p, &p.tok, b, sizeof(b)));
	}
	if (!p.failed)
		f = build(&p, root, expr);
	free(strbuf);
	free(p.nodes);
	free(p.pool);
	if (p.nomem || (!p.failed && !f))
		goto out_nomem;
	if (p.failed)
		goto out_error;
	vxt_filter_bind(f, objs, strs);
	return f;

out_error:
	format_error(&p, o, e, err);
	return NULL;
out_nomem:
	if (e) {
		e->line = e->col = 1;
		snprintf(e->msg, sizeof(e->msg), "out of memory");
	}
	if (err)
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", o && o->name ? o->name : "filter");
	return NULL;
}

struct vxt_filter *vxt_filter_compile(const char *expr, const struct vxt_objtab *objs,
				      const struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE])
{
	return vxt_filter_compile_opts(expr, NULL, objs, strs, NULL, err);
}
