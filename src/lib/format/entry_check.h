/* entry_check.h - a chunk's index entry against its decoded events (internal) */
#ifndef VXT_ENTRY_CHECK_H
#define VXT_ENTRY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "vxtrace/vxt.h"

/* Do @ci's event count, time range, errors, lost events and per-object
 * aggregates agree with its @n decoded events @ev (every field decoded) in a
 * file of @nobj objects? @return 0; -1 with what differs in @msg; -2 out of
 * memory. */
int vxt_entry_check(const struct vxt_chunk_info *ci, const struct vxt_event *ev, size_t n,
		    uint32_t nobj, char *msg, size_t len);

#endif
