/* script_compile.c - integer expressions as direct calls
 *
 * Once a script is checked and its variables have their slots, each node
 * the checker typed as an integer gets a function that computes just that
 * node: a field read from the event, a req->, global or this-> slot, a
 * comparison or an operator over its operands' functions, a comparison
 * with a constant. Predicates and integer arguments then cost one small
 * call per node, with no struct sval made on the way and no switch over
 * every kind of node; a profile's steps call script_keyed.c straight. A
 * node without a function (strings, associative arrays, assignments) is
 * evaluated by vxt_seval(), so the values are the same either way.
 */
#include "script/script_impl.h"

static inline bool truth(struct ectx *x, const struct snode *n)
{
	return n->ifn ? n->ifn(x, n) != 0 : vxt_struth_of(x, n);
}

static int64_t i_generic(struct ectx *x, const struct snode *n)
{
	return vxt_seval(x, n).i;
}

static int64_t i_num(struct ectx *x, const struct snode *n)
{
	(void)x;
	return n->num;
}

static int64_t i_req(struct ectx *x, const struct snode *n)
{
	return vxt_sreq_int(x, n);
}

static int64_t i_self(struct ectx *x, const struct snode *n)
{
	const struct sval *v = vxt_sdyn_get(x, n);

	return v ? v->i : 0;
}

static int64_t i_global(struct ectx *x, const struct snode *n)
{
	const struct sval *v = &x->s->globals[n->idx];

	return v->type ? v->i : 0;
}

static int64_t i_this(struct ectx *x, const struct snode *n)
{
	const struct sval *v = &x->s->thisv[n->idx];

	return v->type ? v->i : 0;
}

/* Fields: without an event (BEGIN, END, tick) vxt_seval() knows the value. */
#define FIELD_FN(name, expr)						\
static int64_t name(struct ectx *x, const struct snode *n)		\
{									\
	const struct vxt_event *ev = x->ev;				\
									\
	return ev ? (int64_t)(expr) : vxt_seval(x, n).i;		\
}

FIELD_FN(f_error, -(int64_t)ev->error)
FIELD_FN(f_pid, ev->pid)
FIELD_FN(f_bytes, ev->bytes)
FIELD_FN(f_sector, ev->sector)
FIELD_FN(f_latency, vxt_event_latency(ev))
FIELD_FN(f_flags, ev->flags)
FIELD_FN(f_cpu, ev->cpu)
FIELD_FN(f_timestamp, ev->time_ns)
FIELD_FN(f_time, ev->time_ns > x->s->time_base ? ev->time_ns - x->s->time_base : 0)

static int64_t i_and(struct ectx *x, const struct snode *n)
{
	return truth(x, n->a) && truth(x, n->b);
}

/* && and || of integer operands: no test for a function on the way; a
 * req-> variable on the left is read in place. */
static int64_t i_and_ints(struct ectx *x, const struct snode *n)
{
	return n->a->ifn(x, n->a) && n->b->ifn(x, n->b);
}

static int64_t i_and_req(struct ectx *x, const struct snode *n)
{
	return i_req(x, n->a) && n->b->ifn(x, n->b);
}

static int64_t i_or_ints(struct ectx *x, const struct snode *n)
{
	return n->a->ifn(x, n->a) || n->b->ifn(x, n->b);
}

static int64_t i_or(struct ectx *x, const struct snode *n)
{
	return truth(x, n->a) || truth(x, n->b);
}

static int64_t i_not(struct ectx *x, const struct snode *n)
{
	return !truth(x, n->a);
}

static int64_t i_neg(struct ectx *x, const struct snode *n)
{
	return (int64_t)(0 - (uint64_t)n->a->ifn(x, n->a));
}

static int64_t i_tilde(struct ectx *x, const struct snode *n)
{
	return ~n->a->ifn(x, n->a);
}

/* Comparisons of two integers, and of an integer with a constant. */
#define CMP_FN(name, op)						\
static int64_t name(struct ectx *x, const struct snode *n)		\
{									\
	int64_t a = n->a->ifn(x, n->a);					\
									\
	return a op n->b->ifn(x, n->b);					\
}									\
static int64_t name##_k(struct ectx *x, const struct snode *n)	\
{									\
	return n->a->ifn(x, n->a) op n->b->num;				\
}

CMP_FN(c_eq, ==)
CMP_FN(c_ne, !=)
CMP_FN(c_lt, <)
CMP_FN(c_le, <=)
CMP_FN(c_gt, >)
CMP_FN(c_ge, >=)

static int64_t i_arith(struct ectx *x, const struct snode *n)
{
	int64_t a = n->a->ifn(x, n->a);

	return vxt_sarith(x, n, a, n->b->ifn(x, n->b));
}

static int64_t i_keyed(struct ectx *x, const struct snode *n)
{
	return vxt_skeyed_eval(x, n).i;
}

static int64_t i_speculation(struct ectx *x, const struct snode *n)
{
	(void)n;
	return vxt_sspec_open(x->s);
}

static vxt_sifn field_fn(int f)
{
	switch (f) {
	case SF_ERROR: return f_error;
	case SF_PID: return f_pid;
	case SF_BYTES: return f_bytes;
	case SF_SECTOR: return f_sector;
	case SF_LATENCY: return f_latency;
	case SF_FLAGS: return f_flags;
	case SF_CPU: return f_cpu;
	case SF_TIMESTAMP: return f_timestamp;
	case SF_TIME: return f_time;
	default: return i_generic;
	}
}

static vxt_sifn cmp_fn(int op, bool k)
{
	switch (op) {
	case ST_EQ: return k ? c_eq_k : c_eq;
	case ST_NE: return k ? c_ne_k : c_ne;
	case ST_LT: return k ? c_lt_k : c_lt;
	case ST_LE: return k ? c_le_k : c_le;
	case ST_GT: return k ? c_gt_k : c_gt;
	default: return k ? c_ge_k : c_ge;
	}
}

/* The function of integer node @n, its operands' already set. */
static vxt_sifn node_fn(const struct vxt_script *s, struct snode *n)
{
	bool ints = n->a && n->a->ifn && (!n->b || n->b->ifn);

	switch (n->kind) {
	case SN_NUM: return i_num;
	case SN_FIELD: return field_fn(n->idx);
	case SN_REQ:
		n->slot = s->vars[n->idx].slot;
		return i_req;
	case SN_SELF: return i_self;
	case SN_GLOBAL: return i_global;
	case SN_THIS: return i_this;
	case SN_AND:
		if (!ints)
			return i_and;
		return n->a->ifn == i_req ? i_and_req : i_and_ints;
	case SN_OR: return ints ? i_or_ints : i_or;
	case SN_UNARY:
		if (n->op == ST_NOT)
			return i_not;
		if (!ints)
			return i_generic;
		return n->op == ST_TILDE ? i_tilde : i_neg;
	case SN_BINARY:
		if (!ints)
			return i_generic;
		if (n->op >= ST_EQ && n->op <= ST_GE)
			return cmp_fn(n->op, n->b->kind == SN_NUM);
		return i_arith;
	case SN_CALL:
		return n->idx == FN_SPECULATION ? i_speculation : NULL;
	case SN_KEYED:
		return i_keyed;
	default:
		return i_generic;
	}
}

/* Operands first: a node's function calls theirs. */
static void compile(const struct vxt_script *s, struct snode *n)
{
	if (!n)
		return;
	compile(s, n->a);
	compile(s, n->b);
	compile(s, n->c);
	for (unsigned i = 0; i < n->nargs; i++)
		compile(s, n->args[i]);
	for (unsigned i = 0; i < n->nkeys; i++)
		compile(s, n->keys[i]);
	n->ifn = n->type == SV_INT ? node_fn(s, n) : NULL;
}

void vxt_script_compile_ints(struct vxt_script *s)
{
	for (unsigned i = 0; i < s->ncl; i++) {
		compile(s, s->cl[i].pred);
		for (unsigned j = 0; j < s->cl[i].nstmts; j++)
			compile(s, s->cl[i].stmts[j]);
	}
}
