/* test_spec.c - a profile's speculation rules (compiled to the script engine)
 * against brute force, and their D rules
 * Over 700 lines: one brute-force reference serves every rule's case, so they stay in one file.
 *
 * Random streams of I/Os (starts and completions, some failing, some slow)
 * go through the engine; what it keeps is compared with a reference computed
 * here the naive way, for every key kind and several windows. Exhaustion of
 * nspec and specsize is checked on small hand-made streams, count by count.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

struct stream {
	struct vxt_event *ev;
	size_t n;
};

static int cmp_time(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* keep a start before its own done at equal times */
	return (int)x->phase - (int)y->phase;
}

/* @nio I/Os on @nobj objects by @npid processes; each I/O is a start and a
 * done with the same (object, sector, bytes); unique sectors. */
static struct stream make_stream(size_t nio, unsigned nobj, unsigned npid, unsigned err_pct)
{
	struct stream s = { calloc(2 * nio, sizeof(struct vxt_event)), 2 * nio };
	uint64_t t = 1000000000ull;

	ck_assert_ptr_nonnull(s.ev);
	for (size_t i = 0; i < nio; i++) {
		struct vxt_event *st = &s.ev[2 * i], *dn = &s.ev[2 * i + 1];

		t += rnd() % 4 == 0 ? 0 : rnd() % 400000;	/* ties happen */
		st->time_ns = t;
		st->object = (uint32_t)(rnd() % nobj);
		st->pid = 1 + (uint32_t)(rnd() % npid);
		st->sector = i * 64 + rnd() % 8;
		st->bytes = 4096u << (rnd() % 4);
		st->op = (uint8_t)(rnd() % 2);
		st->phase = VXT_PH_START;
		*dn = *st;
		dn->phase = VXT_PH_DONE;
		dn->latency_ns = rnd() % 5000000;
		dn->time_ns = t + dn->latency_ns;
		if (rnd() % 100 < err_pct)
			dn->error = -5;
	}
	qsort(s.ev, s.n, sizeof(*s.ev), cmp_time);
	return s;
}

static bool same_key(unsigned key, const struct vxt_event *a, const struct vxt_event *b)
{
	switch (key) {
	case VXT_SPEC_KEY_PID:
		return a->pid == b->pid;
	case VXT_SPEC_KEY_OBJECT_PID:
		return a->object == b->object && a->pid == b->pid;
	case VXT_SPEC_KEY_REQUEST:
		return a->object == b->object && a->sector == b->sector && a->bytes == b->bytes;
	default:
		return a->object == b->object;
	}
}

/* The reference: event i is kept when some trigger j on the same key has
 * t_j - before <= t_i <= t_j + after. */
static bool *reference(const struct stream *s, unsigned key, uint64_t before, uint64_t after,
		       bool (*trigger)(const struct vxt_event *))
{
	bool *keep = calloc(s->n, sizeof(bool));

	for (size_t j = 0; j < s->n; j++) {
		const struct vxt_event *tj = &s->ev[j];

		if (!trigger(tj))
			continue;
		for (size_t i = 0; i < s->n; i++) {
			const struct vxt_event *ti = &s->ev[i];

			if (same_key(key, ti, tj) && ti->time_ns + before >= tj->time_ns &&
			    ti->time_ns <= tj->time_ns + after)
				keep[i] = true;
		}
	}
	return keep;
}

static bool trig_error(const struct vxt_event *ev)
{
	return ev->error != 0;
}

static bool trig_slow(const struct vxt_event *ev)
{
	return ev->latency_ns > 3000000;
}

/* Run @s through @e; out[i] = spec id + 1 of event i, 0 when not kept.
 * Checks that output comes in input order. */
static uint64_t *run(struct vxt_spec *e, const struct stream *s)
{
	uint64_t *out = calloc(s->n, sizeof(uint64_t)), last = 0;
	struct vxt_spec_event o;
	bool first = true;
	size_t nout = 0;

	for (size_t i = 0; i <= s->n; i++) {
		if (i < s->n)
			ck_assert_int_eq(vxt_spec_push(e, &s->ev[i]), 0);
		else
			vxt_spec_finish(e);
		while (vxt_spec_next(e, &o) == 1) {
			ck_assert_uint_lt(o.seq, s->n);
			ck_assert_msg(first || o.seq > last, "out of order: %llu after %llu",
				      (unsigned long long)o.seq, (unsigned long long)last);
			ck_assert(!memcmp(&o.ev, &s->ev[o.seq], sizeof(o.ev)));
			first = false;
			last = o.seq;
			out[o.seq] = o.spec + 1;
			nout++;
		}
	}
	ck_assert_int_eq(vxt_spec_next(e, &o), 0);
	return out;
}

static const struct {
	uint64_t before, after;
} windows[] = {
	{ 0, 0 }, { 1000000, 0 }, { 0, 3000000 }, { 5000000, 2000000 },
	{ 20000000, 500000 }, { 200000000, 50000000 },
};

/* A context engine on triggers @on, keyed by @key, its windows @before and
 * @after around each trigger and, when @counts, @bev and @aev events. */
static struct vxt_spec *new_context(unsigned key, uint64_t before, uint64_t after, const char *on,
				    bool counts, uint32_t bev, uint32_t aev)
{
	struct vxt_spec_config c = { .nspec = 65536, .specsize = 1u << 24 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_spec *e;

	ck_assert_int_eq(vxt_spec_config_context(&c, key, before, after, on), 0);
	if (counts)
		vxt_spec_config_context_events(&c, bev, aev);
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_msg(e != NULL, "%s", err);
	return e;
}

/* Run @s through @e and hold what it keeps against @ref, event by event
 * (@label names the case in a failure): nothing failed or dropped, the
 * count out is what it kept, and the reference keeps something. @st: the
 * engine's statistics. @return out as run() (caller frees). */
static uint64_t *check_against(struct vxt_spec *e, const struct stream *s, const bool *ref,
			       const char *label, struct vxt_spec_stats *st)
{
	uint64_t *out = run(e, s);
	size_t nref = 0, nout = 0;

	for (size_t i = 0; i < s->n; i++) {
		ck_assert_msg(ref[i] == (out[i] != 0),
			      "%s: event %zu (t=%llu obj %u pid %u) engine %d reference %d", label,
			      i, (unsigned long long)s->ev[i].time_ns, s->ev[i].object,
			      s->ev[i].pid, out[i] != 0, ref[i]);
		nref += ref[i];
		nout += out[i] != 0;
	}
	vxt_spec_get_stats(e, st);
	ck_assert_uint_eq(st->failed, 0);
	ck_assert_uint_eq(st->drops, 0);
	ck_assert_uint_eq(st->events_out, nout);
	ck_assert_uint_gt(nref, 0);
	return out;
}

static void context_case(unsigned key, unsigned w, const char *on,
			 bool (*trigger)(const struct vxt_event *))
{
	struct stream s = make_stream(3000, 5, 7, 3);
	struct vxt_spec *e = new_context(key, windows[w].before, windows[w].after, on, false, 0, 0);
	struct vxt_spec_stats st;
	char label[200];
	uint64_t *out;
	bool *ref;

	ref = reference(&s, key, windows[w].before, windows[w].after, trigger);
	snprintf(label, sizeof(label), "key %s window %llu/%llu on %s", vxt_spec_key_name(key),
		 (unsigned long long)windows[w].before, (unsigned long long)windows[w].after, on);
	out = check_against(e, &s, ref, label, &st);
	/* a trigger is kept with the speculation it committed */
	for (size_t i = 0; i < s.n; i++)
		if (trigger(&s.ev[i]))
			ck_assert_uint_gt(out[i], 1);
	ck_assert_uint_eq(st.events_in, s.n);
	ck_assert_uint_eq(st.active, 0);
	vxt_spec_free(e);
	free(out);
	free(ref);
	free(s.ev);
}

START_TEST(test_context_reference)
{
	unsigned key = (unsigned)_i / (sizeof(windows) / sizeof(windows[0]));
	unsigned w = (unsigned)_i % (sizeof(windows) / sizeof(windows[0]));

	context_case(key, w, "error", trig_error);
	context_case(key, w, "latency > 3ms", trig_slow);
}
END_TEST

/* Windows bounded by counts (and times): {before_events, after_events,
 * before_ns, after_ns}; a count with a time of 0 is bounded by the count
 * alone. */
static const struct {
	uint32_t bev, aev;
	uint64_t bns, ans;
} cwindows[] = {
	{ 4, 0, 0, 0 }, { 0, 3, 0, 0 }, { 4, 3, 0, 0 }, { 1, 1, 0, 0 },
	{ 8, 2, 2000000, 1000000 }, { 16, 5, 500000, 0 }, { 3, 0, 0, 3000000 },
	{ 50, 50, 0, 0 }, { 2, 40, 5000000, 400000 },
};

/* The reference: event i is kept when it is a trigger, or some trigger j on
 * the same key has i among the bev events of the key just before j (and
 * t_j - bns <= t_i, unless bns is 0 and bev is not), or among the aev just
 * after it (and t_i <= t_j + ans, unless ans is 0 and aev is not). */
static bool *reference_events(const struct stream *s, unsigned key, unsigned w,
			      bool (*trigger)(const struct vxt_event *))
{
	bool *keep = calloc(s->n, sizeof(bool));
	uint32_t bev = cwindows[w].bev, aev = cwindows[w].aev;
	uint64_t bns = cwindows[w].bns, ans = cwindows[w].ans;

	for (size_t j = 0; j < s->n; j++) {
		const struct vxt_event *tj = &s->ev[j];
		uint32_t rank = 0;

		if (!trigger(tj))
			continue;
		keep[j] = true;
		for (size_t i = j; i-- > 0;) {
			const struct vxt_event *ti = &s->ev[i];

			if (!same_key(key, ti, tj))
				continue;
			if (bev && ++rank > bev)
				break;
			if ((bns || !bev) && ti->time_ns + bns < tj->time_ns)
				break;
			keep[i] = true;
		}
		rank = 0;
		for (size_t i = j + 1; i < s->n; i++) {
			const struct vxt_event *ti = &s->ev[i];

			if (!same_key(key, ti, tj))
				continue;
			if (aev && ++rank > aev)
				break;
			if ((ans || !aev) && ti->time_ns > tj->time_ns + ans)
				break;
			keep[i] = true;
		}
	}
	return keep;
}

static void context_events_case(unsigned key, unsigned w, const char *on,
				bool (*trigger)(const struct vxt_event *))
{
	struct stream s = make_stream(3000, 5, 7, 3);
	struct vxt_spec *e = new_context(key, cwindows[w].bns, cwindows[w].ans, on, true,
					 cwindows[w].bev, cwindows[w].aev);
	struct vxt_spec_stats st;
	char label[200];
	uint64_t *out;
	bool *ref;

	ref = reference_events(&s, key, w, trigger);
	snprintf(label, sizeof(label), "key %s window #%u on %s", vxt_spec_key_name(key), w, on);
	out = check_against(e, &s, ref, label, &st);
	vxt_spec_free(e);
	free(out);
	free(ref);
	free(s.ev);
}

START_TEST(test_context_events_reference)
{
	unsigned key = (unsigned)_i / (sizeof(cwindows) / sizeof(cwindows[0]));
	unsigned w = (unsigned)_i % (sizeof(cwindows) / sizeof(cwindows[0]));

	context_events_case(key, w, "error", trig_error);
	context_events_case(key, w, "latency > 3ms", trig_slow);
}
END_TEST

/* Events of one speculation are grouped under one id, in the order of the
 * committing triggers. */
START_TEST(test_context_groups)
{
	struct vxt_spec_config c = { .nspec = 1024 };
	struct vxt_event ev[] = {
		{ .time_ns = 100, .object = 1 },
		{ .time_ns = 110, .object = 2 },
		{ .time_ns = 120, .object = 1, .phase = VXT_PH_DONE, .error = -5 },
		{ .time_ns = 125, .object = 1 },		/* follows the first trigger */
		{ .time_ns = 130, .object = 2, .phase = VXT_PH_DONE, .error = -5 },
		{ .time_ns = 500, .object = 1 },		/* too late: not kept */
	};
	struct stream s = { ev, sizeof(ev) / sizeof(ev[0]) };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_spec *e;
	uint64_t *out;

	vxt_spec_config_context(&c, VXT_SPEC_KEY_OBJECT, 50, 10, "error");
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_ptr_nonnull(e);
	out = run(e, &s);
	ck_assert_uint_ne(out[0], 0);
	ck_assert_uint_eq(out[0], out[2]);
	ck_assert_uint_eq(out[0], out[3]);
	ck_assert_uint_ne(out[1], 0);
	ck_assert_uint_eq(out[1], out[4]);
	ck_assert_uint_ne(out[0], out[1]);
	ck_assert_uint_eq(out[5], 0);
	free(out);
	vxt_spec_free(e);
}
END_TEST

/* The seed's pattern, per I/O: open on start, speculate on done, commit
 * failures, discard the rest. Kept = both events of every failed I/O. */
START_TEST(test_dtrace_request)
{
	struct vxt_spec_config c = { .key = VXT_SPEC_KEY_REQUEST, .nspec = 4096, .nclauses = 4 };
	char err[VXT_ERRBUF_SIZE];
	struct stream s = make_stream(5000, 4, 4, 5);
	struct vxt_spec_stats st;
	struct vxt_spec *e;
	uint64_t *out, nfail = 0;

	c.clauses[0] = (struct vxt_spec_clause){ .probes = VXT_PROBE_START, .nactions = 2,
		.actions = { VXT_ACT_SPECULATION, VXT_ACT_SPECULATE } };
	c.clauses[1] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE, .predicate = "spec",
		.nactions = 1, .actions = { VXT_ACT_SPECULATE } };
	c.clauses[2] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE,
		.predicate = "spec && error", .nactions = 1, .actions = { VXT_ACT_COMMIT } };
	c.clauses[3] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE,
		.predicate = "spec", .nactions = 1, .actions = { VXT_ACT_DISCARD } };
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_msg(e != NULL, "%s", err);
	out = run(e, &s);
	for (size_t i = 0; i < s.n; i++) {
		bool failed_io = false;

		for (size_t j = 0; j < s.n; j++)
			if (s.ev[j].phase == VXT_PH_DONE && s.ev[j].error &&
			    same_key(VXT_SPEC_KEY_REQUEST, &s.ev[i], &s.ev[j]))
				failed_io = true;
		ck_assert_msg(failed_io == (out[i] != 0), "event %zu", i);
		nfail += s.ev[i].phase == VXT_PH_DONE && s.ev[i].error;
	}
	vxt_spec_get_stats(e, &st);
	ck_assert_uint_eq(st.opened, 5000);
	ck_assert_uint_eq(st.committed, nfail);
	ck_assert_uint_eq(st.discarded, 5000 - nfail);
	ck_assert_uint_eq(st.eof_discarded, 0);
	ck_assert_uint_eq(st.committed_events, 2 * nfail);
	ck_assert_uint_eq(st.failed, 0);
	free(out);
	free(s.ev);
	vxt_spec_free(e);
}
END_TEST

static struct vxt_event mk(uint32_t obj, unsigned phase, int err, uint64_t t)
{
	struct vxt_event ev = { .time_ns = t, .object = obj, .phase = (uint8_t)phase,
				.error = (int16_t)err };
	return ev;
}

/* nspec and specsize exhaustion, count by count. */
START_TEST(test_exhaustion)
{
	struct vxt_spec_config c = { .nspec = 2, .specsize = 3 * VXT_SPEC_RECORD_SIZE, .nclauses = 3 };
	struct vxt_event ev[] = {
		mk(0, VXT_PH_START, 0, 1),	/* 0: opens 1, buffered */
		mk(1, VXT_PH_START, 0, 2),	/* 1: opens 2, buffered */
		mk(2, VXT_PH_START, 0, 3),	/* 2: no buffer left: failed */
		mk(2, VXT_PH_START, 0, 4),	/* 3: failed again */
		mk(0, VXT_PH_START, 0, 5),	/* 4: buffered */
		mk(0, VXT_PH_START, 0, 6),	/* 5: buffered, now full */
		mk(0, VXT_PH_START, 0, 7),	/* 6: drop */
		mk(0, VXT_PH_DONE, -5, 8),	/* 7: drop, then commit 0 4 5 */
		mk(2, VXT_PH_START, 0, 9),	/* 8: opens 3 in the freed buffer */
	};
	struct stream s = { ev, sizeof(ev) / sizeof(ev[0]) };
	char err[VXT_ERRBUF_SIZE], buf[256];
	struct vxt_spec_stats st;
	struct vxt_spec *e;
	uint64_t *out;

	c.clauses[0] = (struct vxt_spec_clause){ .probes = VXT_PROBE_ANY, .predicate = "!spec",
		.nactions = 1, .actions = { VXT_ACT_SPECULATION } };
	c.clauses[1] = (struct vxt_spec_clause){ .probes = VXT_PROBE_ANY, .predicate = "spec",
		.nactions = 1, .actions = { VXT_ACT_SPECULATE } };
	c.clauses[2] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE, .predicate = "error",
		.nactions = 1, .actions = { VXT_ACT_COMMIT } };
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_msg(e != NULL, "%s", err);
	out = run(e, &s);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_msg((out[i] == 2) == (i == 0 || i == 4 || i == 5), "event %zu: %llu", i,
			      (unsigned long long)out[i]);
	vxt_spec_get_stats(e, &st);
	ck_assert_uint_eq(st.opened, 3);
	ck_assert_uint_eq(st.failed, 2);
	ck_assert_uint_eq(st.drops, 2);
	ck_assert_uint_eq(st.committed, 1);
	ck_assert_uint_eq(st.committed_events, 3);
	ck_assert_uint_eq(st.eof_discarded, 2);
	ck_assert_uint_eq(st.discarded, 2);
	ck_assert_uint_eq(st.peak_active, 2);
	ck_assert_uint_eq(st.events_out, 3);
	ck_assert_str_eq(vxt_spec_format_problems(&st, buf, sizeof(buf)),
			 "2 failed speculations (no speculative buffer available)\n"
			 "2 speculative drops\n");
	st.failed = 1;
	st.drops = 0;
	ck_assert_str_eq(vxt_spec_format_problems(&st, buf, sizeof(buf)),
			 "1 failed speculation (no speculative buffer available)\n");
	st.failed = 0;
	ck_assert_str_eq(vxt_spec_format_problems(&st, buf, sizeof(buf)), "");
	free(out);
	vxt_spec_free(e);
}
END_TEST

/* A windowed buffer is a ring: when full, the oldest event goes (a drop). */
START_TEST(test_ring_overflow)
{
	struct vxt_spec_config c = { .nspec = 4, .specsize = 2 * VXT_SPEC_RECORD_SIZE };
	struct vxt_event ev[6];
	struct stream s = { ev, 6 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_spec_stats st;
	struct vxt_spec *e;
	uint64_t *out;

	for (int i = 0; i < 5; i++)
		ev[i] = mk(7, VXT_PH_START, 0, 10 + i);
	ev[5] = mk(7, VXT_PH_DONE, -5, 20);
	vxt_spec_config_context(&c, VXT_SPEC_KEY_OBJECT, 1000, 0, "error");
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_ptr_nonnull(e);
	out = run(e, &s);
	for (int i = 0; i < 6; i++)
		ck_assert_msg((out[i] != 0) == (i >= 4), "event %d", i);
	vxt_spec_get_stats(e, &st);
	ck_assert_uint_eq(st.drops, 4);
	ck_assert_uint_eq(st.committed, 1);
	free(out);
	vxt_spec_free(e);
}
END_TEST

/* trace sends events out directly, in order with committed ones; lost
 * markers always pass. */
START_TEST(test_trace_and_lost)
{
	struct vxt_spec_config c = { .nspec = 4, .nclauses = 4 };
	struct vxt_event ev[] = {
		mk(1, VXT_PH_START, 0, 1),	/* speculated */
		mk(2, VXT_PH_START, 0, 2),	/* traced */
		mk(9, VXT_PH_LOST, 0, 3),	/* always kept */
		mk(1, VXT_PH_DONE, -5, 4),	/* speculated, then commits 0 and 3 */
		mk(2, VXT_PH_DONE, 0, 5),	/* traced */
	};
	struct stream s = { ev, 5 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_spec *e;
	uint64_t *out;

	ev[0].cpu = ev[3].cpu = 1;
	c.clauses[0] = (struct vxt_spec_clause){ .probes = VXT_PROBE_ANY,
		.predicate = "cpu == 1 || sector == 1 && pid == 1",
		.nactions = 2, .actions = { VXT_ACT_SPECULATION, VXT_ACT_SPECULATE } };
	c.clauses[1] = (struct vxt_spec_clause){ .probes = VXT_PROBE_ANY, .predicate = "!spec",
		.nactions = 1, .actions = { VXT_ACT_TRACE } };
	c.clauses[2] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE,
		.predicate = "error", .nactions = 1, .actions = { VXT_ACT_COMMIT } };
	/* trace after speculate in an earlier clause: the event stays speculative */
	c.clauses[3] = (struct vxt_spec_clause){ .probes = VXT_PROBE_ANY,
		.nactions = 1, .actions = { VXT_ACT_TRACE } };
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_msg(e != NULL, "%s", err);
	out = run(e, &s);
	ck_assert_uint_eq(out[0], 2);
	ck_assert_uint_eq(out[1], 1);
	ck_assert_uint_eq(out[2], 1);
	ck_assert_uint_eq(out[3], 2);
	ck_assert_uint_eq(out[4], 1);
	free(out);
	vxt_spec_free(e);
}
END_TEST

/* A speculation that never ends (its completion never comes) holds output
 * back only up to max_pending events; then it is discarded and counted. */
START_TEST(test_stuck_speculation)
{
	struct vxt_spec_config c = { .key = VXT_SPEC_KEY_REQUEST, .nspec = 64, .nclauses = 3,
				     .max_pending = 10 };
	struct vxt_event ev[41];
	struct stream s = { ev, 41 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_spec_stats st;
	struct vxt_spec *e;
	struct vxt_spec_event o;
	uint64_t *out;
	size_t early = 0;

	ev[0] = mk(1, VXT_PH_START, 0, 1);	/* never completes */
	ev[0].sector = 999;
	for (int i = 0; i < 20; i++) {		/* failing I/Os: committed */
		ev[1 + 2 * i] = mk(1, VXT_PH_START, 0, 10 + 2 * i);
		ev[1 + 2 * i].sector = i;
		ev[2 + 2 * i] = mk(1, VXT_PH_DONE, -5, 11 + 2 * i);
		ev[2 + 2 * i].sector = i;
	}
	c.clauses[0] = (struct vxt_spec_clause){ .probes = VXT_PROBE_START, .nactions = 2,
		.actions = { VXT_ACT_SPECULATION, VXT_ACT_SPECULATE } };
	c.clauses[1] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE, .nactions = 1,
		.actions = { VXT_ACT_SPECULATE } };
	c.clauses[2] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE, .predicate = "error",
		.nactions = 1, .actions = { VXT_ACT_COMMIT } };
	e = vxt_spec_new(&c, NULL, NULL, err);
	ck_assert_msg(e != NULL, "%s", err);
	/* output flows before the end of input */
	for (int i = 0; i < 41; i++) {
		ck_assert_int_eq(vxt_spec_push(e, &ev[i]), 0);
		while (vxt_spec_next(e, &o) == 1)
			early++;
	}
	ck_assert_uint_ge(early, 30);
	vxt_spec_free(e);
	e = vxt_spec_new(&c, NULL, NULL, err);
	out = run(e, &s);
	ck_assert_uint_eq(out[0], 0);
	for (int i = 1; i < 41; i++)
		ck_assert_uint_ne(out[i], 0);
	vxt_spec_get_stats(e, &st);
	ck_assert_uint_eq(st.forced, 1);
	ck_assert_uint_eq(st.eof_discarded, 0);
	ck_assert_uint_eq(st.committed, 20);
	free(out);
	vxt_spec_free(e);

	/* without the bound, everything waits for the end of input */
	c.max_pending = 1000;
	e = vxt_spec_new(&c, NULL, NULL, err);
	early = 0;
	for (int i = 0; i < 41; i++) {
		vxt_spec_push(e, &ev[i]);
		while (vxt_spec_next(e, &o) == 1)
			early++;
	}
	ck_assert_uint_eq(early, 0);
	vxt_spec_get_stats(e, &st);
	ck_assert_uint_eq(st.forced, 0);
	vxt_spec_free(e);
}
END_TEST

static const struct {
	enum vxt_spec_action a[4];
	unsigned n;
	bool windowed;
	uint64_t follow;
	const char *msg;
} bad_clauses[] = {
	{ { 0 }, 0, false, 0, "t.yaml:3:5: no action (speculation, speculate, commit, "
			      "discard or trace)" },
	{ { VXT_ACT_SPECULATE, VXT_ACT_SPECULATE }, 2, false, 0,
	  "t.yaml:3:5: only one speculate per clause" },
	{ { VXT_ACT_SPECULATE, VXT_ACT_TRACE }, 2, false, 0,
	  "t.yaml:3:5: a clause with speculate records nothing else: move trace to a "
	  "clause of its own" },
	{ { VXT_ACT_TRACE, VXT_ACT_SPECULATE }, 2, false, 0,
	  "t.yaml:3:5: a clause with speculate records nothing else: move trace to a "
	  "clause of its own" },
	{ { VXT_ACT_SPECULATE, VXT_ACT_COMMIT }, 2, false, 0,
	  "t.yaml:3:5: a clause that commits records nothing itself: move speculate to an "
	  "earlier clause" },
	{ { VXT_ACT_DISCARD, VXT_ACT_TRACE }, 2, false, 0,
	  "t.yaml:3:5: a clause that discards records nothing itself: move trace to an "
	  "earlier clause" },
	{ { VXT_ACT_COMMIT, VXT_ACT_DISCARD }, 2, false, 0,
	  "t.yaml:3:5: a clause cannot both commit and discard" },
	{ { VXT_ACT_COMMIT, VXT_ACT_COMMIT }, 2, false, 0,
	  "t.yaml:3:5: 'commit' appears twice in one clause" },
	{ { VXT_ACT_SPECULATE, VXT_ACT_SPECULATION }, 2, false, 0,
	  "t.yaml:3:5: speculation must come before speculate" },
	{ { VXT_ACT_SPECULATE }, 1, true, 0,
	  "t.yaml:3:5: a window applies only to a clause that opens a speculation" },
	{ { VXT_ACT_DISCARD }, 1, false, 5,
	  "t.yaml:3:5: 'after' applies only to a clause that commits" },
};

START_TEST(test_rules)
{
	struct vxt_spec_config c = { .name = "t.yaml", .nclauses = 1 };
	char err[VXT_ERRBUF_SIZE];

	c.clauses[0].probes = VXT_PROBE_ANY;
	c.clauses[0].line = 3;
	c.clauses[0].col = 5;
	c.clauses[0].nactions = bad_clauses[_i].n;
	memcpy(c.clauses[0].actions, bad_clauses[_i].a, sizeof(bad_clauses[_i].a));
	c.clauses[0].windowed = bad_clauses[_i].windowed;
	c.clauses[0].follow_ns = bad_clauses[_i].follow;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, bad_clauses[_i].msg);
	ck_assert_ptr_null(vxt_spec_new(&c, NULL, NULL, err));
}
END_TEST

START_TEST(test_rules_ok)
{
	struct vxt_spec_config c = { .name = "t.yaml", .nclauses = 2 };
	char err[VXT_ERRBUF_SIZE];

	c.clauses[0] = (struct vxt_spec_clause){ .probes = VXT_PROBE_START, .nactions = 2,
		.actions = { VXT_ACT_SPECULATION, VXT_ACT_SPECULATE } };
	c.clauses[1] = (struct vxt_spec_clause){ .probes = VXT_PROBE_DONE, .nactions = 2,
		.actions = { VXT_ACT_COMMIT, VXT_ACT_SPECULATION }, .follow_ns = 10 };
	ck_assert_int_eq(vxt_spec_check(&c, err), 0);
	/* the whole config */
	c.nclauses = 0;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, "t.yaml: speculation needs at least one clause");
	c.nclauses = 2;
	c.specsize = VXT_SPEC_RECORD_SIZE - 1;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, "t.yaml: specsize must hold at least one event (56 bytes)");
	c.specsize = 0;
	c.nspec = VXT_SPEC_MAX_NSPEC + 1;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, "t.yaml: nspec must be between 1 and 65536");
	c.nspec = 0;
	c.clauses[1].probes = 0;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, "t.yaml: clause 2: no probe (start, done, requeue or any)");
	c.clauses[1].probes = VXT_PROBE_ANY;
	/* predicates: positions of the expression in its file */
	c.clauses[1].predicate = "spec && latency >";
	c.clauses[1].pred_line = 9;
	c.clauses[1].pred_col = 18;
	ck_assert_int_eq(vxt_spec_check(&c, err), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:9:35: expected a value after '>'");
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(vxt_spec_key_parse("object,pid"), VXT_SPEC_KEY_OBJECT_PID);
	ck_assert_int_eq(vxt_spec_key_parse("request"), VXT_SPEC_KEY_REQUEST);
	ck_assert_int_eq(vxt_spec_key_parse("thread"), -1);
	ck_assert_str_eq(vxt_spec_key_name(VXT_SPEC_KEY_PID), "pid");
	ck_assert_int_eq(vxt_spec_action_parse("commit"), VXT_ACT_COMMIT);
	ck_assert_int_eq(vxt_spec_action_parse("exit"), -1);
	ck_assert_uint_eq(vxt_spec_probe_parse("done"), VXT_PROBE_DONE);
	ck_assert_uint_eq(vxt_spec_probe_parse("any"), VXT_PROBE_ANY);
	ck_assert_uint_eq(vxt_spec_probe_parse("entry"), 0);
}
END_TEST

Suite *spec_suite(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("spec");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_context_reference, 0,
			    4 * (int)(sizeof(windows) / sizeof(windows[0])));
	tcase_add_loop_test(tc, test_context_events_reference, 0,
			    3 * (int)(sizeof(cwindows) / sizeof(cwindows[0])));
	tcase_add_test(tc, test_context_groups);
	tcase_add_test(tc, test_dtrace_request);
	tcase_add_test(tc, test_exhaustion);
	tcase_add_test(tc, test_ring_overflow);
	tcase_add_test(tc, test_trace_and_lost);
	tcase_add_test(tc, test_stuck_speculation);
	tcase_add_loop_test(tc, test_rules, 0, sizeof(bad_clauses) / sizeof(bad_clauses[0]));
	tcase_add_test(tc, test_rules_ok);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
