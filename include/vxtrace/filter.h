/* filter.h - filter expressions over I/O events
 *
 * A filter is a boolean expression over the fields of struct vxt_event, e.g.
 *
 *   op == write && latency > 20ms && object ~ "sd*"
 *
 * It is compiled once into the script engine's ops (a filter is a D
 * predicate) and then run per event by the engine's loop, without
 * allocation. The language is specified in formats/filter.md.
 *
 *   char err[VXT_ERRBUF_SIZE];
 *   struct vxt_filter *f = vxt_filter_compile(expr, objs, strs, err);
 *   if (!f)
 *           die("%s", err);          // "filter:1:14: expected a value after '>'"
 *   if (vxt_filter_matches(f, ev))
 *           keep(ev);
 *   vxt_filter_free(f);
 *
 * Names of objects and commands are looked up in the tables the filter is
 * bound to; the result is kept per object / command id, so the tables may
 * grow while the filter is in use, but an id must never change its name.
 */
#ifndef VXTRACE_FILTER_H
#define VXTRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "source.h"
#include "util.h"
#include "event.h"
#include "objtab.h"
#include "strtab.h"

#define VXT_FILTER_MAX_LEN	8192	/* longest expression, in bytes */
#define VXT_FILTER_MAX_TESTS	4096	/* most comparisons after expansion of in () */
#define VXT_FILTER_MAX_DEPTH	64	/* deepest nesting of ( and ! */

/* vxt_filter_opts.flags */
#define VXT_FILTER_SPEC		0x1	/* allow `spec` (speculation predicates) */

/* Where an expression comes from, for error messages. */
struct vxt_filter_opts {
	const char *name;	/* message prefix; NULL = "filter" */
	unsigned line, col;	/* position of the expression's first byte; 0 = 1 */
	unsigned flags;		/* VXT_FILTER_* */
};

/* A compile error, for callers that place it themselves. */
struct vxt_filter_error {
	unsigned line, col;	/* 1-based, already offset by opts.line / opts.col */
	char msg[200];		/* without the "name:line:col: " prefix */
};

struct vxt_ivals;

/* Evaluation context beyond the event. */
struct vxt_filter_ctx {
	bool spec;		/* the event's key has an active speculation */
	/* the event's own intervals (q2c, ...; phasepair.h); NULL: all unset */
	const struct vxt_ivals *iv;
};

struct vxt_filter;

/*
 * Compile @expr. @objs and @strs are borrowed for the filter's life and may be
 * NULL (names then compare as ""; bind later with vxt_filter_bind()).
 * @return the filter, or NULL with "filter:LINE:COL: message" in @err
 * (caller frees with vxt_filter_free()).
 */
struct vxt_filter *vxt_filter_compile(const char *expr, const struct vxt_objtab *objs,
				      const struct vxt_strtab *strs,
				      char err[VXT_ERRBUF_SIZE]);

/*
 * As vxt_filter_compile(), with a source name, a start position and flags.
 * On error, @e (if not NULL) gets the position and the bare message, and @err
 * (if not NULL) the formatted "name:line:col: message".
 */
struct vxt_filter *vxt_filter_compile_opts(const char *expr, const struct vxt_filter_opts *o,
					   const struct vxt_objtab *objs,
					   const struct vxt_strtab *strs,
					   struct vxt_filter_error *e,
					   char err[VXT_ERRBUF_SIZE]);

/* Free @f; NULL is fine. */
void vxt_filter_free(struct vxt_filter *f);

/* Bind @f to other tables and forget the name matches it kept. Can't fail. */
void vxt_filter_bind(struct vxt_filter *f, const struct vxt_objtab *objs,
		     const struct vxt_strtab *strs);

/* The origin of the `time` field: time is ev->time_ns - @base_ns (0 before
 * it). The default is 0. Can't fail. */
void vxt_filter_set_time_base(struct vxt_filter *f, uint64_t base_ns);

/*
 * @return whether @ev matches. No allocation; @f is not const because it
 * holds the state its program runs in (one filter per thread).
 */
bool vxt_filter_matches(struct vxt_filter *f, const struct vxt_event *ev);

/* As vxt_filter_matches(), with the speculation context (may be NULL). */
bool vxt_filter_eval(struct vxt_filter *f, const struct vxt_event *ev,
		     const struct vxt_filter_ctx *ctx);

/* The expression as given, borrowed for the filter's life. */
const char *vxt_filter_source(const struct vxt_filter *f);

/* Number of comparisons in the compiled form (after expansion of in ()). */
unsigned vxt_filter_ntests(const struct vxt_filter *f);

/* The fields @f reads, as VXT_FIELD_* bits of vxt.h (0 for a constant), so
 * a pass that only filters can decode just those (vxt_reader_set_fields(),
 * vxt_scan_start()). Can't fail. */
unsigned vxt_filter_fields(const struct vxt_filter *f);

/* Does @f read an interval field (q2d d2c q2c q2g g2i i2d)? Then give
 * vxt_filter_eval() the intervals of each event (vxt_phasepair_add(), fed
 * every event in time order); vxt_filter_matches() takes them as unset. */
bool vxt_filter_uses_intervals(const struct vxt_filter *f);

/* The part of @f a kernel source can test (struct vxt_kfilter, source.h)
 * into @k, read off the ops @f runs. @return the number of comparisons the
 * kernel can compute (0: none, nothing to gain), or -1 when the filter does
 * not fit the kernel's table (too many comparisons, an op outside its
 * subset) or reads intervals (which pair every event in user space), or
 * on running out of memory. */
int vxt_filter_kernel(const struct vxt_filter *f, struct vxt_kfilter *k);

/* The ops @f runs (as vxreplay --explain lists a script's), then a line
 * saying what of it a kernel source tests (vxt_filter_kernel()).
 * @return 0, or EOF when @out fails. */
int vxt_filter_explain(const struct vxt_filter *f, FILE *out);

/* True when the expression is constant true (empty filters are not allowed;
 * this is "true"). */
bool vxt_filter_is_true(const struct vxt_filter *f);

#endif
