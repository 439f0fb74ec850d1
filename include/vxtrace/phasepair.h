/* phasepair.h - each completion's own phase intervals, read in one pass
 *
 * Feed the events of a capture in time order; for a completion, the
 * intervals of that I/O come back: queue to issue (q2d), issue to completion
 * (d2c), queue to completion (q2c), queue to getrq (q2g), getrq to insert
 * (g2i), insert to issue (i2d). The I/Os are those of the pairer
 * (pairer.h, following also I/O whose queue was not captured), seen as
 * requests: a completion's queue is that of the bio that got the request,
 * its getrq, insert and issue the request's (vxt_pairer_request()).
 * An interval whose two phases were not both seen, or whose end precedes its
 * start, is VXT_IV_UNSET; a completion paired with no issue gives d2c from
 * its latency (a capture of issue and completion alone). Used by filters
 * and scripts (the q2c, ... fields of formats/filter.md and formats/script.md).
 */
#ifndef VXTRACE_PHASEPAIR_H
#define VXTRACE_PHASEPAIR_H

#include <stdint.h>

#include "event.h"

#define VXT_IV_UNSET UINT64_MAX
/* Open I/Os kept at most (VXT_PAIRER_MAX): past that new ones are not
 * followed, so I/O queued and never completed cannot grow the table. */
#define VXT_PHASEPAIR_MAX (1u << 20)

enum vxt_iv {
	VXT_IV_Q2D, VXT_IV_D2C, VXT_IV_Q2C, VXT_IV_Q2G, VXT_IV_G2I, VXT_IV_I2D,
	VXT_IV_COUNT
};

/* An event's intervals, in ns; VXT_IV_UNSET where not known. */
struct vxt_ivals {
	uint64_t v[VXT_IV_COUNT];
};

/* "q2d", "d2c", "q2c", "q2g", "g2i", "i2d"; NULL past the end. */
const char *vxt_iv_name(unsigned iv);
/* Set every interval of @iv to VXT_IV_UNSET. */
void vxt_ivals_unset(struct vxt_ivals *iv);

struct vxt_phasepair;

/* @return an empty state, or NULL when out of memory. */
struct vxt_phasepair *vxt_phasepair_new(void);
/* NULL is fine. */
void vxt_phasepair_free(struct vxt_phasepair *p);
/* Forget every open I/O (a new pass over the events). */
void vxt_phasepair_reset(struct vxt_phasepair *p);
/* Feed @ev (time order). @out: for a completion, its I/O's intervals; for
 * any other event, all unset. @return 0, or -ENOMEM (then *out is unset). */
int vxt_phasepair_add(struct vxt_phasepair *p, const struct vxt_event *ev,
		      struct vxt_ivals *out);
/* Open I/Os now. */
uint32_t vxt_phasepair_open(const struct vxt_phasepair *p);

#endif
