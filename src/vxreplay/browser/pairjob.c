/* pairjob.c - the browser's pairing job: every I/O's phases (ioph.h)
 *
 * When the trace holds queue-side phases (some chunk's index counts events
 * beyond issues, completions and lost records), one stepped pass over the
 * whole file on the job reader pairs each completion with its own queue,
 * getrq, insert and issue; the I/O listing's and the event list's interval
 * columns, and the timeline's Q2C / D2C metrics, read the rows from it. A
 * capture of issue and completion alone needs no pass: D2C is each
 * completion's latency, and the queue-side intervals are not captured.
 * The pass pairs every event, whatever the filter shows (the filter picks
 * rows, not phases).
 */
#include <stdio.h>
#include <string.h>

#include "browser/model.h"
#include "browser/pairjob.h"

#include "vxtrace/pairer.h"


bool vr_model_queue_side(const struct vr_model *m)
{
	if (m->queue_side)
		return true;
	/* the pieces before qs_pieces were looked at when the rows were picked */
	for (size_t i = m->qs_pieces; i < vxt_reader_npieces(m->rd); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_piece(m->rd, i);
		uint64_t known = 0;

		for (uint32_t k = 0; k < ci->nobjagg; k++) {
			known += ci->objagg[k].starts;
			for (int op = 0; op < VXT_OP_COUNT; op++)
				known += ci->objagg[k].ios[op];
		}
		if (ci->nevents > known + ci->nlost)
			return true;
	}
	return false;
}

void vr_pair_want(struct vr_model *m)
{
	if (m->pair_state == VR_PAIR_RUNNING)	/* cancelled: go on */
		m->job[VR_JOB_PAIR].active = true;
	if (m->pair_state != VR_PAIR_NONE)
		return;
	if (!vr_model_queue_side(m)) {
		m->pair_state = VR_PAIR_ISSUE_ONLY;
		return;
	}
	if (vr_ioph_init(&m->ioph) < 0) {
		snprintf(m->note, sizeof(m->note), "pairing the phases: out of memory");
		m->note_error = true;
		m->pair_state = VR_PAIR_ISSUE_ONLY;
		return;
	}
	m->pair_state = VR_PAIR_RUNNING;
	m->job[VR_JOB_PAIR] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
}

void vr_pair_step(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (i < j->end) {
		evs = vr_scan_chunk(m, VR_JOB_PAIR, i, VXT_PAIRER_FIELDS, &n);
		for (size_t k = 0; evs && k < n; k++)
			if (vr_ioph_push(&m->ioph, &evs[k],
					 vxt_reader_chunk_fixed(m->rd, i)->first_event + k) < 0) {
				snprintf(m->note, sizeof(m->note), "pairing the phases: out of memory");
				m->note_error = true;
				break;
			}
	}
	if (j->next < j->end)
		return;
	j->active = false;
	m->pair_state = VR_PAIR_DONE;
	if (m->ioph.full)
		snprintf(m->note, sizeof(m->note), "phases paired for the first %u completed I/Os",
			 VR_IOPH_MAX);
	vr_model_rebin(m);	/* the timeline's Q2C / D2C metrics */
}

void vr_pair_grow(struct vr_model *m, size_t first)
{
	struct vr_job *j = &m->job[VR_JOB_PAIR];

	if (m->pair_state == VR_PAIR_ISSUE_ONLY) {
		m->pair_state = VR_PAIR_NONE;	/* queue-side phases may come now */
		return;
	}
	if (m->pair_state == VR_PAIR_NONE)
		return;
	if (!j->active)
		*j = (struct vr_job){ .active = true, .next = first, .begin = first };
	j->end = vxt_reader_nchunks(m->rd);
	m->pair_state = VR_PAIR_RUNNING;
}

void vr_pair_reset(struct vr_model *m)
{
	if (m->pair_state == VR_PAIR_RUNNING || m->pair_state == VR_PAIR_DONE)
		vr_ioph_free(&m->ioph);
	m->job[VR_JOB_PAIR].active = false;
	m->pair_state = VR_PAIR_NONE;
}

int vr_pair_get(const struct vr_model *m, uint64_t ord, const struct vxt_event *ev,
		struct vr_ioph_row *out)
{
	const struct vr_ioph_row *r;

	if (ev->phase != VXT_PH_DONE)
		return 0;
	if (m->pair_state == VR_PAIR_ISSUE_ONLY || m->pair_state == VR_PAIR_NONE) {
		memset(out, 0, sizeof(*out));
		out->ord = ord;
		if (ev->latency_ns && ev->latency_ns <= ev->time_ns)
			out->t[VR_PH_D] = ev->time_ns - ev->latency_ns;
		return 1;
	}
	if (ord >= m->ioph.through)
		return -1;	/* not paired yet */
	r = vr_ioph_find(&m->ioph, ord);
	if (!r)
		return 0;
	*out = *r;
	return 1;
}
