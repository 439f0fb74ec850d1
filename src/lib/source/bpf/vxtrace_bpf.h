/* SPDX-License-Identifier: GPL-2.0-only OR LGPL-2.1-or-later */
/* vxtrace_bpf.h - what the ebpf source's kernel programs and user space share
 *
 * Included by vxtrace.bpf.c (with VXT_BPF_RECORDS, which also pulls in the
 * channel record layout without the C library) and by source_ebpf.c.
 */
#ifndef VXT_BPF_H
#define VXT_BPF_H

#define VXT_BPF_MAX_DEVS	256
#define VXT_BPF_MAX_INFLIGHT	65536

/* Kernel speculation ("context" programs): a window of the last
 * spec_window records per key, spec_keys keys at most, both sized from the
 * profile's specsize and nspec before the programs load (source_ebpf.c);
 * the profile's nspec x specsize at most VXT_BPF_SPEC_MAX_BYTES, the
 * module's default spec_max_bytes. */
#define VXT_BPF_SPEC_MAX_BYTES	(64ull << 20)
#define VXT_BPF_MAX_KEYS	65536	/* keys a speculation takes at most */
#define VXT_BPF_SPEC_EVENT	56	/* bytes specsize counts an event (the
					 * profile's VXT_SPEC_RECORD_SIZE) */

/* The key of a kernel speculation (as enum vxt_spec_key). */
enum vxt_bpf_key {
	VXT_BPF_KEY_OBJECT = 0,
	VXT_BPF_KEY_PID = 1,
	VXT_BPF_KEY_OBJECT_PID = 2,
};

/* In-kernel counting ("tally" mode): per (device, op) and per (device, op,
 * errno), at most this many of each. */
#define VXT_BPF_MAX_TALLY	1024
#define VXT_BPF_TALLY_OPS	8	/* entries per device in the array (ops 0..6) */
#define VXT_BPF_US_BUCKETS	26	/* le = 2^k us, k = 0..24, then +Inf */
/* The latencies of a (device, op) in ns, in the buckets of the product's
 * one latency distribution (vxt_latdist_bucket(), latdist.h: 7 significant
 * bits, 128 buckets per power of two, a value under 256 its own bucket):
 * buckets 0 .. VXT_BPF_LAT_BUCKETS - 1 hold 0 .. 2^37 - 1 ns (137 s), the
 * last one also every latency above. 31 744 bytes, under the 32 KiB a
 * per-CPU map's value may take. */
#define VXT_BPF_LAT_TOP		37	/* a power of two past the buckets' range */
#define VXT_BPF_LAT_BUCKETS	((VXT_BPF_LAT_TOP - 6) << 7)

/* The key of a tally: dev << 8 | op. Of an error count: dev << 32 |
 * op << 16 | (__u16)errno. */
struct vxt_bpf_tally {
	__u64	started, requeued, completed, bytes, errors;
	__u64	lost;			/* issues whose completion never ran the
					 * programs, found at their next issue */
	__u64	lat_count, lat_sum_ns, lat_max_ns;	/* completions with a latency */
	__u64	us_bucket[VXT_BPF_US_BUCKETS];
};

/* A (device, op)'s latency histogram (the key of its tally). */
struct vxt_bpf_hist {
	__u64	b[VXT_BPF_LAT_BUCKETS];
};

/* The per-CPU counters map. */
enum vxt_bpf_counter {
	VXT_BPF_SENT = 0,	/* records put in the ring (counted with spec_on only) */
	VXT_BPF_LOST = 1,	/* records dropped: the ring was full */
	VXT_BPF_UNPAIRED = 2,	/* issues not remembered: their in-flight slots were taken */
	VXT_BPF_SEEN = 3,	/* speculation: records considered */
	VXT_BPF_COMMITS = 4,	/* speculation: triggers that committed a window */
	VXT_BPF_SPEC_DROPS = 5,	/* speculation: records overwritten while still in a window */
	VXT_BPF_SPEC_FAILED = 6,/* speculation: records of keys past spec_keys */
	VXT_BPF_FLUSH_ENDS = 7,	/* completions ending a flush sequence, not recorded */
	VXT_BPF_TALLY_FULL = 8,	/* tally mode: I/Os of a key past VXT_BPF_MAX_TALLY */
	VXT_BPF_FILTERED = 9,	/* records the kernel's filter kept back */
	VXT_BPF_MISSED = 10,	/* completions that never ran the programs: their
				 * request was issued again while still remembered */
	VXT_BPF_NCOUNTERS
};

#ifdef VXT_BPF_RECORDS
/* The channel record types and layouts, restated from voltrace.h for the
 * BPF target (which has no <linux/types.h> beside vmlinux.h). Static
 * assertions in source_ebpf.c keep both the same. */
#define VOLIOT_REC_IO_START	1
#define VOLIOT_REC_IO_DONE	2
#define VOLIOT_REC_REQUEUE	7
#define VOLIOT_OP_READ		0
#define VOLIOT_OP_WRITE		1
#define VOLIOT_OP_FLUSH		2
#define VOLIOT_OP_DISCARD	3
#define VOLIOT_OP_WRITE_ZEROES	4
#define VOLIOT_OP_PASSTHRU	5
#define VOLIOT_OP_OTHER		6
#define VOLIOT_F_SYNC		0x0001
#define VOLIOT_F_FUA		0x0002
#define VOLIOT_F_META		0x0004
#define VOLIOT_F_PREFLUSH	0x0008
#define VOLIOT_F_RAHEAD		0x0020

struct voliot_io_rec {
	__u8	len;
	__u8	type;
	__u8	op;
	__u8	reserved0;
	__u16	flags;
	__u16	cpu;
	__u32	dev;
	__u32	pid;
	__u32	bytes;
	__s32	error;
	__u64	time_ns;
	__u64	sector;
	__u64	latency_ns;
	char	comm[16];
};
#endif

/* One key's window: how many records it stored and what has been sent
 * already. Its records are spec_window entries of the spec_records array
 * from slot x spec_window on, their times the same entries of spec_times. */
struct vxt_bpf_window {
	/* read by every record of the key, written by triggers and by the
	 * records sent after them */
	__u64	after_until;		/* records up to this time go out live */
	__u64	sent_upto;		/* newest record time already sent */
	__s64	after_left;		/* ... and this many more (after_events) */
	__u64	pad_read[5];
	/* written by every record kept, on every CPU: a line of its own, so
	 * the fields above stay in each CPU's cache between triggers */
	__u64	head;			/* records stored so far */
	__u64	pad_head[7];
};

_Static_assert(sizeof(struct vxt_bpf_window) == 128, "a window is two cache lines");

/* A record of a window and the sequence number it was written with (a
 * reader skips a slot being rewritten). */
struct vxt_bpf_wrec {
	__u64	seq;			/* holds record number seq + 1; 0 = empty */
	struct voliot_io_rec rec;
};

/* The kernel's part of a filter (struct vxt_kfilter of source.h, one test
 * per entry of the kfilter map; the event's phase values below). */
#define VXT_BPF_KF_TESTS	16
#define VXT_BPF_KF_ACCEPT	0xffffu
#define VXT_BPF_KF_REJECT	0xfffeu
#define VXT_BPF_PH_START	0
#define VXT_BPF_PH_DONE		1
#define VXT_BPF_PH_REQUEUE	2

struct vxt_bpf_kftest {
	__u8	known, word, shift, pad;
	__u16	t, f;
	__u64	mask, lo, span;
};

/* What the kernel remembers of an issued request until it completes. */
struct vxt_bpf_issue {
	__u64	time_ns;
	__u32	pid;
	char	comm[16];
	__u32	bytes;			/* its size when issued */
};

/* A slot of the inflight array: a request issued and not completed yet
 * (user space counts those left when the capture ends, by device and
 * operation). One cache line each, in a map whose values start on a page
 * (BPF_F_MMAPABLE): a slot the issuing CPU writes and the completing CPU
 * reads moves between them as one line, not two, and shares it with no
 * other request's slot. */
struct vxt_bpf_slot {
	__u64	rq;			/* the request's address; 0: free */
	__u8	state;			/* VXT_BPF_SLOT_ISSUED or _REQUEUED */
	__u8	op;			/* VOLIOT_OP_* */
	__u16	pad;
	__u32	dev;			/* its traced device (VOLIOT_MKDEV) */
	struct vxt_bpf_issue is;
	__u64	sector;			/* its first sector when issued */
	__u64	pad_line;		/* to 64 bytes */
};

_Static_assert(sizeof(struct vxt_bpf_slot) == 64, "a slot is one cache line");

#define VXT_BPF_SLOT_ISSUED	1
#define VXT_BPF_SLOT_REQUEUED	2

/* A record of the ring that is no channel record: an I/O whose completion
 * never ran the programs, found when its request was issued again (struct
 * voliot_io_rec: the I/O as issued, time_ns when it was found, latency_ns
 * its issue time). */
#define VXT_BPF_REC_MISSED	0x40
/* Another: a phase besides issue, completion and requeue (--phases all),
 * reserved0 its enum vxt_phase value; a remap's source device in error (as
 * a __u32) and its source sector in latency_ns. */
#define VXT_BPF_REC_PHASE	0x41
#define VXT_BPF_PH_QUEUE	5	/* enum vxt_phase's values */
#define VXT_BPF_PH_MERGE	6
#define VXT_BPF_PH_INSERT	7
#define VXT_BPF_PH_PLUG		8
#define VXT_BPF_PH_UNPLUG	9
#define VXT_BPF_PH_REMAP	10
#define VXT_BPF_PH_SPLIT	11
#define VXT_BPF_PH_GETRQ	12

#endif
