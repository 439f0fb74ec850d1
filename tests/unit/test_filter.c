/* test_filter.c - the filter language: lexer, parser, evaluator
 *
 * Every field and operator, units, precedence, names and globs, errors with
 * their columns, and an oracle: random expression trees printed as text,
 * compiled, and checked against a direct evaluation of the tree.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "vxtrace/vxtrace.h"
#include "fixture.h"

static struct vxt_objtab *objs;
static struct vxt_strtab *strs;
static uint32_t id_sda, id_sdb, id_nvme, id_dm;
static uint32_t c_fio, c_kw, c_dd;

static void setup(void)
{
	objs = vxt_objtab_new();
	strs = vxt_strtab_new();
	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	id_sda = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	id_sdb = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	id_nvme = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(259, 0), "nvme0n1", VXT_OBJ_DISK, 0);
	id_dm = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(253, 0), "dm-0", VXT_OBJ_DM, 0);
	c_fio = (uint32_t)vxt_strtab_intern(strs, "fio", 3);
	c_kw = (uint32_t)vxt_strtab_intern(strs, "kworker/u8:2", 12);
	c_dd = (uint32_t)vxt_strtab_intern(strs, "dd", 2);
}

static void teardown(void)
{
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

/* A write of 8k on sda by fio, done after 3 ms, at 5 s, no error. */
static struct vxt_event base_event(void)
{
	struct vxt_event ev = {
		.time_ns = 5000000000ull, .sector = 2048, .latency_ns = 3000000,
		.bytes = 8192, .object = id_sda, .pid = 4242, .comm = c_fio,
		.flags = VXT_F_SYNC, .cpu = 3, .error = 0, .phase = VXT_PH_DONE,
		.op = VXT_OP_WRITE,
	};
	return ev;
}

static bool eval(const char *expr, const struct vxt_event *ev)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(expr, objs, strs, err);
	bool r;

	ck_assert_msg(f != NULL, "%s: %s", expr, err);
	r = vxt_filter_matches(f, ev);
	vxt_filter_free(f);
	return r;
}

#define YES(expr, ev) ck_assert_msg(eval(expr, ev), "expected true: %s", expr)
#define NO(expr, ev) ck_assert_msg(!eval(expr, ev), "expected false: %s", expr)

START_TEST(test_fields)
{
	struct vxt_event ev = base_event();

	YES("time == 5s", &ev);
	YES("object == sda", &ev);
	YES("object == \"sda\"", &ev);
	NO("object == sdb", &ev);
	YES("dev == 8:0", &ev);
	NO("dev == 8:16", &ev);
	YES("phase == done", &ev);
	NO("phase == start", &ev);
	YES("op == write", &ev);
	NO("op == read", &ev);
	YES("flags == sync", &ev);
	NO("flags == fua", &ev);
	YES("sector == 2048", &ev);
	YES("bytes == 8k", &ev);
	YES("latency == 3ms", &ev);
	NO("error", &ev);
	YES("error == 0", &ev);
	YES("pid == 4242", &ev);
	YES("comm == fio", &ev);
	NO("comm == dd", &ev);
	YES("cpu == 3", &ev);
	ev.comm = c_kw;
	YES("comm == \"kworker/u8:2\"", &ev);
	ev.object = id_dm;
	YES("object == dm-0", &ev);
	YES("dev == 253:0", &ev);
	ev.op = VXT_OP_WRITE_ZEROES;
	YES("op == write-zeroes", &ev);
}
END_TEST

START_TEST(test_operators)
{
	struct vxt_event ev = base_event();	/* bytes 8192 */

	YES("bytes == 8192", &ev);
	NO("bytes != 8192", &ev);
	YES("bytes != 4096", &ev);
	YES("bytes < 8193", &ev);
	NO("bytes < 8192", &ev);
	YES("bytes <= 8192", &ev);
	NO("bytes <= 8191", &ev);
	YES("bytes > 8191", &ev);
	NO("bytes > 8192", &ev);
	YES("bytes >= 8192", &ev);
	NO("bytes >= 8193", &ev);
	YES("bytes > 4k && op == write", &ev);
	NO("bytes > 4k && op == read", &ev);
	YES("bytes > 16k || op == write", &ev);
	NO("bytes > 16k || op == read", &ev);
	YES("!(op == read)", &ev);
	NO("!op == write", &ev);
	YES("!!(op == write)", &ev);
	YES("true", &ev);
	NO("false", &ev);
	YES("false || true", &ev);
	NO("true && false", &ev);
}
END_TEST

START_TEST(test_units)
{
	struct vxt_event ev = base_event();

	ev.bytes = 4096;
	YES("bytes == 4k", &ev);
	YES("bytes == 4K", &ev);
	YES("bytes == 4KiB", &ev);
	YES("bytes == 0x1000", &ev);
	ev.bytes = 1536;
	YES("bytes == 1.5k", &ev);
	ev.bytes = 1u << 20;
	YES("bytes == 1M", &ev);
	ev.bytes = 1u << 30;
	YES("bytes == 1G", &ev);
	YES("bytes == 1024M", &ev);
	ev.latency_ns = 500000;
	YES("latency == 500us", &ev);
	YES("latency == 0.5ms", &ev);
	YES("latency == 500000ns", &ev);
	ev.latency_ns = 20000000;
	YES("latency == 20ms", &ev);
	ev.latency_ns = 2000000000;
	YES("latency == 2s", &ev);
	ev.latency_ns = 60000000000ull;
	YES("latency == 1m", &ev);
	ev.latency_ns = 3600000000000ull;
	YES("latency == 1h", &ev);
	YES("latency > 0", &ev);
	ev.latency_ns = 1500;
	YES("latency == 1.5us", &ev);
	ev.sector = 123456789012ull;
	YES("sector == 123456789012", &ev);
	YES("sector > 0x1000", &ev);
}
END_TEST

START_TEST(test_precedence)
{
	struct vxt_event ev = base_event();	/* write, 8k, sda */

	/* && binds tighter than || */
	YES("op == write || op == read && bytes > 1M", &ev);
	NO("(op == write || op == read) && bytes > 1M", &ev);
	YES("bytes > 1M && op == read || op == write", &ev);
	NO("bytes > 1M && (op == read || op == write)", &ev);
	/* ! applies to the comparison or group that follows */
	NO("!op == write && bytes == 8k", &ev);
	YES("!(op == write && bytes == 4k)", &ev);
	YES("!op == read && !bytes == 4k", &ev);
	YES("((((op == write))))", &ev);
	/* newlines and comments are white space */
	YES("op == write # writes\n  && bytes >= 8k", &ev);
}
END_TEST

START_TEST(test_in_and_names)
{
	struct vxt_event ev = base_event();

	YES("op in (read, write)", &ev);
	NO("op in (read, flush)", &ev);
	YES("!(op in (read, flush))", &ev);
	YES("comm in (dd, fio)", &ev);
	NO("comm in (dd, \"kworker/u8:2\")", &ev);
	YES("object in (sdb, sda)", &ev);
	YES("bytes in (4k, 8k)", &ev);
	YES("object ~ \"sd*\"", &ev);
	YES("object ~ \"s?a\"", &ev);
	YES("object ~ \"sd[ab]\"", &ev);
	NO("object ~ \"sd[!a]\"", &ev);
	YES("object !~ \"nvme*\"", &ev);
	NO("object ~ \"nvme*\"", &ev);
	YES("object ~ \"*\"", &ev);
	YES("object ~ sda", &ev);
	YES("comm ~ \"f*o\"", &ev);
	ev.object = id_nvme;
	YES("object ~ \"nvme?n*\"", &ev);
	YES("object ~ \"*n1\"", &ev);
	NO("object ~ \"*n2\"", &ev);
	YES("object != sda && object != sdb", &ev);
}
END_TEST

START_TEST(test_glob)
{
	ck_assert(vxt_glob_match("", ""));
	ck_assert(!vxt_glob_match("", "a"));
	ck_assert(vxt_glob_match("*", ""));
	ck_assert(vxt_glob_match("a*b*c", "axxbyyc"));
	ck_assert(!vxt_glob_match("a*b*c", "axxbyy"));
	ck_assert(vxt_glob_match("*a*a*a*", "banana_a"));
	ck_assert(!vxt_glob_match("*a*a*a*a*", "banana"));
	ck_assert(vxt_glob_match("[a-c]x", "bx"));
	ck_assert(!vxt_glob_match("[a-c]x", "dx"));
	ck_assert(vxt_glob_match("[]]", "]"));
	ck_assert(vxt_glob_match("[", "["));
	ck_assert(vxt_glob_match("a\\*", "a*"));
	ck_assert(!vxt_glob_match("a\\*", "ab"));
	ck_assert(vxt_glob_match("dm-?", "dm-0"));
	ck_assert(!vxt_glob_match("dm-?", "dm-10"));
}
END_TEST

START_TEST(test_error_field)
{
	struct vxt_event ev = base_event();

	NO("error", &ev);
	YES("!error", &ev);
	ev.error = -5;
	YES("error", &ev);
	YES("error == EIO", &ev);
	YES("error == 5", &ev);
	YES("error != 0", &ev);
	NO("error == ENOSPC", &ev);
	YES("error in (ENOSPC, EIO)", &ev);
	YES("error && op == write", &ev);
	ev.error = -110;
	YES("error == ETIMEDOUT", &ev);
	YES("error > EIO", &ev);
}
END_TEST

START_TEST(test_flags)
{
	struct vxt_event ev = base_event();

	ev.flags = VXT_F_SYNC | VXT_F_META;
	YES("flags == sync", &ev);
	YES("flags == meta", &ev);
	NO("flags == fua", &ev);
	YES("flags != fua", &ev);
	NO("flags != sync", &ev);
	YES("flags in (fua, meta)", &ev);
	NO("flags == 0", &ev);
	YES("flags == 5", &ev);
	ev.flags = 0;
	YES("flags == 0", &ev);
}
END_TEST

START_TEST(test_time_base)
{
	struct vxt_event ev = base_event();	/* 5 s */
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile("time >= 1s && time < 2s", objs, strs, err);

	ck_assert_ptr_nonnull(f);
	ck_assert(!vxt_filter_matches(f, &ev));
	vxt_filter_set_time_base(f, 4000000000ull);
	ck_assert(vxt_filter_matches(f, &ev));
	vxt_filter_set_time_base(f, 6000000000ull);	/* before the base: time 0 */
	ck_assert(!vxt_filter_matches(f, &ev));
	vxt_filter_free(f);
}
END_TEST

START_TEST(test_spec_context)
{
	struct vxt_filter_opts o = { .flags = VXT_FILTER_SPEC };
	struct vxt_filter_ctx on = { .spec = true }, off = { .spec = false };
	struct vxt_event ev = base_event();
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f;

	f = vxt_filter_compile("spec && op == write", objs, strs, err);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(err, "filter:1:1: 'spec' is only known in speculation predicates");
	f = vxt_filter_compile_opts("spec && op == write", &o, objs, strs, NULL, err);
	ck_assert_ptr_nonnull(f);
	ck_assert(vxt_filter_eval(f, &ev, &on));
	ck_assert(!vxt_filter_eval(f, &ev, &off));
	ck_assert(!vxt_filter_eval(f, &ev, NULL));
	vxt_filter_free(f);
	f = vxt_filter_compile_opts("!spec", &o, objs, strs, NULL, err);
	ck_assert(vxt_filter_eval(f, &ev, &off));
	ck_assert(!vxt_filter_eval(f, &ev, &on));
	vxt_filter_free(f);
}
END_TEST

static const struct {
	const char *expr;
	const char *msg;
} bad[] = {
	{ "", "filter:1:1: empty expression" },
	{ "   ", "filter:1:4: empty expression" },
	{ "op == write && latency >", "filter:1:25: expected a value after '>'" },
	{ "latency > && op == read", "filter:1:11: expected a value after '>'" },
	{ "bytes > 4k &&", "filter:1:14: expected a field, '(' or '!', not the end" },
	{ "foo == 1", "filter:1:1: unknown field 'foo' (time object dev phase op flags "
		      "sector bytes latency error pid comm cpu host q2d d2c q2c q2g g2i i2d)" },
	{ "bytes", "filter:1:6: expected a comparison after 'bytes', not the end" },
	{ "bytes = 4k", "filter:1:7: '=' is not an operator (use '==')" },
	{ "op == read & bytes > 0", "filter:1:12: '&' is not an operator (use '&&')" },
	{ "op == read | bytes > 0", "filter:1:12: '|' is not an operator (use '||')" },
	{ "latency > 20", "filter:1:11: 'latency' needs a unit: '20' is ambiguous (ns us ms s m h)" },
	{ "latency > 4k", "filter:1:11: 'latency' takes a duration (e.g. 20ms), not '4k'" },
	{ "bytes > 20ms", "filter:1:9: 'bytes' takes a size (e.g. 4k), not '20ms'" },
	{ "bytes > 4q", "filter:1:9: unknown unit 'q' (ns us ms s m h; k M G T)" },
	{ "sector == 1.5", "filter:1:11: 'sector' takes a whole number, not '1.5'" },
	{ "pid == 4k", "filter:1:8: 'pid' takes a number, not '4k'" },
	{ "op == wrte", "filter:1:7: unknown op 'wrte' (read write flush discard write-zeroes "
		       "passthru other)" },
	{ "phase == finished", "filter:1:10: unknown phase 'finished' (start done requeue lost "
			      "mark queue merge insert plug unplug remap split getrq)" },
	{ "error == EFOO", "filter:1:10: unknown errno name 'EFOO'" },
	{ "flags == fast", "filter:1:10: unknown flag 'fast' (sync fua meta preflush recovery "
			  "rahead bio)" },
	{ "op < write", "filter:1:4: '<' does not apply to 'op' (use == != in)" },
	{ "object > sda", "filter:1:8: '>' does not apply to 'object' (use == != in ~)" },
	{ "bytes ~ \"4*\"", "filter:1:7: '~' applies to object, host and comm only" },
	{ "object ~ \"sd*", "filter:1:10: unterminated string" },
	{ "(op == read", "filter:1:12: expected ')' to close '(' at 1:1, not the end" },
	{ "op == read)", "filter:1:11: unbalanced ')'" },
	{ "op == read bytes > 0", "filter:1:12: expected '&&' or '||' before 'bytes'" },
	{ "op in read", "filter:1:7: expected '(' after 'in'" },
	{ "op in ()", "filter:1:8: expected a value after '('" },
	{ "op in (read,)", "filter:1:13: expected a value after ','" },
	{ "op in (read write)", "filter:1:13: expected ',' or ')' in the list, not 'write'" },
	{ "bytes > 99999999999999999999", "filter:1:9: number too large" },
	{ "dev == 8:99999999", "filter:1:8: device number out of range" },
	{ "bytes > 4k$", "filter:1:11: unexpected character '$'" },
	{ "op == read &&\n  lat > 1ms", "filter:2:3: unknown field 'lat' (time object dev phase op "
					"flags sector bytes latency error pid comm cpu host q2d d2c q2c q2g g2i i2d)" },
	{ "dev == sda", "filter:1:8: 'dev' takes a number, not 'sda'" },
	{ "object == 8:0", "filter:1:11: 'object' takes a name, not '8:0'" },
	{ "bytes > 12ab", "filter:1:9: unknown unit 'ab' (ns us ms s m h; k M G T)" },
	{ "bytes > 12k5", "filter:1:9: malformed number" },
};

START_TEST(test_errors)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(bad[_i].expr, objs, strs, err);

	ck_assert_msg(f == NULL, "compiled: %s", bad[_i].expr);
	ck_assert_str_eq(err, bad[_i].msg);
}
END_TEST

START_TEST(test_error_position)
{
	struct vxt_filter_opts o = { .name = "p.yaml", .line = 7, .col = 11 };
	struct vxt_filter_error e;
	char err[VXT_ERRBUF_SIZE];

	ck_assert_ptr_null(vxt_filter_compile_opts("bytes > ", &o, objs, strs, &e, err));
	ck_assert_str_eq(err, "p.yaml:7:19: expected a value after '>'");
	ck_assert_uint_eq(e.line, 7);
	ck_assert_uint_eq(e.col, 19);
	ck_assert_str_eq(e.msg, "expected a value after '>'");
	/* on a later line, the column is the line's own */
	ck_assert_ptr_null(vxt_filter_compile_opts("op == read\n && x", &o, objs, strs, &e, NULL));
	ck_assert_uint_eq(e.line, 8);
	ck_assert_uint_eq(e.col, 5);
}
END_TEST

START_TEST(test_limits)
{
	char err[VXT_ERRBUF_SIZE];
	size_t n = VXT_FILTER_MAX_DEPTH + 2;
	char *s = malloc(n * 2 + 32), *p = s;
	struct vxt_filter *f;

	for (size_t i = 0; i < n; i++)
		*p++ = '(';
	strcpy(p, "error");
	p += 5;
	for (size_t i = 0; i < n; i++)
		*p++ = ')';
	*p = '\0';
	ck_assert_ptr_null(vxt_filter_compile(s, objs, strs, err));
	ck_assert(strstr(err, "nested too deeply") != NULL);
	free(s);

	s = malloc(VXT_FILTER_MAX_LEN + 16);
	memset(s, ' ', VXT_FILTER_MAX_LEN + 1);
	s[VXT_FILTER_MAX_LEN + 1] = '\0';
	ck_assert_ptr_null(vxt_filter_compile(s, objs, strs, err));
	ck_assert_str_eq(err, "filter:1:1: expression too long (more than 8192 bytes)");
	free(s);

	/* long flat chains compile without deep recursion in the parser */
	s = malloc(800 * 9 + 8);
	p = s;
	for (int i = 0; i < 800; i++)
		p += sprintf(p, "error || ");
	strcpy(p, "false");
	f = vxt_filter_compile(s, objs, strs, err);
	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_uint_eq(vxt_filter_ntests(f), 800);
	vxt_filter_free(f);
	free(s);
}
END_TEST

START_TEST(test_tables_grow)
{
	struct vxt_objtab *t = vxt_objtab_new();
	struct vxt_strtab *st = vxt_strtab_new();
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile("object ~ \"sd*\" && comm == fio", t, st, err);
	struct vxt_event ev = { .object = 0, .comm = 1 };

	ck_assert_ptr_nonnull(f);
	/* neither the object nor the command exists yet: nothing is cached */
	ck_assert(!vxt_filter_matches(f, &ev));
	vxt_objtab_add(t, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	ck_assert(!vxt_filter_matches(f, &ev));
	vxt_strtab_intern(st, "fio", 3);
	ck_assert(vxt_filter_matches(f, &ev));
	/* unbound: names compare as "" */
	vxt_filter_bind(f, NULL, NULL);
	ck_assert(!vxt_filter_matches(f, &ev));
	vxt_filter_bind(f, t, st);
	ck_assert(vxt_filter_matches(f, &ev));
	ck_assert_str_eq(vxt_filter_source(f), "object ~ \"sd*\" && comm == fio");
	vxt_filter_free(f);
	vxt_objtab_free(t);
	vxt_strtab_free(st);
}
END_TEST

/* ---- oracle: random trees against a direct evaluation ---- */

struct rnode {
	int kind;		/* 0 leaf, 1 and, 2 or, 3 not */
	int a, b;
	int leaf;		/* index into leaves[] */
};

static bool l_write(const struct vxt_event *e) { return e->op == VXT_OP_WRITE; }
static bool l_read(const struct vxt_event *e) { return e->op == VXT_OP_READ; }
static bool l_big(const struct vxt_event *e) { return e->bytes > 16384; }
static bool l_small(const struct vxt_event *e) { return e->bytes <= 4096; }
static bool l_slow(const struct vxt_event *e) { return e->latency_ns >= 2000000; }
static bool l_err(const struct vxt_event *e) { return e->error != 0; }
static bool l_eio(const struct vxt_event *e) { return e->error == -5; }
static bool l_sd(const struct vxt_event *e) { return e->object == id_sda || e->object == id_sdb; }
static bool l_nvme(const struct vxt_event *e) { return e->object == id_nvme; }
static bool l_fio(const struct vxt_event *e) { return e->comm == c_fio; }
static bool l_done(const struct vxt_event *e) { return e->phase == VXT_PH_DONE; }
static bool l_pid(const struct vxt_event *e) { return e->pid < 100; }
static bool l_sync(const struct vxt_event *e) { return e->flags & VXT_F_SYNC; }
static bool l_cpu(const struct vxt_event *e) { return e->cpu != 1; }
static bool l_dev(const struct vxt_event *e) { return e->object == id_sdb; }
static bool l_sector(const struct vxt_event *e) { return e->sector >= 1000 && e->sector < 3000; }

static const struct {
	const char *text;
	bool (*fn)(const struct vxt_event *ev);
} oracle_leaves[] = {
	{ "op == write", l_write }, { "op == read", l_read }, { "bytes > 16k", l_big },
	{ "bytes <= 4k", l_small }, { "latency >= 2ms", l_slow }, { "error", l_err },
	{ "error == EIO", l_eio }, { "object ~ \"sd?\"", l_sd }, { "object == nvme0n1", l_nvme },
	{ "comm == fio", l_fio }, { "phase == done", l_done }, { "pid < 100", l_pid },
	{ "flags == sync", l_sync }, { "cpu != 1", l_cpu }, { "dev == 8:16", l_dev },
	{ "sector in (1000, 2000, 2999) || (sector > 1000 && sector < 3000)", l_sector },
};

#define NLEAVES (sizeof(oracle_leaves) / sizeof(oracle_leaves[0]))

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng_state);
}

static int build_tree(struct rnode *t, int *n, int depth)
{
	int me = (*n)++;
	int k = depth <= 0 ? 0 : (int)(rnd() % 4);

	t[me].kind = k;
	if (k == 0) {
		t[me].leaf = (int)(rnd() % NLEAVES);
	} else {
		t[me].a = build_tree(t, n, depth - 1);
		if (k != 3)
			t[me].b = build_tree(t, n, depth - 1);
	}
	return me;
}

static void print_tree(const struct rnode *t, int i, char **p)
{
	switch (t[i].kind) {
	case 0:
		*p += sprintf(*p, "(%s)", oracle_leaves[t[i].leaf].text);
		break;
	case 3:
		*p += sprintf(*p, "!");
		print_tree(t, t[i].a, p);
		break;
	default:
		*p += sprintf(*p, "(");
		print_tree(t, t[i].a, p);
		*p += sprintf(*p, t[i].kind == 1 ? " && " : " || ");
		print_tree(t, t[i].b, p);
		*p += sprintf(*p, ")");
		break;
	}
}

static bool eval_tree(const struct rnode *t, int i, const struct vxt_event *ev)
{
	switch (t[i].kind) {
	case 0: return oracle_leaves[t[i].leaf].fn(ev);
	case 1: return eval_tree(t, t[i].a, ev) && eval_tree(t, t[i].b, ev);
	case 2: return eval_tree(t, t[i].a, ev) || eval_tree(t, t[i].b, ev);
	default: return !eval_tree(t, t[i].a, ev);
	}
}

static struct vxt_event random_event(void)
{
	static const uint32_t sizes[] = { 512, 4096, 8192, 16384, 65536, 131072 };
	uint32_t objids[] = { id_sda, id_sdb, id_nvme, id_dm };
	uint32_t comms[] = { 0, c_fio, c_kw, c_dd };
	static const int16_t errs[] = { 0, 0, 0, -5, -28, -110 };
	struct vxt_event ev = {
		.time_ns = rnd() % 10000000000ull,
		.sector = rnd() % 4000,
		.latency_ns = rnd() % 5000000,
		.bytes = sizes[rnd() % 6],
		.object = objids[rnd() % 4],
		.pid = (uint32_t)(rnd() % 200),
		.comm = comms[rnd() % 4],
		.flags = (uint16_t)(rnd() % 64),
		.cpu = (uint16_t)(rnd() % 4),
		.error = errs[rnd() % 6],
		.phase = (uint8_t)(rnd() % 3),
		.op = (uint8_t)(rnd() % VXT_OP_COUNT),
	};
	return ev;
}

START_TEST(test_oracle)
{
	struct rnode tree[256];
	char text[16384], err[VXT_ERRBUF_SIZE];

	for (int round = 0; round < 400; round++) {
		int n = 0, root = build_tree(tree, &n, 1 + (int)(rnd() % 6));
		char *p = text;
		struct vxt_filter *f;

		print_tree(tree, root, &p);
		f = vxt_filter_compile(text, objs, strs, err);
		ck_assert_msg(f != NULL, "%s: %s", text, err);
		for (int i = 0; i < 200; i++) {
			struct vxt_event ev = random_event();

			ck_assert_msg(vxt_filter_matches(f, &ev) == eval_tree(tree, root, &ev),
				      "%s", text);
		}
		vxt_filter_free(f);
	}
}
END_TEST

/* A name test over every id of a large table: with 5000 command names each
 * seen 4 times, the count is the one a direct prefix check gives. */
START_TEST(test_name_cache_every_id)
{
	struct vxt_strtab *many = vxt_strtab_new();
	char err[VXT_ERRBUF_SIZE], name[32];
	struct vxt_filter *f;
	struct vxt_event e = { .phase = VXT_PH_DONE };
	uint64_t got = 0, want = 0;
	uint32_t n = 5000;

	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "worker-%u-long-command-name", i);
		vxt_strtab_intern(many, name, strlen(name));
	}
	f = vxt_filter_compile("comm ~ \"worker-2*\"", objs, many, err);
	ck_assert_msg(f != NULL, "%s", err);
	for (int round = 0; round < 4; round++)
		for (uint32_t id = 1; id <= n; id++) {
			e.comm = id;
			got += vxt_filter_matches(f, &e);
			want += !strncmp(vxt_strtab_get(many, id), "worker-2", 8);
		}
	ck_assert_uint_eq(got, want);
	ck_assert_uint_eq(want, 4 * 1111);
	vxt_filter_free(f);
	vxt_strtab_free(many);
}
END_TEST

/* Numbers past INT64_MAX compare unsigned, as the field is, though the
 * engine the filter runs in compares signed: each operator against C's own
 * unsigned comparison, on sectors around 2^63 and 2^64. */
START_TEST(test_past_int64)
{
	static const uint64_t vals[] = { 0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1,
					 (uint64_t)INT64_MAX + 2, UINT64_MAX - 1, UINT64_MAX };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	char text[96], err[VXT_ERRBUF_SIZE];

	for (unsigned v = 3; v < sizeof(vals) / sizeof(vals[0]); v++)
		for (unsigned o = 0; o < 6; o++) {
			struct vxt_filter *f;

			snprintf(text, sizeof(text), "sector %s %llu", ops[o],
				 (unsigned long long)vals[v]);
			f = vxt_filter_compile(text, objs, NULL, err);
			ck_assert_msg(f != NULL, "%s: %s", text, err);
			for (unsigned e = 0; e < sizeof(vals) / sizeof(vals[0]); e++) {
				struct vxt_event ev = { .phase = VXT_PH_START, .sector = vals[e] };
				uint64_t x = vals[e], y = vals[v];
				bool want = o == 0 ? x == y : o == 1 ? x != y : o == 2 ? x < y :
					    o == 3 ? x <= y : o == 4 ? x > y : x >= y;

				ck_assert_msg(vxt_filter_matches(f, &ev) == want, "%s, sector %llu",
					      text, (unsigned long long)x);
			}
			vxt_filter_free(f);
		}
}
END_TEST

Suite *filter_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("filter");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_operators);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_precedence);
	tcase_add_test(tc, test_in_and_names);
	tcase_add_test(tc, test_glob);
	tcase_add_test(tc, test_error_field);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_time_base);
	tcase_add_test(tc, test_spec_context);
	tcase_add_loop_test(tc, test_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_error_position);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_tables_grow);
	tcase_add_test(tc, test_oracle);
	tcase_add_test(tc, test_name_cache_every_id);
	tcase_add_test(tc, test_past_int64);
	suite_add_tcase(s, tc);
	return s;
}
