/* export.h - vxreplay's exports to other tools' formats and the HTML report
 *
 * An export writes every event in the scope of a struct report_ctx (time
 * range, object, and whatever keep filter the context carries) to c->out:
 *   csv       one row per event, the events report's columns (vxt(5))
 *   jsonl     one JSON object per line, the events report's keys (vxt(5))
 *   chrome    Chrome trace-event JSON (Perfetto, chrome://tracing): a
 *             complete event per I/O on lanes per object, errors as instants
 *   blktrace  blktrace's binary records (blkparse -i -, btt -i)
 *   clickhouse+http://HOST:PORT/DB.TABLE   rows in a ClickHouse table
 * The HTML report is one self-contained page with inline SVG figures.
 */
#ifndef VXREPLAY_EXPORT_H
#define VXREPLAY_EXPORT_H

#include "report/report.h"

enum export_format { EXPORT_CSV, EXPORT_JSONL, EXPORT_CHROME, EXPORT_BLKTRACE,
		     EXPORT_CLICKHOUSE };

/* @return the format named @s, or -1. */
int export_parse(const char *s);
/* True when the format is binary (refused on a terminal). */
bool export_is_binary(enum export_format f);
/* Write the events in scope as @f. @return 0, or 1 after printing why. */
int export_run(struct report_ctx *c, enum export_format f);
/* The blktrace export (export_blktrace.c). @return 0, or 1 after printing why. */
int export_blktrace(struct report_ctx *c);
/* --export clickhouse+http://...: the events in scope into a ClickHouse table
 * (export_clickhouse.c, options in c->sink). @return 0, or 1 after printing why. */
int export_clickhouse(struct report_ctx *c);
/* The HTML report: error timeline, per-object heatmap, object table.
 * @return 0, or 1 after printing why. */
int report_html(struct report_ctx *c);

#endif
