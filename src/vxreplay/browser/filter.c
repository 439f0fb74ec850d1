/* filter.c - the browser's filter and search expressions
 *
 * Binds the filter language (vxtrace/filter.h) to the view: a filter decides
 * which events are shown; a search only where n / N stop. A bad expression
 * reports its error and changes nothing. With speculation, the filter comes
 * first: the speculation view is recomputed over the filtered events. A
 * filter on an interval field (q2c, ...) looks each completion's intervals
 * up in the browser's pairing of the whole file (ivfilter.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "browser/ivfilter.h"
#include "browser/ivseries.h"
#include "browser/model.h"

#include "vxtrace/filter.h"

static bool match_filter(void *ctx, const struct vxt_event *ev, uint64_t ord)
{
	(void)ord;
	return vxt_filter_matches(ctx, ev);
}

static bool match_iv(void *ctx, const struct vxt_event *ev, uint64_t ord)
{
	return vr_ivfilter_match(ctx, ev, ord);
}

/* The I/O listing: completions only, and what the filter (ctx, or NULL) lets through. */
static bool match_io(void *ctx, const struct vxt_event *ev, uint64_t ord)
{
	(void)ord;
	return ev->phase == VXT_PH_DONE && (!ctx || vxt_filter_matches(ctx, ev));
}

static bool match_io_iv(void *ctx, const struct vxt_event *ev, uint64_t ord)
{
	return ev->phase == VXT_PH_DONE && vr_ivfilter_match(ctx, ev, ord);
}

static vr_match_fn pick(const struct vr_model *m, const struct vxt_filter *f,
			const struct vr_ivfilter *ivf)
{
	if (m->io_only)
		return ivf ? match_io_iv : match_io;
	return ivf ? match_iv : f ? match_filter : NULL;
}

int vr_model_set_io_only(struct vr_model *m, bool on)
{
	bool was = m->io_only;

	m->io_only = on;
	if (vr_view_set_match(&m->view, pick(m, m->filter, m->ivf),
			      m->ivf ? (void *)m->ivf : m->filter) < 0) {
		m->io_only = was;
		return -ENOMEM;
	}
	return 0;
}

static struct vxt_filter *compile(struct vr_model *m, const char *text, char *err, size_t errsz)
{
	char e[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(text, vxt_reader_objects(m->rd),
						  vxt_reader_strings(m->rd), e);

	if (!f) {
		snprintf(err, errsz, "%s", e);
		return NULL;
	}
	vxt_filter_set_time_base(f, m->t_first);
	return f;
}

static void release(struct vxt_filter *f)
{
	vxt_filter_free(f);
}

bool vr_search_matches(struct vxt_filter *f, const struct vxt_event *ev)
{
	return f && vxt_filter_matches(f, ev);
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* Speculation runs on what the filter lets through: a result or a pass of
 * the old filter is dropped, and a shown view starts its pass again. */
static void respeculate(struct vr_model *m)
{
	bool on = m->view.spec_on;

	if (!m->spec_done && !m->job[VR_JOB_SPEC].active)
		return;
	vr_model_spec_reset(m);
	if (on)
		vr_model_spec_start(m);
}

int vr_filter_set(struct vr_model *m, const char *text, char *err, size_t errsz)
{
	struct vxt_filter *f = NULL;
	struct vr_ivfilter *ivf = NULL;

	if (!blank(text)) {
		f = compile(m, text, err, errsz);
		if (!f)
			return -1;
		if (vxt_filter_uses_intervals(f) && !(ivf = vr_ivfilter_new(m, f, err, errsz))) {
			release(f);
			return -1;
		}
	}
	if (vr_view_set_match(&m->view, pick(m, f, ivf), ivf ? (void *)ivf : f) < 0) {
		vr_ivfilter_free(ivf);
		release(f);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	vr_ivfilter_free(m->ivf);
	release(m->filter);
	m->filter = f;
	m->ivf = ivf;
	snprintf(m->filter_src, sizeof(m->filter_src), "%s", f ? text : "");
	vr_ivs_restart(m);	/* Q2C and queue time of what it shows */
	respeculate(m);
	return 0;
}

struct vxt_filter *vr_search_compile(struct vr_model *m, const char *text, char *err,
				     size_t errsz)
{
	return compile(m, text, err, errsz);
}

void vr_search_free(struct vxt_filter *f)
{
	release(f);
}
