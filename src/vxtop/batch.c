/* batch.c - vxtop -b: one table per interval on stdout, as text or JSON
 *
 * Works without a terminal and never touches curses. Text is iostat-like
 * (MB is 2^20 bytes, as iostat's; an interval without completions shows its
 * latencies as "-", JSON as null);
 * JSON is one array, one interval object per line, or JSON Lines: the same
 * objects without the array (formats/vxtop-json.md). Both carry iostat -x's
 * columns; the text table has them after the others.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vxtop.h"
#include "vxtrace/profile.h"
#include "vxtrace/view.h"

#define JSON_ERRORS_MAX 100	/* new errors listed per interval */

struct batch_state {
	const struct vxtop_cfg *cfg;
	struct vxtop_row *rows;
	size_t cap;
	uint64_t shown;
	uint64_t rotations;		/* of the followed file, said so far */
	int status;
	int err;			/* errno of the failed write */
};

static void fmt_real(uint64_t real_ns, bool iso, char *buf, size_t size)
{
	time_t sec = (time_t)(real_ns / VXT_NSEC_PER_SEC);
	unsigned ms = (unsigned)(real_ns / 1000000ull % 1000);
	struct tm tm;
	size_t n;

	if (iso) {
		gmtime_r(&sec, &tm);
		n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf + n, size - n, ".%03uZ", ms);
	} else {
		localtime_r(&sec, &tm);
		n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(buf + n, size - n, ".%03u", ms);
	}
}

/* A JSON string: escape.h's rule (invalid UTF-8 bytes as \u00NN). */
static void json_str(FILE *f, const char *s)
{
	vxt_fputs_json(s, f);
}

/* JSON has no NaN or infinity; figures here are finite, but be sure. */
static void json_num(FILE *f, double v, int prec)
{
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	fprintf(f, "%.*f", prec, v);
}

static size_t get_rows(struct vxtop_collector *c, struct batch_state *b,
		       const struct vxtop_snap *s)
{
	size_t need = vxtop_model_nobjects(&c->model);
	struct vxtop_view v = b->cfg->view;

	if (need > b->cap) {
		struct vxtop_row *r = realloc(b->rows, need * sizeof(*r));

		if (!r)
			return 0;
		b->rows = r;
		b->cap = need;
	}
	v.by_id = !b->cfg->sort_given;
	return vxtop_rows(&c->model, s, &v, b->rows);
}

/* A figure, or "n/a" when it is negative (not measured). @buf: 16 bytes. */
static const char *opt_num(double v, int prec, char *buf)
{
	if (v < 0)
		return "n/a";
	snprintf(buf, 16, "%.*f", prec, v);
	return buf;
}

static const char *opt_lat(double ns, char *buf)
{
	return ns < 0 ? "n/a" : vxtop_fmt_lat(ns, buf, 16);
}

/* A JSON number, or null when it is negative (not measured). */
static void json_opt(FILE *f, double v, int prec)
{
	if (v < 0)
		fputs("null", f);
	else
		json_num(f, v, prec);
}

/* "script": the script's output of the interval (or of END) and its
 * counters, or null without --script. */
static void json_script(FILE *f, const struct vxtop_collector *c, const struct vxtop_text *t)
{
	struct vxt_script_stats st;

	fputs(",\"script\":", f);
	if (!c->script) {
		fputs("null", f);
		return;
	}
	vxt_script_get_stats(c->script->s, &st);
	fputs("{\"name\":", f);
	json_str(f, vxtop_script_name(c->script));
	fputs(",\"output\":", f);
	json_str(f, t->n ? t->p : "");
	fprintf(f, ",\"events_in\":%llu,\"errors\":%llu,\"agg_drops\":%llu,\"dyn_drops\":%llu,"
		"\"spec_drops\":%llu,\"failed_speculations\":%llu,\"text_dropped\":%llu}",
		(unsigned long long)st.events_in, (unsigned long long)st.errors,
		(unsigned long long)st.agg_drops, (unsigned long long)st.dyn_drops,
		(unsigned long long)st.spec_drops,
		(unsigned long long)(st.failed_unavail + st.failed_busy),
		(unsigned long long)c->script->text_dropped);
}

/* The interval's rows per process and object (biotop's): text. */
static void text_processes(const struct vxtop_collector *c)
{
	const struct vxt_procstats *p = &c->model.last_procs;
	char a[16], q[16], n1[VXT_ESCAPE_MAX(256)], n2[VXT_ESCAPE_MAX(256)];

	printf("%7s %-16s %-16s %8s %10s %9s %9s\n", "PID", "COMM", "OBJECT", "I/Os", "KiB",
	       "avg", "p99");
	for (size_t i = 0; i < p->n; i++) {
		const struct vxt_proc_row *r = &p->rows[i];
		const struct vxt_object *ob = vxt_objtab_get(c->model.objs, r->object);
		const char *comm = vxt_strtab_get(vxtop_collect_strings(c), r->comm);

		printf("%7u %-16s %-16s %8llu %10.1f %9s %9s\n", r->pid,
		       vxt_text(comm ? comm : "", n1, sizeof(n1)),
		       vxt_text(ob ? ob->name : "?", n2, sizeof(n2)), (unsigned long long)r->ios,
		       (double)(r->bytes_read + r->bytes_written) / 1024,
		       r->lat.count ? vxtop_fmt_lat((double)vxt_latdist_mean(&r->lat), a, sizeof(a)) : "-",
		       r->lat.count ? vxtop_fmt_lat((double)vxt_latdist_quantile(&r->lat, 0.99), q,
						    sizeof(q)) : "-");
	}
}

/* The same as a JSON array. */
static void json_processes(const struct vxtop_collector *c)
{
	const struct vxt_procstats *p = &c->model.last_procs;

	printf(",\"processes\":[");
	for (size_t i = 0; i < p->n; i++) {
		const struct vxt_proc_row *r = &p->rows[i];
		const struct vxt_object *ob = vxt_objtab_get(c->model.objs, r->object);
		const char *comm = vxt_strtab_get(vxtop_collect_strings(c), r->comm);

		printf("%s{\"pid\":%u,\"comm\":", i ? "," : "", r->pid);
		json_str(stdout, comm ? comm : "");
		printf(",\"object\":");
		json_str(stdout, ob ? ob->name : "?");
		printf(",\"ios\":%llu,\"kib\":", (unsigned long long)r->ios);
		json_num(stdout, (double)(r->bytes_read + r->bytes_written) / 1024, 1);
		printf(",\"avg_lat_us\":");
		json_opt(stdout, r->lat.count ? (double)vxt_latdist_mean(&r->lat) / 1000 : -1, 3);
		printf(",\"p99_lat_us\":");
		json_opt(stdout, r->lat.count ? (double)vxt_latdist_quantile(&r->lat, 0.99) / 1000 :
			 -1, 3);
		printf(",\"errors\":%llu}", (unsigned long long)r->errors);
	}
	printf("]");
}

static void text_interval(struct vxtop_collector *c, struct batch_state *b,
			  const struct vxtop_snap *s)
{
	double sec = (double)(s->end_ns - s->start_ns) / VXT_NSEC_PER_SEC;
	size_t i, n = get_rows(c, b, s);
	char when[64], a[16], p[16], nb[VXT_ESCAPE_MAX(256)];

	fmt_real(s->real_end_ns, false, when, sizeof(when));
	if (c->rotations != b->rotations)
		printf("%s  %s: rotated, following the new file (%llu rotation%s)\n", when,
		       vxt_text(c->follow_path, nb, sizeof(nb)), (unsigned long long)c->rotations,
		       c->rotations == 1 ? "" : "s");
	b->rotations = c->rotations;
	printf("%s  %s  interval %.2fs  events %llu (%.0f/s)  lost %llu (total %llu)  errors %llu (total %llu)\n",
	       when, vxt_text(c->name, nb, sizeof(nb)), sec, (unsigned long long)s->events, sec > 0 ? s->events / sec : 0,
	       (unsigned long long)s->lost, (unsigned long long)vxtop_collect_lost(c),
	       (unsigned long long)s->errors,
	       (unsigned long long)vxtop_model_obj_errors(&c->model, UINT32_MAX));
	printf("%-16s %10s %10s %8s %8s %9s %9s %9s %9s %6s %6s %6s %8s %8s %7s %8s %7s %7s %9s %9s\n",
	       "OBJECT", "r/s", "w/s", "d/s", "f/s", "rMB/s", "wMB/s", "avg", "p99", "qd", "util%",
	       "err", "r_await", "w_await", "aqu-sz", "areq-sz", "rrqm/s", "wrqm/s", "q2c", "d2c");
	for (i = 0; i < n; i++) {
		const struct vxtop_row *r = &b->rows[i];
		char ra[16], wa[16], rm[16], wm[16], qc[16], dc[16];

		printf("%-16s %10.1f %10.1f %8.1f %8.1f %9.2f %9.2f %9s %9s %6.0f %6.1f %6.0f %8s %8s %7.2f %8.2f %7s %7s %9s %9s\n",
		       vxt_text(r->name, nb, sizeof(nb)),
		       r->v[VXTOP_COL_RPS], r->v[VXTOP_COL_WPS], r->dps, r->fps, r->v[VXTOP_COL_RMBS],
		       r->v[VXTOP_COL_WMBS], vxtop_fmt_lat(r->v[VXTOP_COL_AVG], a, sizeof(a)),
		       vxtop_fmt_lat(r->v[VXTOP_COL_P99], p, sizeof(p)), r->v[VXTOP_COL_QD],
		       r->v[VXTOP_COL_UTIL], r->v[VXTOP_COL_ERR], opt_num(r->r_await, 2, ra),
		       opt_num(r->w_await, 2, wa), r->aqu_sz, r->areq_sz, opt_num(r->rrqm_s, 1, rm),
		       opt_num(r->wrqm_s, 1, wm), opt_lat(r->q2c_avg, qc), opt_lat(r->d2c_avg, dc));
	}
	if (b->cfg->processes)
		text_processes(c);
	if (c->script && c->script->last.n) {
		printf("script %s:\n", vxtop_script_name(c->script));
		vxtop_print_lines(c->script->last.p);
	}
	printf("\n");
}

/* A figure of an object's JSON row: the double at @off in struct vxtop_row,
 * divided by @div, with @prec decimals, or null: when negative (not
 * measured) or, for latencies, when no completion had one. */
struct json_figure {
	const char *key;
	size_t off;
	double div;
	int prec;
	enum { NULL_NEVER, NULL_NEGATIVE, NULL_NO_LATENCY } null_when;
};

#define FIG(key, field, div, prec, when) { key, offsetof(struct vxtop_row, field), div, prec, when }

/* formats/vxtop-json.md's order: rates and latencies, then (after the
 * counts) iostat -x's figures */
static const struct json_figure rate_figures[] = {
	FIG("r_s", v[VXTOP_COL_RPS], 1, 2, NULL_NEVER),
	FIG("w_s", v[VXTOP_COL_WPS], 1, 2, NULL_NEVER),
	FIG("d_s", dps, 1, 2, NULL_NEVER),
	FIG("f_s", fps, 1, 2, NULL_NEVER),
	FIG("rmb_s", v[VXTOP_COL_RMBS], 1, 4, NULL_NEVER),
	FIG("wmb_s", v[VXTOP_COL_WMBS], 1, 4, NULL_NEVER),
	FIG("avg_lat_us", v[VXTOP_COL_AVG], 1e3, 3, NULL_NO_LATENCY),
	FIG("p99_lat_us", v[VXTOP_COL_P99], 1e3, 3, NULL_NO_LATENCY),
};

static const struct json_figure iostat_figures[] = {
	FIG("r_await_ms", r_await, 1, 4, NULL_NEGATIVE),
	FIG("w_await_ms", w_await, 1, 4, NULL_NEGATIVE),
	FIG("d_await_ms", d_await, 1, 4, NULL_NEGATIVE),
	FIG("f_await_ms", f_await, 1, 4, NULL_NEGATIVE),
	FIG("aqu_sz", aqu_sz, 1, 4, NULL_NEVER),
	FIG("areq_sz_kb", areq_sz, 1, 4, NULL_NEVER),
	FIG("rrqm_s", rrqm_s, 1, 2, NULL_NEGATIVE),
	FIG("wrqm_s", wrqm_s, 1, 2, NULL_NEGATIVE),
	FIG("q2c_avg_us", q2c_avg, 1e3, 3, NULL_NEGATIVE),
	FIG("d2c_avg_us", d2c_avg, 1e3, 3, NULL_NEGATIVE),
};

static void json_figures(FILE *f, const struct vxtop_row *r, const struct json_figure *t,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v = *(const double *)((const char *)r + t[i].off);

		fprintf(f, ",\"%s\":", t[i].key);
		if ((t[i].null_when == NULL_NEGATIVE && v < 0) ||
		    (t[i].null_when == NULL_NO_LATENCY && !r->has_lat))
			fputs("null", f);
		else
			json_num(f, v / t[i].div, t[i].prec);
	}
}

static void json_object(FILE *f, const struct vxtop_collector *c, const struct vxtop_row *r)
{
	const struct vxt_object *ob = vxt_objtab_get(c->model.objs, r->object);

	fputs("{\"name\":", f);
	json_str(f, r->name);
	fprintf(f, ",\"kind\":\"%s\",\"dev\":\"%u:%u\"", vxt_obj_kind_name(ob ? ob->kind : 0),
		ob ? ob->dev >> 20 : 0, ob ? ob->dev & 0xfffff : 0);
	json_figures(f, r, rate_figures, sizeof(rate_figures) / sizeof(rate_figures[0]));
	fprintf(f, ",\"in_flight\":%.0f,\"aged_out\":%u,\"closed_by_loss\":%lld",
		r->v[VXTOP_COL_QD], r->aged_out, (long long)r->closed_by_loss);
	fputs(",\"util_pct\":", f);
	json_num(f, r->v[VXTOP_COL_UTIL], 2);
	fprintf(f, ",\"errors\":%.0f,\"errors_total\":%llu,\"idle\":%s", r->v[VXTOP_COL_ERR],
		(unsigned long long)r->errors_total, r->idle ? "true" : "false");
	json_figures(f, r, iostat_figures, sizeof(iostat_figures) / sizeof(iostat_figures[0]));
	fputc('}', f);
}

static void json_error(FILE *f, const struct vxtop_collector *c, const struct vxtop_err *e)
{
	const struct vxt_object *ob = vxt_objtab_get(c->model.objs, e->object);
	const struct vxt_strtab *strs = vxtop_collect_strings(c);
	const char *en = vxt_errno_name(e->error);
	char when[64];

	fmt_real(e->real_ns, true, when, sizeof(when));
	fprintf(f, "{\"time\":\"%s\",\"object\":", when);
	json_str(f, ob ? ob->name : "?");
	fprintf(f, ",\"op\":\"%s\",\"sector\":%llu,\"bytes\":%u,\"errno\":\"%s\",\"error\":%d,\"pid\":%u,\"comm\":",
		vxt_op_name(e->op), (unsigned long long)e->sector, e->bytes, en ? en : "?",
		e->error, e->pid);
	json_str(f, strs ? vxt_strtab_get(strs, e->comm) : "");
	fputc('}', f);
}

/* "profile", "filter" and, with speculation, "spec" (null when unused). */
static void json_view(FILE *f, const struct vxtop_collector *c)
{
	struct vxt_view_stats vs;

	fputs(",\"profile\":", f);
	if (c->profile)
		json_str(f, c->profile->name);
	else
		fputs("null", f);
	fputs(",\"filter\":", f);
	if (c->where)
		json_str(f, c->where);
	else
		fputs("null", f);
	fputs(",\"spec\":", f);
	if (!c->view || (vxt_view_get_stats(c->view, &vs), !vs.has_spec)) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"opened\":%llu,\"committed\":%llu,\"discarded\":%llu,\"failed\":%llu,\"drops\":%llu,\"active\":%llu}",
		(unsigned long long)vs.spec.opened, (unsigned long long)vs.spec.committed,
		(unsigned long long)vs.spec.discarded, (unsigned long long)vs.spec.failed,
		(unsigned long long)vs.spec.drops, (unsigned long long)vs.spec.active);
}

static void json_interval(struct vxtop_collector *c, struct batch_state *b,
			  const struct vxtop_snap *s)
{
	double sec = (double)(s->end_ns - s->start_ns) / VXT_NSEC_PER_SEC;
	size_t i, n = get_rows(c, b, s);
	uint64_t k, listed = s->errors < JSON_ERRORS_MAX ? s->errors : JSON_ERRORS_MAX;
	char when[64];

	fmt_real(s->real_end_ns, true, when, sizeof(when));
	printf("%s{\"interval\":%llu,\"time\":\"%s\",\"duration_s\":%.6f,\"source\":",
	       b->cfg->format == VXTOP_FMT_JSONL ? "" : b->shown ? ",\n" : "[\n",
	       (unsigned long long)s->seq + 1, when, sec);
	json_str(stdout, c->name);
	json_view(stdout, c);
	json_script(stdout, c, c->script ? &c->script->last : NULL);
	if (c->follow_path)
		printf(",\"rotations\":%llu", (unsigned long long)c->rotations);
	printf(",\"events\":%llu,\"events_per_s\":", (unsigned long long)s->events);
	json_num(stdout, sec > 0 ? s->events / sec : 0, 1);
	printf(",\"lost\":%llu,\"lost_total\":%llu,\"closed_by_loss_total\":%llu,"
	       "\"errors\":%llu,\"errors_total\":%llu,\"objects\":[",
	       (unsigned long long)s->lost, (unsigned long long)vxtop_collect_lost(c),
	       (unsigned long long)vxtop_model_closed_by_loss(&c->model),
	       (unsigned long long)s->errors,
	       (unsigned long long)vxtop_model_obj_errors(&c->model, UINT32_MAX));
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		json_object(stdout, c, &b->rows[i]);
	}
	printf("],\"new_errors\":[");
	/* The newest s->errors errors are this interval's; list oldest first. */
	for (k = listed; k > 0; k--) {
		const struct vxtop_err *e = vxtop_model_err(&c->model, k - 1);

		if (!e)
			continue;
		if (k != listed)
			putchar(',');
		json_error(stdout, c, e);
	}
	printf("],\"new_errors_omitted\":%llu", (unsigned long long)(s->errors - listed));
	if (b->cfg->processes)
		json_processes(c);
	putchar('}');
	if (b->cfg->format == VXTOP_FMT_JSONL)
		putchar('\n');
}

static void on_close(struct vxtop_collector *c, const struct vxtop_snap *s, void *arg)
{
	struct batch_state *b = arg;

	if (b->cfg->count && b->shown >= b->cfg->count)
		return;
	if (b->cfg->format != VXTOP_FMT_TEXT)
		json_interval(c, b, s);
	else
		text_interval(c, b, s);
	b->shown++;
	if (fflush(stdout) == EOF && b->status == 0) {
		b->status = 1;
		b->err = errno;
	}
}

/* After the last interval: what the script's END printed (the aggregations
 * not printed yet, as dtrace(1) at exit). */
static void script_end(struct vxtop_collector *c, struct batch_state *b)
{
	const struct vxtop_text *t = &c->script->end;

	if (b->cfg->format == VXTOP_FMT_TEXT) {
		if (t->n) {
			printf("script %s at the end:\n", vxtop_script_name(c->script));
			vxtop_print_lines(t->p);
		}
		return;
	}
	printf("%s{\"end\":true", b->cfg->format == VXTOP_FMT_JSONL ? "" :
	       b->shown ? ",\n" : "[\n");
	json_script(stdout, c, t);
	printf("}%s", b->cfg->format == VXTOP_FMT_JSONL ? "\n" : "");
	b->shown++;
}

int vxtop_batch(struct vxtop_collector *c, const struct vxtop_cfg *cfg)
{
	struct batch_state b = { .cfg = cfg };
	bool input;
	int rc = 0;

	c->on_close = on_close;
	c->arg = &b;
	while (!vxtop_stop && !b.status && !(cfg->count && b.shown >= cfg->count)) {
		rc = vxtop_collect_step(c, -1, &input);
		if (rc < 0)
			break;
		if (c->ended) {
			/* A finite source or a finished file: show the partial
			 * interval, then stop. */
			uint64_t last = c->model.total.last_ns, start = c->model.cur_start;

			/* (times that ran backwards may all lie before its start) */
			if (last <= start)
				last = start == UINT64_MAX ? start : start + 1;
			if (c->model.cur_events)
				rc = vxtop_collect_close_interval(c, last);
			break;
		}
	}
	if (rc >= 0 && c->script) {
		rc = vxtop_collect_end_script(c);
		if (rc >= 0)
			script_end(c, &b);
	}
	if (cfg->format == VXTOP_FMT_JSON)
		printf("%s]\n", b.shown ? "\n" : "[");
	if (fflush(stdout) == EOF && b.status == 0) {
		b.status = 1;
		b.err = errno;
	}
	free(b.rows);
	c->on_close = NULL;
	if (rc < 0) {
		fprintf(stderr, "vxtop: %s\n", c->err);
		return 1;
	}
	if (b.status && b.err == EPIPE) {
		clearerr(stdout);
		return 0;	/* the reader went away (| head): not an error */
	}
	if (b.status)
		fprintf(stderr, "vxtop: stdout: write error: %s\n", strerror(b.err));
	return b.status;
}
