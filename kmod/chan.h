/* SPDX-License-Identifier: GPL-2.0 */
/* chan.h - a channel of /dev/vxtrace, shared by the files of the channel
 *
 * chan.c owns the device and a channel's life (open, the ioctls, the
 * probes' side, release); chan_select.c what a channel selects,
 * chan_read.c read() and poll(), chan_counters.c the live counters. Every
 * path that takes a channel's mutex or spinlock, or walks vxt_io_chans, is
 * in one of these four files.
 * Locking: ch->mutex serialises the ioctls and reads of a channel;
 * ch->lock (irqsave: the probes run in any context) guards its ring, lost
 * counts, seen table and program; vxt_io_chans is RCU, its writers hold
 * chan.c's io_chans_lock.
 */
#ifndef VXT_CHAN_H
#define VXT_CHAN_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>

#include "vxtrace.h"

#define VXT_SETS_MAX		VOLIOT_WANT_MAX

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
	struct list_head node;		/* on vxt_io_chans while in IO mode */
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

/* ---- live counters (chan_counters.c) ---- */

extern atomic_t vxt_nr_channels;
extern atomic_t vxt_nr_tracing;		/* channels with object sets */
extern atomic_t vxt_nr_phases;		/* channels at VOLIOT_PHASES_ALL */
extern atomic64_t vxt_ring_bytes;	/* rings, bounce buffers, programs */
enum { VXT_RD_IO, VXT_RD_STATS, VXT_RD_HORIZON, VXT_RD_OTHER, VXT_RD_KINDS };
extern atomic64_t vxt_read_plain;
extern atomic64_t vxt_read_spec[VXT_RD_KINDS];
/* Speculation counters of the channels closed or re-initialised so far. */
extern struct voliot_spec_stats vxt_spec_done;
extern unsigned int vxt_spec_done_chans;
extern spinlock_t vxt_spec_done_lock;

/* ---- chan.c ---- */

extern struct list_head vxt_io_chans;	/* channels in I/O mode, RCU */
/* Put a lost record of @count events; the caller checked the space. */
void vxt_chan_put_lost(struct vxt_ring *r, u64 count);
/* A clock record of now at @c. */
void vxt_clock_rec(struct voliot_clock_rec *c);

/* ---- chan_select.c: ioctls, the channel's mutex held ---- */

/* VOLIOT_IO_TRACE (@add) or VOLIOT_IO_UNTRACE from the list at @arg. */
int vxt_chan_trace(struct vxt_chan *ch, unsigned long arg, bool add);
/* VOLIOT_IO_PHASES @arg. */
int vxt_chan_phases(struct vxt_chan *ch, unsigned long arg);

/* ---- chan_read.c ---- */

ssize_t vxt_read(struct file *file, char __user *buf, size_t count,
		 loff_t *ppos);
__poll_t vxt_poll(struct file *file, poll_table *wait);

#endif /* VXT_CHAN_H */
