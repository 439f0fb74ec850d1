/* model.h - vxtop's interval model: what happened per object, interval by interval
 *
 * Events go in (vxtop_model_feed), intervals are closed by the caller at a
 * point in source time (vxtop_model_close), and every closed interval is kept
 * in a ring of per-object snapshots for the table, sparklines and heatmaps.
 * Errors are kept in a ring of their own with per-object, per-errno counts.
 * Totals since start go through struct vxt_stats. No curses here.
 */
#ifndef VXTOP_MODEL_H
#define VXTOP_MODEL_H

#include "vxtrace/flight.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/iopair.h"
#include "vxtrace/vxtrace.h"

#define VXTOP_MB 1048576.0	/* the MB of rMB/s and wMB/s: iostat's, 2^20 bytes */
#define VXTOP_LBA_BUCKETS 32	/* address space slices per object */
#define VXTOP_RING 300		/* closed intervals kept (5 minutes at 1 s) */
#define VXTOP_ERR_RING 1024	/* newest errors kept */
#define VXTOP_ERR_KINDS 256	/* distinct (object, errno) pairs counted */
/* An I/O started this long ago and never completed, requeued or failed is
 * no longer counted in flight (the block layer's default request timeout:
 * by then the kernel has completed or failed it, so its completion was not
 * seen). It is counted in aged_out instead, as is the oldest of an object
 * with more in flight than its device holds. */
#define VXTOP_INFLIGHT_AGE_NS VXT_FLIGHT_AGE_NS
/* A start from before a lost event that names no I/O, still without its
 * completion this long after that event, is taken for one whose completion
 * was among those lost: out of flight (the rule of vxt_lost_mark_due(),
 * shared with /metrics). It and the I/Os a lost event names are counted in
 * closed_by_loss, by the stats of the whole run (m->total): the figure and
 * the rule of vxreplay's summary (closed_by_loss, formats/reports.md). */
#define VXTOP_LOST_GRACE_NS VXT_LOST_GRACE_NS

/* One object over one closed interval. */
struct vxtop_osnap {
	uint64_t ios[VXT_OP_COUNT];	/* completed I/Os by op */
	uint64_t bytes_read, bytes_written;
	uint64_t errors;
	uint64_t busy_ns;		/* time with I/O in flight */
	uint64_t lat_n, lat_sum;	/* completed I/Os with a latency */
	uint64_t lat_p50, lat_p99, lat_max;
	uint32_t in_flight;		/* at the end of the interval */
	uint32_t aged_out;		/* starts aged out at the end of the interval */
	int64_t closed_by_loss;		/* the stats' I/Os closed by loss: the change
					 * in the interval (below 0 when more came
					 * after all than were closed) */
	uint64_t unpaired_done;		/* completions of no start in flight */
	uint32_t lba[VXTOP_LBA_BUCKETS];	/* completed I/Os by address slice */
	/* iostat -x (formats/vxtop-json.md): per op, the completions with a
	 * request time and its sum (Q2C when the queueing was seen, else D2C) */
	uint64_t rq_n[VXT_OP_COUNT], rq_sum[VXT_OP_COUNT];
	uint64_t bytes_discarded;
	uint64_t merges[2];		/* bios merged into a read / write request */
	uint64_t q2c_n, q2c_sum;	/* completions paired with their queueing */
};

/* One closed interval. */
struct vxtop_snap {
	uint64_t seq;			/* 0 for the first interval */
	uint64_t start_ns, end_ns;	/* source time */
	uint64_t real_end_ns;		/* wall clock at the end */
	uint64_t events;		/* events fed */
	uint64_t lost;			/* events the source lost */
	uint64_t errors;
	size_t nobj;
	struct vxtop_osnap *obj;	/* indexed by object id */
};

/* Per-object state that spans intervals. */
struct vxtop_obj {
	int64_t in_flight;		/* entries in the model's inflight table */
	uint64_t busy_mark;		/* busy time counted up to here */
	uint64_t max_sector;		/* highest sector seen + length */
	unsigned idle;			/* closed intervals in a row without I/O */
	uint64_t events;		/* events in the open interval */
	bool seen;			/* had an event */
	struct vxtop_osnap acc;		/* the open interval */
	struct vxt_latdist lat;		/* the open interval's latencies */
	struct vxt_latdist last_lat;	/* the last closed interval's latencies */
	uint64_t kernel_errors;		/* --maps: failed completions the kernel counted */
	uint64_t queue_max;		/* requests its device holds at most (0: not
					 * known); more in flight: the oldest lost */
	bool queue_asked;		/* queue_max was looked up */
	uint64_t lost_ios_seen;		/* m->total's lost_ios at the last close */
};

struct vxtop_err {
	uint64_t time_ns;
	uint64_t real_ns;		/* wall clock, through the clock anchor */
	uint64_t sector;
	uint32_t object;
	uint32_t bytes;
	uint32_t pid;
	uint32_t comm;
	int16_t error;
	uint8_t op;
};

struct vxtop_errkind {
	uint32_t object;
	int16_t error;
	uint64_t count;
	uint64_t last_ns;
};

struct vxtop_model {
	const struct vxt_objtab *objs;	/* borrowed */
	/* I/Os in flight (flight.h, the table /metrics keeps too):
	 * obj[id].in_flight is the number of object id's entries. */
	struct vxt_flight *inflight;
	/* bios queued (Q) and not yet issued or merged: key as inflight, value:
	 * the queue time */
	struct vxt_iopair *queued;
	bool queue_seen;		/* the stream carries queue-side phases (Q, M,
					 * G, I): merges and Q2C are known */
	uint64_t aged_out;		/* since start */
	/* live: the requests device @dev holds at most (vxt_sysdev_queue_max()),
	 * asked once per object; NULL (a file): no bound */
	int (*queue_max)(uint32_t dev, uint64_t *n);
	uint64_t interval_ns;
	bool partial;			/* a subset of the I/O (speculation): a start
					 * may never see its completion */
	uint64_t cur_start;		/* the open interval, source time */
	uint64_t cur_events, cur_lost, cur_errors;
	uint64_t anchor_mono, anchor_real;	/* source time -> wall clock */
	size_t nobj, capobj;
	struct vxtop_obj *obj;
	/* closed intervals: ring[(first + i) % VXTOP_RING], i < nsnap */
	struct vxtop_snap ring[VXTOP_RING];
	size_t first, nsnap;
	uint64_t next_seq;
	/* errors */
	struct vxtop_err errs[VXTOP_ERR_RING];
	uint64_t nerrs;			/* errors seen; errs holds the newest */
	struct vxtop_errkind kinds[VXTOP_ERR_KINDS];
	size_t nkinds;
	/* per process and object (biotop's rows): the open interval, and the
	 * last closed one sorted busiest first */
	struct vxt_procstats procs, last_procs;
	/* since start */
	struct vxt_stats total;
	/* --maps: the kernel's counts as last taken, per object * VXT_OP_COUNT
	 * + op, and per (object, op, errno) */
	bool tallied;			/* fed by vxtop_model_tally(), not events */
	struct vxt_tally *tprev;
	size_t ntprev;
	struct vxt_tally_error *eprev;
	size_t neprev, capeprev;
};

/* Set up @m for objects in @objs (borrowed) starting at source time @start_ns.
 * @return 0 or -ENOMEM. */
int vxtop_model_init(struct vxtop_model *m, const struct vxt_objtab *objs,
		     uint64_t interval_ns, uint64_t start_ns);
void vxtop_model_free(struct vxtop_model *m);
/* Source time -> wall clock mapping for error times. */
void vxtop_model_set_anchor(struct vxtop_model *m, uint64_t mono_ns, uint64_t real_ns);
/* Restart the open interval at @start_ns, dropping what it collected. */
void vxtop_model_restart(struct vxtop_model *m, uint64_t start_ns);
/* Account @n events to the open interval. @return 0 or -ENOMEM. */
int vxtop_model_feed(struct vxtop_model *m, const struct vxt_event *ev, size_t n);
/* The end of the open interval in source time; UINT64_MAX when it would pass
 * the end of time (a crafted file's times near 2^64). */
static inline uint64_t vxtop_model_cur_end(const struct vxtop_model *m)
{
	return m->cur_start > UINT64_MAX - m->interval_ns ? UINT64_MAX
							  : m->cur_start + m->interval_ns;
}
/* Make room for object @id in m->obj. @return 0 or -ENOMEM. */
int vxtop_model_grow(struct vxtop_model *m, uint32_t id);
/* Account the kernel's counts @t (cumulative since the source opened; only
 * what grew since the last call goes into the open interval): completions,
 * bytes, errors, latencies and in-flight I/Os; no busy time, address slices
 * or error list (those need events). @return 0 or -ENOMEM. */
int vxtop_model_tally(struct vxtop_model *m, const struct vxt_tallies *t);
/* Close the open interval at source time @end_ns and open the next one there;
 * starts older than VXTOP_INFLIGHT_AGE_NS age out. @return 0 or -ENOMEM. */
int vxtop_model_close(struct vxtop_model *m, uint64_t end_ns);
/* Change the interval length; applies to the open interval. */
void vxtop_model_set_interval(struct vxtop_model *m, uint64_t interval_ns);

/* @return the closed interval @back steps before the newest (0 = newest), or
 * NULL. Borrowed until the next vxtop_model_close(). */
const struct vxtop_snap *vxtop_model_snap(const struct vxtop_model *m, size_t back);
/* @return object @id in snapshot @s, or NULL when @s predates it. */
static inline const struct vxtop_osnap *vxtop_snap_obj(const struct vxtop_snap *s, uint32_t id)
{
	return s && id < s->nobj ? &s->obj[id] : NULL;
}
/* @return the error @back steps before the newest (0 = newest), or NULL. */
const struct vxtop_err *vxtop_model_err(const struct vxtop_model *m, uint64_t back);
/* Errors since start on object @id (every object for UINT32_MAX). */
uint64_t vxtop_model_obj_errors(const struct vxtop_model *m, uint32_t id);
/* The I/Os closed by loss since start (vxreplay's closed_by_loss, whose
 * rule the model's stats keep). */
uint64_t vxtop_model_closed_by_loss(const struct vxtop_model *m);
/* Number of objects the model knows (table count or fed ids). */
size_t vxtop_model_nobjects(const struct vxtop_model *m);

/* ---- rows: what the table and the batch output show ---- */

enum vxtop_col {
	VXTOP_COL_NAME,
	VXTOP_COL_RPS,
	VXTOP_COL_WPS,
	VXTOP_COL_RMBS,
	VXTOP_COL_WMBS,
	VXTOP_COL_AVG,
	VXTOP_COL_P99,
	VXTOP_COL_QD,
	VXTOP_COL_UTIL,
	VXTOP_COL_ERR,
	VXTOP_COL_COUNT
};

struct vxtop_row {
	uint32_t object;
	const char *name;		/* borrowed from the object table */
	double v[VXTOP_COL_COUNT];	/* figures (NAME unused) */
	double key;			/* sort key after fading */
	unsigned idle;			/* intervals without I/O (0 = active now) */
	uint64_t errors_total;
	uint32_t aged_out;		/* starts aged out in the interval */
	int64_t closed_by_loss;		/* the change of the I/Os closed by loss */
	double dps, fps;		/* discards and flushes per second */
	bool has_lat;			/* completions with a latency in the interval */
	/* iostat -x: awaits in ms (negative: no such completion), aqu-sz,
	 * areq-sz in kB (1024 bytes), merges per second (negative: not captured),
	 * Q2C and D2C means in ns (negative: none / not captured) */
	double r_await, w_await, d_await, f_await;
	double aqu_sz, areq_sz;
	double rrqm_s, wrqm_s;
	double q2c_avg, d2c_avg;
};

/* Short column title ("r/s") and long name ("reads per second"). */
const char *vxtop_col_title(unsigned col);
const char *vxtop_col_name(unsigned col);
/* Column by title or short name ("r/s", "util", "p99"); @return it or -1. */
int vxtop_col_parse(const char *s);

/* Figures of object @id in snapshot @s. Can't fail. */
void vxtop_row_fill(const struct vxtop_model *m, const struct vxtop_snap *s, uint32_t id,
		    struct vxtop_row *r);

struct vxtop_view {
	unsigned sort_col;		/* enum vxtop_col */
	bool ascending;			/* default: names ascending, figures descending */
	bool by_id;			/* object order, ignore sort_col (batch default) */
	const char *glob;		/* name filter (fnmatch), NULL or "" = all */
};

/* Rows of snapshot @s (NULL = all zero) that pass @v's filter, sorted; idle
 * objects sink gradually (their key halves each idle interval) instead of
 * jumping. @rows has room for vxtop_model_nobjects() rows.
 * @return the number of rows. */
size_t vxtop_rows(const struct vxtop_model *m, const struct vxtop_snap *s,
		  const struct vxtop_view *v, struct vxtop_row *rows);

#endif
