/* model.h - the browser's data: readers, window, view, cursor, jobs, marks
 *
 * Everything vxreplay's browser shows, without any curses: the model opens
 * the file twice (one reader follows the cursor, one runs background jobs),
 * keeps the visible time window and its timeline, the set of events shown
 * (all, filtered, or committed by speculation), the cursor over them, the
 * user's marks, and the stepped jobs (re-binning, counting a filter,
 * speculation, export) that the screen manager runs between keys.
 *
 * Memory is bounded by the index: per chunk a match count, per window the
 * timeline; events are decoded one chunk at a time and never kept.
 */
#ifndef VXREPLAY_TUI_MODEL_H
#define VXREPLAY_TUI_MODEL_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vxtrace/vxtrace.h"
#include "vxtrace/heatmap.h"
#include "vxtrace/timeline.h"
#include "browser/procs.h"
#include "browser/ioph.h"

struct vxt_filter;
struct vr_ivfilter;
struct vr_ivs;
struct vxt_spec;
struct vxt_view;
struct vxt_profile;
struct vr_script;

#define VR_UNKNOWN	UINT32_MAX	/* chunk match count not known yet */
enum { VR_CHUNK_UNKNOWN, VR_CHUNK_OK, VR_CHUNK_DAMAGED };	/* a chunk decodes or not */
#define VR_MAX_ROWS	64		/* heatmap object rows */
#define VR_MAX_MARKS	64
#define VR_LBA_ROWS	32		/* LBA buckets unless a profile says */
#define VR_LBA_ROWS_MAX	64
#define VR_STEP_NS	8000000ull	/* one job step: about 8 ms of work */
#define VR_MAX_COLS	20		/* list columns */
#define VR_SPEC_MAX	(4u << 20)	/* committed events kept by the speculation view */
/* what the error timeline marks (a profile's timeline.mark) */
#define VR_MARK_ERRORS	0x1		/* error counts as bars */
#define VR_MARK_LOST	0x2		/* lost events under the axis */
#define VR_MARK_SLOW	0x4		/* I/O at or above lat_crit_ns, under the axis */

/* Which events are shown: a predicate on an event and its ordinal (NULL = all). */
typedef bool (*vr_match_fn)(void *ctx, const struct vxt_event *ev, uint64_t ord);

/* The speculation view: committed events by ordinal, with their group. */
struct vr_spec_set {
	uint64_t *ord;		/* sorted */
	uint32_t *group;	/* speculation number of each committed event */
	uint64_t *trigger;	/* per group: ordinal of the event that committed it */
	uint64_t *spec_id;	/* per group: the engine's speculation id */
	size_t n, cap, ngroups, gcap;
	bool truncated;		/* VR_SPEC_MAX reached */
	uint64_t by_commit;	/* events of n with a speculation's id: from its
				 * committed buffer or after its trigger */
	uint64_t traced;	/* events of n traced directly (id 0) */
	char summary[768];	/* counts in the engine's words */
};

/* Per object, the figures of the shown events of the chunks counted so far
 * (done events, as the index's struct vxt_objagg counts them). */
struct vr_objfig {
	uint64_t ios, reads, writes, bytes, errors, lat_sum;
};

struct vr_view {
	struct vxt_reader *rd;		/* borrowed */
	vr_match_fn match;
	void *match_ctx;
	uint32_t *chunk_match;		/* per chunk: shown events, or VR_UNKNOWN */
	size_t nchunks;
	size_t known;			/* chunks whose count is known */
	uint64_t shown;			/* sum of known counts */
	struct vr_objfig *objs;		/* with a filter: per object id, of the counted chunks */
	size_t nobjs;
	uint8_t *chunk_state;		/* per chunk: VR_CHUNK_* (damage is the file's, not the filter's) */
	size_t nstate;
	bool spec_on;			/* show spec.ord instead */
	struct vr_spec_set spec;
};

/* VR_JOB_INDEX: the timeline's estimate from the chunk entries of a file
 * of more than VR_INDEX_SYNC chunks (vr_model_rebin() reads a smaller
 * file's at once), VR_INDEX_STEP entries a turn; the re-binning job starts
 * when it is done. */
enum vr_job_kind { VR_JOB_REBIN, VR_JOB_COUNT, VR_JOB_SPEC, VR_JOB_EXPORT, VR_JOB_PROCS,
		   VR_JOB_AGG, VR_JOB_PAIR, VR_JOB_IVS, VR_JOB_INDEX, VR_JOB_KINDS };
#define VR_INDEX_SYNC 1024
#define VR_INDEX_STEP 2048
/* the pairing of every I/O's phases (pairjob.h) */
enum vr_pair_state { VR_PAIR_NONE, VR_PAIR_ISSUE_ONLY, VR_PAIR_RUNNING, VR_PAIR_DONE };

struct vr_job {
	bool active;
	size_t next, end;		/* chunks still to do: [next, end) */
	size_t begin;			/* for the progress */
	uint64_t spec_pos;		/* export of a speculation view: next index */
	bool index_late;		/* re-binning: the job adds the chunks the index
					 * bins exactly (their entries were not complete) */
};

/* A job's scanner (scan.c): chunks decoded ahead on helper threads. */
struct vr_scan {
	struct vxt_scan *scan;		/* NULL = none running */
	size_t next;			/* the chunk it gives next */
	unsigned fields;		/* VXT_FIELD_* it decodes */
};

struct vr_mark {
	uint64_t ord;
	uint64_t time_ns;
};

struct vr_model {
	const char *path;
	const char *const *paths;	/* several files as one trace (npaths > 1) */
	size_t npaths;
	dev_t file_dev;			/* the file @path named when opened */
	ino_t file_ino;
	struct vxt_reader *rd;		/* cursor and list */
	struct vxt_reader *jrd;		/* background jobs (vr_model_job_reader()) */
	const struct vxt_file_info *info;
	uint64_t t_first, t_last;	/* time of the first and last event */
	uint64_t total_errors, total_lost;
	/* the visible time window [w0, w1) and its bins */
	uint64_t w0, w1;
	unsigned nbins;
	/* heatmap rows: the busiest objects first */
	uint32_t rows[VR_MAX_ROWS];
	unsigned nrows;
	unsigned rows_left;		/* objects with I/O past VR_MAX_ROWS: not rows */
	uint64_t rows_left_errors;	/* ... and their errors (from the index) */
	bool lba;			/* rows are LBA buckets of lba_obj */
	uint32_t lba_obj;
	unsigned lba_rows;		/* LBA buckets a profile asks for; 0 = lba_fit */
	unsigned lba_fit;		/* LBA buckets that fit the panel; 0 = VR_LBA_ROWS */
	uint64_t lba_first, lba_span;	/* sectors the LBA rows cover; span 0 = the whole object */
	bool lba_want_fit;		/* after this binning, fit the rows to the span touched */
	uint64_t fixed_bin_ns;		/* a profile's timeline bin; 0 = the window fits the file */
	enum vxt_heat_metric metric;
	int metric_iv;			/* or Q2C p50 / p99 (VR_HEAT_*, heativ.h) */
	bool heat_log;			/* log scale (always for latencies) */
	struct vxt_timeline tl;		/* exact (or filling, with a filter) */
	struct vxt_timeline tl_est;	/* index estimate shown while tl fills */
	bool tl_done;			/* tl is complete */
	bool tl_show_est;		/* draw tl_est */
	size_t ix_first, ix_last;	/* the index pass: chunks in the window so far
					 * (ix_first SIZE_MAX = none yet) */
	struct vxt_heatmap hm;
	bool hm_dirty;
	unsigned heat_bins;		/* a profile's heatmap time bins; 0 = a bin per column */
	struct vxt_timeline htl, htl_est;	/* the heatmap's bins when heat_bins < nbins */
	unsigned mark_kinds;		/* VR_MARK_*: what the timeline marks */
	uint64_t *tl_slow;		/* per timeline bin: slow I/O shown, when marked */
	/* what is shown */
	struct vr_view view;
	struct vxt_filter *filter;	/* NULL = no filter */
	struct vr_ivfilter *ivf;	/* its intervals, when it reads some (ivfilter.h) */
	struct vr_ivs *ivs;		/* Q2C and queue time over time (ivseries.h), or NULL */
	char filter_src[256];
	char profile[64];		/* the applied profile's name, "" = none */
	struct vxt_profile *prof;	/* the applied profile, NULL = none */
	const char *profile_dir;	/* --profile-dir, or NULL */
	struct vr_script *script;	/* the applied D script (script.h), NULL = none */
	enum vr_pair_state pair_state;	/* every I/O's phases (pairjob.h) */
	bool queue_side;		/* pieces [0, qs_pieces) hold queue-side phases */
	size_t qs_pieces;		/* pieces looked at for it (pick_rows()) */
	struct vr_ioph ioph;
	uint8_t columns[VR_MAX_COLS];	/* list columns (enum vr_col); 0 of them = default */
	unsigned ncolumns;
	uint64_t lat_crit_ns;		/* latency that stands out; 0 = none */
	/* speculation */
	struct vxt_view *specv;		/* the profile pipeline while the pass runs */
	struct vxt_profile *spec_prof;	/* errors-in-context, when the applied profile has no rules */
	bool spec_done;			/* view.spec holds the complete result */
	char spec_name[64];		/* the rules' name, for the header */
	/* the cursor: an event shown, and the first row of the list */
	bool has_sel;
	uint64_t sel, top;
	uint64_t sel_time;		/* time of the selected event */
	unsigned sel_row;		/* row of sel in the list */
	unsigned page;			/* list rows */
	bool following;
	/* marks */
	struct vr_mark marks[VR_MAX_MARKS];
	unsigned nmarks;
	/* the per-process view: completions shown in [procs_w0, procs_w1) */
	struct vr_procs procs;
	uint64_t procs_w0, procs_w1;
	bool procs_done;
	bool io_only;			/* the list shows completed I/Os only */
	/* jobs */
	struct vr_job job[VR_JOB_KINDS];
	struct vr_scan scan[VR_JOB_KINDS];
	FILE *export_f;
	bool export_json, export_first;
	char export_path[256];
	uint64_t export_rows;
	/* a message for the user from the last operation ("" = none) */
	char note[640];
	bool note_error;
	bool chunk_damaged;		/* the last chunk a job asked for is damaged */
	uint64_t ndamaged;		/* damaged chunks the jobs skipped */
	size_t damage_said;		/* chunks below this were counted (jobs go in order) */
	char err[VXT_ERRBUF_SIZE];
};

/* Open @path. @return 0, or -1 with the reason in m->err. */
int vr_model_open(struct vr_model *m, const char *path);
/* Open @n files as one trace (vxt_reader_open_set()); @paths borrowed. */
int vr_model_open_set(struct vr_model *m, const char *const *paths, size_t n);
void vr_model_close(struct vr_model *m);
/* The reader of the background jobs, opened at the first call.
 * @return it, or NULL with the reason in m->note. */
struct vxt_reader *vr_model_job_reader(struct vr_model *m);
/* Scan for data appended to the file. @return new chunks, or a negative errno. */
int vr_model_refresh(struct vr_model *m);
/* Following as tail -F does: if m->path names another file than the one
 * open (a recorder rotated it), open that one instead.
 * @return 1 when it did, 0 when not, -1 with m->err when it cannot read it. */
int vr_model_check_rotated(struct vr_model *m);

/* ---- the view ---- */
/* Show only events for which @fn is true (NULL: all). Restarts counting. */
int vr_view_set_match(struct vr_view *v, vr_match_fn fn, void *ctx);
/* Chunk @i does not decode: from now on it is one row, a gap. */
void vr_view_set_damaged(struct vr_view *v, size_t i);
/* The damaged chunk whose gap row is @ord, or -1 when @ord is no gap. */
long vr_view_gap(const struct vr_view *v, uint64_t ord);
void vr_view_free(struct vr_view *v);
/* Take in chunks appended since (after a refresh). @return 0 or -ENOMEM. */
int vr_view_grow(struct vr_view *v);
/* Shown events, and whether the count is complete. */
uint64_t vr_view_shown(const struct vr_view *v, bool *complete);
/* First shown event at or after @ord / last before @ord, decoding at most
 * @budget chunks. @return 1 and *out, 0 when there is none, -EAGAIN when the
 * budget ran out, another negative errno on damage. */
int vr_view_first_at(struct vr_view *v, uint64_t ord, uint64_t *out, unsigned budget);
int vr_view_last_before(struct vr_view *v, uint64_t ord, uint64_t *out, unsigned budget);
/* Event @ord, borrowed until the reader moves. @return 1, or a negative errno. */
int vr_view_get(struct vr_view *v, uint64_t ord, const struct vxt_event **ev);
/* True when the event is shown (filter only; speculation is by ordinal). */
bool vr_view_matches(const struct vr_view *v, const struct vxt_event *ev, uint64_t ord);
void vr_spec_clear(struct vr_spec_set *s);
/* Store @c as the count of chunk @i (once), from its events @evs (NULL for
 * a damaged chunk), which also go into the objects' figures. */
void vr_view_set_count(struct vr_view *v, size_t i, uint32_t c, const struct vxt_event *evs,
		       size_t n);
/* Store the count of chunk @i from its decoded events (once). */
void vr_view_count(struct vr_view *v, size_t i, const struct vxt_event *evs, size_t n);
/* Next (previous) shown error after (before) @ord. @return 1 and *out, 0 none,
 * or -EAGAIN after a bounded search with *out where to go on from. */
int vr_view_next_error(struct vr_view *v, uint64_t ord, bool backward, uint64_t *out);
/* Speculation group of @ord in the view, or -1. */
long vr_spec_group_of(const struct vr_spec_set *s, uint64_t ord);

/* ---- window and timeline ---- */
/* Set the window (clamped to the file) and start re-binning to @nbins. */
void vr_model_set_window(struct vr_model *m, uint64_t w0, uint64_t w1, unsigned nbins);
/* Zoom by @factor (0.5 = in) around the cursor. */
void vr_model_zoom(struct vr_model *m, double factor);
/* Start re-binning the current window. */
void vr_model_rebin(struct vr_model *m);
/* The index pass (VR_JOB_INDEX): one turn, or what is left of it at once.
 * While it runs, the timeline, heatmap and histogram are not computed yet
 * (vr_model_indexing()). */
void vr_model_index_step(struct vr_model *m);
void vr_model_index_finish(struct vr_model *m);
static inline bool vr_model_indexing(const struct vr_model *m)
{
	return m->job[VR_JOB_INDEX].active;
}
/* The timeline to draw. */
const struct vxt_timeline *vr_model_timeline(const struct vr_model *m);
/* The heatmap of it, rebuilt when needed. */
const struct vxt_heatmap *vr_model_heatmap(struct vr_model *m);
/* The timeline the heatmap is built from: its own bins or the timeline. */
const struct vxt_timeline *vr_model_heat_timeline(const struct vr_model *m);
/* Show LBA buckets of @obj (true) or the busiest objects (false); the rows
 * cover the whole object until the binning has seen the span its I/O
 * touches, then that span (lba.c). */
void vr_model_set_lba(struct vr_model *m, bool on, uint32_t obj);

/* ---- LBA rows (lba.c) ---- */
/* Set up @tl for the LBA rows of the window with @nbins bins. @return 0 or -errno. */
int vr_lba_init(struct vr_model *m, struct vxt_timeline *tl, unsigned nbins);
/* Sectors of the LBA object (its size, or 2^31 = 1 TiB when unknown). */
uint64_t vr_lba_sectors(const struct vr_model *m);
/* The rows in use: a profile's count, else what fits, else VR_LBA_ROWS. */
unsigned vr_lba_rows(const struct vr_model *m);
/* The panel has room for @rows LBA rows (no profile count): rebin when it changed. */
void vr_lba_set_fit(struct vr_model *m, unsigned rows);
/* The binning ended: fit the rows to the touched span when asked. */
void vr_lba_binned(struct vr_model *m);
/* Zoom the sector range by @factor (0.5 = in) around sector @center
 * (UINT64_MAX = the middle); pan it by @dir half ranges; fit it to the
 * span touched again. Each rebins. */
void vr_lba_zoom(struct vr_model *m, double factor, uint64_t center);
void vr_lba_pan(struct vr_model *m, int dir);
void vr_lba_refit(struct vr_model *m);

/* ---- the cursor ---- */
/* Cursor time (the selected event's, else the window start). */
uint64_t vr_model_cursor_time(struct vr_model *m);
/* Put the cursor on the first shown event at or after @ord (else the last
 * before it), keeping the window around it. @return 1 moved, 0 nothing shown. */
int vr_model_goto_ord(struct vr_model *m, uint64_t ord);
int vr_model_goto_time(struct vr_model *m, uint64_t t);
/* Move the cursor by @n shown events (negative = up). */
int vr_model_move(struct vr_model *m, long n);
/* First / last shown event. */
int vr_model_home(struct vr_model *m);
int vr_model_end(struct vr_model *m);
/* Next / previous shown error after / before the cursor. @return 1, 0 none,
 * or -EAGAIN when the bounded search stopped (the cursor moved as far as it
 * looked; the same call goes on from there). */
int vr_model_next_error(struct vr_model *m, bool backward);
/* The list shows @page rows: keep the cursor's row inside. */
void vr_model_set_page(struct vr_model *m, unsigned page);
/* Fill @ords with the list rows from m->top (at most @max). @return rows. */
int vr_model_rows(struct vr_model *m, uint64_t *ords, int max);
/* After a change of the view, re-place the cursor near its old time. */
void vr_model_reseat(struct vr_model *m);

/* ---- marks ---- */
/* Toggle a mark on the cursor. @return true when set, false when removed. */
bool vr_model_toggle_mark(struct vr_model *m);
bool vr_model_is_marked(const struct vr_model *m, uint64_t ord);
/* Remove mark @i (of m->marks). */
void vr_model_delete_mark(struct vr_model *m, unsigned i);
/* The sidecar file of the marks (formats/marks.md): m->path + ".marks". */
void vr_marks_path(const struct vr_model *m, char *buf, size_t size);
/* Read the sidecar's marks (a missing file is no marks); marks of events
 * not in the trace are dropped and counted in m->note. @return 0, or -1 with
 * the reason in m->note (the marks read before the bad line are kept). */
int vr_marks_load(struct vr_model *m);
/* Write the marks to the sidecar (0600, never through a symlink); nothing
 * when there are none and no file yet. @return 0, or -1 with m->note set. */
int vr_marks_save(struct vr_model *m);

/* ---- jobs ---- */
bool vr_model_busy(const struct vr_model *m);
/* Run jobs for about VR_STEP_NS. @return true when something visible changed. */
bool vr_model_step(struct vr_model *m);
void vr_model_cancel(struct vr_model *m);
/* "binning 45%" for the busiest job, into @buf. @return buf or NULL when idle. */
const char *vr_model_progress(const struct vr_model *m, char *buf, size_t size);
/* Start exporting the shown events of the window to @path (.json = JSON,
 * else CSV), under vxt_outfile_open()'s rule (0600, never the trace itself);
 * an existing file is replaced only when @replace. @return 0, -EEXIST (no
 * note: the caller asks), or a negative errno (message in m->note). */
int vr_model_export(struct vr_model *m, const char *path, bool replace);
/* Show the speculation view, starting its pass if needed (see spec.c).
 * @return 0 or a negative errno (message in m->note). */
int vr_model_spec_start(struct vr_model *m);
/* One step of the speculation job @j (a chunk through the pipeline). */
void vr_spec_step(struct vr_model *m, struct vr_job *j);
/* Count the shown completions of the window per process (m->procs), in
 * steps; a count of the same window and view is kept. */
void vr_model_procs_start(struct vr_model *m);
/* The list shows completed I/Os only (@on) or every event; the filter
 * still applies. @return 0 or -ENOMEM. */
int vr_model_set_io_only(struct vr_model *m, bool on);
/* Forget the speculation result (the rules changed). */
void vr_model_spec_reset(struct vr_model *m);

/* ---- heatmap bins and slow marks (extra.c) ---- */
/* True when the heatmap has bins of its own (heat_bins below nbins). */
bool vr_heat_separate(const struct vr_model *m);
/* Set up the heatmap's bins and the slow marks for the window (at a rebin).
 * @return 0 or -1 (out of memory: neither is shown). */
int vr_extra_init(struct vr_model *m);
void vr_extra_free(struct vr_model *m);
/* Count chunk @ci from its index, where that is exact (no filter, no speculation). */
void vr_extra_index(struct vr_model *m, const struct vxt_chunk_info *ci);
/* After vr_extra_index() of every chunk: the estimate gets the exact part too. */
void vr_extra_index_done(struct vr_model *m);
/* Add the counts of @from into @to, two timelines of the same window, bins
 * and rows. */
void vr_tl_sum_into(struct vxt_timeline *to, const struct vxt_timeline *from);
/* The same, into the estimate only (@est) or the exact figures only. */
void vr_extra_index_part(struct vr_model *m, const struct vxt_chunk_info *ci, bool est);
/* What chunk @ci must be decoded for beyond the timeline; 0 = nothing. */
unsigned vr_extra_needs(const struct vr_model *m, const struct vxt_chunk_info *ci,
			bool index_ok);
/* Count one shown event of a chunk decoded for @need. */
void vr_extra_add(struct vr_model *m, unsigned need, const struct vxt_event *ev);

/* ---- job scanners (scan.c) ---- */
/* Chunk @i for job @kind with @fields decoded (VXT_FIELD_*), from the job's
 * scanner, started or restarted as needed; chunks are best asked in order.
 * @return its events (borrowed until the next call for @kind), or NULL with
 * the reason in m->note. */
/* A job met damaged chunk @i (@msg names it): counted once, noted, skipped. */
void vr_note_damage(struct vr_model *m, size_t i, const char *msg);
const struct vxt_event *vr_scan_chunk(struct vr_model *m, int kind, size_t i, unsigned fields,
				      size_t *n);
/* Chunk @i with @fields decoded in this thread, on the job reader (which
 * then decodes every field again). @return as vr_scan_chunk(). */
const struct vxt_event *vr_job_decode(struct vr_model *m, size_t i, unsigned fields, size_t *n);
void vr_scan_stop(struct vr_model *m, int kind);
void vr_scan_stop_all(struct vr_model *m);
/* Stop the scanners of jobs that ended. */
void vr_scan_stop_idle(struct vr_model *m);

/* ---- profiles (profile.c) ---- */
/* Apply profile @name ("" = none): its filter, speculation (shown at once),
 * heatmap and thresholds; list columns by @colparse. @return 0, or -1 with a
 * message in @err and nothing changed. */
int vr_profile_apply(struct vr_model *m, const char *name, int (*colparse)(const char *),
		     char *err, size_t errsz);
/* The description: of profile @name on one line (white space runs become
 * one space), or why it does not load, into @buf. */
void vr_profile_describe(const struct vr_model *m, const char *name, char *buf, size_t size);
/* Names of the profiles found (at most @max). @return how many. */
int vr_profile_names(const struct vr_model *m, char (*names)[64], int max);

/* ---- filter and search expressions (filter.c) ---- */
/* Compile @text into m->filter and apply it to the view ("" clears).
 * @return 0, or -1 with the message in @err and nothing changed. */
int vr_filter_set(struct vr_model *m, const char *text, char *err, size_t errsz);
/* Compile a search expression. @return the filter, or NULL with @err set. */
struct vxt_filter *vr_search_compile(struct vr_model *m, const char *text, char *err,
				     size_t errsz);
bool vr_search_matches(struct vxt_filter *f, const struct vxt_event *ev);
void vr_search_free(struct vxt_filter *f);

#endif
