/* script_diff.h - random D scripts run event by event and in batches,
 * compared (tests/fuzz/fuzz_script_diff.c, the script_diff unit suite)
 *
 * A byte string chooses a script from a grammar of what scripts write:
 * clauses on every probe, predicates and expressions nested up to a depth
 * the bytes choose (integers, strings, every operator, ?:, ++, compound
 * assignment, globals, this->, self->, req->, associative arrays), chains
 * of operators past the depth limit, every aggregating function, trace,
 * printf, speculation() kept in req->, self-> and globals with speculate,
 * commit and discard, printa, clear, trunc and exit. The script runs over
 * events the bytes also choose, through vxt_script_push() one event at a
 * time and through vxt_script_push_many() (a plain script's batch loop):
 * every record (its event's ordinal, its speculation, its text), the
 * statistics and the exit status must be equal.
 */
#ifndef VXT_SCRIPT_DIFF_H
#define VXT_SCRIPT_DIFF_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/vxtrace.h"

struct diff_bytes {
	const uint8_t *p;
	size_t n, at;
};

static unsigned pick(struct diff_bytes *b, unsigned n)
{
	unsigned v = b->at < b->n ? b->p[b->at] : (unsigned)(b->at * 7 + 3);

	b->at++;
	return n ? v % n : 0;
}

struct diff_text {
	char *s;
	size_t n, cap;
};

static void put(struct diff_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct diff_text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->n = t->n + (size_t)k < t->cap ? t->n + (size_t)k : t->cap - 1;
}

static void gen_int(struct diff_bytes *b, struct diff_text *t, unsigned depth);

static void gen_str(struct diff_bytes *b, struct diff_text *t, unsigned depth)
{
	static const char *const leaves[] = { "execname", "object", "probename", "\"sda\"",
					      "\"\"", "gs", "op", "phase" };

	if (depth && pick(b, 4) == 0) {
		put(t, "(");
		gen_int(b, t, depth - 1);
		put(t, " ? ");
		gen_str(b, t, depth - 1);
		put(t, " : ");
		gen_str(b, t, depth - 1);
		put(t, ")");
		return;
	}
	put(t, "%s", leaves[pick(b, 8)]);
}

static void gen_int(struct diff_bytes *b, struct diff_text *t, unsigned depth)
{
	static const char *const leaves[] = {
		"latency", "bytes", "pid", "sector", "error", "cpu", "flags", "g0", "g1",
		"this->t", "self->v", "req->r", "a0[pid % 3]", "0", "1", "7", "(-3)",
		"9223372036854775807", "q2c", "dev",
	};
	static const char *const binops[] = {
		"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">",
		">=", "&&", "||", "^^",
	};
	unsigned k = depth ? pick(b, 12) : 0;

	switch (k) {
	case 0: case 1: case 2: case 3:
		put(t, "%s", leaves[pick(b, 20)]);
		return;
	case 4: case 5: case 6: case 7: {
		unsigned op = pick(b, 19);
		bool guard = (op == 3 || op == 4) && pick(b, 8);	/* mostly no division by 0 */

		put(t, "(");
		gen_int(b, t, depth - 1);
		put(t, " %s %s", binops[op], guard ? "(1 | " : "");
		gen_int(b, t, depth - 1);
		put(t, "%s)", guard ? ")" : "");
		return;
	}
	case 8:
		put(t, "%s(", (const char *const[]){ "!", "~", "-" }[pick(b, 3)]);
		gen_int(b, t, depth - 1);
		put(t, ")");
		return;
	case 9:
		put(t, "(");
		gen_int(b, t, depth - 1);
		put(t, " ? ");
		gen_int(b, t, depth - 1);
		put(t, " : ");
		gen_int(b, t, depth - 1);
		put(t, ")");
		return;
	case 10:
		put(t, "(");
		gen_str(b, t, depth - 1);
		put(t, " %s ", (const char *const[]){ "==", "!=", "<", ">=" }[pick(b, 4)]);
		gen_str(b, t, depth - 1);
		put(t, ")");
		return;
	default:
		put(t, "%s", (const char *const[]){ "g1++", "++g1", "g0--", "self->v++",
						     "req->r--", "a0[1]++" }[pick(b, 6)]);
		return;
	}
}

static void gen_agg(struct diff_bytes *b, struct diff_text *t, unsigned depth);

static void gen_stmt(struct diff_bytes *b, struct diff_text *t, unsigned depth, bool event)
{
	static const char *const vars[] = { "g0", "g1", "this->t", "self->v", "req->r",
					    "a0[pid % 3]" };
	static const char *const assign[] = { "=", "+=", "-=", "*=", "/=" };

	switch (pick(b, 11)) {
	case 0: case 1:
		put(t, "%s %s ", vars[pick(b, event ? 6 : 3)], assign[pick(b, 5)]);
		gen_int(b, t, depth);
		break;
	case 2:
		put(t, "@cnt[object, op] = count()");
		break;
	case 3:
		gen_agg(b, t, depth);
		break;
	case 4:
		put(t, "trace(");
		if (pick(b, 2))
			gen_int(b, t, depth);
		else
			gen_str(b, t, depth);
		put(t, ")");
		break;
	case 5:
		put(t, "printf(\"%%d %%s|\\n\", ");
		gen_int(b, t, depth);
		put(t, ", ");
		gen_str(b, t, depth);
		put(t, ")");
		break;
	case 6:
		put(t, "gs = ");
		gen_str(b, t, depth);
		break;
	case 7:
		put(t, "printa(@cnt)");
		break;
	case 8:
		put(t, "%s(@cnt)", pick(b, 2) ? "clear" : "trunc");
		break;
	case 9:
		put(t, "self->s2 = speculation()");
		break;
	default:
		gen_int(b, t, depth);
		break;
	}
}

/* The aggregation statements, each name with one function and key count. */
static void gen_agg(struct diff_bytes *b, struct diff_text *t, unsigned depth)
{
	switch (pick(b, 6)) {
	case 0: put(t, "@sm[pid %% 3] = sum("); break;
	case 1: put(t, "@mx[execname] = max("); break;
	case 2: put(t, "@mn = min("); break;
	case 3: put(t, "@av[op] = avg("); break;
	case 4: put(t, "@qz[object] = quantize("); break;
	default:
		put(t, "@lq = lquantize(");
		gen_int(b, t, depth);
		put(t, ", -100, 100, 10)");
		return;
	}
	gen_int(b, t, depth);
	put(t, ")");
}

static const char *const diff_probes[] = {
	"io:::start", "io:::done", "io:::queue", "io:::requeue", "io:::error",
	"io:::start, io:::done", "BEGIN", "END", "tick-50ms",
};

/* A script from @b into @t; @depth: how deep expressions may go. */
static void diff_script(struct diff_bytes *b, struct diff_text *t, unsigned depth)
{
	unsigned nclauses = 1 + pick(b, 6);

	put(t, "#pragma D option quiet\n");
	put(t, "BEGIN { g0 = 1; g1 = 2; this->t = 3; a0[1] = 4; gs = \"x\"; gsp = 0; }\n");
	put(t, "io:::queue, io:::start { self->v = pid; self->s2 = 0; req->r = bytes; "
	    "req->sp = speculation(); }\n");
	put(t, "io:::done { @cnt[object, op] = count(); }\n");
	if (pick(b, 8) == 0) {	/* a left-associative chain, past the depth limit or not */
		unsigned n = 2 * pick(b, 256);

		put(t, "io:::start { g1 = g0");
		for (unsigned i = 0; i < n; i++)
			put(t, " + %u", i & 7);
		put(t, "; }\n");
	}
	for (unsigned i = 0; i < nclauses; i++) {
		unsigned probe = pick(b, 9);
		bool event = probe < 6;
		unsigned kind = event ? pick(b, 6) : 5;
		const char *id = (const char *const[]){ "req->sp", "self->s2", "gsp" }[pick(b, 3)];

		put(t, "%s ", diff_probes[probe]);
		if (pick(b, 2)) {
			put(t, "/");
			gen_int(b, t, depth);
			put(t, "/ ");
		}
		put(t, "{ ");
		switch (kind) {
		case 0:
			put(t, "speculate(%s); ", id);
			if (pick(b, 2)) {
				put(t, "printf(\"%%d\\n\", ");
				gen_int(b, t, depth);
				put(t, "); ");
			}
			break;
		case 1:
			put(t, "%s(%s); ", pick(b, 2) ? "commit" : "discard", id);
			break;
		case 2:
			put(t, "gsp = speculation(); ");
			break;
		default:
			for (unsigned j = 1 + pick(b, 3); j > 0; j--) {
				if (pick(b, 4) == 0)
					gen_agg(b, t, depth);
				else
					gen_stmt(b, t, depth, event);
				put(t, "; ");
			}
			if (!event && pick(b, 8) == 0)
				put(t, "exit(%u); ", pick(b, 3) * 128);
			break;
		}
		put(t, "}\n");
	}
}

/* Events from @b: overlapping I/Os of a few keys, some failing. */
static size_t diff_events(struct diff_bytes *b, struct vxt_event *ev, size_t cap)
{
	static const uint8_t phases[] = { VXT_PH_QUEUE, VXT_PH_START, VXT_PH_DONE,
					  VXT_PH_REQUEUE, VXT_PH_START, VXT_PH_DONE, VXT_PH_LOST };
	size_t n = 16 + pick(b, (unsigned)cap - 16);
	uint64_t t = 1000000000ull;

	for (size_t i = 0; i < n; i++) {
		struct vxt_event *e = &ev[i];

		memset(e, 0, sizeof(*e));
		t += 1000000ull * (1 + pick(b, 40));
		e->time_ns = t;
		e->phase = phases[pick(b, 7)];
		e->object = pick(b, 3);
		e->sector = 8 * pick(b, 4);
		e->bytes = 4096;
		e->pid = 100 + pick(b, 4);
		e->comm = 1 + pick(b, 3);
		e->latency_ns = e->phase == VXT_PH_DONE ? 1000 * (1 + pick(b, 200)) : 0;
		e->error = e->phase == VXT_PH_DONE && pick(b, 3) == 0 ? -5 : 0;
		e->op = (uint8_t)pick(b, 3);
		e->cpu = (uint16_t)pick(b, 4);
		if (e->phase == VXT_PH_LOST)
			e->sector = 1 + pick(b, 5);	/* the count lost */
	}
	return n;
}

static int diff_sink(void *arg, const struct vxt_script_rec *r)
{
	struct diff_text *t = arg;

	put(t, "[%d %llu %llu] %.*s\n", r->has_event, (unsigned long long)r->ordinal,
	    (unsigned long long)r->spec, (int)r->len, r->text);
	return 0;
}

/* Script @text over @ev[0..@n) into @out, one event at a time or (@many)
 * in one batch; *@errors: its run-time errors. @return 0, or -1 when it
 * does not compile. */
static int diff_one(const char *text, size_t len, const struct vxt_event *ev, size_t n,
		    const struct vxt_objtab *objs, const struct vxt_strtab *strs, bool many,
		    struct diff_text *out, uint64_t *errors, char *err)
{
	static const char *const x[] = { "specsize=2k", "aggsize=16k", "nspec=6" };
	struct vxt_script_stats st;
	struct vxt_script *s = vxt_script_compile(text, len, "d.d", x, 3, err);
	int code = 0;

	if (!s)
		return -1;
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
	put(out, "exit %d events %llu records %llu opened %llu committed %llu discarded %llu "
	    "failed %llu %llu drops %llu dyn %llu agg %llu\n", code,
	    (unsigned long long)st.events_in, (unsigned long long)st.records,
	    (unsigned long long)st.opened, (unsigned long long)st.committed,
	    (unsigned long long)st.discarded, (unsigned long long)st.failed_unavail,
	    (unsigned long long)st.failed_busy, (unsigned long long)st.spec_drops,
	    (unsigned long long)st.dyn_drops, (unsigned long long)st.agg_drops);
	*errors = st.errors;
	vxt_script_free(s);
	return 0;
}

/* The script and events @data chooses, by both entry points. @return 0
 * when they agree (or the script does not compile), 1 with the script and
 * both outputs in *@script (caller frees) when they do not. */
static int diff_engines(const uint8_t *data, size_t size, const struct vxt_objtab *objs,
			const struct vxt_strtab *strs, char **script)
{
	struct diff_bytes b = { .p = data, .n = size };
	struct diff_text t = { .cap = 1 << 16 }, a = { .cap = 1 << 20 }, w = { .cap = 1 << 20 };
	struct vxt_event ev[200];
	char err[VXT_ERRBUF_SIZE];
	uint64_t ea = 0, ew = 0;
	unsigned depth = 1 + pick(&b, 8);
	size_t n;
	int rc = 0;

	t.s = calloc(1, t.cap);
	a.s = calloc(1, a.cap);
	w.s = calloc(1, w.cap);
	if (!t.s || !a.s || !w.s)
		abort();
	diff_script(&b, &t, depth);
	n = diff_events(&b, ev, 200);
	if (diff_one(t.s, t.n, ev, n, objs, strs, false, &a, &ea, err) == 0 &&
	    diff_one(t.s, t.n, ev, n, objs, strs, true, &w, &ew, err) == 0 &&
	    (ea != ew || a.n != w.n || memcmp(a.s, w.s, a.n))) {
		rc = 1;
		put(&t, "--- event by event\n%s--- in a batch\n%s", a.s, w.s);
	}
	free(a.s);
	free(w.s);
	if (rc)
		*script = t.s;
	else
		free(t.s);
	return rc;
}

#endif
