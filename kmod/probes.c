// SPDX-License-Identifier: GPL-2.0
/* probes.c - block-layer tracepoints turned into vxtrace events
 *
 * Request level (blk-mq devices): block_rq_issue (start), block_rq_complete
 * (done, with the request's status and its latency from the request's own
 * start time), block_rq_requeue, and block_rq_error where the kernel has it.
 * Bio level, for bio-based (stacked) devices such as device-mapper and md
 * only: block_bio_queue (start) and block_bio_complete (done), flagged
 * VOLIOT_F_BIO. Bios of request-based devices are left to the request
 * events, so one I/O is never counted twice on one device.
 * Queue-side phases, for channels at capture level VOLIOT_PHASES_ALL only,
 * on request-based devices: block_bio_queue (Q), block_getrq (G),
 * block_rq_insert (I), block_bio_backmerge and block_bio_frontmerge (M, F),
 * block_plug and block_unplug (P, U), block_split (X) and block_bio_remap
 * (A, the bio's new device and sector, and the device and sector it came
 * from; also onto a bio-based device, so a stack of them is followed).
 * While no channel wants them these probes return at once.
 * Most block tracepoints are not exported to modules: they are found by
 * name with for_each_kernel_tracepoint() and attached with
 * tracepoint_probe_register(); vxt_check_probes() has the compiler check
 * their prototypes against the kernel's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/version.h>
#include <trace/events/block.h>

#include "vxtrace.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 12, 0)
#error "vxtrace needs Linux 5.12 or newer (bio->bi_bdev)"
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 16, 0)
#define rq_gendisk(rq)	((rq)->rq_disk)
#define q_gendisk(q)	((struct gendisk *)NULL)	/* no plug records */
#else
#define rq_gendisk(rq)	((rq)->q->disk)
#define q_gendisk(q)	((q)->disk)
#endif

/* A bio's issue time and size as the block layer noted them at submission
 * (struct bio_issue, kept with CONFIG_BLK_CGROUP). Since 6.9 the helpers
 * that decode it are private to block/; the encoding they read is the same
 * one since 4.19: from the top bit, 1 reserved bit, 12 bits of size in
 * sectors, 51 bits of time in nanoseconds.
 */
#if defined(CONFIG_BLK_CGROUP) && !defined(VXT_BIO_ISSUE_TIME_NS)
#define VXT_BIO_ISSUE	1
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define VXT_ISSUE_SIZE_SHIFT	51
#define VXT_ISSUE_TIME_MASK	((1ULL << VXT_ISSUE_SIZE_SHIFT) - 1)

static inline u64 vxt_issue_time(u64 t)
{
	return t & VXT_ISSUE_TIME_MASK;
}

static inline u64 vxt_issue_start(const struct bio *bio)
{
	return vxt_issue_time(bio->bi_issue.value);
}

static inline u64 vxt_issue_sectors(const struct bio *bio)
{
	return (bio->bi_issue.value >> VXT_ISSUE_SIZE_SHIFT) & 0xfff;
}
#else
#define vxt_issue_time(t)	__bio_issue_time(t)
#define vxt_issue_start(bio)	bio_issue_time(&(bio)->bi_issue)
#define vxt_issue_sectors(bio)	bio_issue_size(&(bio)->bi_issue)
#endif
#endif /* CONFIG_BLK_CGROUP && !VXT_BIO_ISSUE_TIME_NS */

atomic64_t vxt_rq_errors = ATOMIC64_INIT(0);

static u8 vxt_op(unsigned int op)
{
	switch (op) {
	case REQ_OP_READ:
		return VOLIOT_OP_READ;
	case REQ_OP_WRITE:
		return VOLIOT_OP_WRITE;
	case REQ_OP_FLUSH:
		return VOLIOT_OP_FLUSH;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		return VOLIOT_OP_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return VOLIOT_OP_WRITE_ZEROES;
	case REQ_OP_DRV_IN:
	case REQ_OP_DRV_OUT:
		return VOLIOT_OP_PASSTHRU;
	}
	return VOLIOT_OP_OTHER;
}

static u16 vxt_flags(u64 opf)
{
	u16 f = 0;

	if (opf & REQ_SYNC)
		f |= VOLIOT_F_SYNC;
	if (opf & REQ_FUA)
		f |= VOLIOT_F_FUA;
	if (opf & REQ_META)
		f |= VOLIOT_F_META;
	if (opf & REQ_PREFLUSH)
		f |= VOLIOT_F_PREFLUSH;
	if (opf & REQ_RAHEAD)
		f |= VOLIOT_F_RAHEAD;
	return f;
}

static void kev_init(struct vxt_kev *ev, u8 type)
{
	memset(ev, 0, sizeof(*ev));
	ev->rec.len = sizeof(ev->rec);
	ev->rec.type = type;
	ev->rec.cpu = raw_smp_processor_id();
	ev->rec.time_ns = ktime_get_ns();
	if (in_task()) {
		ev->rec.pid = task_pid_nr(current);
		memcpy(ev->rec.comm, current->comm, sizeof(ev->rec.comm));
		ev->rec.comm[sizeof(ev->rec.comm) - 1] = '\0';
	}
}

static u8 obj_kind(const char *name, bool partition)
{
	if (partition)
		return VOLIOT_OBJ_PARTITION;
	if (!strncmp(name, "dm-", 3))
		return VOLIOT_OBJ_DM;
	if (!strncmp(name, "md", 2))
		return VOLIOT_OBJ_MD;
	if (!strncmp(name, "loop", 4))
		return VOLIOT_OBJ_LOOP;
	return VOLIOT_OBJ_DISK;
}

void vxt_event_object(struct vxt_kev *ev)
{
	struct voliot_object_rec *o = &ev->obj;
	bool part = ev->bdev && bdev_is_partition(ev->bdev);

	if (ev->obj_ready)
		return;
	memset(o, 0, sizeof(*o));
	o->len = sizeof(*o);
	o->type = VOLIOT_REC_OBJECT;
	o->dev = ev->rec.dev;
	if (ev->bdev) {
		snprintf(o->name, sizeof(o->name), "%pg", ev->bdev);
		o->nr_sectors = bdev_nr_sectors(ev->bdev);
	} else {
		strscpy(o->name, ev->gd->disk_name, sizeof(o->name));
		o->nr_sectors = get_capacity(ev->gd);
	}
	o->kind = obj_kind(o->name, part);
	ev->obj_ready = true;
}

/* ---- request level ---- */

static void rq_event(struct request *rq, u8 type, int error, u32 bytes)
{
	struct gendisk *gd = rq_gendisk(rq);
	struct vxt_kev ev;
	u64 start;

	if (!gd || (!error && !vxt_io_tracing()))
		return;
	kev_init(&ev, type);
	ev.gd = gd;
	ev.rec.dev = disk_devt(gd);
	ev.disk = ev.rec.dev;
	ev.req = (unsigned long)rq;
	if (rq->part && bdev_is_partition(rq->part))
		ev.part = rq->part->bd_dev;
	ev.rec.op = vxt_op(req_op(rq));
	ev.rec.flags = vxt_flags((__force u64)rq->cmd_flags);
	ev.rec.sector = blk_rq_pos(rq);
	ev.rec.bytes = bytes;
	ev.rec.error = error;
	if (type == VOLIOT_REC_IO_DONE) {
		start = rq->io_start_time_ns ? : rq->start_time_ns;
		if (start && start <= ev.rec.time_ns)
			ev.rec.latency_ns = ev.rec.time_ns - start;
	}
	vxt_dispatch(&ev);
}

/* A queue-side phase of a request: insert. */
static void probe_rq_insert(void *data, struct request *rq)
{
	if (vxt_phases_tracing())
		rq_event(rq, VOLIOT_REC_INSERT, 0, blk_rq_bytes(rq));
}

static void probe_rq_issue(void *data, struct request *rq)
{
	rq_event(rq, VOLIOT_REC_IO_START, 0, blk_rq_bytes(rq));
}

static void probe_rq_requeue(void *data, struct request *rq)
{
	rq_event(rq, VOLIOT_REC_REQUEUE, 0, blk_rq_bytes(rq));
}

static void probe_rq_complete(void *data, struct request *rq,
			      blk_status_t error, unsigned int nr_bytes)
{
	rq_event(rq, VOLIOT_REC_IO_DONE, blk_status_to_errno(error), nr_bytes);
}

/* Same prototype as block_rq_complete, which already carries the error:
 * only counted, to cross-check the error ring.
 */
static void probe_rq_error(void *data, struct request *rq,
			   blk_status_t error, unsigned int nr_bytes)
{
	atomic64_inc(&vxt_rq_errors);
}

/* ---- bio level, bio-based devices only ---- */

static bool bio_traced(struct bio *bio)
{
	return bio->bi_bdev && !queue_is_mq(bdev_get_queue(bio->bi_bdev));
}

#ifndef VXT_BIO_ISSUE
/* Where struct bio keeps no usable issue time (no CONFIG_BLK_CGROUP, or kbuild defines
 * VXT_BIO_ISSUE_TIME_NS for the kernels whose bio has a plain issue_time_ns,
 * set only on queues with blk-iolatency: 6.18, and 6.17 stable releases), the
 * module notes each traced bio's start and size itself, in a table indexed by
 * the bio's address. A bio whose slot another took completes without them.
 */
#define VXT_BIO_BITS	12
#define VXT_BIO_LOCKS	64

struct vxt_bio_slot {
	const struct bio *bio;
	u64 start;
	u32 bytes;
};

static struct vxt_bio_slot vxt_bio_slots[1 << VXT_BIO_BITS];
static spinlock_t vxt_bio_locks[VXT_BIO_LOCKS] = {
	[0 ... VXT_BIO_LOCKS - 1] = __SPIN_LOCK_UNLOCKED(vxt_bio_locks)
};

static void bio_note_start(const struct bio *bio, u64 start, u32 bytes)
{
	u32 i = hash_ptr((void *)bio, VXT_BIO_BITS);
	spinlock_t *lock = &vxt_bio_locks[i % VXT_BIO_LOCKS];
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	vxt_bio_slots[i].bio = bio;
	vxt_bio_slots[i].start = start;
	vxt_bio_slots[i].bytes = bytes;
	spin_unlock_irqrestore(lock, flags);
}

static bool bio_take_start(const struct bio *bio, u64 *start, u32 *bytes)
{
	u32 i = hash_ptr((void *)bio, VXT_BIO_BITS);
	spinlock_t *lock = &vxt_bio_locks[i % VXT_BIO_LOCKS];
	unsigned long flags;
	bool found;

	spin_lock_irqsave(lock, flags);
	found = vxt_bio_slots[i].bio == bio;
	if (found) {
		*start = vxt_bio_slots[i].start;
		*bytes = vxt_bio_slots[i].bytes;
		vxt_bio_slots[i].bio = NULL;
	}
	spin_unlock_irqrestore(lock, flags);
	return found;
}
#endif /* !VXT_BIO_ISSUE */

/* A completed bio may have been advanced by its driver: take the size and
 * the latency from what was noted at submission.
 */
static void bio_done_info(struct bio *bio, struct voliot_io_rec *rec)
{
	rec->error = blk_status_to_errno(bio->bi_status);
#ifndef VXT_BIO_ISSUE
	{
		u64 start;
		u32 bytes;

		if (bio_take_start(bio, &start, &bytes)) {
			if (start <= rec->time_ns)
				rec->latency_ns = rec->time_ns - start;
			if (!rec->bytes)
				rec->bytes = bytes;
		}
	}
#else
	{
		u64 now = vxt_issue_time(rec->time_ns);
		u64 start = vxt_issue_start(bio);

		if (start && start <= now)
			rec->latency_ns = now - start;
		if (!rec->bytes)
			rec->bytes = vxt_issue_sectors(bio) << SECTOR_SHIFT;
	}
#endif
}

static void bio_event(struct bio *bio, u8 type)
{
	struct block_device *bdev = bio->bi_bdev;
	struct vxt_kev ev;

	if (!vxt_io_tracing() &&
	    (type != VOLIOT_REC_IO_DONE || bio->bi_status == BLK_STS_OK))
		return;
	kev_init(&ev, type);
	ev.gd = bdev->bd_disk;
	ev.bdev = bdev;
	ev.rec.dev = bdev->bd_dev;
	ev.disk = disk_devt(bdev->bd_disk);
	ev.req = (unsigned long)bio;
	if (bdev_is_partition(bdev))
		ev.part = bdev->bd_dev;
	ev.rec.op = vxt_op(bio_op(bio));
	ev.rec.flags = vxt_flags((__force u64)bio->bi_opf) | VOLIOT_F_BIO;
	ev.rec.sector = bio->bi_iter.bi_sector;
	ev.rec.bytes = bio->bi_iter.bi_size;
	if (type == VOLIOT_REC_IO_DONE)
		bio_done_info(bio, &ev.rec);
#ifndef VXT_BIO_ISSUE
	else
		bio_note_start(bio, ev.rec.time_ns, ev.rec.bytes);
#endif
	vxt_dispatch(&ev);
}

static void bio_phase(struct bio *bio, u8 type);

/* The start of a bio-based device's I/O, the queue phase of the rest. */
static void probe_bio_queue(void *data, struct bio *bio)
{
	if (bio_traced(bio))
		bio_event(bio, VOLIOT_REC_IO_START);
	else
		bio_phase(bio, VOLIOT_REC_QUEUE);
}

static void probe_bio_complete(void *data, struct request_queue *q,
			       struct bio *bio)
{
	if (bio_traced(bio))
		bio_event(bio, VOLIOT_REC_IO_DONE);
}

/* ---- queue-side phases of request-based devices ---- */

/* A phase of @bio on the request-based device it is on now: the whole
 * disk, as the request events, with the partition for the selection. A
 * remap (@from_dev, @from: where the bio was sent before) is recorded on a
 * bio-based device too, as that device's own bio.
 */
static void bio_phase_from(struct bio *bio, u8 type, dev_t from_dev,
			   sector_t from)
{
	struct block_device *bdev = bio->bi_bdev;
	struct vxt_kev ev;
	bool mq;

	if (!vxt_phases_tracing() || !bdev)
		return;
	mq = queue_is_mq(bdev_get_queue(bdev));
	if (!mq && type != VOLIOT_REC_REMAP)
		return;
	kev_init(&ev, type);
	ev.gd = bdev->bd_disk;
	ev.rec.dev = disk_devt(bdev->bd_disk);
	ev.disk = ev.rec.dev;
	ev.req = (unsigned long)bio;
	if (bdev_is_partition(bdev))
		ev.part = bdev->bd_dev;
	ev.rec.op = vxt_op(bio_op(bio));
	ev.rec.flags = vxt_flags((__force u64)bio->bi_opf);
	ev.rec.sector = bio->bi_iter.bi_sector;
	ev.rec.bytes = bio->bi_iter.bi_size;
	if (!mq) {
		ev.bdev = bdev;
		ev.rec.dev = bdev->bd_dev;
		ev.rec.flags |= VOLIOT_F_BIO;
	}
	if (type == VOLIOT_REC_REMAP) {
		/* a stacked device's remap onto a partition comes before the
		 * partition's own: its sector is still the partition's
		 */
		if (mq && ev.part && from_dev != bdev->bd_dev)
			ev.rec.sector += bdev->bd_start_sect;
		ev.rec.len = sizeof(ev.remap);
		ev.remap.old_dev = from_dev;
		ev.remap.old_sector = from;
	}
	vxt_dispatch(&ev);
}

static void bio_phase(struct bio *bio, u8 type)
{
	bio_phase_from(bio, type, 0, 0);
}

static void probe_getrq(void *data, struct bio *bio)
{
	bio_phase(bio, VOLIOT_REC_GETRQ);
}

static void probe_backmerge(void *data, struct bio *bio)
{
	bio_phase(bio, VOLIOT_REC_BACKMERGE);
}

static void probe_frontmerge(void *data, struct bio *bio)
{
	bio_phase(bio, VOLIOT_REC_FRONTMERGE);
}

/* The first part of a split bio; the rest starts at @new_sector. */
static void probe_split(void *data, struct bio *bio, unsigned int new_sector)
{
	bio_phase(bio, VOLIOT_REC_SPLIT);
}

/* @bio now goes to its bi_bdev at its bi_sector, from @dev at @from. */
static void probe_remap(void *data, struct bio *bio, dev_t dev, sector_t from)
{
	bio_phase_from(bio, VOLIOT_REC_REMAP, dev, from);
}

static void queue_phase(struct request_queue *q, u8 type)
{
	struct gendisk *gd = q_gendisk(q);
	struct vxt_kev ev;

	if (!vxt_phases_tracing() || !gd)
		return;
	kev_init(&ev, type);
	ev.gd = gd;
	ev.rec.dev = disk_devt(gd);
	ev.disk = ev.rec.dev;
	ev.rec.op = VOLIOT_OP_OTHER;
	vxt_dispatch(&ev);
}

static void probe_plug(void *data, struct request_queue *q)
{
	queue_phase(q, VOLIOT_REC_PLUG);
}

static void probe_unplug(void *data, struct request_queue *q,
			 unsigned int depth, bool explicit)
{
	queue_phase(q, VOLIOT_REC_UNPLUG);
}

/* The probes go through void pointers to tracepoint_probe_register(): make
 * the compiler check each one against the tracepoint's prototype in this
 * kernel's <trace/events/block.h>. Never called.
 */
static void __maybe_unused vxt_check_probes(void)
{
	check_trace_callback_type_block_rq_issue(probe_rq_issue);
	check_trace_callback_type_block_rq_complete(probe_rq_complete);
	check_trace_callback_type_block_rq_requeue(probe_rq_requeue);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
	/* older kernels may lack it: it is optional below */
	check_trace_callback_type_block_rq_error(probe_rq_error);
#endif
	check_trace_callback_type_block_bio_queue(probe_bio_queue);
	check_trace_callback_type_block_bio_complete(probe_bio_complete);
	check_trace_callback_type_block_getrq(probe_getrq);
	check_trace_callback_type_block_rq_insert(probe_rq_insert);
	check_trace_callback_type_block_bio_backmerge(probe_backmerge);
	check_trace_callback_type_block_bio_frontmerge(probe_frontmerge);
	check_trace_callback_type_block_plug(probe_plug);
	check_trace_callback_type_block_unplug(probe_unplug);
	check_trace_callback_type_block_split(probe_split);
	check_trace_callback_type_block_bio_remap(probe_remap);
}

/* ---- attaching ---- */

struct vxt_tp {
	const char *name;
	void *probe;
	bool optional;		/* not in every kernel */
	struct tracepoint *tp;
	bool attached;
};

static struct vxt_tp vxt_tps[] = {
	{ "block_rq_issue", probe_rq_issue },
	{ "block_rq_complete", probe_rq_complete },
	{ "block_rq_requeue", probe_rq_requeue },
	{ "block_rq_error", probe_rq_error, true },
	{ "block_bio_queue", probe_bio_queue },
	{ "block_bio_complete", probe_bio_complete },
	{ "block_getrq", probe_getrq },
	{ "block_rq_insert", probe_rq_insert },
	{ "block_bio_backmerge", probe_backmerge },
	{ "block_bio_frontmerge", probe_frontmerge },
	{ "block_plug", probe_plug },
	{ "block_unplug", probe_unplug },
	{ "block_split", probe_split },
	{ "block_bio_remap", probe_remap },
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(vxt_tps); i++)
		if (!strcmp(tp->name, vxt_tps[i].name))
			vxt_tps[i].tp = tp;
}

void vxt_probes_detach(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(vxt_tps); i++) {
		if (!vxt_tps[i].attached)
			continue;
		tracepoint_probe_unregister(vxt_tps[i].tp, vxt_tps[i].probe,
					    NULL);
		vxt_tps[i].attached = false;
	}
	tracepoint_synchronize_unregister();
}

int vxt_probes_attach(void)
{
	struct vxt_tp *t;
	int i, rc;

	for_each_kernel_tracepoint(find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(vxt_tps); i++) {
		t = &vxt_tps[i];
		if (!t->tp) {
			if (t->optional)
				continue;
			pr_err("tracepoint %s not found\n", t->name);
			rc = -ENOENT;
			goto out_detach;
		}
		rc = tracepoint_probe_register(t->tp, t->probe, NULL);
		if (rc) {
			pr_err("cannot attach to %s: %d\n", t->name, rc);
			goto out_detach;
		}
		t->attached = true;
	}
	return 0;

out_detach:
	vxt_probes_detach();
	return rc;
}
