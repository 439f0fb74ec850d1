/* spec.c - the speculation view: which events a speculation commits
 *
 * A pass over the whole file through the speculation engine (vxtrace/spec.h)
 * on the job reader, one chunk per step. Every event is pushed, so the
 * engine's input ordinal is the file ordinal; committed events are kept by
 * ordinal (at most VR_SPEC_MAX) with their speculation, and each group
 * remembers its first failed I/O as the event that committed it.
 * The rules are the applied profile's; without one (or when it has none)
 * they are those of the shipped errors-in-context profile
 * (formats/profiles/errors-in-context.yaml), found on the profile path. Events go through the
 * browser's filter first (filter, then speculation, as formats/profile.md
 * says), so a new filter starts a new pass.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser/model.h"
#include "browser/script.h"

#include "vxtrace/pipeline.h"
#include "vxtrace/profile.h"
#include "vxtrace/spec.h"
#include "vxtrace/view.h"
#include "vxtrace/util.h"

static int grow(struct vr_spec_set *s)
{
	/* two arrays of one length: each grows from the length they share */
	size_t ocap = s->cap, gcap = s->cap;

	if (vxt_grow(&s->ord, &ocap, s->cap + 1, sizeof(*s->ord)) < 0 ||
	    vxt_grow(&s->group, &gcap, s->cap + 1, sizeof(*s->group)) < 0)
		return -ENOMEM;
	s->cap = gcap;
	return 0;
}

/* Group numbers are dense from 0 in order of first output. Outputs of
 * different speculations interleave (they overlap in time), so an id is
 * looked up among the recent groups. */
static long group_of(struct vr_spec_set *s, uint64_t spec_id)
{
	for (size_t k = s->ngroups, n = 0; k-- > 0 && n < 256; n++)
		if (s->spec_id[k] == spec_id)
			return (long)k;
	if (s->ngroups == s->gcap) {
		size_t cap = s->gcap ? s->gcap * 2 : 256;
		uint64_t *t = realloc(s->trigger, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		s->trigger = t;
		t = realloc(s->spec_id, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->spec_id = t;
		s->gcap = cap;
	}
	s->trigger[s->ngroups] = UINT64_MAX;
	s->spec_id[s->ngroups] = spec_id;
	return (long)s->ngroups++;
}

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
	g = group_of(s, out->spec);
	if (g < 0)
		return (int)g;
	if (out->ev.error && s->trigger[g] == UINT64_MAX)
		s->trigger[g] = out->seq;
	if (out->spec)
		s->by_commit++;
	else
		s->traced++;
	s->ord[s->n] = out->seq;
	s->group[s->n] = (uint32_t)g;
	s->n++;
	return 0;
}

/* The pipeline's sink. */
static int take_out(void *m, const struct vxt_spec_event *out)
{
	return take(m, out);
}

static void oom(struct vr_model *m)
{
	snprintf(m->note, sizeof(m->note), "speculation view: out of memory");
	m->note_error = true;
}

static void push(struct vr_model *m, const struct vxt_event *evs, size_t n)
{
	if (vxt_pipeline_push(m->specv, evs, n, VXT_PIPE_NO_ORDINAL, take_out, m) < 0)
		oom(m);
}

/* End of input. @return the engine's counts in @st, @vs. */
static void end_pass(struct vr_model *m, struct vxt_spec_stats *st, struct vxt_view_stats *out)
{
	struct vxt_view_stats vs;

	if (vxt_pipeline_finish(m->specv, take_out, m) < 0)
		oom(m);
	vxt_view_get_stats(m->specv, &vs);
	*st = vs.spec;
	*out = vs;
	vxt_view_free(m->specv);
	m->specv = NULL;
}

static void finish(struct vr_model *m, struct vr_job *j)
{
	const struct vr_spec_set *s = &m->view.spec;
	struct vxt_spec_stats st;
	struct vxt_view_stats vs;
	char probs[256], refused[64] = "";
	uint64_t after;
	char *nl;

	end_pass(m, &st, &vs);
	vxt_spec_format_problems(&st, probs, sizeof(probs));
	while ((nl = strchr(probs, '\n')))
		*nl = nl[1] ? ';' : 0;
	if (vs.filtered_out)
		snprintf(refused, sizeof(refused), ", %" PRIu64 " refused by the filter",
			 vs.filtered_out);
	/* every figure is explained by its neighbours: what was kept is what
	 * the committed buffers held, what came after their triggers (the
	 * same speculation's id) and what was traced directly */
	after = s->by_commit > st.committed_events ? s->by_commit - st.committed_events : 0;
	snprintf(m->view.spec.summary, sizeof(m->view.spec.summary),
		 "%s: %" PRIu64 " committed, %" PRIu64 " discarded; %zu of %" PRIu64
		 " events kept%s = %" PRIu64 " from the committed buffers + %" PRIu64
		 " after their triggers + %" PRIu64 " traced%s%s%s",
		 m->spec_name, st.committed, st.discarded, s->n, vs.events_in, refused,
		 s->by_commit - after, after, s->traced, s->truncated ? " (the first ones)" : "",
		 probs[0] ? "; " : "", probs);
	j->active = false;
	m->spec_done = true;
	vr_model_rebin(m);
	vr_model_reseat(m);
}

void vr_spec_step(struct vr_model *m, struct vr_job *j)
{
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (m->script) {	/* a D script's pass (script.c) */
		j->next--;
		vr_script_spec_step(m, j);
		return;
	}
	if (i < j->end) {
		evs = vr_scan_chunk(m, VR_JOB_SPEC, i, VXT_FIELD_ALL | VXT_FIELD_LOST_COUNT, &n);
		if (!evs) {
			char why[sizeof(m->note) - 16];

			snprintf(why, sizeof(why), "%.*s", (int)sizeof(why) - 1, m->note);
			snprintf(m->note, sizeof(m->note), "speculation: %s", why);
			m->note_error = true;
			n = 0;
		}
		if (evs)
			push(m, evs, n);
		snprintf(m->view.spec.summary, sizeof(m->view.spec.summary),
			 "%s: running, %zu events so far", m->spec_name, m->view.spec.n);
	}
	if (j->next >= j->end)
		finish(m, j);
}

/* The pipeline of the applied profile, or of errors-in-context. */
static int open_view(struct vr_model *m, char *err)
{
	const struct vxt_profile *p = m->prof;
	struct vxt_profile rules;

	if (!p || !p->has_spec) {
		if (!m->spec_prof)
			m->spec_prof = vxt_profile_open("errors-in-context", m->profile_dir, err);
		if (!m->spec_prof)
			return -EINVAL;
		p = m->spec_prof;
	}
	/* filter, then speculation (formats/profile.md): the filter is the
	 * browser's, which starts as the profile's and / replaces */
	rules = *p;
	rules.filter = NULL;
	m->specv = vxt_view_new(&rules, m->filter_src[0] ? m->filter_src : NULL,
				vxt_reader_objects(m->rd), vxt_reader_strings(m->rd), err);
	if (!m->specv)
		return -EINVAL;
	vxt_view_set_time_base(m->specv, m->t_first);
	snprintf(m->spec_name, sizeof(m->spec_name), "%s", p->name);
	return 0;
}

int vr_model_spec_start(struct vr_model *m)
{
	char err[VXT_ERRBUF_SIZE];

	if (m->script)
		return vr_script_spec_start(m);
	m->view.spec_on = true;
	if (m->spec_done || m->job[VR_JOB_SPEC].active)
		return 0;
	if (open_view(m, err) < 0) {
		snprintf(m->note, sizeof(m->note), "%s", err);
		m->note_error = true;
		m->view.spec_on = false;
		return -EINVAL;
	}
	vr_spec_clear(&m->view.spec);
	m->job[VR_JOB_SPEC] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
	snprintf(m->view.spec.summary, sizeof(m->view.spec.summary), "%s: running", m->spec_name);
	return 0;
}

void vr_model_spec_reset(struct vr_model *m)
{
	vxt_view_free(m->specv);
	m->specv = NULL;
	vxt_profile_free(m->spec_prof);
	m->spec_prof = NULL;
	vr_script_spec_reset(m);
	m->job[VR_JOB_SPEC].active = false;
	m->spec_done = false;
	m->view.spec_on = false;
	vr_spec_clear(&m->view.spec);
}
