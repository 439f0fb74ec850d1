/* metrics_age.c - issues in flight whose completion was never seen
 *
 * A lost event naming its I/O closes it (metrics.c). One naming no I/O (a
 * full ring) may have taken any completion, and a completion may go unseen
 * with no lost event at all: the issues are kept in vxtop's table
 * (flight.h), whose two rules take them out, those from before such a lost
 * event still without their completion VXT_LOST_GRACE_NS after it, and
 * those older than VXT_FLIGHT_AGE_NS; each is closed in its series, so
 * vxtrace_io_in_flight goes to 0 once the device is idle, as vxtop's row.
 * Invariant: an issue is closed at most once, and never takes a series' in
 * flight below 0 (an entry whose completion went unmatched ends nothing).
 */
#include <errno.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"

#define AGE_SWEEP_NS 1000000000ull	/* the age bound is looked at this often */

int metrics_age_feed(struct vxt_metrics *m, const struct vxt_event *ev)
{
	int rc;

	if (ev->time_ns >= m->last_ns) {
		m->last_ns = ev->time_ns;
		m->last_mono = vxt_now_mono();
	}
	if (ev->phase != VXT_PH_START && ev->phase != VXT_PH_DONE &&
	    ev->phase != VXT_PH_REQUEUE && ev->phase != VXT_PH_LOST)
		return 0;
	if (!m->inflight && !(m->inflight = vxt_flight_new()))
		return -ENOMEM;
	rc = vxt_flight_feed(m->inflight, ev);
	return rc < 0 || rc == VXT_FLIGHT_GONE ? rc : 0;
}

struct age_arg {
	struct vxt_metrics *m;
	uint64_t closed;
};

/* vxt_flight_sweep()'s: an issue a rule takes out is closed in its series. */
static bool keep_issue(void *arg, uint32_t object, uint8_t op, uint64_t time_ns,
		       bool keep_default, enum vxt_flight_why why)
{
	struct age_arg *a = arg;
	struct vxt_metrics *m = a->m;
	size_t k = (size_t)object * VXT_OP_COUNT + op;
	struct metrics_series *ser;

	(void)time_ns, (void)why;
	if (keep_default)
		return true;
	if (k >= m->nindex || !m->index[k])
		return false;	/* its series went with its device */
	ser = &m->live.ser[m->index[k] - 1];
	if (ser->started > ser->completed + ser->closed) {
		ser->closed++;
		a->closed++;
	}
	return false;
}

uint64_t metrics_age(struct vxt_metrics *m, uint64_t now_ns)
{
	struct age_arg a = { m, 0 };
	uint64_t before;

	if (!m->inflight || m->tallied)
		return 0;
	before = vxt_flight_lost_before(m->inflight, now_ns);
	if ((!before || before == m->aged_mark) && now_ns < m->age_next)
		return 0;
	if (before)
		m->aged_mark = before;	/* later issues are after the mark */
	m->age_next = now_ns + AGE_SWEEP_NS;
	vxt_flight_sweep(m->inflight, now_ns, VXT_FLIGHT_AGE_NS, keep_issue, &a);
	return a.closed;
}

void metrics_age_free(struct vxt_metrics *m)
{
	vxt_flight_free(m->inflight);
	m->inflight = NULL;
}
