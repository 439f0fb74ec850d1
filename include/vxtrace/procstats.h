/* procstats.h - completed I/O per process and object, as biotop counts it
 *
 * One row per (pid, command, object) seen on a completion: I/Os, reads,
 * writes, bytes, errors and the latency distribution (latdist.h). What
 * `vxreplay --report processes`, vxtop's P screen and `vxtop -b --processes`
 * print. No curses; a row stays where it is until vxt_procstats_sort().
 *
 *   struct vxt_procstats p = { 0 };
 *   vxt_procstats_add(&p, ev);           // each event; completions count
 *   vxt_procstats_sort(&p);              // busiest first
 *   ... p.rows[i] ...
 *   vxt_procstats_free(&p);
 */
#ifndef VXTRACE_PROCSTATS_H
#define VXTRACE_PROCSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "latdist.h"

struct vxt_proc_row {
	uint32_t pid, comm, object;	/* comm: id in the string table */
	uint64_t ios, reads, writes, errors;	/* completions, failed ones included */
	uint64_t bytes_read, bytes_written;	/* of successful completions */
	struct vxt_latdist lat;		/* the stats' rule: a failure of unknown
					 * latency is no sample */
};

struct vxt_procstats {
	struct vxt_proc_row *rows;
	size_t n, cap;
	uint32_t *slot;			/* open addressing: row index + 1, 0 = empty */
	size_t nslots;
};

/* Count @ev (only completions count). @return 0 or -ENOMEM. */
int vxt_procstats_add(struct vxt_procstats *p, const struct vxt_event *ev);
/* Busiest first: I/Os, then pid, command and object. Can't fail. */
void vxt_procstats_sort(struct vxt_procstats *p);
/* Forget every row, keep the table's memory. */
void vxt_procstats_clear(struct vxt_procstats *p);
/* Free everything; a zeroed or freed table is fine. */
void vxt_procstats_free(struct vxt_procstats *p);

#endif
