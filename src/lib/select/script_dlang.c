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
 * the command name), marked on its node for the load warning. Inline
 * constants, $1 and declarations are script_decl.c's.
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

static struct script_node *lower_tree(struct sparser *p, const struct stoken *at,
				const struct member *m);

struct script_node *vxt_sd_num(struct sparser *p, const struct stoken *at, int64_t v)
{
	struct script_node *n = vxt_sp_node(p, SN_NUM, at);

	if (n)
		n->num = v;
	return n;
}

struct script_node *vxt_sd_str(struct sparser *p, const struct stoken *at, const char *str)
{
	struct script_node *n = vxt_sp_node(p, SN_STR, at);

	if (n)
		n->str = str;	/* a constant, or the script's memory */
	return n;
}

static struct script_node *mk_field(struct sparser *p, const struct stoken *at, int f)
{
	struct script_node *n = vxt_sp_node(p, SN_FIELD, at);

	if (n) {
		n->idx = f;
		n->str = vxt_script_field_name(f);
	}
	return n;
}

static struct script_node *mk_bin(struct sparser *p, const struct stoken *at, enum snk kind, int op,
			    struct script_node *a, struct script_node *b)
{
	struct script_node *n = a && b ? vxt_sp_node(p, kind, at) : NULL;

	if (n) {
		n->op = op;
		n->a = a;
		n->b = b;
	}
	return n;
}

static struct script_node *mk_cond(struct sparser *p, const struct stoken *at, struct script_node *c,
			     struct script_node *a, struct script_node *b)
{
	struct script_node *n = c && a && b ? vxt_sp_node(p, SN_COND, at) : NULL;

	if (n) {
		n->a = c;
		n->b = a;
		n->c = b;
	}
	return n;
}

/* op == "@name" */
static struct script_node *op_is(struct sparser *p, const struct stoken *at, const char *name)
{
	return mk_bin(p, at, SN_BINARY, ST_EQ, mk_field(p, at, SF_OP), vxt_sd_str(p, at, name));
}

/* The tree of member @m; a stand-in is marked on its node, for the load
 * warning when the node survives folding (script_check.c). */
static struct script_node *lower(struct sparser *p, const struct stoken *at, const struct member *m)
{
	struct script_node *n = lower_tree(p, at, m);

	if (n)
		n->standin = m->standin;
	return n;
}

static struct script_node *lower_tree(struct sparser *p, const struct stoken *at,
				const struct member *m)
{
	const struct stoken *t = at;

	switch (m->how) {
	case L_FIELD:
		return mk_field(p, t, (int)m->arg);
	case L_INT:
		return vxt_sd_num(p, t, m->arg);
	case L_STR:
		return vxt_sd_str(p, t, m->str);
	case L_BFLAGS:	/* B_READ or B_WRITE, B_ASYNC unless sync, B_ERROR on failure */
		return mk_bin(p, t, SN_BINARY, ST_OR,
			      mk_bin(p, t, SN_BINARY, ST_OR,
				     mk_cond(p, t, op_is(p, t, "read"), vxt_sd_num(p, t, B_READ),
					     vxt_sd_num(p, t, B_WRITE)),
				     mk_cond(p, t, mk_bin(p, t, SN_BINARY, ST_AND,
							  mk_field(p, t, SF_FLAGS),
							  vxt_sd_num(p, t, VXT_F_SYNC)),
					     vxt_sd_num(p, t, 0), vxt_sd_num(p, t, B_ASYNC))),
			      mk_cond(p, t, mk_field(p, t, SF_ERROR), vxt_sd_num(p, t, B_ERROR),
				      vxt_sd_num(p, t, 0)));
	case L_BIOCMD:
		return mk_cond(p, t, op_is(p, t, "read"), vxt_sd_num(p, t, BIO_READ),
			       mk_cond(p, t, op_is(p, t, "write"), vxt_sd_num(p, t, BIO_WRITE),
				       mk_cond(p, t, op_is(p, t, "discard"), vxt_sd_num(p, t, BIO_DELETE),
					       mk_cond(p, t, op_is(p, t, "flush"),
						       vxt_sd_num(p, t, BIO_FLUSH),
						       vxt_sd_num(p, t, BIO_GETATTR)))));
	case L_RESID:	/* a failed I/O transferred nothing */
		return mk_cond(p, t, mk_field(p, t, SF_ERROR), mk_field(p, t, SF_BYTES),
			       vxt_sd_num(p, t, 0));
	case L_MAJOR:
		return mk_bin(p, t, SN_BINARY, ST_SHR, mk_field(p, t, SF_DEV), vxt_sd_num(p, t, 20));
	case L_MINOR:
		return mk_bin(p, t, SN_BINARY, ST_AND, mk_field(p, t, SF_DEV),
			      vxt_sd_num(p, t, 0xfffff));
	case L_OFFSET:
		return mk_bin(p, t, SN_BINARY, ST_STAR, mk_field(p, t, SF_SECTOR),
			      vxt_sd_num(p, t, 512));
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
static struct script_node *args_member(struct sparser *p, const struct stoken *at)
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

struct script_node *vxt_sd_ident(struct sparser *p, const struct stoken *at, bool *handled)
{
	const char *name = at->str;
	const struct member *m;
	struct stoken *t = vxt_sp_peek(p);
	struct script_node *n;

	*handled = true;
	if (vxt_sd_inline(p, name, &n))
		return n;
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
		return vxt_sd_macro(p, at);
	if (name[0] == '`') {	/* a kernel variable */
		char *what = vxt_script_alloc(p->s, 160);

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
		n = vxt_sd_num(p, at, 0);
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
			return vxt_sd_num(p, at, consts[i].val);
	*handled = false;
	return NULL;
}
