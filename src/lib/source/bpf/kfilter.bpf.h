/* SPDX-License-Identifier: GPL-2.0-only */
/* kfilter.bpf.h - the kernel's part of a filter, in the ebpf source's programs
 *
 * Included by vxtrace.bpf.c (one BPF object). User space fills the kfilter
 * map with the comparisons of the filter it can compute in the kernel
 * (struct vxt_bpf_kftest, vxtrace_bpf.h); a record no way through them
 * accepts is not sent.
 */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VXT_BPF_KF_TESTS);
	__type(key, __u32);
	__type(value, struct vxt_bpf_kftest);
} kfilter SEC(".maps");

/* May the filter accept @r? Its comparisons in order, each on a word of
 * the event user space will make of @r (struct vxt_event's layout); one
 * the kernel cannot compute goes both ways. No: no way through accepts. */
static __always_inline bool kf_may_accept(const struct voliot_io_rec *r)
{
	__u64 w[8];			/* the 6 words of the event; index & 7 */
	__u32 reach;
	__u8 phase = r->type == VOLIOT_REC_IO_DONE ? VXT_BPF_PH_DONE :
		     r->type == VOLIOT_REC_REQUEUE ? VXT_BPF_PH_REQUEUE : VXT_BPF_PH_START;

	if (kf_entry == VXT_BPF_KF_ACCEPT)
		return true;
	if (kf_entry == VXT_BPF_KF_REJECT)
		return false;
	w[0] = r->time_ns;
	w[1] = r->sector;
	w[2] = r->latency_ns;
	w[3] = r->bytes;			/* object: not known here */
	w[4] = r->pid;				/* comm: not known here */
	w[5] = (__u64)r->flags | ((__u64)r->cpu << 16) | ((__u64)(__u16)r->error << 32) |
	       ((__u64)phase << 48) | ((__u64)r->op << 56);
	w[6] = w[7] = 0;
	reach = 1u << (kf_entry & 31);
	for (__u32 i = 0; i < VXT_BPF_KF_TESTS; i++) {
		struct vxt_bpf_kftest *t;
		__u32 k = i;
		__u16 next[2];
		int nn = 0;

		if (i >= kf_n)
			break;
		if (!(reach & (1u << i)))
			continue;
		t = bpf_map_lookup_elem(&kfilter, &k);
		if (!t)
			return true;
		if (!t->known) {
			next[nn++] = t->t;
			next[nn++] = t->f;
		} else {
			__u64 x = (w[t->word & 7] >> (t->shift & 63)) & t->mask;

			next[nn++] = x - t->lo <= t->span ? t->t : t->f;
		}
		for (int j = 0; j < 2; j++) {
			if (j >= nn)
				break;
			if (next[j] == VXT_BPF_KF_ACCEPT)
				return true;
			if (next[j] < VXT_BPF_KF_TESTS)
				reach |= 1u << next[j];
		}
	}
	return false;
}
