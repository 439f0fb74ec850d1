/* script.h - the browser's D scripts: speculation view and aggregations
 *
 * A D-style script (vxtrace/script.h, formats/script.md) picked as a
 * profile is NAME.d (or a path): the speculation view then shows the
 * events the script keeps (what reaches its principal buffer), computed
 * over the whole file through the browser's filter, as `vxreplay FILE
 * --script NAME --filter F` keeps them; the aggregation panel shows what
 * the script's aggregations print at END over the visible window and the
 * filter, recomputed when either changes. No curses here.
 */
#ifndef VXREPLAY_BROWSER_SCRIPT_H
#define VXREPLAY_BROWSER_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "browser/model.h"

#define VR_AGG_TEXT_MAX	(1u << 20)	/* aggregation text kept for the panel */

/* True when @name names a script: it ends in ".d". */
bool vr_script_is_name(const char *name);
/* Apply script @name (a name on the profile path or a path): compile it,
 * drop the profile and the filter, show its speculation view at once.
 * @return 0, or -1 with "file:line:col: message" in @err and nothing changed. */
int vr_script_apply(struct vr_model *m, const char *name, char *err, size_t errsz);
/* Forget the applied script (a profile is applied instead). */
void vr_script_drop(struct vr_model *m);
/* The script applied, NULL = none. */
const char *vr_script_applied(const struct vr_model *m);
/* Names "NAME.d" of the scripts on the profile path, sorted, first of each
 * name (at most @max). @return how many. */
int vr_script_names(const struct vr_model *m, char (*names)[64], int max);
/* The first line of the script's header comment (after "NAME.d - "). */
void vr_script_describe(const struct vr_model *m, const char *name, char *buf, size_t size);

/* ---- the speculation view of the script (spec.c calls these) ---- */
int vr_script_spec_start(struct vr_model *m);
void vr_script_spec_step(struct vr_model *m, struct vr_job *j);
void vr_script_spec_reset(struct vr_model *m);

/* ---- the aggregation panel ---- */
/* Compute the aggregations over the window and the filter, unless that
 * result (or its pass) is there already. @return 0, or -1 with m->note set
 * (no script applied, or it has no aggregation). */
int vr_script_agg_want(struct vr_model *m);
/* One step of the aggregation pass. */
void vr_script_agg_step(struct vr_model *m, struct vr_job *j);
/* The text the aggregations printed ("" while computing); *done tells
 * whether it is complete; *w0, *w1 the window it covers. */
const char *vr_script_agg_text(const struct vr_model *m, bool *done, uint64_t *w0,
			       uint64_t *w1);
/* Stop showing / computing (the panel closed). */
void vr_script_agg_stop(struct vr_model *m);

#endif
