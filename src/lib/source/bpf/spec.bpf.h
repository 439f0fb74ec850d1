/* SPDX-License-Identifier: GPL-2.0-only */
/* spec.bpf.h - kernel speculation of the ebpf source (the profiles' context)
 *
 * Included by vxtrace.bpf.c (one BPF object). Per key (object, pid or
 * both) the records that are not sent wait in a window of the last
 * spec_window (sized from the profile); a trigger (a failed completion, or
 * one at least spec_on_latency_ns slow) sends those of its key within
 * spec_before_ns before it (and among the spec_before_events last), itself,
 * and then, live, those within spec_after_ns after it (and among the
 * spec_after_events first). Records no trigger claims are overwritten
 * without ever reaching user space (no wakeup).
 */

/* kernel speculation: key -> its window's slot, and the windows */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);	/* spec_keys */
	__type(key, __u64);
	__type(value, __u32);
} spec_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* spec_keys; 1 when no speculation runs */
	__uint(map_flags, BPF_F_MMAPABLE);	/* values page-aligned */
	__type(key, __u32);
	__type(value, struct vxt_bpf_window);
} spec_windows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* spec_keys x spec_window */
	__type(key, __u32);
	__type(value, struct vxt_bpf_wrec);
} spec_records SEC(".maps");

/* the time of each record of spec_records (0: none yet), which the record
 * that overwrites it tests: a load from this dense array, not from the
 * cold record about to be written over */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* spec_keys x spec_window */
	__type(key, __u32);
	__type(value, __u64);
} spec_times SEC(".maps");

struct commit_ctx {
	__u32 slot;
	__u64 head;		/* the window's head when the commit began */
	__u64 from_ns;		/* oldest time the trigger keeps */
	__u64 sent_upto;
	__u32 n;		/* records to send, the newest n before head */
};

static __always_inline struct vxt_bpf_window *window_of(__u32 slot)
{
	return bpf_map_lookup_elem(&spec_windows, &slot);
}

/* The place of record number @n of window @slot's ring. */
static __always_inline __u32 wrec_at(__u32 slot, __u64 n)
{
	return slot * spec_window + (__u32)(n % spec_window);
}

/* Record number @n of window @slot's ring. */
static __always_inline struct vxt_bpf_wrec *wrec_of(__u32 slot, __u64 n)
{
	__u32 i = wrec_at(slot, n);

	return bpf_map_lookup_elem(&spec_records, &i);
}

/* Walking back from the newest stored record: how many are in the window. */
static long commit_count(__u32 i, void *arg)
{
	struct commit_ctx *c = arg;
	struct vxt_bpf_wrec *w;
	__u64 n, t;

	if (i >= c->head || (spec_before_events && i >= spec_before_events))
		return 1;
	n = c->head - 1 - i;
	w = wrec_of(c->slot, n);
	if (!w || w->seq != n + 1)
		return 1;	/* overwritten since: nothing older is left */
	t = w->rec.time_ns;
	if (t < c->from_ns || t <= c->sent_upto)
		return 1;
	c->n = i + 1;
	return 0;
}

/* Send the n records counted, oldest first. */
static long commit_send(__u32 i, void *arg)
{
	struct commit_ctx *c = arg;
	struct vxt_bpf_wrec *w;
	__u64 n;

	n = c->head - c->n + i;
	w = wrec_of(c->slot, n);
	if (!w)
		return 1;
	if (w->seq == n + 1)
		ring_put(&w->rec);
	return 0;
}

static __always_inline __u64 spec_key_of(const struct voliot_io_rec *r)
{
	if (spec_key == VXT_BPF_KEY_PID)
		return r->pid;
	if (spec_key == VXT_BPF_KEY_OBJECT_PID)
		return ((__u64)r->dev << 32) | r->pid;
	return r->dev;
}

static __always_inline bool spec_trigger(const struct voliot_io_rec *r)
{
	if (r->type != VOLIOT_REC_IO_DONE)
		return false;
	if (spec_on_error && r->error)
		return true;
	if (!spec_on_latency_ns)
		return false;
	return spec_latency_strict ? r->latency_ns > spec_on_latency_ns
				   : r->latency_ns >= spec_on_latency_ns;
}

/* The slot of @key's window, handing out a new one on first sight; -1 when
 * every slot is taken. */
static __always_inline int spec_slot(__u64 key)
{
	__u32 *slot = bpf_map_lookup_elem(&spec_slots, &key), n;

	if (slot)
		return *slot;
	n = __sync_fetch_and_add(&spec_nkeys, 1);
	if (n >= spec_keys)
		return -1;
	if (bpf_map_update_elem(&spec_slots, &key, &n, BPF_NOEXIST)) {
		slot = bpf_map_lookup_elem(&spec_slots, &key);	/* another CPU won */
		return slot ? (int)*slot : -1;
	}
	return n;
}

/* Speculate on record @r of the device at want_dev[@idx]. A function of
 * its own (global, not inlined), which the verifier checks once, apart
 * from its caller: inlined, it was checked again after each way through
 * the caller's search of want_dev[] (rq_dev()), which took the
 * completion's program past Linux 6.1's limit of 1 M instructions. */
__noinline int speculate(const struct voliot_io_rec *r, __u32 idx)
{
	struct vxt_bpf_window *w;
	struct vxt_bpf_wrec *wr;
	struct commit_ctx c;
	__u64 n, *was, now;
	__u32 at;
	int slot;

	if (!r)
		return 0;
	now = r->time_ns;
	count(VXT_BPF_SEEN);
	/* keyed by object among objects chosen: the device's own window,
	 * with no lookup */
	if (spec_key == VXT_BPF_KEY_OBJECT && !want_all)
		slot = idx < spec_keys ? (int)idx : -1;
	else
		slot = spec_slot(spec_key_of(r));
	if (slot < 0) {
		count(VXT_BPF_SPEC_FAILED);
		return 0;
	}
	w = window_of(slot);
	if (!w)
		return 0;
	if (spec_trigger(r)) {
		c.slot = slot;
		c.head = w->head;
		c.from_ns = now > spec_before_ns ? now - spec_before_ns : 0;
		c.sent_upto = w->sent_upto;
		c.n = 0;
		bpf_loop(spec_window, commit_count, &c, 0);
		if (c.n)
			bpf_loop(c.n, commit_send, &c, 0);
		ring_put(r);
		count(VXT_BPF_COMMITS);
		w->sent_upto = now;
		if (spec_after_events) {
			/* a trigger starts the window afresh */
			w->after_until = spec_after_ns ? now + spec_after_ns : ~0ULL;
			w->after_left = spec_after_events;
		} else if (now + spec_after_ns > w->after_until) {
			w->after_until = now + spec_after_ns;
		}
		return 0;
	}
	if (now <= w->after_until &&
	    (!spec_after_events ||
	     (w->after_left > 0 && __sync_fetch_and_add(&w->after_left, -1) > 0))) {
		ring_put(r);
		w->sent_upto = now;
		return 0;
	}
	/* not sent (yet): into the window, over its oldest record */
	n = __sync_fetch_and_add(&w->head, 1);
	at = wrec_at(slot, n);
	wr = bpf_map_lookup_elem(&spec_records, &at);
	was = bpf_map_lookup_elem(&spec_times, &at);
	if (!wr || !was)
		return 0;
	/* (a count window fits the ring: nothing in it is overwritten) */
	if (!spec_before_events && *was && *was + spec_before_ns >= now && *was > w->sent_upto)
		count(VXT_BPF_SPEC_DROPS);	/* it was still inside a window */
	*was = now;
	wr->seq = 0;
	__builtin_memcpy(&wr->rec, r, sizeof(*r));
	wr->seq = n + 1;
	return 0;
}
