/* script_fields.c - the event fields a script reads
 *
 * A pass that feeds a script can decode only the columns the script's
 * programs can see: what their ops read (a field operand, the error and
 * flags tests, a thread's self-> slots, and the tree nodes some ops run:
 * bpftrace's calls, name tests, printf's arguments, a raw-keyed
 * aggregation), what finds an event's request (object, sector, bytes), the
 * error for io:::error. It is read off the compiled ops, not the tree: a
 * translator's field that the compiler folded away (args[0]->b_flags &
 * B_READ tests the op alone) is not decoded. An event a clause records
 * (speculate, trace, printf, a clause without statements) reaches the sink
 * as its ordinal and its text: trace and printf format their own fields
 * when they run, and without `quiet` the default text prints the event (all
 * but its flags and command), so only that adds fields. A profile's keyed
 * rules and the interval fields (q2c ...) read the event themselves: those
 * read every field.
 */
#include "vxtrace/vxt.h"
#include "script/program.h"
#include "script/script_impl.h"

static unsigned field_bits(int f)
{
	switch (f) {
	case SF_TIME: case SF_TIMESTAMP: return VXT_FIELD_TIME;
	case SF_OBJECT: case SF_DEV: case SF_HOST: return VXT_FIELD_OBJECT;
	case SF_PHASE: case SF_OP: case SF_PROBENAME: case SF_PROBEPROV: case SF_PROBEMOD:
	case SF_PROBEFUNC:
		return VXT_FIELD_PHASE_OP;
	case SF_FLAGS: return VXT_FIELD_FLAGS;
	case SF_SECTOR: return VXT_FIELD_SECTOR;
	case SF_BYTES: return VXT_FIELD_BYTES;
	case SF_LATENCY: return VXT_FIELD_LATENCY;
	case SF_ERROR: return VXT_FIELD_ERROR;
	case SF_PID: return VXT_FIELD_PID;
	case SF_COMM: case SF_EXECNAME: return VXT_FIELD_COMM;
	case SF_CPU: return VXT_FIELD_CPU;
	case SF_WALLTIMESTAMP: return VXT_FIELD_TIME;
	case SF_ARG0: return VXT_FIELD_OBJECT | VXT_FIELD_SECTOR | VXT_FIELD_BYTES;
	default: return VXT_FIELD_ALL;
	}
}

/* The fields under @n; VXT_FIELD_ALL for what this file does not know. */
static unsigned node_fields(const struct script_node *n, unsigned depth)
{
	unsigned f = 0;

	if (!n)
		return 0;
	if (depth > S_MAX_DEPTH + 8)
		return VXT_FIELD_ALL;
	switch (n->kind) {
	case SN_FIELD:
		return field_bits(n->idx);
	case SN_SELF:
		f = VXT_FIELD_PID;
		break;
	case SN_KEYED:
		return VXT_FIELD_ALL;
	default:
		break;
	}
	f |= node_fields(n->a, depth + 1) | node_fields(n->b, depth + 1) |
	     node_fields(n->c, depth + 1);
	for (unsigned i = 0; i < n->nargs; i++)
		f |= node_fields(n->args[i], depth + 1);
	for (unsigned i = 0; i < n->nkeys; i++)
		f |= node_fields(n->keys[i], depth + 1);
	return f;
}

/* The fields the ops of @p read. An aggregation's keys and value are
 * registers the ops before it computed; its node holds only constants. */
static unsigned program_fields(const struct vxt_program *p)
{
	unsigned f = 0;

	for (unsigned i = 0; p && i < p->nops; i++) {
		const struct vxt_insn *op = &p->ops[i];
		const char *kind = vxt_op_operands(op->code);

		if (kind[1] == 'f')
			f |= field_bits((int)op->a);
		if (kind[1] == 'S' || kind[2] == 'S')
			f |= VXT_FIELD_PID;
		if (kind[2] && kind[3] == 't' && op->code != VXT_INSN_AGG &&
		    (uint64_t)op->imm < p->nnodes)
			f |= node_fields(p->nodes[op->imm], 0);
		switch (op->code) {
		case VXT_INSN_UNLESS_ERROR:
		case VXT_INSN_IF_ERROR:
			f |= VXT_FIELD_ERROR;
			break;
		case VXT_INSN_UNLESS_FLAGS:
		case VXT_INSN_IF_FLAGS:
			f |= VXT_FIELD_FLAGS;
			break;
		case VXT_INSN_NAME_MATCH:
			f |= op->a ? VXT_FIELD_COMM : VXT_FIELD_OBJECT;
			break;
		default:
			break;
		}
	}
	return f;
}

unsigned vxt_script_fields(const struct vxt_script *s)
{
	unsigned f = VXT_FIELD_TIME | VXT_FIELD_PHASE_OP;

	if (s->keyed || s->uses_iv)	/* phases paired over every field */
		return VXT_FIELD_ALL | VXT_FIELD_LOST_COUNT;
	if (s->uses_req)
		f |= VXT_FIELD_OBJECT | VXT_FIELD_SECTOR | VXT_FIELD_BYTES;
	for (unsigned i = 0; i < s->ncl; i++) {
		const struct sclause *c = &s->cl[i];

		if (c->records && !s->opt.quiet)
			f |= S_TEXT_FIELDS;
		if (c->probes & SP_ERROR)
			f |= VXT_FIELD_ERROR;
	}
	for (unsigned k = 0; k < SON_COUNT; k++)
		f |= program_fields(s->prog_on[k]);
	f |= program_fields(s->prog_begin) | program_fields(s->prog_end);
	for (unsigned t = 0; s->prog_tick && t < s->nticks; t++)
		f |= program_fields(s->prog_tick[t]);
	return f;
}
