/* batch_profile.c - vxreplay --profile in batch mode: reports over the view
 *
 * Speculation decides an event's fate only later in the stream, so a first
 * pass runs the events in scope through the profile's view and keeps the
 * file ordinals of what it commits, and the events themselves up to
 * BATCH_PROFILE_HELD_MAX bytes; the report's pass then reads those from
 * memory, or (past the bound, or for a report that pairs the events not
 * kept too) the file again keeping exactly those ordinals (the summary's
 * section about it is report_spec_section(), report.c).
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
	return report_kept_has(bp->kept, bp->nkept, &bp->cursor, ord);
}

static int add_kept(struct batch_profile *bp, const struct vxt_spec_event *out)
{
	if (bp->nkept == bp->cap) {
		size_t cap = bp->cap ? 2 * bp->cap : 4096;
		uint64_t *k = realloc(bp->kept, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		bp->kept = k;
		if (!bp->held_off && cap * sizeof(*bp->held) > BATCH_PROFILE_HELD_MAX) {
			free(bp->held);		/* the report's pass reads the file */
			bp->held = NULL;
			bp->held_off = true;
		}
		if (!bp->held_off) {
			struct vxt_event *h = realloc(bp->held, cap * sizeof(*h));

			if (!h)
				return -ENOMEM;
			bp->held = h;
		}
		bp->cap = cap;
	}
	if (!bp->held_off)
		bp->held[bp->nkept] = out->ev;
	bp->kept[bp->nkept++] = out->seq;
	return 0;
}

/* The pipeline's sink: each kept event and its ordinal. */
static int keep_ordinal(void *arg, const struct vxt_spec_event *out)
{
	return add_kept(arg, out);
}

struct first {
	struct batch_profile *bp;
	struct vxt_view *v;
};

/* The events of one chunk in scope through the view, one at a time as
 * they come (its sink drained after each). @return 0, 1 after printing
 * why, or -1 when the scope is over. */
static int first_chunk(struct report_ctx *c, const struct vxt_chunk_info *ci,
		       const struct vxt_event *ev, size_t n, uint64_t ord, void *arg)
{
	struct first *f = arg;

	(void)ci;
	for (size_t k = 0; k < n; k++) {
		int in = report_in_scope(c, &ev[k], ord + k);

		if (in < 0)
			return -1;
		if (in && vxt_pipeline_push(f->v, &ev[k], 1, ord + k, keep_ordinal, f->bp) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
	}
	return 0;
}

/* The first pass, over every field, the chunks decoded ahead on helper
 * threads (report_scan()). @return 0, or 1 after printing why. */
static int first_pass(struct report_ctx *c, struct batch_profile *bp, struct vxt_view *v)
{
	struct first f = { .bp = bp, .v = v };

	if (report_scope_begin(c) < 0)
		return 1;
	if (report_scan(c, VXT_FIELD_ALL, first_chunk, &f))
		return 1;
	if (vxt_pipeline_finish(v, keep_ordinal, bp) < 0) {
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
	if (!bp->held_off) {
		c->held = bp->held;
		c->held_ord = bp->kept;
		c->nheld = bp->nkept;
	}
	return 0;
}

void batch_profile_end(struct batch_profile *bp)
{
	free(bp->kept);
	free(bp->held);
	vxt_profile_free(bp->p);
	memset(bp, 0, sizeof(*bp));
}
