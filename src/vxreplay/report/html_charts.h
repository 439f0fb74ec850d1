/* html_charts.h - the HTML report's over-time charts and latency histogram
 */
#ifndef VXREPLAY_REPORT_HTML_CHARTS_H
#define VXREPLAY_REPORT_HTML_CHARTS_H

#include <stdint.h>
#include <stdio.h>

#include "vxtrace/timeline.h"

/* IOPS, MiB/s and p50 / p99 latency per interval of @tl, as SVG; times from @start_ns. */
/* @partial: the I/O in scope is only what a profile or script kept (at
 * record or replay time): an interval without any event was not captured,
 * and is drawn so, not as zero. */
void html_over_time(FILE *out, const struct vxt_timeline *tl, uint64_t start_ns, bool partial);
/* The latency histogram of @tl's completions, and a table of it with a
 * column per busiest object (named by @name). */
void html_latency_histogram(FILE *out, const struct vxt_timeline *tl,
			    const char *(*name)(void *ctx, uint32_t id), void *ctx);
struct vxt_breakdown;
/* btt's intervals of @b (all objects): N, min, avg, max, p50, p99. */
void html_breakdown(FILE *out, const struct vxt_breakdown *b);
/* @s escaped for HTML (export_html.c). */
void html_text(FILE *out, const char *s);

#endif
