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

static __always_inline int bio_phase(struct bio *bio, __u8 phase, bool mq_only)
{
	__u32 dev;

	if (noop || stopping)
		return 0;
	dev = bio_dev(bio, mq_only);
	if (!dev)
		return 0;
	return send_phase(phase, dev, bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size,
			  0, 0);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(vxt_ph_bio_queue, struct bio *bio)
{
	return bio_phase(bio, VXT_BPF_PH_QUEUE, true);
}

SEC("tp_btf/block_getrq")
int BPF_PROG(vxt_ph_getrq, struct bio *bio)
{
	return bio_phase(bio, VXT_BPF_PH_GETRQ, false);
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(vxt_ph_backmerge, struct bio *bio)
{
	return bio_phase(bio, VXT_BPF_PH_MERGE, false);
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(vxt_ph_frontmerge, struct bio *bio)
{
	return bio_phase(bio, VXT_BPF_PH_MERGE, false);
}

SEC("tp_btf/block_split")
int BPF_PROG(vxt_ph_split, struct bio *bio, unsigned int new_sector)
{
	__u64 sector = bio->bi_iter.bi_sector;
	__u32 dev;

	if (noop || stopping)
		return 0;
	dev = bio_dev(bio, false);
	if (!dev)
		return 0;
	/* the front part [sector, new_sector) goes on alone */
	return send_phase(VXT_BPF_PH_SPLIT, dev, bio->bi_opf, sector,
			  new_sector > sector && new_sector - sector < (1u << 23) ?
			  (__u32)(new_sector - sector) * 512 : 0, 0, 0);
}

SEC("tp_btf/block_bio_remap")
int BPF_PROG(vxt_ph_bio_remap, struct bio *bio, dev_t from_dev, sector_t from)
{
	__u32 dev;

	if (noop || stopping)
		return 0;
	dev = bio_dev(bio, false);
	if (!dev)
		return 0;
	return send_phase(VXT_BPF_PH_REMAP, dev, bio->bi_opf, bio->bi_iter.bi_sector,
			  bio->bi_iter.bi_size, from_dev, from);
}

SEC("tp_btf/block_rq_remap")
int BPF_PROG(vxt_ph_rq_remap, struct request *rq, dev_t from_dev, sector_t from)
{
	__u32 idx, dev;

	if (noop || stopping)
		return 0;
	dev = rq_dev(rq, &idx);
	if (!dev)
		return 0;
	return send_phase(VXT_BPF_PH_REMAP, dev, rq->cmd_flags, rq->__sector, rq->__data_len,
			  from_dev, from);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(vxt_ph_rq_insert, struct request *rq)
{
	__u32 idx, dev;

	if (noop || stopping)
		return 0;
	dev = rq_dev(rq, &idx);
	if (!dev)
		return 0;
	return send_phase(VXT_BPF_PH_INSERT, dev, rq->cmd_flags, rq->__sector, rq->__data_len,
			  0, 0);
}

SEC("tp_btf/block_plug")
int BPF_PROG(vxt_ph_plug, struct request_queue *q)
{
	__u32 idx, dev;

	if (noop || stopping)
		return 0;
	dev = dev_of(q->disk, 0, &idx);
	if (!dev)
		return 0;
	return send_phase(VXT_BPF_PH_PLUG, dev, 0, 0, 0, 0, 0);
}

SEC("tp_btf/block_unplug")
int BPF_PROG(vxt_ph_unplug, struct request_queue *q, unsigned int depth, bool explicit)
{
	__u32 idx, dev;

	if (noop || stopping)
		return 0;
	dev = dev_of(q->disk, 0, &idx);
	if (!dev)
		return 0;
	return send_phase(VXT_BPF_PH_UNPLUG, dev, 0, 0, 0, 0, 0);
}
