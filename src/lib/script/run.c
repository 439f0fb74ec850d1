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
 * shares one context. A batch hashes each event's request key once, a few
 * events ahead, fetching its home slot of the request table meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/program.h"
#include "script/script_impl.h"
#include "script/bt_impl.h"

#define TICK_CATCHUP	1000	/* tick firings at most per event; later ones are skipped */

int vxt_script_print_aggs(struct vxt_script *s, struct sagg *only, bool clear, bool at_end,
			  const struct sfmt *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f)
		return -ENOMEM;
	if (at_end && s->bt)	/* bpftrace prints every map at the end */
		vxt_bt_print_end(s, f);
	for (unsigned i = 0; i < s->naggs && !(at_end && s->bt); i++) {
		struct sagg *a = &s->aggs[i];

		if ((only && a != only) || (at_end && a->printed) || a->fn < 0)
			continue;
		if (fmt)
			vxt_sagg_printa(s, a, fmt, f);
		else
			vxt_sagg_print(s, a, !at_end || !ftell(f), f);
		if (clear)
			vxt_sagg_clear(s, a, false, 0);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (len)
		rc = vxt_sspec_text(s, buf, len);
	free(buf);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	return rc;
}

/* ---- aggregations ---- */

/* Number the aggregation statements and find which keys have a raw form
 * (the agg_raw op's cache, vm_ops.c). @return 0 or -ENOMEM. */
/* The raw-key cache of aggregation statement @st. */
static void prepare_one(struct vxt_script *s, struct script_node *st)
{
	struct sfast *f;
	unsigned k;

	st->num = s->nfast;
	f = &s->fast[s->nfast++];
	f->usable = true;
	for (k = 0; k < st->nkeys; k++) {
		const struct script_node *key = st->keys[k];

		if (key->kind == SN_FIELD && key->idx == SF_OBJECT)
			f->kind[k] = FK_OBJECT;
		else if (key->kind == SN_FIELD && key->idx == SF_OP)
			f->kind[k] = FK_OP;
		else if (key->kind == SN_FIELD && key->idx == SF_PHASE)
			f->kind[k] = FK_PHASE;
		else if (key->kind == SN_FIELD && (key->idx == SF_COMM || key->idx == SF_EXECNAME))
			f->kind[k] = FK_COMM;
		else if (key->type == SV_INT)
			f->kind[k] = FK_INT;
		else
			f->usable = false;
	}
	/* integer keys find their entry in the table as fast as in a cache,
	 * without its memory (80 bytes a slot) */
	for (k = 0; k < st->nkeys && f->kind[k] == FK_INT; k++)
		;
	if (st->nkeys && k == st->nkeys)
		f->usable = false;
	if (f->usable)
		s->aggs[st->idx].cached = true;
}

/* How many aggregation statements @st is or runs under ?:; with @s, each
 * gets its raw-key cache (prepare_one()). */
static unsigned agg_statements(struct vxt_script *s, struct script_node *st)
{
	if (st->kind == SN_AGGSET) {
		if (s)
			prepare_one(s, st);
		return 1;
	}
	if (!vxt_script_node_cond_action(st))
		return 0;
	return agg_statements(s, st->b) + agg_statements(s, st->c);
}

int vxt_script_prepare_fast(struct vxt_script *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->ncl; i++)
		for (unsigned j = 0; j < s->cl[i].nstmts; j++)
			n += agg_statements(NULL, s->cl[i].stmts[j]);
	s->fast = calloc(n + 1, sizeof(*s->fast));
	if (!s->fast)
		return -ENOMEM;
	for (unsigned i = 0; i < s->ncl; i++)
		for (unsigned j = 0; j < s->cl[i].nstmts; j++)
			agg_statements(s, s->cl[i].stmts[j]);
	return 0;
}


/* Run the program of event probe list @on over the event in @x. */
static inline __attribute__((always_inline)) int run_list(struct firing *x, unsigned on)
{
	return vxt_program_run(x, x->s->prog_on[on]);
}

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

/* Whether list @on has a clause (its program more than a halt). */
static inline bool has_clauses(const struct vxt_script *s, unsigned on)
{
	return s->prog_on[on]->nops > 1;
}

/* Whether a script (not a profile) has clauses for events of @phase. */
static bool runs_clauses(const struct vxt_script *s, unsigned phase)
{
	switch (phase) {
	case VXT_PH_QUEUE: return has_clauses(s, SON_QUEUE);
	case VXT_PH_START: return has_clauses(s, SON_START);
	case VXT_PH_DONE: return has_clauses(s, SON_DONE);
	case VXT_PH_REQUEUE: return has_clauses(s, SON_REQUEUE);
	case VXT_PH_LOST: return has_clauses(s, SON_LOST);
	case VXT_PH_MARK: return false;
	default: return has_clauses(s, SON_OTHER);	/* bpftrace's probes of other phases */
	}
}

/* Count event @ev and move the clock to it (replaying: cleaning busy
 * buffers as it goes; live: the clock is the source's). @plain (a constant
 * where it is inlined): the script is plain(). */
static inline __attribute__((always_inline)) void push_count(struct vxt_script *s,
							  const struct vxt_event *ev, bool plain)
{
	s->st.events_in++;
	if (plain || !s->live)
		clock_to(s, ev->time_ns);
	else if (ev->time_ns > s->now)
		s->now = ev->time_ns;
}

/* What every event does before its clauses: push_count(), fire due ticks
 * and pair its phases. @return 0, 1 when the event goes no further (a
 * tick's exit(), or nothing follows requests or keys and no clause is on
 * its phase), or negative. @req: s->uses_req (a constant where it is
 * inlined). */
static inline __attribute__((always_inline)) int push_begin(struct vxt_script *s,
							 const struct vxt_event *ev, bool plain,
							 bool req)
{
	push_count(s, ev, plain);
	if (plain)
		return !req && !runs_clauses(s, ev->phase);
	if (!s->live && s->nticks) {
		int rc = ticks_until(s, ev->time_ns);

		if (rc < 0 || s->exited)
			return rc < 0 ? rc : 1;
	}
	if (s->pp && vxt_phasepair_add(s->pp, ev, &s->iv) < 0)
		return -ENOMEM;
	if (!req && !s->keyed && !runs_clauses(s, ev->phase))
		return 1;	/* no request or key to follow, and no clause */
	return 0;
}

/* The program of event @ev (ordinal @ordinal, request key hash @h when
 * requests are followed) in context @x, once push_begin() let it through:
 * the fields an event starts afresh, its request bound by its phase, this->
 * variables and a profile's key, its phase's program, then the done
 * request closed. @plain, @req (constants where it is inlined): the script
 * is plain(), without this-> variables or keys; s->uses_req. */
static inline __attribute__((always_inline)) int push_event(struct vxt_script *s,
							 struct firing *x,
							 const struct vxt_event *ev,
							 uint64_t ordinal, uint32_t h, bool plain,
							 bool req)
{
	bool keyed = !plain && s->keyed && ev->phase != VXT_PH_LOST, closes = false;
	unsigned on;
	int rc;

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
	rc = run_list(x, on);
	if (keyed)
		vxt_skeyed_end(x);
	if (closes && x->req)
		vxt_sreq_close(s, x->req);
	return rc;
}

int vxt_script_push(struct vxt_script *s, const struct vxt_event *ev, uint64_t ordinal)
{
	struct firing x = { 0 };
	int rc;

	if (s->exited || s->ended)
		return 0;
	rc = push_begin(s, ev, false, s->uses_req);
	if (rc)
		return rc < 0 ? rc : 0;
	x.s = s;
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

/* vxt_script_push_many()'s loop; @quick: the phases whose events only
 * count; @is_plain, @req (constants where it is inlined): plain(s),
 * s->uses_req. */
static inline __attribute__((always_inline)) int push_run(struct vxt_script *s,
						       const struct vxt_event *ev, size_t n,
						       uint64_t ordinal, size_t *pushed,
						       uint32_t quick, bool is_plain, bool req)
{
	struct firing x = { 0 };	/* kept over the batch */
	uint32_t hash[AHEAD];		/* of events i .. i + AHEAD - 1, by i % AHEAD */
	size_t i;
	int rc = 0;

	x.s = s;
	if (s->ended)		/* only vxt_script_end() sets it */
		n = 0;
	if (req)
		for (i = 0; i < n && i < AHEAD; i++)
			fetch_ahead(s, &ev[i], &hash[i]);
	for (i = 0; i < n && !s->exited; i++) {
		const struct vxt_event *e = &ev[i];
		uint32_t h = 0;

		if (req) {
			h = hash[i % AHEAD];
			if (i + AHEAD < n)
				fetch_ahead(s, &ev[i + AHEAD], &hash[i % AHEAD]);
		}
		/* quick is 0 when requests are followed */
		if (!req && e->phase < 32 && (quick >> e->phase & 1)) {
			push_count(s, e, is_plain);
			continue;
		}
		rc = push_begin(s, e, is_plain, req);
		if (rc == 0)
			rc = push_event(s, &x, e, ordinal + i, h, is_plain, req);
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
	/* the phases whose events push_begin() would only push_count() (no
	 * tick, phase pairing, request or key followed, no clause on them) */
	uint32_t quick = 0;
	size_t done;
	int rc;

	if (!s->live && !s->nticks && !s->pp && !s->uses_req && !s->keyed)
		for (unsigned ph = 0; ph < 32; ph++)
			if (!runs_clauses(s, ph))
				quick |= 1u << ph;
	if (plain(s) && s->uses_req)
		rc = push_run(s, ev, n, ordinal, &done, quick, true, true);
	else if (plain(s))
		rc = push_run(s, ev, n, ordinal, &done, quick, true, false);
	else
		rc = push_run(s, ev, n, ordinal, &done, quick, false, s->uses_req);
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

int vxt_script_print_aggregations(struct vxt_script *s, bool clear)
{
	return vxt_script_print_aggs(s, NULL, clear, false, NULL);
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
