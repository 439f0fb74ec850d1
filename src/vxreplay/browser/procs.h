/* procs.h - completed I/O per process (pid and command), no curses
 *
 * The per-process view's rows: for each (pid, comm) seen on a completion,
 * its I/Os, bytes, errors and latency distribution (latdist.h). A bounded
 * table: past VR_PROCS_MAX rows, completions of new processes go to one
 * "(others)" row, counted.
 */
#ifndef VXREPLAY_BROWSER_PROCS_H
#define VXREPLAY_BROWSER_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/latdist.h"
#include "vxtrace/vxtrace.h"

#define VR_PROCS_MAX 65536

struct vr_proc {
	uint32_t pid, comm;		/* comm: id in the string table */
	bool others;			/* the row past VR_PROCS_MAX */
	uint64_t ios, bytes, errors;
	struct vxt_latdist lat;		/* as the stats': a failure of unknown latency is none */
};

struct vr_procs {
	struct vr_proc *rows;
	size_t n, cap;
	uint32_t *slot;			/* open addressing: row index + 1, 0 = empty */
	size_t nslots;
	size_t others;			/* row index + 1 of "(others)", 0 = none yet */
};

/* Count one event (only completions count). @return 0 or -ENOMEM. */
int vr_procs_add(struct vr_procs *p, const struct vxt_event *ev);
/* Busiest first (I/Os, then pid). */
void vr_procs_sort(struct vr_procs *p);
/* Forget every row, keep the memory. */
void vr_procs_clear(struct vr_procs *p);
void vr_procs_free(struct vr_procs *p);

#endif
