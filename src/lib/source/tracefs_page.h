/* tracefs_page.h - the events of one page of a tracefs ring (internal to
 * libvxtrace)
 *
 * A page read from per_cpu/cpuN/trace_pipe_raw is a header (a 64-bit time
 * stamp, then the commit count as a long) and events, each a 32-bit word
 * (5 bits of type or length, 27 bits of time delta) and its data: the
 * layout the kernel's events/header_page and ring_buffer.c define. Walking
 * it here costs a fraction of libtraceevent's kbuffer calls per event; the
 * result is the same (tests/unit/test_tracefs_page.c).
 */
#ifndef VXT_TRACEFS_PAGE_H
#define VXT_TRACEFS_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tfs_page {
	const unsigned char *data;	/* the first event */
	uint32_t size, pos;		/* bytes of events; the next one's offset */
	uint64_t ts;			/* the time of the last event read */
	bool big;			/* big-endian headers (the host's order) */
};

/* Start on @page (@page_size bytes; the commit count is @long_size bytes,
 * 4 or 8). @return 0, or -1 when the page's size cannot be right. */
int vxt_tfs_page_load(struct tfs_page *p, const void *page, size_t page_size,
		      int long_size, bool big);

/* The next event's data, its length in *@len (rounded up to 4 bytes, as
 * libtraceevent's kbuffer_event_size()) and its time in *@ts; NULL at the
 * end of the page. Padding, discarded events and time extensions are
 * stepped over (their time deltas counted). */
const void *vxt_tfs_page_next(struct tfs_page *p, uint32_t *len, uint64_t *ts);

#endif
