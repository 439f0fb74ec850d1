/* keep_script.c - vxrecord --script: a D-style script on the live event stream
 *
 * Every captured event goes through the script (formats/script.md); the
 * events that reach its principal buffer (committed speculations, clauses
 * that record without speculating) are written, each once, in time order,
 * so the file holds what `vxreplay FULL --script NAME` keeps of a full
 * capture of the same events. A commit delivers its buffer late: kept
 * events wait here until no active speculation can still hold an older
 * one (vxt_script_oldest_held()). What the script prints outside io:::
 * probes (BEGIN, END, ticks, aggregations), and everything a quiet script
 * prints, goes to standard output, as dtrace(1) prints it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keep_script.h"
#include "vxtrace/util.h"

int keep_script_open(struct keep_script *ks, const char *dir, char err[VXT_ERRBUF_SIZE])
{
	char path[VXT_PROFILE_PATH_MAX];

	if (vxt_script_find(ks->name, dir, path, sizeof(path), err) < 0)
		return -1;
	ks->s = vxt_script_load_args(path, ks->xopts, ks->nx, (const char *const *)ks->margs,
				     ks->nmargs, err);
	if (ks->s && vxt_script_warnings(ks->s)[0])
		fprintf(stderr, "vxrecord: %s: %s\n", path, vxt_script_warnings(ks->s));
	return ks->s ? 0 : -1;
}

static int hold(struct keep_script *ks, const struct vxt_script_rec *r)
{
	if (ks->nheld == ks->capheld &&
	    vxt_grow(&ks->held, &ks->capheld, ks->nheld + 1, sizeof(*ks->held)) < 0)
		return -ENOMEM;
	ks->held[ks->nheld] = *r;
	ks->held[ks->nheld].text = NULL;	/* borrowed: not kept */
	ks->held[ks->nheld].len = 0;
	ks->nheld++;
	return 0;
}

/* The column header dtrace(1) prints before its first record: the
 * events go to the file, so it is printed only before text that is. */
static bool is_header(const struct vxt_script_rec *r)
{
	return !r->has_event && r->len > 4 && !memcmp(r->text, "CPU ", 4) && !r->spec;
}

static int sink(void *arg, const struct vxt_script_rec *r)
{
	struct keep_script *ks = arg;

	if (is_header(r) && !ks->printed) {
		ks->header = true;
		return 0;
	}
	if (r->len && (!r->has_event || vxt_script_get_options(ks->s)->quiet)) {
		if (ks->header && !ks->printed && !vxt_script_get_options(ks->s)->quiet)
			fputs("CPU     ID                    FUNCTION:NAME\n", stdout);
		ks->printed = true;
		if (fwrite(r->text, 1, r->len, stdout) != r->len)
			return -EIO;
	}
	return r->has_event ? hold(ks, r) : 0;
}

int keep_script_start(struct keep_script *ks, const struct vxt_objtab *objs,
		      const struct vxt_strtab *strs, bool live)
{
	ks->live = live;
	vxt_script_set_live(ks->s, live);
	vxt_script_set_escape(ks->s, isatty(STDOUT_FILENO));
	vxt_script_track_buffered(ks->s);
	return vxt_script_start(ks->s, objs, strs, sink, ks);
}

static int cmp_ord(const void *a, const void *b)
{
	uint64_t x = ((const struct vxt_script_rec *)a)->ordinal;
	uint64_t y = ((const struct vxt_script_rec *)b)->ordinal;

	return (x > y) - (x < y);
}

/* Move the held events below ordinal @upto into @out, in order, each once
 * (several clauses may record one event). */
static int release(struct keep_script *ks, uint64_t upto, struct vxt_batch *out)
{
	size_t i, n = 0;

	if (!ks->nheld)
		return 0;
	qsort(ks->held, ks->nheld, sizeof(*ks->held), cmp_ord);
	for (i = 0; i < ks->nheld && ks->held[i].ordinal < upto; i++) {
		struct vxt_event *e;

		if (ks->held[i].ordinal < ks->last_out)
			continue;	/* written already */
		e = vxt_batch_push(out);
		if (!e)
			return -ENOMEM;
		*e = ks->held[i].ev;
		ks->last_out = ks->held[i].ordinal + 1;
		ks->written++;
	}
	for (; i < ks->nheld; i++)
		ks->held[n++] = ks->held[i];
	ks->nheld = n;
	return 0;
}

/* Write what no commit can precede any more. What waits is held within
 * bufsize: past it, the speculation holding the oldest event is discarded
 * (forced) so a speculation that never ends cannot hold the file back. */
static int settle(struct keep_script *ks, struct vxt_batch *out)
{
	uint64_t bound = vxt_script_get_options(ks->s)->bufsize / VXT_SCRIPT_RECORD_SIZE;

	for (;;) {
		uint64_t upto = vxt_script_oldest_held(ks->s);
		int rc;

		if (upto > ks->next_ord)
			upto = ks->next_ord;
		rc = release(ks, upto, out);
		if (rc < 0 || ks->nheld <= (bound ? bound : 1) ||
		    !vxt_script_discard_oldest(ks->s))
			return rc;
	}
}

int keep_script_push(struct keep_script *ks, const struct vxt_event *ev, size_t n,
		     struct vxt_batch *out)
{
	size_t pushed;
	int rc;

	if (n && ks->next_ord == 0)	/* `time` counts from the first event */
		vxt_script_set_time_base(ks->s, ev[0].time_ns);
	rc = vxt_script_push_many(ks->s, ev, n, ks->next_ord, &pushed);
	ks->next_ord += pushed;
	if (rc < 0)
		return rc;
	return settle(ks, out);
}

int keep_script_tick(struct keep_script *ks, struct vxt_batch *out)
{
	int rc;

	if (!ks->live)
		return 0;
	rc = vxt_script_tick(ks->s, vxt_now_mono());
	return rc < 0 ? rc : settle(ks, out);
}

int keep_script_finish(struct keep_script *ks, struct vxt_batch *out)
{
	int rc;

	rc = vxt_script_end(ks->s);
	if (rc < 0)
		return rc;
	if (fflush(stdout) != 0)
		return -EIO;
	return release(ks, UINT64_MAX, out);
}

bool keep_script_exited(const struct keep_script *ks)
{
	return ks->s && vxt_script_exited(ks->s, NULL);
}

const char *keep_script_progress(const struct keep_script *ks, char *buf, size_t size)
{
	struct vxt_script_stats st;

	vxt_script_get_stats(ks->s, &st);
	snprintf(buf, size, "  kept %" PRIu64 " of %" PRIu64 ", committed %" PRIu64
		 ", discarded %" PRIu64 ", failed %" PRIu64 "+%" PRIu64 " busy, drops %" PRIu64
		 "+%" PRIu64 " commit+%" PRIu64 " dynvar+%" PRIu64 " agg, errors %" PRIu64,
		 ks->written, st.events_in, st.committed, st.discarded, st.failed_unavail,
		 st.failed_busy, st.spec_drops, st.commit_drops, st.dyn_drops, st.agg_drops,
		 st.errors);
	return buf;
}

void keep_script_summary(const struct keep_script *ks, FILE *out)
{
	const struct vxt_script_options *o = vxt_script_get_options(ks->s);
	const char *name = vxt_script_name(ks->s);
	struct vxt_script_stats st;
	char buf[1024], *line, *save;

	vxt_script_get_stats(ks->s, &st);
	fprintf(out, "vxrecord: script %s kept %" PRIu64 " of %" PRIu64 " events\n", name,
		ks->written, st.events_in);
	fprintf(out, "vxrecord: speculation: nspec=%u%s, specsize=%" PRIu64 ", cleanrate=%uHz; %"
		PRIu64 " opened, %" PRIu64 " committed, %" PRIu64 " discarded (%" PRIu64
		" at the end)\n", o->nspec, o->nspec_set ? "" : " (DTrace's default)", o->specsize,
		o->cleanrate, st.opened, st.committed, st.discarded, st.eof_discarded);
	vxt_script_format_problems(&st, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "vxrecord: %s: %s\n", name, line);
	if (st.errors)
		fprintf(out, "vxrecord: %s: first error: %s\n", name, vxt_script_first_error(ks->s));
	if ((st.failed_unavail || st.failed_busy) && !o->nspec_set)
		fprintf(out, "vxrecord: %s: nspec is DTrace's default, %u; raise it with "
			"#pragma D option nspec=N or -x nspec=N\n", name, o->nspec);
}

void keep_script_close(struct keep_script *ks)
{
	vxt_script_free(ks->s);
	free(ks->held);
	ks->s = NULL;
	ks->held = NULL;
	ks->nheld = ks->capheld = 0;
}
