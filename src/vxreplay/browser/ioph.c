/* ioph.c - the browser's I/Os across phases (ioph.h)
 *
 * One in-flight table (vxtrace/iopair.h) per kind of phase, keyed by the
 * object and the first sector (the size is left out: a request grows by
 * the bios merged into it); equal keys come out oldest first. Each
 * completion's row goes to an array in ordinal order, found by bisection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ioph.h"

#include "vxtrace/iopair.h"

int vr_ioph_init(struct vr_ioph *p)
{
	memset(p, 0, sizeof(*p));
	for (int k = 0; k < VR_PH_KINDS; k++) {
		p->wait[k] = vxt_iopair_new();
		if (!p->wait[k]) {
			vr_ioph_free(p);
			return -ENOMEM;
		}
	}
	return 0;
}

void vr_ioph_free(struct vr_ioph *p)
{
	for (int k = 0; k < VR_PH_KINDS; k++)
		vxt_iopair_free(p->wait[k]);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

static int wait_put(struct vr_ioph *p, int kind, const struct vxt_event *ev)
{
	struct vxt_iopair_val v = { .time_ns = ev->time_ns, .pid = ev->pid, .comm = ev->comm };

	return vxt_iopair_put(p->wait[kind], ev->object, ev->sector, 0, &v);
}

static bool wait_take(struct vr_ioph *p, int kind, const struct vxt_event *ev, uint64_t *t)
{
	struct vxt_iopair_val v;

	if (!vxt_iopair_take(p->wait[kind], ev->object, ev->sector, 0, &v))
		return false;
	*t = v.time_ns;
	return true;
}

static int complete(struct vr_ioph *p, const struct vxt_event *ev, uint64_t ord)
{
	struct vr_ioph_row r = { .ord = ord };

	p->completions++;
	for (int k = 0; k < VR_PH_KINDS; k++)
		if (!wait_take(p, k, ev, &r.t[k]))
			r.t[k] = 0;
	/* no issue event: the source's own measure of the issue, if any */
	if (!r.t[VR_PH_D] && ev->latency_ns && ev->latency_ns <= ev->time_ns)
		r.t[VR_PH_D] = ev->time_ns - ev->latency_ns;
	for (int k = 0; k < VR_PH_KINDS; k++)
		p->unpaired[k] += !r.t[k];
	if (p->n == VR_IOPH_MAX) {
		p->full = true;
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		struct vr_ioph_row *n = realloc(p->rows, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->rows = n;
		p->cap = cap;
	}
	p->rows[p->n++] = r;
	return 0;
}

int vr_ioph_push(struct vr_ioph *p, const struct vxt_event *ev, uint64_t ord)
{
	uint64_t t;
	int rc = 0;

	p->through = ord + 1;
	switch (ev->phase) {
	case VXT_PH_QUEUE: rc = wait_put(p, VR_PH_Q, ev); break;
	case VXT_PH_GETRQ: rc = wait_put(p, VR_PH_G, ev); break;
	case VXT_PH_INSERT: rc = wait_put(p, VR_PH_I, ev); break;
	case VXT_PH_START: rc = wait_put(p, VR_PH_D, ev); break;
	case VXT_PH_MERGE:
		if (wait_take(p, VR_PH_Q, ev, &t))
			p->merged++;
		else
			p->stray_merges++;
		break;
	case VXT_PH_REQUEUE:
		if (wait_take(p, VR_PH_D, ev, &t))
			p->requeued++;
		else
			p->stray_requeues++;
		break;
	case VXT_PH_DONE: rc = complete(p, ev, ord); break;
	default: break;
	}
	if (rc < 0)
		p->oom = true;
	return rc;
}

const struct vr_ioph_row *vr_ioph_find(const struct vr_ioph *p, uint64_t ord)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->rows[mid].ord < ord)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->rows[lo].ord == ord ? &p->rows[lo] : NULL;
}

int vr_ioph_interval(const struct vr_ioph_row *r, uint64_t c_ns, int from, int to, uint64_t *ns)
{
	uint64_t a = r->t[from], b = to == VR_PH_KINDS ? c_ns : r->t[to];

	if (!a || !b || b < a)
		return 0;
	*ns = b - a;
	return 1;
}
