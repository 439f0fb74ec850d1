/* tui_spec.c - the speculation view: which events a profile's speculation commits
 *
 * A pass over the whole file through the speculation engine; the committed
 * events are kept by ordinal (at most VR_SPEC_MAX) with their group and the
 * event that committed the group.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui_model.h"

int vr_model_spec_start(struct vr_model *m)
{
	snprintf(m->note, sizeof(m->note), "speculation is not available in this build");
	m->note_error = true;
	return -ENOTSUP;
}

void vr_spec_step(struct vr_model *m, struct vr_job *j);

void vr_spec_step(struct vr_model *m, struct vr_job *j)
{
	(void)m;
	j->active = false;
}
