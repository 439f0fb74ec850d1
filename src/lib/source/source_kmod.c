/* source_kmod.c - capture block I/O from the vxtrace kernel module
 *
 * The "kmod" source opens /dev/vxtrace (a private channel, CAP_SYS_ADMIN),
 * makes it an I/O channel of opts->bufsize bytes selecting the objects of
 * opts->objects (a whole device with its partitions, or one partition; none
 * = every device), or, with opts->errors, an error channel (the saved errors
 * not yet discarded, then new ones). It reads the record stream without
 * blocking and decodes it with chanrec.h: object records fill the object
 * table, clock records move the clock anchor, lost records become
 * VXT_PH_LOST events, and error records are done events with their error.
 * Completions seen in interrupt context carry no task: they get the pid and
 * command of their issue (iopair.h). With opts->kspec keyed by object, pid
 * or object,pid, or the request form (slow-io), the channel speculates in
 * the module (VOLIOT_IO_SPECULATE, in the profile's nspec buffers of
 * specsize bytes, kmod_spec.h; a completion in interrupt context keyed
 * by its issue's pid, as here): only what the program commits arrives, late
 * by up to its before window or an I/O's latency, and is put back in time
 * order (evorder.h): the module's horizon records say up to when; the
 * program's counters come as stats records. With opts->all_phases, the
 * channel also sends the queue-side phases (VOLIOT_IO_PHASES: queue, getrq,
 * insert, merges, plug, unplug, split, remap with the device and sector it
 * came from), each one event, and a bio-based device's start record (its
 * block_bio_queue) becomes its queue, so its I/O is followed through its
 * remaps to the request below (pairer.h).
 * Format of the stream: formats/channel.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vxtrace/iopair.h"
#include "source/chanev.h"
#include "source/evorder.h"
#include "source/kmod_spec.h"
#include "source/source_impl.h"
#include "vxtrace/chanrec.h"
#include "vxtrace/sysdev.h"
#include "vxtrace/util.h"

#define KMOD_READ_SIZE	(256u << 10)	/* bytes per read() */
#define KMOD_READ_MAX	(8u << 20)	/* bytes per next() call */
#define KMOD_MAX_OBJS	VOLIOT_WANT_MAX
#define KMOD_KEY_OBJECT	0u	/* enum vxt_spec_key (select layer): object, */
#define KMOD_KEY_PID	1u	/* pid, */
#define KMOD_KEY_OBJECT_PID 2u	/* object,pid, */
#define KMOD_KEY_REQUEST 3u	/* request */

struct kmod {
	int fd;
	bool errors;
	struct vxt_chandec dec;
	struct vxt_iopair *pairs;
	uint8_t *buf;
	struct vxt_chanev names;	/* the last object looked up */
	bool spec;			/* the module speculates: events come late */
	struct vxt_evorder order;	/* ... and are put back in time order here */
	struct voliot_spec_stats stats;	/* its counters, as last read */
	uint32_t nspec;			/* its buffers */
};



static int kmod_probe(void)
{
	return access(VOLIOT_DEVICE, F_OK) == 0 ? 0 : -ENOENT;
}

static const char *kmod_why(int rc)
{
	return rc == -ENOENT ? "no " VOLIOT_DEVICE " (vxtrace.ko not loaded)" : NULL;
}

/* The want list for @objects: a whole device with its partitions, or one
 * partition. @return the number of sets, or a negative errno. */
static int kmod_want(struct vxt_source *s, const char *objects, union voliot_want_set *sets)
{
	uint32_t devs[KMOD_MAX_OBJS], disk;
	uint64_t start;
	int n, i;

	if (!objects || !*objects) {
		memset(&sets[0], 0, sizeof(sets[0]));
		sets[0].type = VOLIOT_WANT_ALL;
		return 1;
	}
	n = vxt_sysdev_resolve(objects, devs, KMOD_MAX_OBJS, s->err);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		memset(&sets[i], 0, sizeof(sets[i]));
		if (vxt_sysdev_partition(devs[i], &disk, &start) == 1) {
			sets[i].dev.type = VOLIOT_WANT_DEV;
			sets[i].dev.dev = devs[i];
		} else {
			sets[i].disk.type = VOLIOT_WANT_DISK;
			sets[i].disk.dev = devs[i];
		}
	}
	return n;
}

/* Context programs keyed by object, pid or object,pid, and the request
 * form, go into the module (the pid of a completion in interrupt context is
 * its issue's, as kmod_io() pairs them: VOLIOT_SPEC_F_ISSUE_PID; horizon
 * records for k->order: VOLIOT_SPEC_F_HORIZON; compact records in pairs,
 * or packed ones, where the module has them: VOLIOT_SPEC_F_COMPACT, _PAIR,
 * _PACKED), with the profile's nspec and specsize (kmod_spec.h); the rest
 * stays in user space (s->kspec false). A module without
 * VOLIOT_IO_SPECULATE (ENOTTY), refusing the program (one from before those
 * flags: EINVAL) or its buffers (past spec_max_bytes: E2BIG, said in
 * s->kspec_why) leaves it to user space too. */
static void kmod_speculate(struct vxt_source *s, struct kmod *k, const struct vxt_kspec *ks,
			   const union voliot_want_set *sets, int nsets)
{
	static const uint32_t packing[] = {
		VOLIOT_SPEC_F_COMPACT | VOLIOT_SPEC_F_PAIR | VOLIOT_SPEC_F_PACKED,
		VOLIOT_SPEC_F_COMPACT | VOLIOT_SPEC_F_PACKED, VOLIOT_SPEC_F_PACKED, 0
	};
	bool req = ks->key == KMOD_KEY_REQUEST;
	struct voliot_spec p;
	uint32_t base;
	size_t i;
	int e;

	/* a before window by time bounds how late a context commit comes; a
	 * request has no window (the module's horizon says, k->order) */
	if (ks->key > KMOD_KEY_REQUEST || (!ks->on_error && !ks->on_latency_ns) ||
	    (req && (ks->before_ns || ks->after_ns || ks->before_events || ks->after_events)) ||
	    (!req && !ks->before_ns) || ks->before_ns > VOLIOT_SPEC_WINDOW_MAX_NS ||
	    ks->after_ns > VOLIOT_SPEC_WINDOW_MAX_NS ||
	    ks->on_latency_ns >= VOLIOT_SPEC_WINDOW_MAX_NS ||
	    ks->before_events > VOLIOT_SPEC_EVENTS_MAX ||
	    ks->after_events > VOLIOT_SPEC_EVENTS_MAX)
		return;
	memset(&p, 0, sizeof(p));
	p.version = VOLIOT_SPEC_VERSION;
	p.size = sizeof(p);
	p.key = ks->key == KMOD_KEY_PID ? VOLIOT_SPEC_KEY_PID :
		ks->key == KMOD_KEY_OBJECT_PID ? VOLIOT_SPEC_KEY_OBJECT_PID :
		req ? VOLIOT_SPEC_KEY_REQUEST : VOLIOT_SPEC_KEY_OBJECT;
	p.flags = VOLIOT_SPEC_F_HORIZON;
	if (ks->key == KMOD_KEY_PID || ks->key == KMOD_KEY_OBJECT_PID)
		p.flags |= VOLIOT_SPEC_F_ISSUE_PID;
	if (ks->on_error)
		p.triggers |= VOLIOT_SPEC_ON_ERROR;
	if (ks->on_latency_ns) {
		p.triggers |= VOLIOT_SPEC_ON_LATENCY;
		p.latency_ns = ks->on_latency_ns + (ks->latency_strict ? 1 : 0);
	}
	p.before_ns = ks->before_ns;
	p.after_ns = ks->after_ns;
	p.before_events = ks->before_events;
	p.after_events = ks->after_events;
	if (vxt_kmod_spec_size(ks, sets, nsets, &p.nspec, &p.specsize, s->kspec_why,
			       sizeof(s->kspec_why)) < 0)
		return;
	p.overflow = VOLIOT_SPEC_DROP_OLDEST;	/* keep what is nearest the trigger */
	/* compact records in pairs, else compact, else packed ones; a module
	 * from before a flag refuses it */
	base = p.flags;
	for (i = 0; i < sizeof(packing) / sizeof(packing[0]); i++) {
		p.flags = base | packing[i];
		if (ioctl(k->fd, VOLIOT_IO_SPECULATE, &p) == 0)
			break;
		e = errno;
		if (e == E2BIG)
			vxt_kmod_spec_toobig(p.nspec, p.specsize,
					     ks->key == KMOD_KEY_OBJECT && p.nspec < ks->nspec,
					     s->kspec_why, sizeof(s->kspec_why));
		if (e != EINVAL || i + 1 == sizeof(packing) / sizeof(packing[0]))
			return;
	}
	k->nspec = p.nspec;
	k->spec = true;
	s->kspec = true;
	/* until the first horizon record: the before window (a request: none) */
	vxt_evorder_init(&k->order, req ? UINT64_MAX : ks->before_ns + VXT_KMOD_SPEC_SLACK_NS);
}

static int kmod_open_io(struct vxt_source *s, struct kmod *k, const struct vxt_source_opts *o)
{
	union voliot_want_set sets[KMOD_MAX_OBJS];
	struct voliot_want_list wl;
	int n;

	if (ioctl(k->fd, VOLIOT_IO_TRACE_INIT, (unsigned long)o->bufsize) < 0)
		return vxt_source_seterr(s, -errno, "%s: VOLIOT_IO_TRACE_INIT: %s",
					 VOLIOT_DEVICE, strerror(errno));
	/* before the speculation: the module speculates at level issue only,
	 * so a context profile with --phases all runs in user space */
	if (o->all_phases) {
		if (ioctl(k->fd, VOLIOT_IO_PHASES, (unsigned long)VOLIOT_PHASES_ALL) < 0)
			return vxt_source_seterr(s, -errno, "%s: VOLIOT_IO_PHASES: %s%s",
						 VOLIOT_DEVICE, strerror(errno), errno == ENOTTY ?
						 " (a vxtrace.ko without --phases all)" : "");
		s->all_phases = true;
	}
	n = kmod_want(s, o->objects, sets);
	if (n < 0)
		return n;
	/* the program before the objects: no event passes unspeculated */
	if (o->kspec)
		kmod_speculate(s, k, o->kspec, sets, n);
	memset(&wl, 0, sizeof(wl));
	wl.count = (uint32_t)n;
	wl.sets = (uint64_t)(uintptr_t)sets;
	if (ioctl(k->fd, VOLIOT_IO_TRACE, &wl) < 0)
		return vxt_source_seterr(s, -errno, "%s: VOLIOT_IO_TRACE: %s",
					 VOLIOT_DEVICE, strerror(errno));
	return 0;
}

static int kmod_open(struct vxt_source *s, const struct vxt_source_opts *o)
{
	struct voliot_info info;
	struct kmod *k;

	k = calloc(1, sizeof(*k));
	if (!k)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	s->priv = k;
	k->fd = -1;
	k->errors = o->errors;
	vxt_chandec_init(&k->dec);
	k->pairs = vxt_iopair_new();
	k->buf = malloc(KMOD_READ_SIZE);
	if (!k->pairs || !k->buf)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	k->fd = open(VOLIOT_DEVICE, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return vxt_source_seterr(s, -e, "%s does not exist (load vxtrace.ko)",
						 VOLIOT_DEVICE);
		if (e == EPERM || e == EACCES)
			return vxt_source_seterr(s, -e, "%s: %s (tracing needs CAP_SYS_ADMIN)",
						 VOLIOT_DEVICE, strerror(e));
		return vxt_source_seterr(s, -e, "%s: %s", VOLIOT_DEVICE, strerror(e));
	}
	if (ioctl(k->fd, VOLIOT_GET_INFO, &info) == 0 && info.abi_version != VOLIOT_ABI_VERSION)
		return vxt_source_seterr(s, -EPROTO, "%s speaks ABI %u, this program %u",
					 VOLIOT_DEVICE, info.abi_version, VOLIOT_ABI_VERSION);
	if (k->errors) {
		if (o->objects && *o->objects)
			return vxt_source_seterr(s, -EINVAL,
						 "an error trace covers every object: drop --objects");
		if (o->all_phases)
			return vxt_source_seterr(s, -EINVAL,
						 "an error trace holds completions only: drop --phases all");
		if (ioctl(k->fd, VOLIOT_ERROR_TRACE_INIT) < 0)
			return vxt_source_seterr(s, -errno, "%s: VOLIOT_ERROR_TRACE_INIT: %s",
						 VOLIOT_DEVICE, strerror(errno));
		return 0;
	}
	return kmod_open_io(s, k, o);
}

struct kmod_feed {
	struct vxt_source *s;
	struct kmod *k;
	struct vxt_batch *b;
	bool drained;			/* a horizon record: the ring was emptied */
};

static int kmod_io(struct kmod_feed *f, const struct voliot_io_rec *r, uint8_t phase)
{
	struct vxt_iopair_val v = { r->time_ns, r->pid, 0 };
	struct vxt_event *e = vxt_chanev_io(f->s, &f->k->names, f->b, r, phase);

	if (!e)
		return -ENOMEM;
	/* the start of an I/O: its issue, or a bio-based device's queue */
	if (phase == VXT_PH_START || (phase == VXT_PH_QUEUE && (r->flags & VOLIOT_F_BIO))) {
		v.comm = e->comm;
		return vxt_iopair_put(f->k->pairs, r->dev, r->sector, r->bytes, &v);
	}
	if (phase == VXT_PH_DONE &&
	    vxt_iopair_take(f->k->pairs, r->dev, r->sector, r->bytes, &v)) {
		if (!e->pid) {
			e->pid = v.pid;
			e->comm = v.comm;
		}
		if (!e->latency_ns && e->time_ns > v.time_ns)
			e->latency_ns = e->time_ns - v.time_ns;
	}
	return 0;
}

/* A remap, with the device and sector it came from (a module before
 * voliot_remap_rec sent none: the source stays unknown). */
static int kmod_remap(struct kmod_feed *f, const struct voliot_remap_rec *r)
{
	struct vxt_event *e = vxt_chanev_io(f->s, &f->k->names, f->b, &r->io, VXT_PH_REMAP);
	int64_t from;

	if (!e)
		return -ENOMEM;
	e->remap_from = 0;
	if (!r->old_dev)
		return 0;
	/* the source becomes an object, so it can be named */
	from = vxt_chanev_object(f->s, &f->k->names, r->old_dev);
	if (from < 0)
		return (int)from;
	e->remap_from = vxt_remap_from_pack((uint32_t)from, r->old_sector);
	return 0;
}

static int kmod_record(const struct vxt_chanrec *rec, void *arg)
{
	struct kmod_feed *f = arg;
	struct vxt_event *e;
	int64_t id;

	switch (rec->type) {
	case VOLIOT_REC_IO_START:
		/* with every phase, a bio-based device's start (its
		 * block_bio_queue) is its queue: its remaps below follow it */
		return kmod_io(f, &rec->u.io, f->s->all_phases && (rec->u.io.flags & VOLIOT_F_BIO) ?
			       VXT_PH_QUEUE : VXT_PH_START);
	case VOLIOT_REC_IO_DONE:
	case VOLIOT_REC_ERROR:
		return kmod_io(f, &rec->u.io, VXT_PH_DONE);
	case VOLIOT_REC_REQUEUE:
		return kmod_io(f, &rec->u.io, VXT_PH_REQUEUE);
	case VOLIOT_REC_QUEUE:
		return kmod_io(f, &rec->u.io, VXT_PH_QUEUE);
	case VOLIOT_REC_GETRQ:
		return kmod_io(f, &rec->u.io, VXT_PH_GETRQ);
	case VOLIOT_REC_INSERT:
		return kmod_io(f, &rec->u.io, VXT_PH_INSERT);
	case VOLIOT_REC_BACKMERGE:
	case VOLIOT_REC_FRONTMERGE:
		return kmod_io(f, &rec->u.io, VXT_PH_MERGE);
	case VOLIOT_REC_PLUG:
		return kmod_io(f, &rec->u.io, VXT_PH_PLUG);
	case VOLIOT_REC_UNPLUG:
		return kmod_io(f, &rec->u.io, VXT_PH_UNPLUG);
	case VOLIOT_REC_SPLIT:
		return kmod_io(f, &rec->u.io, VXT_PH_SPLIT);
	case VOLIOT_REC_REMAP:
		return kmod_remap(f, &rec->u.remap);
	case VOLIOT_REC_LOST:
		e = vxt_batch_push(f->b);
		if (!e)
			return -ENOMEM;
		e->time_ns = rec->u.lost.time_ns;
		e->sector = rec->u.lost.count;
		e->phase = VXT_PH_LOST;
		e->op = VXT_OP_OTHER;
		f->s->lost += rec->u.lost.count;
		return 0;
	case VOLIOT_REC_OBJECT: {
		char name[sizeof(rec->u.object.name) + 1];

		memcpy(name, rec->u.object.name, sizeof(rec->u.object.name));
		name[sizeof(rec->u.object.name)] = '\0';
		id = vxt_objtab_add(f->s->objs, rec->u.object.dev, name, rec->u.object.kind,
				    rec->u.object.nr_sectors * 512);
		return id < 0 ? (int)id : 0;
	}
	case VOLIOT_REC_CLOCK:
		f->s->clock_mono = rec->u.clock.mono_ns;
		f->s->clock_real = rec->u.clock.real_ns;
		return 0;
	case VOLIOT_REC_SPEC_STATS:
		f->k->stats = rec->u.stats;
		return 0;
	case VOLIOT_REC_SPEC_HORIZON:
		/* less the time an event stamped on one CPU can wait for the
		 * channel's lock on another */
		vxt_evorder_horizon(&f->k->order, rec->u.horizon.horizon_ns > VXT_KMOD_SPEC_SLACK_NS ?
				    rec->u.horizon.horizon_ns - VXT_KMOD_SPEC_SLACK_NS : 0);
		f->drained = true;
		return 0;
	}
	return 0;
}

/* Read and decode what the channel holds, up to KMOD_READ_MAX bytes. */
static int kmod_read(struct vxt_source *s, struct kmod *k, struct vxt_batch *b)
{
	struct kmod_feed f = { s, k, b, false };
	size_t total = 0;
	ssize_t n;
	int rc;

	while (total < KMOD_READ_MAX && !f.drained) {
		n = read(k->fd, k->buf, KMOD_READ_SIZE);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return vxt_source_seterr(s, -errno, "%s: read: %s", VOLIOT_DEVICE,
						 strerror(errno));
		}
		if (n == 0)
			break;
		total += (size_t)n;
		rc = vxt_chandec_feed(&k->dec, k->buf, (size_t)n, kmod_record, &f);
		if (rc == -EBADMSG)
			return vxt_source_seterr(s, rc, "%s: malformed record at byte %llu",
						 VOLIOT_DEVICE, (unsigned long long)k->dec.offset);
		if (rc < 0)
			return vxt_source_seterr(s, rc, "%s", vxt_strerror(rc));
	}
	return 0;
}

static int kmod_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	struct kmod *k = s->priv;
	struct pollfd pfd = { .fd = k->fd, .events = POLLIN };
	int rc;

	if (s->stopped) {
		/* What the channel still holds (and its last counters), then the end. */
		if (!k->spec)
			return 0;
		rc = kmod_read(s, k, vxt_evorder_batch(&k->order));
		if (rc == 0 && vxt_evorder_release(&k->order, b, true) < 0)
			rc = vxt_source_seterr(s, -ENOMEM, "out of memory");
		return rc;
	}
	rc = poll(&pfd, 1, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 1 : vxt_source_seterr(s, -errno, "poll: %s",
							       strerror(errno));
	if (rc == 0)
		return 1;
	if (!k->spec) {
		rc = kmod_read(s, k, b);
		return rc < 0 ? rc : 1;
	}
	rc = kmod_read(s, k, vxt_evorder_batch(&k->order));
	if (rc < 0)
		return rc;
	if (vxt_evorder_release(&k->order, b, false) < 0)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	return 1;
}

static int kmod_kspec_stats(struct vxt_source *s, struct vxt_kspec_stats *st)
{
	struct kmod *k = s->priv;
	struct voliot_spec_stats ms;

	if (ioctl(k->fd, VOLIOT_GET_SPEC_STATS, &ms) < 0)
		ms = k->stats;		/* the last record read */
	memset(st, 0, sizeof(*st));
	st->seen = ms.seen;
	st->kept = ms.kept;
	st->commits = ms.commits;
	st->drops = ms.drops;
	st->failed = ms.failed;
	st->max_keys = k->nspec;
	return 0;
}

/* next() hands out what the module still holds, then ends. */
static int kmod_stop(struct vxt_source *s)
{
	(void)s;
	return 0;
}

static int kmod_fd(const struct vxt_source *s)
{
	const struct kmod *k = s->priv;

	return k ? k->fd : -1;
}

static void kmod_close(struct vxt_source *s)
{
	struct kmod *k = s->priv;

	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	vxt_iopair_free(k->pairs);
	vxt_evorder_free(&k->order);
	free(k->buf);
	free(k);
	s->priv = NULL;
}

const struct vxt_source_ops vxt_source_kmod_ops = {
	.name = "kmod",
	.open = kmod_open,
	.next = kmod_next,
	.fd = kmod_fd,
	.close = kmod_close,
	.probe = kmod_probe,
	.why = kmod_why,
	.stop = kmod_stop,
	.kspec_stats = kmod_kspec_stats,
};
