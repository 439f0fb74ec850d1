/* procs.c - vxreplay --report processes: completed I/O per process, as biotop
 *
 * One row per (pid, command, object) of the completions in scope, busiest
 * first: I/Os, reads, writes, KiB, errors, and the average, p50, p99 and
 * maximum latency under the product's one rule (formats/reports.md).
 */
#include <inttypes.h>
#include <stdio.h>

#include "report/report.h"

#define NAMEBUF VXT_ESCAPE_MAX(256)

static const char *name_of(const struct report_ctx *c, const struct vxt_proc_row *r, bool comm)
{
	const char *s;

	if (comm) {
		s = vxt_strtab_get(vxt_reader_strings(c->r), r->comm);
	} else {
		const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(c->r), r->object);

		s = o ? o->name : "?";
	}
	return s ? s : "";
}

static void row_out(struct report_ctx *c, const struct vxt_proc_row *r, bool first)
{
	const char *comm = name_of(c, r, true), *obj = name_of(c, r, false);
	uint64_t avg = vxt_latdist_mean(&r->lat), p50 = vxt_latdist_quantile(&r->lat, 0.5),
		 p99 = vxt_latdist_quantile(&r->lat, 0.99), bytes = r->bytes_read + r->bytes_written;
	char a[16], b[16], d[16], e[16], n1[NAMEBUF], n2[NAMEBUF];

	if (c->fmt == FMT_JSON) {
		fprintf(c->out, "%s\n {\"pid\": %u, \"comm\": ", first ? "" : ",", r->pid);
		report_json_str(c->out, comm);
		fprintf(c->out, ", \"object\": ");
		report_json_str(c->out, obj);
		fprintf(c->out, ", \"ios\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"kib\": %.1f, \"latency_avg_ns\": %" PRIu64
			", \"latency_p50_ns\": %" PRIu64 ", \"latency_p99_ns\": %" PRIu64
			", \"latency_max_ns\": %" PRIu64 ", \"errors\": %" PRIu64 "}", r->ios, r->reads,
			r->writes, bytes, (double)bytes / 1024, avg, p50, p99, r->lat.max, r->errors);
	} else if (c->fmt == FMT_CSV) {
		vxt_escape_csv(comm, n1, sizeof(n1));
		vxt_escape_csv(obj, n2, sizeof(n2));
		fprintf(c->out, "%u,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r->pid, n1, n2, r->ios,
			r->reads, r->writes, bytes, avg, p50, p99, r->lat.max, r->errors);
	} else {
		fprintf(c->out, "%7u %-16s %-12s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %11.1f %9s %9s "
			"%9s %9s %7" PRIu64 "\n", r->pid, vxt_text(comm, n1, sizeof(n1)),
			vxt_text(obj, n2, sizeof(n2)), r->ios, r->reads, r->writes,
			(double)bytes / 1024, vxt_format_duration(avg, a, sizeof(a)),
			vxt_format_duration(p50, b, sizeof(b)), vxt_format_duration(p99, d, sizeof(d)),
			vxt_format_duration(r->lat.max, e, sizeof(e)), r->errors);
	}
}

int report_processes(struct report_ctx *c)
{
	struct vxt_procstats p = { 0 };
	const struct vxt_event *ev;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	while ((rc = report_scope_next(c, &ev)) == 1)
		if (vxt_procstats_add(&p, ev) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			rc = -1;
			break;
		}
	if (rc < 0)
		return vxt_procstats_free(&p), 1;
	vxt_procstats_sort(&p);
	if (c->fmt == FMT_JSON)
		fputs("[", c->out);
	else if (c->fmt == FMT_CSV)
		fputs("pid,comm,object,ios,reads,writes,bytes,latency_avg_ns,latency_p50_ns,"
		      "latency_p99_ns,latency_max_ns,errors\n", c->out);
	else
		fprintf(c->out, "%7s %-16s %-12s %9s %9s %9s %11s %9s %9s %9s %9s %7s\n", "PID",
			"COMM", "OBJECT", "IOS", "READS", "WRITES", "KiB", "LAT_AVG", "LAT_P50",
			"LAT_P99", "LAT_MAX", "ERRORS");
	for (size_t i = 0; i < p.n; i++)
		row_out(c, &p.rows[i], i == 0);
	if (c->fmt == FMT_JSON)
		fputs("\n]\n", c->out);
	vxt_procstats_free(&p);
	return 0;
}
