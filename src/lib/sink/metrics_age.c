/* metrics_age.c - issues in flight whose completion a lost event took
 *
 * A lost event naming its I/O closes it (metrics.c). One naming no I/O (a
 * full ring) may have taken any completion: the issues from before it still
 * without their completion VXT_LOST_GRACE_NS after it leave the flight, the
 * rule vxtop keeps (vxt_lost_mark_due()), so vxtrace_io_in_flight goes to 0
 * once the device is idle, whatever was lost. The issues in flight are kept
 * by (object * 8 + op, sector) with their time, as vxtop keeps them.
 * Invariant: an issue ages out at most once, and never takes a series' in
 * flight below 0 (an entry whose completion went unmatched ends nothing).
 */
#include <errno.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"

_Static_assert(VXT_OP_COUNT <= 8, "an op fits the key's low 3 bits");

static uint32_t key_of(const struct vxt_event *ev)
{
	return ev->object * 8u + (ev->op < VXT_OP_COUNT ? ev->op : VXT_OP_OTHER);
}

int metrics_age_feed(struct vxt_metrics *m, const struct vxt_event *ev)
{
	struct vxt_iopair_val v = { ev->time_ns, 0, 0 };
	uint64_t sector;

	if (ev->time_ns >= m->last_ns) {
		m->last_ns = ev->time_ns;
		m->last_mono = vxt_now_mono();
	}
	switch (ev->phase) {
	case VXT_PH_START:
		if (!m->inflight && !(m->inflight = vxt_iopair_new()))
			return -ENOMEM;
		return vxt_iopair_put(m->inflight, key_of(ev), ev->sector, 0, &v);
	case VXT_PH_DONE:
		if (m->inflight)
			vxt_iopair_take(m->inflight, key_of(ev), ev->sector, 0, &v);
		return 0;
	case VXT_PH_LOST:
		if (vxt_event_lost_io(ev, &sector)) {
			if (m->inflight)
				vxt_iopair_take(m->inflight, key_of(ev), sector, 0, &v);
		} else {
			vxt_lost_mark_note(&m->lost_mark, ev);
		}
		return 0;
	default:
		return 0;
	}
}

struct age_arg {
	struct vxt_metrics *m;
	uint64_t before;
	uint64_t closed;
};

/* vxt_iopair_sweep() callback: an issue from before the mark ages out. */
static bool keep_issue(void *arg, uint32_t key, uint64_t sector, uint32_t size,
		       const struct vxt_iopair_val *v)
{
	struct age_arg *a = arg;
	struct vxt_metrics *m = a->m;
	size_t k = (size_t)(key / 8) * VXT_OP_COUNT + key % 8;
	struct metrics_series *ser;

	(void)sector, (void)size;
	if (v->time_ns >= a->before)
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
	struct age_arg a = { m, vxt_lost_mark_due(m->lost_mark, now_ns), 0 };

	if (!a.before || a.before == m->aged_mark || m->tallied)
		return 0;
	m->aged_mark = a.before;	/* later issues are after the mark */
	if (m->inflight)
		vxt_iopair_sweep(m->inflight, keep_issue, &a);
	return a.closed;
}

void metrics_age_free(struct vxt_metrics *m)
{
	vxt_iopair_free(m->inflight);
	m->inflight = NULL;
}
