/* compile_clause.c - a checked script's clauses as programs of ops
 *
 * Each probe list (an event phase, BEGIN, END, a tick interval) becomes one
 * program: its clauses in program order, each opening with a `clause` op
 * that names the clause, what its ops need of the context and where it
 * ends, its predicate as conditional jumps to that end (compile.c), its
 * statements, and a `record` op when it records.
 *
 * The compiler picks the specialised ops: a lone speculate() that records
 * just the event (speculate_req for a req-> ID), commit and discard of a
 * req-> ID, req->X = speculation() as one op, and an aggregation whose keys
 * all have raw forms (object, op, phase, command) keyed by the event's
 * numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/compile_impl.h"
#include "script/vm_impl.h"

/* Whether aggregation statement @n is keyed by raw numbers through its
 * cache: every key has a raw form, and not every one is an integer
 * (integer keys find their entry in the table as fast as in a cache,
 * without its memory). */
static bool raw_keys(const struct script_node *n)
{
	unsigned raw = 0;

	for (unsigned k = 0; k < n->nkeys; k++) {
		if (vxt_vm_raw_key(n->keys[k]))
			raw++;
		else if (n->keys[k]->type != SV_INT)
			return false;
	}
	return !n->nkeys || raw;
}

/* The raw-key cache of aggregation statement @n (s->fast[n->num]), made
 * the first time it is compiled keyed by raw numbers (num 0: none). */
static void raw_cache(struct compiler *c, struct script_node *n)
{
	struct vxt_script *s = c->s;
	struct sfast *f;

	if (n->num)
		return;
	f = realloc(s->fast, (s->nfast + 2) * sizeof(*f));
	if (!f) {
		c->rc = -ENOMEM;
		return;
	}
	s->fast = f;
	/* its slot zeroed, and slot 0 (no cache) the first time */
	memset(&f[s->nfast], 0, 2 * sizeof(*f));
	s->nfast += !s->nfast;	/* numbered from 1 */
	n->num = s->nfast++;
	s->aggs[n->idx].cached = true;
}

/* @[keys] = f(value): raw keys when every key has one. */
static void aggregate(struct compiler *c, struct script_node *n)
{
	const struct script_node *f = n->a;
	unsigned v = vxt_cc_reg(c), first;
	bool raw = c->has_event && raw_keys(n);

	if (raw)
		raw_cache(c, n);
	if (f->idx != FN_COUNT)
		vxt_cc_value(c, f->args[0], v);
	first = vxt_cc_keys(c, n->keys, n->nkeys, raw);
	vxt_cc_emit(c, raw ? VXT_INSN_AGG_RAW : VXT_INSN_AGG, 0, v, first, vxt_cc_node(c, n));
}

static void call(struct compiler *c, const struct script_node *n)
{
	unsigned r = vxt_cc_reg(c), first;

	switch (n->idx) {	/* a lone speculation() is a value (statement()) */
	case FN_COMMIT: case FN_DISCARD:
		if (vxt_cc_req_int(n->args[0])) {	/* the ID in place */
			vxt_cc_emit(c, n->idx == FN_COMMIT ? VXT_INSN_COMMIT_REQ : VXT_INSN_DISCARD_REQ, 0,
			     vxt_cc_slot(c, n->args[0]), 0, 0);
			return;
		}
		/* fall through */
	case FN_SPECULATE: case FN_EXIT:
		vxt_cc_value(c, n->args[0], r);
		vxt_cc_emit(c, n->idx == FN_SPECULATE ? VXT_INSN_SPECULATE : n->idx == FN_COMMIT ?
		     VXT_INSN_COMMIT : n->idx == FN_DISCARD ? VXT_INSN_DISCARD : VXT_INSN_EXIT,
		     0, r, 0, 0);
		return;
	case FN_TRACE:
		vxt_cc_value(c, n->args[0], r);
		vxt_cc_emit(c, VXT_INSN_TRACE, 0, r, 0, 0);
		return;
	case FN_PRINTF:
		c->next_reg = r;
		first = n->nargs > 1 ? vxt_cc_keys(c, n->args + 1, n->nargs - 1, false) : r;
		vxt_cc_emit(c, VXT_INSN_PRINTF, 0, first, n->nargs - 1, vxt_cc_node(c, n));
		return;
	case FN_PRINTA:
		if (n->args[0]->kind == SN_STR) {	/* printa("format", @a) */
			vxt_cc_emit(c, VXT_INSN_PRINTA_FMT, 0, (uint32_t)n->args[1]->idx, 0,
			     vxt_cc_node(c, n));
			return;
		}
		for (unsigned i = 0; i < n->nargs; i++)
			vxt_cc_emit(c, VXT_INSN_PRINTA, 0, (uint32_t)n->args[i]->idx, 0, 0);
		return;
	case FN_NORMALIZE:
		vxt_cc_value(c, n->args[1], r);
		vxt_cc_emit(c, VXT_INSN_NORMALIZE, 0, (uint32_t)n->args[0]->idx, r, 0);
		return;
	case FN_DENORMALIZE:
		vxt_cc_emit(c, VXT_INSN_DENORMALIZE, 0, (uint32_t)n->args[0]->idx, 0, 0);
		return;
	case FN_CLEAR:
		vxt_cc_emit(c, VXT_INSN_CLEAR, 0, (uint32_t)n->args[0]->idx, 0, 0);
		return;
	case FN_TRUNC:
		vxt_cc_emit(c, VXT_INSN_TRUNC, 0, (uint32_t)n->args[0]->idx, 0,
		     n->nargs == 2 && n->args[1]->kind == SN_NUM ? n->args[1]->num : 0);
		return;
	case FN_BT: {		/* a bpftrace action: its operands, then it */
		struct script_node *const *v;
		unsigned nv = vxt_bt_operands(n, &v);

		c->next_reg = r;
		first = nv ? vxt_cc_keys(c, v, nv, false) : r;
		vxt_cc_emit(c, VXT_INSN_BT, 0, first, nv, vxt_cc_node(c, n));
		return;
	}
	default:
		return;
	}
}

static void statement(struct compiler *c, struct script_node *n)
{
	unsigned saved = c->next_reg;

	if (n->kind == SN_AGGSET) {
		aggregate(c, n);
	} else if (vxt_script_node_cond_action(n)) {	/* c ? action : other: the one c picks */
		int64_t no = NO_FIXUP, end = NO_FIXUP;

		vxt_cc_test(c, n->a, false, &no);
		statement(c, n->b);
		vxt_cc_jump(c, VXT_INSN_JUMP, 0, &end);
		vxt_cc_patch(c, no, vxt_cc_here(c));
		statement(c, n->c);
		vxt_cc_patch(c, end, vxt_cc_here(c));
	} else if (n->kind == SN_ASSIGN && n->op == ST_ASSIGN && n->a->kind == SN_REQ &&
		   n->b->kind == SN_CALL && n->b->idx == FN_SPECULATION) {
		vxt_cc_emit(c, VXT_INSN_OPEN_REQ, 0, vxt_cc_slot(c, n->a), 0, 0);
	} else if (n->kind == SN_CALL && n->idx != FN_SPECULATION) {
		call(c, n);
	} else if (n->kind == SN_KEYED) {	/* a profile's action, of clause num */
		vxt_cc_emit(c, vxt_skeyed_op(n), 0, (uint32_t)n->num, 0, 0);
	} else {
		vxt_cc_value(c, n, vxt_cc_reg(c));
	}
	c->next_reg = saved;
}

/* Whether op @code reads nothing of the context but the event and its
 * request: not the clause, the probe or the record (a clause of such ops
 * opens without setting them). */
static bool context_free(unsigned code, uint32_t a)
{
	switch (code) {
	case VXT_INSN_JUMP: case VXT_INSN_JUMP_UNLESS: case VXT_INSN_JUMP_IF:
	case VXT_INSN_UNLESS_REQ: case VXT_INSN_UNLESS_ERROR: case VXT_INSN_IF_ERROR:
	case VXT_INSN_UNLESS_FLAGS: case VXT_INSN_IF_FLAGS:
	case VXT_INSN_SPECULATE_REQ: case VXT_INSN_SPECULATE_EVENT:
	case VXT_INSN_COMMIT_REQ: case VXT_INSN_DISCARD_REQ:
	case VXT_INSN_OPEN_REQ: case VXT_INSN_COMMIT: case VXT_INSN_DISCARD:
	case VXT_INSN_INT: case VXT_INSN_REQ: case VXT_INSN_GLOBAL: case VXT_INSN_THIS:
	case VXT_INSN_EVENT_INT: case VXT_INSN_FIELD_RAW: case VXT_INSN_RAW_EQ:
	case VXT_INSN_ADD: case VXT_INSN_SUB: case VXT_INSN_MUL: case VXT_INSN_BAND:
	case VXT_INSN_BOR: case VXT_INSN_BXOR: case VXT_INSN_EQ: case VXT_INSN_NE:
	case VXT_INSN_LT: case VXT_INSN_LE: case VXT_INSN_GT: case VXT_INSN_GE:
	case VXT_INSN_ULT: case VXT_INSN_ULE: case VXT_INSN_UGT: case VXT_INSN_UGE:
	case VXT_INSN_NOT: case VXT_INSN_TRUTH:
		return true;
	case VXT_INSN_FIELD:
		return a != SF_PROBENAME;
	default:
		return false;
	}
}

/* Close the clause opened by the op at @at: its end, the jumps to it
 * (@end), and what its ops need of the context (@records: it ends with a
 * record op). */
static void clause_end(struct compiler *c, unsigned at, int64_t end, bool records)
{
	struct vxt_insn *open;
	unsigned need = records ? VXT_CLAUSE_CONTEXT | VXT_CLAUSE_RECORDS : 0;

	vxt_cc_patch(c, end, vxt_cc_here(c));
	if (c->rc < 0)
		return;
	open = &c->p->ops[at];
	open->imm = vxt_cc_here(c);
	for (unsigned i = at + 1; i < vxt_cc_here(c) && !need; i++)
		if (!context_free(c->p->ops[i].code, c->p->ops[i].a))
			need = VXT_CLAUSE_CONTEXT;
	open->dst = (uint16_t)need;
}

static void clause(struct compiler *c, unsigned idx, unsigned probe)
{
	const struct sclause *cl = &c->s->cl[idx];
	const struct script_node *st = cl->nstmts == 1 ? cl->stmts[0] : NULL;
	int64_t end = NO_FIXUP;
	unsigned at = vxt_cc_emit(c, VXT_INSN_CLAUSE, 0, idx, probe, 0);

	c->next_reg = 0;
	if (cl->pred)
		vxt_cc_test(c, cl->pred, false, &end);
	else if (c->s->keyed && vxt_skeyed_compile_pred(c, idx, &end) < 0)
		c->rc = -ENOMEM;	/* a profile's: its filter's table */
	if (cl->records && !cl->has_text && st && st->kind == SN_CALL &&
	    st->idx == FN_SPECULATE && c->has_event) {
		unsigned r = vxt_cc_reg(c);	/* a lone speculate: the event alone */
		int64_t m = (int64_t)(cl->rec_bits | SREC_HAS_EVENT |
				      (uint64_t)((unsigned)__builtin_ctz(probe) & 0xf)
				      << SREC_PROBE_SHIFT);

		if (vxt_cc_req_int(st->args[0])) {
			vxt_cc_emit(c, VXT_INSN_SPECULATE_REQ, probe, vxt_cc_slot(c, st->args[0]),
				    idx, m);
		} else {
			vxt_cc_value(c, st->args[0], r);
			vxt_cc_emit(c, VXT_INSN_SPECULATE_EVENT, probe, r, idx, m);
		}
		clause_end(c, at, end, false);
		return;
	}
	for (unsigned i = 0; i < cl->nstmts; i++)
		statement(c, cl->stmts[i]);
	if (cl->records)
		vxt_cc_emit(c, VXT_INSN_RECORD, 0, 0, 0, 0);
	clause_end(c, at, end, cl->records);
}

/* The program of the clauses that fire on @bits (ticks: of interval
 * @tick_ns); @done_list: the done list, where each clause fires as its own
 * done probe. @maxregs: raised to its registers. */
static struct vxt_program *program(struct vxt_script *s, unsigned bits, uint64_t tick_ns,
				   bool has_event, bool done_list, const char *title, int *rc,
				   unsigned *maxregs)
{
	struct vxt_program *p = *rc ? NULL : calloc(1, sizeof(*p));
	struct compiler c = { .s = s, .p = p, .has_event = has_event };

	if (!p) {
		*rc = *rc ? *rc : -ENOMEM;
		return NULL;
	}
	p->title = title;
	p->tick_ns = tick_ns;
	for (unsigned i = 0; i < s->ncl && c.rc == 0; i++) {
		const struct sclause *cl = &s->cl[i];

		if (!(cl->probes & bits) || (bits == SP_TICK && cl->tick_ns != tick_ns))
			continue;
		clause(&c, i, done_list ? (cl->probes & SP_DONE ? SP_DONE : SP_ERROR) :
			      bits == (SP_DONE | SP_ERROR) ? SP_DONE : bits);
	}
	vxt_cc_emit(&c, VXT_INSN_HALT, 0, 0, 0, 0);
	if (c.rc < 0)
		*rc = c.rc;
	if (p->nregs > *maxregs)
		*maxregs = p->nregs;
	return p;
}

/* The probe list of the events of @phase (SON_DONE: a done's, failed or
 * not). */
static unsigned list_of_phase(unsigned phase)
{
	switch (phase) {
	case VXT_PH_QUEUE: return SON_QUEUE;
	case VXT_PH_START: return SON_START;
	case VXT_PH_DONE: return SON_DONE;
	case VXT_PH_REQUEUE: return SON_REQUEUE;
	case VXT_PH_LOST: return SON_LOST;
	default: return SON_OTHER;	/* bpftrace's probes of other phases */
	}
}

int vxt_program_compile_script(struct vxt_script *s)
{
	static const struct {
		unsigned bits;
		const char *title;
		bool done;
	} lists[SON_COUNT] = {
		[SON_QUEUE] = { SP_QUEUE, "io:::queue" },
		[SON_START] = { SP_START, "io:::start" },
		[SON_DONE] = { SP_DONE | SP_ERROR, "io:::done (failed)", true },
		[SON_REQUEUE] = { SP_REQUEUE, "io:::requeue" },
		[SON_LOST] = { SP_LOST, "io:::lost" },
		[SON_OTHER] = { SP_OTHER, "other phases" },
		[SON_DONE_OK] = { SP_DONE, "io:::done" },
	};
	unsigned maxregs = 1;
	int rc = 0;

	for (unsigned i = 0; i < s->ncl; i++) {
		struct sclause *cl = &s->cl[i];

		cl->rec_bits = (uint64_t)(i & 0xff) << SREC_CLAUSE_SHIFT |
			       (cl->has_text ? SREC_OWN : 0);
		cl->done_probe = cl->probes & SP_DONE ? SP_DONE : SP_ERROR;
	}
	for (unsigned k = 0; k < SON_COUNT; k++)
		s->prog_on[k] = program(s, lists[k].bits, 0, true, lists[k].done,
					lists[k].title, &rc, &maxregs);
	/* the phases no clause is on (a mark never runs one) only count when
	 * nothing follows requests or keys */
	for (unsigned ph = 0; ph < 32 && rc == 0 && !s->uses_req && !s->keyed; ph++)
		if (ph == VXT_PH_MARK || s->prog_on[list_of_phase(ph)]->nops <= 1)
			s->count_only |= 1u << ph;
	s->prog_begin = program(s, SP_BEGIN, 0, false, false, "BEGIN", &rc, &maxregs);
	s->prog_end = program(s, SP_END, 0, false, false, "END", &rc, &maxregs);
	if (rc == 0 && s->nticks && !(s->prog_tick = calloc(s->nticks, sizeof(*s->prog_tick))))
		rc = -ENOMEM;
	for (unsigned i = 0; i < s->nticks && s->prog_tick; i++)
		s->prog_tick[i] = program(s, SP_TICK, s->ticks[i], false, false, "tick", &rc,
					  &maxregs);
	if (rc == 0 && !(s->regs = calloc(maxregs, sizeof(*s->regs))))
		rc = -ENOMEM;
	return rc;
}

void vxt_program_free(struct vxt_program *p)
{
	if (!p)
		return;
	free(p->ops);
	free(p->nodes);
	free(p);
}

void vxt_program_free_script(struct vxt_script *s)
{
	for (unsigned k = 0; k < SON_COUNT; k++)
		vxt_program_free(s->prog_on[k]);
	vxt_program_free(s->prog_begin);
	vxt_program_free(s->prog_end);
	for (unsigned i = 0; s->prog_tick && i < s->nticks; i++)
		vxt_program_free(s->prog_tick[i]);
	free(s->prog_tick);
	free(s->regs);
}
