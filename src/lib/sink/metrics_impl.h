/* metrics_impl.h - the metric set's state, shared by metrics.c (feeding,
 * publishing) and metrics_text.c (rendering)
 *
 * The live struct metrics_state is touched only by the collecting thread.
 * Publishing copies it into a snapshot of its own (no lock held) and swaps
 * that in as the published one under the lock, a pointer swap; a renderer
 * takes a reference to the published snapshot under the lock and renders it
 * without: neither side ever waits for the other's copy or render. A
 * snapshot no one refers to any more is kept as the next one to fill.
 */
#ifndef SINK_METRICS_IMPL_H
#define SINK_METRICS_IMPL_H

#include <pthread.h>

#include "vxtrace/flight.h"
#include "vxtrace/iopair.h"
#include "vxtrace/metrics.h"

/* One (object, op) pair; buckets are per bucket, not cumulative. */
struct metrics_series {
	uint32_t object;
	uint8_t op;
	uint64_t completed, bytes, started;
	uint64_t closed;		/* issues closed by a lost event naming them,
					 * or aged out after one naming none */
	uint64_t lat_count, lat_sum_ns;
	uint64_t bucket[VXT_METRICS_BUCKETS + 1];	/* the last one is +Inf */
	/* queue to completion (metrics_q2c.c), where queue events come */
	uint64_t q2c_count, q2c_sum_ns;
	uint64_t q2c_bucket[VXT_METRICS_BUCKETS + 1];
	uint64_t looked;	/* started + completed at the last look (metrics_gone.c) */
};

/* Failed completions of one (object, op) with one errno. */
struct metrics_error {
	uint32_t object;
	uint8_t op;
	int16_t error;
	uint64_t n;
};

struct metrics_state {
	struct metrics_series *ser;
	size_t nser, cap_ser;
	struct metrics_error *err;
	size_t nerr, cap_err;
	char (*names)[VXT_OBJ_NAME_MAX];	/* by object id */
	size_t nnames, cap_names;
	uint64_t events, lost_stream, lost_source;
	bool has_view;
	struct vxt_view_stats view;
	bool has_queue;			/* a queue event was seen: Q2C is shown */
};

/* A published state and the references to it (the published pointer and
 * renders in progress). */
struct metrics_snap {
	struct metrics_state st;
	unsigned refs;
};

struct vxt_metrics {
	struct metrics_state live;
	struct metrics_snap *pub;	/* the published snapshot, or NULL */
	struct metrics_snap *spare;	/* one no one refers to, or NULL */
	uint32_t *index;		/* object * VXT_OP_COUNT + op -> series + 1 */
	size_t nindex;
	size_t last_err;		/* the error entry hit last */
	uint64_t published_ns;
	struct metrics_q2c *q2c;	/* the queued bios waiting for completion */
	pthread_mutex_t lock;		/* guards pub, spare and refs */
	/* metrics_gone.c: the objects are this system's devices */
	bool system_objects;
	bool tallied;			/* fed by vxt_metrics_set_tally() */
	const struct vxt_objtab *objs;	/* borrowed: the last one fed */
	uint64_t looked_ns;
	struct metrics_dropped *dropped;	/* tallied series removed */
	size_t ndropped, cap_dropped;
	/* metrics_age.c: the issues in flight (vxtop's table, flight.h) */
	struct vxt_flight *inflight;
	uint64_t aged_mark;		/* the lost mark already swept */
	uint64_t age_next;		/* the next sweep for the age bound */
	uint64_t last_ns, last_mono;	/* the newest event's time, and the clock then */
};

/* A tallied series removed with its device, and its count then: the
 * kernel's counts still hold it, and it comes back only when they move. */
struct metrics_dropped {
	uint32_t object;
	uint8_t op;
	uint64_t activity;	/* started + completed */
};

/* The published snapshot with a reference taken (NULL before the first
 * publication); give it back with metrics_snap_put(). */
struct metrics_snap *metrics_snap_get(struct vxt_metrics *m);
void metrics_snap_put(struct vxt_metrics *m, struct metrics_snap *s);

/* The live series of (@object, @op), made (with the object's name from
 * @objs) on first sight. @return it, or NULL when out of memory. */
struct metrics_series *metrics_series_of(struct vxt_metrics *m, const struct vxt_objtab *objs,
					 uint32_t object, unsigned op);

/* Copy @src into @dst, growing its arrays. @return 0 or -ENOMEM. */
int metrics_state_copy(struct metrics_state *dst, const struct metrics_state *src);
/* Free the arrays of @s (not @s). */
void metrics_state_free(struct metrics_state *s);

/* The histogram bucket of a latency of @ns: the smallest k with ns <= 2^k us
 * (VXT_METRICS_BUCKETS: +Inf). */
unsigned metrics_bucket_of(uint64_t ns);
/* metrics_q2c.c: queue, split and remap events go to the pairer (pairer.h:
 * btt's rule, a completion ends every pending queue its range holds), and
 * each completion's Q2C into its series. @return 0 or -ENOMEM. */
int metrics_q2c_queue(struct vxt_metrics *m, const struct vxt_event *ev);
int metrics_q2c_done(struct vxt_metrics *m, const struct vxt_event *ev,
		      struct metrics_series *ser);
void metrics_q2c_free(struct metrics_q2c *q);

/* metrics_age.c: follow the issues in flight (starts, completions, lost
 * events) of event @ev. @return VXT_FLIGHT_GONE for a lost event naming, or
 * a completion of, an issue the rules closed already (flight.h), else 0,
 * or -ENOMEM. */
int metrics_age_feed(struct vxt_metrics *m, const struct vxt_event *ev);
/* The rules of flight.h at @now_ns (the events' clock): the issues from
 * before the newest lost event naming no I/O still in flight
 * VXT_LOST_GRACE_NS after it, and those older than VXT_FLIGHT_AGE_NS (looked
 * for once a second), are closed (counted in their series' closed).
 * @return the number closed. Can't fail. */
uint64_t metrics_age(struct vxt_metrics *m, uint64_t now_ns);
void metrics_age_free(struct vxt_metrics *m);

/* metrics_gone.c: look for objects gone from the system (sysfs) whose
 * series saw nothing since the last look, and remove their series and error
 * counts. @return the number of objects removed, or -ENOMEM. */
int metrics_gone_look(struct vxt_metrics *m);
/* Is the tally of (@object, @op) at @activity one removed with its device
 * that has not moved since? A moved one is forgotten (returns false). */
bool metrics_gone_dropped(struct vxt_metrics *m, uint32_t object, unsigned op,
			  uint64_t activity);
/* Does @object have no series, having had some removed? */
bool metrics_gone_object(const struct vxt_metrics *m, uint32_t object);

#endif
