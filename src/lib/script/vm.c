/* vm.c - the one loop that runs a script's programs (program.h)
 *
 * A label per op (computed goto, as CPython's loop), each written once. A
 * `clause` op opens a clause (the clause and probe a record names, where
 * the clause ends); a run-time
 * error (division by zero) abandons the clause there, as DTrace abandons
 * the clause at the faulting instruction; exit() lets the clause finish
 * and no later one start. Registers are the script's (s->regs): a program
 * runs for one firing at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/event_int.h"
#include "script/program.h"
#include "script/vm_impl.h"
#include "vxtrace/util.h"

static inline struct script_value int_value(int64_t i)
{
	struct script_value v = { .type = SV_INT, .i = i };

	return v;
}

/* The value an unset variable of @type reads as. */
static inline struct script_value zero_value(unsigned type)
{
	struct script_value v = { .type = type == SV_STR ? SV_STR : SV_INT, .s = "" };

	return v;
}

static inline bool str_truth(const struct script_value *v)
{
	return v->type == SV_STR ? v->s[0] != '\0' : v->i != 0;
}

static int compare(const struct script_value *a, const struct script_value *b)
{
	if (a->type == SV_STR && b->type == SV_STR)
		return strcmp(a->s, b->s);
	return (a->i > b->i) - (a->i < b->i);
}

/* Value @v kept by a variable: a string is interned (it outlives the event). */
static inline struct script_value kept(struct firing *x, struct script_value v)
{
	if (v.type == SV_STR)
		v.s = vxt_sintern(x->s, v.s, &x->rc);
	return v;
}

static int set_dyn(struct firing *x, const struct vxt_insn *op, struct script_value v)
{
	if (op->code == VXT_INSN_SET_SELF)
		return vxt_sself_set(x, op->a, kept(x, v));
	if (v.type != SV_STR)
		return vxt_sreq_set_int(x, op->a, v.i);
	return vxt_sreq_set(x, op->a, kept(x, v));
}

/* The event's request's req-> values (NULL: none), which only set_req and
 * open_req change while a program runs. */
static inline const struct sdyn *req_values(const struct firing *x)
{
	return x->req ? x->req->v : NULL;
}

/* Integer req-> variable in slot @slot of @d (0 when unset: an unset
 * value's integer is 0). */
static inline int64_t req_int(const struct sdyn *d, unsigned slot)
{
	return d ? d->v[slot].i : 0;
}

/* A lone speculate(@id) of clause @clause firing as @probe, which records
 * the event alone: appended in place to a buffer with room and no window
 * (@m: its record's word but the ordinal), else as any record is (the
 * window, the heap, the oldest tracked); nothing for an invalid or
 * inactive ID. */
static inline int speculate(struct firing *x, int64_t id, uint64_t m, unsigned clause,
			    unsigned probe)
{
	struct vxt_script *s = x->s;
	struct sspec *b;
	struct srec *r;

	if (!vxt_sspec_active(s, id))
		return 0;
	b = vxt_sspec_buf(s, id);
	if (b->windowed || b->n == b->cap || s->track ||
	    b->bytes + VXT_SCRIPT_RECORD_SIZE > s->opt.specsize) {
		x->cl = &s->cl[clause];	/* what the record names */
		x->probe = probe;
		x->target = id;
		s->tlen = 0;
		s->text[0] = '\0';
		return vxt_sspec_record(x);
	}
	r = &b->recs[b->n++];
	r->ev = *x->ev;
	r->m = m | (x->ordinal & SREC_ORDINAL);
	b->bytes += VXT_SCRIPT_RECORD_SIZE;
	vxt_sspec_mem(s, VXT_SCRIPT_RECORD_SIZE);
	return 0;
}

/* @a / @b (@mod: @a % @b) with D's rules: a division by zero is a
 * run-time error at @n and gives 0; INT64_MIN / -1 wraps. */
static int64_t divide(struct firing *x, const struct script_node *n, int64_t a, int64_t b, bool mod)
{
	if (b == 0) {
		vxt_sruntime_error(x, n, "division by zero");
		return 0;
	}
	if (a == INT64_MIN && b == -1)
		return mod ? 0 : INT64_MIN;
	return mod ? a % b : a / b;
}

static inline int discard(struct vxt_script *s, int64_t id)
{
	return s->keyed ? vxt_sspec_end(s, id, false) : vxt_sspec_discard(s, id);
}

#define R(i) (regs[(i)])
#define INT_OP(expr) R(op->dst) = int_value(expr)
/* the next op; the op at address @t; after an op that may fail or err */
#define NEXT() goto *dispatch[(++op)->code]
#define JUMP(t) do { op = p->ops + (t); goto *dispatch[op->code]; } while (0)
#define CHECK() goto checked

/* A label per op (computed goto), each op ending by dispatching the next. */
int vxt_program_run(struct firing *x, const struct vxt_program *p)
{
	static const void *const dispatch[VXT_INSN_COUNT] = {
#define VXT_INSN_LABEL(name, text, fmt) [VXT_INSN_##name] = &&do_##name,
		VXT_INSNS(VXT_INSN_LABEL)
#undef VXT_INSN_LABEL
	};
	struct vxt_script *s = x->s;
	struct script_value *regs = s->regs;
	static const struct vxt_insn no_clause;	/* before the first: ends at op 0 */
	/* the op of the clause running: its imm is the op where it ends */
	const struct vxt_insn *op = p->ops, *clause = &no_clause;
	const struct sdyn *reqv = req_values(x);
	int rc = 0;

	goto *dispatch[op->code];
do_HALT:
	return x->rc < 0 ? x->rc : 0;
do_RETURN:
	return x->rc < 0 ? x->rc : (int)op->imm;
do_CLAUSE:
	if (s->exited)
		return 0;
	x->error = false;
	clause = op;
	if (op->dst) {		/* VXT_CLAUSE_*: the context it needs */
		x->cl = &s->cl[op->a];
		x->probe = op->b;
		if (op->dst & VXT_CLAUSE_RECORDS) {
			x->target = 0;
			s->tlen = 0;
			s->text[0] = '\0';
		}
	}
	NEXT();
do_JUMP:
	JUMP(op->imm);
do_JUMP_UNLESS:
	if (!R(op->a).i)
		JUMP(op->imm);
	NEXT();
do_JUMP_IF:
	if (R(op->a).i)
		JUMP(op->imm);
	NEXT();
do_UNLESS_REQ:
	if (!req_int(reqv, op->a))
		JUMP(op->imm);
	NEXT();
do_UNLESS_ERROR:
	if (!x->ev->error)
		JUMP(op->imm);
	NEXT();
do_IF_ERROR:
	if (x->ev->error)
		JUMP(op->imm);
	NEXT();
do_UNLESS_FLAGS:
	if (!(x->ev->flags & op->a))
		JUMP(op->imm);
	NEXT();
do_IF_FLAGS:
	if (x->ev->flags & op->a)
		JUMP(op->imm);
	NEXT();
do_RECORD:
	if (x->rc < 0)
		return x->rc;
	rc = vxt_sspec_record(x);
	CHECK();
do_INT:
	INT_OP(op->imm);
	NEXT();
do_STR:
	R(op->dst) = (struct script_value){ .type = SV_STR, .s = (const char *)(intptr_t)op->imm };
	NEXT();
do_FIELD:
	R(op->dst) = vxt_sfield(x, (int)op->a);
	NEXT();
do_EVENT_INT:
	INT_OP(vxt_vm_event_int(x->ev, op->a));
	NEXT();
do_FIELD_RAW:
	INT_OP(vxt_vm_raw_field(x->ev, (int)op->a));
	NEXT();
do_RAW_EQ:
	INT_OP(vxt_vm_raw_field(x->ev, (int)op->a) == op->imm);
	NEXT();
do_GLOBAL:
	R(op->dst) = s->globals[op->a].type ? s->globals[op->a] : zero_value(op->b);
	NEXT();
do_THIS:
	R(op->dst) = s->thisv[op->a].type ? s->thisv[op->a] : zero_value(op->b);
	NEXT();
do_SELF: {
	const struct script_value *v = vxt_sself_get(x, op->a);

	R(op->dst) = v ? *v : zero_value(op->b);
	NEXT();
}
do_REQ:
	R(op->dst) = reqv && reqv->v[op->a].type ? reqv->v[op->a] : zero_value(op->b);
	NEXT();
do_ARRAY:
	R(op->dst) = vxt_vm_array_get(x, op->a, &R(op->b), (unsigned)op->imm);
	NEXT();
do_SET_GLOBAL:
	s->globals[op->a] = kept(x, R(op->b));
	NEXT();
do_SET_THIS:
	s->thisv[op->a] = kept(x, R(op->b));
	NEXT();
do_SET_SELF:
do_SET_REQ:
	rc = set_dyn(x, op, R(op->b));
	reqv = req_values(x);
	CHECK();
do_SET_ARRAY:
	rc = vxt_vm_array_set(x, op->a, &R(op->dst), (unsigned)op->imm, kept(x, R(op->b)));
	CHECK();
do_MOVE:
	R(op->dst) = R(op->a);
	NEXT();
do_ADD:
	INT_OP((int64_t)((uint64_t)R(op->a).i + (uint64_t)R(op->b).i));
	NEXT();
do_SUB:
	INT_OP((int64_t)((uint64_t)R(op->a).i - (uint64_t)R(op->b).i));
	NEXT();
do_MUL:
	INT_OP((int64_t)((uint64_t)R(op->a).i * (uint64_t)R(op->b).i));
	NEXT();
do_DIV:
do_MOD:
	INT_OP(divide(x, p->nodes[op->imm], R(op->a).i, R(op->b).i, op->code == VXT_INSN_MOD));
	CHECK();		/* a division by zero abandons the clause */
do_BAND:
	INT_OP(R(op->a).i & R(op->b).i);
	NEXT();
do_BOR:
	INT_OP(R(op->a).i | R(op->b).i);
	NEXT();
do_BXOR:
	INT_OP(R(op->a).i ^ R(op->b).i);
	NEXT();
do_SHL:
	INT_OP((int64_t)((uint64_t)R(op->a).i << ((uint64_t)R(op->b).i & 63)));
	NEXT();
do_SHR:
	INT_OP(R(op->a).i >> ((uint64_t)R(op->b).i & 63));
	NEXT();
do_NEG:
	INT_OP((int64_t)(0 - (uint64_t)R(op->a).i));
	NEXT();
do_BNOT:
	INT_OP(~R(op->a).i);
	NEXT();
do_NOT:
	INT_OP(!R(op->a).i);
	NEXT();
do_TRUTH:
	INT_OP(R(op->a).i != 0);
	NEXT();
do_STR_TRUTH:
	INT_OP(str_truth(&R(op->a)));
	NEXT();
do_KNOWN:
	INT_OP(s->pp && s->iv.v[op->a - SF_Q2D] != VXT_IV_UNSET);
	NEXT();
do_GLOB:
	INT_OP(vxt_glob_match((const char *)(intptr_t)op->imm,
			      R(op->a).type == SV_STR ? R(op->a).s : ""));
	NEXT();
do_NAME_MATCH: {
	/* the answer kept for the event's command (a) or object id, here */
	const struct sname_cache *nc = &s->ncache[op->b];
	uint32_t id = op->a ? x->ev->comm : x->ev->object;

	if (id < nc->n && nc->v[id])
		INT_OP(nc->v[id] == 2);
	else
		INT_OP(vxt_name_match(x, p->nodes[op->imm], &s->ncache[op->b]));
	NEXT();
}
do_EQ: INT_OP(R(op->a).i == R(op->b).i); NEXT();
do_NE: INT_OP(R(op->a).i != R(op->b).i); NEXT();
do_LT: INT_OP(R(op->a).i < R(op->b).i); NEXT();
do_LE: INT_OP(R(op->a).i <= R(op->b).i); NEXT();
do_GT: INT_OP(R(op->a).i > R(op->b).i); NEXT();
do_GE: INT_OP(R(op->a).i >= R(op->b).i); NEXT();
do_ULT: INT_OP((uint64_t)R(op->a).i < (uint64_t)R(op->b).i); NEXT();
do_ULE: INT_OP((uint64_t)R(op->a).i <= (uint64_t)R(op->b).i); NEXT();
do_UGT: INT_OP((uint64_t)R(op->a).i > (uint64_t)R(op->b).i); NEXT();
do_UGE: INT_OP((uint64_t)R(op->a).i >= (uint64_t)R(op->b).i); NEXT();
do_STR_EQ: INT_OP(compare(&R(op->a), &R(op->b)) == 0); NEXT();
do_STR_NE: INT_OP(compare(&R(op->a), &R(op->b)) != 0); NEXT();
do_STR_LT: INT_OP(compare(&R(op->a), &R(op->b)) < 0); NEXT();
do_STR_LE: INT_OP(compare(&R(op->a), &R(op->b)) <= 0); NEXT();
do_STR_GT: INT_OP(compare(&R(op->a), &R(op->b)) > 0); NEXT();
do_STR_GE: INT_OP(compare(&R(op->a), &R(op->b)) >= 0); NEXT();
do_SPECULATION:
	INT_OP(vxt_sspec_open(s));
	NEXT();
do_OPEN_REQ:
	rc = vxt_sreq_set_int(x, op->a, vxt_sspec_open(s));
	reqv = req_values(x);
	CHECK();
do_SPECULATE: {
	int64_t id = R(op->a).i;

	x->target = vxt_sspec_active(s, id) ? id : -1;
	NEXT();
}
do_SPECULATE_EVENT:
	rc = speculate(x, R(op->a).i, (uint64_t)op->imm, op->b, op->dst);
	CHECK();
do_SPECULATE_REQ:
	rc = speculate(x, req_int(reqv, op->a), (uint64_t)op->imm, op->b, op->dst);
	CHECK();
do_COMMIT_REQ:
	rc = vxt_sspec_end(s, req_int(reqv, op->a), true);
	CHECK();
do_DISCARD_REQ:
	rc = discard(s, req_int(reqv, op->a));
	CHECK();
do_COMMIT:
	rc = vxt_sspec_end(s, R(op->a).i, true);
	CHECK();
do_DISCARD:
	rc = discard(s, R(op->a).i);
	CHECK();
do_TRACE:
	vxt_vm_trace(x, &R(op->a));
	NEXT();
do_PRINTF:
	vxt_vm_printf(x, p->nodes[op->imm]->fmt, &R(op->a));
	NEXT();
do_EXIT:
	if (!s->exited) {
		s->exited = true;
		s->exit_code = (int)R(op->a).i;
	}
	NEXT();
do_PRINTA:
do_PRINTA_FMT:
	/* what the clause printed before goes out first, as its records reach
	 * dtrace's buffer in order */
	if (x->target == 0 && s->tlen) {
		rc = vxt_sspec_text(s, s->text, s->tlen);
		s->tlen = 0;
		s->text[0] = '\0';
		if (rc < 0)
			CHECK();
	}
	s->aggs[op->a].printed = true;
	rc = vxt_script_print_aggs(s, &s->aggs[op->a], false, false,
				   op->code == VXT_INSN_PRINTA_FMT ? p->nodes[op->imm]->fmt : NULL);
	CHECK();
do_NORMALIZE:
	s->aggs[op->a].normal = R(op->b).i;
	NEXT();
do_DENORMALIZE:
	s->aggs[op->a].normal = 0;
	NEXT();
do_CLEAR:
	vxt_sagg_clear(s, &s->aggs[op->a], false, 0);
	NEXT();
do_TRUNC:
	vxt_sagg_clear(s, &s->aggs[op->a], true, op->imm);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	NEXT();
do_AGG:
	rc = vxt_vm_aggregate(x, p->nodes[op->imm], &R(op->b), R(op->a).i);
	CHECK();
do_AGG_RAW:
	rc = vxt_vm_aggregate_raw(x, p->nodes[op->imm], &R(op->b), R(op->a).i);
	CHECK();
do_KEYED_SPEC:
	if (vxt_skeyed_active(s, x->key) != (bool)op->a)
		JUMP(op->imm);
	NEXT();
do_KEYED_ACTIVE:
	INT_OP(vxt_skeyed_active(s, x->key));
	NEXT();
do_KEYED_SPECULATION:
	rc = vxt_skeyed_speculation(x, op->a);
	CHECK();
do_KEYED_SPECULATE:
	vxt_skeyed_speculate(x);
	NEXT();
do_KEYED_TRACE:
	x->target = x->taken ? -1 : 0;	/* the event straight out, once */
	x->via = 0;
	x->taken = true;
	NEXT();
do_KEYED_COMMIT:
do_KEYED_DISCARD:
	rc = vxt_skeyed_finish(x, op->a, op->code == VXT_INSN_KEYED_COMMIT);
	CHECK();
do_BT:
	rc = vxt_bt_run(x, p->nodes[op->imm], &R(op->a));
	CHECK();
do_BT_VALUE:
	R(op->dst) = vxt_bt_value(x, p->nodes[op->imm], &R(op->a));
	CHECK();
checked:
	/* the ops that may fail or err come here */
	if (rc < 0)
		return rc;
	if (x->rc < 0)
		return x->rc;
	if (x->error)
		op = p->ops + clause->imm - 1;	/* the clause is abandoned */
	NEXT();
}
