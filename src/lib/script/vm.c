/* vm.c - the one loop that runs a script's programs (program.h)
 *
 * A switch over the ops, each written once. A `clause` op opens a clause
 * (the clause and probe a record names, where the clause ends); a run-time
 * error (division by zero) abandons the clause there, as DTrace abandons
 * the clause at the faulting instruction; exit() lets the clause finish
 * and no later one start. Registers are the script's (s->regs): a program
 * runs for one firing at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "script/program.h"
#include "script/vm_impl.h"

static inline struct sval int_value(int64_t i)
{
	struct sval v = { .type = SV_INT, .i = i };

	return v;
}

/* The value an unset variable of @type reads as. */
static inline struct sval zero_value(unsigned type)
{
	struct sval v = { .type = type == SV_STR ? SV_STR : SV_INT, .s = "" };

	return v;
}

static inline bool str_truth(const struct sval *v)
{
	return v->type == SV_STR ? v->s[0] != '\0' : v->i != 0;
}

static int compare(const struct sval *a, const struct sval *b)
{
	if (a->type == SV_STR && b->type == SV_STR)
		return strcmp(a->s, b->s);
	return (a->i > b->i) - (a->i < b->i);
}

/* Value @v kept by a variable: a string is interned (it outlives the event). */
static inline struct sval kept(struct ectx *x, struct sval v)
{
	if (v.type == SV_STR)
		v.s = vxt_sintern(x->s, v.s, &x->rc);
	return v;
}

static int set_dyn(struct ectx *x, const struct vxt_insn *op, struct sval v)
{
	if (op->code == VXT_INSN_SET_SELF)
		return vxt_sself_set(x, op->a, kept(x, v));
	if (v.type != SV_STR)
		return vxt_sreq_set_int(x, op->a, v.i);
	return vxt_sreq_set(x, op->a, kept(x, v));
}

/* speculate(@id), the event alone into it (nothing for an invalid or
 * inactive ID). */
static int speculate_event(struct ectx *x, int64_t id)
{
	struct vxt_script *s = x->s;

	if (id <= 0 || id > s->opt.nspec || s->spec[id - 1].state != SB_ACTIVE)
		return 0;
	return vxt_sspec_speculate(x, id);
}

/* Integer req-> variable in slot @slot (0 when unset: an unset value's
 * integer is 0). */
static inline int64_t req_int(const struct ectx *x, unsigned slot)
{
	const struct sdyn *d = x->req ? x->req->v : NULL;

	return d ? d->v[slot].i : 0;
}

/* A lone speculate(req->X): the event appended in place to a buffer with
 * room and no window (@m: its record's word but the ordinal), else as
 * speculate_event(). */
static inline int speculate_req(struct ectx *x, int64_t id, uint64_t m)
{
	struct vxt_script *s = x->s;
	struct sspec *b;
	struct srec *r;

	if (id <= 0 || id > s->opt.nspec)
		return 0;
	b = &s->spec[id - 1];
	if (b->state != SB_ACTIVE)
		return 0;
	if (b->windowed || b->n == b->cap || s->track ||
	    b->bytes + VXT_SCRIPT_RECORD_SIZE > s->opt.specsize)
		return vxt_sspec_speculate(x, id);
	r = &b->recs[b->n++];
	r->ev = *x->ev;
	r->m = m | (x->ordinal & SREC_ORDINAL);
	b->bytes += VXT_SCRIPT_RECORD_SIZE;
	vxt_sspec_mem(s, VXT_SCRIPT_RECORD_SIZE);
	return 0;
}

static int discard(struct vxt_script *s, int64_t id)
{
	return s->keyed ? vxt_sspec_end(s, id, false) : vxt_sspec_discard(s, id);
}

#define R(i) (regs[(i)])
#define INT_OP(expr) R(op->dst) = int_value(expr)

int vxt_program_run(struct ectx *x, const struct vxt_program *p)
{
	struct vxt_script *s = x->s;
	struct sval *regs = s->regs;
	const struct vxt_insn *op = p->ops, *end = p->ops;
	int rc = 0;

	for (;; op++) {
		switch ((enum vxt_opcode)op->code) {
		case VXT_INSN_HALT:
			return x->rc < 0 ? x->rc : 0;
		case VXT_INSN_CLAUSE:
			if (s->exited || x->rc < 0)
				return x->rc < 0 ? x->rc : 0;
			x->cl = &s->cl[op->a];
			x->probe = op->b;
			x->error = false;
			end = p->ops + op->imm;
			if (op->dst) {
				x->target = 0;
				s->tlen = 0;
				s->text[0] = '\0';
			}
			continue;
		case VXT_INSN_JUMP:
			op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_JUMP_UNLESS:
			if (!R(op->a).i)
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_JUMP_IF:
			if (R(op->a).i)
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_UNLESS_REQ:
			if (!req_int(x, op->a))
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_UNLESS_ERROR:
			if (!x->ev->error)
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_IF_ERROR:
			if (x->ev->error)
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_RECORD:
			if (x->rc < 0)
				return x->rc;
			rc = vxt_sspec_record(x);
			break;
		case VXT_INSN_INT:
			INT_OP(op->imm);
			continue;
		case VXT_INSN_STR:
			R(op->dst) = (struct sval){ .type = SV_STR, .s = (const char *)(intptr_t)op->imm };
			continue;
		case VXT_INSN_FIELD:
			R(op->dst) = vxt_sfield(x, (int)op->a);
			continue;
		case VXT_INSN_FIELD_RAW:
			INT_OP(vxt_vm_raw_field(x->ev, (int)op->a));
			continue;
		case VXT_INSN_GLOBAL:
			R(op->dst) = s->globals[op->a].type ? s->globals[op->a] : zero_value(op->b);
			continue;
		case VXT_INSN_THIS:
			R(op->dst) = s->thisv[op->a].type ? s->thisv[op->a] : zero_value(op->b);
			continue;
		case VXT_INSN_SELF: {
			const struct sval *v = vxt_sself_get(x, op->a);

			R(op->dst) = v ? *v : zero_value(op->b);
			continue;
		}
		case VXT_INSN_REQ: {
			const struct sdyn *d = x->req ? x->req->v : NULL;

			R(op->dst) = d && d->v[op->a].type ? d->v[op->a] : zero_value(op->b);
			continue;
		}
		case VXT_INSN_ARRAY:
			R(op->dst) = vxt_vm_array_get(x, op->a, &R(op->b), (unsigned)op->imm);
			continue;
		case VXT_INSN_SET_GLOBAL:
			s->globals[op->a] = kept(x, R(op->b));
			continue;
		case VXT_INSN_SET_THIS:
			s->thisv[op->a] = kept(x, R(op->b));
			continue;
		case VXT_INSN_SET_SELF: case VXT_INSN_SET_REQ:
			rc = set_dyn(x, op, R(op->b));
			break;
		case VXT_INSN_SET_ARRAY:
			rc = vxt_vm_array_set(x, op->a, &R(op->dst), (unsigned)op->imm,
					      kept(x, R(op->b)));
			break;
		case VXT_INSN_MOVE:
			R(op->dst) = R(op->a);
			continue;
		case VXT_INSN_ADD:
			INT_OP((int64_t)((uint64_t)R(op->a).i + (uint64_t)R(op->b).i));
			continue;
		case VXT_INSN_SUB:
			INT_OP((int64_t)((uint64_t)R(op->a).i - (uint64_t)R(op->b).i));
			continue;
		case VXT_INSN_MUL:
			INT_OP((int64_t)((uint64_t)R(op->a).i * (uint64_t)R(op->b).i));
			continue;
		case VXT_INSN_DIV: case VXT_INSN_MOD:
			INT_OP(vxt_sarith(x, p->nodes[op->imm], R(op->a).i, R(op->b).i));
			if (x->error)
				op = end - 1;	/* the clause is abandoned */
			continue;
		case VXT_INSN_BAND:
			INT_OP(R(op->a).i & R(op->b).i);
			continue;
		case VXT_INSN_BOR:
			INT_OP(R(op->a).i | R(op->b).i);
			continue;
		case VXT_INSN_BXOR:
			INT_OP(R(op->a).i ^ R(op->b).i);
			continue;
		case VXT_INSN_SHL:
			INT_OP((int64_t)((uint64_t)R(op->a).i << ((uint64_t)R(op->b).i & 63)));
			continue;
		case VXT_INSN_SHR:
			INT_OP(R(op->a).i >> ((uint64_t)R(op->b).i & 63));
			continue;
		case VXT_INSN_NEG:
			INT_OP((int64_t)(0 - (uint64_t)R(op->a).i));
			continue;
		case VXT_INSN_BNOT:
			INT_OP(~R(op->a).i);
			continue;
		case VXT_INSN_NOT:
			INT_OP(!R(op->a).i);
			continue;
		case VXT_INSN_TRUTH:
			INT_OP(R(op->a).i != 0);
			continue;
		case VXT_INSN_STR_TRUTH:
			INT_OP(str_truth(&R(op->a)));
			continue;
		case VXT_INSN_EQ: INT_OP(R(op->a).i == R(op->b).i); continue;
		case VXT_INSN_NE: INT_OP(R(op->a).i != R(op->b).i); continue;
		case VXT_INSN_LT: INT_OP(R(op->a).i < R(op->b).i); continue;
		case VXT_INSN_LE: INT_OP(R(op->a).i <= R(op->b).i); continue;
		case VXT_INSN_GT: INT_OP(R(op->a).i > R(op->b).i); continue;
		case VXT_INSN_GE: INT_OP(R(op->a).i >= R(op->b).i); continue;
		case VXT_INSN_STR_EQ: INT_OP(compare(&R(op->a), &R(op->b)) == 0); continue;
		case VXT_INSN_STR_NE: INT_OP(compare(&R(op->a), &R(op->b)) != 0); continue;
		case VXT_INSN_STR_LT: INT_OP(compare(&R(op->a), &R(op->b)) < 0); continue;
		case VXT_INSN_STR_LE: INT_OP(compare(&R(op->a), &R(op->b)) <= 0); continue;
		case VXT_INSN_STR_GT: INT_OP(compare(&R(op->a), &R(op->b)) > 0); continue;
		case VXT_INSN_STR_GE: INT_OP(compare(&R(op->a), &R(op->b)) >= 0); continue;
		case VXT_INSN_SPECULATION:
			INT_OP(vxt_sspec_open(s));
			continue;
		case VXT_INSN_OPEN_REQ:
			rc = vxt_sreq_set_int(x, op->a, vxt_sspec_open(s));
			break;
		case VXT_INSN_SPECULATE: {
			int64_t id = R(op->a).i;

			x->target = id > 0 && id <= s->opt.nspec &&
				    s->spec[id - 1].state == SB_ACTIVE ? id : -1;
			continue;
		}
		case VXT_INSN_SPECULATE_EVENT:
			rc = speculate_event(x, R(op->a).i);
			break;
		case VXT_INSN_SPECULATE_REQ:
			rc = speculate_req(x, req_int(x, op->a), (uint64_t)op->imm);
			break;
		case VXT_INSN_COMMIT_REQ:
			rc = vxt_sspec_end(s, req_int(x, op->a), true);
			break;
		case VXT_INSN_DISCARD_REQ:
			rc = discard(s, req_int(x, op->a));
			break;
		case VXT_INSN_COMMIT:
			rc = vxt_sspec_end(s, R(op->a).i, true);
			break;
		case VXT_INSN_DISCARD:
			rc = discard(s, R(op->a).i);
			break;
		case VXT_INSN_TRACE: case VXT_INSN_TRACE_STR:
			vxt_vm_trace(x, &R(op->a));
			continue;
		case VXT_INSN_PRINTF:
			vxt_vm_printf(x, p->nodes[op->imm]->fmt, &R(op->a));
			continue;
		case VXT_INSN_EXIT:
			if (!s->exited) {
				s->exited = true;
				s->exit_code = (int)R(op->a).i;
			}
			continue;
		case VXT_INSN_PRINTA:
		case VXT_INSN_PRINTA_FMT:
			/* what the clause printed before goes out first, as its
			 * records reach dtrace's buffer in order */
			if (x->target == 0 && s->tlen) {
				rc = vxt_sspec_text(s, s->text, s->tlen);
				s->tlen = 0;
				s->text[0] = '\0';
				if (rc < 0)
					break;
			}
			s->aggs[op->a].printed = true;
			rc = vxt_script_print_aggs(s, &s->aggs[op->a], false, false,
						   op->code == VXT_INSN_PRINTA_FMT ?
						   p->nodes[op->imm]->fmt : NULL);
			break;
		case VXT_INSN_NORMALIZE:
			s->aggs[op->a].normal = R(op->b).i;
			continue;
		case VXT_INSN_DENORMALIZE:
			s->aggs[op->a].normal = 0;
			continue;
		case VXT_INSN_CLEAR:
			vxt_sagg_clear(s, &s->aggs[op->a], false, 0);
			continue;
		case VXT_INSN_TRUNC:
			vxt_sagg_clear(s, &s->aggs[op->a], true, op->imm);
			s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
			continue;
		case VXT_INSN_AGG:
			rc = vxt_vm_aggregate(x, p->nodes[op->imm], &R(op->b), R(op->a).i);
			break;
		case VXT_INSN_AGG_RAW:
			rc = vxt_vm_aggregate_raw(x, p->nodes[op->imm], &R(op->b), R(op->a).i);
			break;
		case VXT_INSN_KEYED_PRED:
			if (!vxt_skeyed_pred(x, p->nodes[op->imm]))
				op = end - 1;
			break;
		case VXT_INSN_KEYED_SPEC:
			if (vxt_skeyed_active(s, x->key) != (bool)op->a)
				op = p->ops + op->imm - 1;
			continue;
		case VXT_INSN_KEYED_STEP:
			rc = vxt_skeyed_step(x, p->nodes[op->imm]);
			break;
		case VXT_INSN_KEYED_VALUE:
			R(op->dst) = vxt_skeyed_eval(x, p->nodes[op->imm]);
			break;
		case VXT_INSN_COUNT:
			return -EINVAL;
		}
		/* the ops that may fail or err come here */
		if (rc < 0)
			return rc;
		if (x->rc < 0)
			return x->rc;
		if (x->error)
			op = end - 1;	/* the clause is abandoned */
	}
}
