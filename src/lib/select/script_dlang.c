/* script_dlang.c - D's names for block I/O, lowered to the event's fields
 *
 * The io provider's translators (args[0] as illumos's bufinfo_t or
 * FreeBSD's struct bio, args[1] as devinfo_t or devstat, args[2] as
 * fileinfo_t), curpsinfo and curthread members, D's built-in variables
 * (uid, ppid, tid, arg0, walltimestamp) and constants (B_READ, BIO_WRITE,
 * ...) become plain tree nodes over the fields every script reads: a
 * member is a field, a constant or a small expression of fields
 * (b_flags is `op == "read" ? B_READ : B_WRITE` with B_ASYNC and B_ERROR).
 * What a block trace does not hold reads as a stand-in (uid 0, pr_psargs
 * the command name) and is named once in the script's load warning.
 * `inline` constants and constant folding (a `?:` statement with a
 * constant condition is the operand it picks) are here too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "select/script_parser.h"

/* illumos sys/buf.h */
#define B_BUSY		0x0001
#define B_DONE		0x0002
#define B_ERROR		0x0004
#define B_KERNBUF	0x0008
#define B_PAGEIO	0x0010
#define B_PHYS		0x0020
#define B_READ		0x0040
#define B_WANTED	0x0080
#define B_WRITE		0x0100
#define B_AGE		0x0200
#define B_ASYNC		0x0400
#define B_DELWRI	0x0800

/* FreeBSD sys/bio.h */
#define BIO_READ	0x01
#define BIO_WRITE	0x02
#define BIO_DELETE	0x03
#define BIO_GETATTR	0x04
#define BIO_FLUSH	0x05

static const struct { const char *name; int64_t val; } consts[] = {
	{ "B_BUSY", B_BUSY }, { "B_DONE", B_DONE }, { "B_ERROR", B_ERROR },
	{ "B_KERNBUF", B_KERNBUF }, { "B_PAGEIO", B_PAGEIO }, { "B_PHYS", B_PHYS },
	{ "B_READ", B_READ }, { "B_WANTED", B_WANTED }, { "B_WRITE", B_WRITE },
	{ "B_AGE", B_AGE }, { "B_ASYNC", B_ASYNC }, { "B_DELWRI", B_DELWRI },
	{ "BIO_READ", BIO_READ }, { "BIO_WRITE", BIO_WRITE }, { "BIO_DELETE", BIO_DELETE },
	{ "BIO_GETATTR", BIO_GETATTR }, { "BIO_FLUSH", BIO_FLUSH },
	{ "DEV_BSIZE", 512 }, { "NULL", 0 },
};

/* How a member reads. */
enum lower {
	L_FIELD,	/* the field arg */
	L_INT,		/* the constant arg */
	L_STR,		/* the string str */
	L_BFLAGS, L_BIOCMD, L_RESID, L_MAJOR, L_MINOR, L_OFFSET,
};

struct member {
	const char *name;
	uint8_t how;		/* enum lower */
	int64_t arg;
	const char *str;
	const char *standin;	/* not in block traces: what it reads instead */
};

static const struct member bufinfo[] = {	/* args[0]: bufinfo_t, struct bio */
	{ "b_flags", L_BFLAGS, 0, NULL, NULL }, { "b_bcount", L_FIELD, SF_BYTES, NULL, NULL },
	{ "b_bufsize", L_FIELD, SF_BYTES, NULL, NULL }, { "b_resid", L_RESID, 0, NULL, NULL },
	{ "b_blkno", L_FIELD, SF_SECTOR, NULL, NULL },
	{ "b_lblkno", L_FIELD, SF_SECTOR, NULL, NULL },
	{ "b_error", L_FIELD, SF_ERROR, NULL, NULL }, { "b_edev", L_FIELD, SF_DEV, NULL, NULL },
	{ "b_addr", L_INT, 0, NULL, "args[0]->b_addr reads 0" },
	{ "b_file", L_INT, 0, NULL, "args[0]->b_file reads 0" },
	{ "bio_cmd", L_BIOCMD, 0, NULL, NULL }, { "bio_bcount", L_FIELD, SF_BYTES, NULL, NULL },
	{ "bio_length", L_FIELD, SF_BYTES, NULL, NULL }, { "bio_offset", L_OFFSET, 0, NULL, NULL },
	{ "bio_pblkno", L_FIELD, SF_SECTOR, NULL, NULL }, { "bio_error", L_FIELD, SF_ERROR, NULL, NULL },
	{ "bio_resid", L_RESID, 0, NULL, NULL }, { "bio_completed", L_FIELD, SF_BYTES, NULL, NULL },
	{ "bio_flags", L_INT, 0, NULL, "args[0]->bio_flags reads 0" },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct member devinfo[] = {	/* args[1]: devinfo_t, struct devstat */
	{ "dev_major", L_MAJOR, 0, NULL, NULL }, { "dev_minor", L_MINOR, 0, NULL, NULL },
	{ "dev_instance", L_MINOR, 0, NULL, NULL },
	{ "dev_name", L_FIELD, SF_OBJECT, NULL, NULL },
	{ "dev_statname", L_FIELD, SF_OBJECT, NULL, NULL },
	{ "dev_pathname", L_FIELD, SF_OBJECT, NULL,
	  "args[1]->dev_pathname reads the device's name" },
	{ "device_name", L_FIELD, SF_OBJECT, NULL, NULL },
	{ "unit_number", L_MINOR, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};

/* DTrace's own values for an I/O without a file: a block trace has none. */
static const struct member fileinfo[] = {	/* args[2]: fileinfo_t */
	{ "fi_name", L_STR, 0, "<none>", "fileinfo_t reads as for an I/O with no file" },
	{ "fi_dirname", L_STR, 0, "<none>", "fileinfo_t reads as for an I/O with no file" },
	{ "fi_pathname", L_STR, 0, "<none>", "fileinfo_t reads as for an I/O with no file" },
	{ "fi_fs", L_STR, 0, "<none>", "fileinfo_t reads as for an I/O with no file" },
	{ "fi_mount", L_STR, 0, "<none>", "fileinfo_t reads as for an I/O with no file" },
	{ "fi_offset", L_INT, -1, NULL, "fileinfo_t reads as for an I/O with no file" },
	{ "fi_oflags", L_INT, 0, NULL, "fileinfo_t reads as for an I/O with no file" },
	{ NULL, 0, 0, NULL, NULL },
};

static const struct member psinfo[] = {	/* curpsinfo (psinfo_t), curthread */
	{ "pr_psargs", L_FIELD, SF_COMM, NULL, "curpsinfo->pr_psargs reads the command name" },
	{ "pr_fname", L_FIELD, SF_COMM, NULL, NULL }, { "pr_pid", L_FIELD, SF_PID, NULL, NULL },
	{ "pr_ppid", L_INT, 0, NULL, "curpsinfo->pr_ppid reads 0" },
	{ "pr_uid", L_INT, 0, NULL, "curpsinfo->pr_uid reads 0" },
	{ "pr_euid", L_INT, 0, NULL, "curpsinfo->pr_euid reads 0" },
	{ "pr_gid", L_INT, 0, NULL, "curpsinfo->pr_gid reads 0" },
	{ "pr_projid", L_INT, 0, NULL, "curpsinfo->pr_projid reads 0" },
	{ "pr_zoneid", L_INT, 0, NULL, "curpsinfo->pr_zoneid reads 0" },
	{ "pr_taskid", L_INT, 0, NULL, "curpsinfo->pr_taskid reads 0" },
	{ NULL, 0, 0, NULL, NULL },
};

/* D's built-in variables beyond the event's fields. */
static const struct member builtins[] = {
	{ "uid", L_INT, 0, NULL, "uid reads 0" }, { "gid", L_INT, 0, NULL, "gid reads 0" },
	{ "ppid", L_INT, 0, NULL, "ppid reads 0" },
	{ "tid", L_FIELD, SF_PID, NULL, "tid reads the pid" },
	{ "arg0", L_FIELD, SF_ARG0, NULL, NULL },
	{ "walltimestamp", L_FIELD, SF_WALLTIMESTAMP, NULL, NULL },
	{ "zonename", L_STR, 0, "global", NULL }, { "projid", L_INT, 0, NULL, "projid reads 0" },
	{ NULL, 0, 0, NULL, NULL },
};

/* ---- warnings ---- */

void vxt_script_warn(struct vxt_script *s, const char *what)
{
	size_t n = strlen(s->warn);

	if (strstr(s->warn, what))
		return;		/* named once */
	snprintf(s->warn + n, sizeof(s->warn) - n, "%s%s", n ? "; " : "", what);
}

/* ---- nodes ---- */

static struct snode *lower_tree(struct sparser *p, const struct stoken *at,
				const struct member *m);

static struct snode *mk(struct sparser *p, enum snk kind, const struct stoken *at)
{
	struct snode *n = vxt_script_alloc(p->s, sizeof(*n));

	if (!n) {
		p->rc = -ENOMEM;
		return NULL;
	}
	n->kind = (uint8_t)kind;
	n->line = at->line;
	n->col = at->col;
	return n;
}

static struct snode *mk_num(struct sparser *p, const struct stoken *at, int64_t v)
{
	struct snode *n = mk(p, SN_NUM, at);

	if (n)
		n->num = v;
	return n;
}

static struct snode *mk_str(struct sparser *p, const struct stoken *at, const char *str)
{
	struct snode *n = mk(p, SN_STR, at);

	if (n)
		n->str = str;	/* a constant of this file */
	return n;
}

static struct snode *mk_field(struct sparser *p, const struct stoken *at, int f)
{
	struct snode *n = mk(p, SN_FIELD, at);

	if (n) {
		n->idx = f;
		n->str = vxt_script_field_name(f);
	}
	return n;
}

static struct snode *mk_bin(struct sparser *p, const struct stoken *at, enum snk kind, int op,
			    struct snode *a, struct snode *b)
{
	struct snode *n = a && b ? mk(p, kind, at) : NULL;

	if (n) {
		n->op = op;
		n->a = a;
		n->b = b;
	}
	return n;
}

static struct snode *mk_cond(struct sparser *p, const struct stoken *at, struct snode *c,
			     struct snode *a, struct snode *b)
{
	struct snode *n = c && a && b ? mk(p, SN_COND, at) : NULL;

	if (n) {
		n->a = c;
		n->b = a;
		n->c = b;
	}
	return n;
}

/* op == "@name" */
static struct snode *op_is(struct sparser *p, const struct stoken *at, const char *name)
{
	return mk_bin(p, at, SN_BINARY, ST_EQ, mk_field(p, at, SF_OP), mk_str(p, at, name));
}

/* The tree of member @m; a stand-in is marked on its node, for the load
 * warning when the node survives folding (script_check.c). */
static struct snode *lower(struct sparser *p, const struct stoken *at, const struct member *m)
{
	struct snode *n = lower_tree(p, at, m);

	if (n)
		n->standin = m->standin;
	return n;
}

static struct snode *lower_tree(struct sparser *p, const struct stoken *at,
				const struct member *m)
{
	const struct stoken *t = at;

	switch (m->how) {
	case L_FIELD:
		return mk_field(p, t, (int)m->arg);
	case L_INT:
		return mk_num(p, t, m->arg);
	case L_STR:
		return mk_str(p, t, m->str);
	case L_BFLAGS:	/* B_READ or B_WRITE, B_ASYNC unless sync, B_ERROR on failure */
		return mk_bin(p, t, SN_BINARY, ST_OR,
			      mk_bin(p, t, SN_BINARY, ST_OR,
				     mk_cond(p, t, op_is(p, t, "read"), mk_num(p, t, B_READ),
					     mk_num(p, t, B_WRITE)),
				     mk_cond(p, t, mk_bin(p, t, SN_BINARY, ST_AND,
							  mk_field(p, t, SF_FLAGS),
							  mk_num(p, t, VXT_F_SYNC)),
					     mk_num(p, t, 0), mk_num(p, t, B_ASYNC))),
			      mk_cond(p, t, mk_field(p, t, SF_ERROR), mk_num(p, t, B_ERROR),
				      mk_num(p, t, 0)));
	case L_BIOCMD:
		return mk_cond(p, t, op_is(p, t, "read"), mk_num(p, t, BIO_READ),
			       mk_cond(p, t, op_is(p, t, "write"), mk_num(p, t, BIO_WRITE),
				       mk_cond(p, t, op_is(p, t, "discard"), mk_num(p, t, BIO_DELETE),
					       mk_cond(p, t, op_is(p, t, "flush"),
						       mk_num(p, t, BIO_FLUSH),
						       mk_num(p, t, BIO_GETATTR)))));
	case L_RESID:	/* a failed I/O transferred nothing */
		return mk_cond(p, t, mk_field(p, t, SF_ERROR), mk_field(p, t, SF_BYTES),
			       mk_num(p, t, 0));
	case L_MAJOR:
		return mk_bin(p, t, SN_BINARY, ST_SHR, mk_field(p, t, SF_DEV), mk_num(p, t, 20));
	case L_MINOR:
		return mk_bin(p, t, SN_BINARY, ST_AND, mk_field(p, t, SF_DEV),
			      mk_num(p, t, 0xfffff));
	case L_OFFSET:
		return mk_bin(p, t, SN_BINARY, ST_STAR, mk_field(p, t, SF_SECTOR),
			      mk_num(p, t, 512));
	}
	return NULL;
}

static const struct member *find(const struct member *tab, const char *name)
{
	for (; tab->name; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

/* "-> member" after @what. @return the member's name (lexer-owned) or NULL. */
static const char *arrow_member(struct sparser *p, const char *what)
{
	struct stoken *t;

	if (vxt_sp_peek(p)->type != ST_ARROW) {
		t = vxt_sp_peek(p);
		vxt_script_fail(p->s, p->err, t->line, t->col,
				"%s is a structure: name one of its members (%s->...)", what, what);
		return NULL;
	}
	vxt_sp_take(p);
	t = vxt_sp_peek(p);
	if (t->type != ST_IDENT) {
		vxt_sp_syntax(p, t);
		return NULL;
	}
	vxt_sp_take(p);
	return t->str;
}

/* args[N]->member */
static struct snode *args_member(struct sparser *p, const struct stoken *at)
{
	static const char *const types[] = { "bufinfo_t", "devinfo_t", "fileinfo_t" };
	static const struct member *const tabs[] = { bufinfo, devinfo, fileinfo };
	struct stoken *t;
	const struct member *m;
	const char *name;
	char what[16];
	int64_t i;

	vxt_sp_take(p);		/* [ */
	t = vxt_sp_peek(p);
	if (t->type != ST_NUM) {
		vxt_sp_syntax(p, t);
		return NULL;
	}
	i = t->num;
	vxt_sp_take(p);
	if (vxt_sp_expect(p, ST_RBRACK) < 0)
		return NULL;
	if (i < 0 || i > 2) {
		vxt_script_fail(p->s, p->err, at->line, at->col,
				"index %lld is out of range for args[ ] (the io provider has "
				"args[0] to args[2])", (long long)i);
		return NULL;
	}
	snprintf(what, sizeof(what), "args[%d]", (int)i);
	name = arrow_member(p, what);
	if (!name)
		return NULL;
	m = find(tabs[i], name);
	if (!m) {
		vxt_script_fail(p->s, p->err, at->line, at->col,
				"%s has no member %s in block traces (%s)", types[i], name,
				i == 0 ? "b_flags b_bcount b_bufsize b_resid b_blkno b_lblkno b_error "
					 "b_edev; bio_cmd bio_bcount bio_length bio_offset bio_error" :
				i == 1 ? "dev_major dev_minor dev_instance dev_name dev_statname "
					 "dev_pathname; device_name unit_number" :
				"fi_name fi_dirname fi_pathname fi_fs fi_mount fi_offset fi_oflags");
		return NULL;
	}
	return lower(p, at, m);
}

/* Inline constants: name -> its tree (a node list in parse order). */
struct sinline {
	const char *name;
	struct snode *val;
	struct sinline *next;
};

static struct snode *copy_tree(struct sparser *p, const struct snode *n)
{
	struct snode *c;

	if (!n)
		return NULL;
	c = vxt_script_alloc(p->s, sizeof(*c));
	if (!c) {
		p->rc = -ENOMEM;
		return NULL;
	}
	*c = *n;
	if ((n->a && !(c->a = copy_tree(p, n->a))) || (n->b && !(c->b = copy_tree(p, n->b))) ||
	    (n->c && !(c->c = copy_tree(p, n->c))))
		return NULL;
	if (n->nargs) {
		c->args = vxt_script_alloc(p->s, n->nargs * sizeof(*c->args));
		if (!c->args)
			return NULL;
		for (unsigned i = 0; i < n->nargs; i++)
			if (!(c->args[i] = copy_tree(p, n->args[i])))
				return NULL;
	}
	return c;
}

/* $N (an integer, or a string when not a number), $$N (a string); with
 * defaultargs, one not given reads 0 or "". */
static struct snode *macro_arg(struct sparser *p, const struct stoken *at)
{
	const char *name = at->str;
	bool str = name[1] == '$';
	const char *digits = name + (str ? 2 : 1);
	char *end;
	unsigned long n = strtoul(digits, &end, 10);
	const char *v;

	if (!*digits || *end)
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "macro variable %s is not available in block traces "
				       "($1 ... $9, $$1 ...)", name), NULL;
	if (n == 0)
		v = p->s->name;
	else if (n <= p->s->nmargs)
		v = p->s->margs[n - 1];
	else if (p->s->opt_defaultargs)
		v = NULL;
	else
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "macro argument %s is not defined (give it after --, or "
				       "#pragma D option defaultargs)", name), NULL;
	if (!v)
		return str ? mk_str(p, at, "") : mk_num(p, at, 0);
	if (!str) {
		long long i = strtoll(v, &end, 0);

		if (*v && !*end)
			return mk_num(p, at, i);
	}
	{
		char *kept = vxt_script_alloc(p->s, strlen(v) + 1);

		if (!kept) {
			p->rc = -ENOMEM;
			return NULL;
		}
		memcpy(kept, v, strlen(v) + 1);
		return mk_str(p, at, kept);
	}
}

struct snode *vxt_sd_ident(struct sparser *p, const struct stoken *at, bool *handled)
{
	const char *name = at->str;
	const struct member *m;
	struct stoken *t = vxt_sp_peek(p);

	*handled = true;
	for (struct sinline *in = p->inlines; in; in = in->next)
		if (!strcmp(in->name, name))
			return copy_tree(p, in->val);
	if (!strcmp(name, "args") && t->type == ST_LBRACK)
		return args_member(p, at);
	if (!strcmp(name, "curpsinfo") || !strcmp(name, "curthread") ||
	    !strcmp(name, "curlwpsinfo")) {
		const char *mem = arrow_member(p, name);

		if (!mem)
			return NULL;
		m = name[3] == 'p' ? find(psinfo, mem) : NULL;
		if (!m) {
			vxt_script_fail(p->s, p->err, at->line, at->col,
					"%s->%s is not available in block traces (curpsinfo: "
					"pr_psargs pr_fname pr_pid pr_ppid pr_uid pr_projid "
					"pr_zoneid)", name, mem);
			return NULL;
		}
		return lower(p, at, m);
	}
	if (name[0] == '$')
		return macro_arg(p, at);
	if (name[0] == '`') {	/* a kernel variable */
		char *what = vxt_script_alloc(p->s, 160);
		struct snode *n;

		if (!what) {
			p->rc = -ENOMEM;
			return NULL;
		}
		snprintf(what, 160, "%.60s reads 0 (kernel variables are not in block traces)",
			 name);
		if (t->type == ST_LBRACK) {	/* `sym[i]: the index goes too */
			vxt_sp_take(p);
			if (!vxt_sp_expr(p) || vxt_sp_expect(p, ST_RBRACK) < 0)
				return NULL;
		}
		n = mk_num(p, at, 0);
		if (n)
			n->standin = what;
		return n;
	}
	if (t->type == ST_LPAREN || t->type == ST_LBRACK) {
		*handled = false;
		return NULL;
	}
	m = find(builtins, name);
	if (m)
		return lower(p, at, m);
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (!strcmp(consts[i].name, name))
			return mk_num(p, at, consts[i].val);
	*handled = false;
	return NULL;
}

/* ---- constant folding ---- */

bool vxt_sd_const(const struct snode *n, int64_t *v)
{
	int64_t a, b;

	if (!n)
		return false;
	switch (n->kind) {
	case SN_NUM:
		*v = n->num;
		return true;
	case SN_UNARY:
		if (!vxt_sd_const(n->a, &a))
			return false;
		*v = n->op == ST_NOT ? !a : n->op == ST_TILDE ? ~a : (int64_t)(0 - (uint64_t)a);
		return true;
	case SN_AND:
		if (!vxt_sd_const(n->a, &a))
			return false;
		if (!a) {
			*v = 0;
			return true;
		}
		if (!vxt_sd_const(n->b, &b))
			return false;
		*v = b != 0;
		return true;
	case SN_OR:
		if (!vxt_sd_const(n->a, &a))
			return false;
		if (a) {
			*v = 1;
			return true;
		}
		if (!vxt_sd_const(n->b, &b))
			return false;
		*v = b != 0;
		return true;
	case SN_COND:
		if (!vxt_sd_const(n->a, &a))
			return false;
		return vxt_sd_const(a ? n->b : n->c, v);
	case SN_BINARY:
		if (n->a->kind == SN_STR && n->b->kind == SN_STR &&
		    (n->op == ST_EQ || n->op == ST_NE)) {
			*v = (strcmp(n->a->str, n->b->str) == 0) == (n->op == ST_EQ);
			return true;
		}
		if (!vxt_sd_const(n->a, &a) || !vxt_sd_const(n->b, &b))
			return false;
		switch (n->op) {
		case ST_EQ: *v = a == b; return true;
		case ST_NE: *v = a != b; return true;
		case ST_LT: *v = a < b; return true;
		case ST_LE: *v = a <= b; return true;
		case ST_GT: *v = a > b; return true;
		case ST_GE: *v = a >= b; return true;
		case ST_PLUS: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
		case ST_MINUS: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
		case ST_STAR: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
		case ST_SLASH: case ST_PERCENT:
			if (!b || (a == INT64_MIN && b == -1))
				return false;
			*v = n->op == ST_SLASH ? a / b : a % b;
			return true;
		case ST_OR: *v = a | b; return true;
		case ST_XOR: *v = a ^ b; return true;
		case ST_AND: *v = a & b; return true;
		case ST_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
		case ST_SHR: *v = a >> (b & 63); return true;
		default: return false;
		}
	default:
		return false;
	}
}

/* Whether @n holds an action (a call other than speculation()). */
static bool has_action(const struct snode *n)
{
	if (!n)
		return false;
	if ((n->kind == SN_CALL && n->idx != FN_SPECULATION) || n->kind == SN_AGGSET)
		return true;
	return has_action(n->a) || has_action(n->b) || has_action(n->c);
}

int vxt_sd_statement(struct sparser *p, struct snode **st)
{
	struct snode *n = *st;
	int64_t c;

	(void)p;
	while (n && n->kind == SN_COND && vxt_sd_const(n->a, &c))
		n = c ? n->b : n->c;
	if (n && vxt_sd_const(n, &c))
		n = NULL;	/* `OPT_x ? ... : 1` with OPT_x false: nothing to do */
	*st = n;
	return 0;
}

bool vxt_snode_cond_action(const struct snode *n)
{
	return n->kind == SN_COND && (has_action(n->b) || has_action(n->c));
}

/* ---- declarations ---- */

static bool is_type_word(const struct sparser *p, const char *w)
{
	static const char *const words[] = {
		"int", "char", "short", "long", "signed", "unsigned", "string", "void",
		"uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t",
		"int64_t", "size_t", "ssize_t", "uintptr_t", "dev_t", "pid_t", "uid_t",
		"hrtime_t", "off_t", "caddr_t", "diskaddr_t", "float", "double", "const",
		"volatile", "struct", "union", "enum", "bufinfo_t", "devinfo_t", "fileinfo_t",
		"psinfo_t", "lwpsinfo_t", "boolean_t", "processorid_t", "zoneid_t", "userland",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(words[i], w))
			return true;
	for (unsigned i = 0; i < p->ntypedefs; i++)
		if (!strcmp(p->typedefs[i], w))
			return true;
	return false;
}

bool vxt_sd_is_type(const struct sparser *p, const char *w)
{
	return is_type_word(p, w);
}

int vxt_sd_skip_type(struct sparser *p)
{
	struct stoken *t;

	while ((t = vxt_sp_peek(p))->type == ST_IDENT && is_type_word(p, t->str)) {
		bool tagged = !strcmp(t->str, "struct") || !strcmp(t->str, "union") ||
			      !strcmp(t->str, "enum");

		vxt_sp_take(p);
		if (tagged && vxt_sp_peek(p)->type == ST_IDENT)
			vxt_sp_take(p);
	}
	while (vxt_sp_peek(p)->type == ST_STAR)
		vxt_sp_take(p);
	return 0;
}

/* Skip to the ';' that ends a declaration, over balanced braces. */
static int skip_decl(struct sparser *p)
{
	int depth = 0;

	for (;;) {
		struct stoken *t = vxt_sp_peek(p);

		if (t->type == ST_END || t->type == ST_ERROR)
			return vxt_sp_syntax(p, t);
		vxt_sp_take(p);
		if (t->type == ST_LBRACE)
			depth++;
		else if (t->type == ST_RBRACE)
			depth--;
		else if (t->type == ST_SEMI && depth <= 0)
			return 0;
	}
}

static int decl_inline(struct sparser *p, const struct stoken *at)
{
	struct sinline *in;
	struct stoken *t;
	const char *name;

	vxt_sd_skip_type(p);
	t = vxt_sp_peek(p);
	if (t->type != ST_IDENT)
		return vxt_sp_syntax(p, t);
	name = t->str;
	vxt_sp_take(p);
	if (vxt_sp_expect(p, ST_ASSIGN) < 0)
		return -EINVAL;
	in = vxt_script_alloc(p->s, sizeof(*in));
	if (!in)
		return p->rc = -ENOMEM;
	in->name = name;
	p->parens = 0;
	in->val = vxt_sp_expr(p);
	if (!in->val)
		return -EINVAL;
	if (has_action(in->val))
		return vxt_script_fail(p->s, p->err, at->line, at->col,
				       "inline %s: its value cannot call an action", name);
	in->next = p->inlines;
	p->inlines = in;
	return vxt_sp_expect(p, ST_SEMI);
}

static int decl_typedef(struct sparser *p)
{
	const char *last = NULL;
	int depth = 0;

	for (;;) {
		struct stoken *t = vxt_sp_peek(p);

		if (t->type == ST_END || t->type == ST_ERROR)
			return vxt_sp_syntax(p, t);
		vxt_sp_take(p);
		if (t->type == ST_LBRACE)
			depth++;
		else if (t->type == ST_RBRACE)
			depth--;
		else if (t->type == ST_IDENT && depth == 0)
			last = t->str;
		else if (t->type == ST_SEMI && depth <= 0)
			break;
	}
	if (last && p->ntypedefs < sizeof(p->typedefs) / sizeof(p->typedefs[0]))
		p->typedefs[p->ntypedefs++] = last;
	return 0;
}

int vxt_sd_toplevel(struct sparser *p, const struct stoken *t, bool *handled)
{
	struct stoken at = *t;
	const char *w = t->str;

	*handled = false;
	if (t->type != ST_PROBE)
		return 0;
	if (!strcmp(w, "inline") || !strcmp(w, "typedef") || !strcmp(w, "self") ||
	    !strcmp(w, "this") || !strcmp(w, "static") || !strcmp(w, "extern") ||
	    is_type_word(p, w)) {
		*handled = true;
		vxt_sp_take(p);
		if (!strcmp(w, "inline"))
			return decl_inline(p, &at);
		if (!strcmp(w, "typedef"))
			return decl_typedef(p);
		return skip_decl(p);	/* types come from assignments */
	}
	if (!strcmp(w, "translator") || !strcmp(w, "provider")) {
		*handled = true;
		return vxt_script_fail(p->s, p->err, at.line, at.col,
				       "%s definitions are not available in block traces", w);
	}
	return 0;
}
