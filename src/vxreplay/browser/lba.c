/* lba.c - the LBA rows of the heatmap: which sectors they cover
 *
 * The rows of one object's LBA heatmap cover a sector range: at first the
 * whole object, and once a binning has seen the object's I/O in the window,
 * the span it touched (so a small busy region is not one row of a large
 * disk). Rows are a round number of sectors (1, 2, 5 times a power of ten)
 * each, aligned to it; z / Z zoom
 * and [ / ] pan the range, which stays when the time window changes. The
 * number of rows is a profile's `heatmap.buckets`, else what the panel has
 * room for, so no row is cut by default.
 */
#include <errno.h>

#include "browser/axis.h"
#include "browser/model.h"

uint64_t vr_lba_sectors(const struct vr_model *m)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(m->rd), m->lba_obj);
	uint64_t s = o && o->size ? o->size / 512 : 0;

	return s ? s : UINT64_C(1) << 31;	/* unknown size: 1 TiB */
}

unsigned vr_lba_rows(const struct vr_model *m)
{
	unsigned r = m->lba_rows ? m->lba_rows : m->lba_fit ? m->lba_fit : VR_LBA_ROWS;

	return r > VR_LBA_ROWS_MAX ? VR_LBA_ROWS_MAX : r;
}

int vr_lba_init(struct vr_model *m, struct vxt_timeline *tl, unsigned nbins)
{
	uint64_t dev = vr_lba_sectors(m), span = m->lba_span, row;
	unsigned rows = vr_lba_rows(m);

	if (!span)
		return vxt_timeline_init_lba_range(tl, m->w0, m->w1, nbins, m->lba_obj, 0, dev,
						   rows);
	/* round rows past the object's end: no row starts past it (the last
	 * one is cut there, lba_title() says where) */
	row = span / rows;
	if (row && m->lba_first < dev && m->lba_first + span > dev) {
		uint64_t need = (dev - m->lba_first + row - 1) / row;

		if (need < rows) {
			rows = (unsigned)need;
			span = row * need;
		}
	}
	return vxt_timeline_init_lba_range(tl, m->w0, m->w1, nbins, m->lba_obj, m->lba_first,
					   span, rows);
}

void vr_lba_set_fit(struct vr_model *m, unsigned rows)
{
	if (rows < 1)
		rows = 1;
	if (rows == m->lba_fit)
		return;
	m->lba_fit = rows;
	if (m->lba && !m->lba_rows) {
		if (m->lba_span)
			m->lba_want_fit = true;	/* the row size follows the count */
		vr_model_rebin(m);
	}
}

void vr_lba_binned(struct vr_model *m)
{
	uint64_t first, span;

	if (!m->lba || !m->lba_want_fit)
		return;
	m->lba_want_fit = false;
	if (!m->tl.lba_hi)
		return;		/* nothing of the object in the window */
	vr_lba_round(m->tl.lba_lo, m->tl.lba_hi, vr_lba_rows(m), vr_lba_sectors(m), &first,
		     &span);
	if (m->lba_span == span && m->lba_first == first)
		return;
	m->lba_first = first;
	m->lba_span = span;
	vr_model_rebin(m);
}

static void set_range(struct vr_model *m, uint64_t first, uint64_t span)
{
	uint64_t dev = vr_lba_sectors(m);
	unsigned rows = vr_lba_rows(m);

	if (span < rows)
		span = rows;
	if (span >= dev) {
		first = 0;
		span = 0;	/* the whole object */
	} else if (first + span > dev) {
		first = dev - span;
	}
	m->lba_first = first;
	m->lba_span = span;
	m->lba_want_fit = false;
	vr_model_rebin(m);
}

void vr_lba_zoom(struct vr_model *m, double factor, uint64_t center)
{
	uint64_t span = m->lba_span ? m->lba_span : vr_lba_sectors(m);
	uint64_t first = m->lba_span ? m->lba_first : 0;
	uint64_t ns = (uint64_t)((double)span * factor);

	if (!m->lba)
		return;
	if (center == UINT64_MAX)
		center = first + span / 2;
	set_range(m, center > ns / 2 ? center - ns / 2 : 0, ns);
}

void vr_lba_pan(struct vr_model *m, int dir)
{
	uint64_t step;

	if (!m->lba || !m->lba_span)
		return;		/* the whole object: nowhere to go */
	step = m->lba_span / 2;
	if (dir < 0)
		set_range(m, m->lba_first > step ? m->lba_first - step : 0, m->lba_span);
	else
		set_range(m, m->lba_first + step, m->lba_span);
}

void vr_lba_refit(struct vr_model *m)
{
	if (!m->lba)
		return;
	m->lba_first = m->lba_span = 0;
	m->lba_want_fit = true;
	vr_model_rebin(m);
}
