/* event.h - the one in-memory I/O event every source produces
 *
 * A source (kernel module, tracefs, simulator, blktrace import) turns what it
 * sees into struct vxt_event; the writer, the reader, filters, speculation and
 * the analysis code know nothing else. Objects and command names are ids into
 * a struct vxt_objtab and a struct vxt_strtab that travel with the events.
 */
#ifndef VXTRACE_EVENT_H
#define VXTRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

/* What happened to the I/O. */
enum vxt_phase {
	VXT_PH_START = 0,	/* issued to the device (blktrace D) */
	VXT_PH_DONE = 1,	/* completed; error != 0 means it failed (C) */
	VXT_PH_REQUEUE = 2,	/* put back on the queue (R) */
	VXT_PH_LOST = 3,	/* the source dropped events: count in .sector */
	VXT_PH_MARK = 4,	/* a user or tool annotation */
	VXT_PH_QUEUE = 5,	/* bio queued (Q) */
	VXT_PH_MERGE = 6,	/* merged into a request (M, F) */
	VXT_PH_INSERT = 7,	/* inserted into the scheduler (I) */
	VXT_PH_PLUG = 8,	/* queue plugged (P) */
	VXT_PH_UNPLUG = 9,	/* queue unplugged (U, UT) */
	VXT_PH_REMAP = 10,	/* remapped from a stacked device (A) */
	VXT_PH_SPLIT = 11,	/* split (X) */
	VXT_PH_GETRQ = 12,	/* request allocated (G, S) */
	VXT_PH_COUNT
};

/* The operation. Values equal enum voliot_op. */
enum vxt_op {
	VXT_OP_READ = 0,
	VXT_OP_WRITE = 1,
	VXT_OP_FLUSH = 2,
	VXT_OP_DISCARD = 3,
	VXT_OP_WRITE_ZEROES = 4,
	VXT_OP_PASSTHRU = 5,	/* special I/O: ioctl-style, pass-through */
	VXT_OP_OTHER = 6,
	VXT_OP_COUNT
};

/* Flags. Values equal VOLIOT_F_*. */
#define VXT_F_SYNC	0x0001
#define VXT_F_FUA	0x0002
#define VXT_F_META	0x0004
#define VXT_F_PREFLUSH	0x0008
#define VXT_F_RECOVERY	0x0010
#define VXT_F_RAHEAD	0x0020
#define VXT_F_BIO	0x0040	/* bio level (stacked device), not request level */

/*
 * One event. 48 bytes, no padding holes.
 * time_ns is CLOCK_MONOTONIC of the capturing machine (the file header keeps
 * the realtime anchor). For VXT_PH_LOST, sector holds the number of events
 * lost; use vxt_event_lost_count(). A lost event may name the one I/O whose
 * completion it stands for (lost_io): an issue with no completion, closed
 * there; its object, op, bytes, pid and comm are then that I/O's, and its
 * count is 1, or 0 when an earlier lost event already counted that
 * completion (the tracefs source's: an overrun's count holds it).
 */
struct vxt_event {
	uint64_t time_ns;	/* monotonic, nanoseconds */
	uint64_t sector;	/* first 512-byte sector (LOST: count) */
	union {
		uint64_t latency_ns;	/* DONE: time since start, 0 if unknown */
		uint64_t remap_from;	/* REMAP: where the bio came from, 0 if
					 * unknown (vxt_event_remap_from()) */
		uint64_t lost_io;	/* LOST: 1 + the sector of the I/O it
					 * closes, 0 if none (vxt_event_lost_io()) */
	};
	uint32_t bytes;		/* size of the I/O */
	uint32_t object;	/* id in the object table */
	uint32_t pid;		/* 0 if unknown */
	uint32_t comm;		/* id in the string table, 0 = "" */
	uint16_t flags;		/* VXT_F_* */
	uint16_t cpu;
	int16_t error;		/* negative errno, 0 = ok */
	uint8_t phase;		/* enum vxt_phase */
	uint8_t op;		/* enum vxt_op */
};

_Static_assert(sizeof(struct vxt_event) == 48, "struct vxt_event is 48 bytes");

static inline uint64_t vxt_event_lost_count(const struct vxt_event *ev)
{
	return ev->phase == VXT_PH_LOST ? ev->sector : 0;
}

/* The lost_io of a lost event closing the I/O at @sector. */
static inline uint64_t vxt_lost_io_pack(uint64_t sector)
{
	return sector + 1;
}

/* @return true and the sector of the I/O (of the event's object and op)
 * whose completion lost event @ev stands for; false when it names none. */
static inline bool vxt_event_lost_io(const struct vxt_event *ev, uint64_t *sector)
{
	if (ev->phase != VXT_PH_LOST || !ev->lost_io)
		return false;
	*sector = ev->lost_io - 1;
	return true;
}

/* The rule for I/Os whose completion a lost event naming no I/O (a full
 * ring) may have taken: an issue from before such an event still without its
 * completion VXT_LOST_GRACE_NS after it is taken for one whose completion was
 * lost, and leaves the flight. vxtop and the metrics (/metrics) both keep it.
 * @mark: the newest such event's time, 0 for none. */
#define VXT_LOST_GRACE_NS (500 * 1000000ull)

/* Move *@mark to @ev if it is a lost event naming no I/O. */
static inline void vxt_lost_mark_note(uint64_t *mark, const struct vxt_event *ev)
{
	if (ev->phase == VXT_PH_LOST && !ev->lost_io && ev->sector && ev->time_ns > *mark)
		*mark = ev->time_ns;
}

/* @return the issue time before which I/Os still in flight at @now_ns age
 * out under @mark: the mark once VXT_LOST_GRACE_NS have passed, else 0. */
static inline uint64_t vxt_lost_mark_due(uint64_t mark, uint64_t now_ns)
{
	return mark && now_ns > mark && now_ns - mark >= VXT_LOST_GRACE_NS ? mark : 0;
}

/* A remap's source (REMAP events): object ids below 65535 and sectors below
 * 2^48 fit; anything else is unknown. */
#define VXT_REMAP_SECTOR_MAX ((1ull << 48) - 1)
#define VXT_REMAP_OBJECT_MAX 0xfffeu

static inline uint64_t vxt_remap_from_pack(uint32_t object, uint64_t sector)
{
	return object > VXT_REMAP_OBJECT_MAX || sector > VXT_REMAP_SECTOR_MAX ? 0 :
	       (uint64_t)(object + 1) << 48 | sector;
}

/* @return true and the source object and sector of a remap, false when the
 * event is no remap or its source is unknown. */
static inline bool vxt_event_remap_from(const struct vxt_event *ev, uint32_t *object,
					uint64_t *sector)
{
	if (ev->phase != VXT_PH_REMAP || !(ev->remap_from >> 48))
		return false;
	*object = (uint32_t)(ev->remap_from >> 48) - 1;
	*sector = ev->remap_from & VXT_REMAP_SECTOR_MAX;
	return true;
}

/* The latency of @ev: 0 for a remap or a lost event, whose field holds
 * something else. */
static inline uint64_t vxt_event_latency(const struct vxt_event *ev)
{
	return ev->phase == VXT_PH_REMAP || ev->phase == VXT_PH_LOST ? 0 : ev->latency_ns;
}

static inline bool vxt_event_is_error(const struct vxt_event *ev)
{
	return ev->error != 0;
}

/* "start", "done", ...; "?" for unknown values. Can't fail. */
const char *vxt_phase_name(unsigned phase);
/* "read", "write", "flush", "discard", "write-zeroes", "passthru", "other". */
const char *vxt_op_name(unsigned op);
/* Short op letter as blkparse's RWBS: R W F D Z P N. */
char vxt_op_letter(unsigned op);
/* Parse names above; @return the value or -1. */
int vxt_phase_parse(const char *s);
int vxt_op_parse(const char *s);
/* Flags as "sync|fua" into @buf (empty string for none); @return buf. */
char *vxt_flags_format(unsigned flags, char *buf, size_t size);
/* Parse one flag name; @return its bit or 0. */
unsigned vxt_flag_parse(const char *s);

#endif
