/* pipeline.c - source -> view -> sink (see vxtrace/pipeline.h)
 *
 * The events go into the view all at once, then the view is drained: the
 * speculation (on the script engine) lets an event out only when its fate is known, so one
 * push may give none and a later one many.
 */
#include <errno.h>

#include "vxtrace/pipeline.h"

static int drain(struct vxt_view *v, vxt_pipe_sink_fn sink, void *arg)
{
	struct vxt_spec_event out;
	int rc;

	while (vxt_view_next(v, &out) == 1) {
		rc = sink(arg, &out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int vxt_pipeline_push(struct vxt_view *v, const struct vxt_event *ev, size_t n,
		      uint64_t ordinal, vxt_pipe_sink_fn sink, void *arg)
{
	int rc;

	if (ordinal == VXT_PIPE_NO_ORDINAL) {
		rc = vxt_view_push(v, ev, n);
		if (rc < 0)
			return rc;
	} else {
		for (size_t k = 0; k < n; k++) {
			rc = vxt_view_push_at(v, &ev[k], ordinal + k);
			if (rc < 0)
				return rc;
		}
	}
	return drain(v, sink, arg);
}

int vxt_pipeline_finish(struct vxt_view *v, vxt_pipe_sink_fn sink, void *arg)
{
	vxt_view_finish(v);
	return drain(v, sink, arg);
}

int vxt_pipe_to_batch(void *arg, const struct vxt_spec_event *out)
{
	struct vxt_event *e = vxt_batch_push(arg);

	if (!e)
		return -ENOMEM;
	*e = out->ev;
	return 0;
}
