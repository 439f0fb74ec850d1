/* test_script_dlang.c - D as DTrace users write it for block I/O
 *
 * The io provider's translators read the event's fields (args[0]->b_bcount
 * is the bytes, b_flags has B_READ for a read, args[1]->dev_minor the
 * device's minor, args[2] DTrace's values for no file); printa's text comes
 * after the printf text of its clause and takes a format; `x = 0` frees a
 * string dynamic variable; inline constants choose the action of a ?:;
 * constructs a block trace cannot give are refused in words, and stand-ins
 * are named once in the load warning; a count() key of integers costs at
 * most 64 bytes, an array entry at most 64 beyond its key and value.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

static struct vxt_script *compile(const char *text)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s = vxt_script_compile(text, strlen(text), "t.d", NULL, 0, err);

	ck_assert_msg(s != NULL, "%s", err);
	return s;
}

static struct vxt_event ev(uint64_t t, unsigned phase, unsigned op, uint32_t pid,
			   uint64_t sector, uint32_t bytes)
{
	struct vxt_event e = { .time_ns = t, .phase = (uint8_t)phase, .op = (uint8_t)op,
			       .pid = pid, .sector = sector, .bytes = bytes };

	return e;
}

/* Run @text over @n events on object 0 (sdz, 8:3); its output in @o. */
static void run(const char *text, const struct vxt_event *e, size_t n, struct ut_script_out *o)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_script *s = compile(text);

	ck_assert_ptr_nonnull(objs);
	ck_assert_int_eq(vxt_objtab_add(objs, 8u << 20 | 3, "sdz", 0, 0), 0);
	memset(o, 0, sizeof(*o));
	ck_assert_int_eq(vxt_script_start(s, objs, NULL, ut_script_sink, o), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vxt_script_push(s, &e[i], i), 0);
	ck_assert_int_eq(vxt_script_end(s), 0);
	vxt_script_free(s);
	vxt_objtab_free(objs);
}

#define EV(t, ph, o, p, sec, b) { .time_ns = (t), .phase = (ph), .op = (o), .pid = (p), \
				  .sector = (sec), .bytes = (b) }
#define EVENTS(...) (const struct vxt_event[]){ __VA_ARGS__ }, \
	sizeof((const struct vxt_event[]){ __VA_ARGS__ }) / sizeof(struct vxt_event)

/* A script over a few events on object 0 (sdz, 8:3) and all it prints. */
static const struct {
	const char *text;
	const struct vxt_event *e;
	size_t n;
	const char *want;
} runs[] = {
	/* the io provider's translators: bufinfo_t, devinfo_t, fileinfo_t and
	 * FreeBSD's bio and devstat names */
	{ "#pragma D option quiet\n"
	  "io:genunix::start {\n"
	  "  printf(\"%d %d %s %s %d:%d %s %s %d|\", args[0]->b_bcount, args[0]->b_blkno,\n"
	  "    args[0]->b_flags & B_READ ? \"R\" : \"W\", args[0]->b_flags & B_ASYNC ? \"a\" : \"s\",\n"
	  "    args[1]->dev_major, args[1]->dev_minor, args[1]->dev_statname,\n"
	  "    args[2]->fi_pathname, args[2]->fi_offset);\n"
	  "  printf(\"%d %d %d %s %d|\", args[0]->bio_cmd == BIO_READ, args[0]->bio_offset,\n"
	  "    args[0]->bio_bcount, args[1]->device_name, args[1]->unit_number);\n"
	  "}\n",
	  EVENTS({ .time_ns = 1000, .phase = VXT_PH_START, .op = VXT_OP_READ, .pid = 7,
		   .sector = 77, .bytes = 8192, .flags = VXT_F_SYNC },
		 EV(2000, VXT_PH_START, VXT_OP_WRITE, 7, 99, 512)),
	  "8192 77 R s 8:3 sdz <none> -1|1 39424 8192 sdz 3|"
	  "512 99 W a 8:3 sdz <none> -1|0 50688 512 sdz 3|" },
	/* probeprov, probemod, probefunc and probename as illumos names its probes */
	{ "#pragma D option quiet\n"
	  "BEGIN, END { printf(\"%s:%s:%s:%s \", probeprov, probemod, probefunc, probename); }\n"
	  "io:::start, io:::done { printf(\"%s:%s:%s:%s \", probeprov, probemod, probefunc,\n"
	  "  probename); }\n",
	  EVENTS(EV(1, VXT_PH_START, VXT_OP_READ, 1, 8, 4096),
		 EV(2, VXT_PH_DONE, VXT_OP_READ, 1, 8, 4096)),
	  "dtrace:::BEGIN io:genunix:bdev_strategy:start io:genunix:biodone:done dtrace:::END " },
	/* arg0 names the I/O: the same at its start and its done, another for an
	 * I/O of the same sector in flight beside it */
	{ "#pragma D option quiet\n"
	  "io:::start { size[arg0] = args[0]->b_bcount; }\n"
	  "io:::done /size[arg0]/ { printf(\"%d=%d \", size[arg0], args[0]->b_bcount); "
	  "size[arg0] = 0; }\n",
	  EVENTS(EV(1, VXT_PH_START, VXT_OP_READ, 1, 8, 4096),
		 EV(2, VXT_PH_START, VXT_OP_READ, 1, 8, 512),
		 EV(3, VXT_PH_DONE, VXT_OP_READ, 1, 8, 512),
		 EV(4, VXT_PH_DONE, VXT_OP_READ, 1, 8, 4096)),
	  "512=512 4096=4096 " },
	/* END { printf(header); printa(fmt, @a); printf(footer) } prints in that
	 * order; printa's format takes keys and the value with widths */
	{ "#pragma D option quiet\n"
	  "io:::start { @n[pid, args[1]->dev_statname] = count(); @b[pid] = sum(bytes); }\n"
	  "END { printf(\"%5s %-4s %s\\n\", \"PID\", \"DEV\", \"N\");\n"
	  "  printa(\"%5d %-4s %@d\\n\", @n); printf(\"--\\n\"); normalize(@b, 1024);\n"
	  "  printa(\"%@8d|%d\\n\", @b); }\n",
	  EVENTS(EV(1, VXT_PH_START, VXT_OP_READ, 3, 1, 4096),
		 EV(2, VXT_PH_START, VXT_OP_READ, 3, 2, 4096),
		 EV(3, VXT_PH_START, VXT_OP_WRITE, 12, 3, 4096)),
	  "  PID DEV  N\n   12 sdz  1\n    3 sdz  2\n--\n       4|12\n       8|3\n" },
	/* an action under a ?: whose condition the event decides runs when its
	 * operand is picked: printf, printa, an aggregation, nested ?: */
	{ "#pragma D option quiet\n"
	  "io:::start { pid > 5 ? printf(\"big \") : printf(\"small \");\n"
	  "  args[0]->b_flags & B_READ ? @r[pid] = sum(bytes) :\n"
	  "    (pid == 12 ? printf(\"w12 \") : 1); }\n"
	  "END { printa(\"%d:%@d \", @r); }\n",
	  EVENTS(EV(1, VXT_PH_START, VXT_OP_READ, 3, 1, 4096),
		 EV(2, VXT_PH_START, VXT_OP_WRITE, 12, 2, 512),
		 EV(3, VXT_PH_START, VXT_OP_READ, 12, 3, 512)),
	  "small big w12 big 12:512 3:4096 " },
	/* inline constants, a typedef, declarations and casts; ?: with a constant
	 * condition chooses its action; #! flags; $1 with defaultargs */
	{ "#!/usr/sbin/dtrace -qs\n"
	  "#pragma D option defaultargs\n"
	  "typedef struct wanted { int a; } wanted_t;\n"
	  "inline int ON = 2 * 3;\n inline string WHO = \"me\";\n"
	  "int counter;\n self int seen[dev_t];\n"
	  "dtrace:::BEGIN { ON == 6 ? printf(\"on %s \", WHO) : 1;\n"
	  "  ON != 6 ? printf(\"off \") : 1; (ON > 1 && $1 == 0) ? printf(\"%d \", (int)ON) : 1;\n"
	  "  printf(\"%s\", stringof(WHO)); }\n",
	  NULL, 0, "on me 6 me" },
};

START_TEST(test_run)
{
	struct ut_script_out o;

	run(runs[_i].text, runs[_i].e, runs[_i].n, &o);
	ck_assert_str_eq(o.text, runs[_i].want);
	ut_script_out_free(&o);
}
END_TEST

/* stddev() as dt_stddev(): of 2 4 4 4 5 5 7 9, 2 */
START_TEST(test_stddev)
{
	static const uint32_t v[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct vxt_event e[8];
	struct ut_script_out o;

	for (unsigned i = 0; i < 8; i++)
		e[i] = ev(i + 1, VXT_PH_START, VXT_OP_READ, 1, i, v[i]);
	run("#pragma D option quiet\n"
	    "io:::start { @s = stddev(bytes); @a = avg(bytes); }\n"
	    "END { printa(\"%@d \", @s); printa(\"%@d\", @a); }\n", e, 8, &o);
	ck_assert_str_eq(o.text, "2 5");
	ut_script_out_free(&o);
}
END_TEST

/* D compares a 64-bit unsigned field (and a size) unsigned, as C does and
 * as a kernel source tests it: each operator against C's own comparison on
 * sectors around 2^63, an expression of one (sector + 1), and a size
 * against -1 (C converts the -1: bytes > -1 is false). */
START_TEST(test_unsigned)
{
	static const uint64_t sec[] = { 0, 5, INT64_MAX, (uint64_t)INT64_MAX + 5, UINT64_MAX - 1 };
	static const char *const ops[] = { "<", "<=", ">", ">=" };
	struct vxt_event e[5];
	struct ut_script_out o;
	char text[256], want[64];

	for (unsigned i = 0; i < 5; i++)
		e[i] = ev(i + 1, VXT_PH_START, VXT_OP_READ, 1, sec[i], 4096);
	for (unsigned k = 0; k < 4; k++) {
		size_t at = 0;

		snprintf(text, sizeof(text), "#pragma D option quiet\n"
			 "io:::start /sector %s 100/ { printf(\"a\"); }\n"
			 "io:::start /sector + 1 %s 100/ { printf(\"b\"); }\n"
			 "io:::start /bytes > -1/ { printf(\"c\"); }\n", ops[k], ops[k]);
		for (unsigned i = 0; i < 5; i++) {
			uint64_t x = sec[i];
			bool a = k == 0 ? x < 100 : k == 1 ? x <= 100 : k == 2 ? x > 100 : x >= 100;

			x++;
			bool b = k == 0 ? x < 100 : k == 1 ? x <= 100 : k == 2 ? x > 100 : x >= 100;

			if (a)
				want[at++] = 'a';
			if (b)
				want[at++] = 'b';
		}
		want[at] = '\0';
		run(text, e, 5, &o);
		ck_assert_msg(!strcmp(o.text, want), "sector %s 100: '%s', C says '%s'", ops[k],
			      o.text, want);
		ut_script_out_free(&o);
	}
}
END_TEST

/* llquantize(x, 10, 0, 2, 10): below 1, 1 to 9, 10 to 90 by 10, 100 to
 * 900 by 100, at and above 1000, rows as dt_print_llquantize() labels them */
START_TEST(test_llquantize)
{
	static const uint32_t v[5] = { 0, 5, 15, 150, 5000 };
	struct vxt_event e[5];
	struct ut_script_out o;
	unsigned rows = 0;

	for (unsigned i = 0; i < 5; i++)
		e[i] = ev(i + 1, VXT_PH_START, VXT_OP_READ, 1, i, v[i]);
	run("#pragma D option quiet\n"
	    "io:::start { @l = llquantize(bytes, 10, 0, 2, 10); }\n"
	    "END { printa(\"%@d\", @l); }\n", e, 5, &o);
	for (const char *p = o.text; (p = strchr(p, '|')); p++)
		rows++;
	ck_assert_uint_eq(rows, 29);	/* < 1, 9 + 9 + 9, >= 1000 */
	ck_assert_ptr_nonnull(strstr(o.text, "\n             < 1 |@@@@@@@@ "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n               5 |@@@@@@@@ "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n              10 |@@@@@@@@ "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n              20 |         "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n             100 |@@@@@@@@ "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n             900 |         "));
	ck_assert_ptr_nonnull(strstr(o.text, "\n         >= 1000 |@@@@@@@@ "));
	ut_script_out_free(&o);
}
END_TEST

/* `x = 0` frees a string dynamic variable (self-> and an array's entry):
 * 20 000 I/Os of 2 000 processes leave no dynamic variable space taken and
 * drop nothing. */
START_TEST(test_free_string)
{
	struct vxt_script *s = compile("#pragma D option quiet\n"
				       "#pragma D option dynvarsize=64k\n"
				       "io:::start { self->what = \"read\"; name[sector] = \"x\"; }\n"
				       "io:::done /self->what == \"read\"/ { self->what = 0; "
				       "name[sector] = 0; }\n");
	struct vxt_script_stats st;
	struct ut_script_out o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &o), 0);
	for (uint64_t i = 0; i < 20000; i++) {
		struct vxt_event a = ev(2 * i + 1, VXT_PH_START, VXT_OP_READ,
					(uint32_t)(i % 2000), i, 4096);
		struct vxt_event b = a;

		b.time_ns++;
		b.phase = VXT_PH_DONE;
		ck_assert_int_eq(vxt_script_push(s, &a, 2 * i), 0);
		ck_assert_int_eq(vxt_script_push(s, &b, 2 * i + 1), 0);
	}
	ck_assert_int_eq(vxt_script_end(s), 0);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.dyn_drops, 0);
	ck_assert_uint_eq(st.dyn_bytes, 0);
	vxt_script_free(s);
	ut_script_out_free(&o);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;	/* "line:col: words" */
} bad[] = {
	{ "io:::start { stack(); }", "1:14: stack() is not available in block traces" },
	{ "io:::start { @a = llquantize(bytes, 10, 0, 6, 25); }",
	  "1:19: llquantize( ): factor of 2 or more" },
	{ "io:::start { x = args[3]->b_bcount; }",
	  "1:18: index 3 is out of range for args[ ]" },
	{ "io:::start { x = args[0]->b_nope; }", "1:18: bufinfo_t has no member b_nope" },
	{ "io:::start { x = args[1]; }", "1:25: args[1] is a structure" },
	{ "io:::start { x = curthread->t_pri; }",
	  "1:18: curthread->t_pri is not available in block traces" },
	{ "syscall::read:entry { }",
	  "1:1: probe description syscall::read:entry: provider syscall is not available" },
	{ "io:::start { x = pid > 1 ? printf(\"x\") : 1; }",
	  "1:28: printf( ) is an action" },
	{ "io:::start { x = $1; }", "1:18: macro argument $1 is not defined" },
	{ "translator foo_t < int x > { a = x; };", "1:1: translator definitions" },
};

START_TEST(test_bad)
{
	char err[VXT_ERRBUF_SIZE], want[300];
	struct vxt_script *s = vxt_script_compile(bad[_i].text, strlen(bad[_i].text), "t.d",
						  NULL, 0, err);

	ck_assert_msg(s == NULL, "accepted: %s", bad[_i].text);
	snprintf(want, sizeof(want), "t.d:%s", bad[_i].msg);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "got '%s', want '%s'", err, want);
}
END_TEST

/* What a block trace does not hold is named once, on one line; a script
 * without any has no warning. */
START_TEST(test_warnings)
{
	struct vxt_script *s = compile("#pragma D option switchrate=10hz\n"
				       "io:::start, io:::wait-start { x = uid; y = uid + ppid;\n"
				       "  z = curpsinfo->pr_psargs; }\n");
	const char *w = vxt_script_warnings(s);

	ck_assert_ptr_nonnull(strstr(w, "uid reads 0"));
	ck_assert_ptr_null(strstr(strstr(w, "uid reads 0") + 1, "uid reads 0"));
	ck_assert_ptr_nonnull(strstr(w, "ppid reads 0"));
	ck_assert_ptr_nonnull(strstr(w, "pr_psargs reads the command name"));
	ck_assert_ptr_nonnull(strstr(w, "option switchrate does nothing"));
	ck_assert_ptr_nonnull(strstr(w, "io:::wait-start never fires"));
	ck_assert_ptr_null(strchr(w, '\n'));
	vxt_script_free(s);
	s = compile("io:::start { @[args[1]->dev_statname] = sum(args[0]->b_bcount); }");
	ck_assert_str_eq(vxt_script_warnings(s), "");
	vxt_script_free(s);
}
END_TEST

/* What a key costs: a count() aggregation key of integers at most 64 bytes,
 * an associative array entry at most 64 bytes beyond its key (8 bytes a
 * value) and its value (24), over 3000 keys of one and of two integers. */
START_TEST(test_key_cost)
{
	static const char *const texts[] = {
		"io:::start { @c[sector] = count(); a[sector] = 1; }",
		"io:::start { @c[sector, pid] = count(); a[sector, pid] = 1; }",
	};
	const unsigned keys = 3000;
	struct vxt_script *s = compile(texts[_i]);
	struct vxt_script_stats st;
	struct ut_script_out o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &o), 0);
	for (unsigned i = 0; i < keys; i++) {
		struct vxt_event e = ev(i + 1, VXT_PH_START, VXT_OP_READ, 1, i, 512);

		ck_assert_int_eq(vxt_script_push(s, &e, i), 0);
	}
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.agg_drops, 0);
	ck_assert_uint_eq(st.dyn_drops, 0);
	ck_assert_msg(st.mem_bytes <= 64ull * keys, "%s: %" PRIu64 " bytes a count() key",
		      texts[_i], st.mem_bytes / keys);
	ck_assert_msg(st.dyn_bytes <= (64ull + 8 * (_i + 1) + 24) * keys,
		      "%s: %" PRIu64 " bytes an array entry", texts[_i], st.dyn_bytes / keys);
	vxt_script_free(s);
	ut_script_out_free(&o);
}
END_TEST

/* The fields a script reads are its ops', not its tree's: b_flags & B_READ
 * is folded to a test of the op, so no flags are decoded for it; b_flags &
 * B_ASYNC reads the flags, b_error the error, and fields a script never
 * names are not decoded. */
static const struct {
	const char *text;
	unsigned want, not;
} field_cases[] = {
	{ "io:::start { @[args[1]->dev_statname, args[0]->b_flags & B_READ ? \"R\" : \"W\"] =\n"
	  "  quantize(args[0]->b_bcount); }\n",
	  VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT | VXT_FIELD_BYTES,
	  VXT_FIELD_FLAGS | VXT_FIELD_ERROR | VXT_FIELD_SECTOR | VXT_FIELD_PID | VXT_FIELD_COMM },
	{ "io:::start /args[0]->b_flags & B_ASYNC/ { @n = count(); }\n",
	  VXT_FIELD_FLAGS, VXT_FIELD_OBJECT | VXT_FIELD_BYTES | VXT_FIELD_SECTOR },
	{ "io:::done { @e[args[0]->b_error, execname] = sum(args[0]->b_blkno); }\n",
	  VXT_FIELD_ERROR | VXT_FIELD_COMM | VXT_FIELD_SECTOR, VXT_FIELD_FLAGS | VXT_FIELD_BYTES },
};

START_TEST(test_fields)
{
	struct vxt_script *s = compile(field_cases[_i].text);
	unsigned f = vxt_script_fields(s);

	ck_assert_msg((f & field_cases[_i].want) == field_cases[_i].want,
		      "%s: fields %#x, want %#x among them", field_cases[_i].text, f,
		      field_cases[_i].want);
	ck_assert_msg(!(f & field_cases[_i].not), "%s: fields %#x, want none of %#x",
		      field_cases[_i].text, f, field_cases[_i].not);
	vxt_script_free(s);
}
END_TEST

Suite *script_dlang_suite(void)
{
	Suite *s = suite_create("script_dlang");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_run, 0, sizeof(runs) / sizeof(runs[0]));
	tcase_add_test(tc, test_stddev);
	tcase_add_test(tc, test_unsigned);
	tcase_add_test(tc, test_llquantize);
	tcase_add_test(tc, test_free_string);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_warnings);
	tcase_add_loop_test(tc, test_key_cost, 0, 2);
	tcase_add_loop_test(tc, test_fields, 0, sizeof(field_cases) / sizeof(field_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}
