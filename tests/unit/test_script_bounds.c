/* test_script_bounds.c - what bounds a script's memory, against brute force
 *
 * dynvarsize (associative arrays, req-> of I/Os in flight), aggsize
 * (aggregation keys) and bufsize (output held back by a speculation that
 * never ends) on random overlapping I/O: what is kept and the drop counters
 * are compared with a reference computed here by counting, with the
 * capacity given in entries; and what aggsize charges is compared with the
 * heap the aggregations really take, measured with mallinfo2().
 */
#include <check.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/vxtrace.h"
#include "fixture.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

/* @nio I/Os, each a start and a done, up to @depth in flight; sectors unique. */
static struct vxt_event *stream(size_t nio, unsigned depth, size_t *n)
{
	struct vxt_event *ev = calloc(2 * nio, sizeof(*ev));
	size_t *open = calloc(depth, sizeof(*open)), nopen = 0, k = 0;
	uint64_t t = 1000;

	ck_assert_ptr_nonnull(ev);
	ck_assert_ptr_nonnull(open);
	for (size_t i = 0; i < nio || nopen; t += 10) {
		if (i < nio && nopen < depth && (nopen == 0 || rnd() % 2)) {
			struct vxt_event *e = &ev[k];

			e->time_ns = t;
			e->phase = VXT_PH_START;
			e->pid = 1 + (uint32_t)(rnd() % 5);
			e->sector = 1000 + i * 8;
			e->bytes = 4096;
			open[nopen++] = k++;
			i++;
		} else {
			size_t j = rnd() % nopen;

			ev[k] = ev[open[j]];
			ev[k].time_ns = t;
			ev[k].phase = VXT_PH_DONE;
			ev[k].latency_ns = t - ev[open[j]].time_ns;
			k++;
			open[j] = open[--nopen];
		}
	}
	free(open);
	*n = k;
	return ev;
}

static struct vxt_script *run_script(const char *text, const char *xopt,
				     const struct vxt_event *ev, size_t n, struct ut_script_out *u,
				     struct vxt_script_stats *st)
{
	char err[VXT_ERRBUF_SIZE];
	const char *x[] = { xopt };
	struct vxt_script *s = vxt_script_compile(text, strlen(text), "t.d", x, 1, err);

	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, u), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vxt_script_push(s, &ev[i], i), 0);
	ck_assert_int_eq(vxt_script_end(s), 0);
	vxt_script_get_stats(s, st);
	return s;
}

static bool in_set(const uint64_t *set, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

static void set_remove(uint64_t *set, size_t *n, uint64_t v)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == v) {
			set[i] = set[--*n];
			return;
		}
}

/* @text, its memory bounded by @xopt, on random I/O up to 64 in flight,
 * keeps an entry per I/O in flight, at most @cap of them: its drops and the
 * events it records are those of the reference counted here. @st: its
 * statistics. @return the drops. */
static size_t check_in_flight(const char *text, const char *xopt, unsigned cap,
			      struct vxt_script_stats *st)
{
	size_t n, live = 0, nref = 0, drops = 0;
	struct vxt_event *ev = stream(3000, 64, &n);
	uint64_t *set = calloc(n, sizeof(*set)), *ref = calloc(n, sizeof(*ref));
	struct vxt_script *s;
	struct ut_script_out u = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (ev[i].phase == VXT_PH_START) {
			if (live < cap)
				set[live++] = ev[i].sector;
			else
				drops++;
		} else if (in_set(set, live, ev[i].sector)) {
			ref[nref++] = i;
			set_remove(set, &live, ev[i].sector);
		}
	}
	s = run_script(text, xopt, ev, n, &u, st);
	ck_assert_uint_eq(st->dyn_drops, drops);
	ck_assert_uint_eq(u.n, nref);
	for (size_t i = 0; i < nref; i++)
		ck_assert_uint_eq(u.ord[i], ref[i]);
	vxt_script_free(s);
	ut_script_out_free(&u);
	free(set);
	free(ref);
	free(ev);
	return drops;
}

/* An associative array entry per I/O in flight, at most @cap of them. */
START_TEST(test_dynvar_array)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::start { a[sector] = timestamp; }\n"
		"io:::done /a[sector]/ { trace(latency); a[sector] = 0; }\n";
	static const unsigned caps[] = { 1, 7, 40, 1000 };
	unsigned cap = caps[_i];
	struct vxt_script_stats st;
	size_t drops;
	char x[64];

	snprintf(x, sizeof(x), "dynvarsize=%zu", (size_t)cap * S_ARRAY_ENTRY_SIZE(1));
	drops = check_in_flight(text, x, cap, &st);
	ck_assert_uint_le(st.peak_dyn_bytes, (uint64_t)cap * S_ARRAY_ENTRY_SIZE(1));
	if (cap < 64)
		ck_assert_uint_gt(drops, 0);	/* the bound was reached */
}
END_TEST

/* req-> of the I/Os in flight: a request and its value, at most @cap. */
START_TEST(test_dynvar_req)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::start { req->t = timestamp; }\n"
		"io:::done /req->t/ { trace(timestamp - req->t); }\n";
	static const unsigned caps[] = { 1, 5, 33, 1000 };
	unsigned cap = caps[_i];
	size_t one = S_REQ_SIZE + sizeof(struct sdyn) + sizeof(struct script_value);
	struct vxt_script_stats st;
	char x[64];

	snprintf(x, sizeof(x), "dynvarsize=%zu", (size_t)cap * one);
	check_in_flight(text, x, cap, &st);
	ck_assert_uint_eq(st.dyn_bytes, 0);	/* every I/O completed: all given back */
}
END_TEST

/* Aggregation keys: the first @cap distinct sectors get an entry, every
 * event of another sector is an aggregation drop. */
START_TEST(test_aggsize)
{
	static const char text[] = "io:::start, io:::done { @c[sector / 16] = count(); }\n";
	static const unsigned caps[] = { 1, 9, 100, 5000 };
	unsigned cap = caps[_i];
	size_t n, nkeys = 0, drops = 0, got = 0;
	struct vxt_event *ev = stream(2000, 16, &n);
	uint64_t *keys = calloc(n, sizeof(*keys)), *cnt = calloc(n, sizeof(*cnt));
	struct vxt_script_stats st;
	struct vxt_script *s;
	struct ut_script_out u = { 0 };
	struct sagg probe = { .fn = FN_COUNT, .nkeys = 1 };
	char x[64], *line, *save;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = ev[i].sector / 16;
		size_t j;

		for (j = 0; j < nkeys && keys[j] != k; j++)
			;
		if (j == nkeys) {
			if (nkeys == cap) {
				drops++;
				continue;
			}
			keys[nkeys++] = k;
		}
		cnt[j]++;
	}
	snprintf(x, sizeof(x), "aggsize=%zu", (size_t)cap * vxt_sagg_entry_size(&probe));
	s = run_script(text, x, ev, n, &u, &st);
	ck_assert_uint_eq(st.agg_drops, drops);
	ck_assert_ptr_nonnull(u.text);
	for (line = strtok_r(u.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long k, c;
		size_t j;

		if (sscanf(line, "%llu %llu", &k, &c) != 2)
			continue;
		for (j = 0; j < nkeys && keys[j] != k; j++)
			;
		ck_assert_msg(j < nkeys, "key %llu printed, not in the reference", k);
		ck_assert_uint_eq(c, cnt[j]);
		got++;
	}
	ck_assert_uint_eq(got, nkeys);
	vxt_script_free(s);
	ut_script_out_free(&u);
	free(keys);
	free(cnt);
	free(ev);
}
END_TEST

/* The bytes the heap holds now (small and mmap()ed blocks). */
static size_t heap_used(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* Whether heap_used() sees malloc() (not under ASan or valgrind, which have
 * their own allocator). */
static bool heap_measurable(void)
{
	size_t before = heap_used(), after;
	void *p[256];

	for (unsigned i = 0; i < 256; i++)
		p[i] = malloc(1000);
	after = heap_used();
	for (unsigned i = 0; i < 256; i++)
		free(p[i]);
	return after >= before + 256 * 1000;
}

/* aggsize charges at least what aggregations really take: @keys distinct
 * keys (integers; strings of 200 bytes; quantize() of strings) measured on
 * the heap over the run, and not more than three times that. */
START_TEST(test_aggsize_heap)
{
	static const char *const texts[] = {
		"io:::done { @c[sector] = count(); }\n",
		"io:::done { @c[execname] = count(); }\n",
		"io:::done { @c[execname, sector] = quantize(latency); }\n",
	};
	const unsigned keys = 3000;
	const size_t n = 4 * keys;
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event *ev = calloc(n, sizeof(*ev));
	const char *x[] = { "aggsize=1073741824" };
	char err[VXT_ERRBUF_SIZE], name[256];
	struct vxt_script_stats st;
	struct vxt_script *s;
	struct ut_script_out u = { 0 };
	size_t before, used;
	uint32_t *id = calloc(keys, sizeof(*id));

	ck_assert_ptr_nonnull(strs);
	ck_assert_ptr_nonnull(id);
	ck_assert_ptr_nonnull(ev);
	for (unsigned i = 0; i < keys; i++) {
		memset(name, 'a' + i % 26, 200);
		snprintf(name + 200, sizeof(name) - 200, "%u", i);
		int64_t v = vxt_strtab_intern(strs, name, strlen(name));

		ck_assert_int_ge(v, 0);
		id[i] = (uint32_t)v;
	}
	for (size_t i = 0; i < n; i++) {
		ev[i].time_ns = 1000 + i;
		ev[i].phase = VXT_PH_DONE;
		ev[i].sector = i % keys;
		ev[i].comm = id[i % keys];
		ev[i].latency_ns = 1 + i;
	}
	if (!heap_measurable()) {
		fprintf(stderr, "test_aggsize_heap: mallinfo2() does not see this allocator, skipped\n");
		goto out;
	}
	s = vxt_script_compile(texts[_i], strlen(texts[_i]), "t.d", x, 1, err);
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(vxt_script_start(s, NULL, strs, ut_script_sink, &u), 0);
	before = heap_used();
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vxt_script_push(s, &ev[i], i), 0);
	used = heap_used() - before;
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.agg_drops, 0);
	ck_assert_msg(used <= st.mem_bytes, "%s: the heap took %zu bytes, aggsize charged %" PRIu64,
		      texts[_i], used, st.mem_bytes);
	ck_assert_msg(st.mem_bytes <= 3 * used, "%s: aggsize charged %" PRIu64 " for %zu bytes",
		      texts[_i], st.mem_bytes, used);
	vxt_script_free(s);
out:
	ut_script_out_free(&u);
	free(ev);
	free(id);
	vxt_strtab_free(strs);
}
END_TEST

/* A speculation that never ends (pid 9's I/O never completes) holds back the
 * output of everything committed after its first event; at bufsize / 56
 * held events it is discarded (forced) and the output flows again. */
START_TEST(test_held_back)
{
	static const char yaml[] =
		"program: |\n"
		"  #pragma D option bufsize=%u\n"
		"  #pragma D option cleanrate=1000000\n"
		"  io:::start /!self->s/ { self->s = speculation(); }\n"
		"  io:::start, io:::done /self->s/ { speculate(self->s); }\n"
		"  io:::done /self->s/ { commit(self->s); self->s = 0; }\n"
		"  #pragma D option nspec=16\n";
	static const unsigned bounds[] = { 4, 50, 1000 };
	unsigned bound = bounds[_i];
	char text[1024], err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p;
	struct vxt_view *v;
	struct vxt_view_stats st;
	struct vxt_spec_event out;
	size_t n = 0, nout = 0, committed = 0, maxwait = 0;
	struct vxt_event ev[600];

	/* pid 9 starts first and never completes; pids 1..3 do one I/O at a time */
	ev[n++] = (struct vxt_event){ .time_ns = 1, .phase = VXT_PH_START, .pid = 9,
				      .sector = 1, .bytes = 512 };
	for (unsigned i = 0; n + 2 <= sizeof(ev) / sizeof(ev[0]); i++) {
		struct vxt_event e = { .time_ns = 10000 + 2000 * (uint64_t)i, .phase = VXT_PH_START,
				       .pid = 1 + i % 3, .sector = 100 + i, .bytes = 512 };

		ev[n++] = e;
		e.time_ns += 1000;
		e.phase = VXT_PH_DONE;
		ev[n++] = e;
	}
	snprintf(text, sizeof(text), yaml, bound * VXT_SCRIPT_RECORD_SIZE);
	p = vxt_profile_parse(text, strlen(text), "held.yaml", err);
	ck_assert_msg(p != NULL, "%s", err);
	v = vxt_view_new(p, NULL, NULL, NULL, err);
	ck_assert_msg(v != NULL, "%s", err);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(vxt_view_push(v, &ev[i], 1), 0);
		if (i && ev[i].phase == VXT_PH_DONE)
			committed += 2;		/* its start and itself */
		while (vxt_view_next(v, &out) == 1) {
			ck_assert_uint_ne(out.ev.pid, 9);
			nout++;
		}
		if (committed - nout > maxwait)
			maxwait = committed - nout;
	}
	vxt_view_finish(v);
	while (vxt_view_next(v, &out) == 1)
		nout++;
	vxt_view_get_stats(v, &st);
	ck_assert_uint_eq(nout, committed);	/* the forced discard lost only pid 9 */
	ck_assert_uint_le(maxwait, bound);
	ck_assert_uint_eq(st.spec.forced, committed > bound ? 1 : 0);
	ck_assert_uint_eq(st.spec.eof_discarded, committed > bound ? 0 : 1);
	vxt_view_free(v);
	vxt_profile_free(p);
}
END_TEST

Suite *script_bounds_suite(void)
{
	Suite *s = suite_create("script_bounds");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_dynvar_array, 0, 4);
	tcase_add_loop_test(tc, test_dynvar_req, 0, 4);
	tcase_add_loop_test(tc, test_aggsize, 0, 4);
	tcase_add_loop_test(tc, test_aggsize_heap, 0, 3);
	tcase_add_loop_test(tc, test_held_back, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
