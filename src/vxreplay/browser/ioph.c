/* ioph.c - the browser's I/Os across phases (ioph.h)
 *
 * The pairer (vxtrace/pairer.h) follows the I/Os; each completion's row goes
 * to an array in ordinal order, found by bisection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ioph.h"

#include "vxtrace/pairer.h"
#include "vxtrace/util.h"

int vr_ioph_init(struct vr_ioph *p)
{
	memset(p, 0, sizeof(*p));
	p->pr = vxt_pairer_new(VXT_PAIRER_UNQUEUED);
	return p->pr ? 0 : -ENOMEM;
}

void vr_ioph_free(struct vr_ioph *p)
{
	vxt_pairer_free(p->pr);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

static int complete(struct vr_ioph *p, const struct vxt_event *ev, const struct vxt_pstep *st,
		    uint64_t ord)
{
	static const int pt[VR_PH_KINDS] = { VXT_PT_Q, VXT_PT_G, VXT_PT_I, VXT_PT_D };
	struct vr_ioph_row r = { .ord = ord };
	uint64_t t[VXT_PT_COUNT];

	p->completions++;
	vxt_pairer_request(st, t);
	for (int k = 0; k < VR_PH_KINDS; k++)
		r.t[k] = t[pt[k]] == VXT_PT_UNSET ? 0 : t[pt[k]];
	r.d_paired = r.t[VR_PH_D] != 0;
	/* no issue paired: the source's own measure of the issue, if any */
	if (!r.t[VR_PH_D] && ev->latency_ns && ev->latency_ns <= ev->time_ns)
		r.t[VR_PH_D] = ev->time_ns - ev->latency_ns;
	for (int k = 0; k < VR_PH_KINDS; k++)
		p->unpaired[k] += !r.t[k];
	if (p->n == VR_IOPH_MAX) {
		p->full = true;
		return 0;
	}
	if (p->n == p->cap && vxt_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows)) < 0)
		return -ENOMEM;
	p->rows[p->n++] = r;
	return 0;
}

int vr_ioph_push(struct vr_ioph *p, const struct vxt_event *ev, uint64_t ord)
{
	struct vxt_pstep st;
	int rc;

	p->through = ord + 1;
	rc = vxt_pairer_add(p->pr, ev, ord, &st);
	if (rc >= 0)
		switch (ev->phase) {
		case VXT_PH_MERGE:
			if (st.what == VXT_PS_MARKED)
				p->merged++;
			else
				p->stray_merges++;
			break;
		case VXT_PH_REQUEUE:
			if (st.what == VXT_PS_MARKED)
				p->requeued++;
			else
				p->stray_requeues++;
			break;
		case VXT_PH_DONE:
			rc = complete(p, ev, &st, ord);
			break;
		default:
			break;
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

static uint64_t span(uint64_t from, uint64_t to)
{
	return !from || !to || to < from ? VXT_IV_UNSET : to - from;
}

void vr_ioph_ivals(const struct vr_ioph_row *r, const struct vxt_event *c, struct vxt_ivals *iv)
{
	uint64_t d = r && r->d_paired ? r->t[VR_PH_D] : 0;

	vxt_ivals_unset(iv);
	if (c->phase != VXT_PH_DONE)
		return;
	if (r) {
		iv->v[VXT_IV_Q2D] = span(r->t[VR_PH_Q], d);
		iv->v[VXT_IV_D2C] = span(d, c->time_ns);
		iv->v[VXT_IV_Q2C] = span(r->t[VR_PH_Q], c->time_ns);
		iv->v[VXT_IV_Q2G] = span(r->t[VR_PH_Q], r->t[VR_PH_G]);
		iv->v[VXT_IV_G2I] = span(r->t[VR_PH_G], r->t[VR_PH_I]);
		iv->v[VXT_IV_I2D] = span(r->t[VR_PH_I], d);
	}
	if (!d && c->latency_ns)
		iv->v[VXT_IV_D2C] = c->latency_ns;
}
