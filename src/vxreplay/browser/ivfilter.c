/* ivfilter.c - the browser's filter on the interval fields (q2c, ...)
 *
 * The browser evaluates its filter on chunks in any order, so a completion's
 * intervals cannot come from a pairer fed as the events go by. They come
 * from the model's one pairing of the whole file (pairjob.h): a completion's
 * row, found by its ordinal, gives what vxt_phasepair_add() would
 * (vr_ioph_ivals()); making the filter brings that pass to the end of the
 * file first when it has not got there, and nothing is paired twice. Every
 * other event, and a completion without a row, has its intervals unknown
 * (false in every comparison), as in `vxreplay --filter`; on a capture of
 * issue and completion, d2c is each completion's latency. Past VR_IOPH_MAX
 * completions the rest stay unknown (the pairing's note says so).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ioph.h"
#include "browser/ivfilter.h"
#include "browser/model.h"
#include "browser/pairjob.h"
#include "vxtrace/filter.h"

struct vr_ivfilter {
	struct vxt_filter *f;
	const struct vr_model *m;
};

struct vr_ivfilter *vr_ivfilter_new(struct vr_model *m, struct vxt_filter *f, char *err,
				    size_t errsz)
{
	struct vr_ivfilter *x = calloc(1, sizeof(*x));
	struct vr_job *j = &m->job[VR_JOB_PAIR];

	if (!x) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (!vr_model_job_reader(m)) {
		snprintf(err, errsz, "%s", m->note);
		free(x);
		return NULL;
	}
	x->f = f;
	x->m = m;
	vr_pair_want(m);
	while (m->pair_state == VR_PAIR_RUNNING && j->active)
		vr_pair_step(m, j);
	if (m->ioph.oom) {
		snprintf(err, errsz, "out of memory");
		free(x);
		return NULL;
	}
	return x;
}

bool vr_ivfilter_match(struct vr_ivfilter *x, const struct vxt_event *ev, uint64_t ord)
{
	const struct vr_model *m = x->m;
	struct vxt_filter_ctx ctx = { .iv = NULL };
	struct vxt_ivals iv;

	if (ev->phase == VXT_PH_DONE) {
		const struct vr_ioph_row *r = NULL;
		bool paired = m->pair_state == VR_PAIR_RUNNING || m->pair_state == VR_PAIR_DONE;

		if (paired && ord < m->ioph.through)
			r = vr_ioph_find(&m->ioph, ord);
		if (r || m->pair_state == VR_PAIR_ISSUE_ONLY) {
			vr_ioph_ivals(r, ev, &iv);
			ctx.iv = &iv;
		}
	}
	return vxt_filter_eval(x->f, ev, &ctx);
}

void vr_ivfilter_free(struct vr_ivfilter *x)
{
	free(x);
}
