/* test_filter_kernel.c - the part of a filter the kernel tests (vxt_filter_kernel)
 *
 * For each filter: which fields the kernel gets, and, over generated events,
 * that the kernel's table (walked here the way the ebpf program must: an
 * unknown comparison goes both ways, only the record's words are known)
 * keeps exactly the events of the kernel part written out by hand, that the
 * whole filter keeps those of its hand-written predicate, and that kernel
 * part AND user part == the whole filter (the kernel never drops an event
 * the filter keeps). Filters the kernel's table cannot take (interval
 * fields, too many comparisons) get -1. The table is read off the
 * program's ops: a D predicate of the same meaning, compiled by the script
 * compiler into a program of the filter's shape, gets the same table, and
 * an op outside the kernel's subset keeps a program in user space.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "script/compile_impl.h"
#include "select/filter_impl.h"
#include "vxtrace/vxtrace.h"

static struct vxt_objtab *objs;
static struct vxt_strtab *strs;
static uint32_t o_sda, o_sdb, c_fio, c_dd;

static void setup(void)
{
	objs = vxt_objtab_new();
	strs = vxt_strtab_new();
	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	o_sda = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	o_sdb = (uint32_t)vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	c_fio = (uint32_t)vxt_strtab_intern(strs, "fio", 3);
	c_dd = (uint32_t)vxt_strtab_intern(strs, "dd", 2);
}

static void teardown(void)
{
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

/* ---- the reference predicates, on the event's fields ---- */

typedef bool (*pred)(const struct vxt_event *e);

#define MS 1000000ull
static bool p_true(const struct vxt_event *e) { (void)e; return true; }
static bool p_read(const struct vxt_event *e) { return e->op == VXT_OP_READ; }
static bool p_write_big(const struct vxt_event *e)
{
	return e->op == VXT_OP_WRITE && e->bytes >= 65536;
}
static bool p_slow(const struct vxt_event *e) { return e->latency_ns > MS; }
static bool p_fio(const struct vxt_event *e) { return e->comm == c_fio; }
static bool p_slow_fio(const struct vxt_event *e) { return p_slow(e) && p_fio(e); }
static bool p_read_or_fio(const struct vxt_event *e) { return p_read(e) || p_fio(e); }
static bool p_low(const struct vxt_event *e) { return e->sector < 2048; }
static bool p_sda(const struct vxt_event *e) { return e->object == o_sda; }
static bool p_sda_low(const struct vxt_event *e) { return p_sda(e) && p_low(e); }
static bool p_enospc_done(const struct vxt_event *e)
{
	return e->error == -28 && e->phase == VXT_PH_DONE;
}
static bool p_failed(const struct vxt_event *e) { return e->error != 0; }
static bool p_eio_up(const struct vxt_event *e) { return e->error != 0 && -e->error > 5; }
static bool p_failed_eio_up(const struct vxt_event *e) { return p_failed(e) && p_eio_up(e); }
static bool p_pid_cpu(const struct vxt_event *e)
{
	return (e->pid == 1 || e->pid == 4242) && e->cpu == 1;
}
static bool p_late(const struct vxt_event *e) { return e->time_ns > 1000 * MS; }
static bool p_late_read(const struct vxt_event *e) { return p_late(e) && p_read(e); }
static bool p_not_read4k(const struct vxt_event *e)
{
	return !(e->op == VXT_OP_READ && e->bytes == 4096);
}
static bool p_fua_flags(const struct vxt_event *e)
{
	return (e->flags & VXT_F_FUA) && !(e->flags & VXT_F_SYNC);
}
static bool p_far_or_flush(const struct vxt_event *e)
{
	return e->sector > 1000000 || (e->op == VXT_OP_FLUSH && !(e->flags & VXT_F_FUA));
}
static bool p_mixed(const struct vxt_event *e)
{
	return (e->op == VXT_OP_WRITE || e->object == o_sdb) && e->bytes <= 8192;
}
static bool p_k_mixed(const struct vxt_event *e) { return e->bytes <= 8192; }
static bool p_user_mixed(const struct vxt_event *e)
{
	return e->op == VXT_OP_WRITE || e->object == o_sdb;
}
static bool p_dd_or_fio_start(const struct vxt_event *e)
{
	return (e->comm == c_dd || e->comm == c_fio) && e->phase == VXT_PH_START;
}
static bool p_dev_or_late(const struct vxt_event *e) { return p_sda(e) || p_late(e); }
static bool p_start(const struct vxt_event *e) { return e->phase == VXT_PH_START; }
static bool p_dd_or_fio(const struct vxt_event *e) { return e->comm == c_dd || e->comm == c_fio; }

struct kcase {
	const char *expr;
	int want;		/* vxt_filter_kernel()'s result */
	const char *fields;	/* the kernel's fields */
	pred full, kpart, upart;	/* the filter; its kernel part; what user space adds */
};

static const struct kcase cases[] = {
	{ "op == read", 1, "op", p_read, p_read, p_true },
	{ "op == write && bytes >= 64k", 2, "op, bytes", p_write_big, p_write_big, p_true },
	{ "latency > 1ms && comm == fio", 1, "latency", p_slow_fio, p_slow, p_fio },
	/* a name on one side of || : the kernel can keep nothing back */
	{ "op == read || comm == fio", 1, "op", p_read_or_fio, p_true, p_read_or_fio },
	{ "object == sda && sector < 2048", 1, "sector", p_sda_low, p_low, p_sda },
	{ "error == ENOSPC && phase == done", 2, "error, phase", p_enospc_done,
	  p_enospc_done, p_true },
	/* ordered errno stays in user space, error != 0 goes to the kernel */
	{ "error != 0 && error > EIO", 1, "error", p_failed_eio_up, p_failed, p_eio_up },
	{ "pid in (1, 4242) && cpu == 1", 3, "pid, cpu", p_pid_cpu, p_pid_cpu, p_true },
	{ "time > 1s && op == read", 1, "op", p_late_read, p_read, p_late },
	{ "!(op == read && bytes == 4k)", 2, "op, bytes", p_not_read4k, p_not_read4k, p_true },
	{ "flags == fua && flags != sync", 2, "flags", p_fua_flags, p_fua_flags, p_true },
	{ "sector > 1000000 || (op == flush && flags != fua)", 3, "sector, op, flags",
	  p_far_or_flush, p_far_or_flush, p_true },
	{ "(op == write || object == sdb) && bytes <= 8k", 2, "op, bytes", p_mixed,
	  p_k_mixed, p_user_mixed },
	{ "comm in (dd, fio) && phase == start", 1, "phase", p_dd_or_fio_start, p_start,
	  p_dd_or_fio },
	/* nothing the kernel can compute */
	{ "object == sda", 0, "", p_sda, p_true, p_sda },
	{ "dev == 8:0 || time > 1s", 0, "", p_dev_or_late, p_true, p_dev_or_late },
	{ "true", 0, "", p_true, p_true, p_true },
};

/* ---- the kernel's side, walked independently ---- */

/* The words the ebpf program builds from its record: those of struct
 * vxt_event, with the object and the command unknown (0). */
static void kernel_words(const struct vxt_event *e, uint64_t w[6])
{
	struct vxt_event k = *e;

	k.object = 0;
	k.comm = 0;
	memcpy(w, &k, 6 * sizeof(uint64_t));
}

/* Is there a way from test @at to ACCEPT, an unknown test going both ways? */
static bool kernel_keeps(const struct vxt_kfilter *k, uint16_t at, const uint64_t w[6])
{
	const struct vxt_kfilter_test *t;
	uint64_t x;

	if (at == VXT_KFILTER_ACCEPT)
		return true;
	if (at == VXT_KFILTER_REJECT)
		return false;
	ck_assert_uint_lt(at, k->n);
	t = &k->test[at];
	/* the kernel's table only jumps forward: its program is a loop */
	ck_assert(t->t == VXT_KFILTER_ACCEPT || t->t == VXT_KFILTER_REJECT || t->t > at);
	ck_assert(t->f == VXT_KFILTER_ACCEPT || t->f == VXT_KFILTER_REJECT || t->f > at);
	if (!t->known)
		return kernel_keeps(k, t->t, w) || kernel_keeps(k, t->f, w);
	ck_assert_uint_lt(t->word, 6);
	ck_assert_uint_lt(t->shift, 64);
	x = (w[t->word] >> t->shift) & t->mask;
	return kernel_keeps(k, x - t->lo <= t->span ? t->t : t->f, w);
}

/* ---- generated events: values on and around every constant above ---- */

static uint64_t pick(unsigned *seed, const uint64_t *v, size_t n)
{
	return v[(unsigned)rand_r(seed) % n];
}

#define PICK(s, a) pick(s, a, sizeof(a) / sizeof(a[0]))

static struct vxt_event gen_event(unsigned *seed)
{
	static const uint64_t sectors[] = { 0, 1, 2047, 2048, 2049, 999999, 1000000,
					    1000001, 1ull << 40, 1ull << 63, UINT64_MAX - 1 };
	static const uint64_t bytes[] = { 512, 4095, 4096, 4097, 8192, 8193, 65535, 65536,
					  1u << 20 };
	static const uint64_t lats[] = { 0, 1, MS - 1, MS, MS + 1, 50 * MS, 1ull << 63 };
	static const uint64_t errs[] = { 0, 0, 5, 28, 4, 6, 61, 95 };
	static const uint64_t pids[] = { 1, 2, 4242, 4243, 0x10001 };
	static const uint64_t times[] = { 0, 999 * MS, 1000 * MS, 1001 * MS, 90000 * MS };
	struct vxt_event e = { 0 };

	e.time_ns = PICK(seed, times);
	e.sector = PICK(seed, sectors);
	e.latency_ns = PICK(seed, lats);
	e.bytes = (uint32_t)PICK(seed, bytes);
	e.object = rand_r(seed) & 1 ? o_sda : o_sdb;
	e.pid = (uint32_t)PICK(seed, pids);
	e.comm = (uint32_t[]){ 0, c_fio, c_dd }[rand_r(seed) % 3];
	e.flags = (uint16_t)(rand_r(seed) & 0x7f);
	e.cpu = (uint16_t)(rand_r(seed) % 4);
	e.error = (int16_t)-(int64_t)PICK(seed, errs);
	e.phase = (uint8_t)(rand_r(seed) % 3);	/* what the kernel's records carry */
	e.op = (uint8_t)(rand_r(seed) % VXT_OP_COUNT);
	return e;
}

START_TEST(test_cases)
{
	const struct kcase *c = &cases[_i];
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(c->expr, objs, strs, err);
	struct vxt_kfilter k;
	unsigned seed = 12345u + (unsigned)_i, kept = 0, dropped = 0;
	int n;

	ck_assert_msg(f != NULL, "%s: %s", c->expr, err);
	n = vxt_filter_kernel(f, &k);
	ck_assert_msg(n == c->want, "%s: kernel tests %d, expected %d", c->expr, n, c->want);
	ck_assert_msg(!strcmp(k.fields, c->fields), "%s: kernel fields '%s', expected '%s'",
		      c->expr, k.fields, c->fields);
	ck_assert_uint_eq(k.nknown, (unsigned)n);
	ck_assert_uint_eq(k.n, vxt_filter_ntests(f));
	for (int i = 0; i < 20000; i++) {
		struct vxt_event e = gen_event(&seed);
		uint64_t w[6];
		bool full = vxt_filter_matches(f, &e), kern;

		kernel_words(&e, w);
		kern = kernel_keeps(&k, k.entry, w);
		ck_assert_msg(full == c->full(&e), "%s: filter says %d on event %d",
			      c->expr, full, i);
		ck_assert_msg(kern == c->kpart(&e), "%s: the kernel says %d on event %d "
			      "(op %u bytes %u sector %llu error %d phase %u flags %#x)",
			      c->expr, kern, i, e.op, e.bytes, (unsigned long long)e.sector,
			      e.error, e.phase, e.flags);
		ck_assert_msg(!full || kern, "%s: the kernel drops event %d the filter keeps",
			      c->expr, i);
		ck_assert_msg((kern && c->upart(&e)) == full,
			      "%s: kernel part && user part != filter on event %d", c->expr, i);
		if (kern)
			kept++;
		else
			dropped++;
	}
	/* the generated events reach both outcomes of every kernel part */
	ck_assert_msg(kept > 0, "%s: no event kept", c->expr);
	if (c->kpart != p_true)
		ck_assert_msg(dropped > 0, "%s: no event kept back", c->expr);
	vxt_filter_free(f);
}
END_TEST

/* What the kernel's table cannot take: the filter stays whole in user space. */
START_TEST(test_not_for_kernel)
{
	static const char *const exprs[] = {
		"d2c > 1ms",
		"op == read && q2c > 10ms",
		/* 17 comparisons, more than the kernel's table holds */
		"pid in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)",
	};
	char err[VXT_ERRBUF_SIZE];
	struct vxt_kfilter k;

	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		struct vxt_filter *f = vxt_filter_compile(exprs[i], objs, strs, err);

		ck_assert_msg(f != NULL, "%s: %s", exprs[i], err);
		ck_assert_msg(vxt_filter_kernel(f, &k) == -1, "%s: given to the kernel",
			      exprs[i]);
		vxt_filter_free(f);
	}
	/* 16 comparisons fit */
	{
		struct vxt_filter *f = vxt_filter_compile("pid in (1, 2, 3, 4, 5, 6, 7, 8, 9, "
							  "10, 11, 12, 13, 14, 15, 16)",
							  objs, strs, err);

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(vxt_filter_kernel(f, &k), VXT_KFILTER_TESTS);
		ck_assert_str_eq(k.fields, "pid");
		vxt_filter_free(f);
	}
}
END_TEST

/* ---- the table is the ops': the same from a D predicate ---- */

/* D predicate @predicate (an io:::done clause's) compiled as a filter program
 * is: its jumps, then return 1, return 0 where they go. */
static struct vxt_program *d_program(const char *predicate, struct vxt_script **sp)
{
	char text[256], err[VXT_ERRBUF_SIZE];
	struct vxt_program *p = calloc(1, sizeof(*p));
	struct compiler c = { .p = p, .has_event = true, .next_reg = 1 };
	int64_t no = NO_FIXUP;

	snprintf(text, sizeof(text), "io:::done /%s/ { }", predicate);
	*sp = vxt_script_compile(text, strlen(text), "t.d", NULL, 0, err);
	ck_assert_msg(*sp != NULL, "%s: %s", predicate, err);
	ck_assert_ptr_nonnull(p);
	c.s = *sp;
	p->nregs = 1;
	vxt_cc_test(&c, (*sp)->cl[0].pred, false, &no);
	vxt_cc_emit(&c, VXT_INSN_RETURN, 0, 0, 0, 1);
	vxt_cc_patch(&c, no, vxt_cc_here(&c));
	vxt_cc_emit(&c, VXT_INSN_RETURN, 0, 0, 0, 0);
	ck_assert_int_eq(c.rc, 0);
	return p;
}

/* The ops of @a and @b, operand for operand (a string by its text). */
static bool same_ops(const struct vxt_program *a, const struct vxt_program *b)
{
	if (a->nops != b->nops)
		return false;
	for (unsigned i = 0; i < a->nops; i++) {
		const struct vxt_insn *x = &a->ops[i], *y = &b->ops[i];

		if (x->code != y->code || x->dst != y->dst || x->a != y->a || x->b != y->b ||
		    (x->code == VXT_INSN_STR ?
		     strcmp((const char *)(intptr_t)x->imm, (const char *)(intptr_t)y->imm) :
		     x->imm != y->imm))
			return false;
	}
	return true;
}

static void assert_same_table(const char *what, const struct vxt_kfilter *a,
			      const struct vxt_kfilter *b)
{
	ck_assert_msg(a->entry == b->entry && a->n == b->n && a->nknown == b->nknown,
		      "%s: entry %u/%u, %u/%u tests, %u/%u known", what, a->entry, b->entry,
		      a->n, b->n, a->nknown, b->nknown);
	ck_assert_str_eq(a->fields, b->fields);
	for (unsigned j = 0; j < a->n; j++) {
		const struct vxt_kfilter_test *x = &a->test[j], *y = &b->test[j];

		ck_assert_msg(x->known == y->known && x->t == y->t && x->f == y->f &&
			      (!x->known || (x->word == y->word && x->shift == y->shift &&
					     x->mask == y->mask && x->lo == y->lo &&
					     x->span == y->span)),
			      "%s: test %u differs", what, j);
	}
}

/* A filter and a D predicate of the same meaning; @same: their ops too. */
static const struct {
	const char *filter, *d;
	bool same;
	int want;
} twins[] = {
	{ "bytes >= 64k && latency > 1ms", "!(bytes < 65536) && !(latency <= 1000000)", true, 2 },
	/* ge, jump_unless where the filter has lt, jump_if */
	{ "bytes >= 64k && latency > 1ms", "bytes >= 65536 && latency > 1000000", false, 2 },
	{ "pid == 1 || cpu != 2", "pid == 1 || !(cpu == 2)", true, 2 },
	{ "pid == 1 || cpu != 2", "pid == 1 || cpu != 2", false, 2 },
	{ "error != 0 && sector < 2048", "error && sector < 2048", true, 2 },
	/* op and phase by name: raw_eq of the code in both */
	{ "op == write && bytes <= 8k", "op == \"write\" && bytes <= 8192", true, 2 },
	{ "flags == fua || phase == done", "(flags & 2) || phase == \"done\"", true, 2 },
	{ "comm == fio && bytes > 4k", "execname == \"fio\" && bytes > 4096", false, 1 },
};

START_TEST(test_d_predicate)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(twins[_i].filter, objs, strs, err);
	struct vxt_kfilter kf, kd;
	struct vxt_script *s;
	struct vxt_program *p;
	int n;

	ck_assert_msg(f != NULL, "%s: %s", twins[_i].filter, err);
	p = d_program(twins[_i].d, &s);
	ck_assert_msg(same_ops(f->prog[0], p) == twins[_i].same, "%s: ops %s",
		      twins[_i].filter, twins[_i].same ? "differ" : "the same");
	n = vxt_filter_kernel(f, &kf);
	ck_assert_msg(n == twins[_i].want, "%s: %d kernel tests", twins[_i].filter, n);
	ck_assert_int_eq(vxt_program_kfilter(p, &kd), n);
	assert_same_table(twins[_i].d, &kf, &kd);
	vxt_program_free(p);
	vxt_script_free(s);
	vxt_filter_free(f);
}
END_TEST

/* One op outside the kernel's subset, the rest the same: user space. */
START_TEST(test_op_outside)
{
	static const char *const preds[] = {
		"bytes >= 65536 && latency > 1000000",
		"bytes >= 65536 && latency % 1000 > 10",	/* mod: may abandon the clause */
		"bytes >= 65536 && (latency > 1000000 ? 1 : 0)",	/* a jump into a value */
	};
	struct vxt_kfilter k;

	for (size_t i = 0; i < sizeof(preds) / sizeof(preds[0]); i++) {
		struct vxt_script *s;
		struct vxt_program *p = d_program(preds[i], &s);
		int n = vxt_program_kfilter(p, &k);

		ck_assert_msg(n == (i ? -1 : 2), "%s: %d kernel tests", preds[i], n);
		if (i)
			ck_assert_msg(k.n == 0 && !k.fields[0], "%s: a table left", preds[i]);
		vxt_program_free(p);
		vxt_script_free(s);
	}
}
END_TEST

Suite *filter_kernel_suite(void)
{
	Suite *s = suite_create("filter_kernel");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_not_for_kernel);
	tcase_add_loop_test(tc, test_d_predicate, 0, (int)(sizeof(twins) / sizeof(twins[0])));
	tcase_add_test(tc, test_op_outside);
	suite_add_tcase(s, tc);
	return s;
}
