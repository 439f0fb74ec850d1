/* SPDX-License-Identifier: GPL-2.0-only */
/* tally.bpf.h - in-kernel counting of the ebpf source (tally mode, vxtop --maps)
 *
 * Included by vxtrace.bpf.c (one BPF object). Per (device, op): issues,
 * requeues, completions, bytes, errors (and per errno), and the
 * completions' latencies in the metrics' 2^k us buckets and in the buckets
 * of the product's one latency distribution (struct vxt_bpf_hist), all in
 * per-CPU maps user space reads once per interval (ebpf_tally.c).
 */

/* tally mode: dev << 8 | op -> its counts; allocated as keys appear */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, VXT_BPF_MAX_TALLY);	/* 1 when not counting */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct vxt_bpf_tally);
} tallies SEC(".maps");

/* tally mode among objects chosen: want_dev[] index * VXT_BPF_TALLY_OPS +
 * op -> its counts, found with no hash lookup (sized by user space) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vxt_bpf_tally);
} tally_slots SEC(".maps");

/* tally mode: dev << 32 | op << 16 | (__u16)errno -> failed completions */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, VXT_BPF_MAX_TALLY);	/* 1 when not counting */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u64);
} tally_errs SEC(".maps");

/* a zeroed tally to create keys from (the stack is too small for one) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vxt_bpf_tally);
} tally_zero SEC(".maps");

/* tally mode: dev << 8 | op (as tallies) -> its latencies; allocated as
 * keys appear, objects chosen or not (an array of one per want_dev[] and op
 * would take its 31 KiB per CPU for every op of every device chosen) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, VXT_BPF_MAX_TALLY);	/* 1 when not counting */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct vxt_bpf_hist);
} lat_hists SEC(".maps");

/* a zeroed histogram to create keys from */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vxt_bpf_hist);
} hist_zero SEC(".maps");

/* The index of the highest bit set in @v (v > 0). */
static __always_inline __u32 msb64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1)
		r += 1;
	return r;
}

/* The bucket of @v in the one latency distribution: vxt_latdist_bucket()
 * of latdist.h, the last bucket for all from 2^VXT_BPF_LAT_TOP on. */
static __always_inline __u32 lat_bucket(__u64 v)
{
	__u32 lg = msb64(v | 255);

	if (lg >= VXT_BPF_LAT_TOP)
		return VXT_BPF_LAT_BUCKETS - 1;
	return (((lg - 7) << 7) + (__u32)(v >> (lg - 7))) & 4095;
}

/* As the metrics' buckets (metrics.c): the smallest k with ns <= 2^k us. */
static __always_inline __u32 us_bucket(__u64 ns)
{
	__u64 us = (ns + 999) / 1000;
	__u32 k;

	if (us <= 1)
		return 0;
	k = msb64(us - 1) + 1;
	return k > VXT_BPF_US_BUCKETS - 1 ? VXT_BPF_US_BUCKETS - 1 : k;
}

/* The counts of (@dev, @op), @dev at want_dev[@idx]. */
static __always_inline struct vxt_bpf_tally *tally_of(__u32 dev, __u32 idx, __u8 op)
{
	__u64 key = ((__u64)dev << 8) | op;
	struct vxt_bpf_tally *t;
	__u32 zero = 0;
	void *z;

	if (!want_all) {
		__u32 at = idx * VXT_BPF_TALLY_OPS + (op & (VXT_BPF_TALLY_OPS - 1));

		t = bpf_map_lookup_elem(&tally_slots, &at);
		if (!t)
			count(VXT_BPF_TALLY_FULL);
		return t;
	}
	t = bpf_map_lookup_elem(&tallies, &key);
	if (t)
		return t;
	z = bpf_map_lookup_elem(&tally_zero, &zero);
	if (!z)
		return 0;
	bpf_map_update_elem(&tallies, &key, z, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&tallies, &key);
	if (!t)
		count(VXT_BPF_TALLY_FULL);
	return t;
}

/* Count latency @lat of (@dev, @op) in its histogram. */
static __always_inline void hist_add(__u32 dev, __u8 op, __u64 lat)
{
	__u64 key = ((__u64)dev << 8) | op;
	struct vxt_bpf_hist *h = bpf_map_lookup_elem(&lat_hists, &key);
	__u32 zero = 0, i = lat_bucket(lat);
	void *z;

	if (!h) {
		z = bpf_map_lookup_elem(&hist_zero, &zero);
		if (!z)
			return;
		bpf_map_update_elem(&lat_hists, &key, z, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&lat_hists, &key);
		if (!h) {
			count(VXT_BPF_TALLY_FULL);
			return;
		}
	}
	if (i < VXT_BPF_LAT_BUCKETS)
		h->b[i]++;	/* per CPU, written by completions only */
}

/* A plain add, no lock: the counts are per CPU, each field is written by
 * one program only (started and lost by the issue's, requeued by the
 * requeue's, the rest by the completion's), and the kernel never runs a program inside
 * itself on one CPU (it skips the inner run and counts a recursion miss,
 * which user space reports). A completion's program cutting into an issue's
 * on the same CPU writes other fields. */
#define TALLY_ADD(field, n) ((field) += (n))

static __always_inline void tally_done(__u32 dev, __u32 idx, __u8 op, __s32 error,
				       __u32 bytes, __u64 lat)
{
	struct vxt_bpf_tally *t = tally_of(dev, idx, op);

	if (!t)
		return;
	TALLY_ADD(t->completed, 1);
	TALLY_ADD(t->bytes, bytes);
	if (error) {
		__u64 key = ((__u64)dev << 32) | ((__u64)op << 16) | (__u16)error, one = 1;
		__u64 *n;

		TALLY_ADD(t->errors, 1);
		n = bpf_map_lookup_elem(&tally_errs, &key);
		if (n)
			TALLY_ADD(*n, 1);
		else if (bpf_map_update_elem(&tally_errs, &key, &one, BPF_NOEXIST))
			count(VXT_BPF_TALLY_FULL);
	}
	if (!lat)
		return;
	TALLY_ADD(t->lat_count, 1);
	TALLY_ADD(t->lat_sum_ns, lat);
	if (lat > t->lat_max_ns)
		t->lat_max_ns = lat;
	TALLY_ADD(t->us_bucket[us_bucket(lat)], 1);
	hist_add(dev, op, lat);
}

/* The counts of a record about to be sent (or kept in a window). */
static __always_inline void tally_rec(const struct voliot_io_rec *r, __u32 idx)
{
	struct vxt_bpf_tally *t;

	if (r->type == VOLIOT_REC_IO_DONE) {
		tally_done(r->dev, idx, r->op, r->error, r->bytes, r->latency_ns);
		return;
	}
	t = tally_of(r->dev, idx, r->op);
	if (!t)
		return;
	if (r->type == VOLIOT_REC_IO_START)
		TALLY_ADD(t->started, 1);
	else
		TALLY_ADD(t->requeued, 1);
}
