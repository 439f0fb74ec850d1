/* pairjob.h - the browser's pairing job: every I/O's phases (pairjob.c) */
#ifndef VXREPLAY_BROWSER_PAIRJOB_H
#define VXREPLAY_BROWSER_PAIRJOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "browser/ioph.h"

struct vr_model;
struct vr_job;

/* True when some chunk holds events beyond issues, completions and lost
 * records: queue-side phases were captured. */
bool vr_model_queue_side(const struct vr_model *m);
/* Start the pass if the trace has queue-side phases and none ran yet. */
void vr_pair_want(struct vr_model *m);
void vr_pair_step(struct vr_model *m, struct vr_job *j);
/* Chunks from @first on were appended: pair them too. */
void vr_pair_grow(struct vr_model *m, size_t first);
/* Forget the pairing (the file changed). */
void vr_pair_reset(struct vr_model *m);
/* The phases of completion @ev at @ord into @out. @return 1, 0 when @ev is
 * no completion or its row was not kept, -1 while the pass has not reached
 * it. On a capture without queue side, only the issue (from the latency). */
int vr_pair_get(const struct vr_model *m, uint64_t ord, const struct vxt_event *ev,
		struct vr_ioph_row *out);

#endif
