/* compile.c - expressions as ops on registers (compile_clause.c puts them
 * together into clauses and programs)
 *
 * Registers are taken as a stack: an expression's value goes to the
 * register it is given, its operands to the ones above. A predicate is
 * jumps: && || ! short-circuit, a req->X read in place (unless_req), the
 * error field tested in place (unless_error, if_error), spec as keyed_spec;
 * a mask of constants (x & K, where x is | and ?: of constants, as a
 * translator's flags word) tests only what the mask reaches; any other
 * value is computed and jumped on. An integer field of the event is read in
 * place (event_int), and op or phase compared with one of their names is
 * their code compared (raw_eq).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/event_int.h"
#include "script/compile_impl.h"
#include "script/vm_impl.h"
#include "vxtrace/util.h"


unsigned vxt_cc_emit(struct compiler *c, unsigned code, unsigned dst, uint32_t a, uint32_t b,
		     int64_t imm)
{
	struct vxt_program *p = c->p;
	size_t cap = p->cap;

	if (vxt_grow(&p->ops, &cap, p->nops + 1, sizeof(*p->ops)) < 0) {
		c->rc = -ENOMEM;
		return 0;
	}
	p->cap = (unsigned)cap;
	/* zeroed whole, padding too: programs are compared with memcmp() */
	memset(&p->ops[p->nops], 0, sizeof(p->ops[0]));
	p->ops[p->nops].code = (uint8_t)code;
	p->ops[p->nops].dst = (uint16_t)dst;
	p->ops[p->nops].a = a;
	p->ops[p->nops].b = b;
	p->ops[p->nops].imm = imm;
	return p->nops++;
}

unsigned vxt_cc_here(const struct compiler *c)
{
	return c->p->nops;
}

unsigned vxt_cc_reg(struct compiler *c)
{
	unsigned r = c->next_reg++;

	if (c->next_reg > c->p->nregs)
		c->p->nregs = c->next_reg;
	return r;
}

unsigned vxt_cc_node(struct compiler *c, const struct script_node *n)
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
void vxt_cc_jump(struct compiler *c, unsigned code, uint32_t a, int64_t *list)
{
	*list = vxt_cc_emit(c, code, 0, a, 0, *list);
}

void vxt_cc_patch(struct compiler *c, int64_t list, unsigned target)
{
	while (list != NO_FIXUP && c->rc == 0) {
		int64_t next = c->p->ops[list].imm;

		c->p->ops[list].imm = target;
		list = next;
	}
}

unsigned vxt_cc_slot(const struct compiler *c, const struct script_node *n)
{
	return c->s->vars[n->idx].slot;
}

/* Whether @n is an integer req-> variable, read in place by the ops on them. */
bool vxt_cc_req_int(const struct script_node *n)
{
	return n->kind == SN_REQ && n->type == SV_INT;
}

/* Keys @keys[0..@n) into consecutive registers (@raw: a key with a raw
 * form as its number, field_raw). @return the first. */
unsigned vxt_cc_keys(struct compiler *c, struct script_node *const *k, unsigned n, bool raw)
{
	unsigned first = c->next_reg;

	for (unsigned i = 0; i < n; i++)
		vxt_cc_reg(c);
	for (unsigned i = 0; i < n; i++) {
		if (raw && vxt_vm_raw_key(k[i]))
			vxt_cc_emit(c, VXT_INSN_FIELD_RAW, first + i, (uint32_t)k[i]->idx, 0, 0);
		else
			vxt_cc_value(c, k[i], first + i);
	}
	return first;
}

/* The code whose name string @n is for code field @f (op, phase), -1 when
 * @n is no such name (then the comparison is by name). */
static int code_of(int f, const struct script_node *n)
{
	if (n->kind != SN_STR)
		return -1;
	return f == SF_OP ? vxt_op_parse(n->str) : f == SF_PHASE ? vxt_phase_parse(n->str) : -1;
}

/* @n (== or !=) compares a code field of the event with one of its names:
 * the code itself is compared (raw_eq, no string), 1 in @dst when equal.
 * @return whether it did. */
static bool code_compare(struct compiler *c, const struct script_node *n, unsigned dst)
{
	const struct script_node *f = n->a, *v = n->b;
	int code;

	if (!c->has_event || (n->op != ST_EQ && n->op != ST_NE))
		return false;
	if (f->kind != SN_FIELD) {
		f = n->b;
		v = n->a;
	}
	if (f->kind != SN_FIELD || (code = code_of(f->idx, v)) < 0)
		return false;
	vxt_cc_emit(c, VXT_INSN_RAW_EQ, dst, (uint32_t)f->idx, 0, code);
	if (n->op == ST_NE)
		vxt_cc_emit(c, VXT_INSN_NOT, dst, dst, 0, 0);
	return true;
}

/* The keys of array @n into registers (the first returned), 0 when @n is
 * no array. */
static unsigned keys_of(struct compiler *c, const struct script_node *n)
{
	return n->kind == SN_ARRAY ? vxt_cc_keys(c, n->args, n->nargs, false) : 0;
}

/* Variable @n into register @reg (@set: register @reg into @n); an
 * array's keys are in @key_regs. */
static void variable(struct compiler *c, const struct script_node *n, unsigned reg,
		     unsigned key_regs, bool set)
{
	uint32_t a = n->kind == SN_SELF || n->kind == SN_REQ ? vxt_cc_slot(c, n) : (uint32_t)n->idx;
	unsigned code;

	switch (n->kind) {
	case SN_GLOBAL: code = set ? VXT_INSN_SET_GLOBAL : VXT_INSN_GLOBAL; break;
	case SN_THIS: code = set ? VXT_INSN_SET_THIS : VXT_INSN_THIS; break;
	case SN_SELF: code = set ? VXT_INSN_SET_SELF : VXT_INSN_SELF; break;
	case SN_REQ: code = set ? VXT_INSN_SET_REQ : VXT_INSN_REQ; break;
	default:		/* SN_ARRAY */
		vxt_cc_emit(c, set ? VXT_INSN_SET_ARRAY : VXT_INSN_ARRAY, set ? key_regs : reg, a,
			    set ? reg : key_regs, n->nargs);
		return;
	}
	/* a read's b: the type of an unset value */
	vxt_cc_emit(c, code, set ? 0 : reg, a, set ? reg : n->type, 0);
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
static void arith(struct compiler *c, const struct script_node *n, unsigned dst, unsigned a,
		  unsigned b)
{
	unsigned code = arith_op(n->op);

	vxt_cc_emit(c, code, dst, a, b, code == VXT_INSN_DIV || code == VXT_INSN_MOD ? vxt_cc_node(c, n) : 0);
}

bool vxt_cc_unsigned_field(int f)
{
	return f == SF_SECTOR || f == SF_BYTES || f == SF_LATENCY || f == SF_TIMESTAMP ||
	       f == SF_WALLTIMESTAMP || f == SF_ARG0 || (f >= SF_Q2D && f <= SF_I2D);
}

/* Whether @n's value is unsigned, as C types it: such a field, and
 * arithmetic with one (its left operand for a shift). */
static bool unsigned_value(const struct script_node *n)
{
	switch (n->kind) {
	case SN_FIELD:
		return vxt_cc_unsigned_field(n->idx);
	case SN_BINARY:
		if (n->op >= ST_EQ && n->op <= ST_GE)
			return false;
		if (n->op == ST_SHL || n->op == ST_SHR)
			return unsigned_value(n->a);
		return unsigned_value(n->a) || unsigned_value(n->b);
	case SN_UNARY:
		return n->op != ST_NOT && unsigned_value(n->a);
	case SN_COND:
		return unsigned_value(n->b) || unsigned_value(n->c);
	default:
		return false;
	}
}

/* The op comparing @n's operands: strings by content, integers signed
 * unless one is unsigned (C's usual conversions: sector > -1 is false). */
static unsigned compare_op(const struct script_node *n)
{
	bool strings = n->a->type == SV_STR && n->b->type == SV_STR;
	unsigned base = strings ? VXT_INSN_STR_EQ : VXT_INSN_EQ;

	if (!strings && (unsigned_value(n->a) || unsigned_value(n->b))) {
		switch (n->op) {
		case ST_LT: return VXT_INSN_ULT;
		case ST_LE: return VXT_INSN_ULE;
		case ST_GT: return VXT_INSN_UGT;
		case ST_GE: return VXT_INSN_UGE;
		default: break;	/* == != are the same either way */
		}
	}
	switch (n->op) {
	case ST_EQ: return base;
	case ST_NE: return base + 1;
	case ST_LT: return base + 2;
	case ST_LE: return base + 3;
	case ST_GT: return base + 4;
	default: return base + 5;
	}
}

/* What @n & @k is known to be before the run: 0 when zero, 1 when not,
 * -1 when only the run tells (constants, | and ?: of them). */
static int masked_known(const struct script_node *n, int64_t k)
{
	int a, b;

	switch (n->kind) {
	case SN_NUM:
		return (n->num & k) != 0;
	case SN_BINARY:
		if (n->op != ST_OR)
			return -1;
		a = masked_known(n->a, k);
		b = masked_known(n->b, k);
		return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
	case SN_COND:
		a = masked_known(n->b, k);
		return a >= 0 && a == masked_known(n->c, k) ? a : -1;
	default:
		return -1;
	}
}

/* Jumps onto @list taken when (@n & @k != 0) is @sense: a mask of | and ?:
 * (a translator's flags word, b_flags & B_READ) tests only the operands the
 * mask reaches, a ?: whose arms are known tests its condition, and the
 * event's flags are tested in place (if_flags, unless_flags). */
static void test_masked(struct compiler *c, const struct script_node *n, int64_t k, bool sense,
			int64_t *list)
{
	int64_t other = NO_FIXUP, end = NO_FIXUP;
	int known = masked_known(n, k);
	unsigned r, m;

	if (known >= 0) {
		if (known == sense)
			vxt_cc_jump(c, VXT_INSN_JUMP, 0, list);
		return;
	}
	if (n->kind == SN_BINARY && n->op == ST_OR) {
		if (masked_known(n->a, k) == 0) {
			test_masked(c, n->b, k, sense, list);
		} else if (masked_known(n->b, k) == 0) {
			test_masked(c, n->a, k, sense, list);
		} else if (sense) {		/* either operand decides */
			test_masked(c, n->a, k, true, list);
			test_masked(c, n->b, k, true, list);
		} else {			/* both must be zero */
			test_masked(c, n->a, k, true, &other);
			test_masked(c, n->b, k, false, list);
			vxt_cc_patch(c, other, vxt_cc_here(c));
		}
		return;
	}
	if (n->kind == SN_COND) {
		int b = masked_known(n->b, k), e = masked_known(n->c, k);

		if (b >= 0 && e >= 0) {		/* known arms, unequal: the condition */
			vxt_cc_test(c, n->a, b ? sense : !sense, list);
			return;
		}
		vxt_cc_test(c, n->a, false, &other);
		test_masked(c, n->b, k, sense, list);
		vxt_cc_jump(c, VXT_INSN_JUMP, 0, &end);
		vxt_cc_patch(c, other, vxt_cc_here(c));
		test_masked(c, n->c, k, sense, list);
		vxt_cc_patch(c, end, vxt_cc_here(c));
		return;
	}
	if (n->kind == SN_FIELD && n->idx == SF_FLAGS && c->has_event && k > 0 && k <= UINT16_MAX) {
		/* the event's flags & K: one op (bpftrace's level tests) */
		vxt_cc_jump(c, sense ? VXT_INSN_IF_FLAGS : VXT_INSN_UNLESS_FLAGS, (uint32_t)k,
			    list);
		return;
	}
	r = vxt_cc_reg(c);
	vxt_cc_value(c, n, r);
	m = vxt_cc_reg(c);
	vxt_cc_emit(c, VXT_INSN_INT, m, 0, 0, k);
	vxt_cc_emit(c, VXT_INSN_BAND, r, r, m, 0);
	vxt_cc_jump(c, sense ? VXT_INSN_JUMP_IF : VXT_INSN_JUMP_UNLESS, r, list);
	c->next_reg = r;
}

/* Jumps (onto @list) taken when the truth of @n is @sense; falls through
 * otherwise. */
void vxt_cc_test(struct compiler *c, const struct script_node *n, bool sense, int64_t *list)
{
	int64_t other = NO_FIXUP;
	unsigned r;

	switch (n->kind) {
	case SN_AND: case SN_OR:
		if (sense == (n->kind == SN_OR)) {	/* either operand decides */
			vxt_cc_test(c, n->a, sense, list);
			vxt_cc_test(c, n->b, sense, list);
		} else {			/* both must */
			vxt_cc_test(c, n->a, !sense, &other);
			vxt_cc_test(c, n->b, sense, list);
			vxt_cc_patch(c, other, vxt_cc_here(c));
		}
		return;
	case SN_UNARY:
		if (n->op == ST_NOT) {
			vxt_cc_test(c, n->a, !sense, list);
			return;
		}
		break;
	case SN_NUM:
		if ((n->num != 0) == sense)
			vxt_cc_jump(c, VXT_INSN_JUMP, 0, list);
		return;
	case SN_REQ:
		if (!sense && n->type == SV_INT) {
			vxt_cc_jump(c, VXT_INSN_UNLESS_REQ, vxt_cc_slot(c, n), list);
			return;
		}
		break;
	case SN_KEYED:	/* spec: jump when active is sense */
		if (n->idx == SK_ACTIVE) {
			vxt_cc_jump(c, VXT_INSN_KEYED_SPEC, !sense, list);
			return;
		}
		break;
	case SN_BINARY:
		if (n->op == ST_AND && (n->a->kind == SN_NUM || n->b->kind == SN_NUM)) {
			test_masked(c, n->a->kind == SN_NUM ? n->b : n->a,
				    n->a->kind == SN_NUM ? n->a->num : n->b->num, sense, list);
			return;
		}
		break;
	case SN_FIELD:
		if (n->idx == SF_ERROR && c->has_event) {
			vxt_cc_jump(c, sense ? VXT_INSN_IF_ERROR : VXT_INSN_UNLESS_ERROR, 0, list);
			return;
		}
		break;
	default:
		break;
	}
	r = vxt_cc_reg(c);
	vxt_cc_value(c, n, r);
	if (n->type == SV_STR)
		vxt_cc_emit(c, VXT_INSN_STR_TRUTH, r, r, 0, 0);
	vxt_cc_jump(c, sense ? VXT_INSN_JUMP_IF : VXT_INSN_JUMP_UNLESS, r, list);
	c->next_reg = r;
}

/* 0 or 1 into @dst: the truth of @n. */
static void truth(struct compiler *c, const struct script_node *n, unsigned dst)
{
	vxt_cc_value(c, n, dst);
	vxt_cc_emit(c, n->type == SV_STR ? VXT_INSN_STR_TRUTH : VXT_INSN_TRUTH, dst, dst, 0, 0);
}

static void assign(struct compiler *c, const struct script_node *n, unsigned dst)
{
	const struct script_node *v = n->a;
	unsigned key_regs;

	vxt_cc_value(c, n->b, dst);
	key_regs = keys_of(c, v);
	if (n->op != ST_ASSIGN) {
		unsigned old = vxt_cc_reg(c);

		variable(c, v, old, key_regs, false);
		arith(c, n, dst, old, dst);
	}
	variable(c, v, dst, key_regs, true);
}

static void incdec(struct compiler *c, const struct script_node *n, unsigned dst)
{
	const struct script_node *v = n->a;
	unsigned key_regs = keys_of(c, v), one, now;

	variable(c, v, dst, key_regs, false);
	one = vxt_cc_reg(c);
	now = vxt_cc_reg(c);
	vxt_cc_emit(c, VXT_INSN_INT, one, 0, 0, n->op == ST_INC ? 1 : -1);
	vxt_cc_emit(c, VXT_INSN_ADD, now, dst, one, 0);
	variable(c, v, now, key_regs, true);
	if (!n->num)		/* prefix: the new value */
		vxt_cc_emit(c, VXT_INSN_MOVE, dst, now, 0, 0);
}

/* The value of @n into register @dst; registers above it are free. */
void vxt_cc_value(struct compiler *c, const struct script_node *n, unsigned dst)
{
	unsigned saved = c->next_reg, r;
	int64_t no = NO_FIXUP, end = NO_FIXUP;

	if (c->next_reg <= dst)
		c->next_reg = dst + 1;
	if (c->next_reg > c->p->nregs)
		c->p->nregs = c->next_reg;
	switch (n->kind) {
	case SN_NUM: vxt_cc_emit(c, VXT_INSN_INT, dst, 0, 0, n->num); break;
	case SN_STR: vxt_cc_emit(c, VXT_INSN_STR, dst, 0, 0, (int64_t)(intptr_t)n->str); break;
	case SN_FIELD:
		vxt_cc_emit(c, c->has_event && vxt_vm_event_int_field(n->idx) ? VXT_INSN_EVENT_INT :
		     VXT_INSN_FIELD, dst, (uint32_t)n->idx, 0, 0);
		break;
	case SN_GLOBAL: case SN_THIS: case SN_SELF: case SN_REQ: case SN_ARRAY:
		variable(c, n, dst, keys_of(c, n), false);
		break;
	case SN_AND: case SN_OR:
		vxt_cc_test(c, n, false, &no);
		vxt_cc_emit(c, VXT_INSN_INT, dst, 0, 0, 1);
		vxt_cc_jump(c, VXT_INSN_JUMP, 0, &end);
		vxt_cc_patch(c, no, vxt_cc_here(c));
		vxt_cc_emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		vxt_cc_patch(c, end, vxt_cc_here(c));
		break;
	case SN_XORXOR:
		truth(c, n->a, dst);
		r = vxt_cc_reg(c);
		truth(c, n->b, r);
		vxt_cc_emit(c, VXT_INSN_NE, dst, dst, r, 0);
		break;
	case SN_COND:
		vxt_cc_test(c, n->a, false, &no);
		vxt_cc_value(c, n->b, dst);
		vxt_cc_jump(c, VXT_INSN_JUMP, 0, &end);
		vxt_cc_patch(c, no, vxt_cc_here(c));
		vxt_cc_value(c, n->c, dst);
		vxt_cc_patch(c, end, vxt_cc_here(c));
		break;
	case SN_UNARY:
		if (n->op == ST_NOT) {
			truth(c, n->a, dst);
			vxt_cc_emit(c, VXT_INSN_NOT, dst, dst, 0, 0);
			break;
		}
		vxt_cc_value(c, n->a, dst);
		vxt_cc_emit(c, n->op == ST_TILDE ? VXT_INSN_BNOT : VXT_INSN_NEG, dst, dst, 0, 0);
		break;
	case SN_BINARY:
		if (code_compare(c, n, dst))
			break;
		vxt_cc_value(c, n->a, dst);
		r = vxt_cc_reg(c);
		vxt_cc_value(c, n->b, r);
		if (n->op >= ST_EQ && n->op <= ST_GE)
			vxt_cc_emit(c, compare_op(n), dst, dst, r, 0);
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
		if (n->idx == FN_SPECULATION) {
			vxt_cc_emit(c, VXT_INSN_SPECULATION, dst, 0, 0, 0);
		} else if (n->idx == FN_BT) {	/* strftime(): its operands, then it */
			struct script_node *const *v;
			unsigned nv = vxt_bt_operands(n, &v);

			r = nv ? vxt_cc_keys(c, v, nv, false) : dst;
			vxt_cc_emit(c, VXT_INSN_BT_VALUE, dst, r, nv, vxt_cc_node(c, n));
		} else {
			vxt_cc_emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		}
		break;
	case SN_KNOWN:
		vxt_cc_emit(c, VXT_INSN_KNOWN, dst, (uint32_t)n->idx, 0, 0);
		break;
	case SN_GLOB:
		vxt_cc_value(c, n->a, dst);
		vxt_cc_emit(c, VXT_INSN_GLOB, dst, dst, 0, (int64_t)(intptr_t)n->str);
		break;
	case SN_KEYED:	/* spec (a step is a statement of its own) */
		vxt_cc_emit(c, VXT_INSN_KEYED_ACTIVE, dst, 0, 0, 0);
		break;
	default:
		vxt_cc_emit(c, VXT_INSN_INT, dst, 0, 0, 0);
		break;
	}
	c->next_reg = saved;
}

