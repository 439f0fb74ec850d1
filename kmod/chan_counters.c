// SPDX-License-Identifier: GPL-2.0
/* chan_counters.c - the channels' live counters, and the read-only module
 * parameters that show them
 *
 * The counters are atomics the channel paths (chan.c, chan_select.c,
 * chan_read.c) update; spec_stats also walks the I/O channels under RCU and
 * takes each one's spinlock to sum the counters of its program.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>

#include "chan.h"

atomic_t vxt_nr_channels = ATOMIC_INIT(0);
atomic_t vxt_nr_tracing = ATOMIC_INIT(0);	/* channels with object sets */
atomic_t vxt_nr_phases = ATOMIC_INIT(0);	/* channels at VOLIOT_PHASES_ALL */
atomic64_t vxt_ring_bytes = ATOMIC64_INIT(0);

/* Bytes read() returned since load: by I/O channels without a program, and
 * by speculating channels by kind of record (read_bytes).
 */
atomic64_t vxt_read_plain = ATOMIC64_INIT(0);
atomic64_t vxt_read_spec[VXT_RD_KINDS];

/* Speculation counters of the channels closed or re-initialised so far. */
struct voliot_spec_stats vxt_spec_done;
unsigned int vxt_spec_done_chans;
DEFINE_SPINLOCK(vxt_spec_done_lock);

static int param_get_nr_channels(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&vxt_nr_channels));
}

static int param_get_nr_tracing(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&vxt_nr_tracing));
}

static int param_get_ring_bytes(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&vxt_ring_bytes));
}

static int param_get_rq_errors(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&vxt_rq_errors));
}

static int param_get_read_bytes(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "plain %lld spec_io %lld spec_stats %lld spec_horizon %lld spec_other %lld\n",
			  (long long)atomic64_read(&vxt_read_plain),
			  (long long)atomic64_read(&vxt_read_spec[VXT_RD_IO]),
			  (long long)atomic64_read(&vxt_read_spec[VXT_RD_STATS]),
			  (long long)atomic64_read(&vxt_read_spec[VXT_RD_HORIZON]),
			  (long long)atomic64_read(&vxt_read_spec[VXT_RD_OTHER]));
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

	spin_lock_irqsave(&vxt_spec_done_lock, flags);
	sum = vxt_spec_done;
	done = vxt_spec_done_chans;
	spin_unlock_irqrestore(&vxt_spec_done_lock, flags);
	rcu_read_lock();
	list_for_each_entry_rcu(ch, &vxt_io_chans, node) {
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
