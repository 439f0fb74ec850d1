// SPDX-License-Identifier: GPL-2.0
/* spec.c - speculation buffers of an I/O channel (VOLIOT_IO_SPECULATE)
 *
 * A speculating channel does not pass its events to the reader at once: each
 * goes into the buffer of its key (object, pid, object+pid or one request).
 * A trigger (an error, a slow completion, an error on any object) commits
 * the key's buffer to the channel's ring: the events of the window before
 * it, the trigger itself, then the events of the window after it as they
 * come. Events that age out of the before window, and requests that complete
 * without a trigger, are discarded here without waking anyone.
 *
 * Everything is allocated when the program is set: nspec buffers of
 * specsize bytes, their headers and a hash table of keys. The probes only
 * move records between preallocated slots, under the channel's spinlock,
 * which the caller holds for every function here but vxt_spec_new() and
 * vxt_spec_free().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vxtrace.h"

#define REC_SIZE	((u32)sizeof(struct voliot_io_rec))
/* The issues remembered for VOLIOT_SPEC_F_ISSUE_PID: sets of ISSUE_WAYS
 * entries, by the request's address; a start takes its own entry, a free
 * one or the set's oldest.
 */
#define ISSUE_BITS	10
#define ISSUE_WAYS	4

struct vxt_issue {
	unsigned long req;
	u32 pid;
	u32 stamp;			/* when it was stored */
};

struct vxt_sbuf {
	struct hlist_node hnode;	/* in the hash while it holds a key */
	struct list_head lru;		/* on free, or on lru by last use */
	u64 k1, k2;			/* the key */
	u32 first, count;		/* records: circular in recs */
	u64 last_ns;			/* time of the newest event */
	bool after;			/* in an after window */
	u64 after_end;			/* ... until this time */
	u32 after_left;			/* ... for this many events more */
	struct voliot_io_rec *recs;
};

struct vxt_spec {
	struct voliot_spec prog;
	u32 cap;			/* records per buffer */
	u32 hbits;
	struct vxt_sbuf *bufs;
	struct voliot_io_rec *recs;
	struct hlist_head *hash;
	struct list_head free, lru;
	struct voliot_spec_stats st;
	u64 gen, sent_gen;		/* counters changed / sent */
	u64 horizon;			/* the last horizon sent */
	size_t bytes;			/* allocated */
	struct vxt_issue *issues;	/* VOLIOT_SPEC_F_ISSUE_PID, else NULL */
	u32 issue_stamp;
};

static bool window_ok(u64 ns, u32 events)
{
	return ns <= VOLIOT_SPEC_WINDOW_MAX_NS && events <= VOLIOT_SPEC_EVENTS_MAX;
}

int vxt_spec_check(const struct voliot_spec *p, u64 max_bytes)
{
	u32 i;

	if (p->version != VOLIOT_SPEC_VERSION || (p->flags & ~VOLIOT_SPEC_F_ALL))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(p->reserved); i++)
		if (p->reserved[i])
			return -EINVAL;
	if (p->key < VOLIOT_SPEC_KEY_OBJECT || p->key > VOLIOT_SPEC_KEY_REQUEST)
		return -EINVAL;
	if (!p->triggers || (p->triggers & ~VOLIOT_SPEC_ON_ALL))
		return -EINVAL;
	if (!(p->triggers & VOLIOT_SPEC_ON_LATENCY) != !p->latency_ns ||
	    p->latency_ns > VOLIOT_SPEC_WINDOW_MAX_NS)
		return -EINVAL;
	if (p->overflow > VOLIOT_SPEC_DROP_OLDEST)
		return -EINVAL;
	if (!window_ok(p->before_ns, p->before_events) ||
	    !window_ok(p->after_ns, p->after_events))
		return -EINVAL;
	if ((p->flags & VOLIOT_SPEC_F_ISSUE_PID) &&
	    p->key != VOLIOT_SPEC_KEY_PID && p->key != VOLIOT_SPEC_KEY_OBJECT_PID)
		return -EINVAL;
	if (p->key == VOLIOT_SPEC_KEY_REQUEST) {
		/* The window is the request's own life. */
		if (p->before_ns || p->before_events || p->after_ns ||
		    p->after_events)
			return -EINVAL;
	} else if (!p->before_ns && !p->before_events) {
		return -EINVAL;
	}
	if (!p->nspec || p->nspec > VOLIOT_SPEC_NSPEC_MAX ||
	    p->specsize < REC_SIZE)
		return -EINVAL;
	if ((u64)p->nspec * p->specsize > max_bytes)
		return -E2BIG;
	return 0;
}

struct vxt_spec *vxt_spec_new(const struct voliot_spec *p)
{
	struct vxt_spec *s;
	u32 i, nb;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->prog = *p;
	s->cap = p->specsize / REC_SIZE;
	s->hbits = max_t(u32, ilog2(roundup_pow_of_two(p->nspec)), 1);
	nb = 1U << s->hbits;
	s->bufs = kvcalloc(p->nspec, sizeof(*s->bufs), GFP_KERNEL);
	s->recs = kvmalloc_array((size_t)p->nspec * s->cap, REC_SIZE,
				 GFP_KERNEL);
	s->hash = kvcalloc(nb, sizeof(*s->hash), GFP_KERNEL);
	if (p->flags & VOLIOT_SPEC_F_ISSUE_PID)
		s->issues = kvcalloc(ISSUE_WAYS << ISSUE_BITS,
				     sizeof(*s->issues), GFP_KERNEL);
	if (!s->bufs || !s->recs || !s->hash ||
	    (!s->issues && (p->flags & VOLIOT_SPEC_F_ISSUE_PID))) {
		vxt_spec_free(s);
		return ERR_PTR(-ENOMEM);
	}
	s->bytes = (size_t)p->nspec * (sizeof(*s->bufs) + s->cap * REC_SIZE) +
		   nb * sizeof(*s->hash);
	if (s->issues)
		s->bytes += (ISSUE_WAYS << ISSUE_BITS) * sizeof(*s->issues);
	INIT_LIST_HEAD(&s->free);
	INIT_LIST_HEAD(&s->lru);
	for (i = 0; i < p->nspec; i++) {
		s->bufs[i].recs = s->recs + (size_t)i * s->cap;
		INIT_HLIST_NODE(&s->bufs[i].hnode);
		list_add_tail(&s->bufs[i].lru, &s->free);
	}
	s->st.len = sizeof(s->st);
	s->st.type = VOLIOT_REC_SPEC_STATS;
	return s;
}

void vxt_spec_free(struct vxt_spec *s)
{
	if (!s)
		return;
	kvfree(s->issues);
	kvfree(s->hash);
	kvfree(s->recs);
	kvfree(s->bufs);
	kfree(s);
}

size_t vxt_spec_bytes(const struct vxt_spec *s)
{
	return s ? s->bytes : 0;
}

/* ---- keys and buffers ---- */

/* The pid that keys @ev: its own, or with VOLIOT_SPEC_F_ISSUE_PID for a
 * done record in interrupt context (pid 0) the pid of its I/O's start, as
 * a reader pairing the two would give it. A start is remembered here.
 */
static u32 spec_pid(struct vxt_spec *s, const struct vxt_kev *ev)
{
	struct vxt_issue *set, *e;
	u32 i;

	if (!s->issues || (ev->rec.type == VOLIOT_REC_IO_DONE && ev->rec.pid))
		return ev->rec.pid;
	set = &s->issues[hash_long(ev->req, ISSUE_BITS) * ISSUE_WAYS];
	if (ev->rec.type == VOLIOT_REC_IO_START) {
		e = set;
		for (i = 0; i < ISSUE_WAYS; i++) {
			if (set[i].req == ev->req || !set[i].req) {
				e = &set[i];
				break;
			}
			if ((s32)(set[i].stamp - e->stamp) < 0)
				e = &set[i];
		}
		e->req = ev->req;
		e->pid = ev->rec.pid;
		e->stamp = ++s->issue_stamp;
		return ev->rec.pid;
	}
	if (ev->rec.type != VOLIOT_REC_IO_DONE)
		return ev->rec.pid;
	for (i = 0; i < ISSUE_WAYS; i++)
		if (set[i].req == ev->req)
			return set[i].pid;
	return 0;
}

static void spec_key(struct vxt_spec *s, const struct vxt_kev *ev,
		     u64 *k1, u64 *k2)
{
	switch (s->prog.key) {
	case VOLIOT_SPEC_KEY_OBJECT:
		*k1 = ev->rec.dev;
		*k2 = 0;
		break;
	case VOLIOT_SPEC_KEY_PID:
		*k1 = spec_pid(s, ev);
		*k2 = 0;
		break;
	case VOLIOT_SPEC_KEY_OBJECT_PID:
		*k1 = ev->rec.dev;
		*k2 = spec_pid(s, ev);
		break;
	default:
		*k1 = ev->rec.dev;
		*k2 = ev->req;
		break;
	}
}

static struct hlist_head *spec_bucket(struct vxt_spec *s, u64 k1, u64 k2)
{
	return &s->hash[hash_64(k1 * 0x9e3779b97f4a7c15ULL ^ k2, s->hbits)];
}

static struct vxt_sbuf *spec_find(struct vxt_spec *s, u64 k1, u64 k2)
{
	struct vxt_sbuf *b;

	hlist_for_each_entry(b, spec_bucket(s, k1, k2), hnode)
		if (b->k1 == k1 && b->k2 == k2)
			return b;
	return NULL;
}

static void spec_changed(struct vxt_spec *s)
{
	s->gen++;
}

/* Drop @n records from the front of @b as discarded. */
static void buf_discard_front(struct vxt_spec *s, struct vxt_sbuf *b, u32 n)
{
	b->first = (b->first + n) % s->cap;
	b->count -= n;
	s->st.discards += n;
	s->st.pending -= n;
}

static void buf_release(struct vxt_spec *s, struct vxt_sbuf *b)
{
	if (b->count)
		buf_discard_front(s, b, b->count);
	hlist_del_init(&b->hnode);
	list_move_tail(&b->lru, &s->free);
	b->after = false;
}

/* Is @b of no more use at time @now: its after window over and every
 * record out of the before window? Only time windows expire.
 */
static bool buf_expired(const struct vxt_spec *s, const struct vxt_sbuf *b,
			u64 now)
{
	if (b->after)
		return !b->after_left ||
		       (b->after_end != U64_MAX && now > b->after_end);
	return s->prog.before_ns && b->last_ns + s->prog.before_ns < now;
}

static struct vxt_sbuf *spec_alloc(struct vxt_spec *s, u64 k1, u64 k2, u64 now)
{
	struct vxt_sbuf *b;

	if (list_empty(&s->free)) {
		/* The least recently used buffer, if its key is done with. */
		b = list_first_entry(&s->lru, struct vxt_sbuf, lru);
		if (s->prog.key == VOLIOT_SPEC_KEY_REQUEST ||
		    !buf_expired(s, b, now))
			return NULL;
		buf_release(s, b);
	}
	b = list_first_entry(&s->free, struct vxt_sbuf, lru);
	list_move_tail(&b->lru, &s->lru);
	b->k1 = k1;
	b->k2 = k2;
	b->first = 0;
	b->count = 0;
	b->after = false;
	hlist_add_head(&b->hnode, spec_bucket(s, k1, k2));
	return b;
}

/* Drop what has left the before window of an event at @now. */
static void buf_prune(struct vxt_spec *s, struct vxt_sbuf *b, u64 now)
{
	const struct voliot_spec *p = &s->prog;
	u32 n = 0;

	if (p->before_ns)
		while (n < b->count &&
		       b->recs[(b->first + n) % s->cap].time_ns + p->before_ns < now)
			n++;
	if (p->before_events && b->count - n > p->before_events)
		n = b->count - p->before_events;
	if (n)
		buf_discard_front(s, b, n);
}

/* Keep @rec in @b, by the overflow policy when @b is full. */
static void buf_add(struct vxt_spec *s, struct vxt_sbuf *b,
		    const struct voliot_io_rec *rec)
{
	if (b->count == s->cap) {
		s->st.drops++;
		if (s->prog.overflow == VOLIOT_SPEC_DROP_NEWEST)
			return;
		b->first = (b->first + 1) % s->cap;
		b->count--;
		s->st.pending--;
	}
	b->recs[(b->first + b->count) % s->cap] = *rec;
	b->count++;
	s->st.pending++;
}

/* ---- committing ---- */

static void spec_keep(struct vxt_spec *s, struct vxt_chan *ch,
		      const struct voliot_io_rec *rec, bool *short_ring)
{
	s->st.kept++;
	s->st.bytes_kept += REC_SIZE;
	if (!vxt_chan_emit(ch, rec))
		*short_ring = true;
}

/* Commit @b's records to the ring and open its after window at @now. */
static void buf_commit(struct vxt_spec *s, struct vxt_chan *ch,
		       struct vxt_sbuf *b, u64 now, bool *short_ring)
{
	const struct voliot_spec *p = &s->prog;

	while (b->count) {
		spec_keep(s, ch, &b->recs[b->first], short_ring);
		b->first = (b->first + 1) % s->cap;
		b->count--;
		s->st.pending--;
	}
	b->first = 0;
	if (p->after_ns || p->after_events) {
		b->after = true;
		b->after_end = p->after_ns ? now + p->after_ns : U64_MAX;
		b->after_left = p->after_events ? p->after_events : U32_MAX;
	} else {
		buf_release(s, b);
	}
}

static bool spec_is_trigger(const struct vxt_spec *s,
			    const struct voliot_io_rec *rec)
{
	u32 t = s->prog.triggers;

	if (rec->type != VOLIOT_REC_IO_DONE)
		return false;
	if (rec->error && (t & (VOLIOT_SPEC_ON_ERROR | VOLIOT_SPEC_ON_ERRCHAN)))
		return true;
	return (t & VOLIOT_SPEC_ON_LATENCY) &&
	       rec->latency_ns >= s->prog.latency_ns;
}

static void spec_request(struct vxt_spec *s, struct vxt_chan *ch,
			 struct vxt_sbuf *b, const struct voliot_io_rec *rec,
			 u64 k1, u64 k2, bool *short_ring)
{
	if (rec->type != VOLIOT_REC_IO_DONE) {
		if (!b)
			b = spec_alloc(s, k1, k2, rec->time_ns);
		if (!b) {
			s->st.failed++;
			return;
		}
		list_move_tail(&b->lru, &s->lru);
		b->last_ns = rec->time_ns;
		buf_add(s, b, rec);
		return;
	}
	if (spec_is_trigger(s, rec)) {
		s->st.commits++;
		if (b)
			buf_commit(s, ch, b, rec->time_ns, short_ring);
		spec_keep(s, ch, rec, short_ring);
		return;
	}
	if (b)
		buf_release(s, b);
	s->st.discards++;
}

static void spec_context(struct vxt_spec *s, struct vxt_chan *ch,
			 struct vxt_sbuf *b, const struct voliot_io_rec *rec,
			 u64 k1, u64 k2, bool *short_ring)
{
	const struct voliot_spec *p = &s->prog;
	u64 now = rec->time_ns;
	bool trig = spec_is_trigger(s, rec);

	if (b && b->after) {
		if (now <= b->after_end && b->after_left) {
			b->after_left--;
			b->last_ns = now;
			list_move_tail(&b->lru, &s->lru);
			spec_keep(s, ch, rec, short_ring);
			if (trig) {
				/* A trigger in the window starts it afresh. */
				s->st.commits++;
				b->after_end = p->after_ns ? now + p->after_ns
							   : U64_MAX;
				b->after_left = p->after_events ? : U32_MAX;
			}
			return;
		}
		b->after = false;	/* over: speculate again */
	}
	if (!b)
		b = spec_alloc(s, k1, k2, now);
	if (!b) {
		if (trig) {
			s->st.commits++;
			spec_keep(s, ch, rec, short_ring);
		} else {
			s->st.failed++;
		}
		return;
	}
	list_move_tail(&b->lru, &s->lru);
	b->last_ns = now;
	buf_prune(s, b, now);
	if (trig) {
		s->st.commits++;
		if (p->before_events && b->count > p->before_events)
			buf_discard_front(s, b, b->count - p->before_events);
		buf_commit(s, ch, b, now, short_ring);
		spec_keep(s, ch, rec, short_ring);
		return;
	}
	/* Room for the window's count and this one. */
	if (p->before_events && b->count >= p->before_events)
		buf_discard_front(s, b, b->count - p->before_events + 1);
	buf_add(s, b, rec);
}

bool vxt_spec_event(struct vxt_spec *s, struct vxt_chan *ch,
		    const struct vxt_kev *ev)
{
	bool short_ring = false;
	u64 k1, k2, kept = s->st.kept;
	struct vxt_sbuf *b;

	s->st.seen++;
	s->st.bytes_seen += REC_SIZE;
	spec_key(s, ev, &k1, &k2);
	b = spec_find(s, k1, k2);
	if (s->prog.key == VOLIOT_SPEC_KEY_REQUEST)
		spec_request(s, ch, b, &ev->rec, k1, k2, &short_ring);
	else
		spec_context(s, ch, b, &ev->rec, k1, k2, &short_ring);
	if (short_ring)
		s->st.busy++;
	spec_changed(s);
	return s->st.kept != kept;
}

bool vxt_spec_foreign_error(struct vxt_spec *s, struct vxt_chan *ch,
			    const struct vxt_kev *ev)
{
	bool short_ring = false;
	struct vxt_sbuf *b;
	u64 k1, k2;

	if (!(s->prog.triggers & VOLIOT_SPEC_ON_ERRCHAN) ||
	    s->prog.key == VOLIOT_SPEC_KEY_REQUEST)
		return false;
	spec_key(s, ev, &k1, &k2);
	b = spec_find(s, k1, k2);
	if (!b || b->after)
		return false;
	buf_prune(s, b, ev->rec.time_ns);
	s->st.commits++;
	buf_commit(s, ch, b, ev->rec.time_ns, &short_ring);
	if (short_ring)
		s->st.busy++;
	spec_changed(s);
	return true;
}

void vxt_spec_reset(struct vxt_spec *s)
{
	struct vxt_sbuf *b, *tmp;

	list_for_each_entry_safe(b, tmp, &s->lru, lru)
		buf_release(s, b);
	spec_changed(s);
}

bool vxt_spec_stats(struct vxt_spec *s, struct voliot_spec_stats *st,
		    bool if_changed)
{
	if (if_changed && s->gen == s->sent_gen)
		return false;
	s->sent_gen = s->gen;
	*st = s->st;
	st->time_ns = ktime_get_ns();
	return true;
}

void vxt_spec_add_stats(struct voliot_spec_stats *sum,
			const struct voliot_spec_stats *st)
{
	sum->seen += st->seen;
	sum->kept += st->kept;
	sum->bytes_seen += st->bytes_seen;
	sum->bytes_kept += st->bytes_kept;
	sum->commits += st->commits;
	sum->discards += st->discards;
	sum->drops += st->drops;
	sum->failed += st->failed;
	sum->busy += st->busy;
	sum->pending += st->pending;
}

bool vxt_spec_wants_horizon(const struct vxt_spec *s)
{
	return s->prog.flags & VOLIOT_SPEC_F_HORIZON;
}

/* The oldest time a later commit can send: each buffer's oldest event, or
 * for a before window by time, what a trigger from @now on leaves of it.
 * One pass over the buffers in use (at most nspec, usually a few).
 */
u64 vxt_spec_horizon(struct vxt_spec *s, u64 now)
{
	const struct voliot_spec *p = &s->prog;
	u64 h = now, floor = 0, t;
	struct vxt_sbuf *b;

	if (p->key != VOLIOT_SPEC_KEY_REQUEST && p->before_ns && now > p->before_ns)
		floor = now - p->before_ns;
	list_for_each_entry(b, &s->lru, lru) {
		if (!b->count)
			continue;
		t = max(b->recs[b->first].time_ns, floor);
		if (t < h)
			h = t;
	}
	/* An event stamped before the last snapshot may come in after it. */
	if (h < s->horizon)
		h = s->horizon;
	s->horizon = h;
	return h;
}

const struct voliot_spec_stats *vxt_spec_counters(const struct vxt_spec *s)
{
	return &s->st;
}
