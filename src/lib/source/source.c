/* source.c - the capture source table and the generic source calls
 *
 * Picks a source by name (or the default: the kernel module when its device
 * exists, else eBPF when the kernel has BTF and we may load programs, else
 * tracefs), and forwards each call to the source's ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/source_impl.h"
#include "vxtrace/util.h"

/* In order of preference for the default; sim and import sources are never
 * picked by default (probe returns an error). */
static const struct vxt_source_ops *const source_table[] = {
	&vxt_source_kmod_ops,
	&vxt_source_ebpf_ops,
	&vxt_source_tracefs_ops,
	&vxt_source_sim_ops,
	&vxt_source_blktrace_ops,
};

#define NSOURCES (sizeof(source_table) / sizeof(source_table[0]))

int vxt_source_seterr(struct vxt_source *s, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return rc;
}

void vxt_source_add_note(struct vxt_source *s, const char *fmt, ...)
{
	size_t len = strlen(s->note);
	va_list ap;

	if (len && len + 2 < sizeof(s->note)) {
		memcpy(s->note + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= sizeof(s->note))
		return;
	va_start(ap, fmt);
	vsnprintf(s->note + len, sizeof(s->note) - len, fmt, ap);
	va_end(ap);
}

static const struct vxt_source_ops *find_ops(const char *kind, char *err)
{
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (!strcmp(source_table[i]->name, kind))
			return source_table[i];
	snprintf(err, VXT_ERRBUF_SIZE, "unknown source '%s'", kind);
	errno = EINVAL;
	return NULL;
}

/* Open one source with @ops. @return it, or NULL with @rc and the message in
 * @err. */
static struct vxt_source *open_ops(const struct vxt_source_ops *ops,
				   const struct vxt_source_opts *opts,
				   struct vxt_objtab *objs, struct vxt_strtab *strs,
				   char err[VXT_ERRBUF_SIZE], int *rc)
{
	struct vxt_source *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		*rc = -ENOMEM;
		return NULL;
	}
	if (opts->tally_only && !ops->tally) {
		snprintf(err, VXT_ERRBUF_SIZE, "source %s cannot count in the kernel; "
			 "that needs --source ebpf", ops->name);
		*rc = -EINVAL;
		free(s);
		return NULL;
	}
	s->ops = ops;
	s->objs = objs;
	s->strs = strs;
	s->clock_mono = vxt_now_mono();
	s->clock_real = vxt_now_real();
	*rc = ops->open(s, opts);
	if (*rc == 0 && opts->all_phases && !s->all_phases)
		*rc = vxt_source_seterr(s, -EOPNOTSUPP, "--phases all: the %s source captures "
					"issue and completion only; --source ebpf or tracefs "
					"captures every phase", ops->name);
	if (*rc < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s", s->err[0] ? s->err : vxt_strerror(*rc));
		ops->close(s);
		free(s);
		return NULL;
	}
	return s;
}

static const char *why_not(const struct vxt_source_ops *ops, int rc)
{
	const char *why = ops->why ? ops->why(rc) : NULL;

	return why ? why : vxt_strerror(rc);
}

/* The default: the first source of the table whose probe and open succeed.
 * The note of the source picked says why each one before it was not. */
static struct vxt_source *open_default(const struct vxt_source_opts *opts,
				       struct vxt_objtab *objs, struct vxt_strtab *strs,
				       char err[VXT_ERRBUF_SIZE])
{
	char skipped[sizeof(((struct vxt_source *)0)->note)] = "";
	char openerr[VXT_ERRBUF_SIZE] = "";
	struct vxt_source *s;
	size_t i, len = 0;
	int rc;

	for (i = 0; i < NSOURCES; i++) {
		const struct vxt_source_ops *ops = source_table[i];
		const char *why;

		if (!ops->probe)
			continue;
		rc = ops->probe();
		if (rc == 0) {
			s = open_ops(ops, opts, objs, strs, openerr, &rc);
			if (s) {
				if (len)
					snprintf(s->note, sizeof(s->note), "source %s (%s)",
						 ops->name, skipped);
				return s;
			}
			why = openerr;
		} else {
			why = why_not(ops, rc);
		}
		if (rc == -ENOMEM) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s", why);
			return NULL;
		}
		if (len < sizeof(skipped))
			len += (size_t)snprintf(skipped + len, sizeof(skipped) - len, "%s%s: %s",
						len ? "; " : "", ops->name, why);
	}
	snprintf(err, VXT_ERRBUF_SIZE, "no capture source usable here (%s); try --source sim",
		 skipped);
	return NULL;
}

struct vxt_source *vxt_source_open(const char *kind, const struct vxt_source_opts *opts,
				   struct vxt_objtab *objs, struct vxt_strtab *strs,
				   char err[VXT_ERRBUF_SIZE])
{
	const struct vxt_source_ops *ops;
	int rc;

	struct vxt_source *s;

	if (!kind) {
		s = open_default(opts, objs, strs, err);
		if (!s)
			errno = ENODEV;
		return s;
	}
	ops = find_ops(kind, err);
	if (!ops)
		return NULL;
	s = open_ops(ops, opts, objs, strs, err, &rc);
	if (!s)
		errno = -rc;
	return s;
}

int vxt_source_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	if (s->stopped && !s->ops->stop)
		return 0;
	return s->ops->next(s, b, timeout_ms);
}

int vxt_source_stop(struct vxt_source *s)
{
	s->stopped = true;
	return s->ops->stop ? s->ops->stop(s) : 0;
}

int vxt_source_fd(const struct vxt_source *s)
{
	return s->ops->fd ? s->ops->fd(s) : -1;
}

uint64_t vxt_source_lost(const struct vxt_source *s)
{
	return s->lost;
}

bool vxt_source_lost_fails(const struct vxt_source *s)
{
	return s->lost > s->lost_passed && s->ops->lost_fails;
}

void vxt_source_clock(const struct vxt_source *s, uint64_t *mono_ns, uint64_t *real_ns)
{
	*mono_ns = s->clock_mono;
	*real_ns = s->clock_real;
}

const char *vxt_source_name(const struct vxt_source *s)
{
	return s->ops->name;
}

bool vxt_source_speculates(const struct vxt_source *s)
{
	return s->kspec;
}

const char *vxt_source_kspec_why(const struct vxt_source *s)
{
	return s->kspec_why[0] ? s->kspec_why : NULL;
}

bool vxt_source_all_phases(const struct vxt_source *s)
{
	return s->all_phases;
}

int vxt_source_kspec_stats(struct vxt_source *s, struct vxt_kspec_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!s->kspec || !s->ops->kspec_stats)
		return -ENOTSUP;
	return s->ops->kspec_stats(s, st);
}

bool vxt_source_kfilters(const struct vxt_source *s)
{
	return s->kfilter;
}

bool vxt_source_tallies(const struct vxt_source *s)
{
	return s->tally;
}

int vxt_source_tally(struct vxt_source *s, struct vxt_tallies *out)
{
	if (!s->tally || !s->ops->tally)
		return -ENOTSUP;
	return s->ops->tally(s, out);
}

void vxt_tallies_free(struct vxt_tallies *t)
{
	free(t->t);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

const char *vxt_source_error(const struct vxt_source *s)
{
	return s->err;
}

const char *vxt_source_note(const struct vxt_source *s)
{
	return s->note[0] ? s->note : NULL;
}

void vxt_source_close(struct vxt_source *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s);
}

struct vxt_event *vxt_batch_push(struct vxt_batch *b)
{
	if (b->n == b->cap && vxt_grow(&b->ev, &b->cap, b->n + 1, sizeof(*b->ev)) < 0)
		return NULL;
	memset(&b->ev[b->n], 0, sizeof(b->ev[0]));
	return &b->ev[b->n++];
}

void vxt_batch_free(struct vxt_batch *b)
{
	free(b->ev);
	b->ev = NULL;
	b->n = b->cap = 0;
}
