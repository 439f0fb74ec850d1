/* test_filter_lower.c - a profile's predicate as D's, against the filter
 *
 * 2 000 random filter expressions (comparisons of bytes, sector, latency,
 * error, pid, cpu, time and dev with numbers, op and phase by name, flags
 * by name, object and command names and globs, bare error, ! && || and
 * parentheses, nested up to 5 levels), and 200 wide ones (a chain of 20 to
 * 100 tests joined by || or by &&, and a conjunction of 20 to 100 pairs
 * `(a || b) && (c || d) && ...`, whose paths are too many to write out one
 * by one) are a profile's trace clause's predicate: the events the profile
 * traces (its predicate compiled into the engine's ops, filter_lower.c)
 * must be those the expression's own tree accepts, evaluated here by brute
 * force by the filter language's rules (fnmatch(3) for globs), over random
 * events of three objects and three commands.
 */
#include <check.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "select/spec_impl.h"
#include "vxtrace/vxtrace.h"

static uint64_t rng = 0x6a09e667f3bcc909ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 20) % n;
}

/* A random filter expression as a tree, its text made from it and its truth
 * computed from it directly, by the filter language's rules
 * (formats/filter.md): the reference the lowered predicate is checked
 * against, independent of the filter's own compiled form. */
enum { C_NUM, C_NAME, C_BITS, C_NOTBITS, C_NOT, C_AND, C_OR };
enum { F_BYTES, F_SECTOR, F_LATENCY, F_ERROR, F_PID, F_CPU, F_TIME, F_DEV, F_OP, F_PHASE,
       F_OBJECT, F_COMM };
enum { O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_MATCH, O_NMATCH };

struct cond {
	unsigned kind, field, op;
	uint64_t val;		/* a number (ns for durations), dev, op or phase code, bits */
	char str[16];		/* a name or glob */
	struct cond *a, *b;
};

static struct cond pool[4096];
static unsigned npool;

static const char *const names[] = { "sda", "sdb", "nvme0n1" };
static const char *const comms[] = { "fio", "dd", "kworker" };
static uint32_t comm_ids[3];	/* their ids in the command table */

static struct cond *leaf(unsigned kind, unsigned field, unsigned op, uint64_t val)
{
	struct cond *c = &pool[npool++];

	ck_assert_uint_le(npool, sizeof(pool) / sizeof(pool[0]));
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->field = field;
	c->op = op;
	c->val = val;
	return c;
}

static struct cond *gen(char *out, size_t size, unsigned depth)
{
	static const char *const fields[] = { "bytes", "sector", "latency", "error", "pid",
					      "cpu" };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "~", "!~" };
	static const unsigned nums[] = { 0, 1, 5, 8, 100, 4096, 8192, 20000 };
	static const char *const words[] = { "sda", "sdb", "dd", "fio", "zzz", "\"sd*\"",
					     "\"?d\"", "\"[fk]*\"" };
	char a[2048], b[2048];
	struct cond *c, *l, *r;
	unsigned fi, op, v, w;

	switch (depth ? rnd(7) : rnd(4)) {
	case 0:
		fi = rnd(6);
		op = rnd(6);
		v = nums[rnd(8)];
		snprintf(out, size, "%s %s %u%s", fields[fi], ops[op], v,
			 fi == F_LATENCY ? "us" : "");	/* latency takes a unit */
		return leaf(C_NUM, fi, op, fi == F_LATENCY ? v * 1000ull : v);
	case 1:
		fi = rnd(2) ? F_OBJECT : F_COMM;
		op = (const unsigned[]){ O_EQ, O_NE, O_MATCH, O_NMATCH }[rnd(4)];
		w = rnd(8);
		snprintf(out, size, "%s %s %s", fi == F_OBJECT ? "object" : "comm", ops[op],
			 words[w]);
		c = leaf(C_NAME, fi, op, 0);
		snprintf(c->str, sizeof(c->str), "%.*s", (int)strcspn(words[w] + (words[w][0] == '"'), "\""),
			 words[w] + (words[w][0] == '"'));
		return c;
	case 2:
		switch (rnd(3)) {
		case 0: snprintf(out, size, "error"); return leaf(C_NUM, F_ERROR, O_NE, 0);
		case 1: snprintf(out, size, "flags == sync"); return leaf(C_BITS, 0, 0, VXT_F_SYNC);
		default: snprintf(out, size, "flags != fua"); return leaf(C_NOTBITS, 0, 0, VXT_F_FUA);
		}
	case 3:
		switch (rnd(5)) {
		case 0:
			v = 1 + rnd(300);
			snprintf(out, size, "latency >= %uus", v);
			return leaf(C_NUM, F_LATENCY, O_GE, v * 1000ull);
		case 1:
			op = rnd(2) ? O_EQ : O_NE;
			v = rnd(2) ? VXT_OP_READ : VXT_OP_WRITE;
			snprintf(out, size, "op %s %s", ops[op], v == VXT_OP_READ ? "read" : "write");
			return leaf(C_NUM, F_OP, op, v);
		case 2:
			v = rnd(2) ? VXT_PH_START : VXT_PH_DONE;
			snprintf(out, size, "phase == %s", v == VXT_PH_START ? "start" : "done");
			return leaf(C_NUM, F_PHASE, O_EQ, v);
		case 3:
			op = rnd(6);
			v = rnd(400);
			snprintf(out, size, "time %s %uus", ops[op], v);
			return leaf(C_NUM, F_TIME, op, v * 1000ull);
		default:
			op = rnd(6);
			v = rnd(3);
			snprintf(out, size, "dev %s 8:%u", ops[op], v);
			return leaf(C_NUM, F_DEV, op, (uint64_t)8 << 20 | v);
		}
	case 4:
		l = gen(a, sizeof(a), depth - 1);
		snprintf(out, size, "!(%s)", a);
		c = leaf(C_NOT, 0, 0, 0);
		c->a = l;
		return c;
	default:
		l = gen(a, sizeof(a), depth - 1);
		r = gen(b, sizeof(b), depth - 1);
		c = leaf(rnd(2) ? C_AND : C_OR, 0, 0, 0);
		snprintf(out, size, "(%s %s %s)", a, c->kind == C_AND ? "&&" : "||", b);
		c->a = l;
		c->b = r;
		return c;
	}
}

/* A wide expression: @n leaves joined by || (@kind C_OR) or && (C_AND),
 * or @n pairs (a || b) joined by && (@kind C_NOT), left to right. */
static struct cond *wide(char *out, size_t size, unsigned n, unsigned kind)
{
	struct cond *tree = NULL;
	size_t len = 0;

	out[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		char a[512], b[256];
		struct cond *c = gen(a, sizeof(a), 0), *j;

		if (kind == C_NOT) {
			struct cond *r = gen(b, sizeof(b), 0), *o = leaf(C_OR, 0, 0, 0);

			o->a = c;
			o->b = r;
			c = o;
			snprintf(a + strlen(a), sizeof(a) - strlen(a), " || %s", b);
		}
		len += (size_t)snprintf(out + len, size - len, "%s%s%s%s", i ? (kind == C_OR ?
					" || " : " && ") : "", kind == C_NOT ? "(" : "", a,
					kind == C_NOT ? ")" : "");
		ck_assert_uint_lt(len, size);
		if (!tree) {
			tree = c;
			continue;
		}
		j = leaf(kind == C_OR ? C_OR : C_AND, 0, 0, 0);
		j->a = tree;
		j->b = c;
		tree = j;
	}
	return tree;
}

/* The name of command id @id: comms[i] where comm_ids[i] is @id, else "". */
static const char *comm_name(uint32_t id)
{
	for (unsigned i = 0; i < 3; i++)
		if (comm_ids[i] == id)
			return comms[i];
	return "";
}

/* Whether @c holds for @e (objects are names[], dev 8:i; a command id not
 * in comm_ids[] has no name, ""; the time origin is 0). */
static bool holds(const struct cond *c, const struct vxt_event *e)
{
	const char *name;
	uint64_t x;

	switch (c->kind) {
	case C_NOT: return !holds(c->a, e);
	case C_AND: return holds(c->a, e) && holds(c->b, e);
	case C_OR: return holds(c->a, e) || holds(c->b, e);
	case C_BITS: return (e->flags & c->val) != 0;
	case C_NOTBITS: return (e->flags & c->val) == 0;
	case C_NAME:
		name = c->field == F_OBJECT ? names[e->object] : comm_name(e->comm);
		switch (c->op) {
		case O_EQ: return strcmp(name, c->str) == 0;
		case O_NE: return strcmp(name, c->str) != 0;
		case O_MATCH: return fnmatch(c->str, name, 0) == 0;
		default: return fnmatch(c->str, name, 0) != 0;
		}
	default:
		break;
	}
	switch (c->field) {
	case F_BYTES: x = e->bytes; break;
	case F_SECTOR: x = e->sector; break;
	case F_LATENCY: x = e->latency_ns; break;
	case F_ERROR: x = (uint64_t)-(int64_t)e->error; break;	/* errno, positive */
	case F_PID: x = e->pid; break;
	case F_CPU: x = e->cpu; break;
	case F_TIME: x = e->time_ns; break;
	case F_DEV: x = (uint64_t)8 << 20 | e->object; break;
	case F_OP: x = e->op; break;
	default: x = e->phase; break;
	}
	switch (c->op) {
	case O_EQ: return x == c->val;
	case O_NE: return x != c->val;
	case O_LT: return x < c->val;
	case O_LE: return x <= c->val;
	case O_GT: return x > c->val;
	default: return x >= c->val;
	}
}

START_TEST(test_lowered_predicates)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event ev[300];
	unsigned total = 2200;

	ck_assert(objs && strs);
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		comm_ids[i] = (uint32_t)vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
	for (unsigned k = 0; k < total; k++) {
		struct vxt_spec_config c = { .key = VXT_SPEC_KEY_OBJECT, .nclauses = 1 };
		char text[8192], err[VXT_ERRBUF_SIZE];
		const struct cond *tree;
		struct vxt_spec *sp;
		struct vxt_script *s;
		struct vxt_spec_event out;
		size_t want = 0, got = 0;

		npool = 0;
		if (k < 2000)
			tree = gen(text, sizeof(text), 1 + rnd(5));
		else
			tree = wide(text, sizeof(text), k % 2 ? 60 + rnd(41) : 20 + rnd(21),
				    (const unsigned[]){ C_OR, C_AND, C_NOT }[rnd(3)]);
		c.clauses[0].probes = VXT_PROBE_ANY;
		c.clauses[0].predicate = text;
		c.clauses[0].nactions = 1;
		c.clauses[0].actions[0] = VXT_ACT_TRACE;
		s = vxt_script_keyed(&c, objs, strs, err);
		ck_assert_msg(s != NULL, "%s: %s", text, err);
		vxt_script_free(s);
		sp = vxt_spec_new(&c, objs, strs, err);
		ck_assert_msg(sp != NULL, "%s: %s", text, err);
		for (size_t i = 0; i < 300; i++) {
			struct vxt_event *e = &ev[i];

			memset(e, 0, sizeof(*e));
			e->time_ns = 1000000 + i * 1000;
			e->phase = rnd(2) ? VXT_PH_DONE : VXT_PH_START;
			e->object = rnd(3);
			e->comm = rnd(5);	/* 0: "", 4: past the table, "" too */
			e->sector = (uint64_t)rnd(3) * 8;
			e->bytes = rnd(2) ? 4096 : 8192;
			e->pid = rnd(3) ? 100 : 5;
			e->cpu = (uint16_t)rnd(3);
			e->flags = (uint16_t)rnd(4);
			e->op = (uint8_t)rnd(3);
			e->error = e->phase == VXT_PH_DONE && !rnd(4) ? -5 : 0;
			e->latency_ns = e->phase == VXT_PH_DONE ? (uint64_t)rnd(400) * 1000 : 0;
		}
		for (size_t i = 0; i < 300; i++)
			ck_assert_int_eq(vxt_spec_push(sp, &ev[i]), 0);
		vxt_spec_finish(sp);
		for (size_t i = 0; i < 300; i++)
			want += holds(tree, &ev[i]);
		for (size_t i = 0; vxt_spec_next(sp, &out) == 1; i++) {
			ck_assert_msg(holds(tree, &ev[out.seq]),
				      "%s: event %llu traced, the reference refuses it", text,
				      (unsigned long long)out.seq);
			got++;
		}
		ck_assert_msg(got == want, "%s: %zu events traced, the reference accepts %zu",
			      text, got, want);
		vxt_spec_free(sp);
	}
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *filter_lower_suite(void)
{
	Suite *s = suite_create("filter_lower");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lowered_predicates);
	suite_add_tcase(s, tc);
	return s;
}
