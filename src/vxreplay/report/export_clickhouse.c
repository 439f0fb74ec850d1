/* export_clickhouse.c - vxreplay --export clickhouse+http://HOST:PORT/DB.TABLE:
 * the events in scope inserted into a ClickHouse table in batches
 *
 * Each row carries the file's trace id and the event's ordinal in the file
 * (of several files, the event's own file's host, object, time, trace and
 * ordinal: the row that file exported alone gives), so exporting the same
 * file again, alone or with others, or a batch that is sent again after the
 * server went away, adds no row once the table has merged
 * (formats/clickhouse.md).
 * A batch the server cannot take is retried with backoff for --sink-retry;
 * then the export stops with one line, and the file is untouched.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/export.h"
#include "vxtrace/clickhouse.h"

int export_clickhouse(struct report_ctx *c)
{
	const struct sink_opts *so = c->sink;
	struct vxt_ch_opts co = { .batch = so->batch, .timeout_ms = so->timeout_ms,
				  .user = so->user };
	char err[VXT_ERRBUF_SIZE], pw[256];
	const struct vxt_event *ev;
	uint64_t events = 0, errors = 0, started = vxt_now_mono();
	const struct vxt_reader *file = NULL;
	struct vxt_ch *ch;
	int rc;

	if (vxt_ch_password(so->password_file, pw, sizeof(pw), err) < 0) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 1;
	}
	co.password = pw[0] ? pw : NULL;
	ch = vxt_ch_open(so->url, &co, err);
	if (!ch) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return 1;
	}
	if (report_scope_begin(c) < 0)
		goto fail_quiet;
	while ((rc = report_scope_next(c, &ev)) == 1) {
		struct vxt_origin o;
		struct vxt_event e;

		/* several files: the row is the one the event's own file gives */
		if (vxt_reader_origin(c->r, report_scope_ordinal(c), ev, &o) < 0) {
			fprintf(stderr, "vxreplay: %s\n", vxt_reader_error(c->r));
			goto fail_quiet;
		}
		if (o.hole)
			continue;	/* a damaged chunk's event: its file alone gives no row */
		if (o.file != file) {
			vxt_ch_set_trace(ch, vxt_reader_info(o.file));
			file = o.file;
		}
		e = *ev;
		e.time_ns = o.time_ns;
		e.object = o.object;
		e.comm = o.comm;
		if (vxt_ch_add(ch, vxt_reader_objects(o.file), vxt_reader_strings(o.file), &e,
			       o.ordinal) < 0)
			goto fail;
		events++;
		errors += ev->error != 0;
		if (vxt_ch_full(ch) && vxt_ch_send(ch, vxt_now_mono() + so->retry_ns, NULL) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail_quiet;
	if (vxt_ch_send(ch, vxt_now_mono() + so->retry_ns, NULL) < 0)
		goto fail;
	fprintf(stderr, "vxreplay: %" PRIu64 " events (%" PRIu64 " errors) to %s in %.2fs, "
		"%" PRIu64 " retries\n", events, errors, so->url,
		(double)(vxt_now_mono() - started) / 1e9, vxt_ch_retries(ch));
	vxt_ch_close(ch);
	return 0;
fail:
	/* the total in scope: the events not read yet are counted, not sent */
	while (report_scope_next(c, &ev) == 1)
		events++;
	fprintf(stderr, "vxreplay: %s; %" PRIu64 " of %" PRIu64 " events sent\n",
		vxt_ch_error(ch), vxt_ch_rows_sent(ch), events);
fail_quiet:
	vxt_ch_close(ch);
	return 1;
}
