/* keep_filter.c - --filter over the events in scope, interval fields
 * included: when the expression reads q2d, d2c, q2c, q2g, g2i or i2d, every
 * event in scope is fed to a phase pairer (phasepair.h) before the filter
 * sees it, so a completion is judged by its own I/O's intervals. */
#include <stdlib.h>

#include "vxtrace/filter.h"
#include "vxtrace/phasepair.h"
#include "report/keep_filter.h"

struct keep_filter {
	struct vxt_filter *f;
	struct vxt_phasepair *pp;	/* NULL: the filter reads no interval */
	uint64_t next;			/* the ordinal expected next */
};

struct keep_filter *keep_filter_new(struct vxt_filter *f)
{
	struct keep_filter *k = calloc(1, sizeof(*k));

	if (!k) {
		vxt_filter_free(f);
		return NULL;
	}
	k->f = f;
	if (vxt_filter_uses_intervals(f) && !(k->pp = vxt_phasepair_new())) {
		keep_filter_free(k);
		return NULL;
	}
	return k;
}

bool keep_filter_match(const struct vxt_event *ev, uint64_t ordinal, void *arg)
{
	struct keep_filter *k = arg;
	struct vxt_ivals iv;
	struct vxt_filter_ctx ctx = { .iv = &iv };

	if (!k->pp)
		return vxt_filter_matches(k->f, ev);
	if (ordinal < k->next)
		vxt_phasepair_reset(k->pp);
	k->next = ordinal + 1;
	if (vxt_phasepair_add(k->pp, ev, &iv) < 0)
		vxt_ivals_unset(&iv);	/* out of memory: this one unpaired */
	return vxt_filter_eval(k->f, ev, &ctx);
}

void keep_filter_free(struct keep_filter *k)
{
	if (!k)
		return;
	vxt_filter_free(k->f);
	vxt_phasepair_free(k->pp);
	free(k);
}
