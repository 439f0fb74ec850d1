/* stats.c - per-object I/O statistics and log-linear latency histograms
 *
 * Invariant: st->obj has st->nobj entries, one per object id seen so far.
 * An event is accounted once, to its object; vxt_stats_total() sums them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/stats.h"

static inline unsigned hist_bucket(uint64_t v)
{
	unsigned msb, sub;

	if (v < VXT_HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	sub = (unsigned)(v >> (msb - 2)) & (VXT_HIST_SUB - 1);
	return (msb - 1) * VXT_HIST_SUB + sub;
}

unsigned vxt_hist_bucket(uint64_t v)
{
	return hist_bucket(v);
}

uint64_t vxt_hist_bucket_low(unsigned i)
{
	unsigned msb, sub;

	if (i < VXT_HIST_SUB)
		return i;
	msb = i / VXT_HIST_SUB + 1;
	sub = i % VXT_HIST_SUB;
	if (msb > 63)
		return UINT64_MAX;	/* past the last bucket any value reaches */
	return (1ull << msb) | ((uint64_t)sub << (msb - 2));
}

static inline void hist_add(struct vxt_hist *h, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

void vxt_hist_add(struct vxt_hist *h, uint64_t v)
{
	hist_add(h, v);
}

void vxt_hist_add_log2(struct vxt_hist *h, unsigned log2b, uint64_t n)
{
	uint64_t low = log2b ? 1ull << log2b : 0;
	/* the middle of [2^b, 2^(b+1)) */
	uint64_t mid = log2b ? low + low / 2 : 1;

	if (!n || log2b >= 63)
		return;
	h->b[vxt_hist_bucket(mid)] += n;
	h->count += n;
	h->sum += mid * n;
	if (mid > h->max)
		h->max = mid;
}

void vxt_hist_merge(struct vxt_hist *dst, const struct vxt_hist *src)
{
	for (unsigned i = 0; i < VXT_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t vxt_hist_quantile(const struct vxt_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		q = 0;
	if (q >= 1)
		return h->max;
	/* the smallest sample with at least q of the samples at or below it */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < VXT_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			/* the bucket's largest value, never above the true maximum:
			 * never below the true quantile, at most one bucket above */
			uint64_t hi = i + 1 < VXT_HIST_BUCKETS ? vxt_hist_bucket_low(i + 1) - 1 :
				      UINT64_MAX;

			return hi > h->max ? h->max : hi;
		}
	}
	return h->max;
}

void vxt_stats_init(struct vxt_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void vxt_stats_free(struct vxt_stats *st)
{
	free(st->obj);
	memset(st, 0, sizeof(*st));
}

void vxt_stats_reset(struct vxt_stats *st)
{
	struct vxt_objstats *obj = st->obj;
	size_t nobj = st->nobj;

	memset(obj, 0, nobj * sizeof(*obj));
	memset(st, 0, sizeof(*st));
	st->obj = obj;
	st->nobj = nobj;
}

static int grow(struct vxt_stats *st, uint32_t id)
{
	size_t n = st->nobj ? st->nobj : 8;
	struct vxt_objstats *obj;

	while (n <= id)
		n *= 2;
	obj = realloc(st->obj, n * sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	memset(obj + st->nobj, 0, (n - st->nobj) * sizeof(*obj));
	st->obj = obj;
	st->nobj = n;
	return 0;
}

/* first_ns == 0 means none yet: wrapping both sides by one makes 0 the
 * largest, so one unsigned compare stands for "none yet or earlier" */
static inline bool earlier(uint64_t t, uint64_t first)
{
	return t - 1 < first - 1;
}

static inline __attribute__((always_inline)) void account(struct vxt_objstats *o,
							   const struct vxt_event *ev)
{
	if (earlier(ev->time_ns, o->first_ns))
		o->first_ns = ev->time_ns;
	if (ev->time_ns > o->last_ns)
		o->last_ns = ev->time_ns;
	switch (ev->phase) {
	case VXT_PH_START:
		o->starts++;
		if (o->in_flight++ <= 0)
			o->busy_since = ev->time_ns;
		break;
	case VXT_PH_DONE:
		o->ios[ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER]++;
		if (ev->error)
			o->errors++;
		else if (ev->op == VXT_OP_READ)
			o->bytes_read += ev->bytes;
		else if (ev->op == VXT_OP_WRITE)
			o->bytes_written += ev->bytes;
		else
			o->bytes_other += ev->bytes;
		if (ev->latency_ns || !ev->error)
			hist_add(&o->lat, ev->latency_ns);
		if (o->in_flight > 0 && --o->in_flight == 0 && ev->time_ns > o->busy_since)
			o->busy_ns += ev->time_ns - o->busy_since;
		break;
	case VXT_PH_REQUEUE:
		o->requeues++;
		break;
	default:
		break;
	}
}

/* A lost event naming an issue with no completion (vxt_event_lost_io()):
 * that I/O leaves its object's flight there, counted in lost_ios. */
static int close_lost_io(struct vxt_stats *st, const struct vxt_event *ev)
{
	struct vxt_objstats *o;

	if (ev->object >= st->nobj && grow(st, ev->object) < 0)
		return -ENOMEM;
	o = &st->obj[ev->object];
	o->lost_ios++;
	if (o->in_flight > 0 && --o->in_flight == 0 && ev->time_ns > o->busy_since)
		o->busy_ns += ev->time_ns - o->busy_since;
	return 0;
}

/* inlined in both callers: the per-event call costs as much as the work */
static inline __attribute__((always_inline)) int add_one(struct vxt_stats *st,
							 const struct vxt_event *ev)
{
	st->events++;
	if (ev->phase < VXT_PH_COUNT)
		st->by_phase[ev->phase]++;
	if (earlier(ev->time_ns, st->first_ns))
		st->first_ns = ev->time_ns;
	if (ev->time_ns > st->last_ns)
		st->last_ns = ev->time_ns;
	if (ev->phase == VXT_PH_LOST) {
		st->lost += ev->sector;
		if (ev->lost_io)	/* its I/O is no longer in flight */
			return close_lost_io(st, ev);
		return 0;
	}
	if (ev->object >= st->nobj && grow(st, ev->object) < 0)
		return -ENOMEM;
	account(&st->obj[ev->object], ev);
	return 0;
}

int vxt_stats_add(struct vxt_stats *st, const struct vxt_event *ev)
{
	return add_one(st, ev);
}

int vxt_stats_add_many(struct vxt_stats *st, const struct vxt_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_one(st, &ev[i]) < 0)
			return -ENOMEM;
	return 0;
}

void vxt_stats_total(const struct vxt_stats *st, struct vxt_objstats *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < st->nobj; i++) {
		const struct vxt_objstats *o = &st->obj[i];

		if (!o->last_ns && !o->starts && !o->lat.count)
			continue;
		for (int k = 0; k < VXT_OP_COUNT; k++)
			t->ios[k] += o->ios[k];
		t->starts += o->starts;
		t->requeues += o->requeues;
		t->bytes_read += o->bytes_read;
		t->bytes_written += o->bytes_written;
		t->bytes_other += o->bytes_other;
		t->errors += o->errors;
		t->in_flight += o->in_flight;
		t->lost_ios += o->lost_ios;
		t->busy_ns += o->busy_ns;
		if (!t->first_ns || (o->first_ns && o->first_ns < t->first_ns))
			t->first_ns = o->first_ns;
		if (o->last_ns > t->last_ns)
			t->last_ns = o->last_ns;
		vxt_hist_merge(&t->lat, &o->lat);
	}
}

uint64_t vxt_objstats_ios(const struct vxt_objstats *o)
{
	uint64_t n = 0;

	for (int i = 0; i < VXT_OP_COUNT; i++)
		n += o->ios[i];
	return n;
}

const struct vxt_objstats *vxt_stats_object(const struct vxt_stats *st, uint32_t id)
{
	if (id >= st->nobj || !st->obj[id].last_ns)
		return NULL;
	return &st->obj[id];
}
