/* view_oracle.c - the browser's virtual list (tui_view.c) against brute force
 *   usage: view_oracle FILE
 * With and without a predicate, from random ordinals: the first shown event
 * at or after, the last before, the next and previous error, and the shown
 * count, compared with a linear scan of the whole file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "browser/model.h"

static bool writes(void *ctx, const struct vxt_event *ev)
{
	(void)ctx;
	return ev->op == VXT_OP_WRITE && ev->sector % 3 == 0;
}

static int fails;

static void check(const char *what, uint64_t at, int rc, uint64_t got, int64_t want)
{
	if ((want < 0 && rc == 0) || (want >= 0 && rc == 1 && got == (uint64_t)want))
		return;
	if (fails++ >= 20)
		return;
	fprintf(stderr, "%s from %llu: rc %d got %llu want %lld\n", what, (unsigned long long)at,
		rc, (unsigned long long)got, (long long)want);
}

/* Budget exhaustion (-EAGAIN) is allowed: retry from where it stopped. */
static int first_at(struct vr_view *v, uint64_t o, uint64_t *out)
{
	int rc;

	while ((rc = vr_view_first_at(v, o, out, 4)) == -EAGAIN)
		;
	return rc;
}

static int last_before(struct vr_view *v, uint64_t o, uint64_t *out)
{
	int rc;

	while ((rc = vr_view_last_before(v, o, out, 4)) == -EAGAIN)
		;
	return rc;
}

static int next_error(struct vr_view *v, uint64_t o, bool back, uint64_t *out)
{
	int rc;

	while ((rc = vr_view_next_error(v, o, back, out)) == -EAGAIN)
		o = *out;
	return rc;
}

static void run(struct vxt_reader *r, bool filtered, const uint8_t *shown, const uint8_t *err,
		uint64_t n)
{
	struct vr_view v = { .rd = r };
	bool complete;
	uint64_t count = 0, got;

	vr_view_set_match(&v, filtered ? writes : NULL, NULL);
	for (uint64_t i = 0; i < n; i++)
		count += shown[i];
	srand(filtered ? 2 : 1);
	for (int k = 0; k < 400; k++) {
		uint64_t o = (uint64_t)rand() % (n + 2);
		int64_t want = -1;
		int rc;

		for (uint64_t i = o; i < n; i++)
			if (shown[i]) { want = (int64_t)i; break; }
		rc = first_at(&v, o, &got);
		check("first_at", o, rc, got, want);
		want = -1;
		for (uint64_t i = o < n ? o : n; i-- > 0;)
			if (shown[i]) { want = (int64_t)i; break; }
		rc = last_before(&v, o, &got);
		check("last_before", o, rc, got, want);
		want = -1;
		for (uint64_t i = o; i < n; i++)
			if (shown[i] && err[i]) { want = (int64_t)i; break; }
		rc = next_error(&v, o, false, &got);
		check("next_error", o, rc, got, want);
		want = -1;
		for (uint64_t i = o < n ? o : n; i-- > 0;)
			if (shown[i] && err[i]) { want = (int64_t)i; break; }
		rc = next_error(&v, o, true, &got);
		check("prev_error", o, rc, got, want);
	}
	/* count every chunk, as the counting job does */
	for (size_t i = 0; i < vxt_reader_nchunks(r); i++) {
		size_t m;
		const struct vxt_event *evs = vxt_reader_chunk_events(r, i, &m);

		if (evs)
			vr_view_count(&v, i, evs, m);
	}
	if (vr_view_shown(&v, &complete) != count || !complete) {
		fprintf(stderr, "shown %llu want %llu\n",
			(unsigned long long)vr_view_shown(&v, &complete), (unsigned long long)count);
		fails++;
	}
	free(v.chunk_match);
}

int main(int argc, char **argv)
{
	char e[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = argc == 2 ? vxt_reader_open(argv[1], e) : NULL;
	const struct vxt_event *ev;
	uint64_t n, i = 0;
	uint8_t *all, *sh, *er;

	if (!r)
		return 2;
	n = vxt_reader_nevents(r);
	all = malloc(n);
	sh = malloc(n);
	er = malloc(n);
	if (!all || !sh || !er)
		return 2;
	while (vxt_reader_next(r, &ev) == 1) {
		all[i] = 1;
		sh[i] = writes(NULL, ev);
		er[i] = ev->error != 0;
		i++;
	}
	run(r, false, all, er, n);
	run(r, true, sh, er, n);
	printf("%s: %d mismatches\n", fails ? "FAIL" : "ok", fails);
	free(all);
	free(sh);
	free(er);
	vxt_reader_close(r);
	return fails != 0;
}
