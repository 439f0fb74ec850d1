/* bt_fire.c - which events fire a bpftrace probe block: its probe
 * descriptions (BEGIN, END, interval:s:N, tracepoint:block:*, kprobe:blk_*,
 * wildcards) as D's probes, the attach points bpftrace would count, and the
 * test of the event a block needs beyond D's probe (its phase, its level,
 * a failure), and the builtin probe as the one that fired
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"

struct script_node *vxt_btp_and(struct btparser *p, struct script_node *a, struct script_node *b)
{
	struct script_node *n;

	if (!a || !b)
		return a ? a : b;
	n = vxt_btp_node(p, SN_AND, a->line, a->col);
	if (n) {
		n->op = ST_ANDAND;
		n->a = a;
		n->b = b;
	}
	return n;
}

static struct script_node *field_of(struct btparser *p, int f, const char *name)
{
	struct script_node *n = vxt_btp_node(p, SN_FIELD, p->bline, p->bcol);

	if (n) {
		n->idx = f;
		n->str = name;
	}
	return n;
}

static struct script_node *or_node(struct btparser *p, struct script_node *a, struct script_node *b)
{
	struct script_node *n;

	if (!a || !b)
		return a ? a : b;
	n = vxt_btp_node(p, SN_OR, a->line, a->col);
	if (n) {
		n->op = ST_OROR;
		n->a = a;
		n->b = b;
	}
	return n;
}

/* phase == "NAME" */
static struct script_node *phase_is(struct btparser *p, unsigned phase)
{
	struct script_node *eq = vxt_btp_node(p, SN_BINARY, p->bline, p->bcol);

	if (!eq)
		return NULL;
	eq->op = ST_EQ;
	eq->a = field_of(p, SF_PHASE, "phase");
	eq->b = vxt_btp_node(p, SN_STR, p->bline, p->bcol);
	if (!eq->a || !eq->b)
		return NULL;
	eq->b->str = vxt_phase_name(phase);
	return eq;
}

/* flags & VXT_F_BIO (@bio), or !(flags & VXT_F_BIO) */
static struct script_node *level_is(struct btparser *p, bool bio)
{
	struct script_node *and = vxt_btp_node(p, SN_BINARY, p->bline, p->bcol), *n;

	if (!and)
		return NULL;
	and->op = ST_AND;
	and->a = field_of(p, SF_FLAGS, "flags");
	and->b = vxt_btp_node(p, SN_NUM, p->bline, p->bcol);
	if (!and->a || !and->b)
		return NULL;
	and->b->num = VXT_F_BIO;
	if (bio)
		return and;
	n = vxt_btp_node(p, SN_UNARY, p->bline, p->bcol);
	if (n) {
		n->op = ST_NOT;
		n->a = and;
	}
	return n;
}

/* The test of the event a block's probes need beyond D's probe: its
 * phase when they are of several (or of one D has no probe for), its level
 * (a request, a bio-based device's bio), a failure. A block is lowered once
 * per attach point (vxt_btp_group()), so @p's probes are those of one. NULL when every event
 * its D probes fire on is one of its probes' (or out of memory: p->rc). */
struct script_node *vxt_btp_event_guard(struct btparser *p)
{
	bool several = p->other || __builtin_popcount(p->probes) > 1;
	struct script_node *g = NULL;

	for (unsigned i = 0; i < p->nbprobes; i++) {
		const struct btprobe *b = p->bprobes[i];
		struct script_node *t = several ? phase_is(p, b->phase) : NULL;

		if (b->error_only && several)
			t = vxt_btp_and(p, t, field_of(p, SF_ERROR, "error"));
		if (b->level != BL_ANY)
			t = vxt_btp_and(p, t, level_is(p, b->level == BL_BIO));
		if (!t)
			return NULL;	/* every event of the block's one probe */
		g = or_node(p, g, t);
		if (b->bio_start)	/* a bio-based device's issue */
			g = or_node(p, g, vxt_btp_and(p, phase_is(p, VXT_PH_START), level_is(p, true)));
	}
	return g;
}

struct script_node *vxt_btp_fired(struct btparser *p, unsigned line, unsigned col)
{
	struct script_node *tail = NULL;

	for (unsigned i = p->nbprobes; i-- > 0;) {
		const struct btprobe *b = p->bprobes[i];
		struct script_node *name = vxt_btp_node(p, SN_STR, line, col), *c, *t;

		if (!name)
			return NULL;
		name->str = b->name;
		if (!tail) {	/* the last: what no other probe takes */
			tail = name;
			continue;
		}
		t = phase_is(p, b->phase);
		if (b->error_only)
			t = vxt_btp_and(p, t, field_of(p, SF_ERROR, "error"));
		if (b->level != BL_ANY)
			t = vxt_btp_and(p, t, level_is(p, b->level == BL_BIO));
		c = vxt_btp_node(p, SN_COND, line, col);
		if (!c || !t)
			return NULL;
		c->a = t;
		c->b = name;
		c->c = tail;
		tail = c;
	}
	return tail;
}


static unsigned sp_of(const struct btprobe *b)
{
	switch (b->phase) {
	case VXT_PH_QUEUE: return SP_QUEUE;
	case VXT_PH_START: return SP_START;
	case VXT_PH_DONE: return b->error_only ? SP_ERROR : SP_DONE;
	case VXT_PH_REQUEUE: return SP_REQUEUE;
	default: return SP_OTHER;
	}
}

/* Whether the block has @b's other name (kprobe:blk_account_io_done and
 * kprobe:__blk_account_io_done: a kernel has one of the two, so bpftrace
 * attaches one). */
static bool kprobe_alias(const struct btparser *p, const struct btprobe *b)
{
	for (unsigned i = 0; i < p->nbprobes; i++) {
		const char *x = p->bprobes[i]->name, *y = b->name;

		if (strncmp(x, "kprobe:", 7) || strncmp(y, "kprobe:", 7))
			continue;
		x += 7;
		y += 7;
		if ((!strncmp(x, "__", 2) && !strcmp(x + 2, y)) ||
		    (!strncmp(y, "__", 2) && !strcmp(y + 2, x)))
			return true;
	}
	return false;
}

/* Whether the kernel fires at most one of @a and @b on an event the
 * recording cannot tell apart: a kprobe's two names, or two functions of
 * one phase (a kernel has blk_mq_start_request or blk_start_request), a
 * back or a front merge, a bio's or a request's remap. */
static bool one_of(const struct btprobe *a, const struct btprobe *b)
{
	if (a->phase != b->phase || a->error_only != b->error_only || a->level != b->level)
		return false;
	if (!strncmp(a->name, "kprobe:", 7) && !strncmp(b->name, "kprobe:", 7))
		return true;
	return a->phase == VXT_PH_MERGE || a->phase == VXT_PH_REMAP;
}

unsigned vxt_btp_groups(const struct btparser *p, unsigned *group)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nbprobes; i++) {
		group[i] = n;
		for (unsigned j = 0; j < i; j++)
			if (one_of(p->bprobes[i], p->bprobes[j])) {
				group[i] = group[j];
				break;
			}
		if (group[i] == n)
			n++;
	}
	return n;
}

void vxt_btp_keep_group(struct btparser *p, const struct btprobe *const *all, unsigned nall,
			const unsigned *group, unsigned g)
{
	p->nbprobes = 0;
	p->probes &= SP_BEGIN | SP_END | SP_TICK;
	p->other = false;
	for (unsigned i = 0; i < nall; i++) {
		const struct btprobe *b = all[i];

		if (group[i] != g)
			continue;
		p->bprobes[p->nbprobes++] = b;
		p->probes |= sp_of(b) | (b->bio_start ? SP_START : 0);
		if (sp_of(b) == SP_OTHER)
			p->other = true;
	}
}

static int add_bprobe(struct btparser *p, const struct btprobe *b, const struct stoken *t)
{
	struct sbt *bt = p->s->bt;

	for (unsigned i = 0; i < p->nbprobes; i++)
		if (p->bprobes[i] == b)
			return 0;
	if (p->nbprobes == sizeof(p->bprobes) / sizeof(p->bprobes[0]))
		return vxt_btp_fail(p, t->line, t->col, "ERROR: too many probes in one block");
	p->fields = p->nbprobes ? p->fields & b->fields : b->fields;
	if (!kprobe_alias(p, b))
		p->attached++;
	p->bprobes[p->nbprobes++] = b;
	p->probes |= sp_of(b) | (b->bio_start ? SP_START : 0);
	p->has_event = true;
	if (sp_of(b) == SP_OTHER)
		p->other = true;
	if (!(bt->phases & (1u << b->phase))) {
		bt->phases |= 1u << b->phase;
		bt->phase_bio[b->phase] = b->bio_start;
		snprintf(bt->phase_probe[b->phase], sizeof(bt->phase_probe[0]), "%s", t->str);
		bt->phase_line[b->phase] = t->line;
		bt->phase_col[b->phase] = t->col;
	}
	return 0;
}

static int interval(struct btparser *p, const struct stoken *t)
{
	const char *d = strchr(t->str, ':') + 1;
	uint64_t unit;
	char *end;
	unsigned long long v;

	if (!strncmp(d, "s:", 2))
		unit = 1000000000ull;
	else if (!strncmp(d, "ms:", 3))
		unit = 1000000ull;
	else if (!strncmp(d, "us:", 3))
		unit = 1000ull;
	else if (!strncmp(d, "hz:", 3))
		unit = 0;
	else
		return vxt_btp_fail(p, t->line, t->col, "ERROR: Invalid rate of interval "
				    "probe: %s (s ms us hz)", t->str);
	d = strchr(d, ':') + 1;
	v = strtoull(d, &end, 10);
	if (end == d || *end || !v || v > 1000000000ull)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: interval probe %s: the period "
				    "must be a positive integer", t->str);
	if ((p->probes & SP_TICK) && p->tick_ns != (unit ? v * unit : 1000000000ull / v))
		return vxt_btp_fail(p, t->line, t->col, "ERROR: a block takes one interval");
	p->probes |= SP_TICK;
	p->tick_ns = unit ? v * unit : 1000000000ull / v;
	return 0;
}

int vxt_btp_probe_desc(struct btparser *p, const struct stoken *t)
{
	const char *d = t->str;
	const struct btprobe *b;

	if (!p->probe_text[0])
		snprintf(p->probe_text, sizeof(p->probe_text), "%s", d);
	if (!strcmp(d, "BEGIN") || !strcmp(d, "END")) {
		p->probes |= d[0] == 'B' ? SP_BEGIN : SP_END;
		p->attached++;
		return 0;
	}
	if (!strncmp(d, "interval:", 9) || !strncmp(d, "i:", 2))
		return p->attached++, interval(p, t);
	if (strchr(d, '*') || strchr(d, '?')) {	/* a wildcard over the table */
		static const char *const all[] = {
			"tracepoint:block:block_bio_queue", "tracepoint:block:block_bio_backmerge",
			"tracepoint:block:block_bio_frontmerge", "tracepoint:block:block_bio_remap",
			"tracepoint:block:block_rq_remap", "tracepoint:block:block_split",
			"tracepoint:block:block_getrq", "tracepoint:block:block_rq_insert",
			"tracepoint:block:block_rq_issue", "tracepoint:block:block_rq_complete",
			"tracepoint:block:block_bio_complete", "tracepoint:block:block_rq_requeue",
			"tracepoint:block:block_rq_error", "tracepoint:block:block_plug",
			"tracepoint:block:block_unplug", "tracepoint:block:block_io_start",
			"tracepoint:block:block_io_done",
		};	/* the first of a phase is what the builtin probe names */
		char pat[96];
		bool any = false;

		snprintf(pat, sizeof(pat), "%s%s", !strncmp(d, "t:", 2) ? "tracepoint:" : "",
			 !strncmp(d, "t:", 2) ? d + 2 : d);
		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			if (!fnmatch(pat, all[i], 0)) {
				if (add_bprobe(p, vxt_bt_probe(all[i]), t) < 0)
					return -EINVAL;
				any = true;
			}
		if (any)
			return 0;
		return vxt_btp_fail(p, t->line, t->col, "ERROR: No probes to attach: %s matches "
				    "none of the block layer's tracepoints", d);
	}
	b = vxt_bt_probe(d);
	if (b)
		return add_bprobe(p, b, t);
	if (!strncmp(d, "tracepoint:", 11) || !strncmp(d, "t:", 2))
		return vxt_btp_fail(p, t->line, t->col, "ERROR: tracepoint not found: %s "
				    "(a recording has the block: tracepoints)",
				    strchr(d, ':') + 1);
	if (!strncmp(d, "kprobe:", 7) || !strncmp(d, "k:", 2) || !strncmp(d, "kfunc:", 6) ||
	    !strncmp(d, "fentry:", 7) || !strncmp(d, "f:", 2))
		return vxt_btp_fail(p, t->line, t->col, "ERROR: Could not resolve symbol: %s "
				    "(a recording has blk_account_io_start, blk_account_io_done, "
				    "__blk_account_io_done, blk_mq_start_request)",
				    strchr(d, ':') + 1);
	return vxt_btp_fail(p, t->line, t->col, "ERROR: Invalid probe type: %s (a recording "
			    "has BEGIN, END, interval, tracepoint:block:*, kprobe:blk_*)", d);
}

