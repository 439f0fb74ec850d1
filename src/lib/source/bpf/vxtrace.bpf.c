// SPDX-License-Identifier: GPL-2.0-only
/* vxtrace.bpf.c - the eBPF capture programs of the "ebpf" source
 *
 * BTF-typed tracepoint programs (tp_btf) on the block layer's request
 * tracepoints, compiled once with clang and relocated at load time through
 * the running kernel's BTF (CO-RE), so struct request's layout, the
 * REQ_OP_* values and the __REQ_* flag bits of any kernel from 6.1 on are
 * taken from that kernel, not from the one that built the program.
 *
 *   block_rq_issue     -> VOLIOT_REC_IO_START  (blktrace D)
 *   block_rq_requeue   -> VOLIOT_REC_REQUEUE   (R)
 *   block_rq_complete  -> VOLIOT_REC_IO_DONE   (C), with its latency since D
 *
 * The kernel may run the block_rq_complete tracepoint without any BPF
 * program (a completion the BLOCK softirq runs for other tasks; one such
 * run completes every request then done, so these come in batches). Such a
 * completion is found when its request is issued again while its issue is
 * still remembered (not requeued in between): it is counted as missed and a
 * VXT_BPF_REC_MISSED record names its I/O. One whose request is not issued
 * again is found by user space against the block layer's own count of I/O
 * in flight (ebpf_recon.h; each slot keeps the device, operation and
 * sector for this).
 *
 * Records go to user space through one BPF ring buffer in the channel layout
 * of include/vxtrace/voltrace.h (struct voliot_io_rec), the layout the
 * module's channel uses, so one decoder serves both kernel paths. A record
 * wakes user space only when the ring's fill crosses a mark (a quarter of
 * it); otherwise user space reads the ring on a timer (every 10 ms), so a
 * busy capture costs no wakeup per event.
 *
 * In the kernel: object selection (want_dev[], or every device when
 * want_all), pairing of each completion with its issue by the request's
 * address (issue time, pid and command of the issuer), the filter's part
 * the kernel can test (kfilter.bpf.h), and with spec_on the profiles'
 * context (spec.bpf.h): records no trigger claims never reach user space.
 * When the ring is full a record is not sent and the per-CPU lost counter
 * grows; user space turns it into lost records.
 *
 * With tally_on, the programs also count per (device, op) from the very
 * records they send (tally.bpf.h); with tally_only they send nothing and
 * make no record (no issuer looked up).
 *
 * The parts, one BPF object (one skeleton, one load): this file (the maps
 * and helpers all share, issue, requeue and completion), kfilter.bpf.h,
 * tally.bpf.h, spec.bpf.h, and phases.bpf.h (--phases all).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define VXT_BPF_RECORDS
#include "vxtrace_bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile bool want_all = true;
/* the devices to trace (VOLIOT_MKDEV encoding), ascending, want_n of them */
const volatile __u32 want_n;
const volatile __u32 want_dev[VXT_BPF_MAX_DEVS];
/* ask for a wakeup of user space when the ring's fill crosses a multiple of
 * this many bytes (a power of two; 0: after every record); user space also
 * reads the ring on a timer of its own */
const volatile __u32 wake_mark;
/* kernel speculation: keep, per key, the records within spec_before_ns
 * before a trigger, the trigger, and those within spec_after_ns after it */
const volatile bool spec_on;
const volatile __u32 spec_key;		/* enum vxt_bpf_key */
const volatile __u64 spec_before_ns;
const volatile __u64 spec_after_ns;
const volatile __u32 spec_before_events;	/* ... and among the last this many (0: any) */
const volatile __u32 spec_after_events;	/* ... and among the first this many (0: any) */
const volatile bool spec_on_error;	/* trigger: a completion with an error */
const volatile __u64 spec_on_latency_ns;	/* trigger: a completion this slow (0 = no) */
const volatile bool spec_latency_strict;	/* ... slower than, not as slow as */
const volatile __u32 spec_window = 1;	/* records a key's window holds */
const volatile __u32 spec_keys = 1;	/* keys (windows) at most */

/* in-kernel counting (struct vxt_bpf_tally), and instead of records */
const volatile bool tally_on;
const volatile bool tally_only;

/* every program returns at once: what attaching them costs (VXT_EBPF_NOOP);
 * with noop_clock, the issue's and the completion's after one clock read
 * each (VXT_EBPF_NOOP=clock): the least any latency measured here costs */
const volatile bool noop;
const volatile bool noop_clock;

/* a diagnostic knob (VXT_EBPF_SKIP_DONE): the completion program returns at
 * once for every skip_done_every-th completion of a traced device, as if
 * the kernel had run the tracepoint without it (0: never) */
const volatile __u64 skip_done_every;
__u64 done_runs;			/* completions of traced devices so far */

/* the kernel's part of a filter (struct vxt_bpf_kftest in kfilter) */
const volatile bool kf_on;
const volatile __u16 kf_entry;
const volatile __u32 kf_n;

__u32 spec_nkeys;			/* window slots handed out */

/* set by user space as the capture ends: no issue is taken any more, and a
 * completion only for an issue remembered (none without its issue) */
bool stopping;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* resized by user space before load */
} events SEC(".maps");

/* request address -> its issue: an open-addressed table (a hash map's
 * update and delete, with their bucket locks, cost more than the rest of a
 * program); a request takes its own slot among the INFLIGHT_PROBES from its
 * hash, or else the first free one, claimed by a compare-and-swap; user
 * space maps it and frees the slots of completions never seen */
/* (struct vxt_bpf_slot, vxtrace_bpf.h) */
#define SLOT_ISSUED	VXT_BPF_SLOT_ISSUED
#define SLOT_REQUEUED	VXT_BPF_SLOT_REQUEUED

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VXT_BPF_MAX_INFLIGHT);	/* a power of two */
	__uint(map_flags, BPF_F_MMAPABLE);	/* values page-aligned */
	__type(key, __u32);
	__type(value, struct vxt_bpf_slot);
} inflight SEC(".maps");

#define INFLIGHT_PROBES 8

/* counters, per CPU: enum vxt_bpf_counter */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VXT_BPF_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		(*v)++;
}

/* A request's address as a number: the verifier lets no arithmetic touch a
 * BTF pointer but the distance between two pointers (a scalar, for a
 * program with CAP_PERFMON), here from a fixed address of our own. */
static __always_inline __u64 rq_key(struct request *rq)
{
	return (__u64)rq - (__u64)&spec_nkeys;
}

static __always_inline __u32 inflight_hash(__u64 rq)
{
	return (__u32)((rq * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The slot of request @rq's issue, or 0. */
static __always_inline struct vxt_bpf_slot *inflight_get(__u64 rq)
{
	__u32 h = inflight_hash(rq);

	for (int i = 0; i < INFLIGHT_PROBES; i++) {
		__u32 at = (h + i) & (VXT_BPF_MAX_INFLIGHT - 1);
		struct vxt_bpf_slot *sl = bpf_map_lookup_elem(&inflight, &at);

		if (!sl)
			break;
		if (sl->rq == rq)
			return sl;
	}
	return 0;
}

/* Remember the issue @is of request @rq, an @op on @dev at @sector (again,
 * after a requeue). @return true when the request was issued before and
 * neither completed nor requeued since (its completion never ran our
 * programs), that earlier issue copied into @was. */
static __always_inline bool inflight_put(__u64 rq, const struct vxt_bpf_issue *is,
					 __u32 dev, __u8 op, __u64 sector,
					 struct vxt_bpf_slot *was)
{
	__u32 h = inflight_hash(rq);
	bool missed = false;
	int i;

	/* its own slot first: a free one earlier among its probes (freed
	 * since it was taken) must not make it a second */
	struct vxt_bpf_slot *sl = inflight_get(rq);

	if (sl) {
		if (sl->state == SLOT_ISSUED) {
			*was = *sl;
			missed = was->rq == rq;
		}
		goto fill;
	}
	for (i = 0; i < INFLIGHT_PROBES; i++) {
		__u32 at = (h + i) & (VXT_BPF_MAX_INFLIGHT - 1);

		sl = bpf_map_lookup_elem(&inflight, &at);
		if (!sl)
			break;
		if (!sl->rq && !__sync_val_compare_and_swap(&sl->rq, 0, rq))
			goto fill;
	}
	count(VXT_BPF_UNPAIRED);
	return false;
fill:
	if (missed)
		count(VXT_BPF_MISSED);
	sl->is = *is;
	sl->dev = dev;
	sl->op = op;
	sl->sector = sector;
	sl->state = SLOT_ISSUED;
	return missed;
}

/* The operation of a request, from the running kernel's REQ_OP_* values. */
static __always_inline __u8 rq_op(__u32 opf)
{
	__u32 op = opf & ((1u << 8) - 1);	/* REQ_OP_BITS is 8 on every kernel since 4.10 */

	if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ))
		return VOLIOT_OP_READ;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		return VOLIOT_OP_WRITE;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		return VOLIOT_OP_FLUSH;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD) ||
	    op == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE))
		return VOLIOT_OP_DISCARD;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES))
		return VOLIOT_OP_WRITE_ZEROES;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DRV_IN) ||
	    op == bpf_core_enum_value(enum req_op, REQ_OP_DRV_OUT))
		return VOLIOT_OP_PASSTHRU;
	return VOLIOT_OP_OTHER;
}

#define REQ_BIT(name) (1u << bpf_core_enum_value(enum req_flag_bits, name))

static __always_inline __u16 rq_flags(__u32 opf)
{
	__u16 f = 0;

	if (opf & REQ_BIT(__REQ_SYNC))
		f |= VOLIOT_F_SYNC;
	if (opf & REQ_BIT(__REQ_FUA))
		f |= VOLIOT_F_FUA;
	if (opf & REQ_BIT(__REQ_META))
		f |= VOLIOT_F_META;
	if (opf & REQ_BIT(__REQ_PREFLUSH))
		f |= VOLIOT_F_PREFLUSH;
	if (opf & REQ_BIT(__REQ_RAHEAD))
		f |= VOLIOT_F_RAHEAD;
	return f;
}

/* blk_status_t -> negative errno, as the kernel's blk_status_to_errno().
 * The codes below have kept their values since they were added. */
static __always_inline __s32 status_errno(__u8 st)
{
	switch (st) {
	case 0: return 0;
	case 1: return -95;	/* BLK_STS_NOTSUPP: EOPNOTSUPP */
	case 2: return -110;	/* BLK_STS_TIMEOUT: ETIMEDOUT */
	case 3: return -28;	/* BLK_STS_NOSPC: ENOSPC */
	case 4: return -67;	/* BLK_STS_TRANSPORT: ENOLINK */
	case 5: return -121;	/* BLK_STS_TARGET: EREMOTEIO */
	case 6: return -52;	/* BLK_STS_RESV_CONFLICT (NEXUS): EBADE */
	case 7: return -61;	/* BLK_STS_MEDIUM: ENODATA */
	case 8: return -84;	/* BLK_STS_PROTECTION: EILSEQ */
	case 9: return -12;	/* BLK_STS_RESOURCE: ENOMEM */
	case 10: return -5;	/* BLK_STS_IOERR: EIO */
	case 11: return -78;	/* BLK_STS_DM_REQUEUE: EREMCHG */
	case 12: return -11;	/* BLK_STS_AGAIN: EAGAIN */
	case 13: return -16;	/* BLK_STS_DEV_RESOURCE: EBUSY */
	case 14: return -109;	/* BLK_STS_ZONE_OPEN_RESOURCE: ETOOMANYREFS */
	case 15: return -75;	/* BLK_STS_ZONE_ACTIVE_RESOURCE: EOVERFLOW */
	case 16: return -19;	/* BLK_STS_OFFLINE: ENODEV */
	}
	return -5;		/* newer or unknown codes: EIO, as the kernel's default */
}

/* The index of @dev in want_dev[], or -1. A binary search
 * (VXT_BPF_MAX_DEVS is 256). */
static __always_inline int wanted(__u32 dev)
{
	__u32 lo = 0, hi = want_n;

	for (int i = 0; i < 9; i++) {
		__u32 mid, v;

		if (lo >= hi)
			return -1;
		mid = ((lo + hi) / 2) & (VXT_BPF_MAX_DEVS - 1);
		v = want_dev[mid];
		if (v == dev)
			return (int)mid;
		if (v < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The traced device of @rq in VOLIOT_MKDEV encoding, or 0 to skip it: a
 * wanted partition wins over its disk; its index in want_dev[] into @idx
 * (VXT_BPF_MAX_DEVS with want_all). The tracepoints' arguments are
 * typed by BTF: plain loads read the request (relocated by CO-RE, through
 * the verifier's checked loads), with no helper call each. */
static __always_inline __u32 dev_of(struct gendisk *gd, struct block_device *bd, __u32 *idx)
{
	__u32 disk, part;
	int at;

	*idx = VXT_BPF_MAX_DEVS;
	if (!gd)
		return 0;
	disk = ((__u32)gd->major << 20) | (__u32)gd->first_minor;
	if (want_all)
		return disk;
	part = bd ? bd->bd_dev : 0;
	if (part && part != disk && (at = wanted(part)) >= 0) {
		*idx = at;
		return part;
	}
	at = wanted(disk);
	if (at < 0)
		return 0;
	*idx = at;
	return disk;
}

static __always_inline __u32 rq_dev(struct request *rq, __u32 *idx)
{
	return dev_of(rq->q->disk, rq->part, idx);
}

/* A record into the ring, user space not woken (it reads the ring every
 * few ms) unless the fill just crossed a multiple of wake_mark. */
static __always_inline void ring_put(const struct voliot_io_rec *r)
{
	struct voliot_io_rec *slot = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	__u64 fill, flags = BPF_RB_NO_WAKEUP;

	if (!slot) {
		count(VXT_BPF_LOST);
		return;
	}
	__builtin_memcpy(slot, r, sizeof(*r));
	if (!wake_mark) {
		flags = 0;
	} else {
		fill = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		if (fill >= wake_mark && (fill & (wake_mark - 1)) < 1024)
			flags = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(slot, flags);
	if (spec_on)	/* what the speculation kept; else user space counts */
		count(VXT_BPF_SENT);
}

#include "kfilter.bpf.h"
#include "tally.bpf.h"
#include "spec.bpf.h"

static __always_inline int send(struct request *rq, __u8 type, __u32 dev, __u32 idx,
				__s32 error, __u32 bytes, __u64 now,
				const struct vxt_bpf_issue *is)
{
	struct voliot_io_rec r;
	__u32 opf = rq->cmd_flags;

	r.len = sizeof(r);
	r.type = type;
	r.op = rq_op(opf);
	r.reserved0 = 0;
	r.flags = rq_flags(opf);
	r.cpu = bpf_get_smp_processor_id();
	r.dev = dev;
	r.bytes = bytes;
	r.error = error;
	r.time_ns = now;
	r.sector = rq->__sector;
	if (r.sector == (__u64)-1)
		r.sector = 0;	/* a flush request completes at sector -1 */
	r.latency_ns = 0;
	if (is) {
		r.pid = is->pid;
		__builtin_memcpy(r.comm, is->comm, sizeof(r.comm));
		if (type == VOLIOT_REC_IO_DONE && now > is->time_ns)
			r.latency_ns = now - is->time_ns;
	} else {
		r.pid = 0;
		__builtin_memset(r.comm, 0, sizeof(r.comm));
	}
	if (tally_on)
		tally_rec(&r, idx);
	if (kf_on && !kf_may_accept(&r)) {
		count(VXT_BPF_FILTERED);
		return 0;
	}
	if (spec_on)
		speculate(&r, idx);
	else
		ring_put(&r);
	return 0;
}

/* Tell user space of the I/O of slot copy @was, issued and never seen
 * completing, found at @now: past any speculation or filter (it accounts
 * for an issue user space may hold in flight). */
static __always_inline void send_missed(const struct vxt_bpf_slot *was, __u64 now)
{
	struct voliot_io_rec r;

	r.len = sizeof(r);
	r.type = VXT_BPF_REC_MISSED;
	r.op = was->op;
	r.reserved0 = 0;
	r.flags = 0;
	r.cpu = bpf_get_smp_processor_id();
	r.dev = was->dev;
	r.pid = was->is.pid;
	r.bytes = was->is.bytes;
	r.error = 0;
	r.time_ns = now;
	r.sector = was->sector;
	r.latency_ns = was->is.time_ns;
	__builtin_memcpy(r.comm, was->is.comm, sizeof(r.comm));
	ring_put(&r);
}

static __always_inline void issue_of_current(struct vxt_bpf_issue *is, __u64 now)
{
	is->time_ns = now;
	is->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(is->comm, sizeof(is->comm));
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(vxt_rq_issue, struct request *rq)
{
	__u32 idx, dev;
	__u8 op;
	__u64 key = rq_key(rq), now, sector;
	struct vxt_bpf_issue is;
	struct vxt_bpf_slot was;

	if (noop) {
		if (noop_clock)
			bpf_ktime_get_ns();
		return 0;
	}
	if (stopping)
		return 0;
	dev = rq_dev(rq, &idx);
	if (!dev)
		return 0;
	now = bpf_ktime_get_ns();
	op = rq_op(rq->cmd_flags);
	sector = rq->__sector;
	if (tally_only) {
		struct vxt_bpf_tally *t;

		__builtin_memset(&is, 0, sizeof(is));
		is.time_ns = now;
		/* the earlier I/O of the request is no longer in flight */
		if (inflight_put(key, &is, dev, op, sector, &was) && was.dev == dev &&
		    (t = tally_of(dev, idx, was.op)))
			TALLY_ADD(t->lost, 1);
		t = tally_of(dev, idx, op);
		if (t)
			TALLY_ADD(t->started, 1);
		return 0;
	}
	issue_of_current(&is, now);
	is.bytes = rq->__data_len;
	if (inflight_put(key, &is, dev, op, sector, &was))
		send_missed(&was, now);
	return send(rq, VOLIOT_REC_IO_START, dev, idx, 0, rq->__data_len, now, &is);
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(vxt_rq_requeue, struct request *rq)
{
	__u32 idx, dev;
	struct vxt_bpf_slot *sl;

	if (noop)
		return 0;
	dev = rq_dev(rq, &idx);
	if (!dev)
		return 0;
	sl = inflight_get(rq_key(rq));
	if (sl)
		sl->state = SLOT_REQUEUED;	/* its next issue is not a new I/O */
	if (tally_only) {
		struct vxt_bpf_tally *t = tally_of(dev, idx, rq_op(rq->cmd_flags));

		if (t)
			TALLY_ADD(t->requeued, 1);
		return 0;
	}
	return send(rq, VOLIOT_REC_REQUEUE, dev, idx, 0, rq->__data_len,
		    bpf_ktime_get_ns(), sl ? &sl->is : 0);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(vxt_rq_complete, struct request *rq, blk_status_t status, unsigned int nr_bytes)
{
	__u32 idx, dev;
	__u64 now;
	struct vxt_bpf_issue copy;
	struct vxt_bpf_slot *sl;
	__s32 error;

	if (noop) {
		if (noop_clock)
			bpf_ktime_get_ns();
		return 0;
	}
	dev = rq_dev(rq, &idx);
	if (!dev)
		return 0;
	if (skip_done_every && (__sync_fetch_and_add(&done_runs, 1) + 1) % skip_done_every == 0)
		return 0;
	now = bpf_ktime_get_ns();
	error = status_errno(status);
	sl = inflight_get(rq_key(rq));
	if (sl) {
		copy = sl->is;
		/* a request completes in parts (nr_bytes each); its issue
		 * stays until the last part */
		if (nr_bytes >= rq->__data_len)
			sl->rq = 0;
	} else if (stopping) {
		return 0;	/* the capture ends: no completion without its issue */
	} else if (!nr_bytes && !rq->__data_len &&
		   rq_op(rq->cmd_flags) == VOLIOT_OP_WRITE) {
		/* the end of a flush sequence: an empty write whose preflush
		 * was issued as a flush request of its own, the write itself
		 * never (the kernel cleared its REQ_PREFLUSH on the way) */
		count(VXT_BPF_FLUSH_ENDS);
		return 0;
	} else {
		/* no issue known: defined all the same, so no register the
		 * compiler keeps it in goes unwritten on this way */
		__builtin_memset(&copy, 0, sizeof(copy));
	}
	if (tally_only) {
		tally_done(dev, idx, rq_op(rq->cmd_flags), error, nr_bytes,
			   sl && now > copy.time_ns ? now - copy.time_ns : 0);
		return 0;
	}
	return send(rq, VOLIOT_REC_IO_DONE, dev, idx, error, nr_bytes, now, sl ? &copy : 0);
}

/* The other phases' programs, in a file of their own, built into this one
 * object (one skeleton, one load). */
#include "phases.bpf.h"
