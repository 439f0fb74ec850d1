/* explain.c - a script's programs as text (vxreplay --explain)
 *
 * One block per program that has a clause, headed by the probe it runs for;
 * one line per op: its address, its name, its operands as the op reads them
 * (registers r0.., fields and variables by name, jump targets by address),
 * as `dtrace -S` lists DIF and SQLite's EXPLAIN lists VDBE opcodes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "script/program.h"
#include "vxtrace/escape.h"

static const char *const op_names[] = {
#define VXT_INSN_NAME(op, name, fmt) name,
	VXT_INSNS(VXT_INSN_NAME)
#undef VXT_INSN_NAME
};

static const char *const op_formats[] = {
#define VXT_INSN_FMT(op, name, fmt) fmt,
	VXT_INSNS(VXT_INSN_FMT)
#undef VXT_INSN_FMT
};

const char *vxt_op_name_of(unsigned code)
{
	return code < VXT_INSN_COUNT ? op_names[code] : "?";
}

const char *vxt_op_operands(unsigned code)
{
	return code < VXT_INSN_COUNT ? op_formats[code] : "";
}

static const char *field_name(int f)
{
	static const char *const names[SF_COUNT] = {
		[SF_TIME] = "time", [SF_OBJECT] = "object", [SF_DEV] = "dev",
		[SF_PHASE] = "phase", [SF_OP] = "op", [SF_FLAGS] = "flags",
		[SF_SECTOR] = "sector", [SF_BYTES] = "bytes", [SF_LATENCY] = "latency",
		[SF_ERROR] = "error", [SF_PID] = "pid", [SF_COMM] = "comm", [SF_CPU] = "cpu",
		[SF_TIMESTAMP] = "timestamp", [SF_EXECNAME] = "execname",
		[SF_PROBENAME] = "probename", [SF_HOST] = "host", [SF_Q2D] = "q2d",
		[SF_D2C] = "d2c", [SF_Q2C] = "q2c", [SF_Q2G] = "q2g", [SF_G2I] = "g2i",
		[SF_I2D] = "i2d",
	};

	return f >= 0 && f < SF_COUNT && names[f] ? names[f] : "?";
}

/* The variable of @scope in slot @slot. */
static const char *slot_name(const struct vxt_script *s, unsigned scope, unsigned slot)
{
	for (unsigned i = 0; i < s->nvars; i++)
		if (s->vars[i].scope == scope && s->vars[i].slot == slot)
			return s->vars[i].name;
	return "?";
}

static void operand(const struct vxt_script *s, const struct vxt_program *p, char kind,
		    int64_t v, FILE *out)
{
	switch (kind) {
	case 'r': fprintf(out, " r%" PRId64, v); break;
	case 'f': fprintf(out, " %s", field_name((int)v)); break;
	case 'v':
		fprintf(out, " %s%s", v < s->nvars && s->vars[v].scope == SN_THIS ? "this->" : "",
			v < s->nvars ? s->vars[v].name : "?");
		break;
	case 's': fprintf(out, " req->%s", slot_name(s, SN_REQ, (unsigned)v)); break;
	case 'S': fprintf(out, " self->%s", slot_name(s, SN_SELF, (unsigned)v)); break;
	case 'c': fprintf(out, " #%" PRId64 " (%u:%u)", v, s->cl[v].line, s->cl[v].col); break;
	case 'p': fprintf(out, " %s", vxt_sprobe_name((unsigned)v)); break;
	case 'j': fprintf(out, " -> %" PRId64, v); break;
	case 'x':	/* what the clause needs of the context: nothing said */
		if (v)
			fprintf(out, " %s", v & VXT_CLAUSE_RECORDS ? "record" : "context");
		break;
	case 'n': fprintf(out, " %" PRId64, v); break;
	case 'i': fprintf(out, " %" PRId64, v); break;
	case 'a': fprintf(out, " @%s", v < s->naggs ? s->aggs[v].name : "?"); break;
	case 'q': {	/* one line: the string's escapes as a report writes them */
		char esc[256];

		fprintf(out, " \"%s\"", vxt_text((const char *)(intptr_t)v, esc, sizeof(esc)));
		break;
	}
	case 't': {
		const struct script_node *n = p->nodes[v];

		if (n->kind == SN_AGGSET)
			fprintf(out, " @%s %s", s->aggs[n->idx].name,
				vxt_script_func_name(n->a->idx));
		else
			fprintf(out, " (%u:%u)", n->line, n->col);
		break;
	}
	default: break;
	}
}

static void explain_program(const struct vxt_script *s, const struct vxt_program *p,
			    const char *title, FILE *out)
{
	if (p->nops <= 1)
		return;		/* a halt alone: no clause */
	fprintf(out, "%s", title ? title : p->title);
	if (p->tick_ns)
		fprintf(out, " every %" PRIu64 " ns", p->tick_ns);
	fprintf(out, ": %u ops, %u registers\n", p->nops, p->nregs);
	for (unsigned i = 0; i < p->nops; i++) {
		const struct vxt_insn *op = &p->ops[i];
		const char *f = vxt_op_operands(op->code);
		int64_t field[4] = { op->dst, op->a, op->b, op->imm };

		bool any = strspn(f, "-") < strlen(f);

		fprintf(out, any ? "%5u  %-16s" : "%5u  %s", i, vxt_op_name_of(op->code));
		for (unsigned k = 0; k < 4 && f[k]; k++)
			operand(s, p, f[k], field[k], out);
		fputc('\n', out);
	}
	fputc('\n', out);
}

static bool same_ops(const struct vxt_program *a, const struct vxt_program *b)
{
	return a->nops == b->nops && !memcmp(a->ops, b->ops, a->nops * sizeof(*a->ops));
}

void vxt_program_list(const struct vxt_script *s, const struct vxt_program *p, FILE *out)
{
	explain_program(s, p, NULL, out);
}

void vxt_program_explain(const struct vxt_script *s, FILE *out)
{
	/* a done list without io:::error clauses is the failed one's: once */
	bool one_done = same_ops(s->prog_on[SON_DONE], s->prog_on[SON_DONE_OK]);

	explain_program(s, s->prog_begin, NULL, out);
	for (unsigned k = 0; k < SON_COUNT; k++) {
		if (k == SON_DONE_OK && one_done)
			continue;
		explain_program(s, s->prog_on[k], k == SON_DONE && one_done ? "io:::done" : NULL,
				out);
	}
	for (unsigned i = 0; i < s->nticks; i++)
		explain_program(s, s->prog_tick[i], NULL, out);
	explain_program(s, s->prog_end, NULL, out);
}
