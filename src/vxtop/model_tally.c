/* model_tally.c - vxtop's interval model fed from the kernel's counts (--maps)
 *
 * The ebpf source in tally mode sends no events: the kernel counts per
 * object and op (struct vxt_tally, cumulative). Each call takes what grew
 * since the previous one into the open interval, as the events would have:
 * completions by op, bytes, errors, the latency distribution (the kernel
 * counts in the buckets of latdist.h, so its quantiles follow the rule of
 * the events'), and the I/Os in flight (issues minus requeues minus completions).
 * Invariant: m->tprev[k] is the last count taken of object k / VXT_OP_COUNT,
 * op k % VXT_OP_COUNT (zero before the first).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "vxtrace/util.h"

static struct vxt_tally *prev_of(struct vxtop_model *m, uint32_t object, unsigned op)
{
	size_t k = (size_t)object * VXT_OP_COUNT + op;

	if (k >= m->ntprev) {
		size_t n = (k / VXT_OP_COUNT + 1) * VXT_OP_COUNT;
		struct vxt_tally *p = realloc(m->tprev, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + m->ntprev, 0, (n - m->ntprev) * sizeof(*p));
		m->tprev = p;
		m->ntprev = n;
	}
	return &m->tprev[k];
}

/* The latencies that grew into the open interval's distribution, each at
 * its bucket's top, at most the largest latency since the start (the
 * averages come from the kernel's exact sums, struct vxtop_osnap). */
static void add_latencies(struct vxt_latdist *h, const struct vxt_tally *now,
			  const struct vxt_tally *was)
{
	for (unsigned i = 0; i < VXT_TALLY_LAT_BUCKETS; i++) {
		uint64_t d = now->lat_bucket[i] - was->lat_bucket[i];
		uint64_t v = i == VXT_TALLY_LAT_BUCKETS - 1 ? now->lat_max_ns
							     : vxt_latdist_bucket_high(i);

		if (!d)
			continue;
		if (v > now->lat_max_ns)
			v = now->lat_max_ns;
		vxt_latdist_add_n(h, v, d);
	}
}

static void add_tally(struct vxtop_model *m, struct vxtop_obj *o, const struct vxt_tally *now,
		      const struct vxt_tally *was)
{
	struct vxtop_osnap *a = &o->acc;
	unsigned op = now->op;
	uint64_t done = now->completed - was->completed;
	uint64_t bytes = now->bytes - was->bytes;
	uint64_t lat_n = now->lat_count - was->lat_count;
	uint64_t lat_sum = now->lat_sum_ns - was->lat_sum_ns;
	uint64_t events = (now->started - was->started) + (now->requeued - was->requeued) + done;

	if (!events)
		return;
	o->seen = true;
	o->events += events;
	m->cur_events += events;
	a->ios[op] += done;
	if (op == VXT_OP_READ)
		a->bytes_read += bytes;
	else if (op == VXT_OP_WRITE || op == VXT_OP_WRITE_ZEROES)
		a->bytes_written += bytes;
	else if (op == VXT_OP_DISCARD)
		a->bytes_discarded += bytes;
	a->lat_n += lat_n;
	a->lat_sum += lat_sum;
	a->rq_n[op] += lat_n;		/* D2C: the kernel sees no queueing */
	a->rq_sum[op] += lat_sum;
	a->errors += now->errors - was->errors;
	o->kernel_errors += now->errors - was->errors;
	m->cur_errors += now->errors - was->errors;
	add_latencies(&o->lat, now, was);
}

/* Error kinds (object, errno) for the errors screen's counts. */
static int add_errors(struct vxtop_model *m, const struct vxt_tallies *t)
{
	for (size_t i = 0; i < t->ne; i++) {
		const struct vxt_tally_error *e = &t->e[i];
		uint64_t was = 0;
		size_t j, k;

		for (j = 0; j < m->neprev; j++)
			if (m->eprev[j].object == e->object && m->eprev[j].op == e->op &&
			    m->eprev[j].error == e->error)
				break;
		if (j == m->neprev) {
			if (m->neprev == m->capeprev &&
			    vxt_grow(&m->eprev, &m->capeprev, m->neprev + 1, sizeof(*m->eprev)) < 0)
				return -ENOMEM;
			m->eprev[m->neprev++] = (struct vxt_tally_error){ e->object, e->op,
									   e->error, 0 };
		}
		was = m->eprev[j].n;
		m->eprev[j].n = e->n;
		if (e->n <= was)
			continue;
		for (k = 0; k < m->nkinds; k++)
			if (m->kinds[k].object == e->object && m->kinds[k].error == e->error)
				break;
		if (k == m->nkinds) {
			if (m->nkinds == VXTOP_ERR_KINDS)
				continue;
			m->kinds[k].object = e->object;
			m->kinds[k].error = e->error;
			m->kinds[k].count = 0;
			m->nkinds++;
		}
		m->kinds[k].count += e->n - was;
		m->kinds[k].last_ns = m->cur_start;
	}
	return 0;
}

int vxtop_model_tally(struct vxtop_model *m, const struct vxt_tallies *t)
{
	m->tallied = true;
	for (size_t i = 0; i < t->n; i++) {
		const struct vxt_tally *now = &t->t[i];
		struct vxt_tally *was;
		struct vxtop_obj *o;
		int64_t fl = 0;

		if (now->op >= VXT_OP_COUNT)
			continue;
		if (now->object >= m->nobj && vxtop_model_grow(m, now->object) < 0)
			return -ENOMEM;
		was = prev_of(m, now->object, now->op);
		if (!was)
			return -ENOMEM;
		o = &m->obj[now->object];
		add_tally(m, o, now, was);
		*was = *now;
		/* in flight: of every op of the object, as the kernel counted */
		for (unsigned op = 0; op < VXT_OP_COUNT; op++) {
			const struct vxt_tally *p = prev_of(m, now->object, op);

			if (p)
				fl += (int64_t)(p->started - p->requeued - p->completed -
						p->lost);
		}
		o->in_flight = fl > 0 ? fl : 0;
	}
	return add_errors(m, t);
}
