/* collect_impl.h - what collect.c and follow.c share (internal to vxtop) */
#ifndef VXTOP_COLLECT_IMPL_H
#define VXTOP_COLLECT_IMPL_H

#include "collect.h"

/* Look for appended chunks this often when following a file. */
#define FOLLOW_POLL_NS 100000000ull

/* Open the followed file of @o (follow.c). @return 0 or a negative errno
 * with the message in c->err. */
int vxtop_follow_open(struct vxtop_collector *c, const struct vxtop_opts *o);
/* Read what the followed file gained, and cross a rotation of its path.
 * @return 0 or a negative errno with the message in c->err. */
int vxtop_follow_read(struct vxtop_collector *c);
/* Take the events in c->batch: through the view (when there is one) to the
 * recording, the metrics and the model; the batch is emptied.
 * @return 0 or a negative errno with the message in c->err. */
int vxtop_collect_take_batch(struct vxtop_collector *c);
/* A view on the objects and strings now in use (the reader rebuilt its
 * tables). @return 0 or -EINVAL. */
int vxtop_collect_rebuild_view(struct vxtop_collector *c);

#endif
