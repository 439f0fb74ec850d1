/* pairer_steps.h - the pairer's step for one phase, inline: queue, getrq,
 * insert, merge, issue and completion (for the library's layers above)
 *
 * Each does exactly what vxt_pairer_add() (pairer.h) does for an event of
 * its phase, with the same result and the same *@st. A caller that feeds
 * every event and switches on the phase itself (the breakdown) takes them
 * so that an event costs its one dispatch and no call: they and pairer.h
 * are the whole of what such a caller uses. The layout they inline is the
 * pairer's own (pairer_impl.h, private to common/).
 */
#ifndef VXT_PAIRER_STEPS_H
#define VXT_PAIRER_STEPS_H

#include "common/pairer_impl.h"

/* A queue (VXT_PH_QUEUE) @ev with its ordinal @ord. @return 0, or -ENOMEM
 * (then the event is left out: *st says nothing). */
PAIRER_INLINE int vxt_pairer_queue(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
				   struct vxt_pstep *st)
{
	struct pobj *o;

	pairer_step(st);
	if (!(o = pairer_obj(p, ev->object)))
		return -ENOMEM;
	return pairer_on_queue(p, o, ev, ord, st);
}

/* A getrq, insert or merge, @k its phase time (VXT_PT_G, VXT_PT_I,
 * VXT_PT_M: a constant folds the other two away). @return as
 * vxt_pairer_queue(). */
PAIRER_INLINE int vxt_pairer_mark(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
				  struct vxt_pstep *st, int k)
{
	struct pobj *o;

	pairer_step(st);
	if (!(o = pairer_obj(p, ev->object)))
		return -ENOMEM;
	return pairer_on_phase(p, o, ev, ord, st, k);
}

/* An issue (VXT_PH_START). @return as vxt_pairer_queue(). */
PAIRER_INLINE int vxt_pairer_issue(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
				   struct vxt_pstep *st)
{
	struct pobj *o;

	pairer_step(st);
	if (!(o = pairer_obj(p, ev->object)))
		return -ENOMEM;
	return pairer_on_issue(p, o, ev, ord, st);
}

/* A completion (VXT_PH_DONE); @ord is not read (a completion opens no
 * I/O). @return as vxt_pairer_queue(). */
PAIRER_INLINE int vxt_pairer_done(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
				  struct vxt_pstep *st)
{
	struct pobj *o;

	(void)ord;
	pairer_step(st);
	if (!(o = pairer_obj(p, ev->object)))
		return -ENOMEM;
	return pairer_on_done(p, o, ev, st);
}

#endif
