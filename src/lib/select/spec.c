/* spec.c - the speculation engine
 *
 * Per event: find the key's state (open addressing on the key), run the
 * clauses in order, act. A speculation is a slot among nspec, holding a ring
 * of at most specsize / 48 events that grows on demand; a windowed slot also
 * forgets events older than its window. Commits move a slot's events to the
 * output heap; the heap releases events in input order once no open buffer
 * holds an older one (the watermark), so output stays sorted however commits
 * interleave. The watermark is the front of the buffered log: every buffered
 * event in input order, entries dropped lazily from the front once their
 * event left its buffer, so it costs amortised O(1) whatever the number of
 * keys. The rules and names are in spec_check.c; making, freeing and the
 * counters in words are spec_life.c.
 *
 * Invariants: an event reaches the output at most once; a key has at most one
 * open speculation; every slot in use is on the active list; the watermark is
 * never above the oldest buffered ordinal nor above the next input ordinal at
 * the time it was computed; the front of the log, after pruning, is the
 * oldest buffered event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "select/spec_impl.h"

#define SWEEP_EVERY	4096	/* close emptied windowed speculations this often */
#define PRUNE_EVERY	256	/* prune the log at least this often */
#define RING_MIN	64

/* ---- key table ---- */

static uint64_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

static void make_key(enum vxt_spec_key key, const struct vxt_event *ev, uint64_t *a,
		     uint64_t *b)
{
	switch (key) {
	case VXT_SPEC_KEY_PID:
		*a = ev->pid;
		*b = 0;
		break;
	case VXT_SPEC_KEY_OBJECT_PID:
		*a = (uint64_t)ev->object << 32 | ev->pid;
		*b = 0;
		break;
	case VXT_SPEC_KEY_REQUEST:
		*a = ev->sector;
		*b = (uint64_t)ev->object << 32 | ev->bytes;
		break;
	default:
		*a = ev->object;
		*b = 0;
		break;
	}
}

static struct kstate *key_find(struct vxt_spec *s, uint64_t a, uint64_t b)
{
	size_t mask = s->tabcap - 1, i = hash2(a, b) & mask;

	while (s->tab[i].used) {
		if (s->tab[i].a == a && s->tab[i].b == b)
			return &s->tab[i];
		i = (i + 1) & mask;
	}
	return NULL;
}

static bool following(const struct kstate *k, uint64_t t)
{
	return k->follow_id && t <= k->follow_until && k->follow_left;
}

static bool key_idle(const struct kstate *k, uint64_t now)
{
	return !k->slot && !following(k, now);
}

static struct kstate *key_place(struct kstate *tab, size_t cap, uint64_t a, uint64_t b)
{
	size_t mask = cap - 1, i = hash2(a, b) & mask;

	while (tab[i].used)
		i = (i + 1) & mask;
	tab[i].used = true;
	tab[i].a = a;
	tab[i].b = b;
	return &tab[i];
}

/* Rebuild the table without idle keys, at a size with room to spare. */
static int key_rehash(struct vxt_spec *s)
{
	size_t live = 0, cap = 64;
	struct kstate *nt;

	for (size_t i = 0; i < s->tabcap; i++)
		if (s->tab[i].used && !key_idle(&s->tab[i], s->now))
			live++;
	while (cap < 4 * (live + 1))
		cap *= 2;
	nt = calloc(cap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < s->tabcap; i++) {
		const struct kstate *k = &s->tab[i];

		if (k->used && !key_idle(k, s->now))
			*key_place(nt, cap, k->a, k->b) = *k;
	}
	free(s->tab);
	s->tab = nt;
	s->tabcap = cap;
	s->tabn = live;
	return 0;
}

static struct kstate *key_insert(struct vxt_spec *s, uint64_t a, uint64_t b)
{
	if (2 * (s->tabn + 1) > s->tabcap && key_rehash(s) < 0)
		return NULL;
	s->tabn++;
	return key_place(s->tab, s->tabcap, a, b);
}

/* Remove @k by shifting back the entries of its probe run. */
static void key_delete(struct vxt_spec *s, struct kstate *k)
{
	size_t mask = s->tabcap - 1, i = (size_t)(k - s->tab), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!s->tab[j].used)
			break;
		home = hash2(s->tab[j].a, s->tab[j].b) & mask;
		/* move j into the hole at i unless its home lies in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			s->tab[i] = s->tab[j];
			i = j;
		}
	}
	memset(&s->tab[i], 0, sizeof(s->tab[i]));
	s->tabn--;
}

/* ---- output heap, ordered by input ordinal ---- */

static int emit(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq, uint64_t id)
{
	size_t i;

	if (s->heapn == s->heapcap) {
		size_t cap = s->heapcap ? 2 * s->heapcap : 1024;
		struct vxt_spec_event *h = realloc(s->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		s->heap = h;
		s->heapcap = cap;
	}
	i = s->heapn++;
	while (i > 0 && s->heap[(i - 1) / 2].seq > seq) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i].ev = *ev;
	s->heap[i].seq = seq;
	s->heap[i].spec = id;
	return 0;
}

static void heap_pop(struct vxt_spec *s, struct vxt_spec_event *out)
{
	struct vxt_spec_event last;
	size_t i = 0, n;

	*out = s->heap[0];
	n = --s->heapn;
	if (!n)
		return;
	last = s->heap[n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && s->heap[c + 1].seq < s->heap[c].seq)
			c++;
		if (s->heap[c].seq >= last.seq)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
}

/* ---- speculative buffers ---- */

static struct srec *ring_at(const struct sbuf *b, uint32_t i)
{
	uint32_t j = b->head + i;

	return &b->ring[j >= b->cap ? j - b->cap : j];
}

static void ring_drop_front(struct vxt_spec *s, struct sbuf *b)
{
	b->head = b->head + 1 == b->cap ? 0 : b->head + 1;
	b->gone++;
	s->gen++;
	s->nbuffered--;
	b->n--;
}

/* Does @b forget its events with time (a window by count alone does not)? */
static bool buf_timed(const struct sbuf *b)
{
	return b->windowed && (b->window || !b->window_events);
}

/* Forget what is older than the window, seen from time @t. Expiry is lazy:
 * a ring forgets when it is full, when it is committed and in the sweep; the
 * log skips expired events by their time alone. */
static void buf_expire(struct vxt_spec *s, struct sbuf *b, uint64_t t)
{
	if (!buf_timed(b))
		return;
	while (b->n && ring_at(b, 0)->ev.time_ns + b->window < t)
		ring_drop_front(s, b);
}

static int buf_grow(struct vxt_spec *s, struct sbuf *b)
{
	uint32_t cap = b->cap ? b->cap * 2 : RING_MIN;
	struct srec *r;

	if (cap > s->maxrec || cap < b->cap)
		cap = s->maxrec;
	r = malloc((size_t)cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->n; i++)
		r[i] = *ring_at(b, i);
	free(b->ring);
	b->ring = r;
	b->cap = cap;
	b->head = 0;
	return 0;
}

/* ---- the buffered log ---- */

static struct lent *log_at(const struct vxt_spec *s, size_t i)
{
	size_t j = s->loghead + i;

	return &s->log[j >= s->logcap ? j - s->logcap : j];
}

/* Is the event of @e still in its buffer? */
static bool log_alive(const struct vxt_spec *s, const struct lent *e)
{
	const struct sbuf *b = &s->bufs[e->slot - 1];

	return b->id == e->id && e->nth >= b->gone;
}

/* Keep only live entries, in order (amortised: runs when dead ones dominate). */
static void log_compact(struct vxt_spec *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->logn; i++) {
		struct lent e = *log_at(s, i);

		if (log_alive(s, &e))
			*log_at(s, n++) = e;
	}
	s->logn = n;
}

static int log_push(struct vxt_spec *s, uint64_t seq, uint64_t time, const struct sbuf *b)
{
	uint64_t expire = UINT64_MAX;
	struct lent *e;

	if (s->logn == s->logcap && s->logn > 2 * s->nbuffered + 1024)
		log_compact(s);
	if (s->logn == s->logcap) {
		size_t cap = s->logcap ? 2 * s->logcap : 4096;
		struct lent *nl = malloc(cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		for (size_t i = 0; i < s->logn; i++)
			nl[i] = *log_at(s, i);
		free(s->log);
		s->log = nl;
		s->logcap = cap;
		s->loghead = 0;
	}
	e = log_at(s, s->logn++);
	if (buf_timed(b) && __builtin_add_overflow(time, b->window, &expire))
		expire = UINT64_MAX;
	e->seq = seq;
	e->expire = expire;
	e->id = b->id;
	e->nth = b->added;
	e->slot = (uint32_t)(b - s->bufs) + 1;
	return 0;
}

static void log_pop(struct vxt_spec *s)
{
	s->loghead = s->loghead + 1 == s->logcap ? 0 : s->loghead + 1;
	s->logn--;
}

static int buf_add(struct vxt_spec *s, struct sbuf *b, const struct vxt_event *ev,
		   uint64_t seq)
{
	struct srec *r;

	if (b->n == b->cap)	/* forget the expired before growing (or dropping) */
		buf_expire(s, b, ev->time_ns);
	if (b->window_events && b->n >= b->window_events)
		ring_drop_front(s, b);	/* out of the window by count */
	if (b->n == s->maxrec) {
		s->st.drops++;
		if (!b->windowed)
			return 0;	/* D: what does not fit is dropped */
		ring_drop_front(s, b);	/* a ring: the oldest goes */
	}
	if (b->n == b->cap && buf_grow(s, b) < 0)
		return -ENOMEM;
	if (log_push(s, seq, ev->time_ns, b) < 0)
		return -ENOMEM;
	r = ring_at(b, b->n++);
	r->ev = *ev;
	r->seq = seq;
	b->added++;
	s->nbuffered++;
	return 0;
}

static uint32_t slot_open(struct vxt_spec *s, const struct cclause *cl, uint64_t a, uint64_t b)
{
	struct sbuf *sb;
	uint32_t slot;

	if (!s->nfree)
		return 0;
	slot = s->freel[--s->nfree];
	sb = &s->bufs[slot - 1];
	sb->id = ++s->next_id;
	sb->ka = a;
	sb->kb = b;
	sb->head = sb->n = 0;
	sb->added = sb->gone = 0;
	sb->windowed = cl->windowed;
	sb->window = cl->window;
	sb->window_events = cl->windowed ? cl->window_events : 0;
	sb->active_pos = s->nactive;
	s->active[s->nactive++] = slot;
	s->st.opened++;
	if (++s->st.active > s->st.peak_active)
		s->st.peak_active = s->st.active;
	return slot;
}

static void slot_close(struct vxt_spec *s, uint32_t slot)
{
	struct sbuf *sb = &s->bufs[slot - 1];
	uint32_t last = s->active[--s->nactive];

	s->active[sb->active_pos] = last;
	s->bufs[last - 1].active_pos = sb->active_pos;
	s->nbuffered -= sb->n;
	s->gen++;
	sb->id = 0;
	sb->n = 0;
	s->freel[s->nfree++] = slot;
	s->st.active--;
}

static int slot_commit(struct vxt_spec *s, uint32_t slot)
{
	struct sbuf *sb = &s->bufs[slot - 1];

	buf_expire(s, sb, s->now);
	for (uint32_t i = 0; i < sb->n; i++) {
		const struct srec *r = ring_at(sb, i);

		if (emit(s, &r->ev, r->seq, sb->id) < 0)
			return -ENOMEM;
	}
	s->st.committed++;
	s->st.committed_events += sb->n;
	slot_close(s, slot);
	return 0;
}

/* ---- the clauses ---- */

struct evstate {
	struct kstate *k;
	uint64_t a, b;
	bool taken;		/* reached the output or sits in a buffer */
};

static int act_speculation(struct vxt_spec *s, const struct cclause *cl, struct evstate *e)
{
	uint32_t slot;

	if (!e->k) {
		e->k = key_insert(s, e->a, e->b);
		if (!e->k)
			return -ENOMEM;
	}
	if (e->k->slot)
		return 0;
	slot = slot_open(s, cl, e->a, e->b);
	if (!slot)
		s->st.failed++;
	e->k->slot = slot;
	return 0;
}

static int act_speculate(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq,
			 struct evstate *e)
{
	int rc;

	if (e->taken || !e->k)
		return 0;
	if (following(e->k, ev->time_ns)) {
		e->taken = true;
		e->k->follow_left--;
		return emit(s, ev, seq, e->k->follow_id);
	}
	if (!e->k->slot)
		return 0;	/* speculate(0) is harmless */
	rc = buf_add(s, &s->bufs[e->k->slot - 1], ev, seq);
	e->taken = rc == 0;
	return rc;
}

static int act_end(struct vxt_spec *s, const struct cclause *cl, enum vxt_spec_action act,
		   const struct vxt_event *ev, struct evstate *e)
{
	uint32_t slot;
	uint64_t id;
	int rc;

	if (!e->k || !e->k->slot)
		return 0;
	slot = e->k->slot;
	e->k->slot = 0;
	if (act == VXT_ACT_DISCARD) {
		s->st.discarded++;
		slot_close(s, slot);
		return 0;
	}
	id = s->bufs[slot - 1].id;
	rc = slot_commit(s, slot);
	if (rc == 0 && (cl->follow || cl->follow_events)) {
		if (!cl->follow ||
		    __builtin_add_overflow(ev->time_ns, cl->follow, &e->k->follow_until))
			e->k->follow_until = UINT64_MAX;
		e->k->follow_left = cl->follow_events ? cl->follow_events : UINT32_MAX;
		e->k->follow_id = id;
	}
	return rc;
}

static int run_clause(struct vxt_spec *s, const struct cclause *cl, const struct vxt_event *ev,
		      uint64_t seq, struct evstate *e)
{
	int rc = 0;

	for (unsigned i = 0; i < cl->nact && rc == 0; i++) {
		switch (cl->act[i]) {
		case VXT_ACT_SPECULATION:
			rc = act_speculation(s, cl, e);
			break;
		case VXT_ACT_SPECULATE:
			rc = act_speculate(s, ev, seq, e);
			break;
		case VXT_ACT_TRACE:
			if (!e->taken) {
				e->taken = true;
				rc = emit(s, ev, seq, 0);
			}
			break;
		default:
			rc = act_end(s, cl, cl->act[i], ev, e);
			break;
		}
	}
	return rc;
}

/* Close windowed speculation @slot: its window has emptied. */
static void close_expired(struct vxt_spec *s, uint32_t slot)
{
	struct sbuf *sb = &s->bufs[slot - 1];
	struct kstate *k = key_find(s, sb->ka, sb->kb);

	s->st.discarded++;
	s->st.expired++;
	slot_close(s, slot);
	if (k) {
		k->slot = 0;
		if (key_idle(k, s->now))
			key_delete(s, k);
	}
}

/* Close windowed speculations whose window has emptied. */
static void sweep(struct vxt_spec *s)
{
	for (uint32_t i = 0; i < s->nactive;) {
		uint32_t slot = s->active[i];
		struct sbuf *sb = &s->bufs[slot - 1];

		buf_expire(s, sb, s->now);
		if (sb->windowed && !sb->n)
			close_expired(s, slot);	/* moves the last active slot to i */
		else
			i++;
	}
	s->last_sweep = s->seq;
}

/* Drop dead entries from the front of the log: events that left their
 * buffer, and windowed ones too old to be committed (their buffer forgets
 * them itself, see buf_expire()), the latter without touching the buffer.
 * After this the front is the oldest event that may still reach the output. */
static void log_prune(struct vxt_spec *s)
{
	s->last_prune = s->seq;
	while (s->logn) {
		const struct lent *e = log_at(s, 0);

		if (e->expire >= s->now) {
			if (s->gen == s->prune_gen && e->seq == s->prune_seq)
				return;	/* found live, and no buffer changed since */
			if (log_alive(s, e)) {
				s->prune_gen = s->gen;
				s->prune_seq = e->seq;
				return;
			}
		}
		log_pop(s);
	}
}

/* Too much output waits: discard the speculations holding the oldest events. */
static void relieve(struct vxt_spec *s)
{
	while (s->heapn > s->max_pending) {
		uint32_t slot;
		struct sbuf *sb;
		struct kstate *k;

		log_prune(s);
		if (!s->logn)
			return;
		slot = log_at(s, 0)->slot;
		sb = &s->bufs[slot - 1];
		k = key_find(s, sb->ka, sb->kb);
		s->st.discarded++;
		s->st.forced++;
		slot_close(s, slot);
		if (k) {
			k->slot = 0;
			if (key_idle(k, s->now))
				key_delete(s, k);
		}
		log_prune(s);
		if (s->logn && s->heap[0].seq < log_at(s, 0)->seq)
			return;		/* output can flow again */
	}
}

int vxt_spec_push(struct vxt_spec *s, const struct vxt_event *ev)
{
	return vxt_spec_push_at(s, ev, s->seq);
}

int vxt_spec_push_at(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq)
{
	struct evstate e = { 0 };
	unsigned pbit = ev->phase < 32 ? 1u << ev->phase : 0;
	int rc = 0;

	if (seq < s->seq)
		return -EINVAL;

	if (ev->time_ns > s->now)
		s->now = ev->time_ns;
	if (ev->phase == VXT_PH_LOST) {
		rc = emit(s, ev, seq, 0);
		goto out;
	}
	make_key(s->key, ev, &e.a, &e.b);
	e.k = key_find(s, e.a, e.b);
	if (e.k && e.k->slot) {	/* where the event will likely be buffered */
		const struct sbuf *b = &s->bufs[e.k->slot - 1];

		if (b->cap)
			__builtin_prefetch(ring_at(b, b->n < b->cap ? b->n : 0), 1);
	}
	for (unsigned i = 0; i < s->ncl && rc == 0; i++) {
		const struct cclause *cl = &s->cl[i];
		struct vxt_filter_ctx ctx;

		if (!(cl->probes & pbit))
			continue;
		ctx.spec = e.k && e.k->slot;
		if (cl->pred_spec >= 0) {
			if (ctx.spec != (bool)cl->pred_spec)
				continue;
		} else if (cl->pred && !vxt_filter_eval(cl->pred, ev, &ctx)) {
			continue;
		}
		rc = run_clause(s, cl, ev, seq, &e);
	}
	if (e.k && key_idle(e.k, ev->time_ns))
		key_delete(s, e.k);
out:
	if (rc < 0)
		return rc;
	s->seq = seq + 1;
	s->st.events_in++;
	/* the watermark matters only while output waits; else prune now and then */
	if (s->heapn || s->seq - s->last_prune >= PRUNE_EVERY)
		log_prune(s);
	if (s->heapn > s->max_pending)
		relieve(s);
	if (s->nactive && s->seq - s->last_sweep >= SWEEP_EVERY)
		sweep(s);
	return 0;
}

int vxt_spec_next(struct vxt_spec *s, struct vxt_spec_event *out)
{
	uint64_t wm;

	if (!s->heapn)
		return 0;
	/* vxt_spec_push() pruned the log when output was waiting */
	wm = s->logn ? log_at(s, 0)->seq : s->seq;
	if (s->heap[0].seq >= wm)
		return 0;
	heap_pop(s, out);
	s->st.events_out++;
	return 1;
}

void vxt_spec_finish(struct vxt_spec *s)
{
	while (s->nactive) {
		uint32_t slot = s->active[s->nactive - 1];

		s->st.discarded++;
		s->st.eof_discarded++;
		slot_close(s, slot);
	}
	memset(s->tab, 0, s->tabcap * sizeof(*s->tab));
	s->tabn = 0;
	s->logn = 0;		/* nothing is buffered: everything pending goes */
}
