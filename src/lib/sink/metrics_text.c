/* metrics_text.c - the published metrics as Prometheus text (0.0.4) or
 * OpenMetrics (1.0.0), and the choice between them from an Accept header
 *
 * The two formats differ in three places only: a counter's TYPE and HELP name
 * the family without "_total" in OpenMetrics, and OpenMetrics ends with
 * "# EOF". A scrape at a thousand objects is about a hundred thousand
 * lines, so each series' labels are formatted once per scrape, the output
 * buffer is sized once from the series count, and numbers are written by
 * hand, two digits at a time (no printf per sample).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"
#include "vxtrace/vxtrace.h"

struct out {
	char *p;
	size_t n, cap;
	bool oom;
	enum vxt_metrics_format fmt;
};

static bool reserve(struct out *o, size_t more)
{
	if (o->oom)
		return false;
	if (vxt_grow(&o->p, &o->cap, o->n + more, 1) < 0) {
		o->oom = true;
		return false;
	}
	return true;
}

static void put(struct out *o, const char *s, size_t len)
{
	if (!len || !reserve(o, len))
		return;
	memcpy(o->p + o->n, s, len);
	o->n += len;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static void put_u64(struct out *o, uint64_t v)
{
	char buf[24];
	size_t i = sizeof(buf);

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		buf[--i] = digits2[d + 1];
		buf[--i] = digits2[d];
	}
	if (v >= 10) {
		buf[--i] = digits2[v * 2 + 1];
		buf[--i] = digits2[v * 2];
	} else {
		buf[--i] = (char)('0' + v);
	}
	put(o, buf + i, sizeof(buf) - i);
}

/* nanoseconds as seconds, exactly: "12.000345678" */
static void put_seconds(struct out *o, uint64_t ns)
{
	char frac[10];
	uint64_t f = ns % 1000000000ull;

	put_u64(o, ns / 1000000000ull);
	frac[0] = '.';
	for (int i = 9; i >= 1; i--) {
		frac[i] = (char)('0' + f % 10);
		f /= 10;
	}
	put(o, frac, sizeof(frac));
}

/* A label value with \ " and newline escaped. */
static void put_label(struct out *o, const char *s)
{
	if (!strpbrk(s, "\\\"\n")) {
		puts_(o, s);
		return;
	}
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			put(o, "\\", 1);
		if (*s == '\n')
			put(o, "\\n", 2);
		else
			put(o, s, 1);
	}
}

/* HELP and TYPE of a family; @name is the sample name ("x_total" for a counter). */
static void family(struct out *o, const char *name, const char *type, const char *help)
{
	size_t len = strlen(name);

	if (o->fmt == VXT_METRICS_OPENMETRICS && !strcmp(type, "counter") && len > 6)
		len -= 6;	/* "_total" */
	puts_(o, "# HELP ");
	put(o, name, len);
	put(o, " ", 1);
	puts_(o, help);
	puts_(o, "\n# TYPE ");
	put(o, name, len);
	put(o, " ", 1);
	puts_(o, type);
	put(o, "\n", 1);
}

static void scalar(struct out *o, const char *name, const char *type, const char *help,
		   uint64_t v)
{
	family(o, name, type, help);
	puts_(o, name);
	put(o, " ", 1);
	put_u64(o, v);
	put(o, "\n", 1);
}

/* Each series' labels, formatted once per scrape: {object="sda",op="read"
 * (no closing brace) at lab.p + off[i], len[i] bytes. */
struct labels {
	struct out lab;
	size_t *off, *len;
	size_t *eoff, *elen;	/* the same for each error entry */
};

static void label_of(struct out *o, const struct metrics_state *s, uint32_t object,
		     unsigned op)
{
	puts_(o, "{object=\"");
	put_label(o, object < s->nnames ? s->names[object] : "");
	puts_(o, "\",op=\"");
	puts_(o, vxt_op_name(op));
	put(o, "\"", 1);
}

static int make_labels(struct labels *l, const struct metrics_state *s)
{
	l->off = malloc((s->nser + 1) * sizeof(*l->off));
	l->len = malloc((s->nser + 1) * sizeof(*l->len));
	l->eoff = malloc((s->nerr + 1) * sizeof(*l->eoff));
	l->elen = malloc((s->nerr + 1) * sizeof(*l->elen));
	if (!l->off || !l->len || !l->eoff || !l->elen)
		return -ENOMEM;
	for (size_t i = 0; i < s->nser; i++) {
		l->off[i] = l->lab.n;
		label_of(&l->lab, s, s->ser[i].object, s->ser[i].op);
		l->len[i] = l->lab.n - l->off[i];
	}
	for (size_t i = 0; i < s->nerr; i++) {
		l->eoff[i] = l->lab.n;
		label_of(&l->lab, s, s->err[i].object, s->err[i].op);
		l->elen[i] = l->lab.n - l->eoff[i];
	}
	return l->lab.oom ? -ENOMEM : 0;
}

static void free_labels(struct labels *l)
{
	free(l->lab.p);
	free(l->off);
	free(l->len);
	free(l->eoff);
	free(l->elen);
}

/* name + series @i's labels */
static void open_sample(struct out *o, const char *name, size_t nlen, const struct labels *l,
			size_t i)
{
	put(o, name, nlen);
	put(o, l->lab.p + l->off[i], l->len[i]);
}

static void per_series(struct out *o, const struct metrics_state *s, const struct labels *l,
		       const char *name, const char *type, const char *help, size_t field)
{
	size_t nlen = strlen(name);

	family(o, name, type, help);
	for (size_t i = 0; i < s->nser; i++) {
		const struct metrics_series *ser = &s->ser[i];
		uint64_t v;

		if (field == 0)
			v = ser->completed;
		else if (field == 1)
			v = ser->bytes;
		else
			v = ser->started > ser->completed + ser->closed ?
			    ser->started - ser->completed - ser->closed : 0;
		open_sample(o, name, nlen, l, i);
		put(o, "} ", 2);
		put_u64(o, v);
		put(o, "\n", 1);
	}
}

static void errors(struct out *o, const struct metrics_state *s, const struct labels *l)
{
	static const char name[] = "vxtrace_io_errors_total";
	char num[16];

	family(o, name, "counter", "Failed I/O completions, by errno.");
	for (size_t i = 0; i < s->nerr; i++) {
		const struct metrics_error *e = &s->err[i];
		const char *en = vxt_errno_name(e->error);

		put(o, name, sizeof(name) - 1);
		put(o, l->lab.p + l->eoff[i], l->elen[i]);
		puts_(o, ",errno=\"");
		if (!en) {
			snprintf(num, sizeof(num), "%d", -e->error);
			en = num;
		}
		puts_(o, en);
		put(o, "\"} ", 3);
		put_u64(o, e->n);
		put(o, "\n", 1);
	}
}

/* "0.000001" ... "16.777216": 2^k microseconds in seconds, exactly. */
static const char *const bucket_le[VXT_METRICS_BUCKETS] = {
	"0.000001", "0.000002", "0.000004", "0.000008", "0.000016", "0.000032",
	"0.000064", "0.000128", "0.000256", "0.000512", "0.001024", "0.002048",
	"0.004096", "0.008192", "0.016384", "0.032768", "0.065536", "0.131072",
	"0.262144", "0.524288", "1.048576", "2.097152", "4.194304", "8.388608",
	"16.777216",
};

/* One latency histogram family per series: D2C from the completions'
 * latencies, or (@q2c) Q2C from the queue events they end. */
static void histogram(struct out *o, const struct metrics_state *s, const struct labels *l,
		      bool q2c)
{
	const char *fam = q2c ? "vxtrace_io_q2c_seconds" : "vxtrace_io_d2c_seconds";
	char bname[40], sname[40], cname[40];
	size_t bl = (size_t)snprintf(bname, sizeof(bname), "%s_bucket", fam);
	size_t sl = (size_t)snprintf(sname, sizeof(sname), "%s_sum", fam);
	size_t cl = (size_t)snprintf(cname, sizeof(cname), "%s_count", fam);
	char le[VXT_METRICS_BUCKETS + 1][24];	/* ,le="0.000001"}  */
	size_t le_len[VXT_METRICS_BUCKETS + 1];

	for (unsigned k = 0; k <= VXT_METRICS_BUCKETS; k++)
		le_len[k] = (size_t)snprintf(le[k], sizeof(le[k]), ",le=\"%s\"} ",
					     k < VXT_METRICS_BUCKETS ? bucket_le[k] : "+Inf");
	family(o, fam, "histogram", q2c ?
	       "I/O latency from queueing the bio (Q) to completion (C)." :
	       "I/O latency from issue to the device (D) to completion (C).");
	for (size_t i = 0; i < s->nser; i++) {
		const struct metrics_series *ser = &s->ser[i];
		const uint64_t *bucket = q2c ? ser->q2c_bucket : ser->bucket;
		const char *lab = l->lab.p + l->off[i];
		size_t llen = l->len[i];
		uint64_t cum = 0;

		for (unsigned k = 0; k <= VXT_METRICS_BUCKETS; k++) {
			cum += bucket[k];
			put(o, bname, bl);
			put(o, lab, llen);
			put(o, le[k], le_len[k]);
			put_u64(o, cum);
			put(o, "\n", 1);
		}
		put(o, sname, sl);
		put(o, lab, llen);
		put(o, "} ", 2);
		put_seconds(o, q2c ? ser->q2c_sum_ns : ser->lat_sum_ns);
		put(o, "\n", 1);
		put(o, cname, cl);
		put(o, lab, llen);
		put(o, "} ", 2);
		put_u64(o, q2c ? ser->q2c_count : ser->lat_count);
		put(o, "\n", 1);
	}
}

static void view(struct out *o, const struct metrics_state *s)
{
	const struct vxt_spec_stats *sp = &s->view.spec;

	if (!s->has_view)
		return;
	scalar(o, "vxtrace_view_events_in_total", "counter",
	       "Events that went into the profile or filter.", s->view.events_in);
	scalar(o, "vxtrace_view_events_kept_total", "counter",
	       "Events the profile or filter kept.", s->view.events_out);
	if (!s->view.has_spec)
		return;
	scalar(o, "vxtrace_speculations_committed_total", "counter",
	       "Speculations committed (their events kept).", sp->committed);
	scalar(o, "vxtrace_speculations_discarded_total", "counter",
	       "Speculations discarded (their events dropped).", sp->discarded);
	scalar(o, "vxtrace_speculations_failed_total", "counter",
	       "Speculations that found no speculative buffer.", sp->failed);
}

static void render(struct out *o, const struct metrics_state *s, const struct labels *l)
{
	/* the whole output at once: about 31 lines per series (59 with Q2C),
	 * each its name, its labels and a number */
	size_t per = (s->has_queue ? 59 : 31) * (l->lab.n / (s->nser ? s->nser : 1) + 64);

	if (!reserve(o, 16384 + s->nser * per + s->nerr * (l->lab.n / (s->nser ? s->nser : 1) + 64)))
		return;
	family(o, "vxtrace_build_info", "gauge", "The vxtrace version serving these metrics.");
	puts_(o, "vxtrace_build_info{version=\"");
	put_label(o, vxt_version());
	puts_(o, "\"} 1\n");
	scalar(o, "vxtrace_events_total", "counter", "Events seen, of every phase.", s->events);
	scalar(o, "vxtrace_events_lost_total", "counter", "Events the source lost.",
	       s->lost_stream > s->lost_source ? s->lost_stream : s->lost_source);
	per_series(o, s, l, "vxtrace_io_completed_total", "counter", "Completed I/Os.", 0);
	per_series(o, s, l, "vxtrace_io_bytes_total", "counter", "Bytes of the completed I/Os.", 1);
	errors(o, s, l);
	per_series(o, s, l, "vxtrace_io_in_flight", "gauge",
		   "I/Os issued to the device and not completed yet.", 2);
	histogram(o, s, l, false);
	if (s->has_queue)
		histogram(o, s, l, true);
	view(o, s);
	if (o->fmt == VXT_METRICS_OPENMETRICS)
		puts_(o, "# EOF\n");
}

int vxt_metrics_render(struct vxt_metrics *m, enum vxt_metrics_format fmt, char **out,
		       size_t *len)
{
	struct out o = { .fmt = fmt };
	struct labels l = { .lab = { .fmt = fmt } };
	struct metrics_state none = { 0 };
	/* a reference to the published snapshot: the collector publishes the
	 * next one beside it, never waiting for this render */
	struct metrics_snap *snap = metrics_snap_get(m);
	const struct metrics_state *st = snap ? &snap->st : &none;
	int rc = make_labels(&l, st);

	if (rc == 0)
		render(&o, st, &l);
	metrics_snap_put(m, snap);
	free_labels(&l);
	if (rc < 0 || o.oom) {
		free(o.p);
		return -ENOMEM;
	}
	*out = o.p;
	*len = o.n;
	return 0;
}

const char *vxt_metrics_content_type(enum vxt_metrics_format fmt)
{
	return fmt == VXT_METRICS_OPENMETRICS ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}

/* The q of one Accept item's parameters ("; version=1.0.0; q=0.5"); 1 when absent. */
static double item_q(const char *params, size_t len)
{
	const char *p = params, *end = params + len;

	while (p < end) {
		while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
			p++;
		if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			return strtod(p + 2, NULL);
		while (p < end && *p != ';')
			p++;
	}
	return 1.0;
}

enum vxt_metrics_format vxt_metrics_negotiate(const char *accept)
{
	double om = 0, text = 0;
	const char *p = accept;

	/* the best q of OpenMetrics against the best of what means text */
	while (p && *p) {
		size_t len = strcspn(p, ","), tlen;
		const char *t = p;
		double q;

		while (*t == ' ' || *t == '\t')
			t++;
		tlen = strcspn(t, ";,");
		q = item_q(t + tlen, len - (size_t)(t - p) - tlen);
		if (tlen == 28 && !strncasecmp(t, "application/openmetrics-text", 28)) {
			if (q > om)
				om = q;
		} else if ((tlen == 10 && !strncasecmp(t, "text/plain", 10)) ||
			   (tlen == 6 && !strncasecmp(t, "text/*", 6)) ||
			   (tlen == 3 && !strncmp(t, "*/*", 3))) {
			if (q > text)
				text = q;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return om > 0 && om >= text ? VXT_METRICS_OPENMETRICS : VXT_METRICS_PROMETHEUS;
}
