/* source_ebpf.c - capture block I/O with eBPF programs on a stock kernel
 *
 * The "ebpf" source loads the CO-RE programs of bpf/vxtrace.bpf.c (embedded
 * as a libbpf skeleton), relocated at load time through the running kernel's
 * BTF (/sys/kernel/btf/vmlinux), and attaches them to the block layer's
 * request tracepoints. It needs no module and no tracefs, only the BPF
 * syscall (root, or CAP_BPF + CAP_PERFMON) and BTF.
 *
 * The kernel side selects the objects (opts->objects) and pairs every
 * completion with its issue; records arrive in a BPF ring buffer of
 * opts->bufsize bytes (default 4 MiB) in the channel record layout of
 * voltrace.h and are decoded with chanrec.h, as the module's are. The ring
 * is read every EBPF_READ_NS (a timer) or when the kernel wakes us at a
 * quarter full, never once per record. A completion the kernel ran its
 * tracepoint for without our programs is found when its request is issued
 * again, or every EBPF_RECON_NS and when the capture ends by the device's
 * own count of I/O in flight (ebpf_recon.h, on the programs' inflight
 * table mapped here); each becomes a lost event naming its I/O (not a
 * failed capture), so no view keeps it in flight, as does
 * an issue whose program run the kernel skipped (recursion_misses of the
 * issue program's bpf_prog_info). Records
 * the kernel could not put in a full ring are counted there and become
 * VXT_PH_LOST events. With opts->kspec the kernel also speculates (see
 * vxtrace.bpf.c), in windows sized from the profile's nspec and specsize
 * (ebpf_setup.c): only the events the program keeps cross to user space.
 * With opts->tally the kernel also counts (struct vxt_tally, read by
 * ebpf_tally.c when asked), from the records it makes; with tally_only it
 * only counts and no event crosses. Programs and maps are held by file descriptors only
 * (no pinning), so they go away with the process on every exit, SIGKILL
 * included.
 *
 * Before loading, the kernel's BTF is read and each tracepoint the programs
 * attach to is looked up in it (btf_trace_NAME), so a kernel without one is
 * named in one line; a refusal by the verifier names the program and
 * libbpf's reason. VXT_EBPF_BTF, a diagnostic knob (vxrecord(1)), names
 * another file to read as the kernel's BTF, for that check and for the CO-RE
 * relocations; the running kernel still checks the programs. VXT_EBPF_NOOP,
 * another (tests/bench/ebpf.sh's floor), loads and attaches the programs but
 * has each return at once: what attaching them costs the traced I/O; set to
 * "clock", the issue's and the completion's programs read the clock once
 * before they return: the least a latency measured in the kernel costs.
 *
 * Built without the skeleton (no clang, bpftool or libbpf at build time),
 * the source is present but its probe and open say so.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include "source/chanev.h"
#include "source/ebpf_tally.h"
#include "source/source_impl.h"
#include "vxtrace/chanrec.h"
#include "vxtrace/util.h"

#define EBPF_BTF		"/sys/kernel/btf/vmlinux"
#define EBPF_READ_NS		10000000	/* the ring is read this often */

#ifdef VXT_HAVE_EBPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "source/ebpf_impl.h"

/* The kernel's BTF file: VXT_EBPF_BTF (a diagnostic knob) or EBPF_BTF. */
static const char *btf_path(void)
{
	const char *p = getenv("VXT_EBPF_BTF");

	return p && *p ? p : EBPF_BTF;
}

static int ebpf_probe(void)
{
	if (access(btf_path(), R_OK) != 0)
		return -ENOENT;
	return geteuid() == 0 ? 0 : -EPERM;
}

static const char *ebpf_why(int rc)
{
	switch (rc) {
	case -ENOENT: {
		static char why[300];

		snprintf(why, sizeof(why), "the kernel has no BTF (%s)", btf_path());
		return why;
	}
	case -EPERM:
		return "loading BPF programs needs root";
	case -ENOTSUP:
		return "built without BPF programs (clang, bpftool, libbpf-dev)";
	}
	return NULL;
}

static int ebpf_io(struct ebpf *e, const struct voliot_io_rec *r, uint8_t phase)
{
	return vxt_chanev_io(e->src, &e->names, e->batch, r, phase) ? 0 : -ENOMEM;
}

/* The event of a phase record (VXT_BPF_REC_PHASE): a remap's source
 * device becomes an object, so it can be named. */
static int phase_io(struct vxt_source *s, struct ebpf *e, const struct voliot_io_rec *r)
{
	uint8_t phase = r->reserved0;
	struct vxt_event *ev;
	int64_t from = -1;

	if (phase < VXT_BPF_PH_QUEUE || phase >= VXT_PH_COUNT)
		return -EBADMSG;
	if (phase == VXT_PH_REMAP && r->error) {
		from = vxt_chanev_object(s, &e->names, (uint32_t)r->error);
		if (from < 0)
			return -ENOMEM;
	}
	ev = vxt_chanev_io(s, &e->names, e->batch, r, phase);
	if (!ev)
		return -ENOMEM;
	ev->error = 0;
	ev->latency_ns = 0;
	if (from >= 0)
		ev->remap_from = vxt_remap_from_pack((uint32_t)from, r->latency_ns);
	if (phase == VXT_PH_PLUG || phase == VXT_PH_UNPLUG) {
		ev->op = VXT_OP_OTHER;
		ev->flags = 0;
	}
	return 0;
}

static int ebpf_record(const struct vxt_chanrec *rec, void *arg)
{
	struct ebpf *e = arg;

	switch (rec->type) {
	case VOLIOT_REC_IO_START:
		return ebpf_io(e, &rec->u.io, VXT_PH_START);
	case VOLIOT_REC_IO_DONE:
		return ebpf_io(e, &rec->u.io, VXT_PH_DONE);
	case VOLIOT_REC_REQUEUE:
		return ebpf_io(e, &rec->u.io, VXT_PH_REQUEUE);
	}
	return 0;	/* other types: skipped by length, as on a channel */
}

/* One record from the ring. The programs' own I/O records (one whole
 * struct voliot_io_rec in host order each) become events as they are; any
 * other is decoded as a channel record. */
static int ring_cb(void *ctx, void *data, size_t size)
{
	const struct voliot_io_rec *r = data;
	struct ebpf *e = ctx;
	int rc;

	if (e->rc)
		return 0;
	if (size == sizeof(*r) && r->len == sizeof(*r) && r->type == VXT_BPF_REC_MISSED) {
		rc = vxt_ebpf_missed_io(e->src, e, r);
		if (rc < 0)
			e->rc = rc;
		return 0;
	}
	if (size == sizeof(*r) && r->len == sizeof(*r) && r->type == VXT_BPF_REC_PHASE) {
		rc = phase_io(e->src, e, r);
		if (rc < 0)
			e->rc = rc;
		return 0;
	}
	if (size == sizeof(*r) && r->len == sizeof(*r) && !e->dec.npartial &&
	    (r->type == VOLIOT_REC_IO_START || r->type == VOLIOT_REC_IO_DONE ||
	     r->type == VOLIOT_REC_REQUEUE)) {
		e->dec.offset += size;
		e->dec.records++;
		rc = ebpf_io(e, r, r->type == VOLIOT_REC_IO_START ? VXT_PH_START :
			     r->type == VOLIOT_REC_IO_DONE ? VXT_PH_DONE : VXT_PH_REQUEUE);
		if (rc < 0)
			e->rc = rc;
		return 0;
	}
	rc = vxt_chandec_feed(&e->dec, data, size, ebpf_record, e);
	if (rc < 0)
		e->rc = rc;
	return 0;
}

static uint64_t kernel_counter(struct ebpf *e, uint32_t which)
{
	uint64_t vals[e->ncpu > 0 ? e->ncpu : 1], sum = 0;
	int i;

	if (bpf_map__lookup_elem(e->skel->maps.counters, &which, sizeof(which), vals,
				 sizeof(vals), 0))
		return 0;
	for (i = 0; i < e->ncpu; i++)
		sum += vals[i];
	return sum;
}

/* The runs of the issue program the kernel skipped (bpf_prog_info's
 * recursion_misses: a run of it was already under way on that CPU), each an
 * issue lost; 0 when it cannot be read. A skipped completion or requeue
 * needs no such count: its request's next issue finds its issue still
 * remembered (VXT_BPF_MISSED), or it is among the unfinished at the end. */
static uint64_t skipped_issues(struct ebpf *e)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(e->skel->progs.vxt_rq_issue), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* The losses that no larger ring would avoid and no lost event names
 * (issues whose program run was skipped; counting only, the completions
 * that never ran the programs) since the last call: counted lost and passed
 * (they do not fail the capture). @return them. */
static uint64_t passed_losses(struct vxt_source *s, struct ebpf *e)
{
	uint64_t skipped = skipped_issues(e), n, missed;

	if (skipped < e->skipped_seen)
		skipped = e->skipped_seen;
	n = skipped - e->skipped_seen;
	e->skipped_seen = skipped;
	if (e->skel->rodata->tally_only) {	/* no record tells of them */
		missed = kernel_counter(e, VXT_BPF_MISSED) + e->missed_end_tally;
		if (missed > e->missed_seen) {
			n += missed - e->missed_seen;
			e->missed_seen = missed;
		}
	}
	s->lost += n;
	s->lost_passed += n;
	return n;
}

/* Events the kernel dropped since the last call (a full ring), completions
 * that never ran the programs and skipped issues become one LOST event. Only
 * the first fail the capture (a larger ring keeps them). */
static int report_lost(struct vxt_source *s, struct ebpf *e, struct vxt_batch *b)
{
	uint64_t lost = kernel_counter(e, VXT_BPF_LOST), passed = passed_losses(s, e);
	struct vxt_event *ev;

	if (lost < e->lost_seen)
		lost = e->lost_seen;
	if (lost == e->lost_seen && !passed)
		return 0;
	ev = vxt_batch_push(b);
	if (!ev)
		return -ENOMEM;
	ev->time_ns = vxt_now_mono();
	ev->sector = lost - e->lost_seen + passed;
	ev->phase = VXT_PH_LOST;
	ev->op = VXT_OP_OTHER;
	s->lost += lost - e->lost_seen;
	e->lost_seen = lost;
	return 0;
}

/* The fd next() waits on: the ring's (woken at its fill marks) and a timer
 * every EBPF_READ_NS. */
static int open_wait(struct vxt_source *s, struct ebpf *e)
{
	struct itimerspec its = { .it_interval.tv_nsec = EBPF_READ_NS,
				  .it_value.tv_nsec = EBPF_READ_NS };
	struct epoll_event ev = { .events = EPOLLIN };

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0)
		return vxt_source_seterr(s, -errno, "ebpf: epoll: %s", strerror(errno));
	ev.data.fd = ring_buffer__epoll_fd(e->rb);
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) < 0)
		return vxt_source_seterr(s, -errno, "ebpf: epoll: %s", strerror(errno));
	if (e->skel->rodata->tally_only)
		return 0;	/* nothing comes through the ring */
	e->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->timerfd < 0 || timerfd_settime(e->timerfd, 0, &its, NULL) < 0)
		return vxt_source_seterr(s, -errno, "ebpf: timerfd: %s", strerror(errno));
	ev.data.fd = e->timerfd;
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->timerfd, &ev) < 0)
		return vxt_source_seterr(s, -errno, "ebpf: epoll: %s", strerror(errno));
	return 0;
}

static int ebpf_open(struct vxt_source *s, const struct vxt_source_opts *o)
{
	bool all = !o->objects || !*o->objects;
	/* the BPF program has no key request; the windows are sized below */
	/* every phase: the speculation runs in user space, over all of them */
	bool phases = o->all_phases && !o->tally_only;
	bool spec = !o->tally_only && !phases && o->kspec &&
		    o->kspec->key <= VXT_BPF_KEY_OBJECT_PID;
	uint32_t keys = 1, window = 1;
	const char *btf = btf_path(), *noop, *skip;
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .btf_custom_path = strcmp(btf, EBPF_BTF) ? btf : NULL);
	struct ebpf *e;
	long ring;
	bool kf;
	int rc;

	if (access(btf, R_OK) != 0)
		return vxt_source_seterr(s, -ENOENT, "ebpf: the kernel has no BTF (%s missing); "
					 "use --source tracefs", btf);
	/* counting, nothing goes to the ring: the smallest one */
	ring = o->tally_only ? EBPF_MIN_BUF : vxt_ebpf_ring_size(s, o->bufsize);
	if (ring < 0)
		return (int)ring;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->priv = e;
	e->src = s;
	e->epfd = e->timerfd = -1;
	e->ncpu = libbpf_num_possible_cpus();
	if (e->ncpu <= 0)
		return vxt_source_seterr(s, -EIO, "ebpf: cannot count the CPUs");
	vxt_ebpf_libbpf_quiet();
	e->skel = vxtrace_bpf__open_opts(&oo);
	if (!e->skel)
		return vxt_source_seterr(s, -errno, "ebpf: cannot open the BPF programs: %s",
					 strerror(errno));
	if ((rc = vxt_ebpf_check_tracepoints(s, e, btf, phases)) < 0)
		return rc;
	if (e->missing[0])
		vxt_source_add_note(s, "--phases all: the kernel has no %s tracepoint (no BTF "
				    "for it): those phases were not captured; --source tracefs "
				    "reads what tracefs has", e->missing);
	e->skel->rodata->want_all = all;
	if (!all && (rc = vxt_ebpf_select_objects(s, e, o->objects)) < 0)
		return rc;
	if (spec && !vxt_ebpf_spec_fits(s, e, o->kspec, all, &keys, &window))
		spec = false;
	if (spec) {
		const struct vxt_kspec *k = o->kspec;

		if (k->key > VXT_BPF_KEY_OBJECT_PID)
			return vxt_source_seterr(s, -EINVAL, "ebpf: the kernel program keys by "
						 "object, pid or object,pid only");
		e->skel->rodata->spec_on = true;
		e->skel->rodata->spec_key = k->key;
		e->skel->rodata->spec_before_ns = k->before_ns;
		e->skel->rodata->spec_after_ns = k->after_ns;
		e->skel->rodata->spec_before_events = k->before_events;
		e->skel->rodata->spec_after_events = k->after_events;
		e->skel->rodata->spec_on_error = k->on_error;
		e->skel->rodata->spec_on_latency_ns = k->on_latency_ns;
		e->skel->rodata->spec_latency_strict = k->latency_strict;
		e->skel->rodata->spec_keys = keys;
		e->skel->rodata->spec_window = window;
		bpf_map__set_max_entries(e->skel->maps.spec_slots, keys);
		bpf_map__set_max_entries(e->skel->maps.spec_windows, keys);
		bpf_map__set_max_entries(e->skel->maps.spec_records, keys * window);
		bpf_map__set_max_entries(e->skel->maps.spec_times, keys * window);
		e->spec_keys = keys;
	}
	/* the filter in the kernel: not with a speculation there (user space
	 * filters what it commits), nor with nothing sent */
	kf = !o->tally_only && !spec && o->kfilter && o->kfilter->nknown &&
	     o->kfilter->n <= VXT_BPF_KF_TESTS;
	if (kf) {
		e->skel->rodata->kf_on = true;
		e->skel->rodata->kf_entry = o->kfilter->entry;
		e->skel->rodata->kf_n = o->kfilter->n;
	}
	noop = getenv("VXT_EBPF_NOOP");
	if (noop && *noop) {
		bool clocked = !strcmp(noop, "clock");

		e->skel->rodata->noop = true;
		e->skel->rodata->noop_clock = clocked;
		vxt_source_add_note(s, "VXT_EBPF_NOOP: the programs were attached and traced "
				    "nothing%s", clocked ? " (each issue and completion read the "
				    "clock once)" : "");
	}
	skip = getenv("VXT_EBPF_SKIP_DONE");
	if (skip && *skip) {
		e->skel->rodata->skip_done_every = strtoull(skip, NULL, 10);
		vxt_source_add_note(s, "VXT_EBPF_SKIP_DONE: the programs skipped every %llu-th "
				    "completion", (unsigned long long)e->skel->rodata->skip_done_every);
	}
	e->skel->rodata->tally_on = o->tally || o->tally_only;
	e->skel->rodata->tally_only = o->tally_only;
	if (!o->tally && !o->tally_only) {
		bpf_map__set_max_entries(e->skel->maps.tallies, 1);
		bpf_map__set_max_entries(e->skel->maps.tally_errs, 1);
		bpf_map__set_max_entries(e->skel->maps.lat_hists, 1);
	} else if (!all) {	/* an array by device and op, no hash */
		uint32_t n = e->skel->rodata->want_n;

		bpf_map__set_max_entries(e->skel->maps.tallies, 1);
		bpf_map__set_max_entries(e->skel->maps.tally_slots,
					 (n ? n : 1) * VXT_BPF_TALLY_OPS);
	}
	e->ring_bytes = (size_t)ring;
	bpf_map__set_max_entries(e->skel->maps.events, (uint32_t)e->ring_bytes);
	e->skel->rodata->wake_mark = (uint32_t)(e->ring_bytes / 4);
	if (vxtrace_bpf__load(e->skel))
		return vxt_ebpf_load_error(s, -errno);
	if (kf && (rc = vxt_ebpf_load_kfilter(s, e, o->kfilter)) < 0)
		return rc;
	e->rb = ring_buffer__new(bpf_map__fd(e->skel->maps.events), ring_cb, e, NULL);
	if (!e->rb)
		return vxt_source_seterr(s, -errno, "ebpf: cannot map the ring buffer: %s",
					 strerror(errno));
	if ((rc = open_wait(s, e)) < 0)
		return rc;
	if ((rc = vxt_ebpf_map_slots(s, e)) < 0)
		return rc;
	s->clock_mono = vxt_now_mono();
	s->clock_real = vxt_now_real();
	rc = vxtrace_bpf__attach(e->skel);
	if (rc)
		return vxt_source_seterr(s, -errno, "ebpf: cannot attach to the block "
					 "tracepoints (%s); use --source tracefs",
					 strerror(errno));
	s->kspec = spec;
	s->all_phases = phases;
	s->tally = o->tally || o->tally_only;
	s->kfilter = kf;
	return 0;
}

static int ebpf_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	struct ebpf *e = s->priv;
	size_t before = b->n;
	int n;

	e->batch = b;
	e->rc = 0;
	if (!s->stopped) {	/* until the timer or a fill mark */
		struct epoll_event ev[2];
		uint64_t exp;

		n = epoll_wait(e->epfd, ev, 2, timeout_ms);
		if (n < 0 && errno != EINTR)
			return vxt_source_seterr(s, -errno, "ebpf: epoll: %s", strerror(errno));
		if (e->timerfd >= 0 && read(e->timerfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
			return vxt_source_seterr(s, -errno, "ebpf: timerfd: %s", strerror(errno));
	}
	n = ring_buffer__consume(e->rb);
	if (n < 0 && n != -EINTR)
		return vxt_source_seterr(s, n, "ebpf: ring buffer: %s", strerror(-n));
	if (!s->stopped && vxt_now_mono() >= e->recon_next_ns) {
		if (vxt_ebpf_reconcile(e, false) < 0)
			return vxt_source_seterr(s, -ENOMEM, "out of memory");
		e->recon_next_ns = vxt_now_mono() + EBPF_RECON_NS;
	}
	if (e->nfound && !e->rc)
		e->rc = vxt_ebpf_flush_found(s, e);
	if (e->rc == -EBADMSG)
		return vxt_source_seterr(s, e->rc, "ebpf: malformed record at byte %llu",
					 (unsigned long long)e->dec.offset);
	if (e->rc < 0)
		return vxt_source_seterr(s, e->rc, "%s", vxt_strerror(e->rc));
	n = report_lost(s, e, b);
	if (n < 0)
		return n;
	if (s->stopped && b->n == before) {
		if (s->kfilter && !e->noted) {
			vxt_source_add_note(s, "the kernel's filter kept back %llu events",
					    (unsigned long long)kernel_counter(e, VXT_BPF_FILTERED));
			e->noted = true;
		}
		if (e->missed_seen && !e->missed_noted) {
			vxt_ebpf_note_missed_devs(s, e);
			e->missed_noted = true;
		}
		if (e->skipped_seen && !e->skipped_noted) {
			vxt_source_add_note(s, "%llu issue%s lost: the kernel skipped the BPF program "
					    "of block_rq_issue (a run of it was under way on that CPU)",
					    (unsigned long long)e->skipped_seen,
					    e->skipped_seen == 1 ? "" : "s");
			e->skipped_noted = true;
		}
		if (s->lost > s->lost_passed && !e->lost_noted) {
			vxt_source_add_note(s, "%llu events lost: the ring buffer (%zu KiB) was "
					    "full; a larger --bufsize keeps them",
					    (unsigned long long)(s->lost - s->lost_passed),
					    e->ring_bytes >> 10);
			e->lost_noted = true;
		}
		return 0;
	}
	return 1;
}

static int ebpf_kspec_stats(struct vxt_source *s, struct vxt_kspec_stats *st)
{
	struct ebpf *e = s->priv;

	st->seen = kernel_counter(e, VXT_BPF_SEEN);
	st->kept = kernel_counter(e, VXT_BPF_SENT);
	st->commits = kernel_counter(e, VXT_BPF_COMMITS);
	st->drops = kernel_counter(e, VXT_BPF_SPEC_DROPS);
	st->failed = kernel_counter(e, VXT_BPF_SPEC_FAILED);
	st->max_keys = e->spec_keys;
	return 0;
}

static int ebpf_tally(struct vxt_source *s, struct vxt_tallies *out)
{
	struct ebpf *e = s->priv;
	struct vxt_ebpf_tally_maps maps;
	int rc;

	/* counting only, nothing wakes next(): the completions the programs
	 * never saw and the skipped issues are lost as of this read (no LOST
	 * event for them) */
	if (e->skel->rodata->tally_only) {
		if (vxt_now_mono() >= e->recon_next_ns) {
			if (vxt_ebpf_reconcile(e, false) < 0)
				return vxt_source_seterr(s, -ENOMEM, "out of memory");
			e->recon_next_ns = vxt_now_mono() + EBPF_RECON_NS;
		}
		passed_losses(s, e);
	}
	maps.tally_fd = bpf_map__fd(e->skel->maps.tallies);
	maps.slots_fd = bpf_map__fd(e->skel->maps.tally_slots);
	maps.hist_fd = bpf_map__fd(e->skel->maps.lat_hists);
	maps.err_fd = bpf_map__fd(e->skel->maps.tally_errs);
	rc = vxt_ebpf_tally_read(s, &e->names, &maps, (const uint32_t *)e->skel->rodata->want_dev,
				 e->skel->rodata->want_all ? 0 : e->skel->rodata->want_n,
				 e->ncpu, out);
	out->full = kernel_counter(e, VXT_BPF_TALLY_FULL);
	if (rc == 0)	/* the issues the rounds took are no longer in flight */
		vxt_ebpf_add_tally_lost(s, e, out);
	return rc;
}

/* Wait until every program run under way has ended: the programs run in
 * RCU read-side sections, and a global membarrier waits for every one. */
static void programs_quiesce(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		usleep(20000);
}

static int ebpf_stop(struct vxt_source *s)
{
	struct ebpf *e = s->priv;
	bool tally_only = e->skel->rodata->tally_only;
	int64_t left;

	/* no issue taken from here on, and no completion without its issue:
	 * an I/O issued before the end has its issue in the file, and the
	 * completions still to come are those of the issues remembered */
	e->skel->bss->stopping = true;
	programs_quiesce();
	if (vxt_ebpf_reconcile(e, true) < 0)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	vxtrace_bpf__detach(e->skel);	/* no new records; next() drains the ring */
	/* a program still running on another CPU may hold a record it has
	 * reserved, not yet submitted (the drain would stop short of it) or
	 * be about to count a loss */
	programs_quiesce();
	/* issues with no completion: in flight now, or completed while the
	 * kernel passed the programs over, on a device that keeps no
	 * statistics (the others' the last round took: lost events) */
	left = tally_only ? 0 : vxt_ebpf_unfinished(e);
	if (left > 0)
		vxt_source_add_note(s, "%lld issues had no completion when the capture ended "
				    "(in flight, or completed without the BPF programs)",
				    (long long)left);
	return 0;
}

static int ebpf_fd(const struct vxt_source *s)
{
	const struct ebpf *e = s->priv;

	return e ? e->epfd : -1;
}

static void ebpf_close(struct vxt_source *s)
{
	struct ebpf *e = s->priv;

	if (!e)
		return;
	if (e->slots)
		munmap(e->slots, (size_t)VXT_BPF_MAX_INFLIGHT * sizeof(*e->slots));
	vxt_ebpf_recon_free(e->recon);
	free(e->found);
	if (e->timerfd >= 0)
		close(e->timerfd);
	if (e->epfd >= 0)
		close(e->epfd);
	ring_buffer__free(e->rb);
	vxtrace_bpf__destroy(e->skel);
	free(e);
	s->priv = NULL;
}

_Static_assert(sizeof(struct voliot_io_rec) == 64, "the BPF record layout is voliot_io_rec");
_Static_assert(VXT_BPF_KF_TESTS == VXT_KFILTER_TESTS && VXT_BPF_KF_ACCEPT == VXT_KFILTER_ACCEPT &&
	       VXT_BPF_KF_REJECT == VXT_KFILTER_REJECT, "the filter table is the kernel's");
_Static_assert(VXT_BPF_PH_START == VXT_PH_START && VXT_BPF_PH_DONE == VXT_PH_DONE &&
	       VXT_BPF_PH_REQUEUE == VXT_PH_REQUEUE, "the phases of struct vxt_event");
_Static_assert(offsetof(struct vxt_event, phase) == 46 && offsetof(struct vxt_event, op) == 47 &&
	       offsetof(struct vxt_event, error) == 44 && offsetof(struct vxt_event, cpu) == 42 &&
	       offsetof(struct vxt_event, flags) == 40 && offsetof(struct vxt_event, pid) == 32 &&
	       offsetof(struct vxt_event, bytes) == 24, "the words kf_may_accept() makes");

#else /* !VXT_HAVE_EBPF */

static int ebpf_probe(void)
{
	return -ENOTSUP;
}

static const char *ebpf_why(int rc)
{
	return rc == -ENOTSUP ? "built without BPF programs (clang, bpftool, libbpf-dev)" : NULL;
}

static int ebpf_open(struct vxt_source *s, const struct vxt_source_opts *o)
{
	(void)o;
	return vxt_source_seterr(s, -ENOTSUP, "ebpf: this build has no BPF programs (built "
				 "without clang, bpftool or libbpf-dev); use --source tracefs");
}

static int ebpf_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	(void)b; (void)timeout_ms;
	return vxt_source_seterr(s, -ENOTSUP, "ebpf: not built");
}

#define ebpf_stop NULL
#define ebpf_fd NULL

static void ebpf_close(struct vxt_source *s)
{
	(void)s;
}

#endif /* VXT_HAVE_EBPF */

const struct vxt_source_ops vxt_source_ebpf_ops = {
	.name = "ebpf",
	.open = ebpf_open,
	.next = ebpf_next,
	.fd = ebpf_fd,
	.close = ebpf_close,
	.probe = ebpf_probe,
	.why = ebpf_why,
	.stop = ebpf_stop,
	.lost_fails = true,
#ifdef VXT_HAVE_EBPF
	.kspec_stats = ebpf_kspec_stats,
	.tally = ebpf_tally,
#endif
};
