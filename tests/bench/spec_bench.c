/* spec_bench.c - speed of filter evaluation and of the speculation engine
 *
 *   spec_bench [filter|spec|all] [EVENTS]
 *
 * Builds a synthetic stream in memory (random objects, sizes, latencies, a
 * few errors), then times one core over it and prints events per second.
 * Times are CPU time of the thread, so other work on the machine does not
 * count against the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vxtrace/vxtrace.h"
#include "../unit/fixture.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct vxt_event *make_stream(size_t n, unsigned nobj, unsigned npid,
				     unsigned err_per_million)
{
	struct vxt_event *ev = calloc(n, sizeof(*ev));
	uint64_t t = 1000000000ull;

	if (!ev)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		t += rnd() % 2000;
		ev[i].time_ns = t;
		ev[i].object = (uint32_t)(rnd() % nobj);
		ev[i].pid = 1 + (uint32_t)(rnd() % npid);
		ev[i].bytes = 512u << (rnd() % 9);
		ev[i].sector = rnd() % (1ull << 30);
		ev[i].op = (uint8_t)(rnd() % 2);
		ev[i].phase = (uint8_t)(rnd() % 2);
		ev[i].latency_ns = ev[i].phase ? rnd() % 4000000 : 0;
		if (ev[i].phase == VXT_PH_DONE && rnd() % 1000000 < err_per_million)
			ev[i].error = -5;
	}
	return ev;
}

/* Best rate over several rounds of @passes passes over @n events. */
static double time_filter(struct vxt_filter *f, const struct vxt_event *ev, size_t n,
			  unsigned passes, size_t *hits)
{
	double best = 0;

	for (int round = 0; round < 7; round++) {
		double t0 = now(), dt;

		*hits = 0;
		for (unsigned p = 0; p < passes; p++)
			for (size_t i = 0; i < n; i++)
				*hits += vxt_filter_matches(f, &ev[i]);
		dt = now() - t0;
		if ((double)n * passes / dt > best)
			best = (double)n * passes / dt;
	}
	*hits /= passes;
	return best;
}

/* Events are filtered a decoded chunk at a time, so the stream is a chunk's
 * worth (64 Ki events, 3 MiB) passed over repeatedly. */
static int bench_filter(size_t total)
{
	static const char *const exprs[] = {
		"op == write && bytes >= 8k && latency > 1ms",
		"object ~ \"sd[a-d]\" && op == write && bytes >= 8k",
		"error == EIO || (latency > 2ms && !(op in (read, flush)))",
	};
	const size_t n = 65536;
	unsigned passes = (unsigned)(total / n ? total / n : 1);
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event *ev = make_stream(n, 8, 100, 100);
	char err[VXT_ERRBUF_SIZE], name[16];

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "sd%c", 'a' + i);
		vxt_objtab_add(objs, (uint32_t)(8 << 20 | i * 16), name, VXT_OBJ_DISK, 0);
	}
	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		struct vxt_filter *f = vxt_filter_compile(exprs[e], objs, strs, err);
		size_t hits;
		double rate;

		if (!f || !ev) {
			fprintf(stderr, "spec_bench: %s\n", f ? "out of memory" : err);
			return 1;
		}
		rate = time_filter(f, ev, n, passes, &hits);
		printf("filter: %6.1f M events/s  %s  (%zu of %zu match)\n", rate / 1e6,
		       exprs[e], hits, n);
		vxt_filter_free(f);
	}
	free(ev);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}

/* Feed @total events to an engine made from @c: the stream is a decoded
 * chunk's worth (64 Ki events) fed again and again, shifted in time, as the
 * reader hands events over a chunk at a time. */
static int bench_spec_case(const char *what, struct vxt_spec_config *c, struct vxt_event *ev,
			   size_t n, size_t total)
{
	uint64_t span = ev[n - 1].time_ns - ev[0].time_ns + 1000;
	char err[VXT_ERRBUF_SIZE], probs[256];
	struct vxt_spec_stats st;
	struct vxt_spec_event out;
	double best = 0;
	size_t kept = 0, done = 0;

	for (int round = 0; round < 5; round++) {
		struct vxt_spec *s = vxt_spec_new(c, NULL, NULL, err);
		double t0, dt;

		if (!s) {
			fprintf(stderr, "spec_bench: %s\n", err);
			return 1;
		}
		kept = 0;
		t0 = now();
		for (done = 0; done < total; done += n) {
			for (size_t i = 0; i < n; i++) {
				if (vxt_spec_push(s, &ev[i]) < 0) {
					fprintf(stderr, "spec_bench: out of memory\n");
					return 1;
				}
				while (vxt_spec_next(s, &out) == 1)
					kept++;
			}
			for (size_t i = 0; i < n; i++)
				ev[i].time_ns += span;
		}
		vxt_spec_finish(s);
		while (vxt_spec_next(s, &out) == 1)
			kept++;
		dt = now() - t0;
		if (done / dt > best)
			best = done / dt;
		vxt_spec_get_stats(s, &st);
		vxt_spec_free(s);
	}
	printf("spec:   %6.1f M events/s  %s  (%zu of %zu kept; %llu opened, %llu committed, "
	       "peak %llu live)\n", best / 1e6, what, kept, done, (unsigned long long)st.opened,
	       (unsigned long long)st.committed, (unsigned long long)st.peak_active);
	vxt_spec_format_problems(&st, probs, sizeof(probs));
	if (probs[0])
		printf("        %s", probs);
	return 0;
}

/* The context shorthand over 1,000 keys that all keep a speculation open. */
static int bench_spec(size_t total)
{
	struct vxt_spec_config c = { .nspec = 4096, .specsize = 64 * 1024 };
	const size_t n = 65536;
	struct vxt_event *ev = make_stream(n, 1000, 1000, 200);
	int rc = 0;

	if (!ev)
		return 1;
	vxt_spec_config_context(&c, VXT_SPEC_KEY_OBJECT, 10000000, 1000000, "error");
	rc |= bench_spec_case("context {key: object, before: 10ms, after: 1ms, on: error}, "
			      "1000 objects", &c, ev, n, total);
	vxt_spec_config_context(&c, VXT_SPEC_KEY_PID, 10000000, 1000000, "error || latency > 3900us");
	rc |= bench_spec_case("context {key: pid, before: 10ms, after: 1ms, on: error || "
			      "latency > 3900us}, 1000 pids", &c, ev, n, total);
	free(ev);
	return rc;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 4000000;
	int rc = 0;

	if (!strcmp(what, "filter") || !strcmp(what, "all"))
		rc |= bench_filter(n);
	if (!strcmp(what, "spec") || !strcmp(what, "all"))
		rc |= bench_spec(n);
	return rc;
}
