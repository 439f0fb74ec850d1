/* source_tracefs.c - capture block I/O through tracefs on a stock kernel
 *
 * The "tracefs" source needs no module: it creates its own tracefs instance
 * ("<progname>-<pid>"), sets its clock to "mono" (so timestamps are
 * CLOCK_MONOTONIC), enables the block tracepoints with a filter on the
 * selected devices, and reads the binary per-CPU rings (trace_pipe_raw,
 * non-blocking, one epoll fd over all CPUs) with libtracefs/libtraceevent.
 * The hot path is lean: each field is read at the offset learned once from
 * the tracepoint's format (no lookup per event), and a busy capture sweeps
 * the rings at most every TFS_BATCH_NS (sooner when a quarter of a ring
 * would fill first), so each read takes a full page and each wake-up
 * thousands of events.
 *
 * Levels, so no I/O is counted twice: a blk-mq device is traced by its
 * requests (block_rq_issue/complete/requeue/error); a bio-based device (most
 * device-mapper targets, md, zram) by its bios (block_bio_queue/complete,
 * flagged VXT_F_BIO). A stacked device and the disks under it are separate
 * objects, each seen once at its own level. A partition is traced through
 * its disk's requests limited to its sector range.
 *
 * Per-CPU events are merged in time order: events newer than the moment a
 * sweep started (less VXT_TRACEFS_SLACK_NS, source.h) wait for the next sweep, so a
 * completion never overtakes its issue read from another CPU. Completions
 * get their latency, pid and command from the matching issue (iopair.h).
 * Ring overruns (per_cpu/cpuN/stats) become VXT_PH_LOST events. A lost
 * completion leaves its issue paired with nothing: every TFS_RECON_NS the
 * issues are reconciled with the kernel's count of I/O in flight
 * (source_tracefs_recon.c), and each found completed unseen becomes a lost
 * event naming it.
 *
 * With --phases all (opts->all_phases) the other block-layer phases are
 * captured too (queue, getrq, insert, merge, split, remap; tracefs_phases.c).
 *
 * The set-up (devices, levels, filters, rings, parser) is tracefs_setup.c.
 * opts->bufsize is the ring size per CPU (default 4 MiB). The instance is
 * removed by close() on every path; instances of dead recorders found at
 * open are removed too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "vxtrace/iopair.h"
#include "source/rwbs.h"
#include "source/source_impl.h"
#include "source/tracefs_impl.h"
#include "source/tracefs_inst.h"
#include "source/tracefs_page.h"
#include "vxtrace/sysdev.h"
#include "vxtrace/util.h"

static int tfs_open(struct vxt_source *s, const struct vxt_source_opts *opts)
{
	const char *prog = opts->progname && opts->progname[0] ? opts->progname : "vxrecord";
	char name[96];
	struct tfs *t;
	int rc;

	t = calloc(1, sizeof(*t));
	if (!t)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	s->priv = t;
	t->epfd = t->timerfd = -1;
	t->phases = opts->all_phases;
	s->all_phases = t->phases;
	rc = vxt_tracefs_mount(s->err, sizeof(s->err));
	if (rc < 0)
		return rc;
	vxt_tracefs_remove_stale(prog);
	if (strcmp(prog, "vxrecord"))
		vxt_tracefs_remove_stale("vxrecord");
	t->pair = vxt_iopair_new();
	t->recon = vxt_recon_new();
	if (!t->pair || !t->recon)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	rc = vxt_tfs_select_objects(s, t, opts->objects);
	if (rc < 0)
		return rc;
	errno = 0;
	t->inst = vxt_tracefs_instance_new(prog, name, sizeof(name));
	if (!t->inst) {
		int e = errno ? errno : EIO;

		return vxt_source_seterr(s, -e, "tracefs: cannot create the instance "
			"%s/instances/%s: %s%s", tracefs_tracing_dir(), name, strerror(e),
			e == EACCES || e == EPERM ? " (needs root)" : "");
	}
	if ((rc = vxt_tfs_setup_buffers(s, t, opts->bufsize)) < 0 ||
	    (rc = vxt_tfs_setup_parser(s, t)) < 0 ||
	    (rc = vxt_tfs_open_cpus(s, t)) < 0 ||
	    (rc = vxt_tfs_setup_events(s, t)) < 0 ||
	    (rc = vxt_tfs_learn_fields(s, t)) < 0)
		return rc;
	tracefs_trace_on(t->inst);
	s->clock_mono = vxt_now_mono();
	s->clock_real = vxt_now_real();
	t->stats_ns = s->clock_mono;
	t->recon_ns = s->clock_mono + TFS_RECON_NS;
	return 0;
}

static void tfs_close(struct vxt_source *s)
{
	struct tfs *t = s->priv;
	int i;

	if (!t)
		return;
	if (t->inst)
		tracefs_trace_off(t->inst);
	for (i = 0; t->cpu && i < t->ncpu; i++)
		if (t->cpu[i].fd >= 0)
			close(t->cpu[i].fd);
	if (t->inst) {
		for (i = 0; i < K_COUNT; i++)
			if (t->ev[i].id >= 0 && t->ev[i].ev)
				tracefs_event_disable(t->inst, "block", tfs_event_names[i]);
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->timerfd >= 0)
		close(t->timerfd);
	if (t->tep)
		tep_free(t->tep);
	vxt_iopair_free(t->pair);
	vxt_recon_free(t->recon);
	free(t->cpu);
	free(t->page);
	free(t->pend);
	free(t->sorted);
	free(t);
	s->priv = NULL;
}

static int tfs_probe(void)
{
	return vxt_tracefs_usable();
}

static int tfs_fd(const struct vxt_source *s)
{
	const struct tfs *t = s->priv;

	return t ? t->epfd : -1;
}

/* ---- reading ---- */

/* A number field at its fixed offset (host byte order: the local rings). */
static inline uint64_t fld_num(const struct tfs_fld *f, const char *data)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (f->size) {
	case 8: memcpy(&v8, data + f->off, 8); return v8;
	case 4: memcpy(&v4, data + f->off, 4); return v4;
	case 2: memcpy(&v2, data + f->off, 2); return v2;
	case 1: return (uint8_t)data[f->off];
	default: return 0;
	}
}

static inline void fld_str(const struct tfs_fld *f, const char *data, char *buf, size_t size)
{
	size_t n = f->size < size - 1 ? f->size : size - 1;

	memcpy(buf, data + f->off, n);
	buf[n] = '\0';
}

static struct tfs_raw *pend_push(struct tfs *t)
{
	if (t->npend == t->cappend) {
		/* pend[] and sorted[] share one capacity: it is raised once both grew */
		size_t capp = t->cappend, caps = t->cappend;

		if (vxt_grow(&t->pend, &capp, t->npend + 1, sizeof(*t->pend)) < 0 ||
		    vxt_grow(&t->sorted, &caps, t->npend + 1, sizeof(*t->sorted)) < 0)
			return NULL;
		t->cappend = capp;
	}
	return &t->pend[t->npend++];
}

/* One record of @size bytes. The fields are read at the offsets learned
 * from the format at open (vxt_tfs_learn_fields()): no lookup per event. */
static int decode_record(struct tfs *t, const char *data, uint32_t size, uint64_t ts, int cpu)
{
	uint16_t type;
	struct tfs_evdesc *d;
	struct tfs_raw *r;
	int k;

	memcpy(&type, data, sizeof(type));
	for (k = 0; k < K_COUNT; k++)
		if (t->ev[k].id == type)
			break;
	if (k == K_COUNT)
		return 0;
	d = &t->ev[k];
	if (size < d->need)
		return 0;	/* not the format we know */
	r = pend_push(t);
	if (!r)
		return -ENOMEM;
	t->seen[k]++;
	r->ts = ts;
	r->kind = (uint8_t)k;
	r->cpu = (uint16_t)cpu;
	memcpy(&r->pid, data + 4, sizeof(r->pid));
	r->dev = (uint32_t)fld_num(&d->fdev, data);
	r->sector = fld_num(&d->fsector, data);
	/* a flush request completes at sector (sector_t)-1 and is issued at 0
	 * (blk_rq_trace_sector()): one place for both */
	if (r->sector == UINT64_MAX)
		r->sector = 0;
	r->nr_sector = (uint32_t)fld_num(&d->fnr_sector, data);
	r->bytes = d->fbytes.size ? (uint32_t)fld_num(&d->fbytes, data) : r->nr_sector * 512u;
	r->error = d->ferror.size ? (int32_t)fld_num(&d->ferror, data) : 0;
	fld_str(&d->frwbs, data, r->rwbs, sizeof(r->rwbs));
	fld_str(&d->fcomm, data, r->comm, sizeof(r->comm));
	if (k >= K_PHASE_FIRST)
		vxt_tfs_decode_phase(d, (void *)data, r);
	return 0;
}

/* Read every full or partial page waiting on @cpu: all of it, as the merge
 * in time order needs (sweep()). @return bytes of ring read or -errno. */
static ssize_t read_cpu(struct tfs *t, int cpu)
{
	struct tfs_page pg;
	const void *data;
	size_t got = 0;
	uint64_t ts;
	uint32_t len;
	ssize_t n;
	int rc;

	for (;;) {
		n = read(t->cpu[cpu].fd, t->page, t->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -errno : (ssize_t)got;
		got += t->page_size;
		if (vxt_tfs_page_load(&pg, t->page, (size_t)n, t->long_size, t->big) < 0)
			continue;
		while ((data = vxt_tfs_page_next(&pg, &len, &ts)))
			if ((rc = decode_record(t, data, len, ts, cpu)) < 0)
				return rc;
	}
}

static int cmp_raw(const void *a, const void *b)
{
	const struct tfs_raw *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Sort the pending events by time. They arrive as a few runs already in
 * order (what was held back, then each CPU's ring in turn), so a natural
 * merge sort takes one pass per doubling of the run count, instead of a
 * general sort's log2(n) passes: the sort was the costliest step of a sweep. */
static void sort_pending(struct tfs *t)
{
	struct tfs_raw *src = t->pend, *dst = t->sorted, *tmp;
	size_t n = t->npend, i, a, b, end, mid;
	bool sorted = false;

	while (!sorted) {
		sorted = true;
		for (i = 0; i < n; i = end) {
			/* the run [i, mid) and the run [mid, end) */
			for (mid = i + 1; mid < n && cmp_raw(&src[mid - 1], &src[mid]) <= 0; mid++)
				;
			if (mid == n) {
				if (i == 0)
					break;	/* one run: in order */
				memcpy(dst + i, src + i, (n - i) * sizeof(*src));
				end = n;
				continue;
			}
			sorted = false;
			for (end = mid + 1; end < n && cmp_raw(&src[end - 1], &src[end]) <= 0; end++)
				;
			for (a = i, b = mid; a < mid || b < end;)
				dst[i++] = b >= end || (a < mid && cmp_raw(&src[a], &src[b]) <= 0) ?
					   src[a++] : src[b++];
		}
		if (sorted)
			break;
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != t->pend) {	/* the result is in the other buffer: swap them */
		t->sorted = t->pend;
		t->pend = src;
	}
}

/* @return the object id for an event, or -1 to drop it. */
int64_t vxt_tfs_route_event(struct vxt_source *s, struct tfs *t, const struct tfs_raw *r,
			    bool bio)
{
	size_t i;
	int64_t obj;

	for (i = 0; i < t->nroute; i++) {
		const struct tfs_route *ro = &t->route[i];

		if (ro->dev == r->dev && ro->bio == bio && r->sector >= ro->lo &&
		    r->sector < ro->hi)
			return ro->obj;
	}
	if (!t->all || bio)
		return -1;
	obj = vxt_tfs_add_object(s, r->dev);
	if (obj >= 0 && vxt_tfs_add_route(s, t, r->dev, 0, UINT64_MAX, (uint32_t)obj, false) < 0)
		t->nroute = TFS_MAX_OBJS;	/* table full: later devices go through add_object */
	return obj;
}

uint32_t vxt_tfs_comm_id(struct vxt_source *s, struct tfs *t, uint32_t pid, const char *comm)
{
	struct tfs_comm_cache *c = &t->comm[pid & 255];
	int64_t id;

	if (!comm[0])
		return 0;
	if (c->id && c->pid == pid && !strncmp(c->comm, comm, sizeof(c->comm)))
		return c->id;
	id = vxt_strtab_intern(s->strs, comm, strnlen(comm, 16));
	if (id < 0)
		return 0;
	c->pid = pid;
	c->id = (uint32_t)id;
	memcpy(c->comm, comm, sizeof(c->comm));
	return (uint32_t)id;
}

/* block_rq_error repeats the error of the block_rq_complete just before it;
 * remember errors seen on completions so the repeat is dropped. */
static bool recent_error(struct tfs *t, const struct tfs_raw *r, bool add)
{
	unsigned i;

	if (add) {
		t->recent_err[t->nrecent++ % TFS_RECENT_ERR].dev = r->dev;
		t->recent_err[(t->nrecent - 1) % TFS_RECENT_ERR].sector = r->sector;
		return true;
	}
	for (i = 0; i < TFS_RECENT_ERR && i < t->nrecent; i++)
		if (t->recent_err[i].dev == r->dev && t->recent_err[i].sector == r->sector) {
			t->recent_err[i].dev = UINT32_MAX;
			return true;
		}
	return false;
}

/* The pairing key's size: a request is under 2^32 bytes, so nr_sector is
 * under 2^23 and the op fits above it. It keeps a flush request (0 + 0) apart
 * from the empty write that ends a flush sequence at the same place. */
static uint32_t pair_size(const struct tfs_raw *r, uint8_t op)
{
	return r->nr_sector | (uint32_t)op << 28;
}

/* Turn one raw event into a vxt_event in @b (or nothing). @return 0 or -ENOMEM.
 *
 * A write with PREFLUSH or FUA goes through the kernel's flush machinery:
 * the flush requests (rwbs "FF") and the data request are issued and
 * completed on their own, then the original request completes once more
 * with no sectors left and no issue of its own. That last completion is no
 * I/O of the device: it is counted (flush_ends) and not recorded. */
static int emit(struct vxt_source *s, struct tfs *t, const struct tfs_raw *r,
		struct vxt_batch *b)
{
	bool bio = r->kind == K_BIO_QUEUE || r->kind == K_BIO_COMPLETE;
	bool done = r->kind != K_RQ_ISSUE && r->kind != K_BIO_QUEUE && r->kind != K_RQ_REQUEUE;
	struct vxt_iopair_val v = { r->ts, r->pid, 0 };
	struct vxt_event *e;
	bool paired = false;
	uint16_t flags;
	int64_t obj;
	uint8_t op;

	if (r->kind == K_RQ_ERROR && recent_error(t, r, false))
		return 0;
	if (t->phases && (r->kind >= K_PHASE_FIRST || r->kind == K_BIO_QUEUE)) {
		int rc = vxt_tfs_emit_phase(s, t, r, b);

		if (rc)
			return rc < 0 ? rc : 0;
	}
	obj = vxt_tfs_route_event(s, t, r, bio);
	if (obj < 0)
		return 0;
	vxt_rwbs_parse(r->rwbs, r->sector, r->nr_sector, &op, &flags);
	if (done || r->kind == K_RQ_REQUEUE)
		paired = vxt_iopair_take(t->pair, r->dev, r->sector, pair_size(r, op), &v);
	if (done && !paired && !bio && r->nr_sector == 0 && op != VXT_OP_FLUSH &&
	    op != VXT_OP_PASSTHRU && op != VXT_OP_OTHER) {
		t->flush_ends++;
		return 0;
	}
	e = vxt_batch_push(b);
	if (!e)
		return -ENOMEM;
	e->time_ns = r->ts;
	e->sector = r->sector;
	e->bytes = r->bytes;
	e->object = (uint32_t)obj;
	e->pid = r->pid;
	e->cpu = r->cpu;
	e->op = op;
	e->flags = flags;
	if (bio)
		e->flags |= VXT_F_BIO;
	switch (r->kind) {
	case K_RQ_ISSUE:
	case K_BIO_QUEUE:
		/* with every phase, a bio-based device's block_bio_queue is its
		 * queue, which its remaps to the devices below follow */
		e->phase = r->kind == K_BIO_QUEUE && t->phases ? VXT_PH_QUEUE : VXT_PH_START;
		e->comm = vxt_tfs_comm_id(s, t, r->pid, r->comm);
		v.comm = e->comm;
		return vxt_iopair_put(t->pair, r->dev, r->sector, pair_size(r, op), &v);
	case K_RQ_REQUEUE:
		e->phase = VXT_PH_REQUEUE;
		break;
	default:	/* completions and errors */
		e->phase = VXT_PH_DONE;
		e->error = (int16_t)(r->error > 0 ? -r->error : r->error);
		if (e->error && r->kind == K_RQ_COMPLETE)
			recent_error(t, r, true);
		if (paired)
			e->latency_ns = r->ts >= v.time_ns ? r->ts - v.time_ns : 0;
		break;
	}
	if (paired) {
		e->pid = v.pid;
		e->comm = v.comm;
	}
	return 0;
}

/* Ring overruns since the last look become LOST events. */
static int check_lost(struct vxt_source *s, struct tfs *t, struct vxt_batch *b)
{
	char file[64], *text, *p;
	uint64_t total, now = vxt_now_mono();
	struct vxt_event *e;
	int i;

	t->stats_ns = now;
	for (i = 0; i < t->ncpu; i++) {
		if (t->cpu[i].fd < 0)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", i);
		text = tracefs_instance_file_read(t->inst, file, NULL);
		if (!text)
			continue;
		total = 0;
		if ((p = strstr(text, "\noverrun:")) || !strncmp(p = text, "overrun:", 8))
			total += strtoull(strchr(p, ':') + 1, NULL, 10);
		if ((p = strstr(text, "commit overrun:")))
			total += strtoull(strchr(p, ':') + 1, NULL, 10);
		if ((p = strstr(text, "dropped events:")))
			total += strtoull(strchr(p, ':') + 1, NULL, 10);
		free(text);
		if (total <= t->cpu[i].lost)
			continue;
		e = vxt_batch_push(b);
		if (!e)
			return -ENOMEM;
		e->time_ns = t->last_ts > now ? t->last_ts : now;
		e->phase = VXT_PH_LOST;
		e->op = VXT_OP_OTHER;
		e->cpu = (uint16_t)i;
		e->sector = total - t->cpu[i].lost;
		s->lost += e->sector;
		t->cpu[i].lost = total;
	}
	return 0;
}

/* Read every CPU, hand out the events up to the cut in time order.
 * @return events added to @b, or a negative errno. */
static int sweep(struct vxt_source *s, struct tfs *t, struct vxt_batch *b, bool all)
{
	uint64_t cut = vxt_now_mono(), exp, start = cut, due, now;
	size_t n0 = b->n, i, keep, most = 0;
	struct itimerspec its = { 0 };
	ssize_t got;
	int cpu, rc;

	/* the timer only made the fd readable: clear it once it fired */
	if (t->timer_due && cut >= t->timer_due) {
		if (read(t->timerfd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp))
			t->timer_due = 0;
		else if (errno != EAGAIN)
			return vxt_source_seterr(s, -errno, "tracefs: timerfd: %s",
						 strerror(errno));
	}
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		if (t->cpu[cpu].fd < 0)
			continue;
		got = read_cpu(t, cpu);
		if (got < 0)
			return vxt_source_seterr(s, (int)got, "tracefs: reading cpu%d: %s", cpu,
						 strerror((int)-got));
		if ((size_t)got > most)
			most = (size_t)got;
	}
	/* busy: wait before the next sweep, at most TFS_BATCH_NS and short of a
	 * quarter of the ring at the rate just seen */
	t->batch_ns = 0;
	if (most && start > t->sweep_ns) {
		double w = (double)(start - t->sweep_ns) * (double)(t->ring_bytes / 4) /
			   (double)most;

		t->batch_ns = w < (double)TFS_BATCH_NS ? (uint64_t)w : TFS_BATCH_NS;
	}
	t->sweep_ns = start;
	cut = all ? UINT64_MAX : cut - VXT_TRACEFS_SLACK_NS;
	if (t->npend > 1)
		sort_pending(t);
	for (i = 0; i < t->npend && t->pend[i].ts <= cut; i++)
		if ((rc = emit(s, t, &t->pend[i], b)) < 0)
			return vxt_source_seterr(s, rc, "out of memory");
	t->recon_events += i;
	if (i) {
		t->last_ts = t->pend[i - 1].ts;
		keep = t->npend - i;
		memmove(t->pend, t->pend + i, keep * sizeof(*t->pend));
		t->npend = keep;
	}
	if (all || vxt_now_mono() - t->stats_ns >= TFS_STATS_NS) {
		rc = check_lost(s, t, b);
		if (rc < 0)
			return vxt_source_seterr(s, rc, "out of memory");
	}
	if (!all && (rc = vxt_tfs_reconcile(s, t, b, cut)) < 0)
		return vxt_source_seterr(s, rc, "out of memory");
	/* make the fd readable again once the events kept are due, or (issues
	 * in flight) the next round: a caller that waits on the fd alone then
	 * sees an overrun's lost completions go, the device at rest */
	due = t->npend ? vxt_now_mono() + VXT_TRACEFS_SLACK_NS + 100000 :
	      !all && vxt_iopair_count(t->pair) ? t->recon_ns + 1 : 0;
	if (due && (!t->timer_due || due < t->timer_due)) {
		now = vxt_now_mono();
		its.it_value.tv_sec = due > now ? (time_t)((due - now) / 1000000000u) : 0;
		its.it_value.tv_nsec = due > now ? (long)((due - now) % 1000000000u) : 1;
		if (timerfd_settime(t->timerfd, 0, &its, NULL) == 0)
			t->timer_due = due;
	}
	return (int)(b->n - n0);
}

/* A busy capture waits a little before it sweeps again (t->batch_ns), so
 * that one sweep takes many events; never past @deadline. @return true when
 * a signal came. */
static bool batch_wait(struct tfs *t, uint64_t deadline)
{
	uint64_t now, until = t->sweep_ns + t->batch_ns;
	struct timespec ts;

	if (!t->batch_ns)
		return false;
	if (until > deadline)
		until = deadline;
	now = vxt_now_mono();
	if (now >= until)
		return false;
	ts.tv_sec = (time_t)((until - now) / 1000000000u);
	ts.tv_nsec = (long)((until - now) % 1000000000u);
	return nanosleep(&ts, NULL) < 0 && errno == EINTR;
}

static int tfs_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	struct tfs *t = s->priv;
	struct epoll_event ee[16];
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX :
			    vxt_now_mono() + (uint64_t)timeout_ms * 1000000;
	int rc, wait;

	if (t->stopped) {
		rc = sweep(s, t, b, true);
		if (rc == 0 && t->phases)
			vxt_tfs_phase_note(s, t);
		return rc < 0 ? rc : rc > 0;
	}
	if (batch_wait(t, deadline))
		return 1;	/* let the caller see its signal */
	for (;;) {
		rc = sweep(s, t, b, false);
		if (rc != 0)
			return rc < 0 ? rc : 1;
		if (vxt_now_mono() >= deadline)
			return 1;
		wait = deadline == UINT64_MAX ? 100 :
		       (int)((deadline - vxt_now_mono()) / 1000000) + 1;
		if (wait > 100)
			wait = 100;
		if (epoll_wait(t->epfd, ee, 16, wait) < 0) {
			if (errno == EINTR)
				return 1;	/* let the caller see its signal */
			return vxt_source_seterr(s, -errno, "tracefs: epoll_wait: %s",
						 strerror(errno));
		}
	}
}

/* Stop recording: what the rings hold is still handed out by next(). */
static int tfs_stop(struct vxt_source *s)
{
	struct tfs *t = s->priv;

	if (t && t->inst)
		tracefs_trace_off(t->inst);
	if (t)
		t->stopped = true;
	return 0;
}

const struct vxt_source_ops vxt_source_tracefs_ops = {
	.name = "tracefs",
	.open = tfs_open,
	.next = tfs_next,
	.fd = tfs_fd,
	.close = tfs_close,
	.probe = tfs_probe,
	.stop = tfs_stop,
};
