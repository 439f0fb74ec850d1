/* rwbs.h - the kernel's rwbs string of a block tracepoint -> op and flags
 * (internal to libvxtrace)
 *
 * The kernel writes rwbs with blk_fill_rwbs(): 'F' for REQ_PREFLUSH, then one
 * op ('W' write, 'D' discard, "DE" secure erase, 'F' flush, 'R' read, 'N'
 * anything else: write-zeroes, driver-private (passthrough) and zone
 * commands), then 'F' FUA, 'A' read-ahead, 'S' sync, 'M' metadata, 'U' atomic.
 * 'N' carries no op of its own: a request with a sector range is taken as
 * write-zeroes (the only ranged data-less op of a non-zoned device), one
 * without (the kernel reports passthrough requests as sector 0 + 0) as
 * passthrough.
 */
#ifndef VXT_RWBS_H
#define VXT_RWBS_H

#include <stdint.h>

/* Parse @rwbs (NUL-terminated) of an event covering @nr_sector sectors at
 * @sector into *op (enum vxt_op) and *flags (VXT_F_*). Unknown letters are
 * ignored; an unknown op is VXT_OP_OTHER. Can't fail. */
void vxt_rwbs_parse(const char *rwbs, uint64_t sector, uint32_t nr_sector, uint8_t *op,
		    uint16_t *flags);

#endif
