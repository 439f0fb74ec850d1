/* model.c - vxtop's interval model: per-object accumulators, interval ring, errors
 * Over 700 lines: the interval model's accumulators, ring and ageing rules change together with each interval.
 *
 * Invariants: obj[] covers every object id fed so far; ring[first..first+nsnap)
 * holds closed intervals oldest first, each with its own obj[] of nobj entries;
 * busy time of an object is counted up to obj->busy_mark, which never lies
 * before the open interval's start while I/O is in flight.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "vxtrace/util.h"

int vxtop_model_init(struct vxtop_model *m, const struct vxt_objtab *objs,
		     uint64_t interval_ns, uint64_t start_ns)
{
	memset(m, 0, sizeof(*m));
	m->objs = objs;
	m->interval_ns = interval_ns ? interval_ns : VXT_NSEC_PER_SEC;
	m->cur_start = start_ns;
	vxt_stats_init(&m->total);
	m->inflight = vxt_flight_new();
	m->queued = vxt_iopair_new();
	/* the issues by key from the start, as vxreplay's reports keep them in
	 * a file with lost events: the same I/Os closed by loss */
	if (!m->inflight || !m->queued || vxt_stats_keep_flight(&m->total) < 0)
		return -ENOMEM;
	return 0;
}

void vxtop_model_free(struct vxtop_model *m)
{
	size_t i;

	for (i = 0; i < VXTOP_RING; i++)
		free(m->ring[i].obj);
	for (i = 0; i < m->nobj; i++) {
		vxt_latdist_free(&m->obj[i].lat);
		vxt_latdist_free(&m->obj[i].last_lat);
	}
	free(m->obj);
	vxt_flight_free(m->inflight);
	vxt_iopair_free(m->queued);
	vxt_stats_free(&m->total);
	vxt_procstats_free(&m->procs);
	vxt_procstats_free(&m->last_procs);
	free(m->tprev);
	free(m->eprev);
	memset(m, 0, sizeof(*m));
}

void vxtop_model_set_anchor(struct vxtop_model *m, uint64_t mono_ns, uint64_t real_ns)
{
	m->anchor_mono = mono_ns;
	m->anchor_real = real_ns;
}

static bool osnap_active(const struct vxtop_osnap *d)
{
	unsigned op;

	for (op = 0; op < VXT_OP_COUNT; op++)
		if (d->ios[op])
			return true;
	return d->errors != 0;
}

static void reset_acc(struct vxtop_obj *o)
{
	memset(&o->acc, 0, sizeof(o->acc));
	vxt_latdist_clear(&o->lat);
}

void vxtop_model_restart(struct vxtop_model *m, uint64_t start_ns)
{
	size_t i;

	for (i = 0; i < m->nobj; i++) {
		reset_acc(&m->obj[i]);
		m->obj[i].busy_mark = start_ns;
	}
	m->cur_start = start_ns;
	m->cur_events = m->cur_lost = m->cur_errors = 0;
	vxt_procstats_clear(&m->procs);
}

int vxtop_model_grow(struct vxtop_model *m, uint32_t id)
{
	if (vxt_grow(&m->obj, &m->capobj, (size_t)id + 1, sizeof(*m->obj)) < 0)
		return -ENOMEM;
	memset(&m->obj[m->nobj], 0, (id + 1 - m->nobj) * sizeof(*m->obj));
	for (size_t i = m->nobj; i <= id; i++)
		m->obj[i].busy_mark = m->cur_start;
	m->nobj = id + 1;
	return 0;
}

/* Address slice of @sector on object @id: the object's size when the table
 * knows it, else the highest sector seen rounded up to a power of two. */
static unsigned lba_bucket(const struct vxtop_model *m, struct vxtop_obj *o, uint32_t id,
			   const struct vxt_event *ev)
{
	const struct vxt_object *ob = vxt_objtab_get(m->objs, id);
	uint64_t end = ev->sector + ev->bytes / 512;
	uint64_t cap;

	if (end > o->max_sector)
		o->max_sector = end;
	if (ob && ob->size >= 512)
		cap = ob->size / 512;
	else
		for (cap = 1u << 20; cap < o->max_sector; cap <<= 1)
			;
	if (ev->sector >= cap)
		return VXTOP_LBA_BUCKETS - 1;
	return (unsigned)((ev->sector * VXTOP_LBA_BUCKETS) / cap);
}

static void note_error(struct vxtop_model *m, const struct vxt_event *ev)
{
	struct vxtop_err *e = &m->errs[m->nerrs % VXTOP_ERR_RING];
	size_t i;

	e->time_ns = ev->time_ns;
	e->real_ns = ev->time_ns - m->anchor_mono + m->anchor_real;
	e->sector = ev->sector;
	e->object = ev->object;
	e->bytes = ev->bytes;
	e->pid = ev->pid;
	e->comm = ev->comm;
	e->error = ev->error;
	e->op = ev->op;
	m->nerrs++;
	m->cur_errors++;
	for (i = 0; i < m->nkinds; i++)
		if (m->kinds[i].object == ev->object && m->kinds[i].error == ev->error)
			break;
	if (i == m->nkinds) {
		if (m->nkinds == VXTOP_ERR_KINDS)
			return;
		m->kinds[i].object = ev->object;
		m->kinds[i].error = ev->error;
		m->nkinds++;
	}
	m->kinds[i].count++;
	m->kinds[i].last_ns = ev->time_ns;
}

/* The in-flight key of @ev: its object and op, and its first sector (a
 * partial completion keeps the sector, not the length). */
static uint32_t inflight_dev(const struct vxt_event *ev)
{
	return ev->object * 8u + (ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER);
}

/* Object @id has more I/O in flight than its device holds: its oldest
 * start lost its completion; it ages out. */
static void over_queue(struct vxtop_model *m, struct vxtop_obj *o, uint32_t id)
{
	if (vxt_flight_drop_oldest(m->inflight, id) && o->in_flight > 0) {
		o->in_flight--;
		o->acc.aged_out++;
		m->aged_out++;
	}
}

/* The requests the device of @id holds at most, asked once. */
static void ask_queue_max(struct vxtop_model *m, struct vxtop_obj *o, uint32_t id)
{
	const struct vxt_object *ob = vxt_objtab_get(m->objs, id);

	o->queue_asked = true;
	if (!m->queue_max || !ob || m->queue_max(ob->dev, &o->queue_max) < 0)
		o->queue_max = 0;
}

static int on_start(struct vxtop_model *m, struct vxtop_obj *o, const struct vxt_event *ev)
{
	uint64_t t = ev->time_ns;
	int rc;

	rc = vxt_flight_feed(m->inflight, ev);
	if (rc <= 0)
		return rc;	/* not followed: a full table */
	if (o->in_flight++ == 0 && t > o->busy_mark)
		o->busy_mark = t;
	if (!o->queue_asked)
		ask_queue_max(m, o, ev->object);
	if (o->queue_max && (uint64_t)o->in_flight > o->queue_max)
		over_queue(m, o, ev->object);
	return 0;
}

/* One in-flight I/O of @o ended at @t: busy time runs up to the last one. */
static void leave_flight(struct vxtop_obj *o, uint64_t t)
{
	if (o->in_flight > 0 && --o->in_flight == 0 && t > o->busy_mark) {
		o->acc.busy_ns += t - o->busy_mark;
		o->busy_mark = t;
	}
}

/* A completion or a requeue: @return true if its start was in flight. */
static bool take_flight(struct vxtop_model *m, struct vxtop_obj *o, const struct vxt_event *ev)
{
	if (vxt_flight_feed(m->inflight, ev) != 1)
		return false;	/* none, or one out of flight already */
	leave_flight(o, ev->time_ns);
	return true;
}

/* A bio queued (Q): its queue time waits for its completion or a merge. */
static int on_queue(struct vxtop_model *m, const struct vxt_event *ev)
{
	struct vxt_iopair_val v = { ev->time_ns, 0, 0 };

	if (vxt_iopair_count(m->queued) >= VXT_IOPAIR_MAX - 1)
		return 0;
	return vxt_iopair_put(m->queued, inflight_dev(ev), ev->sector, 0, &v);
}

/* A bio merged into a request (M, F): it completes as part of another. */
static void on_merge(struct vxtop_model *m, struct vxtop_obj *o, const struct vxt_event *ev)
{
	struct vxt_iopair_val v;

	vxt_iopair_take(m->queued, inflight_dev(ev), ev->sector, 0, &v);
	if (ev->op == VXT_OP_READ)
		o->acc.merges[0]++;
	else if (ev->op == VXT_OP_WRITE || ev->op == VXT_OP_WRITE_ZEROES)
		o->acc.merges[1]++;
}

static void on_done(struct vxtop_model *m, struct vxtop_obj *o, uint32_t id,
		    const struct vxt_event *ev)
{
	struct vxtop_osnap *a = &o->acc;
	unsigned op = ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER;
	struct vxt_iopair_val q;
	uint64_t rq = ev->latency_ns;

	if (!take_flight(m, o, ev))
		a->unpaired_done++;
	a->ios[op]++;
	if (ev->op == VXT_OP_READ)
		a->bytes_read += ev->bytes;
	else if (ev->op == VXT_OP_WRITE || ev->op == VXT_OP_WRITE_ZEROES)
		a->bytes_written += ev->bytes;
	else if (ev->op == VXT_OP_DISCARD)
		a->bytes_discarded += ev->bytes;
	if (ev->latency_ns) {
		vxt_latdist_add(&o->lat, ev->latency_ns);
		a->lat_n++;
		a->lat_sum += ev->latency_ns;
	}
	/* the request's time as iostat counts it: from its queueing when seen */
	if (m->queue_seen && vxt_iopair_take(m->queued, inflight_dev(ev), ev->sector, 0, &q) &&
	    q.time_ns <= ev->time_ns) {
		rq = ev->time_ns - q.time_ns;
		a->q2c_n++;
		a->q2c_sum += rq;
	}
	if (rq) {
		a->rq_n[op]++;
		a->rq_sum[op] += rq;
	}
	if (ev->bytes)
		a->lba[lba_bucket(m, o, id, ev)]++;
}

/* A lost event: one naming an issue with no completion
 * (vxt_event_lost_io()) takes that I/O out of the flight there; one naming
 * none moves the table's mark. */
static int on_lost(struct vxtop_model *m, const struct vxt_event *ev)
{
	int rc;

	if (ev->lost_io && ev->object >= m->nobj && (rc = vxtop_model_grow(m, ev->object)) < 0)
		return rc;
	rc = vxt_flight_feed(m->inflight, ev);
	if (rc == 1)
		leave_flight(&m->obj[ev->object], ev->time_ns);
	return rc < 0 ? rc : 0;
}

int vxtop_model_feed(struct vxtop_model *m, const struct vxt_event *ev, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++, ev++) {
		struct vxtop_obj *o;

		rc = vxt_stats_add(&m->total, ev);
		if (rc < 0)
			return rc;
		rc = vxt_procstats_add(&m->procs, ev);
		if (rc < 0)
			return rc;
		m->cur_events++;
		if (ev->phase == VXT_PH_LOST) {
			m->cur_lost += vxt_event_lost_count(ev);
			rc = on_lost(m, ev);
			if (rc < 0)
				return rc;
			continue;
		}
		if (ev->phase == VXT_PH_QUEUE || ev->phase == VXT_PH_MERGE ||
		    ev->phase == VXT_PH_GETRQ || ev->phase == VXT_PH_INSERT)
			m->queue_seen = true;
		if (ev->phase == VXT_PH_QUEUE) {
			rc = on_queue(m, ev);
			if (rc < 0)
				return rc;
			continue;
		}
		if (ev->phase != VXT_PH_START && ev->phase != VXT_PH_DONE &&
		    ev->phase != VXT_PH_REQUEUE && ev->phase != VXT_PH_MERGE)
			continue;
		if (ev->object >= m->nobj) {
			rc = vxtop_model_grow(m, ev->object);
			if (rc < 0)
				return rc;
		}
		o = &m->obj[ev->object];
		o->seen = true;
		o->events++;
		if (ev->phase == VXT_PH_START) {
			rc = on_start(m, o, ev);
			if (rc < 0)
				return rc;
			continue;
		}
		if (ev->phase == VXT_PH_MERGE) {
			on_merge(m, o, ev);
			continue;
		}
		if (ev->phase == VXT_PH_REQUEUE) {	/* back on the queue: issued again later */
			take_flight(m, o, ev);
			continue;
		}
		on_done(m, o, ev->object, ev);
		if (ev->error) {
			o->acc.errors++;
			note_error(m, ev);
		}
	}
	return 0;
}

static struct vxtop_snap *next_slot(struct vxtop_model *m)
{
	struct vxtop_snap *s;

	if (m->nsnap < VXTOP_RING) {
		s = &m->ring[(m->first + m->nsnap) % VXTOP_RING];
		m->nsnap++;
	} else {
		s = &m->ring[m->first];
		m->first = (m->first + 1) % VXTOP_RING;
	}
	return s;
}

struct age_arg {
	struct vxtop_model *m;
};

/* vxt_flight_sweep() callback: keep a start unless a rule takes it out, or
 * (in a partial stream, where a start may never see its completion) its
 * object had no event for the whole interval. */
static bool keep_start(void *arg, uint32_t id, uint8_t op, uint64_t time_ns, bool keep_default,
		       enum vxt_flight_why why)
{
	struct age_arg *a = arg;
	struct vxtop_obj *o = id < a->m->nobj ? &a->m->obj[id] : NULL;

	(void)op, (void)time_ns;
	if (!o)
		return false;
	if (keep_default && !(a->m->partial && !o->events))
		return true;
	if (o->in_flight > 0)
		o->in_flight--;
	if (why == VXT_FLIGHT_AGED) {	/* the lost rule's: closed_by_loss */
		o->acc.aged_out++;
		a->m->aged_out++;
	}
	return false;
}

/* vxt_iopair_sweep() callback: a queued bio never issued ages out. */
static bool keep_queued(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
			const struct vxt_iopair_val *v)
{
	(void)dev, (void)sector, (void)size;
	return v->time_ns >= *(const uint64_t *)arg;
}

static void close_object(struct vxtop_obj *o, struct vxtop_osnap *d, uint64_t end_ns,
			 bool busy)
{
	o->events = 0;
	if (busy && o->in_flight > 0 && end_ns > o->busy_mark) {
		o->acc.busy_ns += end_ns - o->busy_mark;
		o->busy_mark = end_ns;
	}
	*d = o->acc;
	d->in_flight = o->in_flight > 0 ? (uint32_t)o->in_flight : 0;
	d->lat_p50 = vxt_latdist_quantile(&o->lat, 0.50);
	d->lat_p99 = vxt_latdist_quantile(&o->lat, 0.99);
	d->lat_max = o->lat.max;
	if (osnap_active(d))
		o->idle = 0;
	else if (o->idle < 1000000)
		o->idle++;
	{	/* the open interval's becomes the last one's: no copy */
		struct vxt_latdist t = o->last_lat;

		o->last_lat = o->lat;
		o->lat = t;
	}
	reset_acc(o);
}

int vxtop_model_close(struct vxtop_model *m, uint64_t end_ns)
{
	struct vxtop_snap *s;
	struct vxtop_osnap *obj;
	size_t i;

	if (end_ns < m->cur_start)
		end_ns = m->cur_start;
	s = next_slot(m);
	s->seq = m->next_seq++;
	s->nobj = 0;
	obj = realloc(s->obj, (m->nobj ? m->nobj : 1) * sizeof(*obj));
	if (!obj)
		return -ENOMEM;	/* the slot stays consistent: no objects */
	s->obj = obj;
	s->nobj = m->nobj;
	s->start_ns = m->cur_start;
	s->end_ns = end_ns;
	s->real_end_ns = end_ns - m->anchor_mono + m->anchor_real;
	s->events = m->cur_events;
	s->lost = m->cur_lost;
	s->errors = m->cur_errors;
	{
		struct age_arg a = { m };

		vxt_flight_sweep(m->inflight, end_ns, VXTOP_INFLIGHT_AGE_NS, keep_start, &a);
	}
	if (vxt_iopair_count(m->queued)) {
		uint64_t before = end_ns > VXTOP_INFLIGHT_AGE_NS ? end_ns - VXTOP_INFLIGHT_AGE_NS : 0;

		vxt_iopair_sweep(m->queued, keep_queued, &before);
	}
	vxt_stats_tick(&m->total, end_ns);	/* the lost rule at rest, as vxreplay's */
	for (i = 0; i < m->nobj; i++) {
		const struct vxt_objstats *t = vxt_stats_object(&m->total, (uint32_t)i);
		uint64_t lost = t ? t->lost_ios : 0;

		m->obj[i].acc.closed_by_loss = (int64_t)(lost - m->obj[i].lost_ios_seen);
		m->obj[i].lost_ios_seen = lost;
		close_object(&m->obj[i], &obj[i], end_ns, !m->tallied);
	}
	{	/* the open interval's processes become the last one's: no copy */
		struct vxt_procstats t = m->last_procs;

		m->last_procs = m->procs;
		m->procs = t;
		vxt_procstats_clear(&m->procs);
		vxt_procstats_sort(&m->last_procs);
	}
	m->cur_start = end_ns;
	m->cur_events = m->cur_lost = m->cur_errors = 0;
	return 0;
}

void vxtop_model_set_interval(struct vxtop_model *m, uint64_t interval_ns)
{
	if (interval_ns)
		m->interval_ns = interval_ns;
}

const struct vxtop_snap *vxtop_model_snap(const struct vxtop_model *m, size_t back)
{
	if (back >= m->nsnap)
		return NULL;
	return &m->ring[(m->first + m->nsnap - 1 - back) % VXTOP_RING];
}

const struct vxtop_err *vxtop_model_err(const struct vxtop_model *m, uint64_t back)
{
	uint64_t kept = m->nerrs < VXTOP_ERR_RING ? m->nerrs : VXTOP_ERR_RING;

	if (back >= kept)
		return NULL;
	return &m->errs[(m->nerrs - 1 - back) % VXTOP_ERR_RING];
}

uint64_t vxtop_model_closed_by_loss(const struct vxtop_model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->total.nobj; i++)
		n += m->total.obj[i].lost_ios;
	return n;
}

uint64_t vxtop_model_obj_errors(const struct vxtop_model *m, uint32_t id)
{
	const struct vxt_objstats *o;

	if (id == UINT32_MAX) {
		uint64_t n = 0;

		for (size_t i = 0; i < m->total.nobj; i++)
			n += m->total.obj[i].errors;
		for (size_t i = 0; i < m->nobj; i++)
			n += m->obj[i].kernel_errors;
		return n;
	}
	o = vxt_stats_object(&m->total, id);
	return (o ? o->errors : 0) + (id < m->nobj ? m->obj[id].kernel_errors : 0);
}

size_t vxtop_model_nobjects(const struct vxtop_model *m)
{
	size_t n = vxt_objtab_count(m->objs);

	return n > m->nobj ? n : m->nobj;
}

/* ---- rows ---- */

static const struct {
	const char *title, *name;
} cols[VXTOP_COL_COUNT] = {
	[VXTOP_COL_NAME] = { "OBJECT", "name" },
	[VXTOP_COL_RPS] = { "r/s", "reads per second" },
	[VXTOP_COL_WPS] = { "w/s", "writes per second" },
	[VXTOP_COL_RMBS] = { "rMB/s", "MB (2^20 bytes) read per second" },
	[VXTOP_COL_WMBS] = { "wMB/s", "MB (2^20 bytes) written per second" },
	[VXTOP_COL_AVG] = { "avg", "average latency" },
	[VXTOP_COL_P99] = { "p99", "99th percentile latency" },
	[VXTOP_COL_QD] = { "qd", "I/Os in flight (queue depth)" },
	[VXTOP_COL_UTIL] = { "util%", "utilisation" },
	[VXTOP_COL_ERR] = { "err", "errors in the interval" },
};

const char *vxtop_col_title(unsigned col)
{
	return col < VXTOP_COL_COUNT ? cols[col].title : "?";
}

const char *vxtop_col_name(unsigned col)
{
	return col < VXTOP_COL_COUNT ? cols[col].name : "?";
}

int vxtop_col_parse(const char *s)
{
	static const char *const alias[VXTOP_COL_COUNT] = {
		"name", "rps", "wps", "rmbs", "wmbs", "lat", "p99lat", "inflight", "util", "errors",
	};
	unsigned i;

	for (i = 0; i < VXTOP_COL_COUNT; i++)
		if (!strcasecmp(s, cols[i].title) || !strcasecmp(s, alias[i]))
			return (int)i;
	if (!strcasecmp(s, "object") || !strcasecmp(s, "device"))
		return VXTOP_COL_NAME;
	if (!strcasecmp(s, "err"))
		return VXTOP_COL_ERR;
	return -1;
}

/* Mean of @sum over @n in ms, or -1 when @n is 0. */
static double await_ms(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / n / 1e6 : -1;
}

/* iostat -x's columns with its definitions (sysstat's compute_ext_disk_stats):
 * writes include write-zeroes; aqu-sz is the request time of the
 * interval's completions (reads, writes, discards, flushes) over its length,
 * as the kernel's time_in_queue; areq-sz the bytes of reads, writes and
 * discards over their count, in kB (1024 bytes). */
static void iostat_fill(const struct vxtop_model *m, const struct vxtop_osnap *o, double sec,
			struct vxtop_row *r)
{
	uint64_t wn = o->rq_n[VXT_OP_WRITE] + o->rq_n[VXT_OP_WRITE_ZEROES];
	uint64_t ws = o->rq_sum[VXT_OP_WRITE] + o->rq_sum[VXT_OP_WRITE_ZEROES];
	uint64_t nios = o->ios[VXT_OP_READ] + o->ios[VXT_OP_WRITE] + o->ios[VXT_OP_WRITE_ZEROES] +
			o->ios[VXT_OP_DISCARD];
	uint64_t busy = o->rq_sum[VXT_OP_READ] + ws + o->rq_sum[VXT_OP_DISCARD] +
			o->rq_sum[VXT_OP_FLUSH];

	r->r_await = await_ms(o->rq_sum[VXT_OP_READ], o->rq_n[VXT_OP_READ]);
	r->w_await = await_ms(ws, wn);
	r->d_await = await_ms(o->rq_sum[VXT_OP_DISCARD], o->rq_n[VXT_OP_DISCARD]);
	r->f_await = await_ms(o->rq_sum[VXT_OP_FLUSH], o->rq_n[VXT_OP_FLUSH]);
	r->aqu_sz = busy / (sec * 1e9);
	r->areq_sz = nios ? (o->bytes_read + o->bytes_written + o->bytes_discarded) / 1024.0 / nios
			  : 0;
	if (m->queue_seen) {
		r->rrqm_s = o->merges[0] / sec;
		r->wrqm_s = o->merges[1] / sec;
		if (o->q2c_n)
			r->q2c_avg = (double)o->q2c_sum / o->q2c_n;
	}
	if (o->lat_n)
		r->d2c_avg = (double)o->lat_sum / o->lat_n;
}

void vxtop_row_fill(const struct vxtop_model *m, const struct vxtop_snap *s, uint32_t id,
		    struct vxtop_row *r)
{
	const struct vxtop_osnap *o = vxtop_snap_obj(s, id);
	const struct vxt_object *ob = vxt_objtab_get(m->objs, id);
	const struct vxtop_obj *st = id < m->nobj ? &m->obj[id] : NULL;
	double sec;

	memset(r, 0, sizeof(*r));
	r->r_await = r->w_await = r->d_await = r->f_await = -1;
	r->rrqm_s = r->wrqm_s = r->q2c_avg = r->d2c_avg = -1;
	r->object = id;
	r->name = ob ? ob->name : "?";
	r->errors_total = vxtop_model_obj_errors(m, id);
	r->idle = st ? st->idle : 1000000;
	if (m->queue_seen)	/* no event in the interval: no merge either, as iostat's 0.00 */
		r->rrqm_s = r->wrqm_s = 0;
	if (!o || s->end_ns <= s->start_ns)
		return;
	sec = (double)(s->end_ns - s->start_ns) / VXT_NSEC_PER_SEC;
	/* as iostat: write-zeroes count as writes, MB is 2^20 bytes */
	r->v[VXTOP_COL_RPS] = o->ios[VXT_OP_READ] / sec;
	r->v[VXTOP_COL_WPS] = (o->ios[VXT_OP_WRITE] + o->ios[VXT_OP_WRITE_ZEROES]) / sec;
	r->dps = o->ios[VXT_OP_DISCARD] / sec;
	r->fps = o->ios[VXT_OP_FLUSH] / sec;
	r->has_lat = o->lat_n > 0;
	r->v[VXTOP_COL_RMBS] = o->bytes_read / sec / VXTOP_MB;
	r->v[VXTOP_COL_WMBS] = o->bytes_written / sec / VXTOP_MB;
	r->v[VXTOP_COL_AVG] = o->lat_n ? (double)o->lat_sum / o->lat_n : 0;
	r->v[VXTOP_COL_P99] = (double)o->lat_p99;
	r->v[VXTOP_COL_QD] = o->in_flight;
	r->v[VXTOP_COL_UTIL] = 100.0 * o->busy_ns / (double)(s->end_ns - s->start_ns);
	if (r->v[VXTOP_COL_UTIL] > 100.0)
		r->v[VXTOP_COL_UTIL] = 100.0;
	r->v[VXTOP_COL_ERR] = (double)o->errors;
	r->aged_out = o->aged_out;
	r->closed_by_loss = o->closed_by_loss;
	iostat_fill(m, o, sec, r);
}

/* @return the sort key of @r: its figure, or for an idle object its last
 * active figure halved once per idle interval (it sinks, it does not jump). */
static double fade_key(const struct vxtop_model *m, const struct vxtop_snap *s,
		       const struct vxtop_row *r, unsigned col)
{
	const struct vxtop_snap *newest = vxtop_model_snap(m, 0);
	struct vxtop_row old;
	size_t back, k;

	if (!s || !newest || !r->idle || col == VXTOP_COL_NAME || r->v[col] != 0)
		return r->v[col];
	back = (size_t)(newest->seq - s->seq);
	for (k = 1; k <= 8; k++) {
		const struct vxtop_snap *p = vxtop_model_snap(m, back + k);
		const struct vxtop_osnap *o = vxtop_snap_obj(p, r->object);

		if (!o)
			break;
		if (osnap_active(o)) {
			vxtop_row_fill(m, p, r->object, &old);
			return ldexp(old.v[col], -(int)k);
		}
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct vxtop_row *a = pa, *b = pb;
	const struct vxtop_view *v = arg;
	int c = 0;

	if (v->sort_col == VXTOP_COL_NAME)
		c = strcmp(a->name, b->name);
	else if (a->key != b->key)
		c = a->key < b->key ? -1 : 1;
	if (!v->ascending)
		c = -c;
	if (!c)
		c = a->object < b->object ? -1 : a->object > b->object;
	return c;
}

size_t vxtop_rows(const struct vxtop_model *m, const struct vxtop_snap *s,
		  const struct vxtop_view *v, struct vxtop_row *rows)
{
	size_t i, n = 0, nobj = vxtop_model_nobjects(m);

	for (i = 0; i < nobj; i++) {
		struct vxtop_row *r = &rows[n];
		const struct vxt_object *ob = vxt_objtab_get(m->objs, (uint32_t)i);

		if (!ob && !(i < m->nobj && m->obj[i].seen))
			continue;
		vxtop_row_fill(m, s, (uint32_t)i, r);
		if (v->glob && v->glob[0] && fnmatch(v->glob, r->name, 0))
			continue;
		r->key = fade_key(m, s, r, v->sort_col);
		n++;
	}
	if (v->by_id)
		return n;
	qsort_r(rows, n, sizeof(*rows), cmp_rows, (void *)v);
	return n;
}
