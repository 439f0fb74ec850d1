/* script.h - D-style scripts over block I/O events
 *
 * A script is a list of clauses, `probe /predicate/ { statements }`, run in
 * order for every event, as dtrace(1) runs a D program for every probe
 * firing. Probes are io:::queue, io:::start, io:::done, io:::requeue,
 * io:::error, io:::lost, BEGIN, END and tick-N / profile:::tick-N.
 * Statements assign variables (this->x, self->x keyed by pid, req->x keyed
 * by the I/O, globals and associative arrays), aggregate (@a[k] = count())
 * and act: trace(), printf(), speculation(), speculate(), commit(),
 * discard(), printa(), clear(), trunc(), exit(). The language is specified
 * in formats/script.md.
 *
 *   char err[VXT_ERRBUF_SIZE];
 *   struct vxt_script *s = vxt_script_load("io-errors.d", NULL, 0, err);
 *   if (!s)
 *           die("%s", err);            // "io-errors.d:12:5: ..."
 *   vxt_script_start(s, objs, strs, sink, arg);   // BEGIN
 *   for each event, in time order:
 *           vxt_script_push(s, ev, ordinal);       // sink gets what is recorded
 *   vxt_script_end(s);                             // END, aggregations printed
 *   vxt_script_free(s);
 *
 * Everything that reaches the principal buffer goes to the sink at once, in
 * the order it got there (a commit delivers its buffer's records then), as
 * dtrace(1) prints it.
 */
#ifndef VXTRACE_SCRIPT_H
#define VXTRACE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "objtab.h"
#include "strtab.h"

#ifndef VXT_ERRBUF_SIZE
#define VXT_ERRBUF_SIZE 512
#endif

#define VXT_SCRIPT_MAX_BYTES	(1 << 20)	/* largest script text */
#define VXT_SCRIPT_DEFAULT_NSPEC	1		/* DTrace's default */
#define VXT_SCRIPT_MAX_NSPEC	65536
#define VXT_SCRIPT_DEFAULT_SPECSIZE	(4u << 20)	/* DTrace's default: 4m */
#define VXT_SCRIPT_DEFAULT_BUFSIZE	(4u << 20)	/* DTrace's default: 4m */
#define VXT_SCRIPT_DEFAULT_AGGSIZE	(4u << 20)
#define VXT_SCRIPT_DEFAULT_DYNVARSIZE	(1u << 20)	/* DTrace's default: 1m */
#define VXT_SCRIPT_DEFAULT_CLEANRATE	101		/* Hz, DTrace's default */
#define VXT_SCRIPT_RECORD_SIZE	56	/* bytes a record takes, plus its text */

/* One record that reached the principal buffer. */
struct vxt_script_rec {
	bool has_event;			/* recorded by an io::: probe */
	struct vxt_event ev;		/* when has_event */
	uint64_t ordinal;		/* the event's ordinal, when has_event */
	uint64_t spec;			/* speculation that committed it; 0 = direct */
	const char *text;		/* what it prints (may be ""), borrowed */
	size_t len;
};

/* @return 0, or negative to stop the script (the error comes back from the
 * call that recorded). */
typedef int (*vxt_script_sink_fn)(void *arg, const struct vxt_script_rec *r);

struct vxt_script_stats {
	uint64_t events_in;
	uint64_t records;		/* records that reached the principal buffer */
	uint64_t kept_events;		/* ... of them, records of an event */
	uint64_t opened;		/* speculation() that returned an id */
	uint64_t committed, discarded;
	uint64_t eof_discarded;		/* still active at END */
	uint64_t expired;		/* windows (profiles) that emptied with time */
	uint64_t forced;		/* discarded to release held-back output */
	uint64_t committed_events;	/* records of events delivered by commit() */
	uint64_t failed_unavail;	/* no speculative buffer space available */
	uint64_t failed_busy;		/* available buffer(s) still busy */
	uint64_t spec_drops;		/* records that did not fit specsize */
	uint64_t commit_drops;		/* commits that did not fit bufsize */
	uint64_t agg_drops;		/* aggregation keys that did not fit aggsize */
	uint64_t dyn_drops;		/* dynamic variables (self->, req->, arrays, and
					 * the I/Os in flight they belong to) that did
					 * not fit dynvarsize */
	uint64_t dyn_bytes, peak_dyn_bytes;	/* dynamic variable state */
	uint64_t errors;		/* run-time errors (division by zero ...) */
	uint64_t div_zero;		/* ... of them, divisions by zero */
	uint64_t active, peak_active;	/* speculations active now / at most */
	uint64_t mem_bytes, peak_mem_bytes;	/* speculative + aggregation memory */
};

/* The options a script may set, as it set them. */
struct vxt_script_options {
	unsigned nspec;
	uint64_t specsize, bufsize, aggsize, dynvarsize;
	unsigned cleanrate;		/* Hz */
	bool quiet;
	bool nspec_set;			/* the script (or -x) gave nspec */
};

struct vxt_script;

/*
 * Compile script @text (@len bytes; NULL reads the file @file). @file names
 * it in messages. @xopts, @nx: "name=value" settings as dtrace's -x, applied
 * after the script's pragmas.
 * @return the script (caller frees with vxt_script_free()), or NULL with
 * "file:line:col: message" in @err.
 */
struct vxt_script *vxt_script_compile(const char *text, size_t len, const char *file,
				      const char *const *xopts, unsigned nx,
				      char err[VXT_ERRBUF_SIZE]);

/* vxt_script_compile() of the file @path. */
struct vxt_script *vxt_script_load(const char *path, const char *const *xopts, unsigned nx,
				   char err[VXT_ERRBUF_SIZE]);

/* vxt_script_load() with the macro arguments $1 ... $@nargs (@args[0] is
 * $1), as the words after dtrace's script name. */
struct vxt_script *vxt_script_load_args(const char *path, const char *const *xopts, unsigned nx,
					const char *const *args, unsigned nargs,
					char err[VXT_ERRBUF_SIZE]);

/*
 * Find script @name: a path (containing '/' or ending in .d) is used as is,
 * a name is looked up as NAME.d in the profile directories (profile.h).
 * @return 0 with the file in @path, or -ENOENT with a message.
 */
int vxt_script_find(const char *name, const char *dir, char *path, size_t size,
		    char err[VXT_ERRBUF_SIZE]);

/* NULL is fine. */
void vxt_script_free(struct vxt_script *s);

/*
 * What loading @s has to say, in one line without a newline: what the
 * script reads that a block trace does not hold and the stand-in it reads
 * instead ("uid reads 0"), probes that never fire, options that do nothing.
 * @return "" when nothing; borrowed, valid until vxt_script_free().
 */
const char *vxt_script_warnings(const struct vxt_script *s);

/* walltimestamp is the event's time plus @off_ns (the wall clock minus the
 * trace's monotonic clock). Without it, this machine's at vxt_script_start(). */
void vxt_script_set_wall_offset(struct vxt_script *s, int64_t off_ns);

const struct vxt_script_options *vxt_script_get_options(const struct vxt_script *s);

/* The script's name: its file name without the directory and ".d". */
const char *vxt_script_name(const struct vxt_script *s);

/* True when the script has an aggregation or a tick probe. */
bool vxt_script_has_aggregations(const struct vxt_script *s);

/* The event fields the script reads or prints, as VXT_FIELD_* bits of
 * vxt.h, so a pass that feeds it can decode only those. A record's event
 * (struct vxt_script_rec.ev) then holds only those fields: a sink that reads
 * more decodes them itself. Can't fail. */
unsigned vxt_script_fields(const struct vxt_script *s);

/*
 * Run BEGIN. @objs and @strs are borrowed for the run (names of objects and
 * commands); @sink gets every record of the principal buffer.
 * @return 0 or negative (-ENOMEM, or the sink's error).
 */
int vxt_script_start(struct vxt_script *s, const struct vxt_objtab *objs,
		     const struct vxt_strtab *strs, vxt_script_sink_fn sink, void *arg);

/* The origin of `time` (ns since the start of the trace). Can't fail. */
void vxt_script_set_time_base(struct vxt_script *s, uint64_t base_ns);

/*
 * Use the wall clock instead of event time for cleanrate and tick probes
 * (a live source): ticks then come only from vxt_script_tick(). Can't fail.
 */
void vxt_script_set_live(struct vxt_script *s, bool live);

/* With @on, the strings a script prints (trace(), printf's %s, aggregation
 * keys, the object of an event's default text) are escaped as reports
 * escape names (escape.h's vxt_escape_text()): for output to a terminal,
 * where a command name holding "\e]0;..." would drive it. Off by default. */
void vxt_script_set_escape(struct vxt_script *s, bool on);

/* Keep track of the oldest event an active speculative buffer holds, for
 * vxt_script_oldest_buffered() (a caller that puts the output back in input
 * order, as a profile's view does). Call before the first event. */
void vxt_script_track_buffered(struct vxt_script *s);

/* The lowest ordinal of an event in an active speculative buffer (no record
 * of an older event can reach the principal buffer any more), UINT64_MAX
 * when none holds one. Needs vxt_script_track_buffered(). */
uint64_t vxt_script_oldest_buffered(struct vxt_script *s);

/* Output held back too long: discard the active speculation holding the
 * oldest event (counted in forced and discarded). Needs
 * vxt_script_track_buffered(). @return 1, or 0 when none holds an event. */
int vxt_script_discard_oldest(struct vxt_script *s);

/* Run the clauses for one event @ev with ordinal @ordinal (events in time
 * order). @return 0, or negative (-ENOMEM, the sink's error). After exit()
 * the events are ignored (vxt_script_exited()). */
int vxt_script_push(struct vxt_script *s, const struct vxt_event *ev, uint64_t ordinal);

/* vxt_script_push() of the @n events @ev (ordinals from @ordinal on), in
 * one call: stops after an error or exit(); @pushed (if not NULL) gets how
 * many were taken, the one that failed or exited included. @return as
 * vxt_script_push(). */
int vxt_script_push_many(struct vxt_script *s, const struct vxt_event *ev, size_t n,
			 uint64_t ordinal, size_t *pushed);

/* Live: the clock is @now_ns; fire due tick probes and clean busy buffers.
 * @return as vxt_script_push(). */
int vxt_script_tick(struct vxt_script *s, uint64_t now_ns);

/* Print every aggregation now into the principal buffer (as at END), then
 * clear them when @clear. @return as vxt_script_push(). */
int vxt_script_print_aggregations(struct vxt_script *s, bool clear);

/* Run END: active speculations are discarded (eof_discarded), END clauses
 * run, and aggregations not printed by printa() are printed, as dtrace(1)
 * does at exit. Once only. @return as vxt_script_push(). */
int vxt_script_end(struct vxt_script *s);

/* What the script says once at load about a file that feeds it, lines of
 * "FILE:LINE:COL: WARNING: ..." (a bpftrace program: builtins a recording
 * cannot give, and, when @all_phases is false (the file holds issue and
 * completion only), each probe of a phase it lacks); "" when nothing.
 * Borrowed until the next call. */
const char *vxt_script_notes(struct vxt_script *s, bool all_phases);

/* True when the script is written in bpftrace's language (formats/bpftrace.md). */
bool vxt_script_is_bpftrace(const struct vxt_script *s);

/* The ops the script compiled to, one program per probe, as dtrace -S
 * lists DIF: for `vxreplay --explain`. @return 0, or EOF on a write error. */
int vxt_script_explain(const struct vxt_script *s, FILE *out);

/* True after exit(); @code gets the status a process exits with: its
 * argument's low 8 bits, or 1 when those are 0 and the argument is not. */
bool vxt_script_exited(const struct vxt_script *s, int *code);

void vxt_script_get_stats(const struct vxt_script *s, struct vxt_script_stats *st);

/* The smallest ordinal of an event held in an active speculative buffer
 * (a commit may still deliver it), UINT64_MAX when none: a caller writing
 * the kept events in order may write those below it. O(nspec). */
uint64_t vxt_script_oldest_held(const struct vxt_script *s);

/* The first run-time error, "division by zero at F:L:C, probe io:::done";
 * "" when none. Borrowed for the script's life. */
const char *vxt_script_first_error(const struct vxt_script *s);

/* DTrace's report lines, e.g. "2 failed speculations (no speculative buffer
 * space available)\n", "1 failed speculation (available buffer(s) still
 * busy)\n", "3 speculative drops\n", "1 error (division by zero)\n"; ""
 * when there is nothing to say. @return buf. */
char *vxt_script_format_problems(const struct vxt_script_stats *st, char *buf, size_t size);

#endif
