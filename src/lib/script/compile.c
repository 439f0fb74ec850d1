/* compile.c - a checked script's clauses as ops on registers
 *
 * Each probe list (an event phase, BEGIN, END, a tick interval) becomes one
 * program: its clauses in program order, each opening with a `clause` op
 * that names the clause and where it ends, its predicate as conditional
 * jumps to that end, its statements, and a `record` op when it records.
 * Registers are taken as a stack: an expression's value goes to the
 * register it is given, its operands to the ones above.
 *
 * The compiler picks the specialised ops: a predicate's req->X (read in
 * place), `error` and `!error` leaves, && || ! as jumps (short-circuit), a
 * lone speculate() that records just the event, req->X = speculation() as
 * one op, and an aggregation whose keys all have raw forms (object, op,
 * phase, command, integers) keyed by the event's numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/program.h"
#include "vxtrace/util.h"

#define NO_FIXUP (-1)

struct compiler {
	struct vxt_script *s;
	struct vxt_program *p;
	unsigned next_reg;	/* the first free register */
	bool has_event;		/* the program runs for an event */
	int rc;
};

static unsigned emit(struct compiler *c, unsigned code, unsigned dst, uint32_t a, uint32_t b,
		     int64_t imm)
{
	struct vxt_program *p = c->p;
	size_t cap = p->cap;

	if (vxt_grow(&p->ops, &cap, p->nops + 1, sizeof(*p->ops)) < 0) {
		c->rc = -ENOMEM;
		return 0;
	}
	p->cap = (unsigned)cap;
	p->ops[p->nops] = (struct vxt_insn){ .code = (uint8_t)code, .dst = (uint16_t)dst,
					   .a = a, .b = b, .imm = imm };
	return p->nops++;
}

static unsigned here(const struct compiler *c)
{
	return c->p->nops;
}

static unsigned take_reg(struct compiler *c)
{
	unsigned r = c->next_reg++;

	if (c->next_reg > c->p->nregs)
		c->p->nregs = c->next_reg;
	return r;
}

static unsigned node_ref(struct compiler *c, const struct snode *n)
{
	struct vxt_program *p = c->p;
	size_t cap = p->capnodes;

	if (vxt_grow(&p->nodes, &cap, p->nnodes + 1, sizeof(*p->nodes)) < 0) {
		c->rc = -ENOMEM;
		return 0;
	}
	p->capnodes = (unsigned)cap;
	p->nodes[p->nnodes] = n;
	return p->nnodes++;
}

/* A jump whose target comes later: chained through imm until patched. */
static void jump_later(struct compiler *c, unsigned code, uint32_t a, int64_t *list)
{
	*list = emit(c, code, 0, a, 0, *list);
}

static void patch(struct compiler *c, int64_t list, unsigned target)
{
	while (list != NO_FIXUP && c->rc == 0) {
		int64_t next = c->p->ops[list].imm;

		c->p->ops[list].imm = target;
		list = next;
	}
}

static unsigned var_slot(const struct compiler *c, const struct snode *n)
{
	return c->s->vars[n->idx].slot;
}

static void value(struct compiler *c, const struct snode *n, unsigned dst);

/* Whether @n is an integer req-> variable, read in place by the ops on them. */
static bool req_int(const struct snode *n)
{
	return n->kind == SN_REQ && n->type == SV_INT;
}

/* Keys @keys[0..@n) into consecutive registers. @return the first. */
static unsigned keys(struct compiler *c, struct snode *const *k, unsigned n)
{
	unsigned first = c->next_reg;

	for (unsigned i = 0; i < n; i++)
		take_reg(c);
	for (unsigned i = 0; i < n; i++) {
		unsigned saved = c->next_reg;

		value(c, k[i], first + i);
		c->next_reg = saved;
	}
	return first;
}

/* Whether field @f is an integer the event holds (vm.c's event_int()). */
static bool event_int_field(int f)
{
	return f == SF_FLAGS || f == SF_SECTOR || f == SF_BYTES || f == SF_LATENCY ||
	       f == SF_ERROR || f == SF_PID || f == SF_CPU || f == SF_TIMESTAMP;
}

/* Variable @n into @dst. */
static void load(struct compiler *c, const struct snode *n, unsigned dst)
{
	switch (n->kind) {
	case SN_GLOBAL: emit(c, VXT_INSN_GLOBAL, dst, (uint32_t)n->idx, n->type, 0); break;
	case SN_THIS: emit(c, VXT_INSN_THIS, dst, (uint32_t)n->idx, n->type, 0); break;
	case SN_SELF: emit(c, VXT_INSN_SELF, dst, var_slot(c, n), n->type, 0); break;
	case SN_REQ: emit(c, VXT_INSN_REQ, dst, var_slot(c, n), n->type, 0); break;
	default:		/* SN_ARRAY */
		emit(c, VXT_INSN_ARRAY, dst, (uint32_t)n->idx, keys(c, n->args, n->nargs),
		     n->nargs);
		break;
	}
}

/* Register @src into variable @n; an array's keys are in @key_regs. */
static void store(struct compiler *c, const struct snode *n, unsigned src, unsigned key_regs)
{
	switch (n->kind) {
	case SN_GLOBAL: emit(c, VXT_INSN_SET_GLOBAL, 0, (uint32_t)n->idx, src, 0); break;
	case SN_THIS: emit(c, VXT_INSN_SET_THIS, 0, (uint32_t)n->idx, src, 0); break;
	case SN_SELF: emit(c, VXT_INSN_SET_SELF, 0, var_slot(c, n), src, 0); break;
	case SN_REQ: emit(c, VXT_INSN_SET_REQ, 0, var_slot(c, n), src, 0); break;
	default:
		emit(c, VXT_INSN_SET_ARRAY, key_regs, (uint32_t)n->idx, src, n->nargs);
		break;
	}
}

static unsigned arith_op(int tok)
{
	switch (tok) {
	case ST_PLUS: case ST_ADDEQ: return VXT_INSN_ADD;
	case ST_MINUS: case ST_SUBEQ: return VXT_INSN_SUB;
	case ST_STAR: case ST_MULEQ: return VXT_INSN_MUL;
	case ST_SLASH: case ST_DIVEQ: return VXT_INSN_DIV;
	case ST_PERCENT: return VXT_INSN_MOD;
	case ST_OR: return VXT_INSN_BOR;
	case ST_XOR: return VXT_INSN_BXOR;
	case ST_AND: return VXT_INSN_BAND;
	case ST_SHL: return VXT_INSN_SHL;
	default: return VXT_INSN_SHR;
	}
}

/* @dst = @a op @b for the operator of @n; a division keeps @n to name
 * where its run-time error is. */
static void arith(struct compiler *c, const struct snode *n, unsigned dst, unsigned a,
		  unsigned b)
{
	unsigned code = arith_op(n->op);

	emit(c, code, dst, a, b, code == VXT_INSN_DIV || code == VXT_INSN_MOD ? node_ref(c, n) : 0);
}

static unsigned compare_op(int tok, bool strings)
{
	unsigned base = strings ? VXT_INSN_STR_EQ : VXT_INSN_EQ;

	switch (tok) {
	case ST_EQ: return base;
	case ST_NE: return base + 1;
	case ST_LT: return base + 2;
	case ST_LE: return base + 3;
	case ST_GT: return base + 4;
	default: return base + 5;
	}
}

/* Jumps (onto @list) taken when the truth of @n is @sense; falls through
 * otherwise. */
static void test(struct compiler *c, const struct snode *n, bool sense, int64_t *list)
{
	int64_t other = NO_FIXUP;
	unsigned r;

	switch (n->kind) {
	case SN_AND: case SN_OR:
		if (sense == (n->kind == SN_OR)) {	/* either operand decides */
			test(c, n->a, sense, list);
			test(c, n->b, sense, list);
		} else {			/* both must */
			test(c, n->a, !sense, &other);
			test(c, n->b, sense, list);
			patch(c, other, here(c));
		}
		return;
	case SN_UNARY:
		if (n->op == ST_NOT) {
			test(c, n->a, !sense, list);
			return;
		}
		break;
	case SN_NUM:
		if ((n->num != 0) == sense)
			jump_later(c, VXT_INSN_JUMP, 0, list);
		return;
	case SN_REQ:
		if (!sense && n->type == SV_INT) {
			jump_later(c, VXT_INSN_UNLESS_REQ, var_slot(c, n), list);
			return;
		}
		break;
	case SN_KEYED:	/* spec: jump when active is sense */
		if (n->idx == SK_ACTIVE) {
			jump_later(c, VXT_INSN_KEYED_SPEC, !sense, list);
			return;
		}
		break;
	case SN_FIELD:
		if (n->idx == SF_ERROR && c->has_event) {
			jump_later(c, sense ? VXT_INSN_IF_ERROR : VXT_INSN_UNLESS_ERROR, 0, list);
			return;
		}
		break;
	default:
		break;
	}
	r = take_reg(c);
	value(c, n, r);
	if (n->type == SV_STR)
		emit(c, VXT_INSN_STR_TRUTH, r, r, 0, 0);
	jump_later(c, sense ? VXT_INSN_JUMP_IF : VXT_INSN_JUMP_UNLESS, r, list);
	c->next_reg = r;
}

/* 0 or 1 into @dst: the truth of @n. */
static void truth(struct compiler *c, const struct snode *n, unsigned dst)
{
	value(c, n, dst);
	emit(c, n->type == SV_STR ? VXT_INSN_STR_TRUTH : VXT_INSN_TRUTH, dst, dst, 0, 0);
}

static void assign(struct compiler *c, const struct snode *n, unsigned dst)
{
	const struct snode *v = n->a;
	unsigned key_regs = 0;

	value(c, n->b, dst);
	if (v->kind == SN_ARRAY)
		key_regs = keys(c, v->args, v->nargs);
	if (n->op != ST_ASSIGN) {
		unsigned old = take_reg(c);

		if (v->kind == SN_ARRAY)
			emit(c, VXT_INSN_ARRAY, old, (uint32_t)v->idx, key_regs, v->nargs);
		else
			load(c, v, old);
		arith(c, n, dst, old, dst);
	}
	store(c, v, dst, key_regs);
}

static void incdec(struct compiler *c, const struct snode *n, unsigned dst)
{
	const struct snode *v = n->a;
	unsigned key_regs = 0, one, now;

	if (v->kind == SN_ARRAY)
		key_regs = keys(c, v->args, v->nargs);
	if (v->kind == SN_ARRAY)
		emit(c, VXT_INSN_ARRAY, dst, (uint32_t)v->idx, key_regs, v->nargs);
	else
		load(c, v, dst);
	one = take_reg(c);
	now = take_reg(c);
	emit(c, VXT_INSN_INT, one, 0, 0, n->op == ST_INC ? 1 : -1);
	emit(c, VXT_INSN_ADD, now, dst, one, 0);
	store(c, v, now, key_regs);
	if (!n->num)		/* prefix: the new value */
		emit(c, VXT_INSN_MOVE, dst, now, 0, 0);
}

/* The value of @n into register @dst; registers above it are free. */
static void value(struct compiler *c, const struct snode *n, unsigned dst)
{
	unsigned saved = c->next_reg, r;
	int64_t no = NO_FIXUP, end = NO_FIXUP;

	if (c->next_reg <= dst)
		c->next_reg = dst + 1;
	if (c->next_reg > c->p->nregs)
		c->p->nregs = c->next_reg;
	switch (n->kind) {
	case SN_NUM: emit(c, VXT_INSN_INT, dst, 0, 0, n->num); break;
	case SN_STR: emit(c, VXT_INSN_STR, dst, 0, 0, (int64_t)(intptr_t)n->str); break;
	case SN_FIELD:
		emit(c, c->has_event && event_int_field(n->idx) ? VXT_INSN_EVENT_INT :
		     VXT_INSN_FIELD, dst, (uint32_t)n->idx, 0, 0);
		break;
	case SN_GLOBAL: case SN_THIS: case SN_SELF: case SN_REQ: case SN_ARRAY:
		load(c, n, dst);
		break;
	case SN_AND: case SN_OR:
		test(c, n, false, &no);
		emit(c, VXT_INSN_INT, dst, 0, 0, 1);
		jump_later(c, VXT_INSN_JUMP, 0, &end);
		patch(c, no, here(c));
		emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		patch(c, end, here(c));
		break;
	case SN_XORXOR:
		truth(c, n->a, dst);
		r = take_reg(c);
		truth(c, n->b, r);
		emit(c, VXT_INSN_NE, dst, dst, r, 0);
		break;
	case SN_COND:
		test(c, n->a, false, &no);
		value(c, n->b, dst);
		jump_later(c, VXT_INSN_JUMP, 0, &end);
		patch(c, no, here(c));
		value(c, n->c, dst);
		patch(c, end, here(c));
		break;
	case SN_UNARY:
		if (n->op == ST_NOT) {
			truth(c, n->a, dst);
			emit(c, VXT_INSN_NOT, dst, dst, 0, 0);
			break;
		}
		value(c, n->a, dst);
		emit(c, n->op == ST_TILDE ? VXT_INSN_BNOT : VXT_INSN_NEG, dst, dst, 0, 0);
		break;
	case SN_BINARY:
		value(c, n->a, dst);
		r = take_reg(c);
		value(c, n->b, r);
		if (n->op >= ST_EQ && n->op <= ST_GE)
			emit(c, compare_op(n->op, n->a->type == SV_STR && n->b->type == SV_STR),
			     dst, dst, r, 0);
		else
			arith(c, n, dst, dst, r);
		break;
	case SN_ASSIGN:
		assign(c, n, dst);
		break;
	case SN_INCDEC:
		incdec(c, n, dst);
		break;
	case SN_CALL:
		if (n->idx == FN_SPECULATION)
			emit(c, VXT_INSN_SPECULATION, dst, 0, 0, 0);
		else
			emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		break;
	case SN_KEYED:
		if (n->idx == SK_ACTIVE)
			emit(c, VXT_INSN_KEYED_ACTIVE, dst, 0, 0, 0);
		else
			emit(c, VXT_INSN_KEYED_VALUE, dst, 0, 0, node_ref(c, n));
		break;
	default:
		emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		break;
	}
	c->next_reg = saved;
}

/* @[keys] = f(value): raw keys when every key has one. */
static void aggregate(struct compiler *c, const struct snode *n)
{
	const struct sfast *fast = &c->s->fast[n->num];
	const struct snode *f = n->a;
	unsigned v = take_reg(c), first;
	bool raw = c->has_event && fast->usable;

	if (f->idx != FN_COUNT)
		value(c, f->args[0], v);
	if (!raw) {
		first = keys(c, n->keys, n->nkeys);
	} else {
		first = c->next_reg;
		for (unsigned i = 0; i < n->nkeys; i++)
			take_reg(c);
		for (unsigned i = 0; i < n->nkeys; i++) {
			if (fast->kind[i] == FK_INT)
				value(c, n->keys[i], first + i);
			else
				emit(c, VXT_INSN_FIELD_RAW, first + i, (uint32_t)n->keys[i]->idx, 0, 0);
		}
	}
	emit(c, raw ? VXT_INSN_AGG_RAW : VXT_INSN_AGG, 0, v, first, node_ref(c, n));
}

static void call(struct compiler *c, const struct snode *n)
{
	unsigned r = take_reg(c), first;

	switch (n->idx) {
	case FN_SPECULATION:
		emit(c, VXT_INSN_SPECULATION, r, 0, 0, 0);
		return;
	case FN_COMMIT: case FN_DISCARD:
		if (req_int(n->args[0])) {	/* the ID in place */
			emit(c, n->idx == FN_COMMIT ? VXT_INSN_COMMIT_REQ : VXT_INSN_DISCARD_REQ, 0,
			     var_slot(c, n->args[0]), 0, 0);
			return;
		}
		/* fall through */
	case FN_SPECULATE: case FN_EXIT:
		value(c, n->args[0], r);
		emit(c, n->idx == FN_SPECULATE ? VXT_INSN_SPECULATE : n->idx == FN_COMMIT ?
		     VXT_INSN_COMMIT : n->idx == FN_DISCARD ? VXT_INSN_DISCARD : VXT_INSN_EXIT,
		     0, r, 0, 0);
		return;
	case FN_TRACE:
		value(c, n->args[0], r);
		emit(c, n->args[0]->type == SV_STR ? VXT_INSN_TRACE_STR : VXT_INSN_TRACE, 0, r, 0, 0);
		return;
	case FN_PRINTF:
		c->next_reg = r;
		first = n->nargs > 1 ? keys(c, n->args + 1, n->nargs - 1) : r;
		emit(c, VXT_INSN_PRINTF, 0, first, n->nargs - 1, node_ref(c, n));
		return;
	case FN_PRINTA:
		if (n->args[0]->kind == SN_STR) {	/* printa("format", @a) */
			emit(c, VXT_INSN_PRINTA_FMT, 0, (uint32_t)n->args[1]->idx, 0,
			     node_ref(c, n));
			return;
		}
		for (unsigned i = 0; i < n->nargs; i++)
			emit(c, VXT_INSN_PRINTA, 0, (uint32_t)n->args[i]->idx, 0, 0);
		return;
	case FN_NORMALIZE:
		value(c, n->args[1], r);
		emit(c, VXT_INSN_NORMALIZE, 0, (uint32_t)n->args[0]->idx, r, 0);
		return;
	case FN_DENORMALIZE:
		emit(c, VXT_INSN_DENORMALIZE, 0, (uint32_t)n->args[0]->idx, 0, 0);
		return;
	case FN_CLEAR:
		emit(c, VXT_INSN_CLEAR, 0, (uint32_t)n->args[0]->idx, 0, 0);
		return;
	case FN_TRUNC:
		emit(c, VXT_INSN_TRUNC, 0, (uint32_t)n->args[0]->idx, 0,
		     n->nargs == 2 && n->args[1]->kind == SN_NUM ? n->args[1]->num : 0);
		return;
	default:
		return;
	}
}

static void statement(struct compiler *c, const struct snode *n)
{
	unsigned saved = c->next_reg;

	if (n->kind == SN_AGGSET) {
		aggregate(c, n);
	} else if (vxt_snode_cond_action(n)) {	/* c ? action : other: the one c picks */
		int64_t no = NO_FIXUP, end = NO_FIXUP;

		test(c, n->a, false, &no);
		statement(c, n->b);
		jump_later(c, VXT_INSN_JUMP, 0, &end);
		patch(c, no, here(c));
		statement(c, n->c);
		patch(c, end, here(c));
	} else if (n->kind == SN_ASSIGN && n->op == ST_ASSIGN && n->a->kind == SN_REQ &&
		   n->b->kind == SN_CALL && n->b->idx == FN_SPECULATION) {
		emit(c, VXT_INSN_OPEN_REQ, 0, var_slot(c, n->a), 0, 0);
	} else if (n->kind == SN_CALL && n->idx != FN_SPECULATION) {
		call(c, n);
	} else {
		value(c, n, take_reg(c));
	}
	c->next_reg = saved;
}

/* Whether @cl is a profile's clause: script_keyed.c's steps (its predicate
 * a step too, or D's lowered from the filter). */
static bool keyed_clause(const struct vxt_script *s, const struct sclause *cl)
{
	if (!s->keyed)
		return false;
	for (unsigned i = 0; i < cl->nstmts; i++)
		if (cl->stmts[i]->kind != SN_KEYED || cl->stmts[i]->idx == 0)
			return false;
	return true;
}

static void keyed_body(struct compiler *c, const struct sclause *cl, int64_t *end)
{
	if (cl->pred && cl->pred->kind != SN_KEYED) {
		test(c, cl->pred, false, end);
	} else if (cl->pred) {
		int spec = vxt_skeyed_pred_spec(c->s, cl->pred);

		if (spec >= 0)
			jump_later(c, VXT_INSN_KEYED_SPEC, (uint32_t)spec, end);
		else
			emit(c, VXT_INSN_KEYED_PRED, 0, 0, 0, node_ref(c, cl->pred));
	}
	for (unsigned i = 0; i < cl->nstmts; i++)
		emit(c, VXT_INSN_KEYED_STEP, 0, 0, 0, node_ref(c, cl->stmts[i]));
}

/* Whether op @code reads nothing of the context but the event and its
 * request: not the clause, the probe or the record (a clause of such ops
 * opens without setting them). */
static bool context_free(unsigned code, uint32_t a)
{
	switch (code) {
	case VXT_INSN_JUMP: case VXT_INSN_JUMP_UNLESS: case VXT_INSN_JUMP_IF:
	case VXT_INSN_UNLESS_REQ: case VXT_INSN_UNLESS_ERROR: case VXT_INSN_IF_ERROR:
	case VXT_INSN_SPECULATE_REQ: case VXT_INSN_COMMIT_REQ: case VXT_INSN_DISCARD_REQ:
	case VXT_INSN_OPEN_REQ: case VXT_INSN_COMMIT: case VXT_INSN_DISCARD:
	case VXT_INSN_INT: case VXT_INSN_REQ: case VXT_INSN_GLOBAL: case VXT_INSN_THIS:
	case VXT_INSN_EVENT_INT: case VXT_INSN_FIELD_RAW:
	case VXT_INSN_ADD: case VXT_INSN_SUB: case VXT_INSN_MUL: case VXT_INSN_BAND:
	case VXT_INSN_BOR: case VXT_INSN_BXOR: case VXT_INSN_EQ: case VXT_INSN_NE:
	case VXT_INSN_LT: case VXT_INSN_LE: case VXT_INSN_GT: case VXT_INSN_GE:
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

	patch(c, end, here(c));
	if (c->rc < 0)
		return;
	open = &c->p->ops[at];
	open->imm = here(c);
	for (unsigned i = at + 1; i < here(c) && !need; i++)
		if (!context_free(c->p->ops[i].code, c->p->ops[i].a))
			need = VXT_CLAUSE_CONTEXT;
	open->dst = (uint16_t)need;
}

static void clause(struct compiler *c, unsigned idx, unsigned probe)
{
	const struct sclause *cl = &c->s->cl[idx];
	const struct snode *st = cl->nstmts == 1 ? cl->stmts[0] : NULL;
	int64_t end = NO_FIXUP;
	unsigned at = emit(c, VXT_INSN_CLAUSE, 0, idx, probe, 0);

	c->next_reg = 0;
	if (keyed_clause(c->s, cl)) {
		keyed_body(c, cl, &end);
	} else {
		if (cl->pred)
			test(c, cl->pred, false, &end);
		if (cl->records && !cl->has_text && st && st->kind == SN_CALL &&
		    st->idx == FN_SPECULATE && c->has_event) {
			unsigned r = take_reg(c);	/* a lone speculate: the event alone */

			if (req_int(st->args[0])) {
				emit(c, VXT_INSN_SPECULATE_REQ, probe, var_slot(c, st->args[0]), idx,
				     (int64_t)(cl->rec_bits | SREC_HAS_EVENT |
					       (uint64_t)((unsigned)__builtin_ctz(probe) & 0xf)
					       << SREC_PROBE_SHIFT));
			} else {
				value(c, st->args[0], r);
				emit(c, VXT_INSN_SPECULATE_EVENT, 0, r, 0, 0);
			}
			clause_end(c, at, end, false);
			return;
		}
		for (unsigned i = 0; i < cl->nstmts; i++)
			statement(c, cl->stmts[i]);
	}
	if (cl->records)
		emit(c, VXT_INSN_RECORD, 0, 0, 0, 0);
	clause_end(c, at, end, cl->records);
}

/* The program of the clauses that fire on @bits (ticks: of interval
 * @tick_ns); @done_list: the done list, where each clause fires as its own
 * done probe. */
static struct vxt_program *program(struct vxt_script *s, unsigned bits, uint64_t tick_ns,
				   bool has_event, bool done_list, const char *title, int *rc)
{
	struct vxt_program *p = calloc(1, sizeof(*p));
	struct compiler c = { .s = s, .p = p, .has_event = has_event };

	if (!p) {
		*rc = -ENOMEM;
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
	emit(&c, VXT_INSN_HALT, 0, 0, 0, 0);
	if (c.rc < 0)
		*rc = c.rc;
	return p;
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
	for (unsigned k = 0; k < SON_COUNT && rc == 0; k++)
		s->prog_on[k] = program(s, lists[k].bits, 0, true, lists[k].done,
					lists[k].title, &rc);
	if (rc == 0)
		s->prog_begin = program(s, SP_BEGIN, 0, false, false, "BEGIN", &rc);
	if (rc == 0)
		s->prog_end = program(s, SP_END, 0, false, false, "END", &rc);
	if (rc == 0 && s->nticks && !(s->prog_tick = calloc(s->nticks, sizeof(*s->prog_tick))))
		rc = -ENOMEM;
	for (unsigned i = 0; i < s->nticks && rc == 0; i++)
		s->prog_tick[i] = program(s, SP_TICK, s->ticks[i], false, false, "tick", &rc);
	for (unsigned k = 0; k < SON_COUNT && rc == 0; k++)
		maxregs = s->prog_on[k]->nregs > maxregs ? s->prog_on[k]->nregs : maxregs;
	if (rc == 0) {
		maxregs = s->prog_begin->nregs > maxregs ? s->prog_begin->nregs : maxregs;
		maxregs = s->prog_end->nregs > maxregs ? s->prog_end->nregs : maxregs;
	}
	for (unsigned i = 0; i < s->nticks && rc == 0; i++)
		maxregs = s->prog_tick[i]->nregs > maxregs ? s->prog_tick[i]->nregs : maxregs;
	if (rc == 0 && !(s->regs = calloc(maxregs, sizeof(*s->regs))))
		rc = -ENOMEM;
	return rc;
}

static void program_free(struct vxt_program *p)
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
		program_free(s->prog_on[k]);
	program_free(s->prog_begin);
	program_free(s->prog_end);
	for (unsigned i = 0; s->prog_tick && i < s->nticks; i++)
		program_free(s->prog_tick[i]);
	free(s->prog_tick);
	free(s->regs);
}
