/* metrics.c - live I/O metrics: counting events per object and op, and
 * publishing a snapshot for the HTTP thread
 *
 * Completions (VXT_PH_DONE) count as completed I/Os and bytes; a failed one
 * also counts under its errno; one with a known latency goes into the D2C
 * histogram, the queue events it ends into the Q2C one (metrics_q2c.c).
 * Starts minus completions minus those closed are the I/Os in flight: a lost
 * event naming its I/O closes it; after one naming none, the issues before it
 * still open VXT_LOST_GRACE_NS later are closed (metrics_age.c). Lost markers
 * add their count to the lost counter. Every event counts in the events
 * counter.
 * Invariant: live.ser[index[o * VXT_OP_COUNT + op] - 1] is the series of
 * (o, op); series are removed only with their device (metrics_gone.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"

#define PUBLISH_EVERY_NS 100000000ull
#define LOOK_EVERY_NS 10000000000ull	/* for devices gone (metrics_gone.c) */

struct vxt_metrics *vxt_metrics_new(void)
{
	struct vxt_metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (pthread_mutex_init(&m->lock, NULL)) {
		free(m);
		return NULL;
	}
	return m;
}

void metrics_state_free(struct metrics_state *s)
{
	free(s->ser);
	free(s->err);
	free(s->names);
}

static void snap_free(struct metrics_snap *s)
{
	if (s) {
		metrics_state_free(&s->st);
		free(s);
	}
}

void vxt_metrics_free(struct vxt_metrics *m)
{
	if (!m)
		return;
	metrics_state_free(&m->live);
	snap_free(m->pub);
	snap_free(m->spare);
	free(m->index);
	free(m->dropped);
	metrics_q2c_free(m->q2c);
	metrics_age_free(m);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static int learn_name(struct vxt_metrics *m, const struct vxt_objtab *objs, uint32_t id)
{
	struct metrics_state *s = &m->live;
	const struct vxt_object *o;

	if (id < s->nnames && s->names[id][0])
		return 0;
	if (vxt_grow(&s->names, &s->cap_names, (size_t)id + 1, sizeof(*s->names)) < 0)
		return -ENOMEM;
	while (s->nnames <= id)
		s->names[s->nnames++][0] = 0;
	o = objs ? vxt_objtab_get(objs, id) : NULL;
	if (o && o->name[0])
		snprintf(s->names[id], sizeof(s->names[id]), "%s", o->name);
	else
		snprintf(s->names[id], sizeof(s->names[id]), "obj%u", id);
	return 0;
}

static struct metrics_series *series_of(struct vxt_metrics *m, const struct vxt_objtab *objs,
					uint32_t object, unsigned op)
{
	struct metrics_state *s = &m->live;
	size_t k = (size_t)object * VXT_OP_COUNT + op;
	struct metrics_series *ser;

	if (k < m->nindex && m->index[k])
		return &s->ser[m->index[k] - 1];
	if (k >= m->nindex) {
		size_t old = m->nindex;

		if (vxt_grow(&m->index, &m->nindex, k + 1, sizeof(*m->index)) < 0)
			return NULL;
		memset(m->index + old, 0, (m->nindex - old) * sizeof(*m->index));
	}
	if (learn_name(m, objs, object) < 0 ||
	    vxt_grow(&s->ser, &s->cap_ser, s->nser + 1, sizeof(*s->ser)) < 0)
		return NULL;
	ser = &s->ser[s->nser++];
	memset(ser, 0, sizeof(*ser));
	ser->object = object;
	ser->op = (uint8_t)op;
	m->index[k] = (uint32_t)s->nser;
	return ser;
}

static int count_error(struct vxt_metrics *m, const struct vxt_event *ev)
{
	struct metrics_state *s = &m->live;
	struct metrics_error *e;
	size_t i;

	if (m->last_err < s->nerr) {
		e = &s->err[m->last_err];
		if (e->object == ev->object && e->op == ev->op && e->error == ev->error) {
			e->n++;
			return 0;
		}
	}
	for (i = 0; i < s->nerr; i++) {
		e = &s->err[i];
		if (e->object == ev->object && e->op == ev->op && e->error == ev->error) {
			e->n++;
			m->last_err = i;
			return 0;
		}
	}
	if (vxt_grow(&s->err, &s->cap_err, s->nerr + 1, sizeof(*s->err)) < 0)
		return -ENOMEM;
	s->err[s->nerr] = (struct metrics_error){ ev->object, ev->op, ev->error, 1 };
	m->last_err = s->nerr++;
	return 0;
}

unsigned metrics_bucket_of(uint64_t ns)
{
	uint64_t us = (ns + 999) / 1000;
	unsigned k;

	if (us <= 1)
		return 0;
	k = 64 - (unsigned)__builtin_clzll(us - 1);
	return k > VXT_METRICS_BUCKETS ? VXT_METRICS_BUCKETS : k;
}

static int feed_one(struct vxt_metrics *m, const struct vxt_objtab *objs,
		    const struct vxt_event *ev)
{
	struct metrics_series *ser;
	unsigned op = ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER;
	int gone;

	m->live.events++;
	gone = metrics_age_feed(m, ev);
	if (gone < 0)
		return -ENOMEM;
	if (ev->phase == VXT_PH_LOST) {
		uint64_t sector;

		m->live.lost_stream += vxt_event_lost_count(ev);
		if (!vxt_event_lost_io(ev, &sector) || gone == VXT_FLIGHT_GONE)
			return 0;	/* none, or one the rules closed already */
		ser = series_of(m, objs, ev->object, op);
		if (!ser)
			return -ENOMEM;
		ser->closed++;	/* no longer in flight */
		return 0;
	}
	if (ev->phase == VXT_PH_QUEUE || ev->phase == VXT_PH_REMAP || ev->phase == VXT_PH_SPLIT)
		return metrics_q2c_queue(m, ev);
	if (ev->phase != VXT_PH_START && ev->phase != VXT_PH_DONE)
		return 0;
	ser = series_of(m, objs, ev->object, op);
	if (!ser)
		return -ENOMEM;
	if (ev->phase == VXT_PH_START) {
		ser->started++;
		return 0;
	}
	ser->completed++;
	if (gone == VXT_FLIGHT_GONE && ser->closed)
		ser->closed--;	/* the one a rule closed came after all */
	ser->bytes += ev->bytes;
	if (metrics_q2c_done(m, ev, ser) < 0)
		return -ENOMEM;
	if (ev->latency_ns) {
		ser->lat_count++;
		ser->lat_sum_ns += ev->latency_ns;
		ser->bucket[metrics_bucket_of(ev->latency_ns)]++;
	}
	return ev->error ? count_error(m, ev) : 0;
}

int vxt_metrics_feed(struct vxt_metrics *m, const struct vxt_objtab *objs,
		     const struct vxt_event *ev, size_t n)
{
	m->objs = objs;
	for (size_t i = 0; i < n; i++) {
		int rc = feed_one(m, objs, &ev[i]);

		if (rc < 0)
			return rc;
	}
	metrics_age(m, m->last_ns);
	return 0;
}

void vxt_metrics_set_lost(struct vxt_metrics *m, uint64_t lost)
{
	m->live.lost_source = lost;
}

void vxt_metrics_set_view(struct vxt_metrics *m, const struct vxt_view_stats *st)
{
	m->live.has_view = st != NULL;
	if (st)
		m->live.view = *st;
}

/* Copy @src into @dst (both arrays grown as needed). @return 0 or -ENOMEM. */
int metrics_state_copy(struct metrics_state *dst, const struct metrics_state *src)
{
	if (vxt_grow(&dst->ser, &dst->cap_ser, src->nser, sizeof(*src->ser)) < 0 ||
	    vxt_grow(&dst->err, &dst->cap_err, src->nerr, sizeof(*src->err)) < 0 ||
	    vxt_grow(&dst->names, &dst->cap_names, src->nnames, sizeof(*src->names)) < 0)
		return -ENOMEM;
	if (src->nser)
		memcpy(dst->ser, src->ser, src->nser * sizeof(*src->ser));
	if (src->nerr)
		memcpy(dst->err, src->err, src->nerr * sizeof(*src->err));
	if (src->nnames)
		memcpy(dst->names, src->names, src->nnames * sizeof(*src->names));
	dst->nser = src->nser;
	dst->nerr = src->nerr;
	dst->nnames = src->nnames;
	dst->events = src->events;
	dst->lost_stream = src->lost_stream;
	dst->lost_source = src->lost_source;
	dst->has_view = src->has_view;
	dst->view = src->view;
	dst->has_queue = src->has_queue;
	return 0;
}

/* Drop a reference to @s (lock held); the last one makes it the spare. */
static void unref(struct vxt_metrics *m, struct metrics_snap *s)
{
	if (!s || --s->refs)
		return;
	if (m->spare)
		snap_free(s);
	else
		m->spare = s;
}

int vxt_metrics_publish(struct vxt_metrics *m)
{
	struct metrics_snap *s, *old;

	/* fill a snapshot no one reads: the copy needs no lock */
	pthread_mutex_lock(&m->lock);
	s = m->spare;
	m->spare = NULL;
	pthread_mutex_unlock(&m->lock);
	if (!s && !(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	if (metrics_state_copy(&s->st, &m->live) < 0) {
		snap_free(s);
		return -ENOMEM;
	}
	s->refs = 1;
	pthread_mutex_lock(&m->lock);
	old = m->pub;
	m->pub = s;
	unref(m, old);
	pthread_mutex_unlock(&m->lock);
	m->published_ns = vxt_now_mono();
	return 0;
}

struct metrics_snap *metrics_snap_get(struct vxt_metrics *m)
{
	struct metrics_snap *s;

	pthread_mutex_lock(&m->lock);
	s = m->pub;
	if (s)
		s->refs++;
	pthread_mutex_unlock(&m->lock);
	return s;
}

void metrics_snap_put(struct vxt_metrics *m, struct metrics_snap *s)
{
	pthread_mutex_lock(&m->lock);
	unref(m, s);
	pthread_mutex_unlock(&m->lock);
}

void vxt_metrics_system_objects(struct vxt_metrics *m)
{
	m->system_objects = true;
}

int vxt_metrics_tick(struct vxt_metrics *m)
{
	uint64_t now = vxt_now_mono();

	if (m->system_objects && now - m->looked_ns >= LOOK_EVERY_NS) {
		m->looked_ns = now;
		if (metrics_gone_look(m) < 0)
			return -ENOMEM;
	}
	/* an idle device sends no events: their clock runs on with ours */
	if (m->last_mono)
		metrics_age(m, m->last_ns + (now - m->last_mono));
	if (m->published_ns && vxt_now_mono() - m->published_ns < PUBLISH_EVERY_NS)
		return 0;
	return vxt_metrics_publish(m);
}

struct metrics_series *metrics_series_of(struct vxt_metrics *m, const struct vxt_objtab *objs,
					 uint32_t object, unsigned op)
{
	return series_of(m, objs, object, op);
}
