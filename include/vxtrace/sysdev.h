/* sysdev.h - block devices of the running system, from sysfs
 *
 * Capture sources select objects by name ("sda", "dm-0", "/dev/loop3") or by
 * number ("8:16"), and name the devices they see. Both go through sysfs
 * (/sys/class/block, /sys/dev/block). Device numbers use the kernel's
 * encoding, major << 20 | minor (VOLIOT_MKDEV), as trace events carry them.
 */
#ifndef VXTRACE_SYSDEV_H
#define VXTRACE_SYSDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define VXT_SYSDEV_MKDEV(ma, mi)	((uint32_t)(ma) << 20 | (uint32_t)(mi))
#define VXT_SYSDEV_MAJOR(dev)		((uint32_t)(dev) >> 20)
#define VXT_SYSDEV_MINOR(dev)		((uint32_t)(dev) & 0xfffff)

/*
 * Resolve a comma-separated object list: kernel names ("sda", "dm-0",
 * "loop3"), device paths ("/dev/sda", "/dev/mapper/vg-lv") and numbers
 * ("8:16" or "8,16"). Duplicates are kept once.
 * @return the number of devices stored in @devs (at most @max), or a negative
 * errno with a one-line message in @err (VXT_ERRBUF_SIZE bytes) naming the
 * entry that failed (-ENOENT: no such block device; -E2BIG: more than @max).
 */
int vxt_sysdev_resolve(const char *spec, uint32_t *devs, size_t max, char *err);

/*
 * Describe device @dev: its kernel name (DEVNAME of its uevent), its kind
 * (enum vxt_obj_kind) and its size in bytes (0 if unknown). Any of @name,
 * @kind, @size may be NULL.
 * @return 0, or -ENOENT when the system has no such block device.
 */
int vxt_sysdev_describe(uint32_t dev, char name[32], unsigned *kind, uint64_t *size);

/*
 * For a partition: the whole disk's device and the partition's first sector.
 * @return 1 for a partition, 0 for a whole device (*disk = dev, *start = 0),
 * or -ENOENT.
 */
int vxt_sysdev_partition(uint32_t dev, uint32_t *disk, uint64_t *start);

/*
 * Does @dev (a whole device) go through the request layer (blk-mq)? Such a
 * device shows block_rq_* events; a bio-based one (most device-mapper
 * targets, md, zram) only block_bio_*. @return true for blk-mq.
 */
bool vxt_sysdev_is_mq(uint32_t dev);

/*
 * The reads and writes of @dev (a whole device or a partition) the block
 * layer counts in flight now (its inflight file), into @n. Only a queue that
 * keeps I/O statistics (queue/iostats) counts every read and write; other
 * requests (flushes, passthrough commands) are never counted.
 * @return 0, -EOPNOTSUPP when the queue keeps no statistics, or -ENOENT.
 */
int vxt_sysdev_inflight(uint32_t dev, uint64_t *n);

/*
 * The kernel names of the system's block devices, sorted and joined by ", "
 * into @buf (cut with "..." when they do not fit), for messages that say
 * which names an object list may hold. Can't fail: "none" when there are none.
 */
void vxt_sysdev_names(char *buf, size_t size);

#endif
