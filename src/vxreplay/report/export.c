/* export.c - vxreplay --export: csv, jsonl and Chrome trace-event JSON
 *
 * csv and jsonl reuse the events report's row writers, so their column and
 * key names are the ones vxt(5) documents. The Chrome export turns each
 * completed I/O into a complete event ("ph":"X") spanning start to
 * completion. Each object is a process in the trace viewer and its I/Os are
 * spread over lanes (threads) so that slices on one lane never overlap,
 * which Perfetto and chrome://tracing require; failed I/Os are also marked
 * by an instant event on the object's "errors" lane, lost events by a
 * global instant.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/export.h"

#define CHROME_MAX_LANES 256

int export_parse(const char *s)
{
	static const char *const names[] = { "csv", "jsonl", "chrome", "blktrace" };

	if (!strncmp(s, "clickhouse+", 11))
		return EXPORT_CLICKHOUSE;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

bool export_is_binary(enum export_format f)
{
	return f == EXPORT_BLKTRACE;
}

static int export_csv(struct report_ctx *c)
{
	const struct vxt_event *ev;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	report_csv_header(c->out);
	while ((rc = report_scope_next(c, &ev)) == 1) {
		report_csv_row(c->out, c->r, ev, c->start_ns);
		fputc('\n', c->out);
	}
	return rc < 0;
}

static int export_jsonl(struct report_ctx *c)
{
	const struct vxt_event *ev;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	while ((rc = report_scope_next(c, &ev)) == 1) {
		report_json_event(c->out, c->r, ev, c->start_ns);
		fputc('\n', c->out);
	}
	return rc < 0;
}

/* Lanes of one object: the end time of the last slice on each. */
struct lanes {
	uint64_t end[CHROME_MAX_LANES];
	unsigned n;
};

/* Pick a lane free at @start for a slice ending at @end. When every lane is
 * busy and no new one may open, the lane that frees first is reused. */
static unsigned lane_pick(struct lanes *l, uint64_t start, uint64_t end)
{
	unsigned best = 0;

	for (unsigned i = 0; i < l->n; i++) {
		if (l->end[i] <= start) {
			best = i;
			goto found;
		}
		if (l->end[i] < l->end[best])
			best = i;
	}
	if (l->n < CHROME_MAX_LANES)
		best = l->n++;
found:
	if (end > l->end[best])
		l->end[best] = end;
	return best;
}

/* Microseconds with nanosecond precision, relative to the trace start. */
static void chrome_ts(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, "\"%s\": %" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void chrome_io(struct report_ctx *c, const struct vxt_event *ev, unsigned lane)
{
	uint64_t start = ev->time_ns - ev->latency_ns;
	char fl[64];

	fprintf(c->out, ",\n{\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%s\", \"pid\": %u, "
		"\"tid\": %u, ", vxt_op_name(ev->op), ev->error ? "io,error" : "io",
		ev->object + 1, lane + 1);
	chrome_ts(c->out, "ts", start >= c->start_ns ? start - c->start_ns : 0);
	fputs(", ", c->out);
	chrome_ts(c->out, "dur", ev->latency_ns);
	fprintf(c->out, ", \"args\": {\"sector\": %" PRIu64 ", \"bytes\": %u, \"latency_ns\": %"
		PRIu64 ", \"flags\": \"%s\", \"error\": %d, \"pid\": %u, \"comm\": ", ev->sector,
		ev->bytes, ev->latency_ns, vxt_flags_format(ev->flags, fl, sizeof(fl)), -ev->error,
		ev->pid);
	report_json_str(c->out, vxt_strtab_get(vxt_reader_strings(c->r), ev->comm));
	fputs("}}", c->out);
}

static void chrome_instant(struct report_ctx *c, const struct vxt_event *ev)
{
	uint64_t t = ev->time_ns >= c->start_ns ? ev->time_ns - c->start_ns : 0;
	const char *en = vxt_errno_name(ev->error);

	if (ev->phase == VXT_PH_LOST) {
		fprintf(c->out, ",\n{\"ph\": \"i\", \"s\": \"g\", \"name\": \"lost %" PRIu64
			" events\", \"cat\": \"lost\", \"pid\": 0, \"tid\": 0, ",
			vxt_event_lost_count(ev));
		chrome_ts(c->out, "ts", t);
		fputs("}", c->out);
		return;
	}
	fprintf(c->out, ",\n{\"ph\": \"i\", \"s\": \"t\", \"name\": \"%s %s\", \"cat\": \"error\", "
		"\"pid\": %u, \"tid\": 0, ", vxt_op_name(ev->op), en ? en : "error",
		ev->object + 1);
	chrome_ts(c->out, "ts", t);
	fprintf(c->out, ", \"args\": {\"sector\": %" PRIu64 ", \"bytes\": %u, \"error\": %d}}",
		ev->sector, ev->bytes, -ev->error);
}

/* Process and lane names, written once the lanes are known. */
static void chrome_names(struct report_ctx *c, const struct lanes *lanes, size_t nobj)
{
	const struct vxt_objtab *ot = vxt_reader_objects(c->r);

	for (size_t i = 0; i < nobj; i++) {
		const struct vxt_object *o = vxt_objtab_get(ot, (uint32_t)i);

		if (!lanes[i].n)
			continue;
		fprintf(c->out, ",\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %zu, "
			"\"tid\": 0, \"args\": {\"name\": ", i + 1);
		report_json_str(c->out, o ? o->name : "?");
		fprintf(c->out, "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", "
			"\"pid\": %zu, \"tid\": 0, \"args\": {\"sort_index\": %zu}}", i + 1, i);
		fprintf(c->out, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %zu, "
			"\"tid\": 0, \"args\": {\"name\": \"errors\"}}", i + 1);
		for (unsigned l = 0; l < lanes[i].n; l++)
			fprintf(c->out, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %zu, "
				"\"tid\": %u, \"args\": {\"name\": \"lane %u\"}}", i + 1, l + 1, l + 1);
	}
}

static int export_chrome(struct report_ctx *c)
{
	const struct vxt_file_info *in = vxt_reader_info(c->r);
	size_t nobj = vxt_objtab_count(vxt_reader_objects(c->r));
	struct lanes *lanes = calloc(nobj ? nobj : 1, sizeof(*lanes));
	const struct vxt_event *ev;
	int rc;

	if (!lanes) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	if (report_scope_begin(c) < 0) {
		free(lanes);
		return 1;
	}
	fprintf(c->out, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"host\": ");
	report_json_str(c->out, in->host);
	fprintf(c->out, ", \"source\": ");
	report_json_str(c->out, in->source);
	fprintf(c->out, ", \"start_ns\": %" PRIu64 "},\n\"traceEvents\": [\n"
		"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, "
		"\"args\": {\"name\": \"vxtrace\"}}", c->start_ns);
	while ((rc = report_scope_next(c, &ev)) == 1) {
		if (ev->phase == VXT_PH_LOST) {
			chrome_instant(c, ev);
			continue;
		}
		if (ev->phase != VXT_PH_DONE || ev->object >= nobj)
			continue;
		if (ev->latency_ns > ev->time_ns)
			continue;
		chrome_io(c, ev, lane_pick(&lanes[ev->object], ev->time_ns - ev->latency_ns,
					   ev->time_ns));
		if (ev->error)
			chrome_instant(c, ev);
	}
	chrome_names(c, lanes, nobj);
	fprintf(c->out, "\n]}\n");
	free(lanes);
	return rc < 0;
}

int export_run(struct report_ctx *c, enum export_format f)
{
	switch (f) {
	case EXPORT_CSV:
		return export_csv(c);
	case EXPORT_JSONL:
		return export_jsonl(c);
	case EXPORT_CHROME:
		return export_chrome(c);
	case EXPORT_BLKTRACE:
		return export_blktrace(c);
	case EXPORT_CLICKHOUSE:
		return export_clickhouse(c);
	}
	return 1;
}
