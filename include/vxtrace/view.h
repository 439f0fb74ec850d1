/* view.h - the events a profile keeps: filter, then speculation
 *
 * One pipeline for every program: vxrecord --profile writes what comes out,
 * vxreplay --profile reports on it, the browser shows it. Events go in in
 * time order; out come the kept ones, in the same order, each with the id of
 * the speculation that committed it (0 when it was kept without one).
 *
 *   struct vxt_view *v = vxt_view_new(profile, NULL, objs, strs, err);
 *   vxt_view_push(v, batch, n);
 *   while (vxt_view_next(v, &out) == 1)
 *           write(&out.ev);
 *   ...
 *   vxt_view_finish(v);                     // end of input
 *   while (vxt_view_next(v, &out) == 1)
 *           write(&out.ev);
 */
#ifndef VXTRACE_VIEW_H
#define VXTRACE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "objtab.h"
#include "profile.h"
#include "spec.h"
#include "strtab.h"

struct vxt_view_stats {
	uint64_t events_in;		/* pushed */
	uint64_t filtered_out;		/* refused by the filter */
	uint64_t events_out;		/* taken with vxt_view_next() */
	bool has_spec;
	struct vxt_spec_stats spec;	/* when has_spec */
};

struct vxt_view;

/*
 * A view of @p (may be NULL) with the extra filter expression @filter (may
 * be NULL; and-ed with the profile's). @objs and @strs are borrowed for the
 * view's life. @return the view (caller frees with vxt_view_free()), or NULL
 * with a message in @err ("filter:1:9: ..." for a bad @filter).
 */
struct vxt_view *vxt_view_new(const struct vxt_profile *p, const char *filter,
			      const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			      char err[VXT_ERRBUF_SIZE]);
/* NULL is fine. */
void vxt_view_free(struct vxt_view *v);

/* The origin of `time` in expressions: the trace's first event or the start
 * of the capture. Can't fail. */
void vxt_view_set_time_base(struct vxt_view *v, uint64_t base_ns);

/* Feed @n events in time order. Lost markers always pass.
 * @return 0 or -ENOMEM. */
int vxt_view_push(struct vxt_view *v, const struct vxt_event *ev, size_t n);

/* Feed one event numbered @ordinal (e.g. its ordinal in the file), above
 * every ordinal fed before. @return 0, -EINVAL (ordinal too low) or -ENOMEM. */
int vxt_view_push_at(struct vxt_view *v, const struct vxt_event *ev, uint64_t ordinal);

/* The next kept event; out->seq is the event's ordinal among all pushed
 * events, out->spec its speculation (0 = none).
 * @return 1, or 0 when nothing is ready (push more or finish). */
int vxt_view_next(struct vxt_view *v, struct vxt_spec_event *out);

/* End of input: open speculations are discarded, the rest is released. */
void vxt_view_finish(struct vxt_view *v);

void vxt_view_get_stats(const struct vxt_view *v, struct vxt_view_stats *st);

#endif
