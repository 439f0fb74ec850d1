/* pairer.h - follow each bio from its queue to its completion across phases
 *
 * The one place that pairs the phases of a capture into per-I/O times; the
 * breakdown report, the Q2C metrics, the browser's I/O rows and the interval
 * fields of filters and scripts all read it. Feed the events in time order;
 * each call says which I/Os the event moved and what it could not pair.
 *
 * The matching is btt(1)'s, by object and sector range: a queue (Q) of N
 * bytes at sector S opens an I/O over [S, S + N/512); getrq (G), insert (I)
 * and merge (M, F) mark the pending I/O whose range holds their first
 * sector; an issue (D) marks, and a completion (C) closes, every pending I/O
 * inside its range, so a bio merged into a request gets the request's issue
 * and completion. Beyond btt:
 * - a split (X) of N bytes at S cuts the pending I/O holding S at S + N/512:
 *   both halves keep the queue time and complete on their own;
 * - a remap (A) onto object O at sector S, from object O' at sector S',
 *   moves the I/O pending on O' at S' to O at S (the size is the remap's),
 *   keeping its queue time and its first object, so the I/O queued on the
 *   top of a dm/md stack is followed to the request on the device below and
 *   Q2C is measured from the top-level queue; the queue the lower device
 *   then logs for the same bio joins it (VXT_PS_JOINED) instead of opening a
 *   second I/O. A remap from an object where nothing was ever followed (no
 *   queue, no remap onto it: a partition, an untraced device) is not
 *   followed and not counted; from a
 *   traced object with nothing pending there it is VXT_PU_REMAP_UNKNOWN; a
 *   remap that would move an I/O onto a range it was already remapped from
 *   (a loop), or more than VXT_PAIRER_MAX_HOPS times, is VXT_PU_REMAP_LOOP.
 * - a requeue (R) forgets the issue of the I/Os inside its range;
 * - a completion at bio level (VXT_F_BIO: a bio-based device, whose queue
 *   is its only phase before it) without an issue is paired all the same
 *   (no VXT_PU_NOD).
 * With VXT_PAIRER_UNQUEUED, a getrq, insert or issue that finds no pending
 * I/O opens one from that phase on (its queue was not captured; counted as
 * VXT_PU_NOQ all the same), so a capture of issue and completion alone pairs
 * each completion with its issue. An event of size 0 (a flush) covers its
 * sector alone: it pairs with I/Os of size 0 there (the breakdown and the
 * metrics leave them out, as btt does). Times never come from anywhere
 * else: a phase not seen stays VXT_PT_UNSET.
 */
#ifndef VXTRACE_PAIRER_H
#define VXTRACE_PAIRER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define VXT_PT_UNSET UINT64_MAX
/* Pending I/Os kept at most; a queue past that is not followed
 * (VXT_PU_FULL), so I/O never completed cannot grow the table without end. */
#define VXT_PAIRER_MAX (1u << 20)
/* Remaps followed per I/O at most (a dm over md over a partition is 3). */
#define VXT_PAIRER_MAX_HOPS 16

/* The event fields the pairer reads, as VXT_FIELD_* bits of vxt.h (for
 * vxt_reader_set_fields(); this header stays below the format's): the phase,
 * object, sector and size match the I/Os, the time stamps them, the flags
 * say a bio-level completion (VXT_F_BIO), the latency field holds a remap's
 * source (VXT_FIELD_REMAP_FROM in its place is enough: the pairer reads no
 * other latency). A reader decoding fewer pairs wrongly; .pid and .comm of the I/Os
 * are copied from their first event and need VXT_FIELD_PID | VXT_FIELD_COMM
 * besides. */
#define VXT_PAIRER_FIELDS (VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT | \
			   VXT_FIELD_FLAGS | VXT_FIELD_SECTOR | VXT_FIELD_BYTES | \
			   VXT_FIELD_LATENCY)

/* Phase times of an I/O. */
enum vxt_pt { VXT_PT_Q, VXT_PT_G, VXT_PT_I, VXT_PT_M, VXT_PT_D, VXT_PT_C, VXT_PT_COUNT };

/* Flags of an I/O. */
#define VXT_PI_QUEUED	0x01	/* opened by its queue (else by a later phase) */
#define VXT_PI_REMAPPED	0x02	/* moved by a remap at least once */
#define VXT_PI_SPLIT	0x04	/* a half of a split */

/* One I/O followed. */
struct vxt_pio {
	uint64_t start, end;		/* sectors [start, end) on .object */
	uint64_t t[VXT_PT_COUNT];	/* VXT_PT_UNSET = not seen */
	uint64_t ord;			/* ordinal of the event that opened it */
	uint32_t object;		/* where it is now */
	uint32_t qobject;		/* where it was queued (the top of a stack) */
	uint32_t pid, comm;		/* of the event that opened it */
	uint8_t op, flags, hops;
	uint32_t tag;			/* the caller's own (0 when opened); copied with the I/O */
};

/* What could not be paired. */
enum vxt_pu {
	VXT_PU_ORDER,		/* a phase earlier than one before it (out of order) */
	VXT_PU_NOQ,		/* getrq, insert, issue or completion matching no queue */
	VXT_PU_NOD,		/* a completion whose I/Os were never issued */
	VXT_PU_MERGE,		/* a merge matching no pending queue */
	VXT_PU_DUPQ,		/* a queue starting where a pending one starts (ignored) */
	VXT_PU_REMAP_UNKNOWN,	/* a remap from a traced object with nothing pending there */
	VXT_PU_REMAP_LOOP,	/* a remap back onto where the I/O came from */
	VXT_PU_FULL,		/* a queue past VXT_PAIRER_MAX pending I/Os (not followed) */
	VXT_PU_COUNT
};

/* "out-of-order", "no-queue", "no-issue", "merge-unknown", "duplicate-queue",
 * "remap-unknown", "remap-loop", "untracked"; NULL past the end. */
const char *vxt_pu_name(unsigned kind);

/* What one event did. */
enum vxt_ps {
	VXT_PS_NONE,		/* nothing paired (see .unpaired) or not a pairing phase */
	VXT_PS_OPENED,		/* a queue opened .io[0] */
	VXT_PS_JOINED,		/* a queue joined .io[0], remapped onto it from above */
	VXT_PS_MARKED,		/* G, I, M, D, A, X, R: .io[0 .. n) carry its time */
	VXT_PS_CLOSED,		/* C: .io[0 .. n) completed, .t[VXT_PT_C] set */
};

struct vxt_pstep {
	enum vxt_ps what;
	int unpaired;		/* enum vxt_pu, or -1 */
	size_t n;
	struct vxt_pio *io;	/* n I/Os, valid until the next call: the
				 * pairer's own, or copies of them (a mark of
				 * several); the caller may set their .tag */
};

#define VXT_PAIRER_UNQUEUED 0x1	/* follow I/O from its first phase seen */

struct vxt_pairer;

/* @return an empty pairer, or NULL when out of memory. */
struct vxt_pairer *vxt_pairer_new(unsigned flags);
/* NULL is fine. */
void vxt_pairer_free(struct vxt_pairer *p);
/* Forget every pending I/O and count. */
void vxt_pairer_reset(struct vxt_pairer *p);
/* Feed @ev (time order) with its ordinal @ord. @return 0, or -ENOMEM (then
 * the event is left out: *st says nothing). */
int vxt_pairer_add(struct vxt_pairer *p, const struct vxt_event *ev, uint64_t ord,
		   struct vxt_pstep *st);
/* Pending I/Os now. */
uint32_t vxt_pairer_pending(const struct vxt_pairer *p);
/* Call @fn for every pending I/O (object by object, by sector). */
void vxt_pairer_each(const struct vxt_pairer *p, void (*fn)(void *arg, const struct vxt_pio *io),
		     void *arg);
/* Unpaired events of @kind so far. */
uint64_t vxt_pairer_unpaired(const struct vxt_pairer *p, unsigned kind);

/* The request view of a completion's I/Os (st->what == VXT_PS_CLOSED): the
 * queue of the I/O that got the request (its getrq; else the first), and the
 * getrq, insert and issue of the request (the earliest of each among them).
 * Sets @t[VXT_PT_COUNT]. */
void vxt_pairer_request(const struct vxt_pstep *st, uint64_t *t);

#endif
