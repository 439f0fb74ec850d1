/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/* voltrace.h - the /dev/vxtrace channel ABI, shared by kmod/ and userspace
 *
 * Modelled on VERITAS VxVM vxtrace(7). Every open() of /dev/vxtrace is a
 * private trace channel. It is made an I/O channel with VOLIOT_IO_TRACE_INIT
 * (then objects are picked with VOLIOT_IO_TRACE / VOLIOT_IO_UNTRACE) or an
 * error channel with VOLIOT_ERROR_TRACE_INIT. read() returns whole records:
 * byte 0 of a record is its total length (including that byte), byte 1 its
 * type. Unknown types are skipped by length, so the ABI can grow.
 *
 * All fields are fixed width and little-endian. Spec: formats/channel.md.
 */
#ifndef VXTRACE_VOLTRACE_H
#define VXTRACE_VOLTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifdef __KERNEL__
#include <linux/build_bug.h>
#define VOLIOT_STATIC_ASSERT(expr, msg) static_assert(expr, msg)
#else
#define VOLIOT_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif

#define VOLIOT_ABI_VERSION	1
#define VOLIOT_DEVICE		"/dev/vxtrace"

/* Device numbers travel in the kernel's own encoding: major << 20 | minor. */
#define VOLIOT_MINORBITS	20
#define VOLIOT_MKDEV(ma, mi)	(((__u32)(ma) << VOLIOT_MINORBITS) | (__u32)(mi))
#define VOLIOT_MAJOR(dev)	((__u32)(dev) >> VOLIOT_MINORBITS)
#define VOLIOT_MINOR(dev)	((__u32)(dev) & ((1U << VOLIOT_MINORBITS) - 1))

/* ---- records read() returns ---- */

enum voliot_rec_type {
	VOLIOT_REC_IO_START	= 1,	/* struct voliot_io_rec: request issued */
	VOLIOT_REC_IO_DONE	= 2,	/* struct voliot_io_rec: completed (ok or not) */
	VOLIOT_REC_ERROR	= 3,	/* struct voliot_io_rec: error (error channel) */
	VOLIOT_REC_LOST		= 4,	/* struct voliot_lost_rec: events dropped */
	VOLIOT_REC_OBJECT	= 5,	/* struct voliot_object_rec: first sight of dev */
	VOLIOT_REC_CLOCK	= 6,	/* struct voliot_clock_rec: time anchor */
	VOLIOT_REC_REQUEUE	= 7,	/* struct voliot_io_rec: request requeued */
	VOLIOT_REC_SPEC_STATS	= 8,	/* struct voliot_spec_stats: speculation counters */
	VOLIOT_REC_SPEC_HORIZON	= 9,	/* struct voliot_spec_horizon: nothing older to come */
	VOLIOT_REC_IO_PACKED	= 10,	/* an I/O record told by how it differs
					 * from the previous one (VOLIOT_SPEC_F_PACKED) */
	VOLIOT_REC_IO_COMPACT	= 11,	/* an I/O record in varints, told against an
					 * earlier one (VOLIOT_SPEC_F_COMPACT) */
	VOLIOT_REC_IO_PAIR	= 12,	/* a start and the next record, compact, in
					 * one (VOLIOT_SPEC_F_PAIR) */
	/* The block layer's other phases, struct voliot_io_rec each, sent only
	 * to a channel at capture level VOLIOT_PHASES_ALL (VOLIOT_IO_PHASES). */
	VOLIOT_REC_QUEUE	= 16,	/* bio queued (blktrace Q) */
	VOLIOT_REC_GETRQ	= 17,	/* request allocated for a bio (G) */
	VOLIOT_REC_INSERT	= 18,	/* request inserted into the scheduler (I) */
	VOLIOT_REC_BACKMERGE	= 19,	/* bio merged at a request's end (M) */
	VOLIOT_REC_FRONTMERGE	= 20,	/* bio merged at a request's front (F) */
	VOLIOT_REC_PLUG		= 21,	/* queue plugged (P) */
	VOLIOT_REC_UNPLUG	= 22,	/* plugged requests sent on (U) */
	VOLIOT_REC_SPLIT	= 23,	/* bio split (X) */
	VOLIOT_REC_REMAP	= 24,	/* bio remapped to this device (A); struct
					 * voliot_remap_rec where len says so */
};

/* Capture levels of an I/O channel (VOLIOT_IO_PHASES, voliot_info.phases). */
enum voliot_phases {
	VOLIOT_PHASES_ISSUE	= 0,	/* issue, completion, requeue (the default) */
	VOLIOT_PHASES_ALL	= 1,	/* and the records 16 to 24 */
};

/* Operation codes (voliot_io_rec.op). Same values as enum vxt_op. */
enum voliot_op {
	VOLIOT_OP_READ		= 0,
	VOLIOT_OP_WRITE		= 1,
	VOLIOT_OP_FLUSH		= 2,
	VOLIOT_OP_DISCARD	= 3,
	VOLIOT_OP_WRITE_ZEROES	= 4,
	VOLIOT_OP_PASSTHRU	= 5,	/* special I/O: ioctl-style, SCSI/NVMe pass-through */
	VOLIOT_OP_OTHER		= 6,
};

/* Flags (voliot_io_rec.flags). Same values as VXT_F_*. */
#define VOLIOT_F_SYNC		0x0001
#define VOLIOT_F_FUA		0x0002
#define VOLIOT_F_META		0x0004
#define VOLIOT_F_PREFLUSH	0x0008
#define VOLIOT_F_RECOVERY	0x0010	/* recovery / resync I/O where the kernel marks it */
#define VOLIOT_F_RAHEAD		0x0020	/* read-ahead */
#define VOLIOT_F_BIO		0x0040	/* seen at bio level (stacked device), not request */

/* Common two-byte header of every record. */
struct voliot_hdr {
	__u8	len;		/* total record length in bytes, >= 2 */
	__u8	type;		/* enum voliot_rec_type */
};

/* I/O start, done, requeue and error records, and the phase records. */
struct voliot_io_rec {
	__u8	len;		/* sizeof(struct voliot_io_rec) */
	__u8	type;		/* IO_START, IO_DONE, ERROR or REQUEUE */
	__u8	op;		/* enum voliot_op */
	__u8	reserved0;	/* zero */
	__u16	flags;		/* VOLIOT_F_* */
	__u16	cpu;		/* CPU the event was seen on */
	__u32	dev;		/* VOLIOT_MKDEV(major, minor) */
	__u32	pid;		/* task that caused the event, 0 if none */
	__u32	bytes;		/* size of the I/O in bytes */
	__s32	error;		/* negative errno, 0 = success; start: 0 */
	__u64	time_ns;	/* CLOCK_MONOTONIC (ktime_get_ns) */
	__u64	sector;		/* first 512-byte sector */
	__u64	latency_ns;	/* done/error: since the request's start; else 0 */
	char	comm[16];	/* task name, NUL padded */
};

/* A remap (VOLIOT_REC_REMAP): the I/O record of the bio where it goes now,
 * then where it came from. Modules before it sent the I/O record alone (len
 * 64); a reader that knows only the I/O record skips the rest by length.
 */
struct voliot_remap_rec {
	struct voliot_io_rec io;	/* len sizeof(struct voliot_remap_rec) */
	__u32	old_dev;	/* VOLIOT_MKDEV: the device the bio was sent to */
	__u32	reserved;	/* zero */
	__u64	old_sector;	/* its first sector there */
};

/* Events dropped because the channel's ring was full. Precedes the next event. */
struct voliot_lost_rec {
	__u8	len;		/* sizeof(struct voliot_lost_rec) */
	__u8	type;		/* VOLIOT_REC_LOST */
	__u8	reserved[6];	/* zero */
	__u64	count;		/* events lost since the previous lost record */
	__u64	time_ns;	/* CLOCK_MONOTONIC when the loss was reported */
};

/* Object kinds (voliot_object_rec.kind). Same values as enum vxt_obj_kind. */
enum voliot_obj_kind {
	VOLIOT_OBJ_OTHER	= 0,
	VOLIOT_OBJ_DISK		= 1,
	VOLIOT_OBJ_PARTITION	= 2,
	VOLIOT_OBJ_DM		= 3,
	VOLIOT_OBJ_MD		= 4,
	VOLIOT_OBJ_LOOP		= 5,
	VOLIOT_OBJ_SIM		= 6,
};

/* Sent before a channel's first event of each object. */
struct voliot_object_rec {
	__u8	len;		/* sizeof(struct voliot_object_rec) */
	__u8	type;		/* VOLIOT_REC_OBJECT */
	__u8	kind;		/* enum voliot_obj_kind */
	__u8	reserved0;	/* zero */
	__u32	dev;		/* VOLIOT_MKDEV(major, minor) */
	__u64	nr_sectors;	/* capacity in 512-byte sectors, 0 if unknown */
	char	name[32];	/* disk name as in /sys/block, NUL padded */
};

/* Pairs the monotonic clock of time_ns with wall-clock time. */
struct voliot_clock_rec {
	__u8	len;		/* sizeof(struct voliot_clock_rec) */
	__u8	type;		/* VOLIOT_REC_CLOCK */
	__u8	reserved[6];	/* zero */
	__u64	mono_ns;	/* CLOCK_MONOTONIC */
	__u64	real_ns;	/* CLOCK_REALTIME at the same instant */
};

VOLIOT_STATIC_ASSERT(sizeof(struct voliot_hdr) == 2, "voliot_hdr size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_io_rec) == 64, "voliot_io_rec size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_remap_rec) == 80, "voliot_remap_rec size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_lost_rec) == 24, "voliot_lost_rec size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_object_rec) == 48, "voliot_object_rec size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_clock_rec) == 24, "voliot_clock_rec size");

/* ---- object selection ---- */

enum voliot_want_type {
	VOLIOT_WANT_ALL		= 1,	/* every block device */
	VOLIOT_WANT_DEV		= 2,	/* one device by dev */
	VOLIOT_WANT_MAJOR	= 3,	/* every device of a major number */
	VOLIOT_WANT_DISK	= 4,	/* a whole disk and all its partitions */
};

/* One object set. The first member of every variant is its type. */
union voliot_want_set {
	__u32	type;		/* enum voliot_want_type */
	struct {
		__u32	type;	/* VOLIOT_WANT_ALL */
		__u32	reserved;
	} all;
	struct {
		__u32	type;	/* VOLIOT_WANT_DEV */
		__u32	dev;	/* VOLIOT_MKDEV(major, minor) */
	} dev;
	struct {
		__u32	type;	/* VOLIOT_WANT_MAJOR */
		__u32	major;
	} major;
	struct {
		__u32	type;	/* VOLIOT_WANT_DISK */
		__u32	dev;	/* the whole disk's dev; its partitions follow it */
	} disk;
	__u8	raw[16];	/* room to grow; unused bytes zero */
};

#define VOLIOT_WANT_MAX		256	/* most sets one ioctl may pass */

struct voliot_want_list {
	__u32	count;		/* entries in sets, 1..VOLIOT_WANT_MAX */
	__u32	reserved;	/* zero */
	__u64	sets;		/* user pointer to union voliot_want_set[count] */
};

VOLIOT_STATIC_ASSERT(sizeof(union voliot_want_set) == 16, "voliot_want_set size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_want_list) == 16, "voliot_want_list size");

/* ---- channel information ---- */

enum voliot_chan_mode {
	VOLIOT_MODE_NONE	= 0,	/* opened, not initialised */
	VOLIOT_MODE_IO		= 1,
	VOLIOT_MODE_ERROR	= 2,
};

struct voliot_info {
	__u32	abi_version;	/* VOLIOT_ABI_VERSION */
	__u32	mode;		/* enum voliot_chan_mode */
	__u64	bufsize;	/* ring size in bytes */
	__u64	events;		/* I/O records queued since init */
	__u64	lost;		/* events dropped since init */
	__u32	nsets;		/* object sets selected */
	__u32	phases;		/* enum voliot_phases (modules before it: 0) */
	__u64	reserved[4];	/* zero */
};

VOLIOT_STATIC_ASSERT(sizeof(struct voliot_info) == 72, "voliot_info size");

/* ---- speculation in the kernel (VOLIOT_IO_SPECULATE) ---- */

#define VOLIOT_SPEC_VERSION	1

/* What events share a speculation buffer (voliot_spec.key). */
enum voliot_spec_key {
	VOLIOT_SPEC_KEY_OBJECT		= 1,	/* the event's dev */
	VOLIOT_SPEC_KEY_PID		= 2,	/* the event's pid (0: interrupt context;
						 * see VOLIOT_SPEC_F_ISSUE_PID) */
	VOLIOT_SPEC_KEY_OBJECT_PID	= 3,	/* both */
	VOLIOT_SPEC_KEY_REQUEST		= 4,	/* one I/O: its start, requeues, done */
};

/* What commits a buffer (voliot_spec.triggers, any of them). */
#define VOLIOT_SPEC_ON_ERROR	0x1	/* a done record with error != 0 */
#define VOLIOT_SPEC_ON_LATENCY	0x2	/* a done record with latency_ns >= latency_ns */
#define VOLIOT_SPEC_ON_ERRCHAN	0x4	/* any error an error channel gets, any object */
#define VOLIOT_SPEC_ON_ALL	0x7

/* What a full buffer does with one more event (voliot_spec.overflow). */
enum voliot_spec_overflow {
	VOLIOT_SPEC_DROP_NEWEST	= 0,	/* the new event is dropped */
	VOLIOT_SPEC_DROP_OLDEST	= 1,	/* the buffer's oldest event is dropped */
};

/* voliot_spec.flags */
#define VOLIOT_SPEC_F_ISSUE_PID	0x1	/* keys pid, object+pid: a done record with
					 * pid 0 has the pid of its I/O's start */
#define VOLIOT_SPEC_F_HORIZON	0x2	/* a horizon record after each read that
					 * empties the ring */
#define VOLIOT_SPEC_F_PACKED	0x4	/* committed records as VOLIOT_REC_IO_PACKED
					 * where that is shorter */
#define VOLIOT_SPEC_F_COMPACT	0x8	/* committed records as VOLIOT_REC_IO_COMPACT
					 * where that is shorter (before
					 * VOLIOT_SPEC_F_PACKED if both) */
#define VOLIOT_SPEC_F_PAIR	0x10	/* with VOLIOT_SPEC_F_COMPACT: a completion
					 * queued right after its start, both
					 * unread, joins it as VOLIOT_REC_IO_PAIR */
#define VOLIOT_SPEC_F_ALL	0x1f

#define VOLIOT_SPEC_WINDOW_MAX_NS	(3600ULL * 1000000000ULL)	/* one hour */
#define VOLIOT_SPEC_EVENTS_MAX		(1U << 20)
#define VOLIOT_SPEC_NSPEC_MAX		(1U << 20)

/* The speculation program of an I/O channel. Windows: time and/or event
 * count; 0 = that bound unused; with both, the tighter one applies. */
struct voliot_spec {
	__u32	version;	/* VOLIOT_SPEC_VERSION */
	__u32	size;		/* sizeof(struct voliot_spec) */
	__u32	key;		/* enum voliot_spec_key */
	__u32	triggers;	/* VOLIOT_SPEC_ON_* */
	__u64	latency_ns;	/* VOLIOT_SPEC_ON_LATENCY threshold, > 0 */
	__u64	before_ns;	/* events kept before a trigger: this recent */
	__u64	after_ns;	/* events passed on live after a trigger: this long */
	__u32	before_events;	/* ... and at most this many before */
	__u32	after_events;	/* ... and at most this many after */
	__u32	nspec;		/* speculation buffers (keys at once) */
	__u32	specsize;	/* bytes per buffer, >= 64 (one I/O record) */
	__u32	overflow;	/* enum voliot_spec_overflow */
	__u32	flags;		/* VOLIOT_SPEC_F_* (modules before it: zero) */
	__u64	reserved[4];	/* zero */
};

/* Counters of a channel's speculation, since VOLIOT_IO_SPECULATE. Sent as a
 * record on reads (see formats/channel.md) and by VOLIOT_GET_SPEC_STATS.
 * seen = kept + discards + drops + failed + pending, always.
 */
struct voliot_spec_stats {
	__u8	len;		/* sizeof(struct voliot_spec_stats) */
	__u8	type;		/* VOLIOT_REC_SPEC_STATS */
	__u8	reserved[6];	/* zero */
	__u64	time_ns;	/* CLOCK_MONOTONIC of the snapshot */
	__u64	seen;		/* I/O events of the selected objects */
	__u64	kept;		/* events committed to the ring */
	__u64	bytes_seen;	/* bytes of the I/O records seen */
	__u64	bytes_kept;	/* bytes of the I/O records committed */
	__u64	commits;	/* triggers that committed a buffer */
	__u64	discards;	/* events discarded: out of the window, or no trigger */
	__u64	drops;		/* events dropped by the overflow policy (full buffer) */
	__u64	failed;		/* events not speculated: no buffer free */
	__u64	busy;		/* commits that found the ring too full (counted lost) */
	__u64	pending;	/* events in buffers now */
};

/* With VOLIOT_SPEC_F_HORIZON, after the records of a read that empties the
 * ring: no record the channel queues later has a time_ns below horizon_ns
 * (the oldest event still in a speculation buffer that a trigger can
 * commit, or time_ns when there is none), but for an event stamped on one
 * CPU while another held the channel's lock. Never decreases.
 */
struct voliot_spec_horizon {
	__u8	len;		/* sizeof(struct voliot_spec_horizon) */
	__u8	type;		/* VOLIOT_REC_SPEC_HORIZON */
	__u8	reserved[6];	/* zero */
	__u64	time_ns;	/* CLOCK_MONOTONIC of the snapshot */
	__u64	horizon_ns;	/* CLOCK_MONOTONIC, <= time_ns */
};

/* VOLIOT_REC_IO_PACKED, with VOLIOT_SPEC_F_PACKED: byte 0 the length, byte
 * 1 the type, byte 2 the type of the I/O record it stands for (IO_START,
 * IO_DONE or REQUEUE), bytes 3-4 (little-endian) which fields follow, then
 * those fields in the order of the bits, little-endian, unaligned. A field
 * left out has the value of the previous I/O record of the same type on the
 * channel (packed or not), but for time_ns (the same), sector (the
 * previous sector plus the previous bytes / 512) and latency_ns (0).
 * Spec: formats/channel.md.
 */
#define VOLIOT_PK_OP		0x0001	/* __u8 op */
#define VOLIOT_PK_FLAGS		0x0002	/* __u16 flags */
#define VOLIOT_PK_CPU		0x0004	/* __u16 cpu */
#define VOLIOT_PK_DEV		0x0008	/* __u32 dev */
#define VOLIOT_PK_PID		0x0010	/* __u32 pid */
#define VOLIOT_PK_BYTES		0x0020	/* __u32 bytes */
#define VOLIOT_PK_ERROR		0x0040	/* __s32 error */
#define VOLIOT_PK_TIME		0x0080	/* __u64 time_ns */
#define VOLIOT_PK_TIME_DELTA	0x0100	/* __u32: time_ns less the previous one */
#define VOLIOT_PK_SECTOR	0x0200	/* __u64 sector */
#define VOLIOT_PK_SECTOR32	0x0400	/* __u32 sector (below 2^32) */
#define VOLIOT_PK_LATENCY	0x0800	/* __u64 latency_ns */
#define VOLIOT_PK_LATENCY32	0x1000	/* __u32 latency_ns (below 2^32) */
#define VOLIOT_PK_COMM		0x2000	/* __u8 n, then n (<= 16) bytes of comm */
#define VOLIOT_PK_ALL		0x3fff
#define VOLIOT_PK_HDR		5	/* bytes before the fields */
#define VOLIOT_PK_SLOTS		3	/* I/O record types a packed record stands for */

/* Which previous record a packed record of I/O type @type is told against
 * (one per type, in both the writer and the reader): 0..VOLIOT_PK_SLOTS-1,
 * or -1 for a type that is never packed. */
static inline int voliot_pk_slot(__u8 type)
{
	switch (type) {
	case VOLIOT_REC_IO_START:
		return 0;
	case VOLIOT_REC_IO_DONE:
		return 1;
	case VOLIOT_REC_REQUEUE:
		return 2;
	}
	return -1;
}

/* VOLIOT_REC_IO_COMPACT, with VOLIOT_SPEC_F_COMPACT: byte 0 the length,
 * byte 1 the type, byte 2 the head (VOLIOT_CP_*), then with VOLIOT_CP_MORE
 * a varint of VOLIOT_CPM_* bits, then the fields present in the order of
 * the head's bits and then more's, each an unsigned LEB128 varint (signed
 * ones zigzag-coded) but for comm.
 * The record is told against a base: the previous I/O record of the same
 * kind (ref 0), or the ref-th latest start record (ref 1..7, a completion
 * against its own start). Spec: formats/channel.md.
 */
#define VOLIOT_CP_KIND		0x03	/* voliot_pk_slot() of the record's type */
#define VOLIOT_CP_REF_SHIFT	2
#define VOLIOT_CP_REF		0x1c	/* which base, above */
#define VOLIOT_CP_TIME		0x20	/* zigzag: time_ns less the base's */
#define VOLIOT_CP_SECTOR_ABS	0x40	/* sector */
#define VOLIOT_CP_MORE		0x80	/* a varint of VOLIOT_CPM_* follows */
#define VOLIOT_CPM_SECTOR	0x001	/* zigzag: sector less the expected one */
#define VOLIOT_CPM_LATENCY	0x002	/* zigzag: latency_ns less the expected */
#define VOLIOT_CPM_CPU		0x004	/* cpu */
#define VOLIOT_CPM_PID		0x008	/* pid */
#define VOLIOT_CPM_ERROR	0x010	/* zigzag: error */
#define VOLIOT_CPM_COMM		0x020	/* a byte n (<= 16), then n bytes of comm */
#define VOLIOT_CPM_BYTES	0x040	/* bytes */
#define VOLIOT_CPM_DEV		0x080	/* dev */
#define VOLIOT_CPM_OP		0x100	/* op */
#define VOLIOT_CPM_FLAGS	0x200	/* flags */
#define VOLIOT_CPM_ALL		0x3ff
#define VOLIOT_CP_STARTS	7	/* start records a ref can name */
/* VOLIOT_REC_IO_PAIR: byte 0 the length, byte 1 the type, then two compact
 * records from their head on (byte 2 of each), the first ending where its
 * fields end: the records they stand for, in that order. */
#define VOLIOT_CP_MAX		96	/* no compact record is longer */

VOLIOT_STATIC_ASSERT(sizeof(struct voliot_spec) == 96, "voliot_spec size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_spec_stats) == 96, "voliot_spec_stats size");
VOLIOT_STATIC_ASSERT(sizeof(struct voliot_spec_horizon) == 24, "voliot_spec_horizon size");

/* ---- ioctls: 0 on success, -1 with errno ---- */

#define VOLIOT_IOC_MAGIC	0xB7

/* arg: the ring size in bytes by value; 0 = default, (size_t)-1 = maximum. */
#define VOLIOT_IO_TRACE_INIT	_IO(VOLIOT_IOC_MAGIC, 1)
#define VOLIOT_IO_TRACE		_IOW(VOLIOT_IOC_MAGIC, 2, struct voliot_want_list)
#define VOLIOT_IO_UNTRACE	_IOW(VOLIOT_IOC_MAGIC, 3, struct voliot_want_list)
#define VOLIOT_ERROR_TRACE_INIT	_IO(VOLIOT_IOC_MAGIC, 4)
#define VOLIOT_DISCARD		_IO(VOLIOT_IOC_MAGIC, 5)
#define VOLIOT_GET_INFO		_IOR(VOLIOT_IOC_MAGIC, 6, struct voliot_info)
#define VOLIOT_IO_SPECULATE	_IOW(VOLIOT_IOC_MAGIC, 7, struct voliot_spec)
#define VOLIOT_GET_SPEC_STATS	_IOR(VOLIOT_IOC_MAGIC, 8, struct voliot_spec_stats)
/* arg: enum voliot_phases by value. */
#define VOLIOT_IO_PHASES	_IO(VOLIOT_IOC_MAGIC, 16)

#endif /* VXTRACE_VOLTRACE_H */
