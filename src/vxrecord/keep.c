/* keep.c - vxrecord --profile, --script and --filter: record-time filter and speculation
 *
 * Every captured batch goes through the view of the profile and the
 * --filter expression (both: the profile's filter and-ed with it), or through
 * --filter then the script (keep_script.c); only what it keeps (committed
 * speculations, or what the filter passes) is written, so the file is a
 * flight recorder of the context around each trigger.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "keep.h"

int keep_kernel_program(struct keep *k, struct vxt_kspec *ks, char *why, size_t len,
			char err[VXT_ERRBUF_SIZE])
{
	struct vxt_profile *p;
	int rc;

	why[0] = '\0';
	if (!k->profile)
		return 0;
	p = vxt_profile_open(k->profile, k->profile_dir, err);
	if (!p)
		return -1;
	rc = vxt_profile_kspec(p, ks, why, len);
	vxt_profile_free(p);
	return rc;
}

int keep_open(struct keep *k, const struct vxt_objtab *objs, const struct vxt_strtab *strs,
	      char err[VXT_ERRBUF_SIZE])
{
	if (k->script.name) {
		if (keep_script_open(&k->script, k->profile_dir, err) < 0)
			return -1;
		fputs(vxt_script_notes(k->script.s, k->all_phases), stderr);
		if (k->filter && !(k->v = vxt_view_new(NULL, k->filter, objs, strs, err)))
			return -1;
		vxt_script_set_wall_offset(k->script.s, k->wall_off_ns);	/* walltimestamp */
		if (keep_script_start(&k->script, objs, strs, k->live) < 0) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory",
				 vxt_script_name(k->script.s));
			return -1;
		}
		return 0;
	}
	if (!k->profile && !k->filter)
		return 0;
	if (k->profile) {
		k->p = vxt_profile_open(k->profile, k->profile_dir, err);
		if (!k->p)
			return -1;
	}
	if (k->kernel && !k->filter)
		return 0;
	/* with the kernel running the profile, the view is the filter alone */
	k->v = vxt_view_new(k->kernel ? NULL : k->p, k->filter, objs, strs, err);
	return k->v ? 0 : -1;
}

/* The script's error @rc: NULL after saying why. */
static struct vxt_batch *script_failed(const struct keep *k, int rc)
{
	fprintf(stderr, "vxrecord: %s: %s\n", vxt_script_name(k->script.s),
		rc == -EIO ? "write error on standard output" : strerror(-rc));
	return NULL;
}

static struct vxt_batch *script_batch(struct keep *k, struct vxt_batch *b)
{
	int rc;

	if (k->v) {
		if (b->n && !k->based) {
			vxt_view_set_time_base(k->v, b->ev[0].time_ns);
			k->based = true;
		}
		k->passed.n = 0;
		if (vxt_pipeline_push(k->v, b->ev, b->n, VXT_PIPE_NO_ORDINAL, vxt_pipe_to_batch,
				      &k->passed) < 0)
			return script_failed(k, -ENOMEM);
		b = &k->passed;
	}
	k->out.n = 0;
	rc = keep_script_push(&k->script, b->ev, b->n, &k->out);
	return rc < 0 ? script_failed(k, rc) : &k->out;
}

struct vxt_batch *keep_tick(struct keep *k)
{
	int rc;

	k->out.n = 0;
	if (!k->script.s)
		return &k->out;
	rc = keep_script_tick(&k->script, &k->out);
	return rc < 0 ? script_failed(k, rc) : &k->out;
}

bool keep_exited(const struct keep *k)
{
	return keep_script_exited(&k->script);
}

struct vxt_batch *keep_batch(struct keep *k, struct vxt_batch *b)
{
	if (k->script.s)
		return script_batch(k, b);
	if (!k->v)
		return b;
	if (b->n && !k->based) {	/* `time` counts from the first event */
		vxt_view_set_time_base(k->v, b->ev[0].time_ns);
		k->based = true;
	}
	k->out.n = 0;
	if (vxt_pipeline_push(k->v, b->ev, b->n, VXT_PIPE_NO_ORDINAL, vxt_pipe_to_batch,
			      &k->out) < 0)
		return NULL;
	return &k->out;
}

struct vxt_batch *keep_finish(struct keep *k)
{
	int rc;

	if (k->script.s) {
		k->out.n = 0;
		if (k->v) {	/* the filter holds nothing back, but say so to the view */
			k->passed.n = 0;
			if (vxt_pipeline_finish(k->v, vxt_pipe_to_batch, &k->passed) < 0)
				return script_failed(k, -ENOMEM);
			rc = keep_script_push(&k->script, k->passed.ev, k->passed.n, &k->out);
			if (rc < 0)
				return script_failed(k, rc);
		}
		rc = keep_script_finish(&k->script, &k->out);
		return rc < 0 ? script_failed(k, rc) : &k->out;
	}
	if (!k->v) {
		k->out.n = 0;
		return &k->out;
	}
	k->out.n = 0;
	return vxt_pipeline_finish(k->v, vxt_pipe_to_batch, &k->out) < 0 ? NULL : &k->out;
}

const char *keep_progress(const struct keep *k, char *buf, size_t size)
{
	struct vxt_view_stats st;

	buf[0] = '\0';
	if (k->script.s)
		return keep_script_progress(&k->script, buf, size);
	if (k->kernel) {
		struct vxt_kspec_stats ks;

		vxt_source_kspec_stats(k->kernel, &ks);
		snprintf(buf, size, "  kernel kept %" PRIu64 " of %" PRIu64 ", committed %" PRIu64,
			 ks.kept, ks.seen, ks.commits);
		return buf;
	}
	if (!k->v)
		return buf;
	vxt_view_get_stats(k->v, &st);
	if (st.has_spec)
		snprintf(buf, size, "  kept %" PRIu64 " of %" PRIu64 ", committed %" PRIu64
			 ", discarded %" PRIu64, st.events_out, st.events_in, st.spec.committed,
			 st.spec.discarded);
	else
		snprintf(buf, size, "  kept %" PRIu64 " of %" PRIu64, st.events_out, st.events_in);
	return buf;
}

void keep_summary(const struct keep *k, FILE *out)
{
	struct vxt_view_stats st;
	const struct vxt_spec_stats *s = &st.spec;
	char buf[256], *line, *save;

	if (k->script.s) {
		keep_script_summary(&k->script, out);
		return;
	}
	if (k->kernel) {
		struct vxt_kspec_stats ks;

		vxt_source_kspec_stats(k->kernel, &ks);
		fprintf(out, "vxrecord: profile %s ran in the kernel: kept %" PRIu64 " of %" PRIu64
			" events, %" PRIu64 " committed\n", k->p->name, ks.kept, ks.seen, ks.commits);
		if (ks.drops)
			fprintf(out, "vxrecord: %" PRIu64 " speculative drops (events overwritten in "
				"a window before a trigger came)\n", ks.drops);
		if (ks.failed)
			fprintf(out, "vxrecord: %" PRIu64 " failed speculations (more than %u keys)\n",
				ks.failed, ks.max_keys);
		return;
	}
	if (!k->v)
		return;
	vxt_view_get_stats(k->v, &st);
	if (k->p)
		fprintf(out, "vxrecord: profile %s kept %" PRIu64 " of %" PRIu64 " events\n",
			k->p->name, st.events_out, st.events_in);
	else
		fprintf(out, "vxrecord: --filter kept %" PRIu64 " of %" PRIu64 " events\n",
			st.events_out, st.events_in);
	if (!st.has_spec)
		return;
	fprintf(out, "vxrecord: speculation: %" PRIu64 " opened, %" PRIu64 " committed, %" PRIu64
		" discarded (%" PRIu64 " at the end), %" PRIu64 " failed, %" PRIu64 " drops\n",
		s->opened, s->committed, s->discarded, s->eof_discarded, s->failed, s->drops);
	if (s->forced)
		fprintf(out, "vxrecord: %" PRIu64 " speculations discarded because output waited "
			"on them too long\n", s->forced);
	vxt_spec_format_problems(s, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "vxrecord: %s\n", line);
}

void keep_close(struct keep *k)
{
	vxt_view_free(k->v);
	vxt_profile_free(k->p);
	vxt_batch_free(&k->out);
	vxt_batch_free(&k->passed);
	keep_script_close(&k->script);
	k->v = NULL;
	k->p = NULL;
}
