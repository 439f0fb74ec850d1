/* batch_profile.c - vxreplay --profile in batch mode: reports over the view
 *
 * Speculation decides an event's fate only later in the stream, so a first
 * pass runs the events in scope through the profile's view and keeps the
 * file ordinals of what it commits; the report's pass then keeps exactly
 * those. The summary report gets a speculation section from here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/batch_profile.h"

static bool keep_kept(const struct vxt_event *ev, uint64_t ord, void *arg)
{
	struct batch_profile *bp = arg;

	(void)ev;
	while (bp->cursor < bp->nkept && bp->kept[bp->cursor] < ord)
		bp->cursor++;
	return bp->cursor < bp->nkept && bp->kept[bp->cursor] == ord;
}

static int add_kept(struct batch_profile *bp, uint64_t ord)
{
	if (bp->nkept == bp->cap) {
		size_t cap = bp->cap ? 2 * bp->cap : 4096;
		uint64_t *k = realloc(bp->kept, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		bp->kept = k;
		bp->cap = cap;
	}
	bp->kept[bp->nkept++] = ord;
	return 0;
}

static int drain(struct batch_profile *bp, struct vxt_view *v)
{
	struct vxt_spec_event out;

	while (vxt_view_next(v, &out) == 1)
		if (add_kept(bp, out.seq) < 0)
			return -ENOMEM;
	return 0;
}

/* The first pass. @return 0, or 1 after printing why. */
static int first_pass(struct report_ctx *c, struct batch_profile *bp, struct vxt_view *v)
{
	const struct vxt_event *ev;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	while ((rc = report_scope_next(c, &ev)) == 1) {
		if (vxt_view_push_at(v, ev, vxt_reader_tell(c->r) - 1) < 0 || drain(bp, v) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
	}
	if (rc < 0)
		return 1;
	vxt_view_finish(v);
	if (drain(bp, v) < 0) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	vxt_view_get_stats(v, &bp->st);
	return 0;
}

int batch_profile_begin(struct report_ctx *c, struct batch_profile *bp, const char *name,
			const char *dir, const char *filter)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_view *v;
	int rc;

	memset(bp, 0, sizeof(*bp));
	bp->r = c->r;
	bp->p = vxt_profile_open(name, dir, err);
	if (!bp->p) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 2;
	}
	v = vxt_view_new(bp->p, filter, vxt_reader_objects(c->r), vxt_reader_strings(c->r), err);
	if (!v) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 2;
	}
	vxt_view_set_time_base(v, c->start_ns);
	rc = first_pass(c, bp, v);
	vxt_view_free(v);
	if (rc)
		return rc;
	c->keep = keep_kept;
	c->keep_arg = bp;
	c->spec = bp;
	return 0;
}

void batch_profile_end(struct batch_profile *bp)
{
	free(bp->kept);
	vxt_profile_free(bp->p);
	memset(bp, 0, sizeof(*bp));
}

/* DTrace's words, one line each, with a prefix. */
static void problems(FILE *out, const char *prefix, const struct vxt_spec_stats *s)
{
	char buf[256], *line, *save;

	vxt_spec_format_problems(s, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "%s%s\n", prefix, line);
}

void report_spec_section(struct report_ctx *c, int part)
{
	const struct batch_profile *bp = c->spec;
	const struct vxt_spec_stats *s;

	if (!bp)
		return;
	s = &bp->st.spec;
	if (c->fmt == FMT_JSON) {
		fprintf(c->out, ", \"profile\": ");
		report_json_str(c->out, bp->p->name);
		fprintf(c->out, ", \"kept\": %" PRIu64 ", \"considered\": %" PRIu64,
			bp->st.events_out, bp->st.events_in);
		if (bp->st.has_spec)
			fprintf(c->out, ", \"speculation\": {\"opened\": %" PRIu64
				", \"committed\": %" PRIu64 ", \"discarded\": %" PRIu64
				", \"discarded_at_end\": %" PRIu64 ", \"failed\": %" PRIu64
				", \"drops\": %" PRIu64 ", \"forced\": %" PRIu64
				", \"committed_events\": %" PRIu64 "}",
				s->opened, s->committed, s->discarded, s->eof_discarded, s->failed,
				s->drops, s->forced, s->committed_events);
	} else if (c->fmt == FMT_CSV) {
		if (part == 0)
			fprintf(c->out, ",profile,kept,considered,spec_opened,spec_committed,"
				"spec_discarded,spec_failed,spec_drops");
		else
			fprintf(c->out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64, bp->p->name, bp->st.events_out,
				bp->st.events_in, s->opened, s->committed, s->discarded, s->failed,
				s->drops);
	} else {
		fprintf(c->out, "profile:   %s (%" PRIu64 " of %" PRIu64 " events kept)\n",
			bp->p->name, bp->st.events_out, bp->st.events_in);
		if (!bp->st.has_spec)
			return;
		fprintf(c->out, "speculation: %" PRIu64 " opened, %" PRIu64 " committed (%" PRIu64
			" events), %" PRIu64 " discarded (%" PRIu64 " at the end of input), %"
			PRIu64 " failed, %" PRIu64 " drops\n", s->opened, s->committed,
			s->committed_events, s->discarded, s->eof_discarded, s->failed, s->drops);
		if (s->forced)
			fprintf(c->out, "           %" PRIu64 " speculations discarded because output "
				"waited on them too long\n", s->forced);
		problems(c->out, "           ", s);
	}
}
