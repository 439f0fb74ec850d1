/* script_spec.c - speculative buffers and the principal buffer
 *
 * Speculative buffers are DTrace's: ids 1..nspec, states free, active and
 * busy, on a free list and a busy list so speculation() and the clean cost
 * O(1) per ID; commit() and discard() leave an ID busy until the next
 * clean, and give its buffer back at once (s->spec_ids, script_impl.h). A
 * record is the event and the clause's own text (trace, printf); it takes
 * what it really holds against specsize: its VXT_SCRIPT_RECORD_SIZE bytes,
 * and its text with the text's length and NUL in the text area. The
 * text the sink sees (DTrace's CPU ID FUNCTION:NAME columns, the event's
 * default text) is written only when a record reaches the principal buffer,
 * so what is discarded costs no formatting.
 *
 * When asked (vxt_script_track_buffered()), a min-heap keeps the ordinal of
 * the first event each active buffer holds, entries going stale lazily when
 * the buffer empties, so a caller that wants its output in input order can
 * tell which events no commit can precede any more.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/heap.h"
#include "vxtrace/util.h"

/* ---- delivery ---- */

/* (reads S_TEXT_FIELDS, script_impl.h, which a pass decodes for it) */
static void event_text(const struct vxt_script *s, const struct vxt_event *ev, char *t,
		       size_t *len)
{
	char esc[256];

	if (ev->phase == VXT_PH_LOST) {
		vxt_stext_printf(t, len, S_DTEXT_MAX, " lost %" PRIu64, vxt_event_lost_count(ev));
		return;
	}
	vxt_stext_printf(t, len, S_DTEXT_MAX, " %s %s %" PRIu64 " %u",
			 vxt_sprintable(s, vxt_sobj_name(s, ev->object), esc, sizeof(esc)),
			 vxt_op_name(ev->op), ev->sector, ev->bytes);
	if (ev->phase == VXT_PH_DONE)
		vxt_stext_printf(t, len, S_DTEXT_MAX, " %" PRIu64 "ns", ev->latency_ns);
	if (ev->error)
		vxt_stext_printf(t, len, S_DTEXT_MAX, " error %d", -ev->error);
	vxt_stext_printf(t, len, S_DTEXT_MAX, " pid %u", ev->pid);
}

static int to_sink(struct vxt_script *s, const struct srec *r, uint64_t spec, const char *text,
		   size_t len)
{
	struct vxt_script_rec out = {
		.has_event = srec_has_event(r), .ev = r->ev, .ordinal = srec_ordinal(r), .spec = spec,
		.text = text ? text : "", .len = len,
	};

	s->st.records++;
	if (srec_has_event(r))
		s->st.kept_events++;
	return s->sink ? s->sink(s->sink_arg, &out) : 0;
}

static int header(struct vxt_script *s)
{
	static const char h[] = "CPU     ID                    FUNCTION:NAME\n";
	struct srec r = { 0 };

	if (s->opt.quiet || s->started_output)
		return 0;
	s->started_output = true;
	s->st.records--;	/* the header is not a record of the script */
	return to_sink(s, &r, 0, h, sizeof(h) - 1);
}

/* @r with its own text @text (@tlen bytes) reaches the principal buffer
 * (from speculation @spec, 0 = direct). */
static int deliver(struct vxt_script *s, const struct srec *r, const char *text, size_t tlen,
		   uint64_t spec)
{
	char name[64];		/* FUNCTION:NAME */
	unsigned probe;
	size_t len = 0;
	int rc = header(s);

	if (rc < 0)
		return rc;
	if (s->opt.quiet)
		return to_sink(s, r, spec, text, tlen);
	probe = 1u << (r->m >> SREC_PROBE_SHIFT & 0xf);
	snprintf(name, sizeof(name), "%s:%s", vxt_sprobe_func(probe), vxt_sprobe_name(probe));
	vxt_stext_printf(s->dtext, &len, S_DTEXT_MAX, "%3u %6u %32s ", r->ev.cpu,
			 (unsigned)(r->m >> SREC_CLAUSE_SHIFT & 0xff) + 1, name);
	if (r->m & SREC_OWN)
		vxt_stext_add(s->dtext, &len, S_DTEXT_MAX, text ? text : "", tlen);
	else if (srec_has_event(r))
		event_text(s, &r->ev, s->dtext, &len);
	vxt_stext_add(s->dtext, &len, S_DTEXT_MAX, "\n", 1);
	return to_sink(s, r, spec, s->dtext, len);
}

int vxt_sspec_text(struct vxt_script *s, const char *text, size_t len)
{
	struct srec r = { 0 };

	return to_sink(s, &r, 0, text, len);
}

/* ---- the oldest buffered event ---- */

static bool oldest_live(const struct vxt_script *s, const struct soldest *o)
{
	return vxt_sspec_active(s, o->id) && vxt_sspec_buf(s, o->id)->gen == o->gen;
}

static bool ordinal_before(const void *ctx, const struct soldest *a, const struct soldest *b)
{
	(void)ctx;
	return a->ordinal < b->ordinal;
}

VXT_HEAP_DEFINE(oheap, struct soldest, const void *, ordinal_before)

/* Stale entries go lazily from the top; when they pile up (windows move
 * their buffer's oldest at every event), keep only the live ones. */
static void oldest_compact(struct vxt_script *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->noldest; i++) {
		struct soldest e = s->oldest[i];

		if (oldest_live(s, &e))
			oheap_push(s->oldest, &n, &e, NULL);
	}
	s->noldest = n;
}

static int oldest_push(struct vxt_script *s, uint64_t ordinal, uint32_t id, uint32_t gen)
{
	struct soldest e = { .ordinal = ordinal, .id = id, .gen = gen };

	if (s->noldest == s->capoldest && s->noldest >= 2 * (size_t)s->opt.nspec + 256)
		oldest_compact(s);
	if (vxt_grow(&s->oldest, &s->capoldest, s->noldest + 1, sizeof(*s->oldest)) < 0)
		return -ENOMEM;
	oheap_push(s->oldest, &s->noldest, &e, NULL);
	return 0;
}

static void oldest_pop(struct vxt_script *s)
{
	oheap_pop(s->oldest, &s->noldest, NULL);
}

void vxt_script_track_buffered(struct vxt_script *s)
{
	s->track = true;
}

static bool timed(const struct sspec *b)
{
	return b->windowed && (b->window_ns || !b->window_events);
}

uint64_t vxt_script_oldest_buffered(struct vxt_script *s)
{
	for (;;) {
		struct sspec *b;
		uint64_t ordinal;
		uint32_t id;
		size_t i;

		while (s->noldest && !oldest_live(s, &s->oldest[0]))
			oldest_pop(s);
		if (!s->noldest)
			return UINT64_MAX;
		ordinal = s->oldest[0].ordinal;
		id = s->oldest[0].id;
		b = vxt_sspec_buf(s, id);
		/* a window's oldest may be out of it by now: it can never reach
		 * the principal buffer */
		if (timed(b) && b->head < b->n &&
		    b->recs[b->head].ev.time_ns + b->window_ns < s->now) {
			if (vxt_sspec_expire(s, id) < 0)
				return ordinal;	/* out of memory: stay on the safe side */
			continue;
		}
		/* the entry is a lower bound: a window may have dropped its
		 * front since; the first event the buffer holds is the bound */
		for (i = b->head; i < b->n && !srec_has_event(&b->recs[i]); i++)
			;
		if (i == b->n) {	/* no event any more */
			b->gen = ++s->spec_gen;
			b->has_ev = false;
			continue;
		}
		if (srec_ordinal(&b->recs[i]) == ordinal)
			return ordinal;
		s->oldest[0].ordinal = srec_ordinal(&b->recs[i]);
		oheap_fix_top(s->oldest, s->noldest, NULL);
	}
}

int vxt_script_discard_oldest(struct vxt_script *s)
{
	uint32_t id;

	if (vxt_script_oldest_buffered(s) == UINT64_MAX)
		return 0;
	id = s->oldest[0].id;
	s->st.forced++;
	vxt_sspec_end(s, id, false);
	if (s->keyed)
		vxt_skeyed_closed(s, id);
	return 1;
}

/* ---- records ---- */

/* The text at @pos of @b's text area: *@len gets its length. */
static const char *rec_text(const struct sspec *b, size_t pos, size_t *len)
{
	uint16_t n;

	memcpy(&n, b->tx + pos, sizeof(n));
	*len = n;
	return b->tx + pos + sizeof(n);
}

/* The bit number of probe @bit (one SP_* bit). */
static unsigned probe_bit(unsigned bit)
{
	return bit ? (unsigned)__builtin_ctz(bit) & 0xf : 0;
}

#define TEXT_ROOM(len)	((len) + sizeof(uint16_t) + 1)	/* a text in the text area */
/* What a record with a text of @len bytes holds (specsize). */
#define REC_COST(len)	(VXT_SCRIPT_RECORD_SIZE + ((len) ? TEXT_ROOM(len) : 0))

/* Buffer @id's first record goes; a tracked buffer's oldest moves on. */
static int drop_front(struct vxt_script *s, uint32_t id)
{
	struct sspec *b = vxt_sspec_buf(s, id);
	const struct srec *r = &b->recs[b->head++];
	size_t len = 0;
	uint64_t size;

	if (r->m & SREC_HAS_TEXT) {
		rec_text(b, b->txhead, &len);
		b->txhead += TEXT_ROOM(len);
	}
	size = REC_COST(len);
	b->bytes -= size;
	vxt_sspec_mem(s, -(int64_t)size);
	if (b->head == b->n) {
		b->head = b->n = 0;
		b->txhead = b->txn = 0;
		if (b->has_ev) {	/* its entry in ->oldest is stale */
			b->gen = ++s->spec_gen;
			b->has_ev = false;
		}
	}
	/* else the entry stays a lower bound, made exact when it comes to the
	 * top (vxt_script_oldest_buffered()) */
	(void)id;
	return 0;
}

int vxt_sspec_expire(struct vxt_script *s, uint32_t id)
{
	struct sspec *b = vxt_sspec_buf(s, id);
	int rc = 0;

	if (!timed(b))
		return 0;
	while (rc == 0 && b->head < b->n && b->recs[b->head].ev.time_ns + b->window_ns < s->now)
		rc = drop_front(s, id);
	return rc;
}

/* Room for a text of @len bytes at the end of @b's text area. @return 0 or -ENOMEM. */
static int text_room(struct sspec *b, size_t len)
{
	size_t need = TEXT_ROOM(len);

	if (b->txn + need <= b->txcap)
		return 0;
	if (b->txhead) {	/* the room in front first */
		memmove(b->tx, b->tx + b->txhead, b->txn - b->txhead);
		b->txn -= b->txhead;
		b->txhead = 0;
		if (b->txn + need <= b->txcap)
			return 0;
	}
	return vxt_grow(&b->tx, &b->txcap, b->txn + need, 1);
}

/* The record's word (SREC_*). */
static inline uint64_t rec_meta(const struct firing *x, size_t len)
{
	uint64_t m = x->cl->rec_bits | (uint64_t)probe_bit(x->probe) << SREC_PROBE_SHIFT;

	if (x->ev)
		m |= SREC_HAS_EVENT | (x->ordinal & SREC_ORDINAL);
	return len ? m | SREC_HAS_TEXT : m;
}

int vxt_sspec_record(struct firing *x)
{
	struct vxt_script *s = x->s;
	struct srec *r;
	struct sspec *b;
	uint64_t size;
	size_t len = s->tlen;

	if (x->target < 0)
		return 0;
	if (x->target == 0) {
		struct srec d = { .m = rec_meta(x, 0) };

		if (x->ev)
			d.ev = *x->ev;
		return deliver(s, &d, s->text, len, x->via);
	}
	b = vxt_sspec_buf(s, x->target);
	size = REC_COST(len);
	if (b->windowed) {	/* expiry is lazy: when full, at commit, at the sweep */
		int rc = b->bytes + size > s->opt.specsize ?
			 vxt_sspec_expire(s, (uint32_t)x->target) : 0;

		if (rc == 0 && b->window_events && b->n - b->head >= b->window_events)
			rc = drop_front(s, (uint32_t)x->target);	/* out by count */
		while (rc == 0 && b->head < b->n && b->bytes + size > s->opt.specsize) {
			s->st.spec_drops++;	/* a ring: the oldest goes */
			rc = drop_front(s, (uint32_t)x->target);
		}
		if (rc < 0)
			return rc;
	}
	if (b->bytes + size > s->opt.specsize) {
		s->st.spec_drops++;
		return 0;
	}
	if (b->n == b->cap && b->head && b->head >= b->n / 2) {
		/* a window: reuse the room in front once it is half the buffer */
		memmove(b->recs, b->recs + b->head, (b->n - b->head) * sizeof(*b->recs));
		b->n -= b->head;
		b->head = 0;
	}
	if (b->n == b->cap) {	/* past the inline records: to the heap */
		size_t cap = 2 * b->cap;
		struct srec *v = b->recs == b->inl ? malloc(cap * sizeof(*v)) :
				 realloc(b->recs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (b->recs == b->inl)
			memcpy(v, b->inl, b->n * sizeof(*v));
		b->recs = v;
		b->cap = cap;
	}
	if (len) {
		uint16_t n16 = (uint16_t)len;

		if (text_room(b, len) < 0)
			return -ENOMEM;
		memcpy(b->tx + b->txn, &n16, sizeof(n16));
		memcpy(b->tx + b->txn + sizeof(n16), s->text, len);
		b->tx[b->txn + sizeof(n16) + len] = '\0';
		b->txn += TEXT_ROOM(len);
	}
	r = &b->recs[b->n++];
	if (x->ev)
		r->ev = *x->ev;
	else
		memset(&r->ev, 0, sizeof(r->ev));
	r->m = rec_meta(x, len);
	b->bytes += size;
	vxt_sspec_mem(s, (int64_t)size);
	if (s->track && x->ev && !b->has_ev) {
		b->has_ev = true;
		return oldest_push(s, x->ordinal, (uint32_t)x->target, b->gen);
	}
	return 0;
}

int vxt_sspec_end(struct vxt_script *s, int64_t id, bool commit)
{
	struct sspec *b;
	int rc = 0;

	if (!vxt_sspec_active(s, id))
		return 0;	/* 0 is always invalid, and harmless; busy or free */
	b = vxt_sspec_buf(s, id);
	if (commit) {
		if (b->windowed)
			rc = vxt_sspec_expire(s, (uint32_t)id);
		if (b->bytes > s->opt.bufsize) {
			s->st.commit_drops++;
		} else if (rc == 0) {
			rc = header(s);
			/* a profile's speculations are numbered by opening */
			uint64_t as = s->keyed ? b->kgen : (uint64_t)id;
			size_t pos = b->txhead;

			for (size_t i = b->head; i < b->n && rc == 0; i++) {
				const char *text = NULL;
				size_t len = 0;

				if (b->recs[i].m & SREC_HAS_TEXT) {
					text = rec_text(b, pos, &len);
					pos += TEXT_ROOM(len);
				}
				s->st.committed_events += srec_has_event(&b->recs[i]);
				rc = deliver(s, &b->recs[i], text, len, as);
			}
		}
		s->st.committed++;
	} else if (!s->keyed) {
		return vxt_sspec_discard(s, id);
	} else {
		s->st.discarded++;
	}
	vxt_sspec_release(s, id);
	if (s->keyed) {		/* a profile's IDs are free again at once */
		s->kgen_of[id - 1] = 0;
		s->freel[s->nfree++] = (uint32_t)id;
		return rc;
	}
	s->busyl[s->nbusy++] = (uint32_t)id;
	return rc;
}

void vxt_sspec_clean(struct vxt_script *s)
{
	memcpy(s->freel + s->nfree, s->busyl, s->nbusy * sizeof(*s->busyl));
	s->nfree += (uint32_t)s->nbusy;
	s->nbusy = 0;
}

void vxt_sspec_end_all(struct vxt_script *s)
{
	for (unsigned i = 0; i < s->opt.nspec; i++) {
		if (vxt_sspec_active(s, i + 1)) {
			vxt_sspec_release(s, i + 1);
			s->freel[s->nfree++] = i + 1;
			s->st.eof_discarded++;
			s->st.discarded++;
			if (s->keyed) {
				vxt_skeyed_closed(s, i + 1);
				s->kgen_of[i] = 0;
			}
		}
	}
}
