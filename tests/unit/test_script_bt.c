/* test_script_bt.c - bpftrace programs, event by event and in batches
 *
 * Programs that use every part of the bpftrace front-end (probes of every
 * phase, args and builtins, maps as aggregations and as variables,
 * delete, has_key, clear, zero, print of values and maps, $locals and
 * tuples, if / else, unroll, while (past its bound too), hist(v, k),
 * speculation, time and strftime) run
 * over 500 random sets of overlapping I/O of every phase, through
 * vxt_script_push() and vxt_script_push_many(): every record, the
 * statistics and the exit status must be the same, and each program must
 * print something. And which events each probe fires on, against a count
 * by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../fuzz/script_diff.h"
#include "fixture.h"

/* the random scripts of script_diff.h are not used here */
static int (*const unused_diff)(const uint8_t *, size_t, const struct vxt_objtab *,
				const struct vxt_strtab *, char **) __attribute__((unused)) = diff_engines;

static const char *const programs[] = {
	/* latency by queue time and by the io_start/io_done pair (the forms of
	 * biolatency and biosnoop) */
	"BEGIN { printf(\"queue to completion\\n\"); }\n"
	"t:block:block_bio_queue { @ts[args.sector] = nsecs; }\n"
	"t:block:block_rq_complete, t:block:block_bio_complete /@ts[args.sector]/ {\n"
	"  @lat = hist((nsecs - @ts[args.sector]) / 1000); delete(@ts, args.sector); }\n"
	"END { clear(@ts); }\n",
	"t:block:block_io_start { $k = (args.dev, args.sector);\n"
	"  @t0[$k] = nsecs; @who[$k] = pid; @cmd[$k] = comm; }\n"
	"t:block:block_io_done /has_key(@t0, (args.dev, args.sector))/ {\n"
	"  $k = (args.dev, args.sector);\n"
	"  printf(\"%u %d:%d %s %d %d\\n\", elapsed / 1e6, args.dev >> 20,\n"
	"    args.dev & 0xfffff, @cmd[$k], @who[$k], (nsecs - @t0[$k]) / 1e3);\n"
	"  delete(@t0, $k); delete(@who, $k); delete(@cmd, $k); }\n"
	"END { clear(@t0); clear(@who); clear(@cmd); }\n",
	/* control flow, every aggregating function, rwbs */
	"t:block:block_rq_issue, t:block:block_rq_insert, t:block:block_getrq {\n"
	"  if (args.nr_sector > 8) { @big[comm] = count(); } else if (pid == 101) {\n"
	"    @p = sum(args.nr_sector); } else { @s = stats(args.sector); }\n"
	"  @l = lhist(args.sector, 0, 32, 8); @mx[args.rwbs] = max(args.sector);\n"
	"  @mn = min(args.sector); @av[cpu] = avg(args.nr_sector);\n"
	"  $i = 0; unroll (3) { $i++; } while ($i < 7) { $i += 2; } @loops = sum($i);\n"
	"  @hk[args.rwbs] = hist(args.sector * 37, 3); @hb = hist(args.nr_sector - 4, 1);\n"
	"  $j = 0; while ($j < args.nr_sector + 2) { $j++; } @past = count();\n"
	"  if (pid == 102) { return; } @after = count(); }\n"
	"tracepoint:block:block_rq_requeue { @rq++; print(@rq); print(comm); }\n"
	"interval:ms:20 { print(@big, 2); print(@mx); zero(@big); clear(@l); time(\"%H:%M:%S\\n\"); }\n"
	"END { printf(\"%s\\n\", strftime(\"%Y-%m-%d %H:%M\", nsecs)); }\n",
	/* speculation, keyed by request */
	"config = { nspec = 8; specsize = 4096 }\n"
	"kprobe:blk_mq_start_request { $s = speculation(); @spec[arg0] = $s; speculate($s);\n"
	"  printf(\"issue %d\\n\", arg0); }\n"
	"kprobe:blk_account_io_done /@spec[arg0]/ { $s = @spec[arg0]; delete(@spec[arg0]);\n"
	"  if (args->rq != 0 && @spec[arg0] == 0) { speculate($s); printf(\"done %d\\n\", pid);\n"
	"    commit($s); } else { discard($s); } }\n"
	"tracepoint:block:block_rq_error { @err[args.error] = count(); exit(); }\n",
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint8_t rnd8(void)
{
	return (uint8_t)(ut_rand(&rng) >> 24);
}

static int run(const char *text, const struct vxt_event *ev, size_t n,
	       const struct vxt_objtab *objs, const struct vxt_strtab *strs, bool many,
	       struct diff_text *out)
{
	struct vxt_script_stats st;
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s = vxt_script_compile(text, strlen(text), "t.bt", NULL, 0, err);
	int code = 0;

	ck_assert_msg(s != NULL, "%s", err);
	vxt_script_set_wall_offset(s, 0);
	if (vxt_script_start(s, objs, strs, diff_sink, out) == 0) {
		if (many)
			vxt_script_push_many(s, ev, n, 0, NULL);
		else
			for (size_t i = 0; i < n && !vxt_script_exited(s, NULL); i++)
				if (vxt_script_push(s, &ev[i], i) < 0)
					break;
		vxt_script_end(s);
	}
	vxt_script_get_stats(s, &st);
	vxt_script_exited(s, &code);
	put(out, "exit %d records %llu opened %llu committed %llu discarded %llu failed %llu "
	    "dyn %llu errors %llu\n", code, (unsigned long long)st.records,
	    (unsigned long long)st.opened, (unsigned long long)st.committed,
	    (unsigned long long)st.discarded, (unsigned long long)st.failed_unavail,
	    (unsigned long long)st.dyn_drops, (unsigned long long)st.errors);
	vxt_script_free(s);
	return 0;
}

START_TEST(test_batches_agree_on_bpftrace)
{
	static const char *const names[] = { "sda", "sdb1", "dm-0" };
	static const char *const comms[] = { "fio", "kworker/u8:2", "dd" };
	static const uint8_t other[] = { VXT_PH_GETRQ, VXT_PH_INSERT, VXT_PH_MERGE, VXT_PH_PLUG };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	size_t printed[sizeof(programs) / sizeof(programs[0])] = { 0 };
	uint8_t bytes[1024];

	ck_assert(objs && strs);
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
	for (unsigned k = 0; k < 500; k++) {
		struct diff_bytes b = { .p = bytes, .n = sizeof(bytes) };
		struct vxt_event ev[200];
		size_t n;

		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = rnd8();
		n = diff_events(&b, ev, 200);
		for (size_t i = 0; i < n; i++) {	/* every phase, flags for rwbs */
			if (ev[i].phase == VXT_PH_QUEUE && rnd8() % 2)
				ev[i].phase = other[rnd8() % 4];
			ev[i].flags = rnd8() & 0x7f;	/* VXT_F_BIO too */
			ev[i].bytes = 512u * (1 + rnd8() % 32);
		}
		for (size_t p = 0; p < sizeof(programs) / sizeof(programs[0]); p++) {
			struct diff_text a = { .cap = 1 << 20 }, w = { .cap = 1 << 20 };

			a.s = calloc(1, a.cap);
			w.s = calloc(1, w.cap);
			ck_assert(a.s && w.s);
			run(programs[p], ev, n, objs, strs, false, &a);
			run(programs[p], ev, n, objs, strs, true, &w);
			if (a.n != w.n || memcmp(a.s, w.s, a.n))
				ck_abort_msg("program %zu, events %u: the runs differ:\n--- one by one\n"
					     "%s--- in a batch\n%s", p, k, a.s, w.s);
			printed[p] += a.n;
			free(a.s);
			free(w.s);
		}
	}
	for (size_t p = 0; p < sizeof(programs) / sizeof(programs[0]); p++)
		ck_assert_msg(printed[p] > 500 * 100, "program %zu printed %zu bytes", p, printed[p]);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

static int collect(void *arg, const struct vxt_script_rec *r)
{
	put(arg, "%.*s", (int)r->len, r->text);
	return 0;
}

/* Which events each probe fires on, counted by hand: a queue, a
 * bio-based device's issue and completion (VXT_F_BIO: no request probe
 * fires on them), a request's issue, completion and failed completion, a
 * getrq, an insert, a merge. A block of several probes runs once per probe
 * that fires (@[probe]), probes the kernel fires one of (a back or front
 * merge, a kprobe's two names) once. */
START_TEST(test_probes_fire_on_their_events)
{
	static const struct { uint8_t phase; uint16_t flags; int32_t error; } evs[] = {
		{ VXT_PH_QUEUE, 0, 0 }, { VXT_PH_START, VXT_F_BIO, 0 },
		{ VXT_PH_DONE, VXT_F_BIO, 0 }, { VXT_PH_GETRQ, 0, 0 },
		{ VXT_PH_INSERT, 0, 0 }, { VXT_PH_START, 0, 0 }, { VXT_PH_DONE, 0, 0 },
		{ VXT_PH_START, 0, 0 }, { VXT_PH_DONE, 0, -5 }, { VXT_PH_MERGE, 0, 0 },
	};
	static const char text[] =
		"tracepoint:block:block_bio_queue { @q = count(); }\n"
		"tracepoint:block:block_bio_complete { @bc = count(); }\n"
		"tracepoint:block:block_rq_complete { @rc = count(); }\n"
		"tracepoint:block:block_rq_issue { @ri = count(); }\n"
		"t:block:block_getrq, t:block:block_rq_insert { @gi = count(); }\n"
		"tracepoint:block:block_rq_error { @e = count(); }\n"
		"kprobe:blk_account_io_start { @as = count(); }\n"
		"tracepoint:block:block_rq_issue, tracepoint:block:block_rq_error { @ie = count(); }\n"
		"t:block:block_rq_complete, t:block:block_rq_error, t:block:block_io_done,\n"
		"  t:block:block_bio_complete { @p[probe] = count(); }\n"
		"t:block:block_bio_backmerge, t:block:block_bio_frontmerge { @m[probe] = count(); }\n"
		"kprobe:blk_account_io_done, kprobe:__blk_account_io_done { @ad = count(); }\n";
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct diff_text out = { .cap = 1 << 16 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s = vxt_script_compile(text, sizeof(text) - 1, "p.bt", NULL, 0, err);

	ck_assert_msg(s != NULL, "%s", err);
	ck_assert(objs && strs && (out.s = calloc(1, out.cap)));
	vxt_objtab_add(objs, 8 << 20, "sda", vxt_obj_kind_guess("sda"), 1 << 30);
	ck_assert_int_eq(vxt_script_start(s, objs, strs, collect, &out), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct vxt_event e = { .time_ns = 1000 + i, .phase = evs[i].phase,
				       .flags = evs[i].flags, .error = evs[i].error,
				       .sector = 8 * i, .bytes = 4096 };

		ck_assert_int_eq(vxt_script_push(s, &e, i), 0);
	}
	ck_assert_int_eq(vxt_script_end(s), 0);
	ck_assert_str_eq(out.s, "Attaching 17 probes...\n\n\n"
			 "@ad: 2\n@as: 1\n@bc: 1\n@e: 1\n@gi: 2\n@ie: 3\n"
			 "@m[tracepoint:block:block_bio_backmerge]: 1\n"
			 "@p[tracepoint:block:block_bio_complete]: 1\n"
			 "@p[tracepoint:block:block_rq_error]: 1\n"
			 "@p[tracepoint:block:block_io_done]: 2\n"
			 "@p[tracepoint:block:block_rq_complete]: 2\n"
			 "@q: 2\n@rc: 2\n@ri: 2\n");
	free(out.s);
	vxt_script_free(s);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *script_bt_suite(void)
{
	Suite *s = suite_create("script_bt");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_batches_agree_on_bpftrace);
	tcase_add_test(tc, test_probes_fire_on_their_events);
	suite_add_tcase(s, tc);
	return s;
}
