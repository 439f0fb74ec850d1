/* run.c - a compiled script over events: the entry points
 *
 * For each event: clean busy speculative buffers at cleanrate and fire due
 * tick probes (event time offline, vxt_script_tick() live), bind the event
 * to its request (script_steps.h, reqtab.h), then run its phase's program
 * (program.h, vm.c). What a clause records (the event, and the text of
 * trace / printf) becomes one record in the principal buffer (straight to
 * the sink) or in the speculative buffer named by speculate()
 * (script_spec.c). One event path (push_event()) serves every script,
 * specialised where it is inlined for a plain one (no tick, phase pairing,
 * key or this-> variable), with or without requests followed, whose batch
 * shares one context; an event of a phase no clause is on and nothing
 * follows only counts. A batch hashes each event's request key once, a few
 * events ahead, fetching its home slot of the request table meanwhile.
 */
#include <errno.h>

#include "script/program.h"
#include "script/script_impl.h"

#define TICK_CATCHUP	1000	/* tick firings at most per event; later ones are skipped */

/* A firing starts with its clause-local variables unset (this->x, and
 * this->x[...] emptied), as DTrace zero-fills them at each firing. */
static inline void reset_locals(struct vxt_script *s)
{
	for (unsigned i = 0; i < s->nthis; i++)
		s->thisv[s->thisl[i]].type = SV_NONE;
	if (s->ltab.n)
		vxt_stab_free(&s->ltab);
}

/* Run the program of probe @bit (ticks: of interval @tick). */
static int fire(struct firing *x, unsigned bit, uint64_t tick)
{
	struct vxt_script *s = x->s;
	const struct vxt_program *p = bit == SP_BEGIN ? s->prog_begin :
				      bit == SP_END ? s->prog_end : NULL;

	x->probe = bit;
	reset_locals(s);
	for (unsigned i = 0; !p && i < s->nticks; i++)
		if (s->ticks[i] == tick)
			p = s->prog_tick[i];
	return p ? vxt_program_run(x, p) : 0;
}

static int ticks_until(struct vxt_script *s, uint64_t now)
{
	struct firing x = { .s = s };
	int rc = 0;

	for (unsigned i = 0; i < s->nticks && rc == 0; i++) {
		unsigned n = 0;

		if (!s->next_tick[i])
			s->next_tick[i] = now + s->ticks[i];
		while (now >= s->next_tick[i] && rc == 0 && !s->exited) {
			uint64_t saved = s->now;

			s->now = s->next_tick[i];
			rc = fire(&x, SP_TICK, s->ticks[i]);
			s->now = saved > s->now ? saved : s->now;
			s->next_tick[i] += s->ticks[i];
			if (++n == TICK_CATCHUP && now >= s->next_tick[i])
				s->next_tick[i] = now - (now - s->next_tick[i]) % s->ticks[i] +
						  s->ticks[i];
		}
	}
	return rc;
}

static void clock_to(struct vxt_script *s, uint64_t now)
{
	if (!s->have_now) {
		s->have_now = true;
		s->last_clean = now;
	}
	if (now > s->now)
		s->now = now;
	if (s->now - s->last_clean >= s->clean_ns) {
		vxt_sspec_clean(s);
		s->last_clean = s->now;
	}
}

/* ---- the entry points ---- */

/* Event @ev (ordinal @ordinal, request key hash @h when requests are
 * followed) through context @x: counted, the clock moved to it (replaying:
 * cleaning busy buffers as it goes; live: the clock is the source's), due
 * ticks fired and its phases paired, then, unless its phase only counts
 * (s->count_only), the fields an event starts afresh, its request bound
 * by its phase, this-> variables and a profile's key, its phase's program,
 * and the done request closed. @plain, @req (constants where it is inlined):
 * the script replays with no tick, phase pairing, key or this-> variable
 * (plain()); s->uses_req. @return 0 or negative. */
static inline __attribute__((always_inline)) int push_event(struct vxt_script *s,
							 struct firing *x,
							 const struct vxt_event *ev,
							 uint64_t ordinal, uint32_t h, bool plain,
							 bool req)
{
	bool keyed = !plain && s->keyed && ev->phase != VXT_PH_LOST, closes = false;
	unsigned on;
	int rc;

	s->st.events_in++;
	if (plain || !s->live)
		clock_to(s, ev->time_ns);
	else if (ev->time_ns > s->now)
		s->now = ev->time_ns;
	if (!plain && !s->live && s->nticks) {
		rc = ticks_until(s, ev->time_ns);
		if (rc < 0 || s->exited)
			return rc;
	}
	if (!plain && s->pp && vxt_phasepair_add(s->pp, ev, &s->iv) < 0)
		return -ENOMEM;
	/* s->count_only is 0 when requests are followed */
	if (!req && ev->phase < 32 && (s->count_only >> ev->phase & 1))
		return 0;
	x->ev = ev;
	x->ordinal = ordinal;
	x->req = NULL;
	x->self = NULL;
	x->self_known = false;
	x->target = 0;
	x->error = false;
	x->rc = 0;
	if (!plain) {
		x->key = NULL;
		x->taken = false;
		x->via = 0;
		reset_locals(s);
	}
	/* one switch on the phase: its probe list, and its request bound (a
	 * queue or start opens or takes one, a done or requeue finds its own) */
	switch (ev->phase) {
	case VXT_PH_QUEUE:
	case VXT_PH_START:
		on = ev->phase == VXT_PH_START ? SON_START : SON_QUEUE;
		if (req && (rc = vxt_sreq_open(s, ev, h, &x->req)) < 0)
			return rc;
		break;
	case VXT_PH_REQUEUE:
		on = SON_REQUEUE;
		if (req)
			x->req = vxt_sreq_of(s, ev, h);
		break;
	case VXT_PH_DONE:	/* a failed one runs the error-only clauses too */
		on = ev->error ? SON_DONE : SON_DONE_OK;
		if (req)
			x->req = vxt_sreq_of(s, ev, h);
		closes = true;
		break;
	case VXT_PH_LOST: on = SON_LOST; break;
	default:		/* a profile or a bpftrace program has clauses
				 * for the other phases */
		on = SON_OTHER;
		break;
	}
	if (keyed)
		vxt_skeyed_begin(x);
	rc = vxt_program_run(x, s->prog_on[on]);
	if (keyed)
		vxt_skeyed_end(x);
	if (closes && x->req)
		vxt_sreq_close(s, x->req);
	return rc;
}

int vxt_script_push(struct vxt_script *s, const struct vxt_event *ev, uint64_t ordinal)
{
	struct firing x = { .s = s };

	if (s->exited || s->ended)
		return 0;
	return push_event(s, &x, ev, ordinal, s->uses_req ? vxt_sreq_event_hash(ev) : 0, false,
			  s->uses_req);
}

/* Whether script @s replays with no tick, phase pairing, key or this->
 * variable: its events need none of their steps. */
static bool plain(const struct vxt_script *s)
{
	return !s->live && !s->nticks && !s->pp && !s->keyed && !s->nthis;
}

#define AHEAD	16	/* events between hashing a key and its event */

/* The hash of event @e's request key into @h, and its home slot fetched
 * into the cache, AHEAD events before the event binds its request: the
 * hash serves the bind (each key is hashed once), the slot is a hint
 * (nothing changes). */
static inline void fetch_ahead(const struct vxt_script *s, const struct vxt_event *e,
			       uint32_t *h)
{
	*h = vxt_sreq_event_hash(e);
	if (s->reqs.cap)
		__builtin_prefetch(&s->reqs.e[*h & (s->reqs.cap - 1)]);
}

/* vxt_script_push_many()'s loop. @is_plain, @req (constants where it is
 * inlined): plain(s), s->uses_req. */
static inline __attribute__((always_inline)) int push_run(struct vxt_script *s,
						       const struct vxt_event *ev, size_t n,
						       uint64_t ordinal, size_t *pushed,
						       bool is_plain, bool req)
{
	struct firing x = { .s = s };	/* kept over the batch */
	uint32_t hash[AHEAD];		/* of events i .. i + AHEAD - 1, by i % AHEAD */
	size_t i;
	int rc = 0;

	if (s->ended)		/* only vxt_script_end() sets it */
		n = 0;
	if (req)
		for (i = 0; i < n && i < AHEAD; i++)
			fetch_ahead(s, &ev[i], &hash[i]);
	for (i = 0; i < n && !s->exited; i++) {
		uint32_t h = 0;

		if (req) {
			h = hash[i % AHEAD];
			if (i + AHEAD < n)
				fetch_ahead(s, &ev[i + AHEAD], &hash[i % AHEAD]);
		}
		rc = push_event(s, &x, &ev[i], ordinal + i, h, is_plain, req);
		if (rc < 0) {
			i++;
			break;
		}
	}
	*pushed = i;
	return rc < 0 ? rc : 0;
}

int vxt_script_push_many(struct vxt_script *s, const struct vxt_event *ev, size_t n,
			 uint64_t ordinal, size_t *pushed)
{
	size_t done;
	int rc;

	if (plain(s) && s->uses_req)
		rc = push_run(s, ev, n, ordinal, &done, true, true);
	else if (plain(s))
		rc = push_run(s, ev, n, ordinal, &done, true, false);
	else
		rc = push_run(s, ev, n, ordinal, &done, false, s->uses_req);
	if (pushed)
		*pushed = done;
	return rc;
}

int vxt_script_tick(struct vxt_script *s, uint64_t now_ns)
{
	if (s->ended || s->exited)
		return 0;
	clock_to(s, now_ns);
	return ticks_until(s, now_ns);
}

int vxt_script_run_begin(struct vxt_script *s)
{
	struct firing x = { .s = s };

	return fire(&x, SP_BEGIN, 0);
}

int vxt_script_end(struct vxt_script *s)
{
	struct firing x = { .s = s };
	bool exited = s->exited;
	int rc;

	if (s->ended)
		return 0;
	s->ended = true;
	vxt_sspec_end_all(s);
	s->exited = false;	/* END runs after exit() too */
	rc = fire(&x, SP_END, 0);
	s->exited = s->exited || exited;
	if (rc == 0)
		rc = vxt_script_print_aggs(s, NULL, false, true, NULL);
	return rc;
}
