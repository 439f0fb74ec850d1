/* bt_clause.c - the clauses a bpftrace probe block is lowered to: its
 * statements gathered into the current clause, cut where D's rules of
 * speculation would refuse a statement after another (speculate() after a
 * printf, a printf after commit()), each clause's predicate (the test of
 * the event its probes need, not after a return, its guards, the user's),
 * and the this-> variables that carry a condition from one clause to the
 * next (bt_stmt.c lowers the statements onto them)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"

/* What a statement is to D's rules of speculation (SEG_*). */
#define SEG_SPEC	0x1	/* speculate() */
#define SEG_END		0x2	/* commit(), discard() */
#define SEG_DATA	0x4	/* printf, print, time */
#define SEG_AGG		0x8	/* an aggregation, clear() or zero() of one */
#define SEG_LATE	0x10	/* exit(), print() of an aggregation */

static unsigned seg_class(const struct script_node *st)
{
	if (st->kind == SN_AGGSET)
		return SEG_AGG;
	if (st->kind != SN_CALL)
		return 0;
	switch (st->idx) {
	case FN_SPECULATE: return SEG_SPEC;
	case FN_COMMIT: case FN_DISCARD: return SEG_END;
	case FN_PRINTF: return SEG_DATA;
	case FN_PRINTA: case FN_EXIT: return SEG_LATE;
	case FN_CLEAR: case FN_TRUNC: return SEG_AGG;
	case FN_BT: return vxt_bt_prints(st) ? SEG_DATA : 0;
	default: return 0;
	}
}

/* Whether @st may not follow what the clause so far holds (@seg), by D's
 * rules: bpftrace's blocks have none, so such a statement starts a clause. */
static bool must_split(unsigned seg, unsigned cls)
{
	switch (cls) {
	case SEG_SPEC: return seg & (SEG_SPEC | SEG_END | SEG_DATA | SEG_AGG | SEG_LATE);
	case SEG_END: return seg & (SEG_SPEC | SEG_DATA | SEG_AGG | SEG_LATE);
	case SEG_DATA: return seg & SEG_END;
	case SEG_LATE: return seg & (SEG_SPEC | SEG_END);
	case SEG_AGG: return seg & (SEG_SPEC | SEG_END);
	default: return false;
	}
}

int vxt_btc_add(struct btparser *p, struct script_node *st)
{
	unsigned cls = seg_class(st);

	if (must_split(p->seg, cls) && vxt_btc_emit(p, NULL) < 0)
		return -EINVAL;
	p->seg |= cls;
	if (p->nstmts == p->capstmts) {
		unsigned cap = p->capstmts ? 2 * p->capstmts : 16;
		struct script_node **v = realloc(p->stmts, cap * sizeof(*v));

		if (!v)
			return p->rc = -ENOMEM;
		p->stmts = v;
		p->capstmts = cap;
	}
	p->stmts[p->nstmts++] = st;
	return 0;
}

struct script_node *vxt_btc_this(struct btparser *p, int var, unsigned line, unsigned col)
{
	struct script_node *n = vxt_btp_node(p, SN_THIS, line, col);

	if (n) {
		n->idx = var;
		n->str = p->s->vars[var].name;
	}
	return n;
}

/* The current clause's predicate: the phase test, the guards, then @user. */
static struct script_node *clause_pred(struct btparser *p, struct script_node *user)
{
	struct script_node *g = p->has_event ? vxt_btp_event_guard(p) : NULL;

	if (p->ret_var >= 0) {	/* not after a return */
		struct script_node *nt = vxt_btp_node(p, SN_UNARY, p->bline, p->bcol);

		if (!nt)
			return NULL;
		nt->op = ST_NOT;
		nt->a = vxt_btc_this(p, p->ret_var, p->bline, p->bcol);
		g = vxt_btp_and(p, g, nt->a ? nt : NULL);
	}
	for (unsigned i = 0; i < p->nguards; i++) {
		struct script_node *r = vxt_btc_this(p, p->guards[i].var, p->bline, p->bcol);

		if (r && p->guards[i].neg) {
			struct script_node *nt = vxt_btp_node(p, SN_UNARY, p->bline, p->bcol);

			if (nt) {
				nt->op = ST_NOT;
				nt->a = r;
			}
			r = nt;
		}
		if (!r)
			return NULL;
		g = vxt_btp_and(p, g, r);
	}
	return vxt_btp_and(p, g, user);
}

/* The statements so far as a clause (none: no clause, as bpftrace's empty
 * block does nothing where D's would record the event). */
int vxt_btc_emit(struct btparser *p, struct script_node *user)
{
	struct vxt_script *s = p->s;
	struct sclause *c;

	if (!p->nstmts)
		return 0;
	if (s->ncl == S_MAX_CLAUSES)
		return vxt_btp_fail(p, p->bline, p->bcol, "ERROR: the program is too large: "
				    "more than %d clauses once if, unroll and while are "
				    "lowered", S_MAX_CLAUSES);
	c = &s->cl[s->ncl++];
	memset(c, 0, sizeof(*c));
	c->probes = p->probes;
	c->tick_ns = p->tick_ns;
	snprintf(c->probe_text, sizeof(c->probe_text), "%s", p->probe_text);
	c->line = p->bline;
	c->col = p->bcol;
	c->pred = clause_pred(p, user);
	if (p->rc < 0)
		return p->rc;
	c->stmts = vxt_script_alloc(s, p->nstmts * sizeof(*c->stmts));
	if (!c->stmts)
		return p->rc = -ENOMEM;
	memcpy(c->stmts, p->stmts, p->nstmts * sizeof(*c->stmts));
	c->nstmts = p->nstmts;
	p->nstmts = 0;
	p->seg = 0;
	return 0;
}

/* A fresh this->$$N set to @v in the current clause. @return its slot. */
int vxt_btc_temp(struct btparser *p, struct script_node *v)
{
	char name[24];
	struct script_node *a;
	int var;

	snprintf(name, sizeof(name), "$$%u", p->ntemp++);
	var = vxt_btp_var(p, SN_THIS, name, v->line, v->col);
	if (var < 0)
		return -1;
	a = vxt_btp_node(p, SN_ASSIGN, v->line, v->col);
	if (!a)
		return -1;
	a->op = ST_ASSIGN;
	a->a = vxt_btc_this(p, var, v->line, v->col);
	a->b = v;
	if (!a->a || vxt_btc_add(p, a) < 0)
		return -1;
	return var;
}

int vxt_btc_guard(struct btparser *p, int var, bool neg, const struct stoken *at)
{
	if (p->nguards == BT_MAX_GUARDS)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: if, unroll and while nested "
				    "too deeply (at most %d)", BT_MAX_GUARDS);
	p->guards[p->nguards].var = var;
	p->guards[p->nguards].neg = neg;
	p->nguards++;
	return 0;
}
