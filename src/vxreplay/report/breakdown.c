/* breakdown.c - vxreplay --report breakdown: btt's tables and quantiles
 *
 * One pass over the events in scope feeds struct vxt_breakdown (analysis
 * layer); this file prints it as text (btt's layout, times in seconds),
 * JSON or CSV (formats/reports.md). Events outside the time range or object
 * are not read; an event a --filter, --profile or --script drops still moves
 * its I/O along, but the intervals it ends are not counted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/breakdown.h"
#include "vxtrace/pairer.h"
#include "report/report.h"

#define NAMEBUF VXT_ESCAPE_MAX(256)

static const double qs[4] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const qnames[4] = { "p50", "p90", "p99", "p999" };

/* Rows of btt's tables, in its order. */
static const unsigned btt_rows[] = {
	VXT_BD_Q2Q, VXT_BD_Q2G, VXT_BD_G2I, VXT_BD_Q2M, VXT_BD_I2D, VXT_BD_M2D, VXT_BD_D2C,
	VXT_BD_Q2C, VXT_BD_Q2D,
};

static bool all_phases(const struct vxt_reader *r)
{
	const struct vxt_file_info *in = vxt_reader_info(r);

	/* blktrace imports made before the header said so hold every phase too */
	return (in->compat & VXT_COMPAT_PHASES) || !strcmp(in->source, "blktrace");
}

/* Every event of the time range and object feeds the pairing; those the
 * filter, profile or script refuses end no interval (keep false). */
static int bd_chunk(struct report_ctx *c, const struct vxt_chunk_info *ci,
		    const struct vxt_event *ev, size_t n, uint64_t ord, void *arg)
{
	struct vxt_breakdown *b = arg;

	(void)ci;
	if (!c->keep && c->scope.object < 0 && !c->scope.from_ns && c->scope.to_ns == UINT64_MAX) {
		/* the whole file, every event kept */
		if (vxt_bd_add_many(b, ev, n, ord) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		const struct vxt_event *e = &ev[k];
		bool keep;

		if (e->time_ns < c->scope.from_ns)
			continue;
		if (e->time_ns > c->scope.to_ns) {
			if (e->time_ns > c->scope.to_ns + VXT_REORDER_MAX_NS)
				return -1;
			continue;
		}
		if (c->scope.object >= 0 && e->object != (uint64_t)c->scope.object)
			continue;
		keep = !c->keep || c->keep(e, ord + k, c->keep_arg);
		if (vxt_bd_add(b, e, ord + k, keep) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			return 1;
		}
	}
	return 0;
}

/* The fields struct vxt_breakdown reads (all of them when a filter,
 * profile or script judges the events): the pairer's, and the process of
 * each I/O for the by-process tables. A capture of every phase reads the
 * latency field of its remaps alone (their source); one of issue and
 * completion reads its completions' latencies. */
#define BD_FIELDS (VXT_PAIRER_FIELDS | VXT_FIELD_PID | VXT_FIELD_COMM)
#define BD_FIELDS_ALL_PHASES ((BD_FIELDS & ~VXT_FIELD_LATENCY) | VXT_FIELD_REMAP_FROM)

static int feed(struct report_ctx *c, struct vxt_breakdown *b)
{
	return report_scan(c, c->keep ? VXT_FIELD_ALL : b->all_phases ? BD_FIELDS_ALL_PHASES :
			   BD_FIELDS, bd_chunk, b);
}

static uint64_t avg_ns(const struct vxt_latdist *s)
{
	return s->count ? (s->sum + s->count / 2) / s->count : 0;
}

static const char *obj_name(const struct vxt_reader *r, size_t id)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), (uint32_t)id);

	return o ? o->name : "?";
}

static const char *comm_name(const struct vxt_reader *r, uint32_t comm)
{
	const char *s = vxt_strtab_get(vxt_reader_strings(r), comm);

	return s ? s : "";
}

static bool group_empty(const struct vxt_bd_group *g)
{
	for (unsigned i = 0; i < VXT_BD_IV_COUNT; i++)
		if (g->iv[i].count)
			return false;
	return true;
}

/* ---- JSON ---- */

static void json_group(FILE *out, const struct vxt_bd_group *g)
{
	fprintf(out, "{");
	for (unsigned i = 0; i < VXT_BD_IV_COUNT; i++) {
		const struct vxt_latdist *s = &g->iv[i];

		fprintf(out, "%s\"%s\": {\"n\": %" PRIu64 ", \"min_ns\": %" PRIu64
			", \"avg_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64, i ? ", " : "",
			vxt_bd_iv_name(i), s->count, s->count ? s->min : 0, avg_ns(s), s->max);
		for (unsigned k = 0; k < 4; k++)
			fprintf(out, ", \"%s_ns\": %" PRIu64, qnames[k], vxt_latdist_quantile(s, qs[k]));
		fprintf(out, "}");
	}
	fprintf(out, "}");
}

static void json_seek(FILE *out, const struct vxt_bd_seek *s)
{
	uint64_t mv, mc;

	vxt_bd_seek_mode(s, &mv, &mc);
	fprintf(out, "{\"n\": %" PRIu64 ", \"mean\": %.1f, \"median\": %" PRIu64
		", \"mode\": %" PRIu64 ", \"mode_count\": %" PRIu64 "}", s->n,
		s->n ? s->total / (double)s->n : 0.0, vxt_bd_seek_median(s), mv, mc);
}

/* @iv's total as a share of the Q2C total; -1 without Q2C (no queue phase
 * captured: not available, rather than 0%). */
static double pct(const struct vxt_bd_group *g, unsigned iv)
{
	uint64_t q2c = g->iv[VXT_BD_Q2C].sum;

	return q2c ? 100.0 * (double)g->iv[iv].sum / (double)q2c : -1;
}

static const unsigned ovh_rows[] = { VXT_BD_Q2G, VXT_BD_G2I, VXT_BD_Q2M, VXT_BD_I2D,
				     VXT_BD_D2C };

static void print_json(struct report_ctx *c, const struct vxt_breakdown *b)
{
	FILE *out = c->out;
	bool first;
	size_t i;

	fprintf(out, "{\"capture\": \"%s\", \"breakdown\": %s, \"all\": ",
		b->all_phases ? "all" : "issue", b->all_phases ? "true" : "false");
	json_group(out, &b->all);
	fprintf(out, ", \"objects\": {");
	for (i = 0, first = true; i < b->ndev; i++) {
		if (!b->dev[i].used)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, obj_name(c->r, i));
		fprintf(out, ": ");
		json_group(out, &b->dev[i].g);
		first = false;
	}
	fprintf(out, "}, \"ops\": {");
	for (i = 0, first = true; i < VXT_OP_COUNT; i++) {
		if (group_empty(&b->ops[i]))
			continue;
		fprintf(out, "%s\"%s\": ", first ? "" : ", ", vxt_op_name((unsigned)i));
		json_group(out, &b->ops[i]);
		first = false;
	}
	fprintf(out, "}, \"processes\": [");
	first = true;
	if (b->kernel_used) {
		fprintf(out, "{\"pid\": 0, \"comm\": \"\", \"intervals\": ");
		json_group(out, &b->kernel);
		fprintf(out, "}");
		first = false;
	}
	for (i = 0; i < b->capproc; i++) {
		const struct vxt_bd_proc *p = &b->proc[i];

		if (!p->pid && !p->comm)
			continue;
		fprintf(out, "%s{\"pid\": %" PRIu32 ", \"comm\": ", first ? "" : ", ", p->pid);
		report_json_str(out, comm_name(c->r, p->comm));
		fprintf(out, ", \"intervals\": ");
		json_group(out, &p->g);
		fprintf(out, "}");
		first = false;
	}
	fprintf(out, "], \"overhead\": {");
	for (i = 0, first = true; i < b->ndev; i++) {
		if (!b->dev[i].used)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, obj_name(c->r, i));
		fprintf(out, ": {");
		for (unsigned k = 0; k < sizeof(ovh_rows) / sizeof(*ovh_rows); k++) {
			double v = pct(&b->dev[i].g, ovh_rows[k]);

			fprintf(out, "%s\"%s_pct\": ", k ? ", " : "", vxt_bd_iv_name(ovh_rows[k]));
			fprintf(out, v < 0 ? "null" : "%.4f", v);
		}
		fprintf(out, "}");
		first = false;
	}
	fprintf(out, "}, \"merges\": {");
	for (i = 0, first = true; i < b->ndev; i++) {
		const struct vxt_bd_dev *d = &b->dev[i];

		if (!d->used)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, obj_name(c->r, i));
		fprintf(out, ": {\"queued\": %" PRIu64 ", \"issued\": %" PRIu64
			", \"ratio\": %.3f, \"blk_min\": %" PRIu64 ", \"blk_avg\": %.1f"
			", \"blk_max\": %" PRIu64 ", \"blk_total\": %" PRIu64 "}", d->nq, d->nd,
			d->nd ? (double)d->nq / (double)d->nd : 0.0, d->blk_min,
			d->blk_n ? (double)d->blk_sum / (double)d->blk_n : 0.0, d->blk_max,
			d->blk_sum);
		first = false;
	}
	fprintf(out, "}, \"seeks\": {");
	for (i = 0, first = true; i < b->ndev; i++) {
		if (!b->dev[i].used)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, obj_name(c->r, i));
		fprintf(out, ": {\"q2q\": ");
		json_seek(out, &b->dev[i].q2q);
		fprintf(out, ", \"d2d\": ");
		json_seek(out, &b->dev[i].d2d);
		fprintf(out, "}");
		first = false;
	}
	fprintf(out, "}, \"q2q_out_of_order\": {\"all\": %" PRIu64 ", \"objects\": {", b->q2q_ooo);
	for (i = 0, first = true; i < b->ndev; i++) {
		if (!b->dev[i].used)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, obj_name(c->r, i));
		fprintf(out, ": %" PRIu64, b->dev[i].q2q_ooo);
		first = false;
	}
	fprintf(out, "}}, \"unpaired\": {");
	for (unsigned k = 0; k < VXT_BD_U_COUNT; k++) {
		fprintf(out, "%s\"%s\": {\"n\": %" PRIu64, k ? ", " : "", vxt_bd_unpaired_name(k),
			b->unp[k].n);
		if (b->unp[k].n)
			fprintf(out, ", \"first_event\": %" PRIu64, b->unp[k].first);
		fprintf(out, "}");
	}
	fprintf(out, "}}\n");
}

/* ---- CSV ---- */

static void csv_group(FILE *out, const char *scope, const char *name, const struct vxt_bd_group *g)
{
	char nb[NAMEBUF];

	vxt_escape_csv(name, nb, sizeof(nb));
	for (unsigned i = 0; i < VXT_BD_IV_COUNT; i++) {
		const struct vxt_latdist *s = &g->iv[i];

		fprintf(out, "%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, scope, nb,
			vxt_bd_iv_name(i), s->count, s->count ? s->min : 0, avg_ns(s), s->max);
		for (unsigned k = 0; k < 4; k++)
			fprintf(out, ",%" PRIu64, vxt_latdist_quantile(s, qs[k]));
		fprintf(out, "\n");
	}
}

/* The queues earlier than the latest one, left out of Q2Q: a count only. */
static void csv_ooo(FILE *out, const char *scope, const char *name, uint64_t n)
{
	char nb[NAMEBUF];

	vxt_escape_csv(name, nb, sizeof(nb));
	fprintf(out, "%s,%s,q2q_out_of_order,%" PRIu64 ",0,0,0,0,0,0,0\n", scope, nb, n);
}

static void print_csv(struct report_ctx *c, const struct vxt_breakdown *b)
{
	char name[300];

	fprintf(c->out, "scope,name,interval,n,min_ns,avg_ns,max_ns,p50_ns,p90_ns,p99_ns,"
		"p999_ns\n");
	csv_group(c->out, "all", "", &b->all);
	csv_ooo(c->out, "all", "", b->q2q_ooo);
	for (size_t i = 0; i < b->ndev; i++)
		if (b->dev[i].used) {
			csv_group(c->out, "object", obj_name(c->r, i), &b->dev[i].g);
			csv_ooo(c->out, "object", obj_name(c->r, i), b->dev[i].q2q_ooo);
		}
	for (unsigned i = 0; i < VXT_OP_COUNT; i++)
		if (!group_empty(&b->ops[i]))
			csv_group(c->out, "op", vxt_op_name(i), &b->ops[i]);
	if (b->kernel_used)
		csv_group(c->out, "process", "[0]", &b->kernel);
	for (size_t i = 0; i < b->capproc; i++) {
		const struct vxt_bd_proc *p = &b->proc[i];

		if (!p->pid && !p->comm)
			continue;
		snprintf(name, sizeof(name), "%s[%" PRIu32 "]", comm_name(c->r, p->comm), p->pid);
		csv_group(c->out, "process", name, &p->g);
	}
}

/* ---- text ---- */

static void secs(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / VXT_NSEC_PER_SEC,
		 ns % VXT_NSEC_PER_SEC);
}

static void text_table(FILE *out, const char *title, const struct vxt_bd_group *g)
{
	char a[32], m[32], x[32], p[4][32];

	fprintf(out, "%15s %13s %13s %13s %11s %13s %13s %13s %13s\n", title, "MIN", "AVG", "MAX",
		"N", "P50", "P90", "P99", "P99.9");
	for (size_t r = 0; r < sizeof(btt_rows) / sizeof(*btt_rows); r++) {
		const struct vxt_latdist *s = &g->iv[btt_rows[r]];
		char name[8];

		if (!s->count)
			continue;
		for (unsigned k = 0; k < 4; k++)
			secs(p[k], sizeof(p[k]), vxt_latdist_quantile(s, qs[k]));
		secs(m, sizeof(m), s->min);
		secs(a, sizeof(a), avg_ns(s));
		secs(x, sizeof(x), s->max);
		snprintf(name, sizeof(name), "%s", vxt_bd_iv_name(btt_rows[r]));
		for (char *q = name; *q; q++)
			*q = *q >= 'a' && *q <= 'z' ? (char)(*q - 32) : *q;
		fprintf(out, "%-15s %13s %13s %13s %11" PRIu64 " %13s %13s %13s %13s\n", name, m, a,
			x, s->count, p[0], p[1], p[2], p[3]);
	}
	fprintf(out, "\n");
}

static void text_seek(FILE *out, const char *name, const struct vxt_bd_seek *s)
{
	uint64_t mv, mc;

	vxt_bd_seek_mode(s, &mv, &mc);
	fprintf(out, "%16s | %15" PRIu64 " %15.1f %15" PRIu64 " | %" PRIu64 "(%" PRIu64 ")%s\n",
		name, s->n, s->n ? s->total / (double)s->n : 0.0, vxt_bd_seek_median(s),
		mv, mc, s->mode_full ? " (of the first distinct distances)" : "");
}

static void print_text(struct report_ctx *c, const struct vxt_breakdown *b)
{
	FILE *out = c->out;
	char nb[NAMEBUF], title[300];
	size_t i;

	if (!b->all_phases)
		fprintf(out, "breakdown not available: the capture holds issue and completion "
			"only (record with --phases all); D2C and D2D seeks only\n\n");
	fprintf(out, "==================== All Devices ====================\n\n");
	text_table(out, "ALL", &b->all);
	for (i = 0; i < b->ndev; i++) {
		if (!b->dev[i].used || group_empty(&b->dev[i].g))
			continue;
		fprintf(out, "==================== Device %s ====================\n\n",
			vxt_text(obj_name(c->r, i), nb, sizeof(nb)));
		text_table(out, "DEVICE", &b->dev[i].g);
	}
	fprintf(out, "==================== By Op ====================\n\n");
	for (unsigned k = 0; k < VXT_OP_COUNT; k++)
		if (!group_empty(&b->ops[k]))
			text_table(out, vxt_op_name(k), &b->ops[k]);
	fprintf(out, "==================== By Process ====================\n\n");
	if (b->kernel_used)
		text_table(out, "[0]", &b->kernel);
	for (i = 0; i < b->capproc; i++) {
		const struct vxt_bd_proc *p = &b->proc[i];

		if (!p->pid && !p->comm)
			continue;
		snprintf(title, sizeof(title), "%s[%" PRIu32 "]",
			 vxt_text(comm_name(c->r, p->comm), nb, sizeof(nb)), p->pid);
		text_table(out, title, &p->g);
	}
	fprintf(out, "==================== Device Overhead ====================\n\n");
	fprintf(out, "%16s | %9s %9s %9s %9s %9s\n", "DEV", "Q2G", "G2I", "Q2M", "I2D", "D2C");
	for (i = 0; i < b->ndev; i++) {
		if (!b->dev[i].used)
			continue;
		fprintf(out, "%16s |", vxt_text(obj_name(c->r, i), nb, sizeof(nb)));
		for (unsigned k = 0; k < sizeof(ovh_rows) / sizeof(*ovh_rows); k++) {
			double v = pct(&b->dev[i].g, ovh_rows[k]);

			if (v < 0)
				fprintf(out, " %9s", "n/a");
			else
				fprintf(out, " %8.4f%%", v);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n==================== Device Merge Information ====================\n\n");
	fprintf(out, "%16s | %8s %8s %7s | %8s %8s %8s %8s\n", "DEV", "#Q", "#D", "Ratio",
		"BLKmin", "BLKavg", "BLKmax", "Total");
	for (i = 0; i < b->ndev; i++) {
		const struct vxt_bd_dev *d = &b->dev[i];

		if (!d->used)
			continue;
		fprintf(out, "%16s | %8" PRIu64 " %8" PRIu64 " %7.1f | %8" PRIu64 " %8.1f %8" PRIu64
			" %8" PRIu64 "\n", vxt_text(obj_name(c->r, i), nb, sizeof(nb)), d->nq, d->nd,
			d->nd ? (double)d->nq / (double)d->nd : 0.0, d->blk_min,
			d->blk_n ? (double)d->blk_sum / (double)d->blk_n : 0.0, d->blk_max, d->blk_sum);
	}
	for (int k = 0; k < 2; k++) {
		fprintf(out, "\n==================== Device %s Seek Information "
			"====================\n\n", k ? "D2D" : "Q2Q");
		fprintf(out, "%16s | %15s %15s %15s | %s\n", "DEV", "NSEEKS", "MEAN", "MEDIAN", "MODE");
		for (i = 0; i < b->ndev; i++)
			if (b->dev[i].used)
				text_seek(out, vxt_text(obj_name(c->r, i), nb, sizeof(nb)),
					  k ? &b->dev[i].d2d : &b->dev[i].q2q);
	}
	fprintf(out, "\n==================== Q2Q Out of Order ====================\n\n");
	fprintf(out, "%16s | %12" PRIu64 "\n", "(all)", b->q2q_ooo);
	for (i = 0; i < b->ndev; i++)
		if (b->dev[i].used)
			fprintf(out, "%16s | %12" PRIu64 "\n", vxt_text(obj_name(c->r, i), nb, sizeof(nb)),
				b->dev[i].q2q_ooo);
	fprintf(out, "\n==================== Unpaired ====================\n\n");
	for (unsigned k = 0; k < VXT_BD_U_COUNT; k++) {
		fprintf(out, "%-16s %12" PRIu64, vxt_bd_unpaired_name(k), b->unp[k].n);
		if (b->unp[k].n)
			fprintf(out, "  (first: event %" PRIu64 ")", b->unp[k].first);
		fprintf(out, "\n");
	}
}

int report_breakdown_collect(struct report_ctx *c, struct vxt_breakdown *b)
{
	int rc;

	vxt_bd_init(b, all_phases(c->r));
	if (report_scope_begin(c) < 0)
		return 1;
	rc = feed(c, b);
	if (!rc && vxt_bd_finish(b) < 0) {
		fprintf(stderr, "vxreplay: out of memory\n");
		rc = 1;
	}
	return rc;
}

int report_breakdown(struct report_ctx *c)
{
	struct vxt_breakdown b;
	int rc = report_breakdown_collect(c, &b);

	if (!rc) {
		if (c->fmt == FMT_JSON)
			print_json(c, &b);
		else if (c->fmt == FMT_CSV)
			print_csv(c, &b);
		else
			print_text(c, &b);
	}
	vxt_bd_free(&b);
	return rc;
}
