/* ebpf_impl.h - the ebpf source's state, shared by its files (internal)
 *
 * source_ebpf.c opens, reads and closes the source; ebpf_setup.c sets up
 * what the programs need before they load; ebpf_missed.c keeps its
 * in-flight table true: the completions the programs never saw, as lost
 * events naming their I/O, the rounds against the block layer's count.
 * Only built with the BPF skeleton (VXT_HAVE_EBPF).
 */
#ifndef VXT_EBPF_IMPL_H
#define VXT_EBPF_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "source/chanev.h"
#include "source/ebpf_recon.h"
#include "source/source_impl.h"
#include "vxtrace/chanrec.h"
#include "vxtrace.skel.h"

#define EBPF_DEFAULT_BUF	(4u << 20)	/* the ring buffer, by default */
#define EBPF_MIN_BUF		(64u << 10)
#define EBPF_MAX_BUF		(1u << 30)
#define EBPF_RECON_NS		400000000	/* the issues in flight against the
						 * kernel's count this often */
#define EBPF_MISSED_DEVS	16		/* devices named in the closing line */

/* Completions that never ran the programs, on one device. */
struct missed_dev {
	uint32_t dev;
	uint64_t n;
};

struct ebpf {
	struct vxtrace_bpf *skel;
	struct ring_buffer *rb;
	struct vxt_chandec dec;
	struct vxt_batch *batch;	/* borrowed during one next() */
	struct vxt_source *src;
	int rc;				/* first error of the ring callback */
	uint64_t lost_seen;		/* kernel's lost count already reported */
	uint64_t missed_seen;		/* completions that never ran the programs,
					 * each a lost event naming its I/O */
	uint64_t skipped_seen;		/* ... and the issue program's skipped runs */
	struct missed_dev missed_dev[EBPF_MISSED_DEVS];	/* missed_seen by device */
	uint32_t nmissed_dev;
	struct vxt_bpf_slot *slots;	/* the programs' inflight table, mapped */
	struct vxt_ebpf_recon *recon;
	uint64_t recon_next_ns;		/* the next round of it */
	struct vxt_bpf_slot *found;	/* slots a round took, not yet events */
	size_t nfound, capfound;
	bool found_nomem;		/* one of them could not be kept */
	char missing[200];		/* phase tracepoints the kernel lacks */
	uint64_t missed_end_tally;	/* counting only: those a round took */
	struct missed_dev tally_lost[EBPF_MISSED_DEVS * VXT_OP_COUNT];	/* ... by
					 * device and op (tally_op[]) */
	uint8_t tally_op[EBPF_MISSED_DEVS * VXT_OP_COUNT];
	uint32_t ntally_lost;
	struct vxt_chanev names;	/* the last object looked up */
	bool noted;			/* the filter's count is in s->note */
	bool lost_noted;		/* the full ring is in s->note */
	bool missed_noted;		/* the missed completions are in s->note */
	bool skipped_noted;		/* the skipped issues are in s->note */
	size_t ring_bytes;
	uint32_t spec_keys;		/* the kernel speculation's windows */
	int ncpu;
	int epfd;			/* the ring's wakeups and the timer */
	int timerfd;			/* every EBPF_READ_NS while records may come */
};

/* ebpf_setup.c. Each @return 0 (or as said) or a negative errno with the
 * error set on @s. */
/* The ring for --bufsize @want (0: the default): a power of two from
 * EBPF_MIN_BUF to EBPF_MAX_BUF; one rounded up is said in the source's
 * note. @return its size in bytes. */
long vxt_ebpf_ring_size(struct vxt_source *s, size_t want);
/* The devices of @objects into want_dev[] (before load) and the object table. */
int vxt_ebpf_select_objects(struct vxt_source *s, struct ebpf *e, const char *objects);
/* The kernel speculation's windows for profile @k: *keys of *window
 * records. @return false, with why in s->kspec_why, when they do not fit. */
bool vxt_ebpf_spec_fits(struct vxt_source *s, struct ebpf *e, const struct vxt_kspec *k,
			bool all, uint32_t *keys, uint32_t *window);
/* The kernel's part of the filter into the kfilter map (after load). */
int vxt_ebpf_load_kfilter(struct vxt_source *s, struct ebpf *e, const struct vxt_kfilter *k);
/* Does the kernel (its BTF at @path) have every tracepoint the programs
 * attach to? The phase programs (vxt_ph_*) load with @phases only, each
 * whose tracepoint the kernel lacks left out and named in e->missing. */
int vxt_ebpf_check_tracepoints(struct vxt_source *s, struct ebpf *e, const char *path,
			       bool phases);
/* libbpf's messages go nowhere but the reason for a refusal, kept for
 * vxt_ebpf_load_error(). Call before opening the skeleton. */
void vxt_ebpf_libbpf_quiet(void);
/* The error of a failed load (@rc, a negative errno) set on @s: the
 * verifier's refusal names the program and its reason. @return it. */
int vxt_ebpf_load_error(struct vxt_source *s, int rc);

/* Count a completion of @dev that never ran the programs (lost, passed). */
void vxt_ebpf_note_missed(struct vxt_source *s, struct ebpf *e, uint32_t dev);
/* The lost event naming I/O @r (a VXT_BPF_REC_MISSED record: as issued,
 * found at r->time_ns) into e->batch. @return 0 or -ENOMEM. */
int vxt_ebpf_missed_io(struct vxt_source *s, struct ebpf *e, const struct voliot_io_rec *r);
/* Map the programs' inflight table into e->slots and set up its rounds.
 * @return 0 or a negative errno with the error set. */
int vxt_ebpf_map_slots(struct vxt_source *s, struct ebpf *e);
/* A round of the issues in flight against the kernel's counts
 * (ebpf_recon.h); @at_once once no issue is taken. The slots taken wait in
 * e->found (counting only: in e->tally_lost). @return 0 or -ENOMEM. */
int vxt_ebpf_reconcile(struct ebpf *e, bool at_once);
/* The slots the rounds took into lost events naming their I/O, found now.
 * @return 0 or -ENOMEM. */
int vxt_ebpf_flush_found(struct vxt_source *s, struct ebpf *e);
/* Counting only: the issues the rounds took, out of flight in @out. */
void vxt_ebpf_add_tally_lost(struct vxt_source *s, struct ebpf *e, struct vxt_tallies *out);
/* The closing line's part for the completions that never ran the programs. */
void vxt_ebpf_note_missed_devs(struct vxt_source *s, struct ebpf *e);
/* The issues still remembered with no completion: -1 when the table is not
 * mapped. */
int64_t vxt_ebpf_unfinished(struct ebpf *e);

#endif
