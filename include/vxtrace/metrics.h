/* metrics.h - live I/O metrics for Prometheus: counters, gauges and latency
 * histograms per object and op, served over HTTP on /metrics
 *
 * The collecting thread feeds events and publishes a snapshot now and then;
 * the HTTP server (its own thread) renders only the published snapshot, so a
 * scrape never races the collector and never sees a half-fed batch. The
 * metric names and the formats are in formats/metrics.md.
 *
 *   struct vxt_metrics *m = vxt_metrics_new();
 *   struct vxt_metrics_server *srv = vxt_metrics_serve(m, "127.0.0.1:9123", false, err);
 *   for (;;) {
 *           ... get a batch ...
 *           vxt_metrics_feed(m, objs, batch.ev, batch.n);
 *           vxt_metrics_tick(m);            // publishes every 100 ms
 *   }
 *   vxt_metrics_server_stop(srv);
 *   vxt_metrics_free(m);
 */
#ifndef VXTRACE_METRICS_H
#define VXTRACE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "objtab.h"
#include "source.h"
#include "util.h"
#include "view.h"

/* The latency histogram's finite buckets: le = 2^k microseconds, k = 0..24
 * (1 us .. 16.777216 s), then +Inf. */
#define VXT_METRICS_BUCKETS 25

enum vxt_metrics_format {
	VXT_METRICS_PROMETHEUS = 0,	/* text/plain; version=0.0.4 */
	VXT_METRICS_OPENMETRICS = 1,	/* application/openmetrics-text; version=1.0.0 */
};

struct vxt_metrics;
struct vxt_metrics_server;

/* @return an empty metric set (caller frees with vxt_metrics_free()), or NULL
 * when out of memory. */
struct vxt_metrics *vxt_metrics_new(void);
/* NULL is fine. Stop the server that serves @m first. */
void vxt_metrics_free(struct vxt_metrics *m);

/* Count @n events (collector thread only). Object names are taken from @objs
 * the first time an object is seen. @return 0 or -ENOMEM. */
int vxt_metrics_feed(struct vxt_metrics *m, const struct vxt_objtab *objs,
		     const struct vxt_event *ev, size_t n);
/* Instead of events: the kernel's counts since the source opened (the ebpf
 * source counting in BPF maps, vxt_source_tally()); each series and error
 * count is set to them. Events fed as well add to the same series.
 * @return 0 or -ENOMEM. */
int vxt_metrics_set_tally(struct vxt_metrics *m, const struct vxt_objtab *objs,
			  const struct vxt_tallies *t);
/* The source's own count of lost events; the lost counter shows the larger
 * of it and the lost markers fed. Can't fail. */
void vxt_metrics_set_lost(struct vxt_metrics *m, uint64_t lost);
/* The figures of the view (profile, filter) the events fed went through:
 * events in and kept, and its speculations when it has any. NULL: no view.
 * Can't fail. */
void vxt_metrics_set_view(struct vxt_metrics *m, const struct vxt_view_stats *st);

/* The objects fed are this system's block devices (a live capture, not a
 * file or the simulator): every 10 s, vxt_metrics_tick() removes the series
 * and error counts of a device gone from the system whose series saw nothing
 * since the previous look; one that comes back starts new series.
 * Can't fail. */
void vxt_metrics_system_objects(struct vxt_metrics *m);

/* Make what was fed so far the snapshot that scrapes see.
 * @return 0 or -ENOMEM (the previous snapshot stays). */
int vxt_metrics_publish(struct vxt_metrics *m);
/* Publish when the last publication is 100 ms old or more (and look for
 * devices gone, see above). @return as above. */
int vxt_metrics_tick(struct vxt_metrics *m);

/* Render the published snapshot (any thread). @return 0 with a malloc'd text
 * in *@out (caller frees) of *@len bytes, or -ENOMEM. */
int vxt_metrics_render(struct vxt_metrics *m, enum vxt_metrics_format fmt, char **out,
		       size_t *len);
/* The format an HTTP Accept header asks for (NULL: Prometheus text).
 * Can't fail. */
enum vxt_metrics_format vxt_metrics_negotiate(const char *accept);
/* The Content-Type of @fmt. Can't fail. */
const char *vxt_metrics_content_type(enum vxt_metrics_format fmt);

/*
 * Serve @m on http://@addr/metrics from a thread of its own. @addr is
 * "HOST:PORT", "[IPV6]:PORT" or "PORT" (127.0.0.1); port 0 picks a free one.
 * A non-loopback address is refused unless @allow_remote.
 * @return the server (stop it with vxt_metrics_server_stop()), or NULL with
 * a message in @err ("metrics on 127.0.0.1:9123: Address already in use")
 * and errno set: EINVAL for an address that is malformed or refused, else
 * the socket's errno (EADDRINUSE ...).
 */
struct vxt_metrics_server *vxt_metrics_serve(struct vxt_metrics *m, const char *addr,
					     bool allow_remote, char err[VXT_ERRBUF_SIZE]);
/* The port served (useful after port 0). */
unsigned vxt_metrics_server_port(const struct vxt_metrics_server *s);
/* Stop serving and free @s; NULL is fine. */
void vxt_metrics_server_stop(struct vxt_metrics_server *s);

#endif
