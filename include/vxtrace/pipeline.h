/* pipeline.h - source -> view -> sink: the one loop every program runs
 *
 * Whatever the events come from (a capture source, a followed file, the
 * events a report covers, a decoded chunk), they go through a view (the
 * filter, then the speculation of a profile, view.h) and every event the view
 * lets out goes to a sink: the trace writer's batch (vxrecord --profile), the
 * counted batch (vxtop --profile/--filter), the kept ordinals (vxreplay
 * --profile reports), the browser's speculation view.
 *
 *   struct vxt_batch kept = { 0 };
 *   vxt_pipeline_push(v, batch.ev, batch.n, VXT_PIPE_NO_ORDINAL, vxt_pipe_to_batch, &kept);
 *   ...
 *   vxt_pipeline_finish(v, vxt_pipe_to_batch, &kept);     // end of input
 */
#ifndef VXTRACE_PIPELINE_H
#define VXTRACE_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "source.h"
#include "spec.h"
#include "view.h"

/* Where a kept event goes. @return 0, or a negative errno that stops the pass. */
typedef int (*vxt_pipe_sink_fn)(void *arg, const struct vxt_spec_event *out);

/* The events pushed have no ordinal of their own (the view numbers them). */
#define VXT_PIPE_NO_ORDINAL UINT64_MAX

/* Push @n events (@ordinal: the file ordinal of ev[0], the next ones
 * following, or VXT_PIPE_NO_ORDINAL) through @v and give each event it lets
 * out to @sink, in order. @return 0, or the view's or the sink's negative
 * errno. */
int vxt_pipeline_push(struct vxt_view *v, const struct vxt_event *ev, size_t n,
		      uint64_t ordinal, vxt_pipe_sink_fn sink, void *arg);
/* End of input: what the view still holds goes to @sink. @return as above. */
int vxt_pipeline_finish(struct vxt_view *v, vxt_pipe_sink_fn sink, void *arg);

/* A sink appending the events to the struct vxt_batch @arg. */
int vxt_pipe_to_batch(void *arg, const struct vxt_spec_event *out);

#endif
