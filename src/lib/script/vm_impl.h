/* vm_impl.h - the ops of vm.c that take more than a few lines: associative
 * arrays, text, aggregations; and the raw numbers of an aggregation's keys
 * (internal to libvxtrace)
 */
#ifndef VXT_SCRIPT_VM_IMPL_H
#define VXT_SCRIPT_VM_IMPL_H

#include "script/script_impl.h"

/* Field @f's raw number in @ev: an object id, op, phase or command id for
 * the string fields an aggregation key may hold raw; the integer else. */
static inline int64_t vxt_vm_raw_field(const struct vxt_event *ev, int f)
{
	switch (f) {
	case SF_OBJECT: return ev->object;
	case SF_OP: return ev->op;
	case SF_PHASE: return ev->phase;
	default: return ev->comm;	/* SF_COMM, SF_EXECNAME */
	}
}

/* Whether aggregation key @k has a raw form (vxt_vm_raw_field()): a string
 * field of the event that a number stands for. */
static inline bool vxt_vm_raw_key(const struct script_node *k)
{
	return k->kind == SN_FIELD && (k->idx == SF_OBJECT || k->idx == SF_OP ||
				       k->idx == SF_PHASE || k->idx == SF_COMM ||
				       k->idx == SF_EXECNAME);
}

/* Element @keys[0..@nkeys) of associative array @var, its zero when absent. */
struct script_value vxt_vm_array_get(struct firing *x, unsigned var, const struct script_value *keys,
			     unsigned nkeys);
/* Set it to @v (0 deletes it, as D frees a dynamic variable). @return 0 or
 * -ENOMEM. */
int vxt_vm_array_set(struct firing *x, unsigned var, const struct script_value *keys, unsigned nkeys,
		     struct script_value v);

/* trace(@v) and printf(@fmt, @args...) into the clause's text. */
void vxt_vm_trace(struct firing *x, const struct script_value *v);
void vxt_vm_printf(struct firing *x, const struct sfmt *fmt, const struct script_value *args);

/* Aggregation statement @n (SN_AGGSET) with value @v, keyed by the values
 * @keys, or by the raw numbers @raw (vxt_vm_raw_field() and integers)
 * through its cache. @return 0 or -ENOMEM. */
int vxt_vm_aggregate(struct firing *x, const struct script_node *n, const struct script_value *keys,
		     int64_t v);
int vxt_vm_aggregate_raw(struct firing *x, const struct script_node *n, const struct script_value *raw,
			 int64_t v);

#endif
