// SPDX-License-Identifier: GPL-2.0
/* chan_read.c - read() and poll() of a channel: whole records out of its
 * ring (I/O mode) or the saved-error ring (error mode)
 *
 * A read takes the channel's mutex, and its spinlock while it empties the
 * ring into the bounce buffer; the copy to userspace is made from there
 * with the spinlock released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "chan.h"

/* After a read that emptied the ring, with VOLIOT_SPEC_F_HORIZON: how old
 * what the program commits from now on can be. @return bytes put at @dst.
 */
static u32 chan_put_horizon(struct vxt_chan *ch, u8 *dst, u32 room)
{
	struct voliot_spec_horizon hz = {
		.len = sizeof(hz),
		.type = VOLIOT_REC_SPEC_HORIZON,
	};

	if (!vxt_spec_wants_horizon(ch->spec) || room < sizeof(hz))
		return 0;
	hz.time_ns = ktime_get_ns();
	hz.horizon_ns = vxt_spec_horizon(ch->spec, hz.time_ns);
	memcpy(dst, &hz, sizeof(hz));
	return sizeof(hz);
}

/* Fill the bounce buffer with whole records, at most @max bytes. A
 * speculating channel adds its counters when they changed, after the
 * records at most every VXT_SPEC_STATS_EVERY, or alone when @stats_alone
 * finds the ring empty, then its horizon when the ring is empty.
 * @return bytes; *@next is the length of the next record (0: nothing).
 */
static u32 chan_fill(struct vxt_chan *ch, u32 max, u32 *next, bool stats_alone)
{
	struct voliot_spec_stats st;
	u32 n = 0;

	if (ch->mode == VOLIOT_MODE_ERROR) {
		if (ch->clock_pending) {
			*next = sizeof(struct voliot_clock_rec);
			if (*next > max)
				return 0;
			vxt_clock_rec((struct voliot_clock_rec *)ch->bounce);
			n = *next;
			ch->clock_pending = false;
		}
		return n + vxt_errlog_read(&ch->err_pos, &ch->seen,
					   ch->bounce + n, max - n, next);
	}
	spin_lock_irq(&ch->lock);
	if (ch->lost_pending &&
	    vxt_ring_space(&ch->ring) >= sizeof(struct voliot_lost_rec)) {
		vxt_chan_put_lost(&ch->ring, ch->lost_pending);
		ch->lost_pending = 0;
	}
	n = vxt_ring_get_records(&ch->ring, ch->bounce, max, next);
	if (ch->spec && max - n >= sizeof(st) &&
	    ((!n && stats_alone) ||
	     (n && time_after_eq(jiffies, ch->stats_at + VXT_SPEC_STATS_EVERY))) &&
	    vxt_spec_stats(ch->spec, &st, true)) {
		memcpy(ch->bounce + n, &st, sizeof(st));
		n += sizeof(st);
		ch->stats_at = jiffies;
	}
	if (ch->spec && n && !vxt_ring_used(&ch->ring))
		n += chan_put_horizon(ch, ch->bounce + n, max - n);
	spin_unlock_irq(&ch->lock);
	return n;
}

/* Add the @n bytes about to be returned from the bounce buffer to read_bytes. */
static void chan_count_read(const struct vxt_chan *ch, u32 n)
{
	u64 k[VXT_RD_KINDS] = { 0 };
	u32 i, len;
	int kind;

	if (!ch->spec) {
		atomic64_add(n, &vxt_read_plain);
		return;
	}
	for (i = 0; i + 1 < n; i += len) {
		len = ch->bounce[i];
		if (!len)
			break;
		switch (ch->bounce[i + 1]) {
		case VOLIOT_REC_IO_START:
		case VOLIOT_REC_IO_DONE:
		case VOLIOT_REC_REQUEUE:
		case VOLIOT_REC_IO_PACKED:
		case VOLIOT_REC_IO_COMPACT:
		case VOLIOT_REC_IO_PAIR:
			kind = VXT_RD_IO;
			break;
		case VOLIOT_REC_SPEC_STATS:
			kind = VXT_RD_STATS;
			break;
		case VOLIOT_REC_SPEC_HORIZON:
			kind = VXT_RD_HORIZON;
			break;
		default:
			kind = VXT_RD_OTHER;
			break;
		}
		k[kind] += len;
	}
	for (kind = 0; kind < VXT_RD_KINDS; kind++)
		if (k[kind])
			atomic64_add(k[kind], &vxt_read_spec[kind]);
}

static bool chan_ready(struct vxt_chan *ch, u32 mode)
{
	if (READ_ONCE(ch->mode) != mode)
		return true;
	if (mode == VOLIOT_MODE_ERROR)
		return READ_ONCE(ch->clock_pending) ||
		       vxt_errlog_seq() > READ_ONCE(ch->err_pos);
	return READ_ONCE(ch->ring.head) != READ_ONCE(ch->ring.tail) ||
	       READ_ONCE(ch->lost_pending);
}

static int chan_wait(struct vxt_chan *ch, u32 mode)
{
	wait_queue_head_t *wq = mode == VOLIOT_MODE_ERROR ?
				&vxt_err_wait : &ch->wait;

	return wait_event_interruptible(*wq, chan_ready(ch, mode));
}

ssize_t vxt_read(struct file *file, char __user *buf, size_t count,
		 loff_t *ppos)
{
	struct vxt_chan *ch = file->private_data;
	u32 n, next, mode;
	int rc;

	for (;;) {
		if (mutex_lock_interruptible(&ch->mutex))
			return -ERESTARTSYS;
		mode = ch->mode;
		if (mode == VOLIOT_MODE_NONE) {
			mutex_unlock(&ch->mutex);
			return -EINVAL;
		}
		n = chan_fill(ch, min_t(size_t, count, ch->bounce_size),
			      &next, file->f_flags & O_NONBLOCK);
		if (n) {
			if (mode == VOLIOT_MODE_IO)
				chan_count_read(ch, n);
			break;
		}
		mutex_unlock(&ch->mutex);
		if (next)
			return -EINVAL;		/* buffer smaller than a record */
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		rc = chan_wait(ch, mode);
		if (rc)
			return rc;
	}
	rc = copy_to_user(buf, ch->bounce, n) ? -EFAULT : 0;
	mutex_unlock(&ch->mutex);
	return rc ? rc : n;
}

__poll_t vxt_poll(struct file *file, poll_table *wait)
{
	struct vxt_chan *ch = file->private_data;
	u32 mode = READ_ONCE(ch->mode);

	poll_wait(file, &ch->wait, wait);
	poll_wait(file, &vxt_err_wait, wait);
	if (mode == VOLIOT_MODE_NONE)
		return EPOLLERR;
	return chan_ready(ch, mode) ? EPOLLIN | EPOLLRDNORM : 0;
}
