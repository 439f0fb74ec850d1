/* chanrec.h - decoding the /dev/vxtrace record stream in userspace
 *
 * read() on a channel returns whole records, but a decoder may be fed any
 * byte stream (a pipe, a saved dump, a fuzzer): a record split across two
 * buffers is kept until the rest arrives; unknown types are skipped by length,
 * and so are the bytes of a known record past the fields known here.
 * A packed I/O record (VOLIOT_REC_IO_PACKED, VOLIOT_REC_IO_COMPACT) is
 * handed out as the start, done or requeue record it stands for, in full;
 * a pair (VOLIOT_REC_IO_PAIR) as the two records it holds, in order.
 */
#ifndef VXTRACE_CHANREC_H
#define VXTRACE_CHANREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "voltrace.h"

/* A decoded record, fields in host byte order. */
struct vxt_chanrec {
	uint8_t type;		/* enum voliot_rec_type */
	uint8_t len;
	union {
		struct voliot_io_rec io;
		struct voliot_remap_rec remap;	/* VOLIOT_REC_REMAP: io, then the
						 * source (0 from a module that
						 * sent io alone) */
		struct voliot_lost_rec lost;
		struct voliot_object_rec object;
		struct voliot_clock_rec clock;
		struct voliot_spec_stats stats;
		struct voliot_spec_horizon horizon;
	} u;
};

struct vxt_chandec {
	uint8_t partial[256];
	size_t npartial;
	uint64_t records;	/* decoded */
	uint64_t skipped;	/* unknown types skipped */
	uint64_t offset;	/* stream bytes consumed so far */
	/* the previous start, done and requeue record, which a packed record
	 * (VOLIOT_REC_IO_PACKED) is told against; bit i of have: last[i] set */
	struct voliot_io_rec last[VOLIOT_PK_SLOTS];
	uint8_t have;
	/* the latest start records, which a compact record
	 * (VOLIOT_REC_IO_COMPACT) may be told against: starts[start_at] the
	 * latest, nstarts of them in use */
	uint8_t nstarts, start_at;
	struct voliot_io_rec starts[VOLIOT_CP_STARTS];
};

/* Called per record; @rec is borrowed for the call. Non-zero stops the feed
 * and is returned by vxt_chandec_feed(). */
typedef int (*vxt_chanrec_fn)(const struct vxt_chanrec *rec, void *arg);

void vxt_chandec_init(struct vxt_chandec *d);
/* Decode @len bytes. @return 0, the callback's non-zero value, or -EBADMSG
 * when a record is malformed (length < 2, too short for its type, or a
 * packed record whose fields do not add up to its length or that needs a
 * previous record there was none of); the stream offset of the bad record
 * is d->offset. */
int vxt_chandec_feed(struct vxt_chandec *d, const void *buf, size_t len,
		     vxt_chanrec_fn fn, void *arg);

/* Whether records of @type carry struct voliot_io_rec (issue, completion,
 * error, requeue and the other block-layer phases). */
static inline bool vxt_chanrec_is_io(uint8_t type)
{
	switch (type) {
	case VOLIOT_REC_IO_START:
	case VOLIOT_REC_IO_DONE:
	case VOLIOT_REC_ERROR:
	case VOLIOT_REC_REQUEUE:
	case VOLIOT_REC_QUEUE:
	case VOLIOT_REC_GETRQ:
	case VOLIOT_REC_INSERT:
	case VOLIOT_REC_BACKMERGE:
	case VOLIOT_REC_FRONTMERGE:
	case VOLIOT_REC_PLUG:
	case VOLIOT_REC_UNPLUG:
	case VOLIOT_REC_SPLIT:
	case VOLIOT_REC_REMAP:
		return true;
	default:
		return false;
	}
}
/* Bytes of an unfinished record held back. */
static inline size_t vxt_chandec_pending(const struct vxt_chandec *d)
{
	return d->npartial;
}

#endif
