/* shown.h - what vxtop's screens show: the live or paused moment of the model
 *
 * The screens draw "the shown interval": the newest closed one, or while
 * paused the one that was newest at the pause (with the error count and the
 * last-interval histograms of that moment), and the table's rows of it,
 * filtered by a name glob, sorted, the selection following its object
 * through re-sorts. No curses here: the unit tests drive it directly.
 */
#ifndef VXTOP_SHOWN_H
#define VXTOP_SHOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum heat_metric { HM_IOPS, HM_MBS, HM_UTIL, HM_P99, HM_ERRORS, HM_COUNT };

struct vxtop_shown {
	const struct vxtop_model *m;	/* borrowed */
	struct vxtop_view *view;	/* sort column and order, borrowed */
	bool paused;
	uint64_t frozen_seq;		/* the interval shown while paused */
	uint64_t frozen_nerrs;
	struct vxt_latdist *frozen_lat;	/* per object, as of the pause */
	size_t nfrozen_lat;
	struct vxtop_row *rows;
	size_t nrows, caprows, nidle;
	size_t sel;			/* selected row */
	uint32_t sel_object;		/* kept across re-sorts */
	char glob[64];			/* name filter; "" = all */
};

void vxtop_shown_init(struct vxtop_shown *v, const struct vxtop_model *m,
		      struct vxtop_view *view);
void vxtop_shown_free(struct vxtop_shown *v);
/* Pause (freeze the shown interval, errors and histograms) or resume. */
void vxtop_shown_pause(struct vxtop_shown *v, bool on);
/* The shown interval and the ones before it (@back = 0: the shown one). */
const struct vxtop_snap *vxtop_shown_snap(const struct vxtop_shown *v, size_t back);
/* Errors as of the shown moment; the @back-th newest of them, or NULL. */
uint64_t vxtop_shown_nerrs(const struct vxtop_shown *v);
const struct vxtop_err *vxtop_shown_err(const struct vxtop_shown *v, uint64_t back);
/* Latencies of object @id in the shown interval, or NULL. */
const struct vxt_latdist *vxtop_shown_last_lat(const struct vxtop_shown *v, uint32_t id);
/* Rebuild the rows of the shown interval; the selection follows its object.
 * @return 0, or -ENOMEM (the old rows stay). */
int vxtop_shown_rows(struct vxtop_shown *v);
/* Select row @i (clipped). */
void vxtop_shown_select(struct vxtop_shown *v, size_t i);
/* Sort by @col; a new column starts descending (names ascending). */
void vxtop_shown_sort(struct vxtop_shown *v, unsigned col);

/* Value of @metric for object @id in @s. */
double vxtop_metric(const struct vxtop_model *m, const struct vxtop_snap *s, uint32_t id,
		    enum heat_metric metric);
const char *vxtop_metric_name(enum heat_metric m);
/* Level 0..8 of @v on a scale to @max; @log: three decades below @max. */
unsigned vxtop_level(double v, double max, bool log);

#endif
