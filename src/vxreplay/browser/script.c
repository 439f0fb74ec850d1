/* script.c - the browser's D scripts: speculation view and aggregations
 *
 * Applying a script compiles it once to report its errors; each pass then
 * compiles its own engine. The speculation pass pushes every event the
 * browser's filter shows (lost records always, as vxreplay --script does),
 * with its file ordinal, over the whole file; what reaches the principal
 * buffer is kept by ordinal with its speculation id, and at the end sorted
 * into the view's committed set (a commit delivers older events late), each
 * speculation one group whose trigger is its first failed I/O. The header
 * gets every counter of the engine in DTrace's words.
 *
 * The aggregation pass pushes the events of the visible window through the
 * filter, then runs END: the text the aggregations print there (printa's
 * layout, quantize's ASCII distributions) is the panel's. A new window or
 * filter starts a new pass when the panel is drawn.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser/ivfilter.h"
#include "browser/script.h"

#include "vxtrace/filter.h"
#include "vxtrace/profile.h"
#include "vxtrace/script.h"
#include "vxtrace/util.h"

struct kept {
	uint64_t ord, spec;
	bool failed;		/* a failed completion */
};

struct vr_script {
	char path[VXT_PROFILE_PATH_MAX];
	char name[64];			/* "io-errors.d" */
	/* the speculation pass */
	struct vxt_script *spec;
	struct kept *kept;
	size_t nkept, cap;
	bool kept_oom;
	uint64_t considered;
	/* the aggregation pass */
	struct vxt_script *agg;
	bool agg_on, agg_done, agg_end;	/* shown / complete / in END */
	uint64_t agg_w0, agg_w1;
	char agg_filter[256];
	char *agg_text;
	size_t agg_len;
	bool agg_cut;
};

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcmp(s + n - k, suf);
}

bool vr_script_is_name(const char *name)
{
	return name && (ends_with(name, ".d") || ends_with(name, ".bt"));
}

const char *vr_script_applied(const struct vr_model *m)
{
	return m->script ? m->script->name : NULL;
}

/* A name "NAME.d" (or bpftrace's "NAME.bt") from the list is looked up on
 * the profile path, then as a file; a path is used as is. */
static int find(const struct vr_model *m, const char *name, char *path, size_t size,
		char err[VXT_ERRBUF_SIZE])
{
	char stem[64];
	size_t n = strlen(name);

	if (!strchr(name, '/') && ends_with(name, ".bt")) {
		char dirs[VXT_PROFILE_MAX_DIRS][VXT_PROFILE_PATH_MAX];
		int nd = vxt_profile_dirs(m->profile_dir, dirs, VXT_PROFILE_MAX_DIRS);

		for (int i = 0; i < nd; i++)
			if ((size_t)snprintf(path, size, "%s/%s", dirs[i], name) < size &&
			    access(path, R_OK) == 0)
				return 0;
	} else if (!strchr(name, '/') && n > 2 && n - 2 < sizeof(stem)) {
		memcpy(stem, name, n - 2);
		stem[n - 2] = 0;
		if (vxt_script_find(stem, m->profile_dir, path, size, err) == 0)
			return 0;
		if (access(name, R_OK) < 0)
			return -ENOENT;
	}
	return vxt_script_find(name, m->profile_dir, path, size, err);
}

static struct vxt_script *compile(const struct vr_script *sc, char *err, size_t errsz)
{
	char e[VXT_ERRBUF_SIZE];
	struct vxt_script *s = vxt_script_load(sc->path, NULL, 0, e);

	if (!s)
		snprintf(err, errsz, "%s", e);
	return s;
}

int vr_script_apply(struct vr_model *m, const char *name, char *err, size_t errsz)
{
	char e[VXT_ERRBUF_SIZE];
	struct vr_script *sc = calloc(1, sizeof(*sc));
	struct vxt_script *s;
	const char *base;

	if (!sc) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (find(m, name, sc->path, sizeof(sc->path), e) < 0) {
		snprintf(err, errsz, "%s", e);
		free(sc);
		return -1;
	}
	s = compile(sc, err, errsz);
	if (!s) {
		free(sc);
		return -1;
	}
	{			/* a bpftrace program's first load warning, for the message line */
		const struct vxt_file_info *in = vxt_reader_info(m->rd);
		const char *n = vxt_script_notes(s, (in->compat & VXT_COMPAT_PHASES) ||
						 !strcmp(in->source, "blktrace"));

		if (*n) {
			snprintf(m->note, sizeof(m->note), "%.*s", (int)strcspn(n, "\n"), n);
			m->note_error = false;
		}
	}
	vxt_script_free(s);
	if (vr_profile_apply(m, "", NULL, err, errsz) < 0) {
		free(sc);
		return -1;
	}
	base = strrchr(sc->path, '/');
	snprintf(sc->name, sizeof(sc->name), "%.63s", base ? base + 1 : sc->path);
	m->script = sc;
	memcpy(m->profile, sc->name, sizeof(m->profile));
	if (vr_model_spec_start(m) < 0) {
		snprintf(err, errsz, "%s", m->note);
		m->note[0] = 0;
		vr_script_drop(m);
		m->profile[0] = 0;
		return -1;
	}
	return 0;
}

void vr_script_drop(struct vr_model *m)
{
	struct vr_script *sc = m->script;

	if (!sc)
		return;
	vr_script_spec_reset(m);
	vr_script_agg_stop(m);
	free(sc->agg_text);
	free(sc);
	m->script = NULL;
}

/* ---- the listing ---- */

/* A script file: NAME.d, not hidden, its name shorter than 64 bytes. */
static bool script_file(const char *file, char name[VXT_PROFILE_NAME_MAX])
{
	if (!vr_script_is_name(file) || file[0] == '.' || strlen(file) >= 64)
		return false;
	snprintf(name, VXT_PROFILE_NAME_MAX, "%s", file);
	return true;
}

int vr_script_names(const struct vr_model *m, char (*names)[64], int max)
{
	return vxt_profile_list_files(m->profile_dir, script_file, names, max);
}

void vr_script_describe(const struct vr_model *m, const char *name, char *buf, size_t size)
{
	char e[VXT_ERRBUF_SIZE], path[VXT_PROFILE_PATH_MAX], line[512];
	FILE *f;

	if (!size)
		return;
	snprintf(buf, size, "(no description)");
	if (find(m, name, path, sizeof(path), e) < 0) {
		snprintf(buf, size, "%s", e);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		return;
	/* the header comment's first line "NAME.d - what it does", or a
	 * bpftrace tool's "// NAME.bt<tab>what it does" */
	for (int k = 0; k < 12 && fgets(line, sizeof(line), f); k++) {
		char *dash = strstr(line, ".d - "), *bt = strstr(line, ".bt\t");

		line[strcspn(line, "\n")] = 0;
		if (dash) {
			snprintf(buf, size, "D script: %s", dash + 5);
			break;
		}
		if (bt) {
			snprintf(buf, size, "bpftrace: %s", bt + 3 + strspn(bt + 3, " \t"));
			break;
		}
	}
	fclose(f);
}

/* ---- the speculation pass ---- */

static int take(void *arg, const struct vxt_script_rec *r)
{
	struct vr_script *sc = arg;

	if (!r->has_event || sc->kept_oom)
		return 0;
	if (sc->nkept == sc->cap &&
	    vxt_grow(&sc->kept, &sc->cap, sc->nkept + 1, sizeof(*sc->kept)) < 0) {
		sc->kept_oom = true;
		return 0;
	}
	sc->kept[sc->nkept++] = (struct kept){ r->ordinal, r->spec,
					       r->ev.phase == VXT_PH_DONE && r->ev.error };
	return 0;
}

int vr_script_spec_start(struct vr_model *m)
{
	struct vr_script *sc = m->script;
	char err[VXT_ERRBUF_SIZE];

	m->view.spec_on = true;
	if (m->spec_done || m->job[VR_JOB_SPEC].active)
		return 0;
	vr_script_spec_reset(m);
	m->view.spec_on = true;
	sc->spec = compile(sc, err, sizeof(err));
	if (!sc->spec || vxt_script_start(sc->spec, vxt_reader_objects(m->rd),
					  vxt_reader_strings(m->rd), take, sc) < 0) {
		snprintf(m->note, sizeof(m->note), "%s", sc->spec ? "out of memory" : err);
		m->note_error = true;
		vr_script_spec_reset(m);
		return -EINVAL;
	}
	vxt_script_set_time_base(sc->spec, m->t_first);
	vr_spec_clear(&m->view.spec);
	snprintf(m->spec_name, sizeof(m->spec_name), "%s", sc->name);
	m->job[VR_JOB_SPEC] = (struct vr_job){ .active = true, .end = vxt_reader_nchunks(m->rd) };
	snprintf(m->view.spec.summary, sizeof(m->view.spec.summary), "%s: running", sc->name);
	return 0;
}

void vr_script_spec_reset(struct vr_model *m)
{
	struct vr_script *sc = m->script;

	if (!sc)
		return;
	vxt_script_free(sc->spec);
	sc->spec = NULL;
	free(sc->kept);
	sc->kept = NULL;
	sc->nkept = sc->cap = 0;
	sc->kept_oom = false;
	sc->considered = 0;
}

/* The fields a pass of script @s decodes: what the script reads or prints,
 * what take() reads of a record, and what the filter reads (everything
 * with an interval filter, whose pairs come from the pairing job). */
static unsigned script_fields(const struct vr_model *m, const struct vxt_script *s)
{
	unsigned f = vxt_script_fields(s) | VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_ERROR;

	if (m->ivf)
		return VXT_FIELD_ALL | VXT_FIELD_LOST_COUNT;
	return m->filter ? f | vxt_filter_fields(m->filter) : f;
}

/* Events to the engine: those the filter shows, lost records always. */
static int push_events(struct vr_model *m, struct vxt_script *s, const struct vxt_event *evs,
		       size_t n, uint64_t first, uint64_t w0, uint64_t w1, uint64_t *considered)
{
	for (size_t k = 0; k < n && !vxt_script_exited(s, NULL); k++) {
		const struct vxt_event *ev = &evs[k];
		int rc;

		if (ev->time_ns < w0 || ev->time_ns >= w1)
			continue;
		if (m->filter && ev->phase != VXT_PH_LOST &&
		    !(m->ivf ? vr_ivfilter_match(m->ivf, ev, first + k) :
			     vxt_filter_matches(m->filter, ev)))
			continue;
		(*considered)++;
		rc = vxt_script_push(s, ev, first + k);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	return (x->ord > y->ord) - (x->ord < y->ord);
}

/* The kept records, sorted and without repeats, into the view's set. */
static int publish(struct vr_model *m, struct vr_script *sc)
{
	struct vr_spec_set *s = &m->view.spec;
	size_t n = 0, gcap = 0;

	qsort(sc->kept, sc->nkept, sizeof(*sc->kept), cmp_kept);
	for (size_t i = 0; i < sc->nkept; i++)
		if (!n || sc->kept[n - 1].ord != sc->kept[i].ord)
			sc->kept[n++] = sc->kept[i];
	if (n > VR_SPEC_MAX) {
		n = VR_SPEC_MAX;
		s->truncated = true;
	}
	s->ord = malloc((n ? n : 1) * sizeof(*s->ord));
	s->group = malloc((n ? n : 1) * sizeof(*s->group));
	if (!s->ord || !s->group)
		return -ENOMEM;
	s->cap = n;
	for (size_t i = 0; i < n; i++) {
		size_t g = s->ngroups;

		/* groups in order of first kept event; an id's recent group first */
		for (size_t k = s->ngroups, look = 0; k-- > 0 && look < 256; look++)
			if (s->spec_id[k] == sc->kept[i].spec) {
				g = k;
				break;
			}
		if (g == s->ngroups) {
			if (s->ngroups == gcap) {
				size_t c = gcap ? 2 * gcap : 256;
				uint64_t *t = realloc(s->trigger, c * sizeof(*t)), *id;

				if (!t)
					return -ENOMEM;
				s->trigger = t;
				id = realloc(s->spec_id, c * sizeof(*id));
				if (!id)
					return -ENOMEM;
				s->spec_id = id;
				gcap = c;
			}
			s->trigger[g] = UINT64_MAX;
			s->spec_id[g] = sc->kept[i].spec;
			s->ngroups++;
		}
		s->ord[i] = sc->kept[i].ord;
		s->group[i] = (uint32_t)g;
		if (sc->kept[i].failed && s->trigger[g] == UINT64_MAX)
			s->trigger[g] = sc->kept[i].ord;
		if (sc->kept[i].spec)
			s->by_commit++;
		else
			s->traced++;
	}
	s->gcap = gcap;
	s->n = n;
	return 0;
}

/* The header's figures, every counter in the engine's (DTrace's) words. */
static void summarize(struct vr_model *m, struct vr_script *sc)
{
	const struct vxt_script_options *o = vxt_script_get_options(sc->spec);
	struct vr_spec_set *s = &m->view.spec;
	struct vxt_script_stats st;
	char probs[512], *nl;
	int code = 0;
	bool exited = vxt_script_exited(sc->spec, &code);

	vxt_script_get_stats(sc->spec, &st);
	vxt_script_format_problems(&st, probs, sizeof(probs));
	while ((nl = strchr(probs, '\n')))
		*nl = nl[1] ? ';' : 0;
	/* DTrace's problem lines first: the header may be cut at the right */
	snprintf(s->summary, sizeof(s->summary),
		 "%s: %zu of %" PRIu64 " events kept%s; %s%s%" PRIu64 " committed, %" PRIu64
		 " discarded (%" PRIu64 " at the end), %" PRIu64 " opened; nspec=%u%s%s%s",
		 sc->name, s->n, sc->considered, s->truncated ? " (the first ones)" : "", probs,
		 probs[0] ? "; " : "", st.committed, st.discarded, st.eof_discarded, st.opened,
		 o->nspec, o->nspec_set ? "" : " (DTrace's default)", exited ? "; exit() " : "",
		 exited ? (code ? "non-zero" : "0") : "");
}

void vr_script_spec_step(struct vr_model *m, struct vr_job *j)
{
	struct vr_script *sc = m->script;
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (i < j->end && !vxt_script_exited(sc->spec, NULL)) {
		evs = vr_scan_chunk(m, VR_JOB_SPEC, i, script_fields(m, sc->spec), &n);
		if (evs && push_events(m, sc->spec, evs, n, vxt_reader_chunk(m->rd, i)->first_event,
				       0, UINT64_MAX, &sc->considered) < 0) {
			snprintf(m->note, sizeof(m->note), "%s: out of memory", sc->name);
			m->note_error = true;
		}
		snprintf(m->view.spec.summary, sizeof(m->view.spec.summary),
			 "%s: running, %" PRIu64 " events so far", sc->name, sc->considered);
		if (!vxt_script_exited(sc->spec, NULL) && j->next < j->end)
			return;
	}
	vxt_script_end(sc->spec);
	if (publish(m, sc) < 0 || sc->kept_oom) {
		snprintf(m->note, sizeof(m->note), "%s: out of memory", sc->name);
		m->note_error = true;
	}
	summarize(m, sc);
	free(sc->kept);
	sc->kept = NULL;
	sc->nkept = sc->cap = 0;
	j->active = false;
	m->spec_done = true;
	vr_model_rebin(m);
	vr_model_reseat(m);
}

/* ---- the aggregation pass ---- */

static int agg_take(void *arg, const struct vxt_script_rec *r)
{
	struct vr_script *sc = arg;
	char *t;

	if (!sc->agg_end || !r->len)
		return 0;
	if (sc->agg_len + r->len + 1 > VR_AGG_TEXT_MAX) {
		sc->agg_cut = true;
		return 0;
	}
	t = realloc(sc->agg_text, sc->agg_len + r->len + 1);
	if (!t) {
		sc->agg_cut = true;
		return 0;
	}
	memcpy(t + sc->agg_len, r->text, r->len);
	sc->agg_len += r->len;
	t[sc->agg_len] = 0;
	sc->agg_text = t;
	return 0;
}

void vr_script_agg_stop(struct vr_model *m)
{
	struct vr_script *sc = m->script;

	m->job[VR_JOB_AGG].active = false;
	if (!sc)
		return;
	vxt_script_free(sc->agg);
	sc->agg = NULL;
	sc->agg_on = sc->agg_done = false;
}

int vr_script_agg_want(struct vr_model *m)
{
	struct vr_script *sc = m->script;
	char err[VXT_ERRBUF_SIZE];
	size_t first, last;

	if (!sc) {
		snprintf(m->note, sizeof(m->note), "no script applied: p picks a .d script");
		m->note_error = true;
		return -1;
	}
	if (sc->agg_on && sc->agg_w0 == m->w0 && sc->agg_w1 == m->w1 &&
	    !strcmp(sc->agg_filter, m->filter_src))
		return 0;
	vr_script_agg_stop(m);
	sc->agg = compile(sc, err, sizeof(err));
	if (sc->agg && !vxt_script_has_aggregations(sc->agg)) {
		snprintf(err, sizeof(err), "%s has no aggregation", sc->name);
		vxt_script_free(sc->agg);
		sc->agg = NULL;
	}
	free(sc->agg_text);
	sc->agg_text = NULL;
	sc->agg_len = 0;
	sc->agg_cut = sc->agg_end = false;
	if (!sc->agg || vxt_script_start(sc->agg, vxt_reader_objects(m->rd),
					 vxt_reader_strings(m->rd), agg_take, sc) < 0) {
		snprintf(m->note, sizeof(m->note), "%s", sc->agg ? "out of memory" : err);
		m->note_error = true;
		vxt_script_free(sc->agg);
		sc->agg = NULL;
		return -1;
	}
	vxt_script_set_time_base(sc->agg, m->t_first);
	sc->agg_on = true;
	sc->agg_w0 = m->w0;
	sc->agg_w1 = m->w1;
	snprintf(sc->agg_filter, sizeof(sc->agg_filter), "%s", m->filter_src);
	/* the chunks that may hold events of the window */
	first = vxt_reader_nchunks(m->rd);
	last = 0;
	for (size_t i = 0; i < vxt_reader_nchunks(m->rd); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(m->rd, i);

		if (ci->last_ns < m->w0 || ci->first_ns >= m->w1)
			continue;
		if (first > i)
			first = i;
		last = i + 1;
	}
	if (first > last)
		first = last;
	m->job[VR_JOB_AGG] = (struct vr_job){ .active = true, .next = first, .begin = first,
					      .end = last };
	return 0;
}

void vr_script_agg_step(struct vr_model *m, struct vr_job *j)
{
	struct vr_script *sc = m->script;
	uint64_t considered = 0;
	size_t i = j->next++, n;
	const struct vxt_event *evs;

	if (!sc || !sc->agg) {
		j->active = false;
		return;
	}
	if (i < j->end && !vxt_script_exited(sc->agg, NULL)) {
		evs = vr_scan_chunk(m, VR_JOB_AGG, i, script_fields(m, sc->agg), &n);
		if (evs && push_events(m, sc->agg, evs, n, vxt_reader_chunk(m->rd, i)->first_event,
				       m->w0, m->w1, &considered) < 0) {
			snprintf(m->note, sizeof(m->note), "%s: out of memory", sc->name);
			m->note_error = true;
		}
		if (!vxt_script_exited(sc->agg, NULL) && j->next < j->end)
			return;
	}
	sc->agg_end = true;
	vxt_script_end(sc->agg);
	if (sc->agg_cut)
		snprintf(m->note, sizeof(m->note), "%s: aggregations cut at %u bytes", sc->name,
			 VR_AGG_TEXT_MAX);
	vxt_script_free(sc->agg);
	sc->agg = NULL;
	sc->agg_done = true;
	j->active = false;
}

const char *vr_script_agg_text(const struct vr_model *m, bool *done, uint64_t *w0,
			       uint64_t *w1)
{
	const struct vr_script *sc = m->script;

	*done = sc && sc->agg_done;
	*w0 = sc ? sc->agg_w0 : 0;
	*w1 = sc ? sc->agg_w1 : 0;
	return sc && sc->agg_done && sc->agg_text ? sc->agg_text : "";
}
