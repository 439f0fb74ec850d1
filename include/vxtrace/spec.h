/* spec.h - speculative tracing of I/O streams
 *
 * A profile's speculation rules (formats/profile.md), compiled to the script
 * engine (script.h) and run over events in input order: a speculation belongs to a key (an
 * object, a process, both, or one I/O request). Clauses, evaluated in order
 * for every event, open a speculation for the event's key, put the event in
 * the key's speculative buffer, or end the speculation by committing it (the
 * buffered events reach the output) or discarding it. `nspec` buffers of
 * `specsize` bytes bound the memory; a speculation that finds no free buffer
 * fails, an event that finds its buffer full is a speculative drop, and both
 * are counted and reported in DTrace's words.
 *
 *   struct vxt_spec *s = vxt_spec_new(&cfg, objs, strs, err);
 *   for each event:
 *           vxt_spec_push(s, ev);
 *           while (vxt_spec_next(s, &out) == 1)
 *                   emit(&out);            // out.ev, out.spec, out.seq
 *   vxt_spec_finish(s);                    // end of input: open ones are discarded
 *   while (vxt_spec_next(s, &out) == 1)
 *           emit(&out);
 *
 * Output comes in input order (by ordinal), whatever the order of commits.
 * The rules and the `context:` shorthand are described in formats/profile.md.
 */
#ifndef VXTRACE_SPEC_H
#define VXTRACE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "event.h"
#include "objtab.h"
#include "strtab.h"

#define VXT_SPEC_MAX_CLAUSES	32
#define VXT_SPEC_MAX_ACTIONS	4
#define VXT_SPEC_MAX_NSPEC	65536
#define VXT_SPEC_MAX_WINDOW_EVENTS (1u << 20)	/* context: before_events, after_events */
#define VXT_SPEC_DEFAULT_NSPEC	64
#define VXT_SPEC_DEFAULT_SIZE	(1u << 20)	/* specsize: 21845 events */
#define VXT_SPEC_RECORD_SIZE	56		/* bytes one event takes in a buffer */
#define VXT_SPEC_DEFAULT_PENDING (1u << 20)	/* output events held back, at most */

/* What a speculation belongs to. */
enum vxt_spec_key {
	VXT_SPEC_KEY_OBJECT = 0,
	VXT_SPEC_KEY_PID = 1,
	VXT_SPEC_KEY_OBJECT_PID = 2,
	VXT_SPEC_KEY_REQUEST = 3,	/* one I/O: (object, sector, bytes) */
};

/* Which events a clause sees (bit masks of phases). */
#define VXT_PROBE_START		(1u << VXT_PH_START)
#define VXT_PROBE_DONE		(1u << VXT_PH_DONE)
#define VXT_PROBE_REQUEUE	(1u << VXT_PH_REQUEUE)
#define VXT_PROBE_ANY		0xffffffffu

enum vxt_spec_action {
	VXT_ACT_SPECULATION = 1,	/* open a speculation for the key (if none) */
	VXT_ACT_SPECULATE,		/* the event goes to the key's buffer */
	VXT_ACT_COMMIT,			/* the key's buffer reaches the output */
	VXT_ACT_DISCARD,		/* the key's buffer is thrown away */
	VXT_ACT_TRACE,			/* the event reaches the output directly */
};

struct vxt_spec_clause {
	unsigned probes;		/* VXT_PROBE_* */
	const char *predicate;		/* filter expression, may use `spec`; NULL = true */
	unsigned nactions;
	enum vxt_spec_action actions[VXT_SPEC_MAX_ACTIONS];
	/* speculation: the buffer keeps only events within window_ns of the
	 * newest event (a ring bounded by time and by specsize) */
	bool windowed;
	uint64_t window_ns;
	/* ... and at most window_events of them, the newest (0 = no count
	 * bound; with a count bound, window_ns 0 is no time bound) */
	uint32_t window_events;
	/* commit: the key's speculated events keep reaching the output, under
	 * the committed id, until follow_ns after the committing event and for
	 * at most follow_events events (0 = that bound unused; both 0 = no
	 * follow) */
	uint64_t follow_ns;
	uint32_t follow_events;
	/* for messages: where the clause and its predicate are written (0 = unknown) */
	unsigned line, col;
	unsigned pred_line, pred_col;
};

struct vxt_spec_config {
	enum vxt_spec_key key;
	unsigned nspec;			/* 0 = VXT_SPEC_DEFAULT_NSPEC */
	uint64_t specsize;		/* bytes per buffer; 0 = VXT_SPEC_DEFAULT_SIZE */
	unsigned nclauses;
	struct vxt_spec_clause clauses[VXT_SPEC_MAX_CLAUSES];
	const char *name;		/* message prefix (a file name); NULL = "speculation" */
	/* Output waits while an older event sits in an open buffer. When more
	 * than this many events wait, the speculation holding the oldest one is
	 * discarded (counted in forced), so a speculation that never ends (a
	 * completion that never came) cannot hold the output back for ever.
	 * 0 = VXT_SPEC_DEFAULT_PENDING. */
	uint64_t max_pending;
};

/* One event of the output. */
struct vxt_spec_event {
	struct vxt_event ev;
	uint64_t spec;			/* id of the committed speculation; 0 = traced */
	uint64_t seq;			/* ordinal of the event in the input, from 0
					 * (or as given to vxt_spec_push_at()) */
};

struct vxt_spec_stats {
	uint64_t events_in, events_out;
	uint64_t opened;		/* speculations opened */
	uint64_t committed;		/* ... committed */
	uint64_t discarded;		/* ... discarded (including the two below) */
	uint64_t expired;		/* windowed ones that emptied with time */
	uint64_t eof_discarded;		/* still open at the end of input */
	uint64_t forced;		/* discarded because output waited too long */
	uint64_t failed;		/* no speculative buffer available */
	uint64_t drops;			/* events that did not fit a buffer */
	uint64_t committed_events;	/* events that reached the output by commit */
	uint64_t active, peak_active;	/* speculations open now / at most */
};

struct vxt_spec;

/* The name of a key, "object", "pid", "object,pid", "request"; and back.
 * vxt_spec_key_parse() @return the key or -1. */
const char *vxt_spec_key_name(unsigned key);
int vxt_spec_key_parse(const char *s);
/* "speculation", "speculate", "commit", "discard", "trace"; and back (or -1). */
const char *vxt_spec_action_name(unsigned act);
int vxt_spec_action_parse(const char *s);
/* A probe name, "start", "done", "requeue", "any"; @return its mask or 0. */
unsigned vxt_spec_probe_parse(const char *s);

/*
 * Fill @c with the clauses of the context shorthand: keep what happened on
 * the same key within @before_ns of each event matching @on, that event, and
 * what follows within @after_ns. @on is borrowed.
 * @return 0, or -EINVAL when @on is NULL.
 */
int vxt_spec_config_context(struct vxt_spec_config *c, enum vxt_spec_key key,
			    uint64_t before_ns, uint64_t after_ns, const char *on);

/*
 * Bound the windows of @c, filled by vxt_spec_config_context(), by counts:
 * at most @before events of the key before each trigger and @after after it
 * (0 = no count bound on that side; a time of 0 with a count means the count
 * alone bounds the window).
 */
void vxt_spec_config_context_events(struct vxt_spec_config *c, uint32_t before,
				    uint32_t after);

/*
 * Check @c against the rules of D (a clause with speculate records nothing
 * else; one speculate per clause; commit and discard clauses record nothing
 * themselves) and compile its predicates.
 * @return 0, or -EINVAL with "name:line:col: message" in @err.
 */
int vxt_spec_check(const struct vxt_spec_config *c, char err[VXT_ERRBUF_SIZE]);

/* Make an engine. @c is copied (its predicate strings too); @objs and @strs
 * are borrowed for the engine's life (NULL is fine: names compare as "").
 * @return the engine, or NULL with a message in @err. */
struct vxt_spec *vxt_spec_new(const struct vxt_spec_config *c, const struct vxt_objtab *objs,
			      const struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE]);
/* NULL is fine. */
void vxt_spec_free(struct vxt_spec *s);

/* The origin of `time` in predicates (see vxt_filter_set_time_base()). */
void vxt_spec_set_time_base(struct vxt_spec *s, uint64_t base_ns);

/* Feed one event (in time order). Lost markers are always kept.
 * @return 0 or -ENOMEM (the event was not taken). */
int vxt_spec_push(struct vxt_spec *s, const struct vxt_event *ev);

/* As vxt_spec_push(), numbering the event @seq instead of the next ordinal;
 * @seq must be above every ordinal pushed before (gaps are fine). */
int vxt_spec_push_at(struct vxt_spec *s, const struct vxt_event *ev, uint64_t seq);

/* Take the next output event into @out. @return 1, or 0 when none is ready
 * yet (more input or vxt_spec_finish() releases more). */
int vxt_spec_next(struct vxt_spec *s, struct vxt_spec_event *out);

/* End of input: discard every open speculation (counted in eof_discarded)
 * and release all output. Further pushes are ignored. Can't fail. */
void vxt_spec_finish(struct vxt_spec *s);

void vxt_spec_get_stats(const struct vxt_spec *s, struct vxt_spec_stats *st);

/* DTrace's report lines, e.g. "2 failed speculations (no speculative buffer
 * available)\n" and "1 speculative drop\n"; "" when there is nothing to say.
 * @return buf. */
char *vxt_spec_format_problems(const struct vxt_spec_stats *st, char *buf, size_t size);

#endif
