// SPDX-License-Identifier: GPL-2.0
/* chan.c - /dev/vxtrace: the misc device, its trace channels and ioctls
 *
 * Userspace sees vxtrace(7):
 *
 *	fd = open("/dev/vxtrace", O_RDONLY);		// needs CAP_SYS_ADMIN
 *	ioctl(fd, VOLIOT_IO_TRACE_INIT, bufsize);	// 0 = default size
 *	ioctl(fd, VOLIOT_IO_TRACE, &want_list);		// pick objects
 *	n = read(fd, buf, sizeof(buf));			// whole records only
 *
 * or ioctl(fd, VOLIOT_ERROR_TRACE_INIT) for the saved and new errors.
 * Every open() is a private channel. An I/O channel is a byte ring filled by
 * the probes in any context under the channel's spinlock; when it is full the
 * event is dropped and counted, and a lost record goes out before the next
 * event that fits. Channels in I/O mode sit on an RCU list the probes walk.
 * A channel moves NONE -> IO or ERROR; initialising again shuts it down first.
 * An I/O channel with a speculation program (VOLIOT_IO_SPECULATE, spec.c)
 * hands its events to the program instead, which queues only what a trigger
 * commits.
 *
 * What a channel selects is in chan_select.c, read() and poll() in
 * chan_read.c, the live counters in chan_counters.c; chan.h says the
 * locking they share. The ring (ring.c), the speculation program (spec.c),
 * the probes (probes.c) and the error log (errlog.c) take no channel lock
 * of their own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "chan.h"

#define VXT_MIN_BUFSIZE		256U
#define VXT_BOUNCE_MAX		(64U << 10)

static unsigned int default_bufsize = 1U << 20;
module_param(default_bufsize, uint, 0644);
MODULE_PARM_DESC(default_bufsize, "Ring size of a channel initialised with bufsize 0 (bytes)");

static unsigned int max_bufsize = 64U << 20;
module_param(max_bufsize, uint, 0644);
MODULE_PARM_DESC(max_bufsize, "Largest ring size of a channel (bytes)");

static unsigned int max_channels = 32;
module_param(max_channels, uint, 0644);
MODULE_PARM_DESC(max_channels, "Most channels open at once");

static unsigned int spec_max_bytes = 64U << 20;
module_param(spec_max_bytes, uint, 0644);
MODULE_PARM_DESC(spec_max_bytes, "Largest nspec x specsize of a channel's speculation (bytes)");

static unsigned int errbuf_size = 16U << 10;
module_param(errbuf_size, uint, 0444);
MODULE_PARM_DESC(errbuf_size, "Size of the saved-error ring (bytes, at load)");

LIST_HEAD(vxt_io_chans);
static DEFINE_SPINLOCK(io_chans_lock);	/* writers of vxt_io_chans */

/* ---- the probe side ---- */

static bool want_matches(const struct vxt_wantset *ws, const struct vxt_kev *ev)
{
	u32 i;

	if (!ws)
		return false;
	if (ws->all)
		return true;
	for (i = 0; i < ws->n; i++) {
		const union voliot_want_set *w = &ws->sets[i];

		switch (w->type) {
		case VOLIOT_WANT_DEV:
			if (w->dev.dev == ev->rec.dev ||
			    (ev->part && w->dev.dev == ev->part))
				return true;
			break;
		case VOLIOT_WANT_MAJOR:
			if (w->major.major == VOLIOT_MAJOR(ev->rec.dev))
				return true;
			break;
		case VOLIOT_WANT_DISK:
			if (w->disk.dev == ev->disk)
				return true;
			break;
		}
	}
	return false;
}

void vxt_chan_put_lost(struct vxt_ring *r, u64 count)
{
	struct voliot_lost_rec l = {
		.len = sizeof(l),
		.type = VOLIOT_REC_LOST,
		.count = count,
		.time_ns = ktime_get_ns(),
	};

	vxt_ring_put(r, &l, sizeof(l));
}

/*
 * Waking the reader for every event would cost a context switch per I/O:
 * a reader is woken at once when its ring is an eighth full, else by a
 * timer on the next tick (a speculating channel's: VXT_SPEC_WAKE_DELAY).
 */
static void chan_wake(struct vxt_chan *ch, u32 used)
{
	if (!wq_has_sleeper(&ch->wait))
		return;
	if (used >= ch->ring.size / 8)
		wake_up_interruptible(&ch->wait);
	else if (!timer_pending(&ch->wake_timer))
		mod_timer(&ch->wake_timer, jiffies +
			  (READ_ONCE(ch->spec) ? VXT_SPEC_WAKE_DELAY : 1));
}

static void chan_wake_timer(struct timer_list *t)
{
	struct vxt_chan *ch = vxt_from_timer(ch, t, wake_timer);

	wake_up_interruptible(&ch->wait);
}

/* Queue one record with the lost record it owes, or count it lost. */
bool vxt_chan_emit(struct vxt_chan *ch, const struct voliot_io_rec *rec)
{
	u8 pk[VXT_PACK_MAX];
	u32 len, need;
	u64 pos;

	if (!ch->lost_pending && vxt_pack_pair(&ch->pack, &ch->ring, rec)) {
		vxt_pack_sent(&ch->pack, rec, NULL, 0, 0);
		ch->events++;
		return true;
	}
	len = vxt_pack_rec(&ch->pack, rec, pk);
	need = len ? len : sizeof(*rec);
	if (ch->lost_pending)
		need += sizeof(struct voliot_lost_rec);
	if (need > vxt_ring_space(&ch->ring)) {
		ch->lost_pending++;
		ch->lost++;
		return false;
	}
	if (ch->lost_pending) {
		vxt_chan_put_lost(&ch->ring, ch->lost_pending);
		ch->lost_pending = 0;
	}
	pos = ch->ring.head;
	if (len)
		vxt_ring_put(&ch->ring, pk, len);
	else
		vxt_ring_put(&ch->ring, rec, sizeof(*rec));
	vxt_pack_sent(&ch->pack, rec, pk, len, pos);
	ch->events++;
	return true;
}

/* A speculating channel: the object is announced now, the event goes to
 * the program. Without room for the announcement the event is lost.
 */
static void chan_put_spec(struct vxt_chan *ch, struct vxt_kev *ev)
{
	unsigned long flags;
	bool queued = false;
	u32 used;

	spin_lock_irqsave(&ch->lock, flags);
	if (!vxt_seen_has(&ch->seen, ev->rec.dev)) {
		if (sizeof(ev->obj) > vxt_ring_space(&ch->ring)) {
			ch->lost_pending++;
			ch->lost++;
			spin_unlock_irqrestore(&ch->lock, flags);
			chan_wake(ch, ch->ring.size);
			return;
		}
		vxt_event_object(ev);
		vxt_ring_put(&ch->ring, &ev->obj, sizeof(ev->obj));
		vxt_seen_add(&ch->seen, ev->rec.dev);
	}
	queued = vxt_spec_event(ch->spec, ch, ev);
	used = vxt_ring_used(&ch->ring);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (queued)
		chan_wake(ch, used);
}

/* An error on an object this channel does not select may still commit
 * one of its speculations (VOLIOT_SPEC_ON_ERRCHAN).
 */
static void chan_foreign_error(struct vxt_chan *ch, struct vxt_kev *ev)
{
	unsigned long flags;
	bool queued = false;
	u32 used;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->spec)
		queued = vxt_spec_foreign_error(ch->spec, ch, ev);
	used = vxt_ring_used(&ch->ring);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (queued)
		chan_wake(ch, used);
}

static void chan_put(struct vxt_chan *ch, struct vxt_kev *ev)
{
	unsigned long flags;
	bool announce;
	u32 need, used;

	if (READ_ONCE(ch->spec)) {
		chan_put_spec(ch, ev);
		return;
	}
	spin_lock_irqsave(&ch->lock, flags);
	announce = !vxt_seen_has(&ch->seen, ev->rec.dev);
	need = ev->rec.len;
	if (announce)
		need += sizeof(ev->obj);
	if (ch->lost_pending)
		need += sizeof(struct voliot_lost_rec);
	if (need > vxt_ring_space(&ch->ring)) {
		ch->lost_pending++;
		ch->lost++;
		spin_unlock_irqrestore(&ch->lock, flags);
		chan_wake(ch, ch->ring.size);
		return;
	}
	if (ch->lost_pending) {
		vxt_chan_put_lost(&ch->ring, ch->lost_pending);
		ch->lost_pending = 0;
	}
	if (announce) {
		vxt_event_object(ev);
		vxt_ring_put(&ch->ring, &ev->obj, sizeof(ev->obj));
		vxt_seen_add(&ch->seen, ev->rec.dev);
	}
	vxt_ring_put(&ch->ring, &ev->remap, ev->rec.len);
	ch->events++;
	used = vxt_ring_used(&ch->ring);
	spin_unlock_irqrestore(&ch->lock, flags);
	chan_wake(ch, used);
}

bool vxt_io_tracing(void)
{
	return !list_empty(&vxt_io_chans);
}

bool vxt_phases_tracing(void)
{
	return atomic_read(&vxt_nr_phases) > 0;
}

void vxt_dispatch(struct vxt_kev *ev)
{
	struct vxt_chan *ch;

	if (ev->rec.error && ev->rec.type == VOLIOT_REC_IO_DONE)
		vxt_errlog_save(ev);
	if (list_empty(&vxt_io_chans))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(ch, &vxt_io_chans, node) {
		if (vxt_phase_rec(ev->rec.type) &&
		    READ_ONCE(ch->phases) != VOLIOT_PHASES_ALL)
			continue;
		if (want_matches(rcu_dereference(ch->want), ev))
			chan_put(ch, ev);
		else if (ev->rec.error && ev->rec.type == VOLIOT_REC_IO_DONE &&
			 READ_ONCE(ch->spec))
			chan_foreign_error(ch, ev);
	}
	rcu_read_unlock();
}

/* ---- channel state ---- */

static void chan_shutdown(struct vxt_chan *ch)
{
	struct vxt_wantset *ws;

	if (ch->mode == VOLIOT_MODE_IO) {
		spin_lock(&io_chans_lock);
		list_del_rcu(&ch->node);
		spin_unlock(&io_chans_lock);
		synchronize_rcu();
		vxt_timer_delete_sync(&ch->wake_timer);
		atomic64_sub(ch->ring.size, &vxt_ring_bytes);
		vxt_ring_free(&ch->ring);
	}
	if (ch->spec) {
		/* Off the list and past the grace period: no probe holds it. */
		spin_lock_irq(&vxt_spec_done_lock);
		vxt_spec_add_stats(&vxt_spec_done, vxt_spec_counters(ch->spec));
		vxt_spec_done.pending = 0;
		vxt_spec_done_chans++;
		spin_unlock_irq(&vxt_spec_done_lock);
		atomic64_sub(vxt_spec_bytes(ch->spec), &vxt_ring_bytes);
		vxt_spec_free(ch->spec);
		ch->spec = NULL;
		vxt_pack_reset(&ch->pack, 0);
	}
	ws = rcu_dereference_protected(ch->want, 1);
	RCU_INIT_POINTER(ch->want, NULL);
	if (ws && ws->n)
		atomic_dec(&vxt_nr_tracing);
	kfree(ws);
	if (ch->bounce) {
		atomic64_sub(ch->bounce_size, &vxt_ring_bytes);
		kvfree(ch->bounce);
		ch->bounce = NULL;
	}
	if (ch->phases == VOLIOT_PHASES_ALL)
		atomic_dec(&vxt_nr_phases);
	ch->phases = VOLIOT_PHASES_ISSUE;
	ch->mode = VOLIOT_MODE_NONE;
	ch->lost = 0;
	ch->lost_pending = 0;
	ch->events = 0;
	ch->clock_pending = false;
	memset(&ch->seen, 0, sizeof(ch->seen));
	wake_up_interruptible(&ch->wait);
	wake_up_interruptible(&vxt_err_wait);
}

void vxt_clock_rec(struct voliot_clock_rec *c)
{
	memset(c, 0, sizeof(*c));
	c->len = sizeof(*c);
	c->type = VOLIOT_REC_CLOCK;
	c->mono_ns = ktime_get_ns();
	c->real_ns = ktime_get_real_ns();
}

static int chan_alloc_bounce(struct vxt_chan *ch, u32 size)
{
	ch->bounce = kvmalloc(size, GFP_KERNEL);
	if (!ch->bounce)
		return -ENOMEM;
	ch->bounce_size = size;
	atomic64_add(size, &vxt_ring_bytes);
	return 0;
}

static u32 clamp_bufsize(unsigned long arg)
{
	u32 max = max(READ_ONCE(max_bufsize), VXT_MIN_BUFSIZE);
	u32 def = READ_ONCE(default_bufsize);

	if (arg == 0)
		arg = def;
	return clamp_t(unsigned long, arg, VXT_MIN_BUFSIZE, max);
}

static int chan_io_init(struct vxt_chan *ch, unsigned long arg)
{
	struct voliot_clock_rec c;
	u32 size = clamp_bufsize(arg);
	int rc;

	chan_shutdown(ch);
	rc = vxt_ring_alloc(&ch->ring, size);
	if (rc)
		return rc;
	atomic64_add(size, &vxt_ring_bytes);
	rc = chan_alloc_bounce(ch, min(size, VXT_BOUNCE_MAX));
	if (rc) {
		atomic64_sub(size, &vxt_ring_bytes);
		vxt_ring_free(&ch->ring);
		return rc;
	}
	vxt_clock_rec(&c);
	vxt_ring_put(&ch->ring, &c, sizeof(c));
	ch->mode = VOLIOT_MODE_IO;
	spin_lock(&io_chans_lock);
	list_add_tail_rcu(&ch->node, &vxt_io_chans);
	spin_unlock(&io_chans_lock);
	return 0;
}

static int chan_error_init(struct vxt_chan *ch)
{
	int rc;

	chan_shutdown(ch);
	rc = chan_alloc_bounce(ch, VXT_BOUNCE_MAX);
	if (rc)
		return rc;
	ch->err_pos = vxt_errlog_first();
	ch->clock_pending = true;
	ch->mode = VOLIOT_MODE_ERROR;
	return 0;
}

static int chan_discard(struct vxt_chan *ch)
{
	switch (ch->mode) {
	case VOLIOT_MODE_IO:
		spin_lock_irq(&ch->lock);
		vxt_ring_reset(&ch->ring);
		ch->lost_pending = 0;
		memset(&ch->seen, 0, sizeof(ch->seen));
		if (ch->spec)
			vxt_spec_reset(ch->spec);
		vxt_pack_reset(&ch->pack, ch->pack.flags);
		spin_unlock_irq(&ch->lock);
		return 0;
	case VOLIOT_MODE_ERROR:
		vxt_errlog_discard();
		ch->err_pos = vxt_errlog_seq();
		return 0;
	}
	return -EINVAL;
}

static int chan_info(struct vxt_chan *ch, unsigned long arg)
{
	struct voliot_info info = {
		.abi_version = VOLIOT_ABI_VERSION,
		.mode = ch->mode,
	};
	struct vxt_wantset *ws;

	spin_lock_irq(&ch->lock);
	info.bufsize = ch->ring.size;
	info.events = ch->events;
	info.lost = ch->lost;
	spin_unlock_irq(&ch->lock);
	ws = rcu_dereference_protected(ch->want, lockdep_is_held(&ch->mutex));
	info.nsets = ws ? ws->n : 0;
	info.phases = ch->phases;
	if (copy_to_user((void __user *)arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/* ---- speculation ---- */

static int chan_speculate(struct vxt_chan *ch, unsigned long arg)
{
	struct voliot_spec p;
	struct vxt_spec *s;
	u32 usize;
	int rc;

	if (ch->mode != VOLIOT_MODE_IO || ch->phases != VOLIOT_PHASES_ISSUE)
		return -EINVAL;
	if (ch->spec)
		return -EBUSY;
	if (get_user(usize, (u32 __user *)(arg + offsetof(struct voliot_spec, size))))
		return -EFAULT;
	/* Version 1 is the smallest; a larger struct has only zeros past it. */
	if (usize < sizeof(p) || usize > PAGE_SIZE)
		return -EINVAL;
	rc = copy_struct_from_user(&p, sizeof(p), (void __user *)arg, usize);
	if (rc)
		return rc == -E2BIG ? -EINVAL : rc;
	rc = vxt_spec_check(&p, READ_ONCE(spec_max_bytes));
	if (rc)
		return rc;
	s = vxt_spec_new(&p);
	if (IS_ERR(s))
		return PTR_ERR(s);
	atomic64_add(vxt_spec_bytes(s), &vxt_ring_bytes);
	spin_lock_irq(&ch->lock);
	WRITE_ONCE(ch->spec, s);
	ch->stats_at = jiffies - VXT_SPEC_STATS_EVERY;
	vxt_pack_reset(&ch->pack, p.flags);
	spin_unlock_irq(&ch->lock);
	return 0;
}

static int chan_spec_stats(struct vxt_chan *ch, unsigned long arg)
{
	struct voliot_spec_stats st;

	if (ch->mode != VOLIOT_MODE_IO || !ch->spec)
		return -EINVAL;
	spin_lock_irq(&ch->lock);
	st = *vxt_spec_counters(ch->spec);
	spin_unlock_irq(&ch->lock);
	st.time_ns = ktime_get_ns();
	if (copy_to_user((void __user *)arg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long vxt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vxt_chan *ch = file->private_data;
	long rc;

	mutex_lock(&ch->mutex);
	switch (cmd) {
	case VOLIOT_IO_TRACE_INIT:
		rc = chan_io_init(ch, arg);
		break;
	case VOLIOT_IO_TRACE:
		rc = vxt_chan_trace(ch, arg, true);
		break;
	case VOLIOT_IO_UNTRACE:
		rc = vxt_chan_trace(ch, arg, false);
		break;
	case VOLIOT_ERROR_TRACE_INIT:
		rc = chan_error_init(ch);
		break;
	case VOLIOT_DISCARD:
		rc = chan_discard(ch);
		break;
	case VOLIOT_GET_INFO:
		rc = chan_info(ch, arg);
		break;
	case VOLIOT_IO_SPECULATE:
		rc = chan_speculate(ch, arg);
		break;
	case VOLIOT_GET_SPEC_STATS:
		rc = chan_spec_stats(ch, arg);
		break;
	case VOLIOT_IO_PHASES:
		rc = vxt_chan_phases(ch, arg);
		break;
	default:
		rc = -ENOTTY;
		break;
	}
	mutex_unlock(&ch->mutex);
	return rc;
}

/* ---- open and release ---- */

static int vxt_open(struct inode *inode, struct file *file)
{
	struct vxt_chan *ch;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (atomic_inc_return(&vxt_nr_channels) > READ_ONCE(max_channels)) {
		atomic_dec(&vxt_nr_channels);
		return -EMFILE;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		atomic_dec(&vxt_nr_channels);
		return -ENOMEM;
	}
	mutex_init(&ch->mutex);
	spin_lock_init(&ch->lock);
	init_waitqueue_head(&ch->wait);
	timer_setup(&ch->wake_timer, chan_wake_timer, 0);
	INIT_LIST_HEAD(&ch->node);
	file->private_data = ch;
	return stream_open(inode, file);
}

static int vxt_release(struct inode *inode, struct file *file)
{
	struct vxt_chan *ch = file->private_data;

	mutex_lock(&ch->mutex);
	chan_shutdown(ch);
	mutex_unlock(&ch->mutex);
	mutex_destroy(&ch->mutex);
	kfree(ch);
	atomic_dec(&vxt_nr_channels);
	return 0;
}

static const struct file_operations vxt_fops = {
	.owner = THIS_MODULE,
	.open = vxt_open,
	.release = vxt_release,
	.read = vxt_read,
	.poll = vxt_poll,
	.unlocked_ioctl = vxt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
	.llseek = no_llseek,
#endif
};

static struct miscdevice vxt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vxtrace",
	.fops = &vxt_fops,
	.mode = 0600,
};

static int __init vxt_init(void)
{
	int rc;

	rc = vxt_errlog_init(errbuf_size);
	if (rc)
		return rc;
	rc = vxt_probes_attach();
	if (rc)
		goto out_errlog;
	rc = misc_register(&vxt_misc);
	if (rc)
		goto out_probes;
	pr_info("ready: ABI %d, error ring %u bytes\n", VOLIOT_ABI_VERSION,
		errbuf_size);
	return 0;

out_probes:
	vxt_probes_detach();
out_errlog:
	vxt_errlog_exit();
	return rc;
}

static void __exit vxt_exit(void)
{
	misc_deregister(&vxt_misc);
	vxt_probes_detach();
	vxt_errlog_exit();
}

module_init(vxt_init);
module_exit(vxt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Block I/O tracing device modelled on VxVM vxtrace(7)");
MODULE_AUTHOR("The vxtrace authors");

