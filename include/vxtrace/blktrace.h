/* blktrace.h - blktrace's binary trace records (public: the importer and the exporter share it)
 *
 * The on-disk format of blktrace(8) per-CPU files and of `blkparse -d`
 * dumps: a stream of 48-byte struct blk_io_trace headers, each followed by
 * pdu_len bytes of payload, in the byte order of the machine that traced
 * (told apart by the magic). Layout and constants follow the kernel's
 * include/uapi/linux/blktrace_api.h; see formats/blktrace-import.md.
 */
#ifndef VXT_BLKTRACE_H
#define VXT_BLKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VXT_BLK_MAGIC		0x65617400u	/* "eat" in the top 24 bits */
#define VXT_BLK_VERSION		0x07
#define VXT_BLK_HDR_SIZE	48
#define VXT_BLK_PDU_MAX		4096	/* longer payloads are taken as corruption */

/* Low 16 bits of action: what happened. */
enum vxt_blk_act {
	VXT_BLK_TA_QUEUE = 1, VXT_BLK_TA_BACKMERGE, VXT_BLK_TA_FRONTMERGE,
	VXT_BLK_TA_GETRQ, VXT_BLK_TA_SLEEPRQ, VXT_BLK_TA_REQUEUE, VXT_BLK_TA_ISSUE,
	VXT_BLK_TA_COMPLETE, VXT_BLK_TA_PLUG, VXT_BLK_TA_UNPLUG_IO,
	VXT_BLK_TA_UNPLUG_TIMER, VXT_BLK_TA_INSERT, VXT_BLK_TA_SPLIT,
	VXT_BLK_TA_BOUNCE, VXT_BLK_TA_REMAP, VXT_BLK_TA_ABORT, VXT_BLK_TA_DRV_DATA,
	VXT_BLK_TA_NR
};
#define VXT_BLK_TA_CGROUP	(1u << 8)	/* payload starts with a 64-bit cgroup id */

/* Notify records (category NOTIFY): low bits of action. */
enum vxt_blk_notify {
	VXT_BLK_TN_PROCESS = 0,		/* payload: the command name of pid */
	VXT_BLK_TN_TIMESTAMP = 1,	/* payload: u32 seconds, u32 nanoseconds (wall) */
	VXT_BLK_TN_MESSAGE = 2,		/* payload: text */
};

/* High 16 bits of action: categories. */
#define VXT_BLK_TC_READ		(1u << 0)
#define VXT_BLK_TC_WRITE	(1u << 1)
#define VXT_BLK_TC_FLUSH	(1u << 2)
#define VXT_BLK_TC_SYNC		(1u << 3)
#define VXT_BLK_TC_QUEUE	(1u << 4)
#define VXT_BLK_TC_REQUEUE	(1u << 5)
#define VXT_BLK_TC_ISSUE	(1u << 6)
#define VXT_BLK_TC_COMPLETE	(1u << 7)
#define VXT_BLK_TC_FS		(1u << 8)
#define VXT_BLK_TC_PC		(1u << 9)
#define VXT_BLK_TC_NOTIFY	(1u << 10)
#define VXT_BLK_TC_AHEAD	(1u << 11)
#define VXT_BLK_TC_META		(1u << 12)
#define VXT_BLK_TC_DISCARD	(1u << 13)
#define VXT_BLK_TC_DRV_DATA	(1u << 14)
#define VXT_BLK_TC_FUA		(1u << 15)
#define VXT_BLK_TC_SHIFT	16

/* One decoded header, in host byte order. */
struct vxt_blk_rec {
	uint32_t magic;		/* magic | version */
	uint32_t sequence;
	uint64_t time;		/* ns, the tracing machine's CLOCK_MONOTONIC */
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;	/* category << 16 | action */
	uint32_t pid;
	uint32_t device;	/* major << 20 | minor */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
};

_Static_assert(sizeof(struct vxt_blk_rec) == VXT_BLK_HDR_SIZE,
	       "struct vxt_blk_rec has the on-disk layout");

enum vxt_blk_order { VXT_BLK_ORDER_UNKNOWN = 0, VXT_BLK_ORDER_LE, VXT_BLK_ORDER_BE };

/*
 * Decode the 48-byte header at @p. *@order is the stream's byte order:
 * VXT_BLK_ORDER_UNKNOWN lets the magic decide and stores the result.
 * @return 0; -EBADMSG for a wrong magic (or a byte order that changed
 * mid-stream), -EPROTONOSUPPORT for a version other than 7, -E2BIG for a
 * payload longer than VXT_BLK_PDU_MAX. @r is filled in every case but the
 * first.
 */
int vxt_blk_decode(const void *p, enum vxt_blk_order *order, struct vxt_blk_rec *r);

/* Encode @r at @p (48 bytes) in byte order @order. Can't fail. */
void vxt_blk_encode(void *p, enum vxt_blk_order order, const struct vxt_blk_rec *r);

/* A remap's payload (struct blk_io_trace_remap), big-endian whatever the
 * machine: u32 device_from, u32 device_to, u64 sector_from. */
#define VXT_BLK_REMAP_PDU 16

/* A 32-bit payload word in the stream's byte order (TIMESTAMP notes). */
uint32_t vxt_blk_u32(const void *p, enum vxt_blk_order order);

/* blkparse's one-letter (or two, "UT") name of an action; "?" if unknown. */
const char *vxt_blk_act_name(uint32_t action);

/* The event model's op and VXT_F_* flags for a record's categories, the way
 * blkparse spells RWBS. */
void vxt_blk_op_flags(const struct vxt_blk_rec *r, uint8_t *op, uint16_t *flags);

#endif
