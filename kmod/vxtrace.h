/* SPDX-License-Identifier: GPL-2.0 */
/* vxtrace.h - internals shared by the files of the vxtrace module
 *
 * chan*.c own the misc device and the channels (chan.h), ring.c the byte rings,
 * spec.c the speculation buffers of a channel, pack.c its packed records,
 * errlog.c the saved-error ring, probes.c the block-layer tracepoints.
 * Probes build one struct vxt_kev and hand it to vxt_dispatch(), which
 * copies its record (rec.len bytes: a remap is longer) into every I/O
 * channel that wants the object and, when it carries an error, into the
 * saved-error ring.
 */
#ifndef VXT_KMOD_H
#define VXT_KMOD_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/version.h>
#include <vxtrace/voltrace.h>

/* Kernel interfaces renamed after 6.1. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define vxt_from_timer(var, t, field)	timer_container_of(var, t, field)
#else
#define vxt_from_timer(var, t, field)	from_timer(var, t, field)
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define vxt_timer_delete_sync(t)	timer_delete_sync(t)
#else
#define vxt_timer_delete_sync(t)	del_timer_sync(t)
#endif

/* ---- byte rings (ring.c); the caller serialises ---- */

struct vxt_ring {
	u8 *buf;
	u32 size;
	u64 head;		/* bytes ever written */
	u64 tail;		/* bytes ever consumed */
};

int vxt_ring_alloc(struct vxt_ring *r, u32 size);
void vxt_ring_free(struct vxt_ring *r);
void vxt_ring_reset(struct vxt_ring *r);
static inline u32 vxt_ring_used(const struct vxt_ring *r)
{
	return r->head - r->tail;
}

static inline u32 vxt_ring_space(const struct vxt_ring *r)
{
	return r->size - vxt_ring_used(r);
}

/* Append @len bytes; the caller checked the space. */
void vxt_ring_put(struct vxt_ring *r, const void *src, u32 len);
/* Copy whole records, at most @max bytes, into @dst and consume them.
 * @return bytes copied; *@next is the length of the first record left
 * (0 when the ring is empty).
 */
u32 vxt_ring_get_records(struct vxt_ring *r, u8 *dst, u32 max, u32 *next);
/* Copy @len bytes from ring position @pos (not consumed yet) to @dst. */
void vxt_ring_peek(const struct vxt_ring *r, u64 pos, u8 *dst, u32 len);

/* ---- one event as the probes see it ---- */

struct vxt_kev {
	union {
		struct voliot_io_rec rec;	/* type, op, flags, dev, ... */
		struct voliot_remap_rec remap;	/* a remap: rec and its source */
	};
	u32 disk;			/* whole-disk dev (want "disk" sets) */
	u32 part;			/* partition dev, 0 if none */
	struct voliot_object_rec obj;	/* announcement, built on demand */
	bool obj_ready;
	struct gendisk *gd;		/* for the announcement */
	struct block_device *bdev;	/* the same; may be NULL */
	unsigned long req;		/* the request or bio: speculation key */
};

/* Fill ev->obj from ev->gd / ev->bdev once. */
void vxt_event_object(struct vxt_kev *ev);
/* Called from the probes, any context. */
void vxt_dispatch(struct vxt_kev *ev);
/* Is any channel tracing I/O? When not, probes keep only errors. */
bool vxt_io_tracing(void);
/* Is any channel at capture level VOLIOT_PHASES_ALL? When not, the probes
 * of the queue-side phases return at once.
 */
bool vxt_phases_tracing(void);
/* Record types only channels at VOLIOT_PHASES_ALL get. */
static inline bool vxt_phase_rec(u8 type)
{
	return type >= VOLIOT_REC_QUEUE && type <= VOLIOT_REC_REMAP;
}

/* ---- speculation (spec.c); the channel's lock held but for new/free ---- */

struct vxt_chan;
struct vxt_spec;

/* 0, -EINVAL for a bad program, -E2BIG past @max_bytes of buffers. */
int vxt_spec_check(const struct voliot_spec *p, u64 max_bytes);
struct vxt_spec *vxt_spec_new(const struct voliot_spec *p);
void vxt_spec_free(struct vxt_spec *s);
size_t vxt_spec_bytes(const struct vxt_spec *s);
/* An event of a selected object. @return true when it put records into
 * the ring (through vxt_chan_emit()).
 */
bool vxt_spec_event(struct vxt_spec *s, struct vxt_chan *ch,
		    const struct vxt_kev *ev);
/* An error on an object the channel does not select (VOLIOT_SPEC_ON_ERRCHAN). */
bool vxt_spec_foreign_error(struct vxt_spec *s, struct vxt_chan *ch,
			    const struct vxt_kev *ev);
/* Discard every buffer. */
void vxt_spec_reset(struct vxt_spec *s);
/* Snapshot the counters; with @if_changed only when they changed since
 * the last snapshot. @return whether *@st was filled.
 */
bool vxt_spec_stats(struct vxt_spec *s, struct voliot_spec_stats *st,
		    bool if_changed);
const struct voliot_spec_stats *vxt_spec_counters(const struct vxt_spec *s);
/* VOLIOT_SPEC_F_HORIZON: no later commit sends an event older than this
 * (@now when the buffers hold none); never less than the last one.
 */
u64 vxt_spec_horizon(struct vxt_spec *s, u64 now);
bool vxt_spec_wants_horizon(const struct vxt_spec *s);
void vxt_spec_add_stats(struct voliot_spec_stats *sum,
			const struct voliot_spec_stats *st);
/* ---- packed records (pack.c); the channel's lock held ---- */

#define VXT_PACK_MAX	VOLIOT_CP_MAX	/* room for the longest packed record */

struct vxt_pack {
	u32 flags;			/* VOLIOT_SPEC_F_PACKED, _COMPACT, _PAIR */
	bool pair_ok;			/* the ring's record at pair_pos: a compact start */
	u8 pair_len;			/* its length */
	u64 pair_pos;			/* its ring position */
	u8 have;			/* bit per entry of last */
	u8 nstarts;			/* entries of starts in use */
	u8 start_at;			/* where the latest start is in starts */
	struct voliot_io_rec last[VOLIOT_PK_SLOTS];	/* the start, done, requeue queued last */
	struct voliot_io_rec starts[VOLIOT_CP_STARTS];	/* the latest starts queued */
};

/* Forget the records queued so far; from now on pack with the
 * VOLIOT_SPEC_F_PACKED and VOLIOT_SPEC_F_COMPACT bits of @flags.
 */
void vxt_pack_reset(struct vxt_pack *pk, u32 flags);
/* @rec as a packed record at @out (VXT_PACK_MAX bytes). @return its
 * length, or 0 when @rec goes out as it is.
 */
u32 vxt_pack_rec(const struct vxt_pack *pk, const struct voliot_io_rec *rec,
		 u8 *out);
/* @rec was queued (packed or not), the @len bytes of @out at ring
 * position @pos (@len 0: in full).
 */
void vxt_pack_sent(struct vxt_pack *pk, const struct voliot_io_rec *rec,
		   const u8 *out, u32 len, u64 pos);
/* Queue @rec, a completion, joined to its start when that is the last
 * record of @r, unread (VOLIOT_SPEC_F_PAIR). @return false when it is not
 * (nothing done).
 */
bool vxt_pack_pair(struct vxt_pack *pk, struct vxt_ring *r,
		   const struct voliot_io_rec *rec);

/* chan.c: queue one committed record; false when the ring was full (lost). */
bool vxt_chan_emit(struct vxt_chan *ch, const struct voliot_io_rec *rec);

/* ---- saved errors (errlog.c) ---- */

int vxt_errlog_init(u32 bytes);
void vxt_errlog_exit(void);
void vxt_errlog_save(struct vxt_kev *ev);
/* Sequence number of the next error to be saved. */
u64 vxt_errlog_seq(void);
/* Errors before this sequence number are discarded or overwritten. */
u64 vxt_errlog_first(void);
void vxt_errlog_discard(void);

/* Copy saved errors from *@pos on into @dst (at most @max bytes), each
 * preceded by an object record when @seen says the channel has not seen its
 * object, and by a lost record when errors were overwritten before being
 * read. Advances *@pos. @return bytes copied; *@next is the length the next
 * record would need (0 when nothing is left).
 */
struct vxt_seen;
u32 vxt_errlog_read(u64 *pos, struct vxt_seen *seen, u8 *dst, u32 max,
		    u32 *next);
extern struct wait_queue_head vxt_err_wait;

/* ---- objects a channel has announced (chan_select.c) ---- */

#define VXT_SEEN_SLOTS	512

struct vxt_seen {
	u32 dev[VXT_SEEN_SLOTS];	/* 0 = free slot */
};

/* @return true when @dev was already announced. */
bool vxt_seen_has(const struct vxt_seen *s, u32 dev);
/* Remember @dev. A full table forgets nothing and remembers nothing more:
 * such objects are announced again (harmless: readers keep the first).
 */
void vxt_seen_add(struct vxt_seen *s, u32 dev);

/* ---- probes (probes.c) ---- */

int vxt_probes_attach(void);
void vxt_probes_detach(void);
extern atomic64_t vxt_rq_errors;	/* block_rq_error hits */

#endif /* VXT_KMOD_H */
