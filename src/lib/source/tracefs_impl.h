/* tracefs_impl.h - the tracefs source's state, shared by its files
 * (internal to libvxtrace): source_tracefs.c reads, merges, pairs and emits;
 * tracefs_setup.c chooses the objects and sets up the instance's events,
 * filters, rings and parser; tracefs_phases.c adds the phases besides issue
 * and completion (--phases all).
 */
#ifndef VXT_TRACEFS_IMPL_H
#define VXT_TRACEFS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>
#include <tracefs.h>

#include "source/source_impl.h"
#include "vxtrace/iopair.h"
#include "vxtrace/recon.h"

#define TFS_DEFAULT_BUF	(4u << 20)
#define TFS_STATS_NS	100000000ull	/* read overrun counters this often */
#define TFS_MAX_OBJS	256
#define TFS_RECENT_ERR	64
/* A busy capture sweeps the rings at most this often (tfs_next()): each
 * read then takes full pages, not a few events (kept short of a quarter of
 * the ring at the rate seen). */
#define TFS_BATCH_NS	10000000ull
/* The issues in flight against the kernel's count this often
 * (source_tracefs_recon.c). */
#define TFS_RECON_NS	400000000ull

enum tfs_kind {
	K_RQ_ISSUE, K_RQ_COMPLETE, K_RQ_REQUEUE, K_RQ_ERROR,
	K_BIO_QUEUE, K_BIO_COMPLETE,
	/* --phases all only (tracefs_phases.c) */
	K_GETRQ, K_RQ_INSERT, K_BACKMERGE, K_FRONTMERGE, K_PLUG, K_UNPLUG, K_SPLIT,
	K_REMAP, K_COUNT
};
#define K_PHASE_FIRST K_GETRQ

extern const char *const tfs_event_names[K_COUNT];

/* A field's place in the record, learned once from the format
 * (vxt_tfs_learn_fields()); size 0: the kernel has none. */
struct tfs_fld {
	uint16_t off;
	uint16_t size;
};

/* The fields we read of one tracepoint; NULL where the kernel has none. */
struct tfs_evdesc {
	struct tep_event *ev;
	int id;			/* -1: not enabled */
	struct tep_format_field *dev, *sector, *nr_sector, *bytes, *error, *rwbs, *comm;
	struct tep_format_field *new_sector;	/* block_split's */
	/* the same at fixed offsets, for the hot path; a record shorter than
	 * @need bytes is not one of this format */
	struct tfs_fld fdev, fsector, fnr_sector, fbytes, ferror, frwbs, fcomm;
	unsigned need;
	struct tep_format_field *old_dev, *old_sector;	/* block_bio_remap's */
};

/* An event as read from the ring, before routing and pairing. */
struct tfs_raw {
	uint64_t ts;
	uint64_t sector;
	uint32_t dev, nr_sector, bytes, pid;
	uint32_t old_dev;	/* a remap's source device, 0 if unknown */
	uint64_t old_sector;	/* and sector */
	int32_t error;
	uint16_t cpu;
	uint8_t kind;
	char rwbs[9];
	char comm[16];
};

/* Where events of (dev, sector range, level) go. */
struct tfs_route {
	uint32_t dev;		/* as in the events */
	uint64_t lo, hi;	/* sector range, [lo, hi) */
	uint32_t obj;
	bool bio;		/* bio level (else request level) */
};

struct tfs_cpu {
	int fd;
	uint64_t lost;		/* overrun + dropped seen so far */
};

struct tfs_comm_cache {
	uint32_t pid, id;
	char comm[16];
};

struct tfs {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int long_size;		/* of the ring pages' commit count: 4 or 8 */
	bool big;		/* big-endian rings */
	struct tfs_evdesc ev[K_COUNT];
	int ncpu;
	struct tfs_cpu *cpu;
	int epfd, timerfd;
	void *page;
	size_t page_size;
	/* events read, not yet handed out; sorted by ts before use */
	struct tfs_raw *pend;
	size_t npend, cappend;
	struct tfs_raw *sorted;		/* the merge's other buffer, cappend long */
	uint64_t last_ts;	/* newest handed out */
	struct vxt_iopair *pair;
	struct vxt_recon *recon;	/* the pairs against the kernel's count */
	uint64_t recon_ns;	/* when the next round is due */
	uint64_t recon_events;	/* events handed out since the last round */
	bool all;		/* every device (no object list) */
	struct tfs_route route[TFS_MAX_OBJS];
	size_t nroute;
	struct tfs_comm_cache comm[256];
	struct { uint32_t dev; uint64_t sector; } recent_err[TFS_RECENT_ERR];
	unsigned nrecent;
	uint64_t stats_ns;
	uint64_t ring_bytes;	/* per CPU */
	uint64_t sweep_ns;	/* when the last sweep that found events started */
	uint64_t batch_ns;	/* the wait before the next one (TFS_BATCH_NS at most) */
	uint64_t timer_due;	/* when the armed timerfd fires; 0: not armed */
	size_t sweep_bytes;	/* most bytes one CPU gave in the last sweep */
	bool stopped;
	uint64_t seen[K_COUNT];
	uint64_t flush_ends;	/* completions that end a flush sequence (emit()) */
	bool phases;		/* --phases all: every phase, not only issue and completion */
	uint64_t plugs, unplugs;	/* block_plug/unplug that name no device: counted only */
	char missing[128];	/* phase tracepoints this kernel lacks, for the note */
	bool noted;		/* vxt_tfs_phase_note() wrote it */
};

/* source_tracefs.c */
/* The object for an event of (r->dev, r->sector) at a level, or -1 to drop it. */
int64_t vxt_tfs_route_event(struct vxt_source *s, struct tfs *t, const struct tfs_raw *r,
			    bool bio);
uint32_t vxt_tfs_comm_id(struct vxt_source *s, struct tfs *t, uint32_t pid, const char *comm);

/* tracefs_phases.c */
/* Find the fields of phase event @k (by name, so the kernel's layout does not
 * matter), set its @filter (when it names a device) and enable it; a phase
 * the kernel lacks is noted in t->missing. @return 0 or a negative errno. */
int vxt_tfs_setup_phase(struct vxt_source *s, struct tfs *t, int k, const char *filter);
/* The fields only phase events have, into @r. */
void vxt_tfs_decode_phase(const struct tfs_evdesc *d, void *data, struct tfs_raw *r);
/* Emit a phase event (or a block_bio_queue of a request-level device, which
 * is its queue phase). @return 1 when handled (maybe nothing added), 0 when
 * @r is not a phase event, -ENOMEM. */
int vxt_tfs_emit_phase(struct vxt_source *s, struct tfs *t, const struct tfs_raw *r,
		       struct vxt_batch *b);
/* The one-line note on what the phases could not show (plugs without a
 * device, tracepoints missing), into s->note when empty. */
void vxt_tfs_phase_note(struct vxt_source *s, struct tfs *t);

/* source_tracefs_recon.c */
/* An issue a round took for one whose completion was lost (the pair's key
 * and value). @return 0 or a negative errno (the round's result). */
typedef int (*vxt_tfs_found_fn)(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
				const struct vxt_iopair_val *v);
/* One round of the issues in @pair from before @t0 (the events handed out
 * so far) against @count (vxt_tfs_count()) by @judge's rule (recon.h):
 * each issue taken is forgotten and passed to @found.
 * @return the issues taken, or a negative errno. */
int vxt_tfs_recon_round(struct vxt_recon *judge, struct vxt_iopair *pair, uint64_t t0,
			bool at_once, vxt_recon_count_fn count, vxt_tfs_found_fn found, void *arg);
/* Every TFS_RECON_NS, the issues handed out up to @cut against the
 * kernel's count, those found completed unseen as lost events naming them
 * into @b; at once (no second look) when no event came since the last round
 * and none waits. @return 0 or a negative errno. */
int vxt_tfs_reconcile(struct vxt_source *s, struct tfs *t, struct vxt_batch *b, uint64_t cut);
/* The block layer's count of reads and writes in flight on @dev, for a
 * blk-mq device only (else -EOPNOTSUPP). */
int vxt_tfs_count(uint32_t dev, uint64_t *n);

/* tracefs_setup.c */
/* Send events of (@dev, sectors [@lo, @hi), level) to object @obj. */
int vxt_tfs_add_route(struct vxt_source *s, struct tfs *t, uint32_t dev, uint64_t lo,
		      uint64_t hi, uint32_t obj, bool bio);
/* The object of device @dev, added when new. @return its id or a negative errno. */
int64_t vxt_tfs_add_object(struct vxt_source *s, uint32_t dev);
/* Route the devices of @objects (NULL: every device). */
int vxt_tfs_select_objects(struct vxt_source *s, struct tfs *t, const char *objects);
int vxt_tfs_setup_buffers(struct vxt_source *s, struct tfs *t, size_t bufsize);
int vxt_tfs_setup_parser(struct vxt_source *s, struct tfs *t);
int vxt_tfs_open_cpus(struct vxt_source *s, struct tfs *t);
/* Enable the tracepoints with the selected devices' filters. */
int vxt_tfs_setup_events(struct vxt_source *s, struct tfs *t);
/* Sets @filter (none when NULL or "") on block event @k and enables it:
 * t->ev[k].id is then its id. @return 0, or a negative errno said in @s. */
int vxt_tfs_enable_event(struct vxt_source *s, struct tfs *t, int k, const char *filter);
/* The fixed offsets of the enabled events' fields (struct tfs_fld). */
int vxt_tfs_learn_fields(struct vxt_source *s, struct tfs *t);

#endif
