/* merge_index.c - the merged trace's chunks, laid out from the files' index
 * Over 700 lines: the merged index is one data structure: laying out, merging and damage handling read the same chunk runs.
 * entries and merged when they are asked for
 *
 * Events come in the order of a k-way merge of the files by a key that never
 * goes backwards within a file (the largest shifted time seen so far in it),
 * ties going to the file given first: the order of (key, file, ordinal).
 * A file's index gives, per chunk, bounds of its events' keys without
 * decoding them: no key below the running maximum of the chunks before
 * (nor below the chunk's first_ns), none above the running maximum with it.
 *
 * The merged chunks are MERGE_CHUNK events each but the first few, which
 * grow from MERGE_FIRST (so the first screen merges few events and decodes
 * only the file chunks those reach); their number, sizes and ordinals are
 * known at open. Where each file is as merged chunk j begins (its start) is
 * found when first needed: the key of j's first merged event is searched
 * for over the files' key bounds, and only the few file chunks it may fall
 * in have their time column decoded. A merged
 * chunk's index entry (time range, errors, lost, per-object aggregates) is
 * completed when it is first decoded with the index's fields or first asked
 * for (vxt_reader_chunk()), by merging its events. Opening the files reads
 * their indexes only. Spec: formats/vxt.md, "Several files as one trace".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/merge_impl.h"
#include "format/vxtfile.h"
#include "vxtrace/heap.h"

/* what the index entries need: the aggregates' fields */
#define INDEX_FIELDS (VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_ERROR | \
		      VXT_FIELD_LOST_COUNT)

/* Do @fields give the index entries' figures (lost counts with every
 * sector, or alone)? */
static bool index_fields(unsigned fields)
{
	unsigned need = INDEX_FIELDS & ~VXT_FIELD_LOST_COUNT;

	return (fields & need) == need && (fields & (VXT_FIELD_LOST_COUNT | VXT_FIELD_SECTOR));
}

/* Events a file chunk is decoded by at first, then twice as many each step:
 * a screen of merged events needs only the first few of each file's chunk. */
#define PART_STEP 256

static bool in_hole(const struct part *p)
{
	return p->pos >= p->hole_from && p->pos < p->hole_end;
}

/* File chunk @i of @p is damaged (@msg): its events from p->pos on are
 * holes, each merged as a lost record of one event, so the other files'
 * events (and this file's other chunks) are merged as ever: the merged
 * chunks keep their sizes and the keys find_start() counts (a damaged
 * chunk's events at its least key). @return 1. */
static int part_hole(struct vxt_merge *m, struct part *p, size_t i, const char *msg)
{
	const struct vxt_chunk_info *ci = vxt_reader_entry(p->r, i);
	bool again = p->hole_end == ci->first_event + ci->nevents;

	p->dec_chunk = SIZE_MAX;
	p->ev_n = 0;
	p->hole_from = p->pos;
	p->hole_end = ci->first_event + ci->nevents;
	p->hole = (struct vxt_event){ .time_ns = ci->first_ns, .phase = VXT_PH_LOST,
				      .op = VXT_OP_OTHER, .sector = 1 };
	if (!again) {
		m->nholes++;
		snprintf(m->hole_msg, sizeof(m->hole_msg), "%s: %s: its %u events are lost",
			 vxt_reader_name(p->r), msg, ci->nevents);
	}
	return 1;
}

/* Make the chunk holding p->pos the one held, decoded past p->pos. A file
 * chunk's columns are decompressed once and its events decoded in steps as
 * the merge reaches them, every field, whatever the merge is for, so a
 * file chunk held for one merge serves the next (merge_chunk() clears what
 * was not asked for). A damaged chunk becomes a hole (part_hole()).
 * @return 1, 0 at the file's end, or -ENOMEM (the message in m->msg). */
static int part_load(struct vxt_merge *m, struct part *p)
{
	const struct vxt_reader *r = p->r;
	const struct vxt_chunk_info *ci;
	char msg[200];
	size_t i, want;
	int rc = 0;

	if (p->pos >= vxt_reader_nevents(p->r))
		return 0;
	i = vxt_reader_chunk_of(p->r, p->pos);
	ci = vxt_reader_entry(r, i);
	p->ev_n = 0;
	if (!m->work.dctx && vxt_chunkdec_init(&m->work) < 0) {
		snprintf(m->msg, sizeof(m->msg), "out of memory");
		return -ENOMEM;
	}
	if (p->dec_chunk != i) {
		p->dec_chunk = SIZE_MAX;
		vxt_chunkdec_swap_work(&p->dec, &m->work);
		rc = vxt_chunkdec_begin(&p->dec, vxt_reader_src(r), ci, i,
					r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES,
					(uint32_t)vxt_objtab_count(r->objs),
					(uint32_t)vxt_strtab_count(r->strs), msg, sizeof(msg));
		vxt_chunkdec_swap_work(&p->dec, &m->work);
		if (rc == 0)
			p->dec_chunk = i;
	}
	if (rc == 0) {
		want = p->dec.ndone * 2 > PART_STEP ? p->dec.ndone * 2 : PART_STEP;
		if (want < p->pos - ci->first_event + 1)
			want = p->pos - ci->first_event + 1;
		rc = vxt_chunkdec_step(&p->dec, ci, i, want, msg, sizeof(msg));
	}
	if (rc == -ENOMEM) {
		snprintf(m->msg, sizeof(m->msg), "out of memory");
		return rc;
	}
	if (rc < 0)
		return part_hole(m, p, i, msg);
	p->ev = p->dec.ev;
	p->ev_first = ci->first_event;
	p->ev_n = p->dec.ndone;
	return 1;
}

/* The event at p->pos, loading its chunk. @return 1, 0 at the end, or a
 * negative errno. */
static int part_peek(struct vxt_merge *m, struct part *p, const struct vxt_event **ev)
{
	if (in_hole(p)) {
		*ev = &p->hole;
		return 1;
	}
	if (!p->ev_n || p->pos < p->ev_first || p->pos >= p->ev_first + p->ev_n) {
		int rc = part_load(m, p);

		if (rc <= 0)
			return rc;
	}
	*ev = &p->ev[p->pos - p->ev_first];
	return 1;
}

static bool before(const struct vxt_merge *m, const size_t *a, const size_t *b)
{
	return m->key[*a] < m->key[*b] || (m->key[*a] == m->key[*b] && *a < *b);
}

VXT_HEAP_DEFINE(part_heap, size_t, const struct vxt_merge *, before)

/* Key part @k by its next event: exactly when its chunk is held, else by
 * the least key that chunk's events can have (its index's bound), so a file
 * chunk is decoded only when its events come to the heap's top. @return 1,
 * 0 when the part has no events left. */
static int part_key(struct vxt_merge *m, size_t k)
{
	struct part *p = &m->p[k];
	uint64_t t;

	if (p->pos >= vxt_reader_nevents(p->r))
		return 0;
	if (in_hole(p)) {	/* the damaged chunk's least key, as chunk_keys() gives */
		t = p->key_lo[vxt_reader_chunk_of(p->r, p->pos)];
		m->exact[k] = true;
	} else if (p->ev_n && p->pos >= p->ev_first && p->pos < p->ev_first + p->ev_n) {
		t = p->ev[p->pos - p->ev_first].time_ns + (uint64_t)p->shift;
		m->exact[k] = true;
	} else {
		t = p->key_lo[vxt_reader_chunk_of(p->r, p->pos)];
		m->exact[k] = false;
	}
	m->key[k] = t > p->env ? t : p->env;
	return 1;
}

/* Place every part at @st (np entries) and build the heap. */
static void merge_begin(struct vxt_merge *m, const struct vstart *st)
{
	m->nheap = 0;
	for (size_t k = 0; k < m->np; k++) {
		m->p[k].pos = st[k].pos;
		m->p[k].env = st[k].env;
		if (part_key(m, k))
			m->heap[m->nheap++] = k;
	}
	part_heap_make(m->heap, m->nheap, m);
}

/* The next event in merged order into @out (remapped, shifted), and where
 * it comes from into @o (may be NULL).
 * @return 1, 0 at the end, or a negative errno. */
static int merge_next(struct vxt_merge *m, struct vxt_event *out, struct merge_origin *o)
{
	const struct vxt_event *ev;
	struct part *p;
	size_t k;
	int rc;

	/* a part keyed by its bound comes to the top: its events decide now */
	while (m->nheap && !m->exact[m->heap[0]]) {
		k = m->heap[0];
		rc = part_peek(m, &m->p[k], &ev);
		if (rc < 0)
			return rc;
		if (rc == 0 || !part_key(m, k))
			part_heap_pop(m->heap, &m->nheap, m);
		else
			part_heap_fix_top(m->heap, m->nheap, m);
	}
	if (!m->nheap)
		return 0;
	k = m->heap[0];
	p = &m->p[k];
	ev = in_hole(p) ? &p->hole : &p->ev[p->pos - p->ev_first];
	*out = *ev;
	out->time_ns += (uint64_t)p->shift;
	out->object = ev->object < p->nobj ? p->objmap[ev->object] : 0;
	out->comm = ev->comm < p->nstr ? p->strmap[ev->comm] : 0;
	if (o)
		*o = (struct merge_origin){ (uint32_t)k, ev->object, ev->comm, ev == &p->hole,
					    p->pos };
	p->env = m->key[k];
	p->pos++;
	if (!part_key(m, k))
		part_heap_pop(m->heap, &m->nheap, m);
	else
		part_heap_fix_top(m->heap, m->nheap, m);
	return 1;
}

/* ---- where each file is at a merged ordinal ---- */

/* The merge keys of chunk @c of part @p, decoding its time column.
 * @return them (p->ks slot), or NULL when out of memory. A damaged chunk
 * has its keys at their bound (its events fail when merged). */
static const uint64_t *chunk_keys(struct part *p, size_t c)
{
	const struct vxt_chunk_info *ci = vxt_reader_entry(p->r, c);
	const struct vxt_event *ev;
	struct keyslot *s;
	size_t n = 0;
	uint64_t k;

	for (unsigned i = 0; i < MERGE_KEY_SLOTS; i++)
		if (p->ks[i].chunk == c)
			return p->ks[i].key;
	s = &p->ks[p->ks_next++ % MERGE_KEY_SLOTS];
	s->chunk = SIZE_MAX;
	if (s->cap < ci->nevents) {
		uint64_t *key = realloc(s->key, ci->nevents * sizeof(*key));

		if (!key)
			return NULL;
		s->key = key;
		s->cap = ci->nevents;
	}
	vxt_reader_set_fields(p->r, VXT_FIELD_TIME);
	ev = vxt_reader_chunk_events(p->r, c, &n);
	k = c ? p->key_hi[c - 1] : 0;
	for (size_t i = 0; i < ci->nevents; i++) {
		if (ev && i < n) {
			uint64_t t = ev[i].time_ns + (uint64_t)p->shift;

			k = t > k ? t : k;
		}
		s->key[i] = ev ? k : p->key_lo[c];
	}
	s->n = ci->nevents;
	s->chunk = c;
	return s->key;
}

/* The first chunk of @p whose keys reach @key (p->nch if none). */
static size_t chunk_reaching(const struct part *p, uint64_t key)
{
	return vxt_lower_bound_u64(p->key_hi, p->nch, key);	/* key_hi never falls */
}

enum bound { LOWER, UPPER, EXACT, GUESS };

/* Events of @p whose key is below @key: bounds from the index, exact
 * (decoding one chunk's times), or a guess from the index (the events of
 * the chunk @key falls in spread evenly over its keys). @return the count,
 * or UINT64_MAX when out of memory. */
static uint64_t count_below(struct part *p, uint64_t key, enum bound b)
{
	size_t c = chunk_reaching(p, key), hi;
	const uint64_t *k;
	uint64_t n = c < p->nch ? p->before[c] : vxt_reader_nevents(p->r);

	if (c == p->nch || p->key_lo[c] >= key || b == LOWER)
		return n;
	hi = vxt_reader_entry(p->r, c)->nevents;
	if (b == UPPER)
		return n + hi;
	if (b == GUESS)
		return n + (uint64_t)((double)hi * (double)(key - p->key_lo[c]) /
				      (double)(p->key_hi[c] - p->key_lo[c] + 1));
	if (!(k = chunk_keys(p, c)))
		return UINT64_MAX;
	return n + vxt_lower_bound_u64(k, hi, key);
}

/* The events of all files below @key. @return it or UINT64_MAX. */
static uint64_t total_below(struct vxt_merge *m, uint64_t key, enum bound b)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < m->np; k++) {
		uint64_t n = count_below(&m->p[k], key, b);

		if (n == UINT64_MAX)
			return n;
		sum += n;
	}
	return sum;
}

/* The largest key in [lo, hi) whose total_below() is at most @s
 * (total_below(lo) <= s holds). @return it, or UINT64_MAX. */
static uint64_t last_key_at_most(struct vxt_merge *m, uint64_t lo, uint64_t hi, uint64_t s,
				 enum bound b)
{
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2, n = total_below(m, mid, b);

		if (n == UINT64_MAX)
			return n;
		if (n <= s)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The merge key of event @ord of @p (its largest time so far). */
static int key_of(struct part *p, uint64_t ord, uint64_t *key)
{
	size_t c = vxt_reader_chunk_of(p->r, ord);
	const struct vxt_chunk_info *ci = vxt_reader_entry(p->r, c);
	const uint64_t *k;

	if (ord + 1 == ci->first_event + ci->nevents) {
		*key = p->key_hi[c];
		return 0;
	}
	if (!(k = chunk_keys(p, c)))
		return -ENOMEM;
	*key = k[ord - ci->first_event];
	return 0;
}

/* Where each file is before merged event @s (0 < s < nevents) into @st.
 * The key K of event s is the largest with fewer than s + 1 events below
 * it; bounds from the index narrow it down first, so only the file chunks
 * K may fall in are decoded. Events of key K go in file order.
 * @return 0 or -ENOMEM. */
static int find_start(struct vxt_merge *m, uint64_t s, struct vstart *st)
{
	uint64_t top = 0, lo, hi, key, left;

	for (size_t k = 0; k < m->np; k++)
		if (m->p[k].nch && m->p[k].key_hi[m->p[k].nch - 1] > top)
			top = m->p[k].key_hi[m->p[k].nch - 1];
	/* total_below(top + 1) is every event: more than s */
	lo = last_key_at_most(m, 0, top + 1, s, UPPER);
	hi = last_key_at_most(m, lo, top + 1, s, LOWER) + 1;
	key = last_key_at_most(m, lo, hi, s, EXACT);
	if (key == UINT64_MAX)
		return -ENOMEM;
	left = s;
	for (size_t k = 0; k < m->np; k++) {
		uint64_t below = count_below(&m->p[k], key, EXACT);

		if (below == UINT64_MAX)
			return -ENOMEM;
		left -= below;
		st[k].pos = below;
	}
	for (size_t k = 0; k < m->np; k++) {	/* the events of key K, file by file */
		uint64_t upto = count_below(&m->p[k], key + 1, EXACT), take;

		if (upto == UINT64_MAX)
			return -ENOMEM;
		take = upto - st[k].pos < left ? upto - st[k].pos : left;
		st[k].pos += take;
		left -= take;
	}
	for (size_t k = 0; k < m->np; k++) {
		st[k].env = 0;
		if (st[k].pos && key_of(&m->p[k], st[k].pos - 1, &st[k].env) < 0)
			return -ENOMEM;
	}
	return 0;
}

uint64_t vxt_merge_reach(struct vxt_merge *m, size_t i)
{
	const struct vstart *next = &m->starts[(i + 1) * m->np];
	uint64_t top = 0, lo, hi, s, reach = 0;

	if (i + 1 >= m->owner->n)
		return UINT64_MAX;
	if (m->state[i + 1] & MERGE_START_KNOWN) {
		/* the last event's key is the largest any file had reached */
		for (size_t k = 0; k < m->np; k++)
			reach = next[k].env > reach ? next[k].env : reach;
		return reach;
	}
	/* the key of chunk i + 1's first event lies between the bounds the
	 * index gives; a guess between them: decoding nothing to find it, a
	 * file chunk it leaves out is decoded by the merge when reached */
	for (size_t k = 0; k < m->np; k++)
		if (m->p[k].nch && m->p[k].key_hi[m->p[k].nch - 1] > top)
			top = m->p[k].key_hi[m->p[k].nch - 1];
	s = m->owner->chunks[i + 1].first_event;
	lo = last_key_at_most(m, 0, top + 1, s, UPPER);
	hi = last_key_at_most(m, lo, top + 1, s, LOWER);
	return last_key_at_most(m, lo, hi + 1, s, GUESS);
}

/* The start of merged chunk @i, found if not known. @return 0 or -ENOMEM. */
static int need_start(struct vxt_merge *m, size_t i)
{
	int rc;

	if (m->state[i] & MERGE_START_KNOWN)
		return 0;
	rc = find_start(m, m->owner->chunks[i].first_event, &m->starts[i * m->np]);
	if (rc < 0) {
		snprintf(m->msg, sizeof(m->msg), "out of memory");
		return rc;
	}
	m->state[i] |= MERGE_START_KNOWN;
	return 0;
}

/* ---- the merged chunks' index entries ---- */

struct acc {
	struct vxt_objagg *agg;		/* per merged object, object = UINT32_MAX if unused */
	uint32_t *touched;
	size_t nt, nobj;
};

/* Count @e into @ci, as a writer's index entry counts it. */
static void account(struct vxt_chunk_info *ci, struct acc *a, const struct vxt_event *e)
{
	struct vxt_objagg *g;

	if (ci->first_ns == UINT64_MAX || e->time_ns < ci->first_ns)
		ci->first_ns = e->time_ns;
	if (e->time_ns > ci->last_ns)
		ci->last_ns = e->time_ns;
	if (e->phase == VXT_PH_LOST) {
		ci->nlost += e->sector;
		return;
	}
	if (e->object >= a->nobj)
		return;
	g = &a->agg[e->object];
	if (g->object == UINT32_MAX) {
		g->object = e->object;
		a->touched[a->nt++] = e->object;
	}
	if (vxt_objagg_add(g, e))
		ci->nerrors++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Move what @a gathered into @ci's aggregates (ids in order, as a file's
 * entries have them). @return 0 or -ENOMEM. */
static int close_entry(struct vxt_chunk_info *ci, struct acc *a)
{
	free(ci->objagg);
	ci->objagg = a->nt ? calloc(a->nt, sizeof(*ci->objagg)) : NULL;
	ci->nobjagg = ci->objagg ? (uint32_t)a->nt : 0;
	if (a->nt && !ci->objagg)
		return -ENOMEM;
	qsort(a->touched, a->nt, sizeof(*a->touched), cmp_u32);
	for (size_t i = 0; i < a->nt; i++)
		ci->objagg[i] = a->agg[a->touched[i]];
	return 0;
}

static void acc_free(struct acc *a)
{
	free(a->agg);
	free(a->touched);
}

static int acc_init(struct acc *a, size_t nobj)
{
	a->nobj = nobj;
	a->nt = 0;
	a->agg = calloc(nobj ? nobj : 1, sizeof(*a->agg));
	a->touched = calloc(nobj ? nobj : 1, sizeof(*a->touched));
	if (!a->agg || !a->touched) {
		acc_free(a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nobj; i++)
		a->agg[i].object = UINT32_MAX;
	return 0;
}

/* A field outside @fields reads as 0 (vxt_reader_set_fields()). */
static void clear_fields(struct vxt_event *ev, size_t n, unsigned fields)
{
	if ((fields & VXT_FIELD_ALL) == VXT_FIELD_ALL)
		return;
	for (size_t i = 0; i < n; i++) {
		struct vxt_event *e = &ev[i];

		if (!(fields & VXT_FIELD_FLAGS))
			e->flags = 0;
		if (!(fields & VXT_FIELD_SECTOR) &&
		    !((fields & VXT_FIELD_LOST_COUNT) && e->phase == VXT_PH_LOST))
			e->sector = 0;
		if (!(fields & VXT_FIELD_BYTES))
			e->bytes = 0;
		if (!(fields & VXT_FIELD_LATENCY) &&
		    !((fields & VXT_FIELD_REMAP_FROM) && e->phase == VXT_PH_REMAP))
			e->latency_ns = 0;
		if (!(fields & VXT_FIELD_ERROR))
			e->error = 0;
		if (!(fields & VXT_FIELD_PID))
			e->pid = 0;
		if (!(fields & VXT_FIELD_COMM))
			e->comm = 0;
		if (!(fields & VXT_FIELD_CPU))
			e->cpu = 0;
	}
}

/* Merge chunk @i's events: into @out when not NULL (room for nevents, and
 * their origins into @orig when not NULL), into its index entry when it is not complete and @fields holds the
 * index's. The next chunk's start is known after. @return 0, -ENOMEM or
 * -EBADMSG, the message in m->msg. */
static int merge_chunk(struct vxt_merge *m, size_t i, unsigned fields, struct vxt_event *out,
		       struct merge_origin *orig)
{
	struct vxt_chunk_info *ci = &m->owner->chunks[i];
	bool entry = !(m->state[i] & MERGE_RESOLVED) && index_fields(fields);
	struct acc a = { 0 };
	struct vxt_event tmp;
	size_t n = 0;
	int rc;

	if ((rc = need_start(m, i)) < 0)
		return rc;
	if (entry && acc_init(&a, vxt_objtab_count(m->owner->objs)) < 0) {
		snprintf(m->msg, sizeof(m->msg), "out of memory");
		return -ENOMEM;
	}
	m->fields = fields;
	vxt_merge_preload(m, i);
	merge_begin(m, &m->starts[i * m->np]);
	while (n < ci->nevents) {
		struct vxt_event *e = out ? &out[n] : &tmp;

		if ((rc = merge_next(m, e, orig ? &orig[n] : NULL)) <= 0)
			break;
		if (entry)
			account(ci, &a, e);
		n++;
	}
	if (rc >= 0 && n < ci->nevents) {
		snprintf(m->msg, sizeof(m->msg), "the files end before merged chunk %zu does", i);
		rc = -EBADMSG;
	}
	if (out)
		clear_fields(out, n, fields);
	if (rc >= 0 && i + 1 < m->owner->n && !(m->state[i + 1] & MERGE_START_KNOWN)) {
		for (size_t k = 0; k < m->np; k++)
			m->starts[(i + 1) * m->np + k] = (struct vstart){ m->p[k].pos, m->p[k].env };
		m->state[i + 1] |= MERGE_START_KNOWN;
	}
	if (rc >= 0 && entry) {
		rc = close_entry(ci, &a);
		if (rc < 0)
			snprintf(m->msg, sizeof(m->msg), "out of memory");
		else
			m->state[i] |= MERGE_RESOLVED;
	}
	acc_free(&a);
	return rc < 0 ? rc : 0;
}

bool vxt_merge_ready(const struct vxt_merge *m, size_t i)
{
	return i >= m->owner->n || (m->state[i] & MERGE_RESOLVED);
}

void vxt_merge_resolve(struct vxt_merge *m, size_t i)
{
	struct vxt_reader *r = m->owner;
	unsigned fields;
	int rc;

	if (i >= r->n || (m->state[i] & MERGE_RESOLVED))
		return;
	/* with the fields merged last, the events kept for the decode that
	 * often follows */
	fields = index_fields(m->fields) ? m->fields : m->fields | INDEX_FIELDS;
	m->kept_chunk = SIZE_MAX;
	if (m->kept_cap < r->chunks[i].nevents) {
		struct vxt_event *ev = realloc(m->kept, r->chunks[i].nevents * sizeof(*ev));
		struct merge_origin *o = ev ? realloc(m->kept_orig, r->chunks[i].nevents *
						      sizeof(*o)) : NULL;

		if (ev)
			m->kept = ev;
		if (o) {
			m->kept_orig = o;
			m->kept_cap = r->chunks[i].nevents;
		}
	}
	rc = merge_chunk(m, i, fields, m->kept_cap >= r->chunks[i].nevents ? m->kept : NULL,
			 m->kept_cap >= r->chunks[i].nevents ? m->kept_orig : NULL);
	if (rc == 0 && m->kept_cap >= r->chunks[i].nevents) {
		m->kept_chunk = i;
		m->kept_fields = fields;
	}
	if (rc < 0) {	/* the entry keeps what the merge counted */
		struct vxt_chunk_info *ci = &r->chunks[i];

		if (ci->first_ns > ci->last_ns)
			ci->first_ns = ci->last_ns;
		m->state[i] |= MERGE_RESOLVED;
		if (r->damage_off < 0) {
			r->damage_off = 0;
			snprintf(r->damage, sizeof(r->damage), "merged chunk %zu: %.200s", i, m->msg);
		}
	}
}

/* m->orig with room for @n origins, marked as no chunk's. @return it, or
 * NULL when out of memory. */
static struct merge_origin *origins_room(struct vxt_merge *m, size_t n)
{
	m->orig_chunk = SIZE_MAX;
	if (m->orig_cap < n) {
		struct merge_origin *o = realloc(m->orig, n * sizeof(*o));

		if (!o)
			return NULL;
		m->orig = o;
		m->orig_cap = n;
	}
	return m->orig;
}

int vxt_merge_decode(struct vxt_merge *m, struct vxt_chunkdec *d, size_t i, char *msg,
		     size_t msglen)
{
	const struct vxt_chunk_info *ci = &m->owner->chunks[i];
	struct merge_origin *orig = NULL;
	int rc;

	if (d->ev_cap < ci->nevents) {
		struct vxt_event *ev = realloc(d->ev, ci->nevents * sizeof(*ev));

		if (!ev) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		d->ev = ev;
		d->ev_cap = ci->nevents;
	}
	d->zeroed = 0;
	/* the owner's decoder: the events' origins too (vxt_reader_origin()) */
	if (d == &m->owner->dec && !(orig = origins_room(m, ci->nevents))) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	if (m->kept_chunk == i && m->kept_fields == d->fields) {
		memcpy(d->ev, m->kept, ci->nevents * sizeof(*d->ev));
		if (orig) {
			memcpy(orig, m->kept_orig, ci->nevents * sizeof(*orig));
			m->orig_chunk = i;
		}
		return 0;
	}
	rc = merge_chunk(m, i, d->fields, d->ev, orig);
	if (orig && rc == 0)
		m->orig_chunk = i;
	if (rc == -ENOMEM)
		snprintf(msg, msglen, "%s", m->msg);
	else if (rc < 0)	/* a file's chunk failed now, not at open */
		snprintf(msg, msglen, "merged chunk %zu: %s", i, m->msg);
	return rc;
}

/* Part @p's key bounds per chunk, from its index. @return 0 or -ENOMEM. */
static int part_bounds(struct part *p)
{
	uint64_t run = 0, n = 0;

	p->nch = vxt_reader_nchunks(p->r);
	p->key_lo = calloc(p->nch ? p->nch : 1, sizeof(*p->key_lo));
	p->key_hi = calloc(p->nch ? p->nch : 1, sizeof(*p->key_hi));
	p->before = calloc(p->nch ? p->nch : 1, sizeof(*p->before));
	if (!p->key_lo || !p->key_hi || !p->before)
		return -ENOMEM;
	for (unsigned i = 0; i < MERGE_KEY_SLOTS; i++)
		p->ks[i].chunk = SIZE_MAX;
	p->dec_chunk = SIZE_MAX;
	for (size_t c = 0; c < p->nch; c++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(p->r, c);
		uint64_t first = ci->first_ns + (uint64_t)p->shift;
		uint64_t last = ci->last_ns + (uint64_t)p->shift;

		p->key_lo[c] = first > run ? first : run;
		if (ci->nevents && last > run)
			run = last;
		p->key_hi[c] = run;
		p->before[c] = n;
		n += ci->nevents;
	}
	return 0;
}

/* Events of merged chunk @i: MERGE_FIRST, twice as many for each chunk
 * after, up to MERGE_CHUNK. */
static uint32_t merged_size(size_t i)
{
	uint64_t size = i < 32 ? (uint64_t)MERGE_FIRST << i : MERGE_CHUNK;

	return size < MERGE_CHUNK ? (uint32_t)size : MERGE_CHUNK;
}

int vxt_merge_index(struct vxt_merge *m)
{
	struct vxt_reader *r = m->owner;
	uint64_t total = 0;
	size_t n;

	for (size_t k = 0; k < m->np; k++) {
		if (part_bounds(&m->p[k]) < 0)
			return -ENOMEM;
		total += vxt_reader_nevents(m->p[k].r);
	}
	n = 0;
	for (uint64_t at = 0; at < total; at += merged_size(n++))
		;
	r->chunks = calloc(n ? n : 1, sizeof(*r->chunks));
	m->starts = calloc((n ? n : 1) * m->np, sizeof(*m->starts));
	m->state = calloc(n ? n : 1, sizeof(*m->state));
	if (!r->chunks || !m->starts || !m->state)
		return -ENOMEM;
	r->cap = n;
	for (size_t i = 0; i < n; i++) {
		struct vxt_chunk_info *ci = &r->chunks[i];
		uint32_t size = merged_size(i);

		ci->first_event = i ? ci[-1].first_event + ci[-1].nevents : 0;
		ci->nevents = (uint32_t)(total - ci->first_event < size ?
					 total - ci->first_event : size);
		ci->first_ns = UINT64_MAX;
	}
	r->n = n;
	r->nevents = total;
	if (vxt_merge_aggs_init(m) < 0)
		return -ENOMEM;
	vxt_merge_lend(m);
	if (n)
		m->state[0] = MERGE_START_KNOWN;	/* every file at its start */
	m->fields = VXT_FIELD_ALL;
	m->kept_chunk = SIZE_MAX;
	m->orig_chunk = SIZE_MAX;
	return 0;
}

int vxt_merge_origin(struct vxt_merge *m, uint64_t ord, const struct vxt_event *ev,
		     struct vxt_origin *o)
{
	struct vxt_reader *r = m->owner;
	size_t i = vxt_reader_chunk_of(r, ord);
	const struct merge_origin *g;
	const struct part *p;
	int rc;

	if (i >= r->n)
		return vxt_reader_seterr(r, -EINVAL, "no event %llu", (unsigned long long)ord);
	if (m->orig_chunk == i) {
		g = &m->orig[ord - r->chunks[i].first_event];
	} else if (m->kept_chunk == i) {
		g = &m->kept_orig[ord - r->chunks[i].first_event];
	} else {
		/* merged again aside: the owner's decoder keeps its chunk */
		if (m->scratch_cap < r->chunks[i].nevents) {
			struct vxt_event *e = realloc(m->scratch, r->chunks[i].nevents * sizeof(*e));

			if (!e)
				return vxt_reader_seterr(r, -ENOMEM, "out of memory");
			m->scratch = e;
			m->scratch_cap = r->chunks[i].nevents;
		}
		if (!origins_room(m, r->chunks[i].nevents))
			return vxt_reader_seterr(r, -ENOMEM, "out of memory");
		rc = merge_chunk(m, i, VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT,
				 m->scratch, m->orig);
		if (rc < 0)
			return vxt_reader_seterr(r, rc, "merged chunk %zu: %s", i, m->msg);
		m->orig_chunk = i;
		g = &m->orig[ord - r->chunks[i].first_event];
	}
	p = &m->p[g->part];
	o->file = p->r;
	o->ordinal = g->ord;
	o->time_ns = ev->time_ns - (uint64_t)p->shift;
	o->object = g->object;
	o->comm = g->comm;
	o->hole = g->hole;
	return 0;
}
