/* par.h - a few jobs run side by side on helper threads and the caller
 * (internal)
 *
 * For work that is a handful of independent pieces (the files of a merge
 * opened, their first chunks decompressed): each job runs once, on whichever
 * worker claims it next; the call returns when all have run.
 */
#ifndef VXT_PAR_H
#define VXT_PAR_H

#include <stddef.h>

#define VXT_PAR_MAX 8	/* workers at most, the caller included */

/* Workers worth running here: one per online CPU, at most @max (and
 * VXT_PAR_MAX); 1 on one CPU. */
unsigned vxt_par_workers(unsigned max);

/* Run @fn(@ctx, job, worker) for each job in [0, @njobs) on at most
 * @workers workers: the caller is worker 0, helper threads 1 ... (fewer
 * when there are fewer jobs, or when a thread cannot start: the others do
 * its share). A worker number is never used by two jobs at once. */
void vxt_par_run(size_t njobs, unsigned workers,
		 void (*fn)(void *ctx, size_t job, unsigned worker), void *ctx);

#endif
