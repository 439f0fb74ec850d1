/* model.c - the browser's model: file, window, timeline, cursor, marks
 *
 * See model.h. The cursor is an ordinal of a shown event plus its row in
 * the list; the window always contains the cursor's time (moving the cursor
 * out of it pans the window and starts re-binning).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "browser/heativ.h"
#include "browser/ivseries.h"
#include "browser/model.h"
#include "browser/pairjob.h"

#define NAV_BUDGET 16		/* chunks one move may decode (the count job does the rest) */

/* One pass over the index entries: the file's time span, errors and lost
 * events, whether queue-side phases were captured, and the busiest objects
 * as the timeline's rows. */
static void scan_index(struct vr_model *m)
{
	size_t nobj = vxt_objtab_count(vxt_reader_objects(m->rd));
	uint64_t *load = calloc(nobj ? nobj : 1, sizeof(*load));
	uint64_t *errs = calloc(nobj ? nobj : 1, sizeof(*errs));

	m->nrows = 0;
	m->rows_left = 0;
	m->rows_left_errors = 0;
	m->queue_side = false;
	m->qs_pieces = 0;
	m->total_errors = m->total_lost = 0;
	m->t_first = m->t_last = 0;
	for (size_t i = 0; i < vxt_reader_npieces(m->rd); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_piece(m->rd, i);
		uint64_t known = 0;

		if (ci->nevents) {
			if (!m->t_first || ci->first_ns < m->t_first)
				m->t_first = ci->first_ns;
			if (ci->last_ns > m->t_last)
				m->t_last = ci->last_ns;
			m->total_errors += ci->nerrors;
			m->total_lost += ci->nlost;
		}
		for (uint32_t k = 0; k < ci->nobjagg; k++) {
			const struct vxt_objagg *a = &ci->objagg[k];

			if (load && errs && a->object < nobj) {
				load[a->object] += a->starts + 1;
				errs[a->object] += a->errors;
			}
			known += a->starts;
			for (int op = 0; op < VXT_OP_COUNT; op++)
				known += a->ios[op];
		}
		/* the same pass answers vr_model_queue_side() */
		m->queue_side |= ci->nevents > known + ci->nlost;
	}
	m->qs_pieces = vxt_reader_npieces(m->rd);
	if (!load || !errs) {
		free(load);
		free(errs);
		return;
	}
	/* selection of the busiest, busiest first */
	for (unsigned r = 0; r < VR_MAX_ROWS; r++) {
		size_t best = SIZE_MAX;

		for (size_t o = 0; o < nobj; o++)
			if (load[o] && (best == SIZE_MAX || load[o] > load[best]))
				best = o;
		if (best == SIZE_MAX)
			break;
		m->rows[m->nrows++] = (uint32_t)best;
		load[best] = 0;
	}
	/* the objects past VR_MAX_ROWS: the heatmap says how many, and their errors */
	for (size_t o = 0; o < nobj; o++) {
		if (load[o]) {
			m->rows_left++;
			m->rows_left_errors += errs[o];
		}
	}
	free(load);
	free(errs);
}

int vr_model_open(struct vr_model *m, const char *path)
{
	return vr_model_open_set(m, &path, 1);
}

int vr_model_open_set(struct vr_model *m, const char *const *paths, size_t n)
{
	const char *path = paths[0];

	memset(m, 0, sizeof(*m));
	m->path = path;
	m->paths = n > 1 ? paths : NULL;	/* one path: vr_model_open()'s, not kept */
	m->npaths = n > 1 ? n : 0;
	m->rd = vxt_reader_open_set(paths, n, m->err);
	if (!m->rd)
		return -1;
	{
		struct stat st;

		if (stat(path, &st) == 0) {
			m->file_dev = st.st_dev;
			m->file_ino = st.st_ino;
		}
	}
	m->info = vxt_reader_info(m->rd);
	if (vxt_reader_note(m->rd))
		snprintf(m->note, sizeof(m->note), "%s", vxt_reader_note(m->rd));
	scan_index(m);
	m->metric = VXT_HEAT_IOPS;
	m->mark_kinds = VR_MARK_ERRORS | VR_MARK_LOST;
	m->view.rd = m->rd;
	if (vr_view_set_match(&m->view, NULL, NULL) < 0) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		vr_model_close(m);
		return -1;
	}
	m->w0 = m->t_first;
	m->w1 = m->t_last + 1;
	m->page = 10;
	vr_marks_load(m);
	vr_model_home(m);
	return 0;
}

void vr_model_close(struct vr_model *m)
{
	char err[256];

	/* drops the profile and the filter while the view is whole */
	vr_profile_apply(m, "", NULL, err, sizeof(err));
	if (m->export_f)
		fclose(m->export_f);
	vxt_timeline_free(&m->tl);
	vxt_timeline_free(&m->tl_est);
	vr_extra_free(m);
	vr_procs_free(&m->procs);
	vxt_heatmap_free(&m->hm);
	vr_view_free(&m->view);
	vr_model_spec_reset(m);
	vr_pair_reset(m);
	vr_ivs_free(m);
	vr_scan_stop_all(m);
	vxt_reader_close(m->rd);
	vxt_reader_close(m->jrd);
	m->rd = m->jrd = NULL;
}

struct vxt_reader *vr_model_job_reader(struct vr_model *m)
{
	char err[VXT_ERRBUF_SIZE];

	if (m->jrd)
		return m->jrd;
	/* opened at the first job, so the first screen needs one index load */
	m->jrd = m->npaths ? vxt_reader_open_set(m->paths, m->npaths, err) :
			     vxt_reader_open(m->path, err);
	if (!m->jrd) {
		snprintf(m->note, sizeof(m->note), "%s", err);
		m->note_error = true;
		return NULL;
	}
	if (vxt_reader_nchunks(m->jrd) < vxt_reader_nchunks(m->rd))
		vxt_reader_refresh(m->jrd);
	return m->jrd;
}

int vr_model_check_rotated(struct vr_model *m)
{
	const char *path = m->path, *profile_dir = m->profile_dir;
	bool following = m->following;
	struct vxt_reader *probe;
	char err[VXT_ERRBUF_SIZE];
	struct stat st;

	if (m->npaths > 1 || stat(path, &st) < 0 ||
	    (st.st_dev == m->file_dev && st.st_ino == m->file_ino))
		return 0;
	probe = vxt_reader_open(path, err);
	if (!probe)
		return 0;	/* not written far enough yet: look again later */
	vxt_reader_close(probe);
	vr_model_close(m);
	if (vr_model_open(m, path) < 0)
		return -1;
	m->profile_dir = profile_dir;
	m->following = following;
	return 1;
}

int vr_model_refresh(struct vr_model *m)
{
	bool empty = vxt_reader_nevents(m->rd) == 0;
	bool whole = empty || (m->w0 <= m->t_first && m->w1 > m->t_last);
	uint64_t width = m->w1 - m->w0;
	int n = vxt_reader_refresh(m->rd);
	size_t first_new;

	if (n <= 0)
		return n;
	vr_scan_stop_all(m);	/* scanners need an unrefreshed reader */
	if (m->jrd && vxt_reader_refresh(m->jrd) < 0)
		return -EIO;
	first_new = m->view.nchunks;
	if (vr_view_grow(&m->view) < 0)
		return -ENOMEM;
	if (m->view.match && !m->job[VR_JOB_COUNT].active)
		m->job[VR_JOB_COUNT] = (struct vr_job){ .active = true, .next = first_new,
							.begin = first_new,
							.end = vxt_reader_nchunks(m->rd) };
	else if (m->view.match)
		m->job[VR_JOB_COUNT].end = vxt_reader_nchunks(m->rd);
	scan_index(m);
	vr_pair_grow(m, first_new);
	vr_ivs_grow(m, first_new);
	/* a window over the whole file stays so; a following one keeps its
	 * width and moves to the end */
	if (whole) {
		m->w0 = m->t_first;
		m->w1 = m->t_last + 1;
	} else if (m->following) {
		m->w1 = m->t_last + 1;
		m->w0 = width < m->w1 - m->t_first ? m->w1 - width : m->t_first;
	}
	if (empty)
		vr_model_home(m);
	vr_model_rebin(m);
	/* a growing file's timeline is never "computing" again at each refresh */
	vr_model_index_finish(m);
	return n;
}

/* ---- window and timeline ---- */

static void clamp_window(struct vr_model *m, uint64_t *w0, uint64_t *w1)
{
	uint64_t lo = m->t_first, hi = m->t_last + 1, width = *w1 - *w0;
	uint64_t min_w = (uint64_t)(m->nbins ? m->nbins : 1) * 1000;

	if (width < min_w)
		width = min_w;
	if (width >= hi - lo) {
		*w0 = lo;
		*w1 = hi;
		return;
	}
	if (*w0 < lo)
		*w0 = lo;
	if (*w0 + width > hi)
		*w0 = hi - width;
	*w1 = *w0 + width;
}

void vr_model_set_window(struct vr_model *m, uint64_t w0, uint64_t w1, unsigned nbins)
{
	if (w1 <= w0)
		w1 = w0 + 1;
	m->nbins = nbins ? nbins : 1;
	if (m->fixed_bin_ns) {
		/* a fixed bin: the window is as wide as the bins that fit */
		uint64_t c = w0 / 2 + w1 / 2;

		w0 = c > m->fixed_bin_ns * m->nbins / 2 ? c - m->fixed_bin_ns * m->nbins / 2 : 0;
		w1 = w0 + m->fixed_bin_ns * m->nbins;
	}
	clamp_window(m, &w0, &w1);
	if (w0 == m->w0 && w1 == m->w1 && m->tl.nbins == m->nbins &&
	    (m->tl_done || m->job[VR_JOB_REBIN].active))
		return;
	m->w0 = w0;
	m->w1 = w1;
	vr_model_rebin(m);
}

void vr_model_zoom(struct vr_model *m, double factor)
{
	uint64_t c = vr_model_cursor_time(m), width = m->w1 - m->w0;
	double nw = (double)width * factor;
	uint64_t w0, left;

	if (nw < 1)
		nw = 1;
	if (m->fixed_bin_ns) {
		m->fixed_bin_ns = (uint64_t)((double)m->fixed_bin_ns * factor);
		if (!m->fixed_bin_ns)
			m->fixed_bin_ns = 1;
	}
	/* keep the cursor at the same relative place */
	left = (uint64_t)((double)(c - (c > m->w0 ? m->w0 : c)) * factor);
	w0 = c > left ? c - left : 0;
	vr_model_set_window(m, w0, w0 + (uint64_t)nw, m->nbins);
}

static bool from_index(const struct vr_model *m)
{
	return !m->view.match && !m->view.spec_on;
}

/* Chunk entries [@i, @to) into the timelines (the index pass). */
static void index_part(struct vr_model *m, size_t i, size_t to)
{
	for (; i < to; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(m->rd, i);

		if (!vxt_timeline_chunk_overlaps(&m->tl, ci))
			continue;
		if (m->ix_first == SIZE_MAX)
			m->ix_first = i;
		m->ix_last = i;
		if (!from_index(m))
			continue;
		/* each entry read once: exact ones to tl, the others to the
		 * estimate, which then gets tl's too */
		if (vxt_timeline_chunk_exact(&m->tl, ci))
			vxt_timeline_add_chunk(&m->tl, ci);
		else
			vxt_timeline_add_chunk(&m->tl_est, ci);
		vr_extra_index(m, ci);
	}
}

/* The index pass is over: the estimate is whole, and the re-binning job
 * decodes what the entries cannot bin exactly. */
static void index_done(struct vr_model *m)
{
	if (from_index(m)) {
		vr_tl_sum_into(&m->tl_est, &m->tl);
		vr_extra_index_done(m);
	}
	m->tl_show_est = from_index(m);
	m->hm_dirty = true;
	if (m->ix_first == SIZE_MAX) {
		m->tl_done = true;
		m->tl_show_est = false;
		return;
	}
	m->job[VR_JOB_REBIN] = (struct vr_job){ .active = true, .next = m->ix_first,
						.begin = m->ix_first, .end = m->ix_last + 1 };
}

void vr_model_index_step(struct vr_model *m)
{
	struct vr_job *j = &m->job[VR_JOB_INDEX];
	size_t to = j->end - j->next > VR_INDEX_STEP ? j->next + VR_INDEX_STEP : j->end;

	index_part(m, j->next, to);
	j->next = to;
	if (to < j->end)
		return;
	j->active = false;
	index_done(m);
}

void vr_model_index_finish(struct vr_model *m)
{
	struct vr_job *j = &m->job[VR_JOB_INDEX];

	if (!j->active)
		return;
	index_part(m, j->next, j->end);
	j->next = j->end;
	j->active = false;
	index_done(m);
}

void vr_model_rebin(struct vr_model *m)
{
	size_t n = vxt_reader_nchunks(m->rd), first = n, last = 0;
	bool late = false;
	int rc;

	/* what the per-process view counted no longer holds */
	m->procs_done = false;
	if (m->job[VR_JOB_PROCS].active)
		vr_model_procs_start(m);
	vxt_timeline_free(&m->tl);
	vxt_timeline_free(&m->tl_est);
	if (!m->nbins)
		m->nbins = 1;
	if (m->lba) {
		rc = vr_lba_init(m, &m->tl, m->nbins);
		if (!rc)
			rc = vr_lba_init(m, &m->tl_est, m->nbins);
	} else {
		rc = vxt_timeline_init(&m->tl, m->w0, m->w1, m->nbins, m->rows, m->nrows);
		if (!rc)
			rc = vxt_timeline_init(&m->tl_est, m->w0, m->w1, m->nbins, m->rows,
					       m->nrows);
	}
	if (!rc && vr_extra_init(m) < 0)
		rc = -ENOMEM;
	m->hm_dirty = true;
	m->tl_done = false;
	m->job[VR_JOB_REBIN].active = false;
	m->job[VR_JOB_INDEX].active = false;
	if (rc < 0) {
		snprintf(m->note, sizeof(m->note), "timeline: %s", vxt_strerror(rc));
		m->note_error = true;
		return;
	}
	for (size_t i = 0; i < n && !late; i++)
		late = !vxt_reader_chunk_ready(m->rd, i);
	if (!late) {
		/* a large file's entries are read in turns, after the first screen */
		m->ix_first = SIZE_MAX;
		m->ix_last = 0;
		m->job[VR_JOB_INDEX] = (struct vr_job){ .active = true, .end = n };
		m->tl_show_est = from_index(m);
		if (n <= VR_INDEX_SYNC)
			vr_model_index_finish(m);
		return;
	}
	/* merged files: the estimate from their entries, the job does the rest */
	for (size_t i = 0; i < vxt_reader_npieces(m->rd); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_piece(m->rd, i);

		if (!vxt_timeline_chunk_overlaps(&m->tl, ci))
			continue;
		first = 0;
		last = n - 1;
		if (!from_index(m))
			break;
		vxt_timeline_add_chunk(&m->tl_est, ci);
		vr_extra_index_part(m, ci, true);
	}
	m->tl_show_est = from_index(m);
	if (first == n) {
		m->tl_done = true;
		m->tl_show_est = false;
		return;
	}
	m->job[VR_JOB_REBIN] = (struct vr_job){ .active = true, .next = first, .begin = first,
						.end = last + 1, .index_late = late };
}

const struct vxt_timeline *vr_model_timeline(const struct vr_model *m)
{
	return m->tl_show_est ? &m->tl_est : &m->tl;
}

const struct vxt_heatmap *vr_model_heatmap(struct vr_model *m)
{
	if (m->hm_dirty) {
		const struct vxt_timeline *tl = vr_model_heat_timeline(m);

		if (tl->nbins)
			vr_heat_build(m, tl);
		m->hm_dirty = false;
	}
	return &m->hm;
}

void vr_model_set_lba(struct vr_model *m, bool on, uint32_t obj)
{
	m->lba = on;
	m->lba_obj = obj;
	m->lba_first = m->lba_span = 0;
	m->lba_want_fit = on;
	vr_model_rebin(m);
}

/* ---- the cursor ---- */

uint64_t vr_model_cursor_time(struct vr_model *m)
{
	return m->has_sel ? m->sel_time : m->w0;
}

/* The cursor moved: read its time, keep it inside the window. */
static void sel_changed(struct vr_model *m)
{
	const struct vxt_event *ev;

	long gap;

	if (!m->has_sel)
		return;
	if ((gap = vr_view_gap(&m->view, m->sel)) >= 0)
		m->sel_time = vxt_reader_chunk_fixed(m->rd, (size_t)gap)->first_ns;
	else if (vr_view_get(&m->view, m->sel, &ev) == 1)
		m->sel_time = ev->time_ns;
	else
		return;
	if (m->sel_time < m->w0 || m->sel_time >= m->w1) {
		uint64_t width = m->w1 - m->w0;
		uint64_t w0 = m->sel_time > width / 2 ? m->sel_time - width / 2 : 0;

		vr_model_set_window(m, w0, w0 + width, m->nbins);
	}
}

/* Recompute m->top from m->sel and m->sel_row. */
static void place_top(struct vr_model *m)
{
	uint64_t o = m->sel, p;
	unsigned r = 0;

	if (m->sel_row >= m->page)
		m->sel_row = m->page ? m->page - 1 : 0;
	while (r < m->sel_row && vr_view_last_before(&m->view, o, &p, NAV_BUDGET) == 1) {
		o = p;
		r++;
	}
	m->sel_row = r;
	m->top = o;
}

void vr_model_set_page(struct vr_model *m, unsigned page)
{
	m->page = page ? page : 1;
	if (m->has_sel)
		place_top(m);
}

int vr_model_goto_ord(struct vr_model *m, uint64_t ord)
{
	uint64_t o;
	int rc = vr_view_first_at(&m->view, ord, &o, NAV_BUDGET);

	if (rc != 1)
		rc = vr_view_last_before(&m->view, ord, &o, NAV_BUDGET);
	if (rc != 1) {
		m->has_sel = false;
		m->top = 0;
		return 0;
	}
	m->has_sel = true;
	m->sel = o;
	m->sel_row = m->page / 3;
	place_top(m);
	sel_changed(m);
	return 1;
}

/* @t lies in a chunk that does not read (damage): go on at the first chunk
 * after it that does, and say so in m->note. @return as vr_model_goto_ord(). */
static int goto_past_damage(struct vr_model *m, uint64_t t)
{
	size_t n = vxt_reader_nchunks(m->rd), i = 0, bad, k;

	while (i < n && vxt_reader_chunk_fixed(m->rd, i)->last_ns < t)
		i++;
	snprintf(m->note, sizeof(m->note), "%s", vxt_reader_error(m->rd));
	for (bad = i++; i < n; i++)
		if (vxt_reader_chunk_events(m->rd, i, &k))
			break;
	if (i >= n)
		return -EIO;
	snprintf(m->note + strlen(m->note), sizeof(m->note) - strlen(m->note),
		 "; chunk %zu skipped", bad);
	m->note_error = true;
	return vr_model_goto_ord(m, vxt_reader_chunk_fixed(m->rd, i)->first_event);
}

int vr_model_goto_time(struct vr_model *m, uint64_t t)
{
	if (vxt_reader_seek_time(m->rd, t) < 0)
		return goto_past_damage(m, t);
	return vr_model_goto_ord(m, vxt_reader_tell(m->rd));
}

int vr_model_move(struct vr_model *m, long n)
{
	uint64_t o;

	if (!m->has_sel)
		return vr_model_home(m);
	for (; n > 0; n--) {
		if (vr_view_first_at(&m->view, m->sel + 1, &o, NAV_BUDGET) != 1)
			break;
		m->sel = o;
		if (m->sel_row + 1 < m->page)
			m->sel_row++;
		else if (vr_view_first_at(&m->view, m->top + 1, &o, NAV_BUDGET) == 1)
			m->top = o;
	}
	for (; n < 0; n++) {
		if (vr_view_last_before(&m->view, m->sel, &o, NAV_BUDGET) != 1)
			break;
		m->sel = o;
		if (m->sel_row > 0)
			m->sel_row--;
		else
			m->top = o;
	}
	sel_changed(m);
	return 1;
}

int vr_model_home(struct vr_model *m)
{
	uint64_t o;

	if (vr_view_first_at(&m->view, 0, &o, NAV_BUDGET) != 1) {
		m->has_sel = false;
		return 0;
	}
	m->has_sel = true;
	m->sel = m->top = o;
	m->sel_row = 0;
	sel_changed(m);
	return 1;
}

int vr_model_end(struct vr_model *m)
{
	uint64_t o;

	if (vr_view_last_before(&m->view, UINT64_MAX, &o, NAV_BUDGET) != 1)
		return vr_model_home(m);
	m->has_sel = true;
	m->sel = o;
	m->sel_row = m->page ? m->page - 1 : 0;
	place_top(m);
	sel_changed(m);
	return 1;
}

int vr_model_next_error(struct vr_model *m, bool backward)
{
	uint64_t from = m->has_sel ? (backward ? m->sel : m->sel + 1) : 0, o;
	int rc = vr_view_next_error(&m->view, from, backward, &o);

	if (rc == -EAGAIN) {
		vr_model_goto_ord(m, o);
		return rc;
	}
	if (rc != 1)
		return rc;
	return vr_model_goto_ord(m, o);
}

int vr_model_rows(struct vr_model *m, uint64_t *ords, int max)
{
	uint64_t o = m->top;
	int n = 0;

	if (!m->has_sel)
		return 0;
	while (n < max && vr_view_first_at(&m->view, o, &o, NAV_BUDGET) == 1) {
		ords[n++] = o;
		o++;
	}
	return n;
}

void vr_model_reseat(struct vr_model *m)
{
	uint64_t t = m->has_sel ? m->sel_time : m->w0;

	vr_model_goto_time(m, t);
}

/* ---- marks ---- */

bool vr_model_is_marked(const struct vr_model *m, uint64_t ord)
{
	for (unsigned i = 0; i < m->nmarks; i++)
		if (m->marks[i].ord == ord)
			return true;
	return false;
}

bool vr_model_toggle_mark(struct vr_model *m)
{
	unsigned i;

	if (!m->has_sel)
		return false;
	for (i = 0; i < m->nmarks; i++)
		if (m->marks[i].ord == m->sel) {
			vr_model_delete_mark(m, i);
			return false;
		}
	if (m->nmarks == VR_MAX_MARKS)
		memmove(&m->marks[0], &m->marks[1], (--m->nmarks) * sizeof(m->marks[0]));
	for (i = m->nmarks; i > 0 && m->marks[i - 1].ord > m->sel; i--)
		m->marks[i] = m->marks[i - 1];
	m->marks[i] = (struct vr_mark){ .ord = m->sel, .time_ns = m->sel_time };
	m->nmarks++;
	vr_marks_save(m);
	return true;
}

void vr_model_delete_mark(struct vr_model *m, unsigned i)
{
	if (i >= m->nmarks)
		return;
	memmove(&m->marks[i], &m->marks[i + 1], (m->nmarks - i - 1) * sizeof(m->marks[0]));
	m->nmarks--;
	vr_marks_save(m);
}
