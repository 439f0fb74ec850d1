/* test_script.c - D-style scripts: rules, buffer life cycle, aggregations
 * Over 700 lines: the engine's rules share one event builder and one reference run.
 *
 * Bad scripts, one per rule and per kind of mistake, must be refused with
 * their line, column and DTrace's words. The speculative buffers' life
 * cycle (failed speculations of both kinds, busy buffers cleaned at
 * cleanrate, specsize and bufsize drops, id 0) is checked count by count on
 * hand-made streams. A per-process speculation and aggregations over random
 * overlapping I/O are compared with references computed here the naive way.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

/* Pushes @ev's @n events into @s in random batches, some one by one. */
static void push_mixed(struct vxt_script *s, const struct vxt_event *ev, size_t n)
{
	for (size_t at = 0; at < n;) {
		size_t k = 1 + rnd() % 200, pushed;

		if (k > n - at)
			k = n - at;
		if (rnd() % 2) {
			ck_assert_int_eq(vxt_script_push_many(s, ev + at, k, at, &pushed), 0);
			ck_assert_uint_eq(pushed, k);
		} else {
			for (size_t i = 0; i < k; i++)
				ck_assert_int_eq(vxt_script_push(s, &ev[at + i], at + i), 0);
		}
		at += k;
	}
}

/* The events recorded in @u are those of @want[0..@n) (@nwant of them):
 * commits deliver in commit order, so sorted first. */
static void check_recorded(struct ut_script_out *u, const bool *want, size_t n, size_t nwant)
{
	for (size_t i = 1; i < u->n; i++)
		for (size_t j = i; j > 0 && u->ord[j - 1] > u->ord[j]; j--) {
			uint64_t x = u->ord[j];

			u->ord[j] = u->ord[j - 1];
			u->ord[j - 1] = x;
		}
	ck_assert_uint_eq(u->n, nwant);
	for (size_t i = 0, k = 0; i < n; i++)
		if (want[i])
			ck_assert_uint_eq(u->ord[k++], i);
}

static struct vxt_script *compile(const char *text, const char *const *x, unsigned nx)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s = vxt_script_compile(text, strlen(text), "t.d", x, nx, err);

	ck_assert_msg(s != NULL, "%s", err);
	return s;
}

static struct vxt_event ev_at(uint64_t t, unsigned phase, uint32_t pid, uint64_t sector,
			      int err)
{
	struct vxt_event e = { .time_ns = t, .phase = (uint8_t)phase, .pid = pid,
			       .sector = sector, .bytes = 4096, .error = (int16_t)err };

	return e;
}

/* ---- bad scripts ---- */

static const struct {
	const char *text;
	const char *msg;	/* "line:col: words" */
} bad[] = {
	{ "io:::start { trace(1); speculate(1); }",
	  "1:24: speculate( ) may not follow data-recording action(s)" },
	{ "io:::start { speculate(1); speculate(1); }",
	  "1:28: speculate( ) may not follow speculate( )" },
	{ "io:::start { speculate(1);\n @a = count(); }",
	  "2:2: aggregating actions may not follow speculate( )" },
	{ "io:::start { speculate(1); exit(0); }", "1:28: exit( ) may not follow speculate( )" },
	{ "io:::done { commit(1); trace(1); }",
	  "1:24: data-recording actions may not follow commit( )" },
	{ "io:::done { trace(1); commit(1); }",
	  "1:23: commit( ) may not follow data-recording action(s)" },
	{ "io:::done { discard(1); speculate(1); }", "1:25: speculate( ) may not follow commit( )" },
	{ "io:::done { commit(1); @a = count(); }",
	  "1:24: aggregating actions may not follow commit( )" },
	{ "io:::stort { }", "1:1: probe description io:::stort does not match any probes" },
	{ "io:::start /latncy > 1/ { }", "1:13: failed to resolve latncy: Unknown variable name" },
	{ "io:::start { x = frob(1); }", "1:18: failed to resolve frob( ): Unknown function name" },
	{ "io:::start { trace(self->never); }",
	  "1:20: self->never has not yet been declared or assigned" },
	{ "io:::start { trace(this->x); }\nio:::done { this->x = 1; }",
	  "1:20: this->x has not yet been declared or assigned" },
	{ "io:::start { speculate(1, 2); }",
	  "1:14: speculate( ) prototype mismatch: 2 args passed, 1 expected" },
	{ "io:::start { commit(object); }",
	  "1:21: commit( ) argument #1 is incompatible with prototype" },
	{ "io:::start { printf(\"%d\\n\", comm); }",
	  "1:29: printf( ) argument #2 is incompatible with conversion #1 prototype" },
	{ "io:::start { printf(\"%d %d\\n\", 1); }",
	  "1:14: printf( ) prototype mismatch: conversion #2" },
	{ "io:::start { printf(\"unterminated); }", "1:21: unterminated string constant" },
	{ "io:::start { @a[pid] = count(); }\nio:::done { @a[pid] = sum(bytes); }",
	  "2:23: aggregation redefined: @a (current: sum( ), previous: count( )" },
	{ "io:::start { x = bytes + comm; }",
	  "1:24: operator + requires operands of arithmetic type" },
	{ "#pragma D option nspec=lots\nio:::start { }",
	  "1:18: failed to set option 'nspec' to 'lots'" },
	{ "#pragma D option frob=1\n", "1:18: failed to set option 'frob': Invalid option name" },
	{ "io:::start { x = speculate(1); }", "1:18: speculate( ) is an action" },
	{ "io:::start { printa(@nope); }", "1:21: undefined aggregation: @nope" },
	{ "io:::start { x = 1 }\n", NULL },	/* a good one, for contrast */
};

START_TEST(test_bad)
{
	char err[VXT_ERRBUF_SIZE], want[300];
	struct vxt_script *s = vxt_script_compile(bad[_i].text, strlen(bad[_i].text), "t.d",
						  NULL, 0, err);

	if (!bad[_i].msg) {
		ck_assert_msg(s != NULL, "%s", err);
		vxt_script_free(s);
		return;
	}
	ck_assert_msg(s == NULL, "accepted: %s", bad[_i].text);
	snprintf(want, sizeof(want), "t.d:%s", bad[_i].msg);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "got '%s', want '%s'", err, want);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(test_x_option)
{
	const char *x[] = { "nspec=3", "cleanrate=303" };
	const char *badx[] = { "nspec=0" };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s = compile("io:::start { }", x, 2);

	ck_assert_uint_eq(vxt_script_get_options(s)->nspec, 3);
	ck_assert_uint_eq(vxt_script_get_options(s)->cleanrate, 303);
	ck_assert(vxt_script_get_options(s)->nspec_set);
	vxt_script_free(s);
	s = compile("io:::start { }", NULL, 0);
	ck_assert_uint_eq(vxt_script_get_options(s)->nspec, 1);	/* DTrace's default */
	ck_assert(!vxt_script_get_options(s)->nspec_set);
	vxt_script_free(s);
	ck_assert_ptr_null(vxt_script_compile("io:::start { }", 14, "t.d", badx, 1, err));
	ck_assert_msg(strstr(err, "-x nspec=0") != NULL, "%s", err);
}
END_TEST

/* ---- the buffer life cycle, count by count ---- */

START_TEST(test_lifecycle)
{
	/* each start opens a speculation of its own pid; done commits or discards */
	static const char text[] =
		"#pragma D option nspec=2\n"
		"#pragma D option quiet\n"
		"io:::start { self->s = speculation(); }\n"
		"io:::start, io:::done /self->s/ { speculate(self->s); }\n"
		"io:::done /self->s && error/ { commit(self->s); self->s = 0; }\n"
		"io:::done /self->s/ { discard(self->s); self->s = 0; }\n"
		"io:::done { commit(0); discard(0); }\n";	/* id 0: harmless */
	struct vxt_script *s = compile(text, NULL, 0);
	struct vxt_script_stats st;
	struct ut_script_out u = { 0 };
	const uint64_t ms = 1000000;
	struct vxt_event ev[] = {
		ev_at(1 * ms, VXT_PH_START, 1, 10, 0),	/* id 1 */
		ev_at(2 * ms, VXT_PH_START, 2, 20, 0),	/* id 2 */
		ev_at(3 * ms, VXT_PH_START, 3, 30, 0),	/* none free: no space */
		ev_at(4 * ms, VXT_PH_DONE, 1, 10, -5),	/* commit 1: busy */
		ev_at(5 * ms, VXT_PH_START, 4, 40, 0),	/* 1 busy, not cleaned yet */
		ev_at(6 * ms, VXT_PH_DONE, 2, 20, 0),	/* discard 2: busy */
		ev_at(30 * ms, VXT_PH_START, 5, 50, 0),	/* cleaned (101 Hz): id 1 */
		ev_at(31 * ms, VXT_PH_DONE, 5, 50, -5),	/* commit */
	};

	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &u), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		ck_assert_int_eq(vxt_script_push(s, &ev[i], i), 0);
	ck_assert_int_eq(vxt_script_end(s), 0);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.opened, 3);
	ck_assert_uint_eq(st.failed_unavail, 1);
	ck_assert_uint_eq(st.failed_busy, 1);
	ck_assert_uint_eq(st.committed, 2);
	ck_assert_uint_eq(st.discarded, 1);
	ck_assert_uint_eq(u.n, 4);
	ck_assert_uint_eq(u.ord[0], 0);	/* pid 1's start and failure */
	ck_assert_uint_eq(u.ord[1], 3);
	ck_assert_uint_eq(u.ord[2], 6);
	ck_assert_uint_eq(u.ord[3], 7);
	{
		char buf[512];

		vxt_script_format_problems(&st, buf, sizeof(buf));
		ck_assert_str_eq(buf, "1 failed speculation (no speculative buffer space "
				 "available)\n1 failed speculation (available buffer(s) still "
				 "busy)\n");
	}
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

START_TEST(test_sizes)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::start /!x/ { x = speculation(); }\n"
		"io:::start /x/ { speculate(x); printf(\"%d\\n\", sector); }\n"
		"io:::done /x/ { commit(x); x = 0; }\n";
	const char *small_spec[] = { "specsize=130" };	/* two records of 61 bytes */
	const char *small_buf[] = { "bufsize=70" };	/* one of them */
	struct vxt_script_stats st;
	struct vxt_event ev[] = {
		ev_at(1, VXT_PH_START, 1, 1, 0), ev_at(2, VXT_PH_START, 1, 2, 0),
		ev_at(3, VXT_PH_START, 1, 3, 0), ev_at(4, VXT_PH_DONE, 1, 1, 0),
	};

	for (int pass = 0; pass < 2; pass++) {
		struct vxt_script *s = compile(text, pass ? small_buf : small_spec, 1);
		struct ut_script_out u = { 0 };

		vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
		for (size_t i = 0; i < 4; i++)
			vxt_script_push(s, &ev[i], i);
		vxt_script_end(s);
		vxt_script_get_stats(s, &st);
		if (pass == 0) {
			ck_assert_uint_eq(st.spec_drops, 1);
			ck_assert_uint_eq(u.n, 2);
			ck_assert_str_eq(u.text, "1\n2\n");
		} else {
			ck_assert_uint_eq(st.commit_drops, 1);
			ck_assert_uint_eq(u.n, 0);
		}
		vxt_script_free(s);
		ut_script_out_free(&u);
	}
}
END_TEST

START_TEST(test_div_zero)
{
	struct vxt_script *s = compile("#pragma D option quiet\n"
				       "io:::start { printf(\"%d\\n\", 100 / (sector - 2)); }", NULL, 0);
	struct vxt_script_stats st;
	struct ut_script_out u = { 0 };

	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	for (uint64_t i = 0; i < 4; i++) {
		struct vxt_event e = ev_at(i + 1, VXT_PH_START, 1, i, 0);

		ck_assert_int_eq(vxt_script_push(s, &e, i), 0);
	}
	vxt_script_end(s);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.errors, 1);
	ck_assert_uint_eq(st.div_zero, 1);
	ck_assert_str_eq(u.text, "-50\n-100\n100\n");	/* the failing clause records nothing */
	ck_assert_msg(strstr(vxt_script_first_error(s), "division by zero at t:2:") != NULL, "%s",
		      vxt_script_first_error(s));
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

/* ---- per process on overlapping I/O, against a naive reference ---- */

#define NIO 3000

struct io { uint64_t t0, t1; uint32_t pid; uint64_t sector; int err; };

static int cmp_ev(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (int)x->phase - (int)y->phase;
}

START_TEST(test_per_process_reference)
{
	static const char text[] =
		"#pragma D option nspec=64\n"
		"io:::start, io:::done /!self->spec/ { self->spec = speculation(); }\n"
		"io:::start /!req->counted/ { req->counted = 1; self->inflight++; }\n"
		"io:::done /req->counted/ { self->inflight--; }\n"
		"io:::start, io:::done /self->spec/ { speculate(self->spec); }\n"
		"io:::done /self->spec && error/ { commit(self->spec); self->spec = 0; }\n"
		"io:::done /self->spec && self->inflight == 0/ { discard(self->spec); "
		"self->spec = 0; }\n";
	struct vxt_event *ev = calloc(2 * NIO, sizeof(*ev));
	bool *want = calloc(2 * NIO, sizeof(*want));
	struct vxt_script *s = compile(text, NULL, 0);
	struct vxt_script_stats st;
	struct ut_script_out u = { 0 };
	uint64_t t = 1000;
	size_t nwant = 0;

	for (size_t i = 0; i < NIO; i++) {	/* overlapping I/Os of 5 processes */
		struct vxt_event *a = &ev[2 * i], *b = &ev[2 * i + 1];

		t += 1000 * (rnd() % 3000);	/* up to 3 ms apart, up to 20 ms long */
		*a = ev_at(t, VXT_PH_START, 1 + (uint32_t)(rnd() % 5), 8 * (rnd() % 40), 0);
		*b = *a;
		b->phase = VXT_PH_DONE;
		b->time_ns = t + 1000 * (1 + rnd() % 20000);
		b->error = rnd() % 50 == 0 ? -5 : 0;
	}
	qsort(ev, 2 * NIO, sizeof(*ev), cmp_ev);
	/* the reference: per pid, the events since it was last idle, kept by a
	 * failure; requests paired first in, first out by (sector, bytes) */
	{
		size_t *seg[6] = { 0 }, nseg[6] = { 0 };
		int infl[6] = { 0 };
		bool open[6] = { 0 };

		for (size_t i = 0; i < 2 * NIO; i++) {
			uint32_t p = ev[i].pid;

			if (!seg[p])
				seg[p] = calloc(2 * NIO, sizeof(size_t));
			if (!open[p]) {
				open[p] = true;
				nseg[p] = 0;
			}
			if (ev[i].phase == VXT_PH_START) {
				infl[p]++;
			} else {
				/* a done pairs with the oldest open start of its sector */
				size_t j;

				for (j = 0; j < i; j++)
					if (ev[j].phase == VXT_PH_START && ev[j].sector == ev[i].sector &&
					    ev[j].bytes != 0)
						break;
				if (j < i) {
					ev[j].bytes = 0;	/* mark the start as paired */
					infl[p]--;
				}
			}
			seg[p][nseg[p]++] = i;
			if (ev[i].phase == VXT_PH_DONE && ev[i].error) {
				for (size_t k = 0; k < nseg[p]; k++)
					want[seg[p][k]] = true;
				open[p] = false;
			} else if (ev[i].phase == VXT_PH_DONE && infl[p] == 0) {
				open[p] = false;
			}
		}
		for (int p = 0; p < 6; p++)
			free(seg[p]);
		for (size_t i = 0; i < 2 * NIO; i++)
			ev[i].bytes = 4096;
		for (size_t i = 0; i < 2 * NIO; i++)
			nwant += want[i];
	}
	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	push_mixed(s, ev, 2 * NIO);
	vxt_script_end(s);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.failed_unavail + st.failed_busy, 0);
	ck_assert_uint_gt(nwant, 20);
	check_recorded(&u, want, 2 * NIO, nwant);
	vxt_script_free(s);
	ut_script_out_free(&u);
	free(ev);
	free(want);
}
END_TEST

/* ---- per request, against a naive reference ---- */

#define NREQ 4000

struct tev { struct vxt_event e; size_t seq; };

static int cmp_tev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->e.time_ns != y->e.time_ns)
		return x->e.time_ns < y->e.time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appends @e as phase @phase at @t to @tv, numbered in the order made. */
static void put_tev(struct tev *tv, size_t *nev, struct vxt_event e, unsigned phase, uint64_t t)
{
	e.phase = (uint8_t)phase;
	e.time_ns = t;
	tv[*nev] = (struct tev){ e, *nev };
	(*nev)++;
}

/* An open request of the reference: its key, whether started, its events. */
struct oreq { uint32_t object, bytes; uint64_t sector; bool started; size_t *evs, n; };

/* The oldest open request of the key of @e with started == @started, by a
 * walk over them all in arrival order; NULL when none. */
static struct oreq *oreq_oldest(struct oreq *o, size_t n, const struct vxt_event *e,
				bool started)
{
	for (size_t i = 0; i < n; i++)
		if (o[i].object == e->object && o[i].bytes == e->bytes &&
		    o[i].sector == e->sector && o[i].started == started)
			return &o[i];
	return NULL;
}

/* The per-request speculation idiom (the fused steps: /req->X/, /req->X &&
 * error/, /req->X && !error/, /req->X && ...integer.../, X = speculation()
 * under another predicate, speculate, commit, discard) over queues, starts,
 * requeues and completions of I/Os whose keys repeat: what it keeps is every
 * event of each request that failed (or, in the first, moved 512 bytes), the requests
 * paired here first in, first out per (object, sector, bytes) by a walk
 * over a plain list. */
START_TEST(test_per_request_reference)
{
	/* the second without the 512-byte rule: its commit and discard run as
	 * a pair of steps */
	static const char *const texts[] = {
		"#pragma D option nspec=4096\n"
		"io:::queue, io:::start /!req->spec/ { req->spec = speculation(); }\n"
		"io:::queue, io:::start, io:::requeue, io:::done /req->spec/ "
		"{ speculate(req->spec); }\n"
		"io:::done /req->spec && error/ { commit(req->spec); }\n"
		"io:::done /req->spec && bytes == 512/ { commit(req->spec); }\n"
		"io:::done /req->spec && !error/ { discard(req->spec); }\n",
		"#pragma D option nspec=4096\n"
		"io:::queue, io:::start /!req->spec/ { req->spec = speculation(); }\n"
		"io:::queue, io:::start, io:::requeue, io:::done /req->spec/ "
		"{ speculate(req->spec); }\n"
		"io:::done /req->spec && error/ { commit(req->spec); }\n"
		"io:::done /req->spec && !error/ { discard(req->spec); }\n",
	};
	const char *text = texts[_i];
	bool by_size = _i == 0;
	struct tev *tv = calloc(5 * NREQ, sizeof(*tv));
	struct vxt_event *ev = calloc(5 * NREQ, sizeof(*ev));
	bool *want = calloc(5 * NREQ, sizeof(*want));
	struct oreq *open = calloc(5 * NREQ, sizeof(*open));
	struct vxt_script *s = compile(text, NULL, 0);
	struct vxt_script_stats st;
	struct ut_script_out u = { 0 };
	size_t nev = 0, nopen = 0, nwant = 0, nreq = 0, ncommit = 0, ndiscard = 0;
	uint64_t t = 1000;

	ck_assert_ptr_nonnull(tv);
	ck_assert_ptr_nonnull(open);
	for (size_t i = 0; i < NREQ; i++) {	/* I/Os over 2 objects, 6 sectors, 2 sizes */
		struct vxt_event e = { .object = (uint32_t)(rnd() % 2), .sector = 8 * (rnd() % 6),
				       .bytes = rnd() % 4 ? 4096 : 512, .pid = 1 };
		uint64_t at0, done;

		t += 1000 * (rnd() % 400);
		at0 = t;
		if (rnd() % 4) {	/* most are queued first */
			put_tev(tv, &nev, e, VXT_PH_QUEUE, at0);
			at0 += 1000 * (1 + rnd() % 300);
		}
		put_tev(tv, &nev, e, VXT_PH_START, at0);
		if (rnd() % 10 == 0) {	/* requeued, then started again */
			at0 += 1000 * (1 + rnd() % 300);
			put_tev(tv, &nev, e, VXT_PH_REQUEUE, at0);
			at0 += 1000 * (1 + rnd() % 300);
			put_tev(tv, &nev, e, VXT_PH_START, at0);
		}
		done = at0 + 1000 * (1 + rnd() % 2000);
		e.error = rnd() % 25 == 0 ? -5 : 0;
		put_tev(tv, &nev, e, VXT_PH_DONE, done);
	}
	qsort(tv, nev, sizeof(*tv), cmp_tev);
	for (size_t i = 0; i < nev; i++)
		ev[i] = tv[i].e;
	/* the reference */
	for (size_t i = 0; i < nev; i++) {
		const struct vxt_event *e = &ev[i];
		struct oreq *o = NULL;

		switch (e->phase) {
		case VXT_PH_START:
			o = oreq_oldest(open, nopen, e, false);
			if (o) {
				o->started = true;
				break;
			}
			/* a new request */
			__attribute__((fallthrough));
		case VXT_PH_QUEUE:
			o = &open[nopen++];
			nreq++;
			*o = (struct oreq){ .object = e->object, .bytes = e->bytes,
					    .sector = e->sector,
					    .started = e->phase == VXT_PH_START,
					    .evs = calloc(16, sizeof(size_t)) };
			break;
		default:	/* requeue, done: the oldest started, else the oldest queued */
			o = oreq_oldest(open, nopen, e, true);
			if (!o)
				o = oreq_oldest(open, nopen, e, false);
			if (o && e->phase == VXT_PH_REQUEUE)
				o->started = false;
			break;
		}
		if (!o)
			continue;
		if (o->n < 16)
			o->evs[o->n++] = i;
		if (e->phase != VXT_PH_DONE)
			continue;
		if (e->error || (by_size && e->bytes == 512)) {
			for (size_t k = 0; k < o->n; k++)
				want[o->evs[k]] = true;
			ncommit++;
		} else {
			ndiscard++;
		}
		free(o->evs);
		memmove(o, o + 1, (size_t)(open + nopen - o - 1) * sizeof(*o));
		nopen--;
	}
	for (size_t i = 0; i < nev; i++)
		nwant += want[i];
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &u), 0);
	push_mixed(s, ev, nev);
	ck_assert_int_eq(vxt_script_end(s), 0);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.failed_unavail + st.failed_busy, 0);
	ck_assert_uint_eq(st.opened, nreq);	/* one speculation per request */
	ck_assert_uint_eq(st.committed, ncommit);
	ck_assert_uint_eq(st.discarded, ndiscard + nopen);	/* the open ones at the end */
	ck_assert_uint_eq(st.eof_discarded, nopen);
	ck_assert_uint_gt(nwant, 200);
	check_recorded(&u, want, nev, nwant);
	for (size_t i = 0; i < nopen; i++)
		free(open[i].evs);
	vxt_script_free(s);
	ut_script_out_free(&u);
	free(open);
	free(want);
	free(ev);
	free(tv);
}
END_TEST

/* ---- aggregations against naive sums ---- */

START_TEST(test_aggregations)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::done { @c[pid] = count(); @s[pid] = sum(bytes); @mn[pid] = min(latency); "
		"@mx[pid] = max(latency); @av[pid] = avg(latency); @q = quantize(latency); }\n"
		"END { printa(@c); printa(@s); printa(@mn); printa(@mx); printa(@av); "
		"printa(@q); }\n";
	struct vxt_script *s = compile(text, NULL, 0);
	struct ut_script_out u = { 0 };
	int64_t cnt[8] = { 0 }, sum[8] = { 0 }, mn[8], mx[8] = { 0 }, lsum[8] = { 0 };
	uint64_t qz[70] = { 0 };
	const char *p;

	for (int i = 0; i < 8; i++)
		mn[i] = INT64_MAX;
	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	for (uint64_t i = 0; i < 5000; i++) {
		struct vxt_event e = ev_at(i, VXT_PH_DONE, 1 + (uint32_t)(rnd() % 7), i, 0);
		int b = 0;

		e.bytes = 512u * (uint32_t)(1 + rnd() % 64);
		e.latency_ns = rnd() % 3 ? rnd() % 100000 : 0;
		cnt[e.pid]++;
		sum[e.pid] += e.bytes;
		lsum[e.pid] += (int64_t)e.latency_ns;
		if ((int64_t)e.latency_ns < mn[e.pid])
			mn[e.pid] = (int64_t)e.latency_ns;
		if ((int64_t)e.latency_ns > mx[e.pid])
			mx[e.pid] = (int64_t)e.latency_ns;
		for (uint64_t v = e.latency_ns; v; v >>= 1)	/* floor(log2) + 1, 0 for 0 */
			b++;
		qz[b]++;
		ck_assert_int_eq(vxt_script_push(s, &e, i), 0);
	}
	vxt_script_end(s);
#define avg_of(pid) (lsum[pid] / cnt[pid])
	/* five blocks of "  PID VALUE" lines, then the distribution */
	p = u.text;
	for (int agg = 0; agg < 5; agg++) {
		int seen = 0;

		ck_assert_int_eq(*p, '\n');
		p++;
		while (*p == ' ') {
			long long pid, v;
			int n;

			ck_assert_int_eq(sscanf(p, "%lld %lld%n", &pid, &v, &n), 2);
			ck_assert_int_eq(p[n], '\n');
			n++;
			ck_assert(pid >= 1 && pid <= 7);
			if (agg == 0)
				ck_assert_int_eq(v, cnt[pid]);
			else if (agg == 1)
				ck_assert_int_eq(v, sum[pid]);
			else if (agg == 2)
				ck_assert_int_eq(v, mn[pid]);
			else if (agg == 3)
				ck_assert_int_eq(v, mx[pid]);
			else
				ck_assert_int_eq(v, avg_of(pid));
			seen++;
			p += n;
		}
		ck_assert_int_eq(seen, 7);
	}
	/* the distribution: each power of two row against the naive buckets */
	for (int b = 1; b < 18; b++) {
		char row[64];
		long long lo = 1ll << (b - 1);

		if (!qz[b])
			continue;
		snprintf(row, sizeof(row), "%16lld |", lo);
		ck_assert_msg(strstr(p, row) != NULL, "no row %lld in %s", lo, p);
		{
			const char *r = strstr(p, row) + strlen(row) + 40;
			unsigned long long c = strtoull(r, NULL, 10);

			ck_assert_uint_eq(c, qz[b]);
		}
	}
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

START_TEST(test_avg_and_keys)
{
	struct vxt_script *s = compile("#pragma D option quiet\n"
				       "io:::done { @a[\"k\", pid % 2] = avg(latency); }", NULL, 0);
	struct ut_script_out u = { 0 };
	int64_t sum[2] = { 0 }, n[2] = { 0 };
	char want[256];

	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	for (uint64_t i = 0; i < 1000; i++) {
		struct vxt_event e = ev_at(i, VXT_PH_DONE, (uint32_t)(rnd() % 9), i, 0);

		e.latency_ns = rnd() % 1000000;
		sum[e.pid % 2] += (int64_t)e.latency_ns;
		n[e.pid % 2]++;
		vxt_script_push(s, &e, i);
	}
	vxt_script_end(s);
	for (int k = 0; k < 2; k++) {
		/* dt_consume.c: a string key "  %-50s", an int key (pid_t % int)
		 * " %8d", avg() " %16lld" */
		snprintf(want, sizeof(want), "  %-50s %8d %16" PRId64 "\n", "k", k,
			 sum[k] / n[k]);
		ck_assert_msg(strstr(u.text, want) != NULL, "no '%s' in '%s'", want, u.text);
	}
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

/* vxt_script_push_many() in batches of random sizes: what per-event pushes
 * give, checked against counts made by hand from the events, up to and
 * including the event whose clause exits and none after it */
START_TEST(test_push_many)
{
	static const char text[] =
		"#pragma D option quiet\n"
		"io:::start { @s[pid] = count(); }\n"
		"io:::done /error/ { @e[pid] = count(); n++; }\n"
		"io:::done /n == 40/ { exit(0); }\n";
	enum { N = 20000 };
	struct vxt_event *ev = calloc(N, sizeof(*ev));
	struct vxt_script *s = compile(text, NULL, 0);
	struct vxt_script_stats st;
	struct ut_script_out u = { 0 };
	uint64_t starts[8] = { 0 }, errs[8] = { 0 };
	size_t last = N, nerr = 0, at = 0;
	const char *p;

	ck_assert_ptr_nonnull(ev);
	for (size_t i = 0; i < N; i++) {
		unsigned phase = rnd() % 2 ? VXT_PH_START : VXT_PH_DONE;

		ev[i] = ev_at(1000 * (i + 1), phase, (uint32_t)(1 + rnd() % 7), i,
			      phase == VXT_PH_DONE && rnd() % 97 == 0 ? -5 : 0);
		if (last < N)
			continue;
		if (phase == VXT_PH_START)
			starts[ev[i].pid]++;
		else if (ev[i].error && ++nerr == 40)
			last = i;
		if (ev[i].error && phase == VXT_PH_DONE)
			errs[ev[i].pid]++;
	}
	ck_assert_uint_lt(last, N);
	ck_assert_int_eq(vxt_script_start(s, NULL, NULL, ut_script_sink, &u), 0);
	while (at < N && !vxt_script_exited(s, NULL)) {
		size_t n = 1 + rnd() % 300, pushed;

		if (n > N - at)
			n = N - at;
		ck_assert_int_eq(vxt_script_push_many(s, ev + at, n, at, &pushed), 0);
		ck_assert_uint_le(pushed, n);
		ck_assert(pushed == n || vxt_script_exited(s, NULL));
		at += pushed;
	}
	ck_assert_uint_eq(at, last + 1);
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.events_in, last + 1);
	ck_assert_int_eq(vxt_script_push_many(s, ev, 5, 0, NULL), 0);	/* after exit: ignored */
	vxt_script_get_stats(s, &st);
	ck_assert_uint_eq(st.events_in, last + 1);
	ck_assert_int_eq(vxt_script_end(s), 0);
	/* one blank line, then @s and @e one after the other (in the order the
	 * script names them, as dtrace(1) prints what is left at its end), a
	 * " PID COUNT" line for each PID counted */
	p = u.text;
	ck_assert(*p++ == '\n');
	for (int agg = 0; agg < 2; agg++) {
		const uint64_t *want = agg ? errs : starts;
		uint64_t total = 0, wtotal = 0;
		int lines = 0, wlines = 0;

		for (int i = 1; i < 8; i++)
			wlines += want[i] != 0;
		for (; lines < wlines && *p == ' '; lines++) {
			long long pid, v;
			int n;

			ck_assert_int_eq(sscanf(p, "%lld %lld%n", &pid, &v, &n), 2);
			ck_assert(p[n] == '\n');
			n++;
			ck_assert(pid >= 1 && pid <= 7);
			ck_assert_int_eq(v, want[pid]);
			total += (uint64_t)v;
			p += n;
		}
		for (int i = 1; i < 8; i++)
			wtotal += want[i];
		ck_assert_int_eq(lines, wlines);
		ck_assert_uint_eq(total, wtotal);
	}
	ck_assert_str_eq(p, "");
	vxt_script_free(s);
	ut_script_out_free(&u);
	free(ev);
}
END_TEST

START_TEST(test_ticks)
{
	struct vxt_script *s = compile("#pragma D option quiet\n"
				       "io:::start { @n = count(); }\n"
				       "tick-1s { printa(@n); clear(@n); }\n", NULL, 0);
	struct ut_script_out u = { 0 };

	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	for (uint64_t i = 0; i < 30; i++) {	/* 10 events a second for 3 s */
		struct vxt_event e = ev_at(1000000000ull + i * 100000000ull, VXT_PH_START, 1, i, 0);

		vxt_script_push(s, &e, i);
	}
	vxt_script_end(s);
	/* ticks at 2 s and 3 s (event time); END prints nothing more: printa ran */
	/* dt_consume.c: a value " %16lld" */
	ck_assert_str_eq(u.text, "\n               10\n\n               10\n");
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

/* ---- clause-local variables start unset at each firing ---- */

START_TEST(test_this_reset)
{
	struct vxt_script *s = compile("#pragma D option quiet\n"
				       "BEGIN { this->b = 5; this->a[1] = 7; }\n"
				       "io:::start /sector % 3 == 0/ { this->x = 1; this->a[pid] = 1; }\n"
				       "io:::start { @x = sum(this->x); @a = sum(this->a[pid]); }\n"
				       "END { printf(\"%d %d\\n\", this->b, this->a[1]); "
				       "printa(\"%@d\\n\", @x); printa(\"%@d\\n\", @a); }\n",
				       NULL, 0);
	struct ut_script_out u = { 0 };
	char want[64];
	unsigned n = 0;

	vxt_script_start(s, NULL, NULL, ut_script_sink, &u);
	for (uint64_t i = 0; i < 300; i++) {
		struct vxt_event e = ev_at(i + 1, VXT_PH_START, 1 + (uint32_t)(rnd() % 4),
					   rnd() % 1000, 0);

		n += e.sector % 3 == 0;	/* the events whose clause set them */
		ck_assert_int_eq(vxt_script_push(s, &e, i), 0);
	}
	vxt_script_end(s);
	snprintf(want, sizeof(want), "0 0\n%u\n%u\n", n, n);
	ck_assert_str_eq(u.text, want);
	vxt_script_free(s);
	ut_script_out_free(&u);
}
END_TEST

Suite *script_suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_x_option);
	tcase_add_test(tc, test_lifecycle);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_div_zero);
	tcase_add_test(tc, test_per_process_reference);
	tcase_add_loop_test(tc, test_per_request_reference, 0, 2);
	tcase_add_test(tc, test_aggregations);
	tcase_add_test(tc, test_avg_and_keys);
	tcase_add_test(tc, test_push_many);
	tcase_add_test(tc, test_ticks);
	tcase_add_test(tc, test_this_reset);
	suite_add_tcase(s, tc);
	return s;
}
