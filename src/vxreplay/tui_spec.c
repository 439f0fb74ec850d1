/* tui_spec.c - the speculation view: which events a speculation commits
 *
 * A pass over the whole file through the speculation engine (vxtrace/spec.h)
 * on the job reader, one chunk per step. Every event is pushed, so the
 * engine's input ordinal is the file ordinal; committed events are kept by
 * ordinal (at most VR_SPEC_MAX) with their speculation, and each group
 * remembers its first failed I/O as the event that committed it.
 * Without a profile the rules are the context shorthand: the I/O on the same
 * object within VR_SPEC_CONTEXT before and after each error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_model.h"

#define VR_SPEC_CONTEXT 50000000ull	/* 50 ms */

void vr_spec_step(struct vr_model *m, struct vr_job *j);

#if __has_include("vxtrace/spec.h")
#include "vxtrace/spec.h"

static int grow(struct vr_spec_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 4096;
	uint64_t *o;
	uint32_t *g;

	o = realloc(s->ord, cap * sizeof(*o));
	if (!o)
		return -ENOMEM;
	s->ord = o;
	g = realloc(s->group, cap * sizeof(*g));
	if (!g)
		return -ENOMEM;
	s->group = g;
	s->cap = cap;
	return 0;
}

/* Group numbers are dense from 0 in order of first output. */
static long group_of(struct vr_spec_set *s, uint64_t spec_id, uint64_t *last_id)
{
	if (s->ngroups && *last_id == spec_id)
		return (long)s->ngroups - 1;
	if (s->ngroups == s->gcap) {
		size_t cap = s->gcap ? s->gcap * 2 : 256;
		uint64_t *t = realloc(s->trigger, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		s->trigger = t;
		s->gcap = cap;
	}
	s->trigger[s->ngroups] = UINT64_MAX;
	*last_id = spec_id;
	return (long)s->ngroups++;
}

static uint64_t last_spec_id;

static int take(struct vr_model *m, const struct vxt_spec_event *out)
{
	struct vr_spec_set *s = &m->view.spec;
	long g;

	if (s->n == VR_SPEC_MAX) {
		s->truncated = true;
		return 0;
	}
	if (s->n == s->cap && grow(s) < 0)
		return -ENOMEM;
	g = group_of(s, out->spec, &last_spec_id);
	if (g < 0)
		return (int)g;
	if (out->ev.error && s->trigger[g] == UINT64_MAX)
		s->trigger[g] = out->seq;
	s->ord[s->n] = out->seq;
	s->group[s->n] = (uint32_t)g;
	s->n++;
	return 0;
}

static void drain(struct vr_model *m)
{
	struct vxt_spec_event out;

	while (vxt_spec_next(m->spec, &out) == 1)
		if (take(m, &out) < 0) {
			snprintf(m->note, sizeof(m->note), "speculation view: out of memory");
			m->note_error = true;
			return;
		}
}

static void finish(struct vr_model *m, struct vr_job *j)
{
	struct vxt_spec_stats st;
	char probs[256];
	char *nl;

	vxt_spec_finish(m->spec);
	drain(m);
	vxt_spec_get_stats(m->spec, &st);
	vxt_spec_format_problems(&st, probs, sizeof(probs));
	while ((nl = strchr(probs, '\n')))
		*nl = nl[1] ? ';' : 0;
	snprintf(m->view.spec.summary, sizeof(m->view.spec.summary),
		 "%s: %" PRIu64 " committed, %" PRIu64 " discarded, %zu events%s%s%s",
		 m->spec_name, st.committed, st.discarded, m->view.spec.n, m->view.spec.truncated ? " (first ones)" : "",
		 probs[0] ? "; " : "", probs);
	vxt_spec_free(m->spec);
	m->spec = NULL;
	j->active = false;
	m->spec_done = true;
	vr_model_rebin(m);
	vr_model_reseat(m);
}

void vr_spec_step(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (i < j->end) {
		evs = vxt_reader_chunk_events(m->jrd, i, &n);
		if (!evs) {
			snprintf(m->note, sizeof(m->note), "speculation: %s", vxt_reader_error(m->jrd));
			m->note_error = true;
			n = 0;
		}
		for (size_t k = 0; k < n; k++) {
			vxt_spec_push(m->spec, &evs[k]);
			drain(m);
		}
		snprintf(m->view.spec.summary, sizeof(m->view.spec.summary),
			 "%s: running, %zu events so far", m->spec_name, m->view.spec.n);
	}
	if (j->next >= j->end)
		finish(m, j);
}

int vr_model_spec_start(struct vr_model *m)
{
	struct vxt_spec_config cfg;
	char err[VXT_ERRBUF_SIZE];

	m->view.spec_on = true;
	if (m->spec_done || m->job[VR_JOB_SPEC].active)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	if (m->spec_cfg) {
		cfg = *(const struct vxt_spec_config *)m->spec_cfg;
	} else {
		vxt_spec_config_context(&cfg, VXT_SPEC_KEY_OBJECT, VR_SPEC_CONTEXT, VR_SPEC_CONTEXT,
					"error");
		snprintf(m->spec_name, sizeof(m->spec_name), "errors-in-context");
	}
	m->spec = vxt_spec_new(&cfg, vxt_reader_objects(m->jrd), vxt_reader_strings(m->jrd), err);
	if (!m->spec) {
		snprintf(m->note, sizeof(m->note), "%s", err);
		m->note_error = true;
		m->view.spec_on = false;
		return -EINVAL;
	}
	vxt_spec_set_time_base(m->spec, m->t_first);
	vr_spec_clear(&m->view.spec);
	last_spec_id = 0;
	m->job[VR_JOB_SPEC] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->jrd) };
	snprintf(m->view.spec.summary, sizeof(m->view.spec.summary), "%s: running", m->spec_name);
	return 0;
}

void vr_model_spec_reset(struct vr_model *m)
{
	if (m->spec) {
		vxt_spec_free(m->spec);
		m->spec = NULL;
	}
	m->job[VR_JOB_SPEC].active = false;
	m->spec_done = false;
	m->view.spec_on = false;
	vr_spec_clear(&m->view.spec);
}
#else
int vr_model_spec_start(struct vr_model *m)
{
	snprintf(m->note, sizeof(m->note), "speculation is not available in this build");
	m->note_error = true;
	return -ENOTSUP;
}

void vr_spec_step(struct vr_model *m, struct vr_job *j)
{
	(void)m;
	j->active = false;
}

void vr_model_spec_reset(struct vr_model *m)
{
	m->view.spec_on = false;
	vr_spec_clear(&m->view.spec);
}
#endif
