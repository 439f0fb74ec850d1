/* report.h - vxreplay's batch reports: summary, objects, errors, events
 *
 * Each report reads the events a struct report_scope selects and prints one
 * format (text, json, csv). The column and key names are an interface that
 * scripts rely on: see formats/reports.md.
 */
#ifndef VXREPLAY_REPORT_H
#define VXREPLAY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vxtrace/vxtrace.h"

enum report_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* Which events a report covers. */
struct report_scope {
	uint64_t from_ns, to_ns;	/* [from, to]; 0 / UINT64_MAX = open */
	int64_t object;			/* object id, or -1 for all */
};

struct batch_profile;
struct batch_script;

/* Called for each event in scope with its ordinal in the file; return true
 * to keep it. NULL keeps all. */
typedef bool (*report_keep_fn)(const struct vxt_event *ev, uint64_t ordinal, void *arg);

/* Where --export clickhouse+http://... sends, and how. */
struct sink_opts {
	const char *url;
	size_t batch;			/* --sink-batch */
	uint64_t timeout_ms;		/* --sink-timeout: one request */
	uint64_t retry_ns;		/* --sink-retry: keep retrying a batch this long */
	const char *user;		/* --sink-user */
	const char *password_file;	/* --sink-password-file */
};

struct report_ctx {
	const struct sink_opts *sink;	/* --export clickhouse+http://... */
	struct vxt_reader *r;
	struct report_scope scope;
	enum report_format fmt;
	FILE *out;
	report_keep_fn keep;
	void *keep_arg;
	uint64_t start_ns;		/* time origin of relative times: first event */
	const struct batch_profile *spec;	/* --profile: its section in the summary */
	uint64_t damaged;		/* damaged chunks skipped (each named on stderr) */
	size_t damage_said;		/* chunks below this were named (passes go in order) */
	size_t holes_said;		/* damaged chunks of several files named (as lost records) */
	const struct batch_script *script;	/* --script: its section in the summary */
	/* --profile: the events its first pass kept (file order, with their
	 * ordinals), read again from memory rather than from the file; NULL
	 * when the passes read the file (too many kept, or a report such as
	 * the breakdown that pairs the events it does not keep too) */
	const struct vxt_event *held;
	const uint64_t *held_ord;
	size_t nheld, held_pos;
};

/* A damaged chunk met by a pass: name it on stderr (once over all passes)
 * with @msg, the reader's or scan's message. */
void report_damage(struct report_ctx *c, size_t chunk, const char *msg);

/* Exit status of a report that skipped damaged chunks, output complete for
 * the rest. */
#define REPORT_EXIT_DAMAGE 3

/* @return 0, or 1 after printing why the file could not be read. */
int report_summary(struct report_ctx *c);
int report_objects(struct report_ctx *c);
int report_errors(struct report_ctx *c);
int report_events(struct report_ctx *c);
/* btt's breakdown of the phases (breakdown.c). */
int report_breakdown(struct report_ctx *c);
struct vxt_breakdown;
/* The breakdown of the scope into @b (vxt_bd_free() it). @return 0 or 1. */
int report_breakdown_collect(struct report_ctx *c, struct vxt_breakdown *b);
int report_info(struct vxt_reader *r, FILE *out);
/* The profile and speculation part of the summary (nothing without a
 * profile); CSV: @part 0 = header cells, 1 = value cells. */
void report_spec_section(struct report_ctx *c, int part);
/* The same for --script (batch_script.c). */
void report_script_section(struct report_ctx *c, int part);

/* One event as a CSV row (no newline) / JSON object, as the events report
 * writes it; shared with exports. */
void report_csv_header(FILE *out);
void report_csv_row(FILE *out, const struct vxt_reader *r, const struct vxt_event *ev);
void report_json_event(FILE *out, const struct vxt_reader *r, const struct vxt_event *ev,
		       uint64_t start_ns);
/* Is @e in scope? @return 1 yes, 0 no, -1 no and nothing after it is
 * (chunks are in time order; VXT_REORDER_MAX_NS past the end is past any
 * reordering). */
static inline int report_in_scope(const struct report_ctx *c, const struct vxt_event *e, uint64_t ord)
{
	if (e->time_ns < c->scope.from_ns)
		return 0;
	if (e->time_ns > c->scope.to_ns)
		return e->time_ns > c->scope.to_ns + VXT_REORDER_MAX_NS ? -1 : 0;
	if (c->scope.object >= 0 && e->phase != VXT_PH_LOST &&
	    e->object != (uint64_t)c->scope.object)
		return 0;
	if (c->keep && !c->keep(e, ord, c->keep_arg))
		return 0;
	return 1;
}

/* Is every event of chunk @ci in scope, with no test per event needed (no
 * object or keep callback choosing, its times inside the range)? */
static inline bool report_chunk_in_scope(const struct report_ctx *c,
					 const struct vxt_chunk_info *ci)
{
	return !c->keep && c->scope.object < 0 && ci->first_ns >= c->scope.from_ns &&
	       ci->last_ns <= c->scope.to_ns;
}

/* Walk the chunks from the scope's start, decoding @fields ahead on helper
 * threads; a damaged chunk is named (report_damage()) and skipped. @fn gets
 * each chunk's events from the scope's start on (@n of them, the first of
 * ordinal @ord) and returns 0 to go on, 1 on an error it printed, or -1 when
 * the scope is over. @return 0 or 1. */
typedef int (*report_chunk_fn)(struct report_ctx *c, const struct vxt_chunk_info *ci,
			       const struct vxt_event *ev, size_t n, uint64_t ord, void *arg);
int report_scan(struct report_ctx *c, unsigned fields, report_chunk_fn fn, void *arg);
/* Iterate the events in scope, as the reports do: begin, then next until it
 * returns 0 (end) or -1 (damage, already printed); 1 gives @ev, borrowed
 * until the next call. */
int report_scope_begin(struct report_ctx *c);
int report_scope_next(struct report_ctx *c, const struct vxt_event **ev);
/* Whether ordinal @ord is among the @n ascending @kept, for a keep callback:
 * *@cursor follows a pass in file order, and goes back when a report starts
 * another pass over the file (the HTML page reads it three times). */
bool report_kept_has(const uint64_t *kept, size_t n, size_t *cursor, uint64_t ord);
/* The file ordinal of the event report_scope_next() gave last. */
uint64_t report_scope_ordinal(const struct report_ctx *c);
/* Write @s as a JSON string literal. */
void report_json_str(FILE *out, const char *s);

#endif
