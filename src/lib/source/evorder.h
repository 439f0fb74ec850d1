/* evorder.h - a reorder window for events that arrive late by a bound
 *
 * Events go in as a source decodes them; out come, in time order (events of
 * the same time in arrival order), those older than the newest seen minus
 * the window, or all of them at the end. Once the source knows a horizon
 * (nothing older than it is still to come), that rules instead: out come
 * those older than the horizon.
 */
#ifndef VXT_SOURCE_EVORDER_H
#define VXT_SOURCE_EVORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "vxtrace/source.h"

struct vxt_evorder {
	struct vxt_batch held;
	struct vxt_event *tmp;		/* merge sort scratch */
	size_t tmp_cap;
	uint64_t window_ns;
	uint64_t maxt;			/* newest time seen */
	bool has_horizon;
	uint64_t horizon;		/* nothing older to come */
};

void vxt_evorder_init(struct vxt_evorder *o, uint64_t window_ns);
/* The batch to decode into; vxt_evorder_release() takes what is in it. */
static inline struct vxt_batch *vxt_evorder_batch(struct vxt_evorder *o)
{
	return &o->held;
}
/* Nothing older than @horizon_ns is still to come (a later, smaller one is
 * ignored). */
static inline void vxt_evorder_horizon(struct vxt_evorder *o, uint64_t horizon_ns)
{
	if (!o->has_horizon || horizon_ns > o->horizon)
		o->horizon = horizon_ns;
	o->has_horizon = true;
}
/* Move the events that are out of the window (all with @all) to @out, in
 * time order. @return 0 or -ENOMEM. */
int vxt_evorder_release(struct vxt_evorder *o, struct vxt_batch *out, bool all);
void vxt_evorder_free(struct vxt_evorder *o);

#endif
