/* report.c - vxreplay's batch reports over a .vxt file
 *
 * Every report is one pass over the events in scope (scope.c), feeding
 * struct vxt_stats or printing rows. With --profile, the summary has a
 * section on what the profile's view kept (batch_profile.c computed it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/batch_profile.h"
#include "report/report.h"

/* Names from the trace, escaped for a terminal / as a CSV field (escape.h):
 * NAMEBUF holds the escape of any name the format allows. */
#define NAMEBUF VXT_ESCAPE_MAX(256)
#define TEXT(s, buf) vxt_text((s), (buf), sizeof(buf))
#define CSV(s, buf) (vxt_escape_csv((s), (buf), sizeof(buf)), (buf))

/* The fields struct vxt_stats reads. */
#define STATS_FIELDS (VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_ERROR | VXT_FIELD_LOST_COUNT)

int report_scan(struct report_ctx *c, unsigned fields, report_chunk_fn fn, void *arg)
{
	uint64_t pos = vxt_reader_tell(c->r);
	struct vxt_scan *s = vxt_scan_start(c->r, vxt_reader_chunk_of(c->r, pos), fields,
					    vxt_scan_default_threads());
	const struct vxt_event *ev;
	size_t i, n;
	int rc = 0, got;

	if (!s) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	while (!rc && (got = vxt_scan_next(s, &i, &ev, &n)) != 0) {
		const struct vxt_chunk_info *ci;
		size_t k;

		if (got == -EBADMSG) {
			/* a damaged chunk: named, skipped, the rest still counted */
			report_damage(c, i, vxt_scan_error(s));
			continue;
		}
		if (got < 0)
			break;
		ci = vxt_reader_chunk(c->r, i);
		k = pos > ci->first_event ? pos - ci->first_event : 0;
		rc = k < n ? fn(c, ci, ev + k, n - k, ci->first_event + k, arg) : 0;
	}
	if (rc < 0)
		rc = 0;		/* the callback saw the end of the scope */
	else if (!rc && got < 0) {
		fprintf(stderr, "vxreplay: %s\n", vxt_scan_error(s));
		rc = 1;
	}
	vxt_scan_stop(s);
	return rc;
}

/* Feed @n events of chunk @ci from ordinal @ord on to the stats @arg. */
static int stats_chunk(struct report_ctx *c, const struct vxt_chunk_info *ci,
		       const struct vxt_event *ev, size_t n, uint64_t ord, void *arg)
{
	struct vxt_stats *st = arg;

	/* a chunk wholly in scope needs no test per event */
	if (report_chunk_in_scope(c, ci)) {
		if (vxt_stats_add_many(st, ev, n) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		int in = report_in_scope(c, &ev[k], ord + k);

		if (in < 0)
			return -1;
		if (in && vxt_stats_add(st, &ev[k]) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
	}
	return 0;
}

/* Does the file hold lost events? The stats then keep the issues in flight
 * by sector (vxt_stats_keep_flight()), so they read sectors too. */
static bool has_lost(const struct vxt_reader *r)
{
	for (size_t i = 0; i < vxt_reader_nchunks(r); i++)
		if (vxt_reader_chunk(r, i)->nlost)
			return true;
	return false;
}

/* Gather stats over the scope, decoding only the fields the stats read
 * (all of them when a filter or profile judges the events). @return 0 or 1. */
static int collect(struct report_ctx *c, struct vxt_stats *st)
{
	const struct vxt_event *ev;
	bool lossy = has_lost(c->r);
	int rc;

	vxt_stats_init(st);
	if (report_scope_begin(c) < 0)
		return 1;
	if (lossy && vxt_stats_keep_flight(st) < 0) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	if (c->held) {
		while (report_scope_next(c, &ev) == 1)
			if (vxt_stats_add(st, ev) < 0) {
				fprintf(stderr, "vxreplay: out of memory\n");
				return 1;
			}
		vxt_stats_finish(st);
		return 0;
	}
	rc = report_scan(c, c->keep ? VXT_FIELD_ALL : STATS_FIELDS | (lossy ? VXT_FIELD_SECTOR : 0),
			 stats_chunk, st);
	if (rc == 0)
		vxt_stats_finish(st);
	return rc;
}

static const char *obj_name(const struct vxt_reader *r, uint32_t id)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), id);

	return o ? o->name : "?";
}

/* The host of @ev: its object's (several files), else the file's. */
static const char *ev_host(const struct vxt_reader *r, const struct vxt_event *ev)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), ev->object);

	return o ? o->host : vxt_reader_info(r)->host;
}

int report_summary(struct report_ctx *c)
{
	struct vxt_stats st;
	struct vxt_objstats total, *t = &total;
	uint64_t ios, span, nobj = 0;
	const struct vxt_file_info *info = vxt_reader_info(c->r);
	char a[32], b[32], nb[NAMEBUF], nb2[NAMEBUF];

	if (collect(c, &st))
		return vxt_stats_free(&st), 1;
	vxt_stats_total(&st, t);
	ios = vxt_objstats_ios(t);
	span = st.last_ns > st.first_ns ? st.last_ns - st.first_ns : 0;
	for (size_t i = 0; i < st.nobj; i++)
		nobj += vxt_stats_object(&st, (uint32_t)i) != NULL;
	if (c->fmt == FMT_JSON) {
		fprintf(c->out, "{\"host\": ");
		report_json_str(c->out, info->host);
		fprintf(c->out, ", \"source\": ");
		report_json_str(c->out, info->source);
		fprintf(c->out, ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			", \"duration_ns\": %" PRIu64 ", \"events\": %" PRIu64 ", \"ios\": %" PRIu64
			", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"flushes\": %" PRIu64
			", \"discards\": %" PRIu64 ", \"other_ios\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"bytes_read\": %" PRIu64
			", \"bytes_written\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"lost\": %" PRIu64 ", \"closed_by_loss\": %" PRIu64
			", \"starts\": %" PRIu64 ", \"requeues\": %" PRIu64
			", \"objects\": %" PRIu64 ", \"latency_p50_ns\": %" PRIu64
			", \"latency_p99_ns\": %" PRIu64 ", \"latency_max_ns\": %" PRIu64,
			st.first_ns, st.last_ns, span, st.events, ios, t->ios[VXT_OP_READ],
			t->ios[VXT_OP_WRITE], t->ios[VXT_OP_FLUSH], t->ios[VXT_OP_DISCARD],
			ios - t->ios[VXT_OP_READ] - t->ios[VXT_OP_WRITE] - t->ios[VXT_OP_FLUSH] -
			t->ios[VXT_OP_DISCARD],
			t->bytes_read + t->bytes_written + t->bytes_other, t->bytes_read,
			t->bytes_written, t->errors, st.lost, t->lost_ios, t->starts, t->requeues,
			nobj,
			vxt_latdist_quantile(&t->lat, 0.5), vxt_latdist_quantile(&t->lat, 0.99),
			t->lat.max);
		report_spec_section(c, 1);
		fprintf(c->out, "}\n");
	} else if (c->fmt == FMT_CSV) {
		fprintf(c->out, "start_ns,end_ns,duration_ns,events,ios,reads,writes,bytes,"
			"errors,lost,objects");
		report_spec_section(c, 0);
		fprintf(c->out, "\n%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			st.first_ns, st.last_ns, span, st.events, ios, t->ios[VXT_OP_READ],
			t->ios[VXT_OP_WRITE], t->bytes_read + t->bytes_written + t->bytes_other,
			t->errors, st.lost, nobj);
		report_spec_section(c, 1);
		fprintf(c->out, "\n");
	} else {
		fprintf(c->out, "host:      %s (source %s)\n", TEXT(info->host, nb),
			TEXT(info->source, nb2));
		fprintf(c->out, "span:      %s s  (%s)\n", vxt_format_reltime(st.last_ns,
			st.first_ns, a, sizeof(a)), vxt_format_duration(span, b, sizeof(b)));
		fprintf(c->out, "events:    %" PRIu64 "  (%" PRIu64 " starts, %" PRIu64 " done, %"
			PRIu64 " requeues, %" PRIu64 " lost records)\n", st.events,
			st.by_phase[VXT_PH_START], st.by_phase[VXT_PH_DONE],
			st.by_phase[VXT_PH_REQUEUE], st.by_phase[VXT_PH_LOST]);
		fprintf(c->out, "I/Os:      %" PRIu64 "  (read %" PRIu64 ", write %" PRIu64
			", flush %" PRIu64 ", discard %" PRIu64 ", other %" PRIu64 ")\n", ios,
			t->ios[VXT_OP_READ], t->ios[VXT_OP_WRITE], t->ios[VXT_OP_FLUSH],
			t->ios[VXT_OP_DISCARD], ios - t->ios[VXT_OP_READ] - t->ios[VXT_OP_WRITE] -
			t->ios[VXT_OP_FLUSH] - t->ios[VXT_OP_DISCARD]);
		fprintf(c->out, "bytes:     %s read, %s written\n",
			vxt_format_size(t->bytes_read, a, sizeof(a)),
			vxt_format_size(t->bytes_written, b, sizeof(b)));
		fprintf(c->out, "latency:   p50 %s, p99 %s",
			vxt_format_duration(vxt_latdist_quantile(&t->lat, 0.5), a, sizeof(a)),
			vxt_format_duration(vxt_latdist_quantile(&t->lat, 0.99), b, sizeof(b)));
		fprintf(c->out, ", max %s\n", vxt_format_duration(t->lat.max, a, sizeof(a)));
		fprintf(c->out, "errors:    %" PRIu64 "\n", t->errors);
		fprintf(c->out, "lost:      %" PRIu64 "%s", st.lost,
			st.lost ? "  (events dropped by the source)" : "");
		if (t->lost_ios)
			fprintf(c->out, "; %" PRIu64 " I/O%s closed by loss", t->lost_ios,
				t->lost_ios == 1 ? "" : "s");
		fprintf(c->out, "\n");
		fprintf(c->out, "objects:   %" PRIu64 "\n", nobj);
		report_spec_section(c, 1);
	}
	vxt_objstats_free(t);
	vxt_stats_free(&st);
	return 0;
}

int report_objects(struct report_ctx *c)
{
	struct vxt_stats st;
	const struct vxt_objtab *ot = vxt_reader_objects(c->r);
	bool first = true;

	if (collect(c, &st))
		return vxt_stats_free(&st), 1;
	if (c->fmt == FMT_JSON)
		fprintf(c->out, "[");
	else if (c->fmt == FMT_CSV)
		fprintf(c->out, "object,kind,dev,ios,reads,writes,iops,read_mbps,write_mbps,"
			"bytes_read,bytes_written,latency_avg_ns,latency_p50_ns,latency_p99_ns,"
			"latency_max_ns,errors,active_ns\n");
	else
		fprintf(c->out, "%-16s %-9s %9s %9s %9s %8s %8s %9s %9s %9s %7s %9s\n", "OBJECT",
			"KIND", "IOS", "IOPS", "READS", "RMiB/s", "WMiB/s", "LAT_P50", "LAT_P99",
			"LAT_MAX", "ERRORS", "ACTIVE");
	for (size_t i = 0; i < vxt_objtab_count(ot); i++) {
		const struct vxt_object *o = vxt_objtab_get(ot, (uint32_t)i);
		const struct vxt_objstats *s = vxt_stats_object(&st, (uint32_t)i);
		uint64_t ios, p50, p99, avg, active;
		double iops, rmb, wmb, span;
		char a[16], b[16], d[16], e[16], nb[NAMEBUF];

		if (!s)
			continue;
		ios = vxt_objstats_ios(s);
		/* rates over the time the object was active, not the scope's span */
		active = vxt_objstats_active_ns(s);
		span = (double)active / VXT_NSEC_PER_SEC;
		iops = span > 0 ? (double)ios / span : 0;
		rmb = span > 0 ? (double)s->bytes_read / span / VXT_MIB : 0;
		wmb = span > 0 ? (double)s->bytes_written / span / VXT_MIB : 0;
		p50 = vxt_latdist_quantile(&s->lat, 0.5);
		p99 = vxt_latdist_quantile(&s->lat, 0.99);
		avg = vxt_latdist_mean(&s->lat);
		if (c->fmt == FMT_JSON) {
			fprintf(c->out, "%s\n {\"object\": ", first ? "" : ",");
			report_json_str(c->out, o->name);
			fprintf(c->out, ", \"kind\": \"%s\", \"dev\": \"%u:%u\", \"ios\": %" PRIu64
				", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"iops\": %.1f"
				", \"read_mbps\": %.3f, \"write_mbps\": %.3f, \"bytes_read\": %" PRIu64
				", \"bytes_written\": %" PRIu64 ", \"latency_avg_ns\": %" PRIu64
				", \"latency_p50_ns\": %" PRIu64 ", \"latency_p99_ns\": %" PRIu64
				", \"latency_max_ns\": %" PRIu64 ", \"errors\": %" PRIu64
				", \"active_ns\": %" PRIu64 "}",
				vxt_obj_kind_name(o->kind), o->dev >> 20, o->dev & 0xfffff, ios,
				s->ios[VXT_OP_READ], s->ios[VXT_OP_WRITE], iops, rmb, wmb,
				s->bytes_read, s->bytes_written, avg, p50, p99, s->lat.max, s->errors,
				active);
		} else if (c->fmt == FMT_CSV) {
			fprintf(c->out, "%s,%s,%u:%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.3f,"
				"%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
				PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", CSV(o->name, nb),
				vxt_obj_kind_name(o->kind), o->dev >> 20, o->dev & 0xfffff, ios,
				s->ios[VXT_OP_READ], s->ios[VXT_OP_WRITE], iops, rmb, wmb,
				s->bytes_read, s->bytes_written, avg, p50, p99, s->lat.max, s->errors,
				active);
		} else {
			fprintf(c->out, "%-16s %-9s %9" PRIu64 " %9.1f %9" PRIu64 " %8.2f %8.2f "
				"%9s %9s %9s %7" PRIu64 " %9s\n", TEXT(o->name, nb),
				vxt_obj_kind_name(o->kind), ios, iops, s->ios[VXT_OP_READ], rmb, wmb,
				vxt_format_duration(p50, a, sizeof(a)),
				vxt_format_duration(p99, b, sizeof(b)),
				vxt_format_duration(s->lat.max, d, sizeof(d)), s->errors,
				vxt_format_duration(active, e, sizeof(e)));
		}
		first = false;
	}
	if (c->fmt == FMT_JSON)
		fprintf(c->out, "\n]\n");
	vxt_stats_free(&st);
	return 0;
}

void report_csv_header(FILE *out)
{
	fprintf(out, "time_ns,object,phase,op,flags,sector,bytes,latency_ns,error,errname,"
		"pid,comm,cpu,host,rel_ns\n");
}

/*
 * One row built in memory and written at once: the row writers run once per
 * event, where stdio's formatting would dominate an export. Every field is
 * bounded (names < 256 bytes, doubled at most by quoting), so a row fits.
 */
struct row {
	size_t n;
	char buf[2 * VXT_ESCAPE_MAX(256) + 1024];
};

static void row_str(struct row *w, const char *s)
{
	size_t k = strlen(s);

	if (k > sizeof(w->buf) - w->n)
		k = sizeof(w->buf) - w->n;
	memcpy(w->buf + w->n, s, k);
	w->n += k;
}

static void row_u64(struct row *w, uint64_t v)
{
	char t[20];
	int i = 0;

	do
		t[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 20);
	while (i && w->n < sizeof(w->buf))
		w->buf[w->n++] = t[--i];
}

static void row_i64(struct row *w, int64_t v)
{
	if (v < 0 && w->n < sizeof(w->buf)) {
		w->buf[w->n++] = '-';
		row_u64(w, (uint64_t)0 - (uint64_t)v);
		return;
	}
	row_u64(w, (uint64_t)v);
}

static void row_ch(struct row *w, char c)
{
	if (w->n < sizeof(w->buf))
		w->buf[w->n++] = c;
}

/* A CSV field, as vxt_escape_csv() writes it: quoted (RFC 4180) when it
 * holds a comma, quote or line break, a formula-leading cell prefixed by '. */
static void row_csv(struct row *w, const char *s)
{
	w->n += vxt_escape_csv(s, w->buf + w->n, sizeof(w->buf) - w->n);
}

void report_csv_row(FILE *out, const struct vxt_reader *r, const struct vxt_event *ev,
		    uint64_t start_ns)
{
	struct row w;
	char fl[64], e[16];

	w.n = 0;
	row_u64(&w, ev->time_ns);
	row_ch(&w, ',');
	row_csv(&w, ev->phase == VXT_PH_LOST && !ev->lost_io ? "" : obj_name(r, ev->object));
	row_ch(&w, ',');
	row_str(&w, vxt_phase_name(ev->phase));
	row_ch(&w, ',');
	row_str(&w, vxt_op_name(ev->op));
	row_ch(&w, ',');
	row_csv(&w, vxt_flags_format(ev->flags, fl, sizeof(fl)));
	row_ch(&w, ',');
	row_u64(&w, ev->sector);
	row_ch(&w, ',');
	row_u64(&w, ev->bytes);
	row_ch(&w, ',');
	row_u64(&w, vxt_event_latency(ev));
	row_ch(&w, ',');
	row_i64(&w, -(int64_t)ev->error);
	row_ch(&w, ',');
	row_str(&w, vxt_errno_label(ev->error, e, sizeof(e)));
	row_ch(&w, ',');
	row_u64(&w, ev->pid);
	row_ch(&w, ',');
	row_csv(&w, vxt_strtab_get(vxt_reader_strings(r), ev->comm));
	row_ch(&w, ',');
	row_u64(&w, ev->cpu);
	row_ch(&w, ',');
	row_csv(&w, ev_host(r, ev));
	row_ch(&w, ',');
	row_i64(&w, (int64_t)(ev->time_ns - start_ns));
	fwrite(w.buf, 1, w.n, out);
}

/* A JSON string literal, escaped as report_json_str() does. */
static void row_json(struct row *w, const char *s)
{
	row_ch(w, '"');
	if (w->n < sizeof(w->buf))
		w->n += vxt_escape_json(s, w->buf + w->n, sizeof(w->buf) - w->n);
	row_ch(w, '"');
}

void report_json_event(FILE *out, const struct vxt_reader *r, const struct vxt_event *ev,
		       uint64_t start_ns)
{
	struct row w;
	char fl[64], e[16];

	w.n = 0;
	row_str(&w, "{\"time_ns\": ");
	row_u64(&w, ev->time_ns);
	row_str(&w, ", \"rel_ns\": ");
	row_u64(&w, ev->time_ns >= start_ns ? ev->time_ns - start_ns : 0);
	row_str(&w, ", \"object\": ");
	row_json(&w, ev->phase == VXT_PH_LOST && !ev->lost_io ? "" : obj_name(r, ev->object));
	row_str(&w, ", \"phase\": \"");
	row_str(&w, vxt_phase_name(ev->phase));
	row_str(&w, "\", \"op\": \"");
	row_str(&w, vxt_op_name(ev->op));
	row_str(&w, "\", \"flags\": \"");
	row_str(&w, vxt_flags_format(ev->flags, fl, sizeof(fl)));
	row_str(&w, "\", \"sector\": ");
	row_u64(&w, ev->sector);
	row_str(&w, ", \"bytes\": ");
	row_u64(&w, ev->bytes);
	row_str(&w, ", \"latency_ns\": ");
	row_u64(&w, vxt_event_latency(ev));
	row_str(&w, ", \"error\": ");
	row_i64(&w, -(int64_t)ev->error);
	row_str(&w, ", \"errname\": \"");
	row_str(&w, vxt_errno_label(ev->error, e, sizeof(e)));
	row_str(&w, "\", \"pid\": ");
	row_u64(&w, ev->pid);
	row_str(&w, ", \"comm\": ");
	row_json(&w, vxt_strtab_get(vxt_reader_strings(r), ev->comm));
	row_str(&w, ", \"cpu\": ");
	row_u64(&w, ev->cpu);
	row_str(&w, ", \"host\": ");
	row_json(&w, ev_host(r, ev));
	row_ch(&w, '}');
	fwrite(w.buf, 1, w.n, out);
}

static void text_error_header(FILE *out)
{
	fprintf(out, "%-15s %-26s %-10s %-6s %14s %8s %-10s %9s %7s %s\n", "TIME",
		"WALL", "OBJECT", "OP", "SECTOR", "BYTES", "ERROR", "LATENCY", "PID", "COMM");
}

static void text_error_row(struct report_ctx *c, const struct vxt_event *ev)
{
	char t[32], w[32], l[16], e[16], nb[NAMEBUF], nb2[NAMEBUF];

	fprintf(c->out, "%-15s %-26s %-10s %-6s %14" PRIu64 " %8u %-10s %9s %7u %s\n",
		vxt_format_reltime(ev->time_ns, c->start_ns, t, sizeof(t)),
		vxt_format_isotime(vxt_reader_to_real(c->r, ev->time_ns), w, sizeof(w)),
		TEXT(obj_name(c->r, ev->object), nb), vxt_op_name(ev->op), ev->sector, ev->bytes,
		vxt_errno_label(ev->error, e, sizeof(e)),
		vxt_format_duration(vxt_event_latency(ev), l, sizeof(l)), ev->pid,
		TEXT(vxt_strtab_get(vxt_reader_strings(c->r), ev->comm), nb2));
}

static void text_event_row(struct report_ctx *c, const struct vxt_event *ev)
{
	char t[32], l[16], e[16], nb[NAMEBUF], nb2[NAMEBUF];

	uint64_t sector;

	if (vxt_event_lost_io(ev, &sector)) {
		fprintf(c->out, "%15s  LOST the completion of %s %s %" PRIu64 " %u (pid %u %s)\n",
			vxt_format_reltime(ev->time_ns, c->start_ns, t, sizeof(t)),
			TEXT(obj_name(c->r, ev->object), nb), vxt_op_name(ev->op), sector,
			ev->bytes, ev->pid,
			TEXT(vxt_strtab_get(vxt_reader_strings(c->r), ev->comm), nb2));
		return;
	}
	if (ev->phase == VXT_PH_LOST) {
		fprintf(c->out, "%15s  LOST %" PRIu64 " events\n",
			vxt_format_reltime(ev->time_ns, c->start_ns, t, sizeof(t)), ev->sector);
		return;
	}
	fprintf(c->out, "%15s %-10s %-7s %-6s %14" PRIu64 " %8u %9s %-9s %7u %s\n",
		vxt_format_reltime(ev->time_ns, c->start_ns, t, sizeof(t)),
		TEXT(obj_name(c->r, ev->object), nb), vxt_phase_name(ev->phase), vxt_op_name(ev->op),
		ev->sector, ev->bytes,
		ev->phase == VXT_PH_DONE ? vxt_format_duration(ev->latency_ns, l, sizeof(l)) : "",
		ev->error ? vxt_errno_label(ev->error, e, sizeof(e)) : "", ev->pid,
		TEXT(vxt_strtab_get(vxt_reader_strings(c->r), ev->comm), nb2));
}

/* One row per event in scope (only failed ones with @errors_only), in the
 * report's format. @return 0 or 1. */
static int list_events(struct report_ctx *c, bool errors_only)
{
	const struct vxt_event *ev;
	bool first = true;
	int rc;

	if (report_scope_begin(c) < 0)
		return 1;
	if (c->fmt == FMT_JSON)
		fprintf(c->out, "[");
	else if (c->fmt == FMT_CSV)
		report_csv_header(c->out);
	else if (errors_only)
		text_error_header(c->out);
	while ((rc = report_scope_next(c, &ev)) == 1) {
		if (errors_only && !ev->error)
			continue;
		if (c->fmt == FMT_JSON) {
			fprintf(c->out, "%s\n ", first ? "" : ",");
			report_json_event(c->out, c->r, ev, c->start_ns);
		} else if (c->fmt == FMT_CSV) {
			report_csv_row(c->out, c->r, ev, c->start_ns);
			fputc('\n', c->out);
		} else if (errors_only) {
			text_error_row(c, ev);
		} else {
			text_event_row(c, ev);
		}
		first = false;
	}
	if (c->fmt == FMT_JSON)
		fprintf(c->out, "\n]\n");
	return rc < 0 ? 1 : 0;
}

int report_errors(struct report_ctx *c)
{
	return list_events(c, true);
}

int report_events(struct report_ctx *c)
{
	return list_events(c, false);
}

int report_info(struct vxt_reader *r, FILE *out)
{
	const struct vxt_file_info *in = vxt_reader_info(r);
	const struct vxt_objtab *ot = vxt_reader_objects(r);
	uint64_t errors = 0, lost = 0, bytes = 0;
	const char *why;
	char a[48], b[48], nb[NAMEBUF];
	size_t n = vxt_reader_nchunks(r);

	fprintf(out, "format:    vxt version %u (compat 0x%x, incompat 0x%x)\n", in->version,
		in->compat, in->incompat);
	fprintf(out, "host:      %s\n", TEXT(in->host, nb));
	fprintf(out, "source:    %s\n", TEXT(in->source, nb));
	if (in->profile[0])
		fprintf(out, "profile:   %s (speculation: %s)\n", TEXT(in->profile, nb),
			in->compat & VXT_COMPAT_KSPEC ? "kernel" : "user space");
	if (in->command[0])
		fprintf(out, "command:   %s\n", TEXT(in->command, nb));
	fprintf(out, "phases:    %s\n", in->compat & VXT_COMPAT_PHASES || !strcmp(in->source,
		"blktrace") ? "all (queue, getrq, merge, insert, issue, complete, ...)" :
		"issue (issue and completion only: no breakdown)");
	fprintf(out, "created:   %s (clock: monotonic %" PRIu64 " = realtime %" PRIu64 ")\n",
		vxt_format_datetime(in->created_real_ns, a, sizeof(a)), in->anchor_mono_ns,
		in->anchor_real_ns);
	fprintf(out, "index:     %s\n", vxt_reader_recovered(r) ?
		"no footer: recovered by a forward scan" : "footer");
	if (vxt_reader_damage(r, &why) >= 0)
		fprintf(out, "damage:    scan stopped: %s; events after it are lost\n", why);
	fprintf(out, "events:    %" PRIu64 " in %zu chunks\n", vxt_reader_nevents(r), n);
	fprintf(out, "objects:   %zu\n", vxt_objtab_count(ot));
	for (size_t i = 0; i < vxt_objtab_count(ot); i++) {
		const struct vxt_object *o = vxt_objtab_get(ot, (uint32_t)i);

		fprintf(out, "  %3zu  %-16s %-9s %4u:%-5u %s\n", i, TEXT(o->name, nb),
			vxt_obj_kind_name(o->kind), o->dev >> 20, o->dev & 0xfffff,
			vxt_format_size(o->size, a, sizeof(a)));
	}
	fprintf(out, "chunks:\n  %5s %12s %10s %8s %8s %8s %6s %6s  %s\n", "#", "offset",
		"bytes", "raw", "events", "errors", "lost", "objs", "time span (s)");
	for (size_t i = 0; i < n; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);
		uint64_t t0 = vxt_reader_chunk(r, 0)->first_ns;

		errors += ci->nerrors;
		lost += ci->nlost;
		bytes += ci->data_size;
		fprintf(out, "  %5zu %12" PRIu64 " %10u %8u %8u %8u %6" PRIu64 " %6u  %s - %s\n", i,
			ci->offset, ci->data_size, ci->raw_size, ci->nevents, ci->nerrors, ci->nlost,
			ci->nobjagg, vxt_format_reltime(ci->first_ns, t0, a, sizeof(a)),
			vxt_format_reltime(ci->last_ns, t0, b, sizeof(b)));
	}
	fprintf(out, "totals:    %" PRIu64 " errors, %" PRIu64 " lost, %s compressed",
		errors, lost, vxt_format_size(bytes, a, sizeof(a)));
	fprintf(out, " (%.2f bytes/event)\n",
		vxt_reader_nevents(r) ? (double)bytes / (double)vxt_reader_nevents(r) : 0.0);
	return 0;
}

/* DTrace's words, one line each, with a prefix. */
static void problems(FILE *out, const char *prefix, const struct vxt_spec_stats *s)
{
	char buf[256], *line, *save;

	vxt_spec_format_problems(s, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "%s%s\n", prefix, line);
}

void report_spec_section(struct report_ctx *c, int part)
{
	const struct batch_profile *bp = c->spec;
	const struct vxt_spec_stats *s;
	char nb[NAMEBUF];

	if (c->script) {
		report_script_section(c, part);
		return;
	}
	if (!bp)
		return;
	s = &bp->st.spec;
	if (c->fmt == FMT_JSON) {
		fprintf(c->out, ", \"profile\": ");
		report_json_str(c->out, bp->p->name);
		fprintf(c->out, ", \"kept\": %" PRIu64 ", \"considered\": %" PRIu64,
			bp->st.events_out, bp->st.events_in);
		if (bp->st.has_spec)
			fprintf(c->out, ", \"speculation\": {\"opened\": %" PRIu64
				", \"committed\": %" PRIu64 ", \"discarded\": %" PRIu64
				", \"discarded_at_end\": %" PRIu64 ", \"failed\": %" PRIu64
				", \"drops\": %" PRIu64 ", \"forced\": %" PRIu64
				", \"committed_events\": %" PRIu64 "}",
				s->opened, s->committed, s->discarded, s->eof_discarded, s->failed,
				s->drops, s->forced, s->committed_events);
	} else if (c->fmt == FMT_CSV) {
		if (part == 0)
			fprintf(c->out, ",profile,kept,considered,spec_opened,spec_committed,"
				"spec_discarded,spec_failed,spec_drops");
		else
			fprintf(c->out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64, CSV(bp->p->name, nb), bp->st.events_out,
				bp->st.events_in, s->opened, s->committed, s->discarded, s->failed,
				s->drops);
	} else {
		fprintf(c->out, "profile:   %s (%" PRIu64 " of %" PRIu64 " events kept)\n",
			TEXT(bp->p->name, nb), bp->st.events_out, bp->st.events_in);
		if (!bp->st.has_spec)
			return;
		fprintf(c->out, "speculation: %" PRIu64 " opened, %" PRIu64 " committed (%" PRIu64
			" events), %" PRIu64 " discarded (%" PRIu64 " at the end of input), %"
			PRIu64 " failed, %" PRIu64 " drops\n", s->opened, s->committed,
			s->committed_events, s->discarded, s->eof_discarded, s->failed, s->drops);
		if (s->forced)
			fprintf(c->out, "           %" PRIu64 " speculations discarded because output "
				"waited on them too long\n", s->forced);
		problems(c->out, "           ", s);
	}
}
