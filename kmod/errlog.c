// SPDX-License-Identifier: GPL-2.0
/* errlog.c - the saved-error ring
 *
 * Error tracing is always on: every failed I/O the probes see is kept here,
 * whether or not anyone traces I/O. The ring holds the newest errors (a full
 * ring overwrites the oldest); each error has a running sequence number. An
 * error channel keeps its own position: it first reads the saved errors not
 * yet discarded, then waits for new ones. VOLIOT_DISCARD on an error channel
 * discards every error saved so far for this channel and the ones opened
 * later; channels already open keep the errors they have not read.
 * The last objects that had errors are remembered so that a channel can be
 * told an object's name before its first error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "vxtrace.h"

#define VXT_ERR_OBJECTS	64

struct vxt_errlog {
	spinlock_t lock;		/* everything below; taken in any context */
	struct voliot_io_rec *recs;
	u32 nrecs;
	u64 seq;		/* next sequence number */
	u64 discarded;		/* everything before this is discarded */
	struct voliot_object_rec objs[VXT_ERR_OBJECTS];
	u32 nobjs;		/* objects ever remembered */
};

static struct vxt_errlog errlog = {
	.lock = __SPIN_LOCK_UNLOCKED(errlog.lock),
};

DECLARE_WAIT_QUEUE_HEAD(vxt_err_wait);

int vxt_errlog_init(u32 bytes)
{
	errlog.nrecs = max_t(u32, bytes / sizeof(struct voliot_io_rec), 1);
	errlog.recs = kcalloc(errlog.nrecs, sizeof(*errlog.recs), GFP_KERNEL);
	return errlog.recs ? 0 : -ENOMEM;
}

void vxt_errlog_exit(void)
{
	kfree(errlog.recs);
	errlog.recs = NULL;
}

static const struct voliot_object_rec *errlog_find_obj(u32 dev)
{
	u32 i, n = min_t(u32, errlog.nobjs, VXT_ERR_OBJECTS);

	for (i = 0; i < n; i++)
		if (errlog.objs[i].dev == dev)
			return &errlog.objs[i];
	return NULL;
}

void vxt_errlog_save(struct vxt_kev *ev)
{
	struct voliot_io_rec *rec;
	unsigned long flags;

	vxt_event_object(ev);
	spin_lock_irqsave(&errlog.lock, flags);
	rec = &errlog.recs[errlog.seq % errlog.nrecs];
	*rec = ev->rec;
	rec->type = VOLIOT_REC_ERROR;
	errlog.seq++;
	if (!errlog_find_obj(ev->obj.dev))
		errlog.objs[errlog.nobjs++ % VXT_ERR_OBJECTS] = ev->obj;
	spin_unlock_irqrestore(&errlog.lock, flags);
	if (wq_has_sleeper(&vxt_err_wait))
		wake_up_interruptible(&vxt_err_wait);
}

static u64 errlog_first_locked(void)
{
	u64 oldest = errlog.seq > errlog.nrecs ? errlog.seq - errlog.nrecs : 0;

	return max(oldest, errlog.discarded);
}

u64 vxt_errlog_seq(void)
{
	unsigned long flags;
	u64 seq;

	spin_lock_irqsave(&errlog.lock, flags);
	seq = errlog.seq;
	spin_unlock_irqrestore(&errlog.lock, flags);
	return seq;
}

u64 vxt_errlog_first(void)
{
	unsigned long flags;
	u64 first;

	spin_lock_irqsave(&errlog.lock, flags);
	first = errlog_first_locked();
	spin_unlock_irqrestore(&errlog.lock, flags);
	return first;
}

void vxt_errlog_discard(void)
{
	unsigned long flags;

	spin_lock_irqsave(&errlog.lock, flags);
	errlog.discarded = errlog.seq;
	spin_unlock_irqrestore(&errlog.lock, flags);
}

static void errlog_object(u32 dev, struct voliot_object_rec *o)
{
	const struct voliot_object_rec *known = errlog_find_obj(dev);

	if (known) {
		*o = *known;
		return;
	}
	memset(o, 0, sizeof(*o));
	o->len = sizeof(*o);
	o->type = VOLIOT_REC_OBJECT;
	o->dev = dev;
	snprintf(o->name, sizeof(o->name), "%u:%u", VOLIOT_MAJOR(dev),
		 VOLIOT_MINOR(dev));
}

/* The lost record for errors overwritten before this channel read them. */
static u32 errlog_put_lost(u64 count, u8 *dst)
{
	struct voliot_lost_rec l = {
		.len = sizeof(l),
		.type = VOLIOT_REC_LOST,
		.count = count,
		.time_ns = ktime_get_ns(),
	};

	memcpy(dst, &l, sizeof(l));
	return sizeof(l);
}

u32 vxt_errlog_read(u64 *pos, struct vxt_seen *seen, u8 *dst, u32 max,
		    u32 *next)
{
	const struct voliot_io_rec *rec;
	struct voliot_object_rec obj;
	unsigned long flags;
	u32 n = 0, need = 0;
	u64 first;

	spin_lock_irqsave(&errlog.lock, flags);
	/* A channel's start is past what was discarded when it began; from
	 * there on only overwritten errors are missed, and told as lost.
	 */
	first = errlog.seq > errlog.nrecs ? errlog.seq - errlog.nrecs : 0;
	if (*pos < first) {
		need = sizeof(struct voliot_lost_rec);
		if (need > max)
			goto out;
		n += errlog_put_lost(first - *pos, dst);
		*pos = first;
	}
	need = 0;
	while (*pos < errlog.seq) {
		rec = &errlog.recs[*pos % errlog.nrecs];
		need = sizeof(*rec);
		if (!vxt_seen_has(seen, rec->dev))
			need += sizeof(obj);
		if (n + need > max)
			goto out;
		if (need > sizeof(*rec)) {
			errlog_object(rec->dev, &obj);
			memcpy(dst + n, &obj, sizeof(obj));
			n += sizeof(obj);
			vxt_seen_add(seen, rec->dev);
		}
		memcpy(dst + n, rec, sizeof(*rec));
		n += sizeof(*rec);
		(*pos)++;
		need = 0;
	}
out:
	spin_unlock_irqrestore(&errlog.lock, flags);
	*next = need;
	return n;
}
