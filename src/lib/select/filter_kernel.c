/* filter_kernel.c - the part of a compiled filter a kernel source can test,
 * decided from its program's ops
 *
 * A filter runs as ops of the script engine (filter_lower.c). The kernel's
 * table (struct vxt_kfilter) is read off those ops, whatever text produced
 * them: each conditional jump ends one test, and the ops before it since
 * the last one compute what it tests. A test the kernel has is a word of
 * struct vxt_event (op, phase, flags, sector, bytes, latency, error ==,
 * pid, cpu: vxt_ftest_lower() places them) compared with a constant (eq ne
 * lt le gt ge, the raw_eq of a code, a field's truth, a mask of it, the
 * error and flags jumps); any other side-effect-free value (a name, time,
 * dev, ordered errno, spec) is a test the kernel takes both ways. Its jumps
 * and returns are the wiring: a jump to a return is ACCEPT or REJECT, a
 * jump elsewhere must land on the first op of a later test (the kernel's
 * table only jumps forward). A program with an op outside that subset, an
 * interval (which pairs every event in user space), more tests than the
 * kernel's table holds or any other shape is not given to the kernel.
 * Here too the word form of a test (vxt_ftest_lower(), set at parse): the
 * place of its field in the event and the range it must fall in.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "script/program.h"
#include "select/filter_impl.h"
#include "select/spec_impl.h"
#include "vxtrace/vxt.h"

/* What a register holds, as far as the kernel is concerned. */
enum kval { KV_OTHER, KV_CONST, KV_FIELD, KV_TEST };

struct kreg {
	uint8_t what;		/* enum kval */
	uint8_t field;		/* KV_FIELD, KV_TEST: enum ffield */
	uint8_t op;		/* KV_TEST: enum fop */
	bool negated;		/* KV_TEST: holds when the comparison does not */
	int64_t val;		/* KV_CONST; KV_TEST: the comparison's value */
};

/* The filter field script field @sf reads as a number (@raw: the code of
 * op or phase), FF_COUNT when none the kernel might have. */
static unsigned number_field(uint32_t sf, bool raw)
{
	switch (sf) {
	case SF_FLAGS: return FF_FLAGS;
	case SF_SECTOR: return FF_SECTOR;
	case SF_BYTES: return FF_BYTES;
	case SF_LATENCY: return FF_LATENCY;
	case SF_ERROR: return FF_ERROR;
	case SF_PID: return FF_PID;
	case SF_CPU: return FF_CPU;
	case SF_OP: return raw ? FF_OP : FF_COUNT;
	case SF_PHASE: return raw ? FF_PHASE : FF_COUNT;
	default: return FF_COUNT;
	}
}

static const char *field_name(unsigned field)
{
	static const char *const names[FF_COUNT] = {
		[FF_PHASE] = "phase", [FF_OP] = "op", [FF_FLAGS] = "flags",
		[FF_SECTOR] = "sector", [FF_BYTES] = "bytes", [FF_LATENCY] = "latency",
		[FF_ERROR] = "error", [FF_PID] = "pid", [FF_CPU] = "cpu",
	};

	return field < FF_COUNT && names[field] ? names[field] : "?";
}

static struct kreg test_of(unsigned field, unsigned op, int64_t val, bool negated)
{
	return (struct kreg){ .what = KV_TEST, .field = (uint8_t)field, .op = (uint8_t)op,
			      .negated = negated, .val = val };
}

/* The signed comparison of unsigned one @code (the same for a bound the
 * kernel takes: 0 to 2^63 - 1), else @code. */
static unsigned signed_code(unsigned code)
{
	switch (code) {
	case VXT_INSN_ULT: return VXT_INSN_LT;
	case VXT_INSN_ULE: return VXT_INSN_LE;
	case VXT_INSN_UGT: return VXT_INSN_GT;
	case VXT_INSN_UGE: return VXT_INSN_GE;
	default: return code;
	}
}

/* Field @x compared with constant @v by @code, as a test of the filter's
 * unsigned kinds: D compares a 64-bit field (sector, latency) unsigned as
 * the kernel does, and the others hold no value of 2^63 or more; KV_OTHER
 * when an ordered test has no such form (a negative or zero bound). */
static struct kreg compare(const struct kreg *x, unsigned code, int64_t v)
{
	switch (signed_code(code)) {
	case VXT_INSN_EQ: return test_of(x->field, FO_EQ, v, false);
	case VXT_INSN_NE: return test_of(x->field, FO_EQ, v, true);
	case VXT_INSN_LT: if (v > 0) return test_of(x->field, FO_LT, v, false); break;
	case VXT_INSN_GE: if (v > 0) return test_of(x->field, FO_LT, v, true); break;
	case VXT_INSN_LE: if (v >= 0) return test_of(x->field, FO_LE, v, false); break;
	case VXT_INSN_GT: if (v >= 0) return test_of(x->field, FO_LE, v, true); break;
	default: break;
	}
	return (struct kreg){ .what = KV_OTHER };
}

/* The comparison @code with its operands swapped: v < x is x > v. */
static unsigned swapped(unsigned code)
{
	switch (code) {
	case VXT_INSN_ULT: return VXT_INSN_UGT;
	case VXT_INSN_ULE: return VXT_INSN_UGE;
	case VXT_INSN_UGT: return VXT_INSN_ULT;
	case VXT_INSN_UGE: return VXT_INSN_ULE;
	case VXT_INSN_LT: return VXT_INSN_GT;
	case VXT_INSN_LE: return VXT_INSN_GE;
	case VXT_INSN_GT: return VXT_INSN_LT;
	case VXT_INSN_GE: return VXT_INSN_LE;
	default: return code;
	}
}

/* A register's truth as a test: a field is field != 0. */
static struct kreg truth(struct kreg r)
{
	if (r.what == KV_FIELD)
		return test_of(r.field, FO_EQ, 0, true);
	return r.what == KV_TEST ? r : (struct kreg){ .what = KV_OTHER };
}

/* Whether the registers @op names are below @nregs. */
static bool registers_in(const struct vxt_insn *op, unsigned nregs)
{
	const char *f = vxt_op_operands(op->code);
	uint32_t v[3] = { op->dst, op->a, op->b };

	for (unsigned i = 0; i < 3 && f[i]; i++)
		if (f[i] == 'r' && v[i] >= nregs)
			return false;
	return true;
}

/* The value ops a test of the kernel's table is made of: 1 with what op
 * computes in its register of @regs, -1 for an interval, 0 for any other
 * op outside the subset. */
static int value_op(const struct vxt_insn *op, struct kreg *regs, unsigned nregs)
{
	struct kreg none = { .what = KV_OTHER }, *d, a, b;

	if (op->code == VXT_INSN_KNOWN ||
	    ((op->code == VXT_INSN_FIELD || op->code == VXT_INSN_EVENT_INT) &&
	     op->a >= SF_Q2D && op->a <= SF_I2D))
		return -1;
	if (!registers_in(op, nregs))
		return 0;
	d = &regs[op->dst];
	a = op->a < nregs ? regs[op->a] : none;	/* not a register: not read as one */
	b = op->b < nregs ? regs[op->b] : none;
	switch (op->code) {
	case VXT_INSN_INT:
		*d = (struct kreg){ .what = KV_CONST, .val = op->imm };
		return 1;
	case VXT_INSN_EVENT_INT: case VXT_INSN_FIELD: case VXT_INSN_FIELD_RAW: {
		unsigned ff = number_field(op->a, op->code == VXT_INSN_FIELD_RAW);

		*d = ff < FF_COUNT ? (struct kreg){ .what = KV_FIELD, .field = (uint8_t)ff } : none;
		return 1;
	}
	case VXT_INSN_RAW_EQ: {
		unsigned ff = number_field(op->a, true);

		*d = ff < FF_COUNT ? test_of(ff, FO_EQ, op->imm, false) : none;
		return 1;
	}
	case VXT_INSN_EQ: case VXT_INSN_NE: case VXT_INSN_LT: case VXT_INSN_LE:
	case VXT_INSN_GT: case VXT_INSN_GE: case VXT_INSN_ULT: case VXT_INSN_ULE:
	case VXT_INSN_UGT: case VXT_INSN_UGE:
		if (a.what == KV_FIELD && b.what == KV_CONST)
			*d = compare(&a, op->code, b.val);
		else if (a.what == KV_CONST && b.what == KV_FIELD)
			*d = compare(&b, swapped(op->code), a.val);
		else
			*d = none;
		return 1;
	case VXT_INSN_BAND:
		if (a.what == KV_CONST) {
			b = a;
			a = regs[op->b];
		}
		*d = a.what == KV_FIELD && b.what == KV_CONST && b.val > 0 ?
		     test_of(a.field, FO_BITS, b.val, false) : none;
		return 1;
	case VXT_INSN_NOT:
		*d = truth(a);
		d->negated = !d->negated;
		return 1;
	case VXT_INSN_TRUTH:
		*d = truth(a);
		return 1;
	case VXT_INSN_MOVE:
		*d = a;
		return 1;
	case VXT_INSN_STR: case VXT_INSN_STR_TRUTH: case VXT_INSN_GLOB:
	case VXT_INSN_NAME_MATCH: case VXT_INSN_STR_EQ: case VXT_INSN_STR_NE:
	case VXT_INSN_STR_LT: case VXT_INSN_STR_LE: case VXT_INSN_STR_GT: case VXT_INSN_STR_GE:
	case VXT_INSN_ADD: case VXT_INSN_SUB: case VXT_INSN_MUL: case VXT_INSN_BOR:
	case VXT_INSN_BXOR: case VXT_INSN_SHL: case VXT_INSN_SHR: case VXT_INSN_NEG:
	case VXT_INSN_BNOT: case VXT_INSN_KEYED_ACTIVE:
		*d = none;	/* a value the kernel has not: its test goes both ways */
		return 1;
	default:
		return 0;
	}
}

/* A test read off the ops: what it tests, where it starts, where it goes. */
struct ktest {
	struct kreg what;
	unsigned start;		/* its first op */
	unsigned to_true, to_false;	/* the ops it continues at */
};

/* Where the program goes from op @at: the return it reaches through
 * jumps (ACCEPT, REJECT), else the op it lands on. */
static unsigned land(const struct vxt_program *p, unsigned at, uint16_t *end)
{
	for (unsigned hops = 0; at < p->nops && hops < p->nops; hops++) {
		const struct vxt_insn *op = &p->ops[at];

		if (op->code == VXT_INSN_RETURN) {
			*end = op->imm ? VXT_KFILTER_ACCEPT : VXT_KFILTER_REJECT;
			return at;
		}
		if (op->code != VXT_INSN_JUMP)
			break;
		at = (unsigned)op->imm;
	}
	*end = 0;
	return at;
}

/* The kernel's index of the test continued at op @at, or ACCEPT / REJECT;
 * -1 when no test starts there or it is not after test @from. */
static int target(const struct vxt_program *p, const struct ktest *t, unsigned n,
		  unsigned at, int from)
{
	uint16_t end;

	at = land(p, at, &end);
	if (end)
		return end;
	for (unsigned j = 0; j < n; j++)
		if (t[j].start == at)
			return (int)j > from ? (int)j : -1;
	return -1;
}

/* The tests of @p into @t (up to @cap). @return their number, -1 when the
 * program is not one the kernel's table can be read off. */
static int read_tests(const struct vxt_program *p, struct ktest *t, unsigned cap)
{
	struct kreg regs[64];
	unsigned n = 0, start = 0;

	if (p->nregs > sizeof(regs) / sizeof(regs[0]))
		return -1;
	memset(regs, 0, sizeof(regs));
	for (unsigned i = 0; i < p->nops; i++) {
		const struct vxt_insn *op = &p->ops[i];
		struct kreg what;
		bool when;	/* the jump is taken when `what` is this */
		int v;

		switch (op->code) {
		case VXT_INSN_JUMP: case VXT_INSN_RETURN:
			start = i + 1;	/* wiring: the next test starts after it */
			memset(regs, 0, sizeof(regs));
			continue;
		case VXT_INSN_JUMP_IF: case VXT_INSN_JUMP_UNLESS:
			if (op->a >= p->nregs)
				return -1;
			what = truth(regs[op->a]);
			when = op->code == VXT_INSN_JUMP_IF;
			break;
		case VXT_INSN_IF_ERROR: case VXT_INSN_UNLESS_ERROR:
			what = test_of(FF_ERROR, FO_EQ, 0, true);
			when = op->code == VXT_INSN_IF_ERROR;
			break;
		case VXT_INSN_IF_FLAGS: case VXT_INSN_UNLESS_FLAGS:
			what = test_of(FF_FLAGS, FO_BITS, op->a, false);
			when = op->code == VXT_INSN_IF_FLAGS;
			break;
		case VXT_INSN_KEYED_SPEC:	/* spec: jumps when active is !a */
			what = (struct kreg){ .what = KV_OTHER };
			when = true;
			break;
		default:
			v = value_op(op, regs, p->nregs);
			if (v <= 0)
				return -1;
			continue;
		}
		if (n == cap)
			return -1;
		t[n] = (struct ktest){ .what = what, .start = start,
				       .to_true = when ? (unsigned)op->imm : i + 1,
				       .to_false = when ? i + 1 : (unsigned)op->imm };
		n++;
		start = i + 1;	/* a test reads only what its own ops compute */
		memset(regs, 0, sizeof(regs));
	}
	return (int)n;
}

/* Test @t as the kernel's: known when the kernel has its field and
 * comparison. */
static bool kernel_test(const struct ktest *t, struct vxt_kfilter_test *kt)
{
	struct ftest ft = { .field = t->what.field, .op = t->what.op,
			    .val = (uint64_t)t->what.val };

	if (t->what.what != KV_TEST)
		return false;
	vxt_ftest_lower(&ft);
	if (ft.kind != FK_RANGE && ft.kind != FK_BITS)
		return false;
	kt->known = 1;
	kt->word = ft.word;
	kt->shift = ft.shift;
	kt->mask = ft.mask;
	kt->lo = ft.lo;
	kt->span = ft.span;
	return true;
}

int vxt_program_kfilter(const struct vxt_program *p, struct vxt_kfilter *k)
{
	struct ktest t[VXT_KFILTER_TESTS] = { 0 };
	unsigned seen = 0;
	size_t len = 0;
	int n = read_tests(p, t, VXT_KFILTER_TESTS), entry;

	_Static_assert(VXT_KFILTER_ACCEPT == FT_ACCEPT && VXT_KFILTER_REJECT == FT_REJECT,
		       "one encoding of the ends");
	memset(k, 0, sizeof(*k));
	if (n < 0 || (entry = target(p, t, (unsigned)n, 0, -1)) < 0)
		goto not_kernel;
	k->entry = (uint16_t)entry;
	k->n = (unsigned)n;
	for (int j = 0; j < n; j++) {
		struct vxt_kfilter_test *kt = &k->test[j];
		int yes = target(p, t, (unsigned)n, t[j].to_true, j);
		int no = target(p, t, (unsigned)n, t[j].to_false, j);

		if (yes < 0 || no < 0)
			goto not_kernel;
		kt->t = (uint16_t)(t[j].what.negated ? no : yes);
		kt->f = (uint16_t)(t[j].what.negated ? yes : no);
		if (!kernel_test(&t[j], kt))
			continue;
		k->nknown++;
		if (!(seen & (1u << t[j].what.field)) && len < sizeof(k->fields)) {
			seen |= 1u << t[j].what.field;
			len += (size_t)snprintf(k->fields + len, sizeof(k->fields) - len, "%s%s",
						len ? ", " : "", field_name(t[j].what.field));
		}
	}
	return (int)k->nknown;
not_kernel:
	memset(k, 0, sizeof(*k));
	return -1;
}

int vxt_filter_kernel(const struct vxt_filter *f, struct vxt_kfilter *k)
{
	struct vxt_program *p = f->prog[0];
	int n;

	/* with spec, the program run with it unknown: a test both ways */
	if (f->prog[1] != f->prog[0] && !(p = vxt_filter_program(f->run, f, -1))) {
		memset(k, 0, sizeof(*k));
		return -1;
	}
	n = vxt_program_kfilter(p, k);
	if (p != f->prog[0])
		vxt_program_free(p);
	return n;
}

int vxt_filter_explain(const struct vxt_filter *f, FILE *out)
{
	struct vxt_kfilter k;
	int n = vxt_filter_kernel(f, &k);

	vxt_program_list(f->run, f->prog[0], out);
	if (n > 0)
		fprintf(out, "kernel: tests %d of its %u tests (%s); user space the whole "
			"filter on what it sends\n", n, k.n, k.fields);
	else if (n == 0)
		fprintf(out, "kernel: user space: no test the kernel can make (names, time, "
			"dev, spec)\n");
	else
		fprintf(out, "kernel: user space: it reads intervals, has an op outside the "
			"kernel's subset or more tests than the kernel's table holds\n");
	return ferror(out) ? EOF : 0;
}

/* Where each plain field sits: byte offset and size in struct vxt_event. */
static bool field_place(unsigned field, size_t *off, size_t *size)
{
#define PLACE(m) (*off = offsetof(struct vxt_event, m), \
		  *size = sizeof(((struct vxt_event *)0)->m), true)
	switch (field) {
	case FF_PHASE:		return PLACE(phase);
	case FF_OP:		return PLACE(op);
	case FF_FLAGS:		return PLACE(flags);
	case FF_SECTOR:		return PLACE(sector);
	case FF_BYTES:		return PLACE(bytes);
	case FF_LATENCY:	return PLACE(latency_ns);
	case FF_ERROR:		return PLACE(error);
	case FF_PID:		return PLACE(pid);
	case FF_CPU:		return PLACE(cpu);
	default:		return false;
	}
#undef PLACE
}

void vxt_ftest_lower(struct ftest *t)
{
	size_t off, size;
	uint64_t mask, val = t->val;

	t->kind = FK_SLOW;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return;			/* the word layout below is little-endian */
#endif
	if (!field_place(t->field, &off, &size) || off / 8 != (off + size - 1) / 8)
		return;
	mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
	if (t->field == FF_ERROR) {	/* stored negative: only == maps to a word */
		if (t->op != FO_EQ)
			return;
		val = (uint64_t)(-(int64_t)val) & mask;
	}
	t->word = (uint8_t)(off / 8);
	t->shift = (uint8_t)(8 * (off % 8));	/* little-endian layout */
	t->mask = mask;
	switch (t->op) {
	case FO_EQ:
		t->kind = FK_RANGE;
		t->lo = val;
		t->span = 0;
		break;
	case FO_LT:		/* val > 0: x < 0 is folded by the parser */
	case FO_LE:
		t->kind = FK_RANGE;
		t->lo = 0;
		t->span = t->op == FO_LT ? val - 1 : val;
		break;
	case FO_BITS:		/* (x & val) != 0  <=>  (x & val) - 1 <= ~0 - 1 */
		t->kind = FK_BITS;
		t->mask = mask & val;
		t->lo = 1;
		t->span = ~0ull - 1;
		break;
	default:
		break;
	}
	if (t->kind == FK_RANGE && t->lo > mask)	/* can never hold */
		t->kind = FK_SLOW;
}
