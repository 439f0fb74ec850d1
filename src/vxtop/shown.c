/* shown.c - what vxtop's screens show: the live or paused moment of the model
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shown.h"

void vxtop_shown_init(struct vxtop_shown *v, const struct vxtop_model *m,
		      struct vxtop_view *view)
{
	memset(v, 0, sizeof(*v));
	v->m = m;
	v->view = view;
	if (view->glob)
		snprintf(v->glob, sizeof(v->glob), "%s", view->glob);
}

/* Free the histograms frozen by a pause. */
static void frozen_free(struct vxtop_shown *v)
{
	for (size_t i = 0; i < v->nfrozen_lat; i++)
		vxt_latdist_free(&v->frozen_lat[i]);
	free(v->frozen_lat);
	v->frozen_lat = NULL;
	v->nfrozen_lat = 0;
}

void vxtop_shown_free(struct vxtop_shown *v)
{
	free(v->rows);
	v->rows = NULL;
	frozen_free(v);
	v->nrows = v->caprows = 0;
}

void vxtop_shown_pause(struct vxtop_shown *v, bool on)
{
	const struct vxtop_model *m = v->m;
	const struct vxtop_snap *s = vxtop_model_snap(m, 0);

	v->paused = on;
	if (!on)
		return;
	v->frozen_seq = s ? s->seq : 0;
	v->frozen_nerrs = m->nerrs;
	/* the detail's last-interval histograms freeze too */
	frozen_free(v);
	v->frozen_lat = calloc(m->nobj ? m->nobj : 1, sizeof(*v->frozen_lat));
	v->nfrozen_lat = v->frozen_lat ? m->nobj : 0;
	for (size_t i = 0; i < v->nfrozen_lat; i++)
		vxt_latdist_copy(&v->frozen_lat[i], &m->obj[i].last_lat);	/* empty on failure */
}

const struct vxtop_snap *vxtop_shown_snap(const struct vxtop_shown *v, size_t back)
{
	const struct vxtop_model *m = v->m;
	const struct vxtop_snap *newest = vxtop_model_snap(m, 0);
	size_t skip = 0;

	if (!newest)
		return NULL;
	if (v->paused) {
		skip = (size_t)(newest->seq - v->frozen_seq);
		if (skip >= m->nsnap)
			skip = m->nsnap - 1;	/* fell out of the ring: the oldest */
	}
	return vxtop_model_snap(m, skip + back);
}

uint64_t vxtop_shown_nerrs(const struct vxtop_shown *v)
{
	return v->paused ? v->frozen_nerrs : v->m->nerrs;
}

const struct vxtop_err *vxtop_shown_err(const struct vxtop_shown *v, uint64_t back)
{
	return vxtop_model_err(v->m, back + (v->m->nerrs - vxtop_shown_nerrs(v)));
}

const struct vxt_latdist *vxtop_shown_last_lat(const struct vxtop_shown *v, uint32_t id)
{
	if (v->paused)
		return id < v->nfrozen_lat ? &v->frozen_lat[id] : NULL;
	return id < v->m->nobj ? &v->m->obj[id].last_lat : NULL;
}

int vxtop_shown_rows(struct vxtop_shown *v)
{
	size_t need = vxtop_model_nobjects(v->m), i;
	struct vxtop_view view = *v->view;

	if (need > v->caprows) {
		struct vxtop_row *r = realloc(v->rows, need * sizeof(*r));

		if (!r)
			return -ENOMEM;	/* keep the old rows; the next interval retries */
		v->rows = r;
		v->caprows = need;
	}
	view.glob = v->glob;
	view.by_id = false;
	v->nrows = vxtop_rows(v->m, vxtop_shown_snap(v, 0), &view, v->rows);
	v->nidle = 0;
	for (i = 0; i < v->nrows; i++)
		v->nidle += v->rows[i].idle != 0;
	/* follow the selected object through re-sorts */
	for (i = 0; i < v->nrows; i++)
		if (v->rows[i].object == v->sel_object) {
			v->sel = i;
			return 0;
		}
	vxtop_shown_select(v, v->sel);
	return 0;
}

void vxtop_shown_select(struct vxtop_shown *v, size_t i)
{
	if (i >= v->nrows)
		i = v->nrows ? v->nrows - 1 : 0;
	v->sel = i;
	if (v->nrows)
		v->sel_object = v->rows[i].object;
}

void vxtop_shown_sort(struct vxtop_shown *v, unsigned col)
{
	if (col == v->view->sort_col)
		return;
	v->view->sort_col = col;
	v->view->ascending = col == VXTOP_COL_NAME;
}

double vxtop_metric(const struct vxtop_model *m, const struct vxtop_snap *s, uint32_t id,
		    enum heat_metric metric)
{
	struct vxtop_row r;

	if (!vxtop_snap_obj(s, id))
		return 0;
	vxtop_row_fill(m, s, id, &r);
	switch (metric) {
	case HM_IOPS:
		return r.v[VXTOP_COL_RPS] + r.v[VXTOP_COL_WPS];
	case HM_MBS:
		return r.v[VXTOP_COL_RMBS] + r.v[VXTOP_COL_WMBS];
	case HM_UTIL:
		return r.v[VXTOP_COL_UTIL];
	case HM_P99:
		return r.v[VXTOP_COL_P99];
	case HM_ERRORS:
		return r.v[VXTOP_COL_ERR];
	default:
		return 0;
	}
}

const char *vxtop_metric_name(enum heat_metric m)
{
	static const char *const names[HM_COUNT] = { "IO/s", "MiB/s", "util%", "p99 latency",
						     "errors" };

	return m < HM_COUNT ? names[m] : "?";
}

unsigned vxtop_level(double v, double max, bool log)
{
	double f;

	if (!(v > 0) || !(max > 0))
		return 0;
	/* log: three decades below the maximum, 1/10 of it two thirds up */
	f = log ? 1 + log10(v / max) / 3 : v / max;
	if (f <= 0)
		return 1;
	if (f >= 1)
		return 8;
	return 1 + (unsigned)(f * 7.999);
}
