/* bt_probes.c - what a bpftrace block tool names: its probes (the block
 * layer's tracepoints and the kernel functions older tools probe, each the
 * events of one phase; block_bio_complete only a bio-based device's,
 * block_bio_queue also a bio-based device's issue, the request probes only
 * requests), the builtins (args.X with the tracepoints' format
 * fields, nsecs, elapsed, comm, pid, tid, cpu, arg0) as trees over the
 * event's fields, and the stacks and symbols a recording cannot hold
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "script/bt_impl.h"

#define F_BIO	(BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_RWBS | BF_COMM)
#define F_RQ	(BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_BYTES | BF_RWBS | BF_COMM | BF_CMD)
#define F_DONE	(BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_ERROR | BF_RWBS | BF_CMD)
#define F_IO	(BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_BYTES | BF_RWBS | BF_COMM)

static const struct btprobe probes[] = {
	{ "tracepoint:block:block_bio_queue", VXT_PH_QUEUE, false, BL_ANY, true, F_BIO },
	{ "tracepoint:block:block_bio_backmerge", VXT_PH_MERGE, false, BL_ANY, false, F_BIO },
	{ "tracepoint:block:block_bio_frontmerge", VXT_PH_MERGE, false, BL_ANY, false, F_BIO },
	{ "tracepoint:block:block_bio_remap", VXT_PH_REMAP, false, BL_ANY, false,
	  BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_RWBS | BF_OLD },
	{ "tracepoint:block:block_rq_remap", VXT_PH_REMAP, false, BL_ANY, false,
	  BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_RWBS | BF_OLD },
	{ "tracepoint:block:block_split", VXT_PH_SPLIT, false, BL_ANY, false,
	  BF_DEV | BF_SECTOR | BF_RWBS | BF_COMM },
	{ "tracepoint:block:block_getrq", VXT_PH_GETRQ, false, BL_RQ, false, F_BIO },
	{ "tracepoint:block:block_rq_insert", VXT_PH_INSERT, false, BL_RQ, false, F_RQ },
	{ "tracepoint:block:block_rq_issue", VXT_PH_START, false, BL_RQ, false, F_RQ },
	{ "tracepoint:block:block_io_start", VXT_PH_GETRQ, false, BL_RQ, false, F_IO },
	{ "tracepoint:block:block_io_done", VXT_PH_DONE, false, BL_RQ, false, F_IO },
	{ "tracepoint:block:block_rq_complete", VXT_PH_DONE, false, BL_RQ, false, F_DONE },
	{ "tracepoint:block:block_bio_complete", VXT_PH_DONE, false, BL_BIO, false,
	  BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_ERROR | BF_RWBS },
	{ "tracepoint:block:block_rq_requeue", VXT_PH_REQUEUE, false, BL_RQ, false,
	  BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_RWBS | BF_CMD },
	{ "tracepoint:block:block_rq_error", VXT_PH_DONE, true, BL_RQ, false,
	  BF_DEV | BF_SECTOR | BF_NR_SECTOR | BF_ERROR | BF_RWBS | BF_CMD },
	{ "tracepoint:block:block_plug", VXT_PH_PLUG, false, BL_ANY, false, BF_COMM },
	{ "tracepoint:block:block_unplug", VXT_PH_UNPLUG, false, BL_ANY, false, BF_COMM },
	/* kernel functions whose meaning is a phase, of requests: args are not theirs */
	{ "kprobe:blk_account_io_start", VXT_PH_GETRQ, false, BL_RQ, false, 0 },
	{ "kprobe:blk_account_io_done", VXT_PH_DONE, false, BL_RQ, false, 0 },
	{ "kprobe:__blk_account_io_done", VXT_PH_DONE, false, BL_RQ, false, 0 },
	{ "kprobe:blk_mq_start_request", VXT_PH_START, false, BL_RQ, false, 0 },
	{ "kprobe:blk_start_request", VXT_PH_START, false, BL_RQ, false, 0 },
	{ "kprobe:__blk_account_io_start", VXT_PH_GETRQ, false, BL_RQ, false, 0 },
};

const struct btprobe *vxt_bt_probe(const char *name)
{
	char full[96];
	const char *rest;

	if (!strncmp(name, "t:", 2) || !strncmp(name, "tracepoint:", 11)) {
		rest = strchr(name, ':') + 1;
		snprintf(full, sizeof(full), "tracepoint:%s", rest);
	} else if (!strncmp(name, "k:", 2) || !strncmp(name, "kprobe:", 7) ||
		   !strncmp(name, "kfunc:", 6) || !strncmp(name, "f:", 2) ||
		   !strncmp(name, "fentry:", 7)) {
		rest = strchr(name, ':') + 1;
		if (!strncmp(rest, "vmlinux:", 8))	/* kfunc:vmlinux:NAME */
			rest += 8;
		snprintf(full, sizeof(full), "kprobe:%s", rest);
	} else {
		return NULL;
	}
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!strcmp(probes[i].name, full))
			return &probes[i];
	return NULL;
}

void vxt_btp_note(struct btparser *p, unsigned line, unsigned col, const char *fmt, ...)
{
	struct sbt *b = p->s->bt;
	size_t n = strlen(b->notes);
	va_list ap;

	if (n + 80 >= sizeof(b->notes))
		return;
	n += (size_t)snprintf(b->notes + n, sizeof(b->notes) - n, "%.100s:%u:%u: WARNING: ",
			      p->s->file, line, col);
	if (n >= sizeof(b->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(b->notes + n, sizeof(b->notes) - n, fmt, ap);
	va_end(ap);
	n = strlen(b->notes);
	if (n + 1 < sizeof(b->notes)) {
		b->notes[n] = '\n';
		b->notes[n + 1] = '\0';
	}
}

static struct script_node *field(struct btparser *p, int f, unsigned line, unsigned col)
{
	struct script_node *n = vxt_btp_node(p, SN_FIELD, line, col);

	if (!n)
		return NULL;
	n->idx = f;
	n->str = f == SF_TIMESTAMP ? "nsecs" : f == SF_TIME ? "elapsed" : "args";
	return n;
}

static struct script_node *num(struct btparser *p, int64_t v, unsigned line, unsigned col)
{
	struct script_node *n = vxt_btp_node(p, SN_NUM, line, col);

	if (n)
		n->num = v;
	return n;
}

static struct script_node *bin(struct btparser *p, int op, struct script_node *a, struct script_node *b)
{
	struct script_node *n;

	if (!a || !b)
		return NULL;
	n = vxt_btp_node(p, SN_BINARY, a->line, a->col);
	if (n) {
		n->op = op;
		n->a = a;
		n->b = b;
	}
	return n;
}

static struct script_node *str(struct btparser *p, const char *s, unsigned line, unsigned col)
{
	struct script_node *n = vxt_btp_node(p, SN_STR, line, col);

	if (n && !(n->str = vxt_btp_dup(p, s)))
		return NULL;
	return n;
}

/* The letters of blk_fill_rwbs(): [F]op[F][A][S][M], by a tree of the
 * flag bits over each op's letter, so the value is a string the checker
 * knows. */
static struct script_node *rwbs_flags(struct btparser *p, const char *op, unsigned bit, unsigned set,
				unsigned line, unsigned col)
{
	static const unsigned fl[] = {
		VXT_F_PREFLUSH, VXT_F_FUA, VXT_F_RAHEAD, VXT_F_SYNC, VXT_F_META,
	};
	struct script_node *c, *yes, *no;

	if (bit == sizeof(fl) / sizeof(fl[0])) {
		char out[16];

		snprintf(out, sizeof(out), "%s%s%s%s%s%s", set & VXT_F_PREFLUSH ? "F" : "", op,
			 set & VXT_F_FUA ? "F" : "", set & VXT_F_RAHEAD ? "A" : "",
			 set & VXT_F_SYNC ? "S" : "", set & VXT_F_META ? "M" : "");
		return str(p, out, line, col);
	}
	no = rwbs_flags(p, op, bit + 1, set, line, col);
	yes = rwbs_flags(p, op, bit + 1, set | fl[bit], line, col);
	c = vxt_btp_node(p, SN_COND, line, col);
	if (!c || !yes || !no)
		return NULL;
	c->a = bin(p, ST_AND, field(p, SF_FLAGS, line, col), num(p, fl[bit], line, col));
	c->b = yes;
	c->c = no;
	return c->a ? c : NULL;
}

struct script_node *vxt_btp_rwbs(struct btparser *p, unsigned line, unsigned col)
{
	static const struct { const char *op, *l; } ops[] = {
		{ "read", "R" }, { "write", "W" }, { "discard", "D" }, { "flush", "F" },
	};
	struct script_node *tail = NULL, *head = NULL;

	/* op == "read" ? R... : op == "write" ? W... : ... : N... */
	for (int i = (int)(sizeof(ops) / sizeof(ops[0])); i >= 0; i--) {
		struct script_node *c, *leaf;

		leaf = rwbs_flags(p, i == (int)(sizeof(ops) / sizeof(ops[0])) ? "N" : ops[i].l, 0,
				  0, line, col);
		if (!leaf)
			return NULL;
		if (!tail) {
			tail = leaf;
			continue;
		}
		c = vxt_btp_node(p, SN_COND, line, col);
		if (!c)
			return NULL;
		c->a = vxt_btp_node(p, SN_BINARY, line, col);
		if (!c->a)
			return NULL;
		c->a->op = ST_EQ;
		c->a->a = field(p, SF_OP, line, col);
		c->a->b = str(p, ops[i].op, line, col);
		if (!c->a->a || !c->a->b)
			return NULL;
		c->b = leaf;
		c->c = tail;
		tail = head = c;
	}
	return head ? head : tail;
}

/* The request as a value, the same from its start to its completion (its
 * device and sector), as a kprobe's arg0 or a kfunc's args->rq. */
static struct script_node *request(struct btparser *p, unsigned l, unsigned c)
{
	return bin(p, ST_XOR, bin(p, ST_SHL, field(p, SF_DEV, l, c), num(p, 40, l, c)),
		   field(p, SF_SECTOR, l, c));
}

/* args.NAME for the block's probes. */
static struct script_node *arg_field(struct btparser *p, const char *name, const struct stoken *at)
{
	static const struct { const char *name; unsigned bf; } names[] = {
		{ "dev", BF_DEV }, { "sector", BF_SECTOR }, { "nr_sector", BF_NR_SECTOR },
		{ "bytes", BF_BYTES }, { "rwbs", BF_RWBS }, { "comm", BF_COMM },
		{ "error", BF_ERROR }, { "cmd", BF_CMD }, { "old_dev", BF_OLD },
		{ "old_sector", BF_OLD },
	};
	unsigned l = at->line, c = at->col, bf = 0;
	struct script_node *n;

	if (p->has_event && p->nbprobes && !strncmp(p->bprobes[0]->name, "kprobe:", 7) &&
	    (!strcmp(name, "rq") || !strcmp(name, "req")))	/* kfunc's struct request * */
		return request(p, l, c);
	if (!p->has_event || !p->nbprobes || strncmp(p->bprobes[0]->name, "tracepoint:", 11)) {
		vxt_btp_fail(p, l, c, "ERROR: The args builtin can only be used with "
			     "tracepoint/fentry/uprobe probes (%s used here)", p->probe_text);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			bf = names[i].bf;
	if (!bf || !(p->fields & bf)) {	/* struct _tracepoint_block_block_rq_issue */
		vxt_btp_fail(p, l, c, "ERROR: Struct/union of type 'struct _tracepoint_block_%s' "
			     "does not contain a field named '%s'", p->bprobes[0]->name + 17, name);
		return NULL;
	}
	switch (bf) {
	case BF_DEV: return field(p, SF_DEV, l, c);
	case BF_SECTOR: return field(p, SF_SECTOR, l, c);
	case BF_NR_SECTOR: return bin(p, ST_SHR, field(p, SF_BYTES, l, c), num(p, 9, l, c));
	case BF_BYTES: return field(p, SF_BYTES, l, c);
	case BF_RWBS: return vxt_btp_rwbs(p, l, c);
	case BF_COMM: return field(p, SF_COMM, l, c);
	case BF_ERROR:	/* the kernel's is a negative errno */
		n = vxt_btp_node(p, SN_UNARY, l, c);
		if (n) {
			n->op = ST_MINUS;
			n->a = field(p, SF_ERROR, l, c);
		}
		return n && n->a ? n : NULL;
	case BF_CMD: return str(p, "", l, c);
	default:		/* a remap's source: the event's remap_from (bt_run.c),
				 * read from the column it shares with the latency, so
				 * a pass decoding only the fields a script reads
				 * decodes it (its one argument, not an operand) */
		n = vxt_btp_node(p, SN_CALL, l, c);
		if (!n || !(n->args = vxt_script_alloc(p->s, sizeof(*n->args))) ||
		    !(n->args[0] = field(p, SF_LATENCY, l, c)))
			return NULL;
		n->nargs = 1;
		n->idx = FN_BT;
		n->num = strcmp(name, "old_dev") ? BTA_OLD_SECTOR : BTA_OLD_DEV;
		n->str = strcmp(name, "old_dev") ? "old_sector" : "old_dev";
		return n;
	}
}

struct script_node *vxt_btp_builtin(struct btparser *p, const struct stoken *at)
{
	const char *w = at->str;
	unsigned l = at->line, c = at->col;

	if (!strncmp(w, "args.", 5))
		return arg_field(p, w + 5, at);
	if (!strcmp(w, "args")) {	/* args->X */
		struct stoken *t;

		if (vxt_btp_expect(p, ST_ARROW) < 0)
			return NULL;
		t = vxt_btp_peek(p);
		if (t->type != ST_IDENT) {
			vxt_btp_syntax(p, t);
			return NULL;
		}
		{
			struct stoken f = *t;

			vxt_btp_take(p);
			return arg_field(p, f.str, &f);
		}
	}
	if (!strcmp(w, "nsecs"))
		return field(p, SF_TIMESTAMP, l, c);
	if (!strcmp(w, "elapsed"))
		return field(p, SF_TIME, l, c);
	if (!strcmp(w, "comm"))
		return field(p, SF_COMM, l, c);
	if (!strcmp(w, "pid") || !strcmp(w, "tid"))
		return field(p, SF_PID, l, c);
	if (!strcmp(w, "cpu"))
		return field(p, SF_CPU, l, c);
	if (!strcmp(w, "arg0") || !strcmp(w, "retval")) {
		/* the request: the same value from its start to its completion */
		if (!p->has_event) {
			vxt_btp_fail(p, l, c, "ERROR: The %s builtin can only be used with "
				     "kprobes (%s used here)", w, p->probe_text);
			return NULL;
		}
		if (w[0] == 'r')
			return num(p, 0, l, c);
		return request(p, l, c);
	}
	if (!strcmp(w, "kstack") || !strcmp(w, "ustack") || !strcmp(w, "ksym") ||
	    !strcmp(w, "usym")) {
		if (!(p->noted & NOTE_STACK))
			vxt_btp_note(p, l, c, "%s: a recording holds no stacks or symbols: it "
				     "prints as an empty %s", w, w[1] == 's' ? "stack" : "symbol");
		p->noted |= NOTE_STACK;
		return str(p, "", l, c);
	}
	if (!strcmp(w, "probe"))
		return p->nbprobes ? vxt_btp_fired(p, l, c) : str(p, p->probe_text, l, c);
	return NULL;
}
