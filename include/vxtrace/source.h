/* source.h - where events come from
 *
 * Every capture source (kernel module, tracefs, simulator, blktrace import)
 * sits behind this one interface. A source knows nothing of files: it fills
 * batches of struct vxt_event and adds objects and command names to the
 * tables it was given.
 */
#ifndef VXTRACE_SOURCE_H
#define VXTRACE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "event.h"
#include "objtab.h"
#include "strtab.h"

/* How far out of time order the sources may see events, and how they put
 * them back in order (formats/vxt.md, "Time order"): a blktrace stream on
 * standard input holds records in a reorder window of this much trace time;
 * tracefs holds back events this close to the moment a sweep of the per-CPU
 * buffers started, so a completion never overtakes its issue. */
#define VXT_BLKTRACE_REORDER_NS	(2 * VXT_NSEC_PER_SEC)
#define VXT_TRACEFS_SLACK_NS	(2 * VXT_NSEC_PER_SEC / 1000)
/* kmod speculating in the module: a committed event comes as late as the
 * program's before window (key request: as the I/O's latency); the module
 * says with each read how old what it still commits can be (its horizon),
 * and the source holds events until this long before it, to hand them out
 * in time order. */
#define VXT_KMOD_SPEC_SLACK_NS	(50 * VXT_NSEC_PER_SEC / 1000)

/* A speculation program a kernel source can run itself (the profiles'
 * context: form, and the request form on kmod): per key, keep the events within before_ns (and among the
 * before_events last) before a trigger, the trigger and those within
 * after_ns (and among the after_events first) after it; nothing else
 * leaves the kernel. A bound of 0 is unused. See vxt_profile_kspec(). */
struct vxt_kspec {
	unsigned key;			/* enum vxt_spec_key: object, pid, object,pid, or
					 * request (no window: the I/O's own life) */
	uint64_t before_ns, after_ns;
	uint32_t before_events, after_events;
	bool on_error;			/* trigger: a completion with an error */
	uint64_t on_latency_ns;		/* trigger: a completion this slow; 0 = not */
	bool latency_strict;		/* ... slower than on_latency_ns (>), not >= */
	unsigned nspec;			/* the profile's speculation buffers (keys at once) */
	uint64_t specsize;		/* ... and bytes per buffer */
};

/* What a kernel speculation did, in DTrace's terms. */
struct vxt_kspec_stats {
	uint64_t seen;			/* events the program considered */
	uint64_t kept;			/* events that reached user space */
	uint64_t commits;		/* triggers */
	uint64_t drops;			/* events overwritten while still in a window */
	uint64_t failed;		/* events of keys past the program's key limit */
	unsigned max_keys;
};

/* In-kernel counting (opts->tally, opts->tally_only; ebpf): per object and
 * op, since the source opened, counted by the kernel program and read when
 * asked (vxt_source_tally()); with tally_only no event crosses to user
 * space. The latencies are those of the events the source sends. */
#define VXT_TALLY_US_BUCKETS 26		/* le = 2^k us, k = 0..24, then +Inf
					 * (formats/metrics.md) */
#define VXT_TALLY_LAT_BUCKETS 3968	/* vxt_latdist_bucket() 0 .. 3967 (latdist.h):
					 * up to 2^37 ns, the last also above */

struct vxt_tally {
	uint32_t object;
	uint8_t op;			/* enum vxt_op */
	uint64_t started, requeued, completed, bytes, errors;
	uint64_t lost;			/* issues whose completion was never seen
					 * (no longer in flight) */
	uint64_t lat_count, lat_sum_ns, lat_max_ns;	/* completions with a latency */
	uint64_t us_bucket[VXT_TALLY_US_BUCKETS];	/* per bucket, not cumulative */
	uint64_t lat_bucket[VXT_TALLY_LAT_BUCKETS];	/* per bucket of the latency */
};

/* Failed completions of one object and op with one errno. */
struct vxt_tally_error {
	uint32_t object;
	uint8_t op;
	int16_t error;
	uint64_t n;
};

struct vxt_tallies {
	struct vxt_tally *t;
	size_t n, cap;
	struct vxt_tally_error *e;
	size_t ne, cape;
	uint64_t full;			/* I/Os not counted: the kernel's key table was full */
	uint64_t read_ns;		/* the caller's: when it last read them */
};

/* The part of a filter a kernel source can test (vxt_filter_kernel(),
 * filter.h): the filter's comparisons in order, each on a 64-bit word of
 * struct vxt_event (lo <= ((word >> shift) & mask) - ... see below), or
 * unknown to the kernel (names, time, ...). An event goes to user space
 * unless no way through the comparisons, whatever the unknown ones say,
 * accepts it; user space then applies the whole filter, so the result is
 * that of the filter alone. Jumps only go forward (t, f > the test's index,
 * or VXT_KFILTER_ACCEPT / REJECT). */
#define VXT_KFILTER_TESTS	16
#define VXT_KFILTER_ACCEPT	0xffffu
#define VXT_KFILTER_REJECT	0xfffeu

struct vxt_kfilter_test {
	uint8_t known;			/* the kernel can compute it */
	uint8_t word, shift;		/* ((uint64_t *)ev)[word] >> shift */
	uint16_t t, f;			/* next test when it holds / does not */
	uint64_t mask, lo, span;	/* holds: ((w >> shift) & mask) - lo <= span */
};

struct vxt_kfilter {
	uint16_t entry;			/* the first test, or ACCEPT / REJECT */
	unsigned n, nknown;
	struct vxt_kfilter_test test[VXT_KFILTER_TESTS];
	char fields[80];		/* the known comparisons' fields: "op, bytes" */
};

struct vxt_source_opts {
	const char *objects;	/* "sda,dm-0,8:16"; NULL or "" = every object */
	size_t bufsize;		/* kernel buffer bytes; 0 = the source's default */
	bool errors;		/* kmod: error-trace channel (saved + new errors) */
	const char *progname;	/* for tracefs instance names */
	bool all_phases;	/* --phases all: every block-layer phase the source
				 * sees (queue, getrq, merge, insert, ...), not only
				 * issue and completion; a source that cannot does
				 * not open (vxt_source_all_phases()) */
	/* simulator */
	uint64_t seed;		/* 0 = 1 */
	uint64_t count;		/* stop after this many events; 0 = no limit */
	uint64_t duration_ns;	/* stop after this much simulated time; 0 = no limit */
	double rate;		/* events per second of simulated time; 0 = default */
	bool realtime;		/* pace simulated time to the wall clock */
	const char *sim_objects;	/* object spec, see sim.c; NULL = built-in */
	const char *sim_errors;		/* error bursts, see sim.c; NULL = built-in */
	int64_t clock_offset_ns;	/* added to the simulated clock anchor's realtime
					 * (a host whose clock is off) */
	/* import */
	const char *path;	/* blktrace: prefix, files (comma separated) or "-" */
	/* a speculation to run in the kernel where the source can (ebpf; kmod
	 * for key object); see vxt_source_speculates() */
	const struct vxt_kspec *kspec;
	/* ebpf: count in the kernel as well (struct vxt_tally; other sources
	 * ignore it), or only count and send no events (other sources refuse) */
	bool tally, tally_only;
	/* ebpf: test this part of the filter in the kernel (NULL: none) */
	const struct vxt_kfilter *kfilter;
};

/* The command-line options that fill struct vxt_source_opts, spelled the
 * same in every program (README.md, "Options"): --objects LIST, --bufsize
 * SIZE, --phases issue|all, --errors, --seed N, --rate N, --sim-objects SPEC, --sim-errors SPEC,
 * --realtime, --clock-offset [-]DUR. @name is the long name without dashes, @arg its value (NULL
 * for a flag). @return 1 when @name is one of them and @arg is good, 0 when
 * @name is not a source option, -EINVAL with "--rate: bad rate 'x'" in @err. */
int vxt_source_option(struct vxt_source_opts *o, const char *name, const char *arg,
		      char err[VXT_ERRBUF_SIZE]);

/* A growing array of events the source appends to. */
struct vxt_batch {
	struct vxt_event *ev;
	size_t n, cap;
};

struct vxt_source;

/* Open source @kind ("sim", "kmod", "ebpf", "tracefs", "blktrace"; NULL = the
 * default: the first of kmod, ebpf, tracefs that can be used here, and then
 * vxt_source_note() says why the ones before it were not). @objs and @strs
 * are borrowed.
 * @return the source, or NULL with a message in @err and errno EINVAL when
 * @kind names no source or @opts are invalid for it (a usage error: a bad
 * simulator spec, ...), another errno when the source cannot run here. */
struct vxt_source *vxt_source_open(const char *kind, const struct vxt_source_opts *opts,
				   struct vxt_objtab *objs, struct vxt_strtab *strs,
				   char err[VXT_ERRBUF_SIZE]);
/* Append available events to @b, waiting up to @timeout_ms (-1 forever) for the
 * first one. @return 1 (b->n may not have grown on timeout), 0 at the end of
 * the source, or a negative errno (see vxt_source_error()). */
int vxt_source_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms);
/* Stop capturing (e.g. on SIGINT) without losing what the kernel already
 * holds: the following vxt_source_next() calls hand out the rest, then
 * return 0. @return 0 or a negative errno. */
int vxt_source_stop(struct vxt_source *s);
/* A pollable fd that becomes readable when events wait, or -1. */
int vxt_source_fd(const struct vxt_source *s);
/* Events the source lost so far (also present in the stream as LOST events). */
uint64_t vxt_source_lost(const struct vxt_source *s);
/* Did the source lose events in a way that fails the capture (the ebpf
 * ring had no room: a larger --bufsize keeps them; not the completions the
 * kernel ran its tracepoint for without the BPF programs)? The stream
 * still holds their LOST events. */
bool vxt_source_lost_fails(const struct vxt_source *s);
/* The source's clock anchor: mono_ns corresponds to real_ns. */
void vxt_source_clock(const struct vxt_source *s, uint64_t *mono_ns, uint64_t *real_ns);
const char *vxt_source_name(const struct vxt_source *s);
/* Does the kernel run opts->kspec for this source (only what it keeps
 * arrives)? false when none was asked or the source cannot. */
bool vxt_source_speculates(const struct vxt_source *s);
/* Why the kernel does not run opts->kspec (one phrase, e.g. its buffers do
 * not fit the module's limit), or NULL when the source gave no reason. */
const char *vxt_source_kspec_why(const struct vxt_source *s);
/* Does the source capture every block-layer phase (queue, getrq, merge,
 * insert, ...), not only issue and completion? */
bool vxt_source_all_phases(const struct vxt_source *s);
/* The kernel speculation's counters so far. @return 0, or -ENOTSUP when
 * the source does not speculate. */
int vxt_source_kspec_stats(struct vxt_source *s, struct vxt_kspec_stats *st);
/* Does the kernel test opts->kfilter for this source? */
bool vxt_source_kfilters(const struct vxt_source *s);
/* Does the kernel count for this source (opts->tally or tally_only)? */
bool vxt_source_tallies(const struct vxt_source *s);
/* Read the kernel's counts into @out (its arrays reused and grown; free with
 * vxt_tallies_free()). @return 0, -ENOTSUP when the source does not count,
 * or another negative errno (see vxt_source_error()). */
int vxt_source_tally(struct vxt_source *s, struct vxt_tallies *out);
void vxt_tallies_free(struct vxt_tallies *t);
const char *vxt_source_error(const struct vxt_source *s);
/* A one-line note for the user at the end (e.g. "12 blktrace events skipped"),
 * or NULL. */
const char *vxt_source_note(const struct vxt_source *s);
/* Stop and free; NULL is fine. Releases every kernel resource. */
void vxt_source_close(struct vxt_source *s);

/* Batch helpers. @return a pointer to a new zeroed slot, or NULL (ENOMEM). */
struct vxt_event *vxt_batch_push(struct vxt_batch *b);
void vxt_batch_free(struct vxt_batch *b);

#endif
