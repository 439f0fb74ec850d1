/* ioph.h - the browser's I/Os across phases: Q, G, I, D and C of each I/O
 *
 * Events in file order go in; each completion comes out with the times of
 * its own queue (Q), getrq (G), insert (I) and issue (D), as the pairer
 * (vxtrace/pairer.h) follows them, also from a phase after a queue that was
 * not captured; seen as a request: the queue is that of the bio that got
 * the request, the getrq, insert and issue the request's
 * (vxt_pairer_request()). A merge marks the queued bio it joins, a requeue
 * forgets the issue. A phase not paired stays 0 (counted, never guessed); a
 * completion's issue time, when none was paired, is its time minus its
 * latency, as the source measured it.
 * No curses, no reader: the model feeds it chunk by chunk (jobs.c).
 */
#ifndef VXREPLAY_BROWSER_IOPH_H
#define VXREPLAY_BROWSER_IOPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/event.h"
#include "vxtrace/phasepair.h"

#define VR_IOPH_MAX	(1u << 22)	/* completions kept (48 bytes each) */

enum { VR_PH_Q, VR_PH_G, VR_PH_I, VR_PH_D, VR_PH_KINDS };

/* One completed I/O: its completion's ordinal and the times of its phases
 * (ns; 0 = that phase was not paired; the issue, when none was paired, is
 * the completion's time minus its latency, and d_paired is false). */
struct vr_ioph_row {
	uint64_t ord;
	uint64_t t[VR_PH_KINDS];
	bool d_paired;
};

struct vxt_pairer;

struct vr_ioph {
	struct vxt_pairer *pr;			/* the I/Os followed */
	struct vr_ioph_row *rows;		/* by ordinal */
	size_t n, cap;
	bool full;				/* VR_IOPH_MAX reached: later ones not kept */
	uint64_t through;			/* ordinals below this were fed */
	uint64_t completions;
	uint64_t unpaired[VR_PH_KINDS];		/* completions without that phase */
	uint64_t merged, requeued;		/* merges and requeues that took theirs */
	uint64_t stray_merges, stray_requeues;	/* ... that found none */
	bool oom;
};

/* @return 0 or -ENOMEM. */
int vr_ioph_init(struct vr_ioph *p);
void vr_ioph_free(struct vr_ioph *p);
/* Feed event @ev of ordinal @ord (ordinals increasing). @return 0 or -ENOMEM. */
int vr_ioph_push(struct vr_ioph *p, const struct vxt_event *ev, uint64_t ord);
/* The row of completion @ord, or NULL (not fed yet, or not kept). */
const struct vr_ioph_row *vr_ioph_find(const struct vr_ioph *p, uint64_t ord);
/* Interval @from -> @to (VR_PH_* or VR_PH_KINDS for the completion) of a
 * row whose completion is at @c_ns: @return 1 and *ns, or 0 when a phase
 * is not paired. */
int vr_ioph_interval(const struct vr_ioph_row *r, uint64_t c_ns, int from, int to, uint64_t *ns);
/* The interval fields of completion @c (filters, formats/filter.md) from its
 * row @r, or NULL when it has none: what vxt_phasepair_add() gives for it
 * (an interval needs its issue paired; d2c is else the latency). */
void vr_ioph_ivals(const struct vr_ioph_row *r, const struct vxt_event *c, struct vxt_ivals *iv);

#endif
