/* script_check_agg.c - types and D's rules of aggregation statements
 *
 * @name[keys] = fn(args): fn is an aggregating function with its number of
 * arguments, lquantize's and llquantize's bounds are constants within
 * DTrace's limits, and an aggregation keeps one function, one number of
 * keys and one set of bounds wherever it is used.
 */
#include <errno.h>
#include <stdint.h>

#include "script/script_impl.h"
#include "select/script_check.h"

/* Whether llquantize's factor^(high + 1) overflows 64 bits. */
static bool llq_too_wide(const int64_t *v)
{
	int64_t x = 1;

	for (int64_t o = 0; o <= v[2]; o++)
		if (__builtin_mul_overflow(x, v[0], &x))
			return true;
	return false;
}

/* Whether key @k has a 32-bit type in D, which dtrace prints in 8 columns
 * rather than 16: pid_t and processorid_t, an int constant, and C's usual
 * conversions over them (int op int is int; comparisons and logical
 * operators are int; a shift has its left operand's type). */
static bool key_is_32(const struct script_node *k)
{
	switch (k->kind) {
	case SN_FIELD:
		return k->idx == SF_PID || k->idx == SF_CPU;
	case SN_NUM:
		return k->num >= INT32_MIN && k->num <= INT32_MAX;
	case SN_AND: case SN_OR: case SN_XORXOR:
		return true;
	case SN_UNARY:
		return k->op == ST_NOT || key_is_32(k->a);
	case SN_COND:
		return key_is_32(k->b) && key_is_32(k->c);
	case SN_BINARY:
		switch (k->op) {
		case ST_EQ: case ST_NE: case ST_LT: case ST_LE: case ST_GT: case ST_GE:
			return true;
		case ST_SHL: case ST_SHR:
			return key_is_32(k->a);
		default:
			return key_is_32(k->a) && key_is_32(k->b);
		}
	default:
		return false;
	}
}

int vxt_check_aggset(struct checker *k, struct script_node *n)
{
	struct sagg *a = &k->s->aggs[n->idx];
	struct script_node *f = n->a;
	int fn = f->idx;
	/* lquantize's step is 1 when left out, as in D */
	unsigned want = fn == FN_COUNT ? 0 : fn == FN_LQUANTIZE ? (f->nargs == 3 ? 3 : 4) :
			fn == FN_LLQUANTIZE ? 5 : 1;

	if (fn < 0 && vxt_check_not_here(f->str))
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "%s() is not available in block traces", f->str);
	if (fn < FN_COUNT)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "%s( ) is not an aggregating function (count sum avg min max "
				       "stddev quantize lquantize llquantize)", f->str);
	for (unsigned i = 0; i < n->nkeys; i++) {
		if (vxt_check_expr(k, n->keys[i], false) < 0)
			return -EINVAL;
		if (k->final && n->keys[i]->type == SV_NONE)
			return vxt_script_fail(k->s, k->err, n->keys[i]->line, n->keys[i]->col,
					       "@%s: key #%u has no value", n->str, i + 1);
	}
	for (unsigned i = 0; i < f->nargs; i++)
		if (f->args[i]->kind == SN_AGG || vxt_check_expr(k, f->args[i], false) < 0)
			return f->args[i]->kind == SN_AGG ?
			       vxt_script_fail(k->s, k->err, f->args[i]->line, f->args[i]->col,
					       "%s( ) argument #%u is incompatible with prototype: "
					       "an aggregation", f->str, i + 1) : -EINVAL;
	if (vxt_check_proto(k, f, want) < 0)
		return -EINVAL;
	if (want && vxt_check_want_int(k, f, 0) < 0)
		return -EINVAL;
	if (fn == FN_LQUANTIZE) {
		int64_t lo, hi, step, span;

		step = 1;
		if (!vxt_check_is_const(f->args[1], &lo) || !vxt_check_is_const(f->args[2], &hi) ||
		    (f->nargs == 4 && !vxt_check_is_const(f->args[3], &step)))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ) arguments #2-#4 must be integer "
					       "constants");
		/* hi - lo must itself be a number: lquantize(x, -INT64_MAX,
		 * INT64_MAX, 1) would wrap past the count of steps */
		if (hi <= lo || step <= 0 || __builtin_sub_overflow(hi, lo, &span) ||
		    span / step > 10000 || span % step)
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ): upper bound must be above the lower, "
					       "and a multiple of step above it, in at most 10000 "
					       "steps");
		if (k->final && a->fn == FN_LQUANTIZE &&
		    (a->lq_lo != lo || a->lq_hi != hi || a->lq_step != step))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "lquantize( ) of @%s: other bounds than where it was "
					       "first used (%u:%u)", n->str, a->line, a->col);
		a->lq_lo = lo;
		a->lq_hi = hi;
		a->lq_step = step;
	}
	if (fn == FN_LLQUANTIZE) {
		int64_t v[4];	/* factor, low, high, nsteps: DTrace's rules */

		for (unsigned i = 0; i < 4; i++)
			if (!vxt_check_is_const(f->args[i + 1], &v[i]))
				return vxt_script_fail(k->s, k->err, f->line, f->col,
						       "llquantize( ) arguments #2-#5 must be "
						       "integer constants");
		if (v[0] < 2 || v[0] > 65535 || v[1] < 0 || v[2] <= v[1] || v[2] > 65535 ||
		    v[3] < v[0] || v[3] > 65535 || v[3] % v[0] || llq_too_wide(v))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "llquantize( ): factor of 2 or more, low magnitude "
					       "below the high one, steps a multiple of the factor, "
					       "and the high order within 64 bits");
		if (k->final && a->fn == FN_LLQUANTIZE &&
		    (a->llq_factor != v[0] || a->lq_lo != v[1] || a->lq_hi != v[2] ||
		     a->lq_step != v[3]))
			return vxt_script_fail(k->s, k->err, f->line, f->col,
					       "llquantize( ) of @%s: other arguments than where it "
					       "was first used (%u:%u)", n->str, a->line, a->col);
		a->llq_factor = v[0];
		a->lq_lo = v[1];
		a->lq_hi = v[2];
		a->lq_step = v[3];
	}
	if (!k->final)
		return 0;
	if (a->fn >= 0 && a->fn != fn)
		return vxt_script_fail(k->s, k->err, f->line, f->col,
				       "aggregation redefined: @%s (current: %s( ), previous: %s( ) "
				       "at %u:%u)", n->str, f->str, vxt_script_func_name(a->fn),
				       a->line, a->col);
	if (a->fn >= 0 && a->nkeys != n->nkeys)
		return vxt_script_fail(k->s, k->err, n->line, n->col,
				       "aggregation redefined: @%s has %u keys here, %u at %u:%u",
				       n->str, n->nkeys, a->nkeys, a->line, a->col);
	if (a->fn < 0) {
		a->fn = fn;
		a->nkeys = n->nkeys;
		a->key32 = 0;
		for (unsigned i = 0; i < n->nkeys; i++)
			if (key_is_32(n->keys[i]))
				a->key32 |= 1u << i;
		a->line = n->line;
		a->col = n->col;
	}
	return vxt_check_rule(k, n, FN_COUNT);
}
