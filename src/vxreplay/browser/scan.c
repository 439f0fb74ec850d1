/* scan.c - the browser's jobs read chunks decoded ahead on helper threads
 *
 * A job that walks chunks in order (re-binning, counting a filter, the
 * speculation pass) takes them from a scanner (vxt_scan_*, vxt.h) on the job
 * reader: helper threads decompress and decode the next chunks while the
 * main thread bins or filters the current one, and only the fields the job
 * reads are decoded. A job that jumps (a new window, a known stretch skipped)
 * restarts its scanner where it goes on. Scanners end with their job, on Esc,
 * and before the file is re-read. A job that decodes only a few chunks here
 * and there (binning where the index is not exact) decodes them itself:
 * reading ahead would decode chunks it skips.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "browser/model.h"

#define VR_SCAN_GAP 4	/* chunks a job may skip without restarting its scanner */

void vr_scan_stop(struct vr_model *m, int kind)
{
	struct vr_scan *s = &m->scan[kind];

	vxt_scan_stop(s->scan);
	s->scan = NULL;
}

void vr_scan_stop_all(struct vr_model *m)
{
	for (int k = 0; k < VR_JOB_KINDS; k++)
		vr_scan_stop(m, k);
}

void vr_scan_stop_idle(struct vr_model *m)
{
	for (int k = 0; k < VR_JOB_KINDS; k++)
		if (!m->job[k].active && m->scan[k].scan)
			vr_scan_stop(m, k);
}

static int restart(struct vr_model *m, int kind, size_t i, unsigned fields)
{
	struct vr_scan *s = &m->scan[kind];

	vr_scan_stop(m, kind);
	s->scan = vxt_scan_start(m->jrd, i, fields, vxt_scan_default_threads());
	if (!s->scan)
		return -ENOMEM;
	s->next = i;
	s->fields = fields;
	return 0;
}

void vr_note_damage(struct vr_model *m, size_t i, const char *msg)
{
	m->chunk_damaged = true;
	vr_view_set_damaged(&m->view, i);
	if (i + 1 <= m->damage_said)
		return;
	m->ndamaged++;
	m->damage_said = i + 1;
	snprintf(m->note, sizeof(m->note), "%s; skipped", msg);
	m->note_error = true;
}

const struct vxt_event *vr_scan_chunk(struct vr_model *m, int kind, size_t i, unsigned fields,
				      size_t *n)
{
	struct vr_scan *s = &m->scan[kind];
	const struct vxt_event *ev;
	size_t c;
	int rc;

	if (!s->scan || s->fields != fields || i < s->next || i > s->next + VR_SCAN_GAP)
		if (restart(m, kind, i, fields) < 0)
			goto nomem;
	m->chunk_damaged = false;
	for (;;) {
		rc = vxt_scan_next(s->scan, &c, &ev, n);
		if (rc == 0 && s->next <= i) {
			/* the file grew since the scanner started */
			if (restart(m, kind, i, fields) < 0)
				goto nomem;
			rc = vxt_scan_next(s->scan, &c, &ev, n);
		}
		if (rc == -EBADMSG) {
			/* a damaged chunk: the job skips it, the scanner goes on */
			s->next = c + 1;
			if (c != i)
				continue;
			vr_note_damage(m, c, vxt_scan_error(s->scan));
			return NULL;
		}
		if (rc <= 0)
			break;
		s->next = c + 1;
		if (c == i)
			return ev;
	}
	snprintf(m->note, sizeof(m->note), "%s",
		 rc < 0 ? vxt_scan_error(s->scan) : "chunk beyond the end of the file");
	m->note_error = true;
	vr_scan_stop(m, kind);
	return NULL;
nomem:
	snprintf(m->note, sizeof(m->note), "out of memory");
	m->note_error = true;
	return NULL;
}

const struct vxt_event *vr_job_decode(struct vr_model *m, size_t i, unsigned fields, size_t *n)
{
	const struct vxt_event *ev;

	m->chunk_damaged = false;
	vxt_reader_set_fields(m->jrd, fields);
	ev = vxt_reader_chunk_events(m->jrd, i, n);
	if (!ev && !strstr(vxt_reader_error(m->jrd), "out of memory")) {
		vr_note_damage(m, i, vxt_reader_error(m->jrd));
		vxt_reader_set_fields(m->jrd, VXT_FIELD_ALL);
		return NULL;
	}
	/* every field again for the reader's other users (export, the detail's
	 * I/O pairing); the events stay until the reader decodes again */
	vxt_reader_set_fields(m->jrd, VXT_FIELD_ALL);
	if (!ev) {
		snprintf(m->note, sizeof(m->note), "%s", vxt_reader_error(m->jrd));
		m->note_error = true;
	}
	return ev;
}
