/* clickhouse.h - shipping events to a ClickHouse table over HTTP (libcurl)
 *
 * Rows go in batches, in ClickHouse's RowBinary format, into a table made
 * with the schema of formats/clickhouse.md when it does not exist (a table
 * that exists with other columns is refused). Every row carries the trace's
 * id and the event's ordinal in its trace; the table is a ReplacingMergeTree
 * on (host, object, time, trace, seq), so a batch sent twice (the server died
 * before it answered) leaves one copy once merged, and `FINAL` counts exactly.
 *
 *   struct vxt_ch *ch = vxt_ch_open("clickhouse+http://127.0.0.1:8123/vx.events",
 *                                   &opts, err);
 *   vxt_ch_set_trace(ch, vxt_reader_info(r));
 *   while (more events) {
 *           vxt_ch_add(ch, objs, strs, ev, ordinal);
 *           if (vxt_ch_full(ch) && vxt_ch_send(ch, deadline, NULL) < 0)
 *                   die("%s", vxt_ch_error(ch));
 *   }
 *   vxt_ch_send(ch, deadline, NULL);           // the last, partial batch
 *   vxt_ch_close(ch);
 */
#ifndef VXTRACE_CLICKHOUSE_H
#define VXTRACE_CLICKHOUSE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "objtab.h"
#include "strtab.h"
#include "util.h"
#include "vxt.h"

struct vxt_ch_opts {
	size_t batch;			/* rows per insert; 0 = 65536 */
	uint64_t timeout_ms;		/* one request; 0 = 10000 */
	const char *user;		/* NULL = the server's default user */
	const char *password;		/* NULL = none (never from a command line) */
};

struct vxt_ch;

/*
 * Parse @url ("clickhouse+http://HOST:PORT/DB.TABLE", or clickhouse+https),
 * reach the server, create DB and TABLE when missing and check the table's
 * columns. @return the sink (caller frees with vxt_ch_close()), or NULL with a
 * message in @err naming the URL.
 */
struct vxt_ch *vxt_ch_open(const char *url, const struct vxt_ch_opts *o,
			   char err[VXT_ERRBUF_SIZE]);
/* True when @url has the form vxt_ch_open() takes (nothing is contacted). */
bool vxt_ch_url_ok(const char *url);
/* NULL is fine. Rows not sent are dropped (send them first). */
void vxt_ch_close(struct vxt_ch *ch);

/* The trace the next rows come from: its host, clock anchor and id (a hash
 * of the header). Rows already added keep theirs. Can't fail. */
void vxt_ch_set_trace(struct vxt_ch *ch, const struct vxt_file_info *info);
/* Add one event numbered @seq in its trace to the batch.
 * @return 0 or -ENOMEM. */
int vxt_ch_add(struct vxt_ch *ch, const struct vxt_objtab *objs,
	       const struct vxt_strtab *strs, const struct vxt_event *ev, uint64_t seq);
/* True when the batch has its size. */
bool vxt_ch_full(const struct vxt_ch *ch);
/* Rows in the batch. */
size_t vxt_ch_pending(const struct vxt_ch *ch);

/*
 * Insert the batch. A failure that may pass (no connection, a timeout, a
 * connection closed mid-batch, an HTTP 5xx) is retried with a backoff from
 * 100 ms doubling to 5 s until CLOCK_MONOTONIC passes @give_up_ns (0: one
 * try) or *@stop is set. @return 0 (batch empty), -EAGAIN when it gave up,
 * another negative errno for a failure that cannot pass; the batch stays and
 * vxt_ch_error() says why.
 */
int vxt_ch_send(struct vxt_ch *ch, uint64_t give_up_ns, volatile sig_atomic_t *stop);
/* Rows the server acknowledged so far, and inserts that had to be retried. */
uint64_t vxt_ch_rows_sent(const struct vxt_ch *ch);
uint64_t vxt_ch_retries(const struct vxt_ch *ch);
/* The last error, borrowed until the next call. */
const char *vxt_ch_error(const struct vxt_ch *ch);

/* The password: the first line of @file when given, else the environment's
 * VXT_CLICKHOUSE_PASSWORD, else none (*@buf = 0). @return 0, or -1 with a
 * message in @err naming the file. */
int vxt_ch_password(const char *file, char *buf, size_t size, char err[VXT_ERRBUF_SIZE]);

/* The table's CREATE statement for DB.TABLE into @buf. @return buf. */
char *vxt_ch_schema(const char *db, const char *table, char *buf, size_t size);

#endif
