/* spec.c - speculation over a stream of events, in input order, on the
 * script engine
 *
 * A profile's rules (speculation: or context:) are compiled to a script
 * (script_keyed.c); a profile's program: is one. Either way the script runs
 * over the events and what it records reaches a heap ordered by ordinal,
 * which releases an event once no active speculative buffer holds an older
 * one (vxt_script_oldest_buffered()), so the output is in input order
 * whatever the order of commits, each event once. Lost markers are always
 * kept. When more than max_pending events wait, the speculation holding the
 * oldest is discarded (forced), so one that never ends cannot hold the
 * output back without bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/spec_impl.h"
#include "vxtrace/heap.h"
#include "vxtrace/util.h"

struct vxt_spec {
	struct vxt_script *script;
	bool keyed;			/* compiled from rules, not a program: */
	bool ended;
	struct vxt_spec_event *heap;	/* recorded events, by ordinal */
	size_t heapn, heapcap;
	uint64_t seq;			/* ordinal of the next input event */
	uint64_t last_out;		/* ordinal of the last event out, + 1 (0 = none) */
	uint64_t max_pending;
	uint64_t events_out;
	uint64_t wm;			/* output below it may go; UINT64_MAX = to compute */
};

static bool ord_before(const void *ctx, const struct vxt_spec_event *a,
		       const struct vxt_spec_event *b)
{
	(void)ctx;
	return a->seq < b->seq;
}

VXT_HEAP_DEFINE(evheap, struct vxt_spec_event, const void *, ord_before)

static int heap_push(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq, uint64_t id)
{
	struct vxt_spec_event x = { .ev = *ev, .seq = seq, .spec = id };

	if (vxt_grow(&s->heap, &s->heapcap, s->heapn + 1, sizeof(*s->heap)) < 0)
		return -ENOMEM;
	evheap_push(s->heap, &s->heapn, &x, NULL);
	return 0;
}

static void heap_pop(struct vxt_spec *s, struct vxt_spec_event *out)
{
	*out = s->heap[0];
	evheap_pop(s->heap, &s->heapn, NULL);
}

static int sink(void *arg, const struct vxt_script_rec *r)
{
	struct vxt_spec *s = arg;

	return r->has_event ? heap_push(s, &r->ev, r->ordinal, r->spec) : 0;
}

struct vxt_spec *vxt_spec_of_script(struct vxt_script *script, bool keyed,
				    const struct vxt_objtab *objs, const struct vxt_strtab *strs,
				    uint64_t max_pending, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_spec *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		vxt_script_free(script);
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	s->script = script;
	s->keyed = keyed;
	s->wm = UINT64_MAX;
	s->max_pending = max_pending ? max_pending : VXT_SPEC_DEFAULT_PENDING;
	vxt_script_track_buffered(script);
	rc = vxt_script_start(script, objs, strs, sink, s);
	if (rc < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", vxt_script_name(script), strerror(-rc));
		vxt_spec_free(s);
		return NULL;
	}
	return s;
}

struct vxt_spec *vxt_spec_new(const struct vxt_spec_config *c, const struct vxt_objtab *objs,
			      const struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_script *script = vxt_script_keyed(c, objs, strs, err);

	if (!script)
		return NULL;
	return vxt_spec_of_script(script, true, objs, strs, c->max_pending, err);
}

void vxt_spec_free(struct vxt_spec *s)
{
	if (!s)
		return;
	vxt_script_free(s->script);
	free(s->heap);
	free(s);
}

void vxt_spec_set_time_base(struct vxt_spec *s, uint64_t base_ns)
{
	vxt_script_set_time_base(s->script, base_ns);
}

/* Too much output waits: discard the speculations holding the oldest events. */
static void relieve(struct vxt_spec *s)
{
	while (s->heapn > s->max_pending && vxt_script_discard_oldest(s->script))
		if (s->heap[0].seq < vxt_script_oldest_buffered(s->script))
			return;		/* output can flow again */
}

int vxt_spec_push(struct vxt_spec *s, const struct vxt_event *ev)
{
	return vxt_spec_push_at(s, ev, s->seq);
}

int vxt_spec_push_at(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq)
{
	int rc;

	if (seq < s->seq)
		return -EINVAL;
	rc = ev->phase == VXT_PH_LOST ? heap_push(s, ev, seq, 0) : 0;
	if (rc == 0)
		rc = vxt_script_push(s->script, ev, seq);
	if (rc < 0)
		return rc;
	s->seq = seq + 1;
	s->wm = UINT64_MAX;
	if (s->heapn > s->max_pending)
		relieve(s);
	return 0;
}

int vxt_spec_next(struct vxt_spec *s, struct vxt_spec_event *out)
{
	for (;;) {
		uint64_t wm;

		if (!s->heapn)
			return 0;
		if (!s->ended) {
			/* only a push moves it (commits, discards, windows) */
			if (s->wm == UINT64_MAX) {
				wm = vxt_script_oldest_buffered(s->script);
				s->wm = wm < s->seq ? wm : s->seq;
			}
			if (s->heap[0].seq >= s->wm)
				return 0;
		}
		heap_pop(s, out);
		if (s->last_out && out->seq < s->last_out)
			continue;	/* recorded twice (several clauses or commits) */
		s->last_out = out->seq + 1;
		s->events_out++;
		return 1;
	}
}

void vxt_spec_finish(struct vxt_spec *s)
{
	if (s->ended)
		return;
	vxt_script_end(s->script);	/* active buffers are discarded */
	s->ended = true;
}

void vxt_spec_get_stats(const struct vxt_spec *s, struct vxt_spec_stats *st)
{
	struct vxt_script_stats ss;

	vxt_script_get_stats(s->script, &ss);
	memset(st, 0, sizeof(*st));
	st->events_in = ss.events_in;
	st->events_out = s->events_out;
	st->opened = ss.opened;
	st->committed = ss.committed;
	st->discarded = ss.discarded;
	st->expired = ss.expired;
	st->eof_discarded = ss.eof_discarded;
	st->forced = ss.forced;
	st->failed = ss.failed_unavail + ss.failed_busy;
	st->drops = ss.spec_drops;
	/* a program's records of events, a profile's events kept by commit */
	st->committed_events = s->keyed ? ss.committed_events : ss.kept_events;
	st->active = ss.active;
	st->peak_active = ss.peak_active;
}

char *vxt_spec_format_problems(const struct vxt_spec_stats *st, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (st->failed)
		n = snprintf(buf, size, "%" PRIu64 " failed speculation%s (no speculative buffer "
			     "available)\n", st->failed, st->failed == 1 ? "" : "s");
	if (st->drops && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "%" PRIu64 " speculative drop%s\n", st->drops,
			 st->drops == 1 ? "" : "s");
	return buf;
}
