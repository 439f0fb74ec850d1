/* SPDX-License-Identifier: GPL-2.0-only */
/* phases.bpf.h - the ebpf source's programs for the phases besides issue,
 * completion and requeue (--phases all, loaded only then: user space sets
 * the autoload of each vxt_ph_* program)
 *
 * Included at the end of vxtrace.bpf.c, whose helpers it uses (dev_of(),
 * rq_dev(), rq_op(), rq_flags(), ring_put()). Each program sends a
 * VXT_BPF_REC_PHASE record as tracefs_phases.c makes its events: the bio
 * queue of a request-level device (Q; a bio-based device's bios are not
 * traced by this source), getrq (G), insert (I), back and front merges (M),
 * split (X, its front part), bio and request remaps (A, with their source),
 * plug and unplug (P, U, on the disk of the plugged queue).
 */

/* A phase record of @phase on @dev: an I/O of @opf at @sector, @bytes long
 * (a remap's source @old_dev and @old_sector), by the current task; past
 * any speculation or filter (user space filters it). */
static __always_inline int send_phase(__u8 phase, __u32 dev, __u32 opf, __u64 sector,
				      __u32 bytes, __u32 old_dev, __u64 old_sector)
{
	struct voliot_io_rec r;

	r.len = sizeof(r);
	r.type = VXT_BPF_REC_PHASE;
	r.op = rq_op(opf);
	r.reserved0 = phase;
	r.flags = rq_flags(opf);
	r.cpu = bpf_get_smp_processor_id();
	r.dev = dev;
	r.pid = bpf_get_current_pid_tgid() >> 32;
	r.bytes = bytes;
	r.error = (__s32)old_dev;
	r.time_ns = bpf_ktime_get_ns();
	r.sector = sector;
	r.latency_ns = old_sector;
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	ring_put(&r);
	return 0;
}

/* The traced device of @bio, 0 to skip it; with @mq_only, 0 for a device
 * without a request queue of its own (its bios are its I/O: not traced). */
static __always_inline __u32 bio_dev(struct bio *bio, bool mq_only)
{
	struct block_device *bd = bio->bi_bdev;
	struct gendisk *gd;
	__u32 idx;

	if (!bd)
		return 0;
	gd = bd->bd_disk;
	if (!gd || (mq_only && !gd->queue->mq_ops))
		return 0;
	return dev_of(gd, bd, &idx);
}

/* The I/O a phase record tells of: operation flags, first sector, bytes. */
#define BIO_IO(bio)	(bio)->bi_opf, (bio)->bi_iter.bi_sector, (bio)->bi_iter.bi_size
#define RQ_IO(rq)	(rq)->cmd_flags, (rq)->__sector, (rq)->__data_len
#define NO_IO		0, 0, 0
/* a split's front part: up to @new_sector, 0 bytes when that is no sane size */
#define SPLIT_IO(bio, new_sector)							\
	(bio)->bi_opf, (bio)->bi_iter.bi_sector,					\
	(new_sector) > (bio)->bi_iter.bi_sector &&					\
	(new_sector) - (bio)->bi_iter.bi_sector < (1u << 23) ?				\
	(__u32)((new_sector) - (bio)->bi_iter.bi_sector) * 512 : 0

/* The program @prog on tracepoint @tp, of arguments @...: a record of
 * @phase on the traced device @dev_expr (0: not traced; it may set idx)
 * for the I/O @io (BIO_IO, RQ_IO or NO_IO), from device @from and sector
 * @from_sector for a remap (else 0, 0). */
#define PHASE_PROG(prog, tp, phase, dev_expr, io, from, from_sector, ...)	\
SEC("tp_btf/" #tp)								\
int BPF_PROG(prog, __VA_ARGS__)							\
{										\
	__u32 idx, dev;								\
										\
	if (noop || stopping)							\
		return 0;							\
	dev = (dev_expr);							\
	(void)idx;								\
	if (!dev)								\
		return 0;							\
	return send_phase(phase, dev, io, from, from_sector);			\
}

/* the bio queue of a request-level device only: a bio-based device's bios
 * are its I/O, not traced by this source */
PHASE_PROG(vxt_ph_bio_queue, block_bio_queue, VXT_BPF_PH_QUEUE, bio_dev(bio, true),
	   BIO_IO(bio), 0, 0, struct bio *bio)
PHASE_PROG(vxt_ph_getrq, block_getrq, VXT_BPF_PH_GETRQ, bio_dev(bio, false),
	   BIO_IO(bio), 0, 0, struct bio *bio)
PHASE_PROG(vxt_ph_backmerge, block_bio_backmerge, VXT_BPF_PH_MERGE, bio_dev(bio, false),
	   BIO_IO(bio), 0, 0, struct bio *bio)
PHASE_PROG(vxt_ph_frontmerge, block_bio_frontmerge, VXT_BPF_PH_MERGE, bio_dev(bio, false),
	   BIO_IO(bio), 0, 0, struct bio *bio)
/* the front part [sector, new_sector) goes on alone */
PHASE_PROG(vxt_ph_split, block_split, VXT_BPF_PH_SPLIT, bio_dev(bio, false),
	   SPLIT_IO(bio, new_sector), 0, 0, struct bio *bio, unsigned int new_sector)
PHASE_PROG(vxt_ph_bio_remap, block_bio_remap, VXT_BPF_PH_REMAP, bio_dev(bio, false),
	   BIO_IO(bio), from_dev, from, struct bio *bio, dev_t from_dev, sector_t from)
PHASE_PROG(vxt_ph_rq_remap, block_rq_remap, VXT_BPF_PH_REMAP, rq_dev(rq, &idx),
	   RQ_IO(rq), from_dev, from, struct request *rq, dev_t from_dev, sector_t from)
PHASE_PROG(vxt_ph_rq_insert, block_rq_insert, VXT_BPF_PH_INSERT, rq_dev(rq, &idx),
	   RQ_IO(rq), 0, 0, struct request *rq)
/* plug and unplug: on the disk of the plugged queue, no I/O of their own */
PHASE_PROG(vxt_ph_plug, block_plug, VXT_BPF_PH_PLUG, dev_of(q->disk, 0, &idx),
	   NO_IO, 0, 0, struct request_queue *q)
PHASE_PROG(vxt_ph_unplug, block_unplug, VXT_BPF_PH_UNPLUG, dev_of(q->disk, 0, &idx),
	   NO_IO, 0, 0, struct request_queue *q, unsigned int depth, bool explicit)
