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
 * Why one file of ~1000 lines: every path that takes a channel's mutex or
 * its spinlock, or walks the RCU list of channels (the probes' emit, the
 * ioctls, read, poll, open, release and the module's counters), is here, so
 * the locking of a channel can be checked in one place. The ring (ring.c),
 * the speculation program (spec.c), the probes (probes.c) and the error log
 * (errlog.c) take no channel lock of their own.
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

#include "vxtrace.h"

#define VXT_MIN_BUFSIZE		256U
#define VXT_BOUNCE_MAX		(64U << 10)
#define VXT_SETS_MAX		VOLIOT_WANT_MAX

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

static atomic_t nr_channels = ATOMIC_INIT(0);
static atomic_t nr_tracing = ATOMIC_INIT(0);	/* channels with object sets */
static atomic_t nr_phases = ATOMIC_INIT(0);	/* channels at VOLIOT_PHASES_ALL */
static atomic64_t ring_bytes = ATOMIC64_INIT(0);

/* Bytes read() returned since load: by I/O channels without a program, and
 * by speculating channels by kind of record (read_bytes).
 */
enum { VXT_RD_IO, VXT_RD_STATS, VXT_RD_HORIZON, VXT_RD_OTHER, VXT_RD_KINDS };
static atomic64_t read_plain = ATOMIC64_INIT(0);
static atomic64_t read_spec[VXT_RD_KINDS];

/* A speculating channel sends a stats record at most once a second (but
 * for the non-blocking read that finds the ring empty) and wakes its reader
 * at most every 50 ms: what it commits is never urgent.
 */
#define VXT_SPEC_STATS_EVERY	HZ
#define VXT_SPEC_WAKE_DELAY	max(HZ / 20, 1)

struct vxt_wantset {
	struct rcu_head rcu;
	u32 n;
	bool all;
	union voliot_want_set sets[];
};

struct vxt_chan {
	struct list_head node;		/* on io_chans while in IO mode */
	struct mutex mutex;		/* ioctls and reads */
	spinlock_t lock;		/* ring, lost, seen (IO mode) */
	wait_queue_head_t wait;
	struct timer_list wake_timer;	/* batches wake-ups of the reader */
	u32 mode;			/* enum voliot_chan_mode */
	struct vxt_ring ring;
	u64 lost_pending;		/* not yet reported in a lost record */
	u64 lost;			/* since init */
	u64 events;			/* I/O records queued since init */
	struct vxt_wantset __rcu *want;
	u8 *bounce;
	u32 bounce_size;
	u64 err_pos;			/* ERROR mode: next saved error */
	bool clock_pending;		/* ERROR mode: clock record to send */
	struct vxt_spec *spec;		/* IO mode: speculation program, or NULL */
	unsigned long stats_at;		/* jiffies of the last stats record */
	struct vxt_pack pack;		/* its packed records */
	u32 phases;			/* IO mode: enum voliot_phases */
	struct vxt_seen seen;
};

/* Speculation counters of the channels closed or re-initialised so far. */
static struct voliot_spec_stats spec_done;
static unsigned int spec_done_chans;
static DEFINE_SPINLOCK(spec_done_lock);

static LIST_HEAD(io_chans);
static DEFINE_SPINLOCK(io_chans_lock);	/* writers of io_chans */

/* ---- live counters, read-only parameters ---- */

static int param_get_nr_channels(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&nr_channels));
}

static int param_get_nr_tracing(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&nr_tracing));
}

static int param_get_ring_bytes(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&ring_bytes));
}

static int param_get_rq_errors(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&vxt_rq_errors));
}

static int param_get_read_bytes(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "plain %lld spec_io %lld spec_stats %lld spec_horizon %lld spec_other %lld\n",
			  (long long)atomic64_read(&read_plain),
			  (long long)atomic64_read(&read_spec[VXT_RD_IO]),
			  (long long)atomic64_read(&read_spec[VXT_RD_STATS]),
			  (long long)atomic64_read(&read_spec[VXT_RD_HORIZON]),
			  (long long)atomic64_read(&read_spec[VXT_RD_OTHER]));
}

static int param_set_readonly(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops open_channels_ops = {
	.set = param_set_readonly,
	.get = param_get_nr_channels,
};

static const struct kernel_param_ops tracing_channels_ops = {
	.set = param_set_readonly,
	.get = param_get_nr_tracing,
};

static const struct kernel_param_ops buffer_bytes_ops = {
	.set = param_set_readonly,
	.get = param_get_ring_bytes,
};

static const struct kernel_param_ops read_bytes_ops = {
	.set = param_set_readonly,
	.get = param_get_read_bytes,
};

static const struct kernel_param_ops rq_errors_ops = {
	.set = param_set_readonly,
	.get = param_get_rq_errors,
};

/* One line: the speculation counters of every channel since load. */
static int param_get_spec_stats(char *buf, const struct kernel_param *kp)
{
	struct voliot_spec_stats sum;
	unsigned int live = 0, done;
	unsigned long flags;
	struct vxt_chan *ch;

	spin_lock_irqsave(&spec_done_lock, flags);
	sum = spec_done;
	done = spec_done_chans;
	spin_unlock_irqrestore(&spec_done_lock, flags);
	rcu_read_lock();
	list_for_each_entry_rcu(ch, &io_chans, node) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->spec) {
			vxt_spec_add_stats(&sum, vxt_spec_counters(ch->spec));
			live++;
		}
		spin_unlock_irqrestore(&ch->lock, flags);
	}
	rcu_read_unlock();
	return sysfs_emit(buf,
			  "channels %u closed %u seen %llu kept %llu bytes_seen %llu bytes_kept %llu commits %llu discards %llu drops %llu failed %llu busy %llu pending %llu\n",
			  live, done, sum.seen, sum.kept, sum.bytes_seen,
			  sum.bytes_kept, sum.commits, sum.discards, sum.drops,
			  sum.failed, sum.busy, sum.pending);
}

static const struct kernel_param_ops spec_stats_ops = {
	.set = param_set_readonly,
	.get = param_get_spec_stats,
};

module_param_cb(open_channels, &open_channels_ops, NULL, 0444);
MODULE_PARM_DESC(open_channels, "Channels open now (read-only)");
module_param_cb(tracing_channels, &tracing_channels_ops, NULL, 0444);
MODULE_PARM_DESC(tracing_channels, "I/O channels with objects selected now (read-only)");
module_param_cb(buffer_bytes, &buffer_bytes_ops, NULL, 0444);
MODULE_PARM_DESC(buffer_bytes, "Bytes of channel buffers allocated now (read-only)");
module_param_cb(rq_errors, &rq_errors_ops, NULL, 0444);
MODULE_PARM_DESC(rq_errors, "Request errors the block layer reported (read-only)");
module_param_cb(read_bytes, &read_bytes_ops, NULL, 0444);
MODULE_PARM_DESC(read_bytes, "Bytes read from I/O channels since load, by kind (read-only)");
module_param_cb(spec_stats, &spec_stats_ops, NULL, 0444);
MODULE_PARM_DESC(spec_stats, "Speculation counters of all channels since load (read-only)");

/* ---- objects a channel announced ---- */

static u32 seen_slot(u32 dev)
{
	return (dev * 2654435761U) % VXT_SEEN_SLOTS;
}

bool vxt_seen_has(const struct vxt_seen *s, u32 dev)
{
	u32 i, slot = seen_slot(dev);

	for (i = 0; i < VXT_SEEN_SLOTS; i++) {
		u32 d = s->dev[(slot + i) % VXT_SEEN_SLOTS];

		if (d == dev)
			return true;
		if (!d)
			return false;
	}
	return false;
}

void vxt_seen_add(struct vxt_seen *s, u32 dev)
{
	u32 i, slot = seen_slot(dev);

	for (i = 0; i < VXT_SEEN_SLOTS; i++) {
		u32 *d = &s->dev[(slot + i) % VXT_SEEN_SLOTS];

		if (*d == dev)
			return;
		if (!*d) {
			*d = dev;
			return;
		}
	}
}

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

static void ring_put_lost(struct vxt_ring *r, u64 count)
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
		ring_put_lost(&ch->ring, ch->lost_pending);
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
		ring_put_lost(&ch->ring, ch->lost_pending);
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
	return !list_empty(&io_chans);
}

bool vxt_phases_tracing(void)
{
	return atomic_read(&nr_phases) > 0;
}

void vxt_dispatch(struct vxt_kev *ev)
{
	struct vxt_chan *ch;

	if (ev->rec.error && ev->rec.type == VOLIOT_REC_IO_DONE)
		vxt_errlog_save(ev);
	if (list_empty(&io_chans))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(ch, &io_chans, node) {
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
		atomic64_sub(ch->ring.size, &ring_bytes);
		vxt_ring_free(&ch->ring);
	}
	if (ch->spec) {
		/* Off the list and past the grace period: no probe holds it. */
		spin_lock_irq(&spec_done_lock);
		vxt_spec_add_stats(&spec_done, vxt_spec_counters(ch->spec));
		spec_done.pending = 0;
		spec_done_chans++;
		spin_unlock_irq(&spec_done_lock);
		atomic64_sub(vxt_spec_bytes(ch->spec), &ring_bytes);
		vxt_spec_free(ch->spec);
		ch->spec = NULL;
		vxt_pack_reset(&ch->pack, 0);
	}
	ws = rcu_dereference_protected(ch->want, 1);
	RCU_INIT_POINTER(ch->want, NULL);
	if (ws && ws->n)
		atomic_dec(&nr_tracing);
	kfree(ws);
	if (ch->bounce) {
		atomic64_sub(ch->bounce_size, &ring_bytes);
		kvfree(ch->bounce);
		ch->bounce = NULL;
	}
	if (ch->phases == VOLIOT_PHASES_ALL)
		atomic_dec(&nr_phases);
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

static void clock_rec(struct voliot_clock_rec *c)
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
	atomic64_add(size, &ring_bytes);
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
	atomic64_add(size, &ring_bytes);
	rc = chan_alloc_bounce(ch, min(size, VXT_BOUNCE_MAX));
	if (rc) {
		atomic64_sub(size, &ring_bytes);
		vxt_ring_free(&ch->ring);
		return rc;
	}
	clock_rec(&c);
	vxt_ring_put(&ch->ring, &c, sizeof(c));
	ch->mode = VOLIOT_MODE_IO;
	spin_lock(&io_chans_lock);
	list_add_tail_rcu(&ch->node, &io_chans);
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

/* ---- object selection ---- */

static int want_check(const union voliot_want_set *w)
{
	switch (w->type) {
	case VOLIOT_WANT_ALL:
		return w->all.reserved ? -EINVAL : 0;
	case VOLIOT_WANT_DEV:
	case VOLIOT_WANT_DISK:
		return w->dev.dev ? 0 : -EINVAL;
	case VOLIOT_WANT_MAJOR:
		return w->major.major ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static bool want_same(const union voliot_want_set *a,
		      const union voliot_want_set *b)
{
	return a->type == b->type &&
	       (a->type == VOLIOT_WANT_ALL || a->dev.dev == b->dev.dev);
}

static union voliot_want_set *want_copy_in(unsigned long arg, u32 *count)
{
	struct voliot_want_list wl;
	union voliot_want_set *sets;
	u32 i;
	int rc;

	if (copy_from_user(&wl, (void __user *)arg, sizeof(wl)))
		return ERR_PTR(-EFAULT);
	if (!wl.count || wl.count > VOLIOT_WANT_MAX || wl.reserved)
		return ERR_PTR(-EINVAL);
	sets = memdup_user(u64_to_user_ptr(wl.sets),
			   array_size(wl.count, sizeof(*sets)));
	if (IS_ERR(sets))
		return sets;
	for (i = 0; i < wl.count; i++) {
		rc = want_check(&sets[i]);
		if (rc) {
			kfree(sets);
			return ERR_PTR(rc);
		}
	}
	*count = wl.count;
	return sets;
}

/* Build the channel's next want set from the old one plus or minus @sets. */
static struct vxt_wantset *want_merge(const struct vxt_wantset *old,
				      const union voliot_want_set *sets,
				      u32 count, bool add)
{
	u32 n = old ? old->n : 0, i, j;
	struct vxt_wantset *ws;

	ws = kzalloc(struct_size(ws, sets, n + (add ? count : 0)), GFP_KERNEL);
	if (!ws)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		for (j = 0; !add && j < count; j++)
			if (want_same(&old->sets[i], &sets[j]))
				break;
		if (add || j == count)
			ws->sets[ws->n++] = old->sets[i];
	}
	for (j = 0; add && j < count; j++) {
		for (i = 0; i < ws->n; i++)
			if (want_same(&ws->sets[i], &sets[j]))
				break;
		if (i == ws->n)
			ws->sets[ws->n++] = sets[j];
	}
	if (ws->n > VXT_SETS_MAX) {
		kfree(ws);
		return ERR_PTR(-ENOSPC);
	}
	for (i = 0; i < ws->n; i++)
		if (ws->sets[i].type == VOLIOT_WANT_ALL)
			ws->all = true;
	return ws;
}

static int chan_trace(struct vxt_chan *ch, unsigned long arg, bool add)
{
	struct vxt_wantset *old, *ws;
	union voliot_want_set *sets;
	u32 count;

	if (ch->mode != VOLIOT_MODE_IO)
		return -EINVAL;
	sets = want_copy_in(arg, &count);
	if (IS_ERR(sets))
		return PTR_ERR(sets);
	old = rcu_dereference_protected(ch->want, lockdep_is_held(&ch->mutex));
	ws = want_merge(old, sets, count, add);
	kfree(sets);
	if (IS_ERR(ws))
		return PTR_ERR(ws);
	rcu_assign_pointer(ch->want, ws);
	if (ws->n && !(old && old->n))
		atomic_inc(&nr_tracing);
	else if (!ws->n && old && old->n)
		atomic_dec(&nr_tracing);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
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

/* The capture level. A speculating channel stays at VOLIOT_PHASES_ISSUE:
 * its program keys and commits issues and completions only.
 */
static int chan_phases(struct vxt_chan *ch, unsigned long arg)
{
	if (ch->mode != VOLIOT_MODE_IO || arg > VOLIOT_PHASES_ALL)
		return -EINVAL;
	if (arg == VOLIOT_PHASES_ALL && ch->spec)
		return -EINVAL;
	if (arg == ch->phases)
		return 0;
	if (arg == VOLIOT_PHASES_ALL)
		atomic_inc(&nr_phases);
	else
		atomic_dec(&nr_phases);
	WRITE_ONCE(ch->phases, arg);
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
	atomic64_add(vxt_spec_bytes(s), &ring_bytes);
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
		rc = chan_trace(ch, arg, true);
		break;
	case VOLIOT_IO_UNTRACE:
		rc = chan_trace(ch, arg, false);
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
		rc = chan_phases(ch, arg);
		break;
	default:
		rc = -ENOTTY;
		break;
	}
	mutex_unlock(&ch->mutex);
	return rc;
}

/* ---- reading ---- */

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
			clock_rec((struct voliot_clock_rec *)ch->bounce);
			n = *next;
			ch->clock_pending = false;
		}
		return n + vxt_errlog_read(&ch->err_pos, &ch->seen,
					   ch->bounce + n, max - n, next);
	}
	spin_lock_irq(&ch->lock);
	if (ch->lost_pending &&
	    vxt_ring_space(&ch->ring) >= sizeof(struct voliot_lost_rec)) {
		ring_put_lost(&ch->ring, ch->lost_pending);
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
		atomic64_add(n, &read_plain);
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
			atomic64_add(k[kind], &read_spec[kind]);
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

static ssize_t vxt_read(struct file *file, char __user *buf, size_t count,
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

static __poll_t vxt_poll(struct file *file, poll_table *wait)
{
	struct vxt_chan *ch = file->private_data;
	u32 mode = READ_ONCE(ch->mode);

	poll_wait(file, &ch->wait, wait);
	poll_wait(file, &vxt_err_wait, wait);
	if (mode == VOLIOT_MODE_NONE)
		return EPOLLERR;
	return chan_ready(ch, mode) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* ---- open and release ---- */

static int vxt_open(struct inode *inode, struct file *file)
{
	struct vxt_chan *ch;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (atomic_inc_return(&nr_channels) > READ_ONCE(max_channels)) {
		atomic_dec(&nr_channels);
		return -EMFILE;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		atomic_dec(&nr_channels);
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
	atomic_dec(&nr_channels);
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
