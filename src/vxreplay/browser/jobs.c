/* jobs.c - the browser's stepped work: re-binning, counting, export
 *
 * Each job walks a range of chunks on the job reader, one chunk per turn,
 * decoded ahead on helper threads with only the fields it reads (scan.c);
 * vr_model_step() gives every active job turns until about VR_STEP_NS have
 * passed, so the screen manager can read keys between steps and Esc cancels.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "browser/model.h"
#include "browser/script.h"
#include "browser/ivseries.h"
#include "browser/pairjob.h"
#include "vxtrace/filter.h"
#include "vxtrace/outfile.h"

static bool shown(const struct vr_model *m, uint64_t ord, const struct vxt_event *ev)
{
	if (m->view.spec_on)
		return vr_spec_group_of(&m->view.spec, ord) >= 0;
	return vr_view_matches(&m->view, ev, ord);
}

/* A job stops on damage; the note says why (the scanner's message, when it
 * left one, else the job reader's). */
static void job_error(struct vr_model *m, struct vr_job *j, const char *what)
{
	char why[sizeof(m->note) - 64];

	snprintf(why, sizeof(why), "%.*s", (int)sizeof(why) - 1, m->note_error && m->note[0] ?
		 m->note : m->jrd ? vxt_reader_error(m->jrd) : "cannot read the file");
	snprintf(m->note, sizeof(m->note), "%s: %s", what, why);
	m->note_error = true;
	j->active = false;
}

/* The fields a filter count reads (and what seeking needs), and those of
 * the objects' figures (struct vr_objfig). */
static unsigned count_fields(const struct vr_model *m)
{
	return (m->filter ? vxt_filter_fields(m->filter) : 0) | VXT_FIELD_TIME |
	       VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT | VXT_FIELD_ERROR | VXT_FIELD_BYTES |
	       VXT_FIELD_LATENCY;
}

/* The fields binning reads (vxt_timeline_add()), and the filter's. */
static unsigned rebin_fields(const struct vr_model *m)
{
	unsigned f = VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT | VXT_FIELD_ERROR |
		     VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_LOST_COUNT;

	if (m->lba)
		f |= VXT_FIELD_SECTOR;
	if (m->view.match && !m->view.spec_on)
		f |= count_fields(m);
	return f;
}

static void rebin_chunk(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_chunk_info *ci = vxt_reader_chunk(m->rd, i);
	const struct vxt_event *evs;
	bool index_ok = !m->view.match && !m->view.spec_on;
	bool tl_exact = index_ok && vxt_timeline_chunk_exact(&m->tl, ci);
	unsigned extra = vr_extra_needs(m, ci, index_ok);

	if (j->index_late && index_ok) {	/* what vr_model_rebin() left to the job */
		if (tl_exact)
			vxt_timeline_add_chunk(&m->tl, ci);
		vr_extra_index_part(m, ci, false);
	}
	if (!tl_exact || extra) {
		/* from the index, only a few chunks need decoding */
		evs = index_ok ? vr_job_decode(m, i, rebin_fields(m), &n) :
				 vr_scan_chunk(m, VR_JOB_REBIN, i, rebin_fields(m), &n);
		if (!evs && !m->chunk_damaged) {
			job_error(m, j, "timeline");
			return;
		}
		uint32_t c = 0;

		if (!evs)
			n = 0;	/* damaged: a gap in the timeline, the job goes on */
		for (size_t k = 0; k < n; k++)
			if (shown(m, ci->first_event + k, &evs[k])) {
				if (!tl_exact)
					vxt_timeline_add(&m->tl, &evs[k]);
				if (extra)
					vr_extra_add(m, extra, &evs[k]);
				c++;
			}
		if (!evs)
			;
		else if (m->view.match && !m->view.spec_on && vxt_timeline_chunk_overlaps(&m->tl, ci) &&
		    ci->first_ns >= m->tl.t0 && ci->last_ns < m->tl.t1)
			vr_view_set_count(&m->view, i, c, evs, n);
		else if (m->view.match && !m->view.spec_on)
			vr_view_count(&m->view, i, evs, n);
	}
	if (j->next >= j->end) {
		j->active = false;
		m->tl_done = true;
		m->tl_show_est = false;
		vr_lba_binned(m);
	}
	m->hm_dirty = true;
}

/* True when the re-binning job will still decode chunk @i (and count it). */
static bool rebin_will_count(const struct vr_model *m, size_t i)
{
	const struct vr_job *r = &m->job[VR_JOB_REBIN];

	return r->active && m->view.match && !m->view.spec_on && i >= r->next && i < r->end;
}

/* One chunk of the count; chunks the re-binning will decode anyway are left
 * to it, and the job goes round until every chunk is counted.
 * @return true when a chunk was decoded. */
static bool count_chunk(struct vr_model *m, struct vr_job *j)
{
	size_t i, n;
	const struct vxt_event *evs;

	if (m->view.known >= m->view.nchunks || !m->view.match) {
		j->active = false;
		return true;
	}
	if (j->next >= j->end)
		j->next = 0;
	i = j->next++;
	if (i >= m->view.nchunks || m->view.chunk_match[i] != VR_UNKNOWN ||
	    rebin_will_count(m, i)) {
		/* a whole round with nothing to do: wait for the re-binning */
		if (j->next == j->end && m->view.known < m->view.nchunks)
			return true;
		return false;
	}
	evs = vr_scan_chunk(m, VR_JOB_COUNT, i, count_fields(m), &n);
	if (!evs && m->chunk_damaged) {
		vr_view_set_count(&m->view, i, 0, NULL, 0);	/* damaged: nothing of it shown */
		return true;
	}
	if (!evs) {
		job_error(m, j, "count");
		return true;
	}
	vr_view_count(&m->view, i, evs, n);
	return true;
}

static void export_event(struct vr_model *m, const struct vxt_event *ev)
{
	if (m->export_json) {
		fputs(m->export_first ? "\n" : ",\n", m->export_f);
		report_json_event(m->export_f, m->jrd, ev, m->t_first);
	} else {
		report_csv_row(m->export_f, m->jrd, ev, m->t_first);
		fputc('\n', m->export_f);
	}
	m->export_first = false;
	m->export_rows++;
}

static void export_finish(struct vr_model *m, struct vr_job *j)
{
	int bad;

	j->active = false;
	if (m->export_json)
		fputs(m->export_first ? "[]\n" : "\n]\n", m->export_f);
	bad = ferror(m->export_f);
	if (fclose(m->export_f) != 0)
		bad = 1;
	m->export_f = NULL;
	if (bad) {
		snprintf(m->note, sizeof(m->note), "export to %s failed: %s", m->export_path,
			 strerror(errno));
		m->note_error = true;
		return;
	}
	snprintf(m->note, sizeof(m->note), "exported %llu events to %s",
		 (unsigned long long)m->export_rows, m->export_path);
	m->note_error = false;
}

static void export_chunk(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_chunk_info *ci = vxt_reader_chunk(m->rd, i);
	const struct vxt_event *evs;

	if (ci->nevents && ci->last_ns >= m->w0 && ci->first_ns < m->w1) {
		evs = vxt_reader_chunk_events(m->jrd, i, &n);
		if (!evs) {
			job_error(m, j, "export");
			fclose(m->export_f);
			m->export_f = NULL;
			return;
		}
		for (size_t k = 0; k < n; k++)
			if (evs[k].time_ns >= m->w0 && evs[k].time_ns < m->w1 &&
			    shown(m, ci->first_event + k, &evs[k]))
				export_event(m, &evs[k]);
	}
	if (j->next >= j->end)
		export_finish(m, j);
}

static void export_spec_step(struct vr_model *m, struct vr_job *j)
{
	const struct vr_spec_set *s = &m->view.spec;
	const struct vxt_event *ev;

	for (int k = 0; k < 4096 && j->spec_pos < s->n; k++, j->spec_pos++) {
		if (vxt_reader_seek_ordinal(m->jrd, s->ord[j->spec_pos]) < 0 ||
		    vxt_reader_next(m->jrd, &ev) != 1)
			continue;
		if (ev->time_ns >= m->w0 && ev->time_ns < m->w1)
			export_event(m, ev);
	}
	if (j->spec_pos >= s->n)
		export_finish(m, j);
}

int vr_model_export(struct vr_model *m, const char *path, bool replace)
{
	struct vr_job *j = &m->job[VR_JOB_EXPORT];
	struct vxt_outfile_opts oo = { .force = replace, .input = m->path };
	char err[VXT_ERRBUF_SIZE];
	size_t len = strlen(path);
	bool created;
	int fd;

	if (j->active) {
		snprintf(m->note, sizeof(m->note), "an export is already running");
		m->note_error = true;
		return -EBUSY;
	}
	fd = vxt_outfile_open(path, &oo, &created, err, sizeof(err));
	m->export_f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!m->export_f) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		else if (e == EEXIST)
			return -EEXIST;	/* the caller asks before replacing */
		snprintf(m->note, sizeof(m->note), "cannot write %s", fd >= 0 ? path : err);
		m->note_error = true;
		return -e;
	}
	snprintf(m->export_path, sizeof(m->export_path), "%s", path);
	m->export_json = len >= 5 && !strcmp(path + len - 5, ".json");
	m->export_first = true;
	m->export_rows = 0;
	if (m->export_json)
		fputc('[', m->export_f);
	else
		report_csv_header(m->export_f);
	*j = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
	if (!m->view.spec_on && j->end == 0)
		export_finish(m, j);
	return 0;
}

/* One chunk of the per-process count. */
static void procs_chunk(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_chunk_info *ci = vxt_reader_chunk(m->rd, i);
	const struct vxt_event *evs;
	unsigned f = VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT | VXT_FIELD_ERROR |
		     VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_PID | VXT_FIELD_COMM;

	if (ci->nevents && ci->last_ns >= m->procs_w0 && ci->first_ns < m->procs_w1) {
		evs = vr_scan_chunk(m, VR_JOB_PROCS, i, f | (m->view.spec_on ? 0 : count_fields(m)), &n);
		if (!evs && !m->chunk_damaged) {
			job_error(m, j, "processes");
			return;
		}
		for (size_t k = 0; evs && k < n; k++)
			if (evs[k].time_ns >= m->procs_w0 && evs[k].time_ns < m->procs_w1 &&
			    evs[k].phase == VXT_PH_DONE && shown(m, ci->first_event + k, &evs[k]) &&
			    vr_procs_add(&m->procs, &evs[k]) < 0) {
				snprintf(m->note, sizeof(m->note), "processes: out of memory");
				m->note_error = true;
				j->active = false;
				return;
			}
	}
	if (j->next >= j->end) {
		j->active = false;
		m->procs_done = true;
	}
	if (!j->active || j->next % 16 == 0)
		vr_procs_sort(&m->procs);
}

void vr_model_procs_start(struct vr_model *m)
{
	if (m->procs_done && m->procs_w0 == m->w0 && m->procs_w1 == m->w1)
		return;
	vr_scan_stop(m, VR_JOB_PROCS);
	vr_procs_clear(&m->procs);
	m->procs_w0 = m->w0;
	m->procs_w1 = m->w1;
	m->procs_done = false;
	m->job[VR_JOB_PROCS] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
	if (!m->job[VR_JOB_PROCS].end) {
		m->job[VR_JOB_PROCS].active = false;
		m->procs_done = true;
	}
}

bool vr_model_busy(const struct vr_model *m)
{
	for (int k = 0; k < VR_JOB_KINDS; k++)
		if (m->job[k].active)
			return true;
	return false;
}

bool vr_model_step(struct vr_model *m)
{
	uint64_t deadline = vxt_now_mono() + VR_STEP_NS;
	bool any;

	if (!vr_model_job_reader(m)) {
		vr_model_cancel(m);
		return true;
	}
	do {
		any = false;
		if (m->job[VR_JOB_INDEX].active) {
			vr_model_index_step(m);
			any = true;
		}
		if (m->job[VR_JOB_REBIN].active) {
			rebin_chunk(m, &m->job[VR_JOB_REBIN]);
			any = true;
		}
		if (m->job[VR_JOB_COUNT].active) {
			/* skip known chunks without spending a turn */
			while (m->job[VR_JOB_COUNT].active && !count_chunk(m, &m->job[VR_JOB_COUNT]))
				;
			any = true;
		}
		if (m->job[VR_JOB_SPEC].active) {
			vr_spec_step(m, &m->job[VR_JOB_SPEC]);
			any = true;
		}
		if (m->job[VR_JOB_PROCS].active) {
			procs_chunk(m, &m->job[VR_JOB_PROCS]);
			any = true;
		}
		if (m->job[VR_JOB_PAIR].active) {
			vr_pair_step(m, &m->job[VR_JOB_PAIR]);
			any = true;
		}
		if (m->job[VR_JOB_IVS].active) {
			vr_ivs_step(m, &m->job[VR_JOB_IVS]);
			any = true;
		}
		if (m->job[VR_JOB_AGG].active) {
			vr_script_agg_step(m, &m->job[VR_JOB_AGG]);
			any = true;
		}
		if (m->job[VR_JOB_EXPORT].active) {
			if (m->view.spec_on)
				export_spec_step(m, &m->job[VR_JOB_EXPORT]);
			else
				export_chunk(m, &m->job[VR_JOB_EXPORT]);
			any = true;
		}
	} while (any && vxt_now_mono() < deadline);
	vr_scan_stop_idle(m);
	/* a new filter found nothing near the cursor at first: show what the
	 * count has found since */
	if (!m->has_sel && m->view.shown && !m->view.spec_on && m->view.match)
		for (size_t i = 0; i < m->view.nchunks; i++)
			if (m->view.chunk_match[i] != VR_UNKNOWN && m->view.chunk_match[i]) {
				vr_model_goto_ord(m, vxt_reader_chunk_fixed(m->rd, i)->first_event);
				break;
			}
	return true;
}

void vr_model_cancel(struct vr_model *m)
{
	if (m->job[VR_JOB_EXPORT].active && m->export_f) {
		fclose(m->export_f);
		m->export_f = NULL;
		remove(m->export_path);
	}
	if (m->job[VR_JOB_SPEC].active) {
		vr_model_spec_reset(m);
		vr_model_reseat(m);
	}
	/* the estimate is the index's whole, as with a small file */
	vr_model_index_finish(m);
	for (int k = 0; k < VR_JOB_KINDS; k++)
		m->job[k].active = false;
	vr_scan_stop_all(m);
	/* an unfinished timeline stays as far as it got */
	m->tl_show_est = false;
	m->hm_dirty = true;
}

const char *vr_model_progress(const struct vr_model *m, char *buf, size_t size)
{
	static const char *const names[VR_JOB_KINDS] = {
		[VR_JOB_REBIN] = "binning", [VR_JOB_COUNT] = "counting",
		[VR_JOB_SPEC] = "speculating", [VR_JOB_EXPORT] = "exporting",
		[VR_JOB_PROCS] = "processes", [VR_JOB_AGG] = "aggregating",
		[VR_JOB_PAIR] = "pairing phases", [VR_JOB_IVS] = "pairing intervals",
		[VR_JOB_INDEX] = "reading the index",
	};

	for (int k = VR_JOB_KINDS - 1; k >= 0; k--) {
		const struct vr_job *j = &m->job[k];
		size_t span = j->end > j->begin ? j->end - j->begin : 1;

		size_t done = j->next - j->begin;

		if (!j->active)
			continue;
		if (k == VR_JOB_COUNT) {
			/* the count goes round the file and leaves chunks to the
			 * re-binning: its progress is what is known */
			done = m->view.known;
			span = m->view.nchunks ? m->view.nchunks : 1;
		}
		snprintf(buf, size, "%s %zu%%", names[k], done * 100 / span);
		return buf;
	}
	return NULL;
}
