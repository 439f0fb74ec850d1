/* metrics_q2c.c - queue-to-completion times (Q2C) for the metrics, where the
 * source captures queue events
 *
 * Bios are followed the way btt(1) follows them: a queue event (Q) of N
 * bytes at sector S is pending on its object over [S, S + N/512] until a
 * completion (C) whose range [S', S' + N'/512] holds it (S' <= S and
 * S + N/512 <= S' + N'/512); that completion ends every pending queue its
 * range holds, so a bio merged into a request gets the request's completion.
 * A queue at a sector already pending, and events without bytes, pair with
 * nothing. Each pair is one Q2C observation of the completion's object and
 * op (a completion timed before its queue counts 0). At most PEND_MAX
 * queues wait per object; the ones after wait for nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink/metrics_impl.h"

#define PEND_MAX 65536

struct pend {
	uint64_t sector, end, time_ns;
};

struct pendset {
	struct pend *p;		/* sorted by sector */
	size_t n, cap;
};

struct metrics_q2c {
	struct pendset *obj;	/* by object id */
	size_t nobj;
};

void metrics_q2c_free(struct metrics_q2c *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nobj; i++)
		free(q->obj[i].p);
	free(q->obj);
	free(q);
}

/* The first pending queue at or after @sector. */
static size_t first_at(const struct pendset *ps, uint64_t sector)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->p[mid].sector < sector)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int metrics_q2c_queue(struct vxt_metrics *m, const struct vxt_event *ev)
{
	struct metrics_q2c *q = m->q2c;
	struct pendset *ps;
	size_t i;

	m->live.has_queue = true;
	if (!ev->bytes)
		return 0;
	if (!q && !(q = m->q2c = calloc(1, sizeof(*q))))
		return -ENOMEM;
	if (ev->object >= q->nobj) {
		size_t n = (size_t)ev->object + 1;
		struct pendset *o = realloc(q->obj, n * sizeof(*o));

		if (!o)
			return -ENOMEM;
		memset(o + q->nobj, 0, (n - q->nobj) * sizeof(*o));
		q->obj = o;
		q->nobj = n;
	}
	ps = &q->obj[ev->object];
	i = first_at(ps, ev->sector);
	if ((i < ps->n && ps->p[i].sector == ev->sector) || ps->n == PEND_MAX)
		return 0;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 16;
		struct pend *p = realloc(ps->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ps->p = p;
		ps->cap = cap;
	}
	memmove(&ps->p[i + 1], &ps->p[i], (ps->n - i) * sizeof(*ps->p));
	ps->p[i] = (struct pend){ ev->sector, ev->sector + ev->bytes / 512, ev->time_ns };
	ps->n++;
	return 0;
}

void metrics_q2c_done(struct vxt_metrics *m, const struct vxt_event *ev,
		      struct metrics_series *ser)
{
	struct metrics_q2c *q = m->q2c;
	struct pendset *ps;
	uint64_t end = ev->sector + ev->bytes / 512;
	size_t i, k;

	if (!q || !ev->bytes || ev->object >= q->nobj)
		return;
	ps = &q->obj[ev->object];
	for (i = k = first_at(ps, ev->sector); i < ps->n && ps->p[i].sector <= end; i++) {
		const struct pend *p = &ps->p[i];
		uint64_t ns = ev->time_ns > p->time_ns ? ev->time_ns - p->time_ns : 0;

		if (p->end > end) {	/* not inside this completion: still pending */
			ps->p[k++] = *p;
			continue;
		}
		ser->q2c_count++;
		ser->q2c_sum_ns += ns;
		ser->q2c_bucket[metrics_bucket_of(ns)]++;
	}
	memmove(&ps->p[k], &ps->p[i], (ps->n - i) * sizeof(*ps->p));
	ps->n -= i - k;
}
