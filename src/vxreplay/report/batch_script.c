/* batch_script.c - vxreplay --script in batch mode
 *
 * One pass runs the events in scope through the script: what reaches its
 * principal buffer is printed (as dtrace(1) prints it), and the file
 * ordinals of the events recorded there are kept, so that --report and
 * --export cover exactly those events. The summary gets the script's
 * speculation figures from here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/batch_script.h"
#include "vxtrace/phasepair.h"
#include "vxtrace/util.h"

static bool keep_kept(const struct vxt_event *ev, uint64_t ord, void *arg)
{
	struct batch_script *bs = arg;

	(void)ev;
	return report_kept_has(bs->kept, bs->nkept, &bs->cursor, ord);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int sink(void *arg, const struct vxt_script_rec *r)
{
	struct batch_script *bs = arg;

	if (bs->text && r->len && fwrite(r->text, 1, r->len, bs->text) != r->len)
		return -EIO;
	if (!r->has_event)
		return 0;
	if (bs->nkept == bs->cap &&
	    vxt_grow(&bs->kept, &bs->cap, bs->nkept + 1, sizeof(*bs->kept)) < 0)
		return -ENOMEM;
	bs->kept[bs->nkept++] = r->ordinal;
	return 0;
}

/* Sort the kept ordinals (commits deliver them late) and drop repeats (an
 * event recorded by several clauses). */
static void settle(struct batch_script *bs)
{
	size_t n = 0;

	if (!bs->nkept)
		return;
	qsort(bs->kept, bs->nkept, sizeof(*bs->kept), cmp_u64);
	for (size_t i = 0; i < bs->nkept; i++)
		if (!n || bs->kept[n - 1] != bs->kept[i])
			bs->kept[n++] = bs->kept[i];
	bs->nkept = n;
}

static int fail(int rc)
{
	fprintf(stderr, "vxreplay: %s\n", rc == -EIO ? "write error" : strerror(-rc));
	return 1;
}

struct feed {
	struct batch_script *bs;
	struct vxt_filter *f;
	struct vxt_phasepair *pp;	/* @f reads intervals: every event in scope paired */
	int rc;			/* the script's error, once */
};

/* feed_chunk() without a filter: each run of events in scope in one call;
 * a chunk wholly in scope (@whole) is one run, with no test per event. */
static int feed_runs(struct report_ctx *c, const struct vxt_event *ev, size_t n, uint64_t ord,
		     bool whole, struct feed *fd)
{
	struct batch_script *bs = fd->bs;
	size_t k = 0;

	while (k < n) {
		size_t m = whole ? n : k, pushed;
		int in = 1;

		while (m < n && (in = report_in_scope(c, &ev[m], ord + m)) > 0)
			m++;
		if (m > k) {
			fd->rc = vxt_script_push_many(bs->s, ev + k, m - k, ord + k, &pushed);
			bs->considered += pushed;
			if (fd->rc < 0 || vxt_script_exited(bs->s, NULL))
				return -1;
		}
		if (m == n)
			break;
		if (in < 0)
			return -1;
		k = m + 1;
	}
	return 0;
}

/* Push the events of one chunk in scope; -1 ends the pass (the scope is
 * over, the script exited or failed). */
static int feed_chunk(struct report_ctx *c, const struct vxt_chunk_info *ci,
		      const struct vxt_event *ev, size_t n, uint64_t ord, void *arg)
{
	struct feed *fd = arg;
	struct batch_script *bs = fd->bs;

	if (!fd->f)
		return feed_runs(c, ev, n, ord, report_chunk_in_scope(c, ci), fd);
	for (size_t k = 0; k < n; k++) {
		int in = report_in_scope(c, &ev[k], ord + k);
		struct vxt_ivals iv;
		struct vxt_filter_ctx fc = { .iv = fd->pp ? &iv : NULL };

		if (in < 0)
			return -1;
		if (in && fd->pp && vxt_phasepair_add(fd->pp, &ev[k], &iv) < 0) {
			fd->rc = -ENOMEM;
			return -1;
		}
		if (!in || (fd->f && ev[k].phase != VXT_PH_LOST && !vxt_filter_eval(fd->f, &ev[k], &fc)))
			continue;
		bs->considered++;
		fd->rc = vxt_script_push(bs->s, &ev[k], ord + k);
		if (fd->rc < 0 || vxt_script_exited(bs->s, NULL))
			return -1;
	}
	return 0;
}

/* One pass over the scope, decoding the fields the script and the filter read. */
static int run(struct report_ctx *c, struct batch_script *bs, struct vxt_filter *f)
{
	struct feed fd = { .bs = bs, .f = f };
	unsigned fields = vxt_script_fields(bs->s) | (f ? vxt_filter_fields(f) : 0);
	int rc;

	rc = vxt_script_start(bs->s, vxt_reader_objects(c->r), vxt_reader_strings(c->r), sink, bs);
	if (rc < 0)
		return fail(rc);
	if (report_scope_begin(c) < 0)
		return 1;
	if (f && vxt_filter_uses_intervals(f) && !(fd.pp = vxt_phasepair_new()))
		return fail(-ENOMEM);
	if (!vxt_script_exited(bs->s, NULL)) {
		rc = report_scan(c, fields, feed_chunk, &fd);
		vxt_phasepair_free(fd.pp);
		if (fd.rc < 0)
			return fail(fd.rc);
		if (rc)
			return rc;
	} else {
		vxt_phasepair_free(fd.pp);
	}
	rc = vxt_script_end(bs->s);
	if (rc < 0)
		return fail(rc);
	vxt_script_exited(bs->s, &bs->exit_code);
	vxt_script_get_stats(bs->s, &bs->st);
	settle(bs);
	return 0;
}

int batch_script_begin(struct report_ctx *c, struct batch_script *bs, const char *name,
		       const char *dir, const char *const *xopts, unsigned nx,
		       const char *const *margs, unsigned nmargs, const char *filter, FILE *text)
{
	char err[VXT_ERRBUF_SIZE], path[VXT_PROFILE_PATH_MAX];
	struct vxt_filter *f = NULL;
	int rc;

	memset(bs, 0, sizeof(*bs));
	bs->text = text;
	if (vxt_script_find(name, dir, path, sizeof(path), err) < 0) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 2;
	}
	bs->s = vxt_script_load_args(path, xopts, nx, margs, nmargs, err);
	if (!bs->s) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 2;
	}
	if (vxt_script_warnings(bs->s)[0])
		fprintf(stderr, "vxreplay: %s: %s\n", path, vxt_script_warnings(bs->s));
	vxt_script_set_wall_offset(bs->s, (int64_t)(vxt_reader_to_real(c->r, c->start_ns) -
						    c->start_ns));
	if (filter) {
		f = vxt_filter_compile(filter, vxt_reader_objects(c->r), vxt_reader_strings(c->r),
				       err);
		if (!f) {
			fprintf(stderr, "vxreplay: %s\n", err);
			return 2;
		}
		vxt_filter_set_time_base(f, c->start_ns);
	}
	vxt_script_set_time_base(bs->s, c->start_ns);
	vxt_script_set_escape(bs->s, text && isatty(fileno(text)));
	{			/* what a bpftrace program says of the file */
		const struct vxt_file_info *in = vxt_reader_info(c->r);

		fputs(vxt_script_notes(bs->s, (in->compat & VXT_COMPAT_PHASES) ||
				       !strcmp(in->source, "blktrace")), stderr);
	}
	rc = run(c, bs, f);
	vxt_filter_free(f);
	if (rc)
		return rc;
	c->keep = keep_kept;
	c->keep_arg = bs;
	c->script = bs;
	return 0;
}

void batch_script_problems(const struct batch_script *bs, FILE *out)
{
	char buf[1024], *line, *save;

	vxt_script_format_problems(&bs->st, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "vxreplay: %s: %s\n", vxt_script_name(bs->s), line);
	if (bs->st.errors)
		fprintf(out, "vxreplay: %s: first error: %s\n", vxt_script_name(bs->s),
			vxt_script_first_error(bs->s));
	if ((bs->st.failed_unavail || bs->st.failed_busy) &&
	    !vxt_script_get_options(bs->s)->nspec_set)
		fprintf(out, "vxreplay: %s: nspec is DTrace's default, %u; raise it with "
			"#pragma D option nspec=N or -x nspec=N\n", vxt_script_name(bs->s),
			vxt_script_get_options(bs->s)->nspec);
}

void batch_script_end(struct batch_script *bs)
{
	free(bs->kept);
	vxt_script_free(bs->s);
	memset(bs, 0, sizeof(*bs));
}

/* The summary's script section. */
void report_script_section(struct report_ctx *c, int part)
{
	const struct batch_script *bs = c->script;
	const struct vxt_script_stats *s = &bs->st;
	const struct vxt_script_options *o = vxt_script_get_options(bs->s);
	char buf[1024], *line, *save;

	if (c->fmt == FMT_JSON) {
		fprintf(c->out, ", \"script\": ");
		report_json_str(c->out, vxt_script_name(bs->s));
		fprintf(c->out, ", \"kept\": %zu, \"considered\": %" PRIu64, bs->nkept,
			bs->considered);
		fprintf(c->out, ", \"speculation\": {\"nspec\": %u, \"nspec_default\": %s"
			", \"specsize\": %" PRIu64 ", \"cleanrate\": %u, \"bufsize\": %" PRIu64
			", \"opened\": %" PRIu64 ", \"committed\": %" PRIu64
			", \"discarded\": %" PRIu64 ", \"discarded_at_end\": %" PRIu64
			", \"failed\": %" PRIu64 ", \"failed_busy\": %" PRIu64
			", \"drops\": %" PRIu64 ", \"commit_drops\": %" PRIu64
			", \"agg_drops\": %" PRIu64 ", \"aggsize\": %" PRIu64
			", \"dyn_drops\": %" PRIu64 ", \"dynvarsize\": %" PRIu64
			", \"forced\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"division_by_zero\": %" PRIu64 "}", o->nspec,
			o->nspec_set ? "false" : "true", o->specsize, o->cleanrate, o->bufsize,
			s->opened, s->committed, s->discarded, s->eof_discarded,
			s->failed_unavail, s->failed_busy, s->spec_drops, s->commit_drops,
			s->agg_drops, o->aggsize, s->dyn_drops, o->dynvarsize, s->forced, s->errors,
			s->div_zero);
	} else if (c->fmt == FMT_CSV) {
		if (part == 0)
			fprintf(c->out, ",script,kept,considered,nspec,spec_opened,spec_committed,"
				"spec_discarded,spec_failed,spec_failed_busy,spec_drops,"
				"commit_drops,errors");
		else
			fprintf(c->out, ",%s,%zu,%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				vxt_script_name(bs->s), bs->nkept, bs->considered, o->nspec,
				s->opened, s->committed, s->discarded, s->failed_unavail,
				s->failed_busy, s->spec_drops, s->commit_drops, s->errors);
	} else {
		fprintf(c->out, "script:    %s (%zu of %" PRIu64 " events kept)\n",
			vxt_script_name(bs->s), bs->nkept, bs->considered);
		fprintf(c->out, "speculation: nspec=%u%s, specsize=%" PRIu64 ", cleanrate=%uHz; %"
			PRIu64 " opened, %" PRIu64 " committed, %" PRIu64 " discarded (%" PRIu64
			" at the end of input)\n", o->nspec,
			o->nspec_set ? "" : " (DTrace's default)", o->specsize, o->cleanrate,
			s->opened, s->committed, s->discarded, s->eof_discarded);
		vxt_script_format_problems(s, buf, sizeof(buf));
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(c->out, "           %s\n", line);
	}
}
