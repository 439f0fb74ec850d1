/* detail.c - vxtop's object detail: figures, op mix, latency histogram,
 * LBA heatmap
 *
 * Shows the object selected in the table. The latency histogram is grouped by
 * powers of two, for the last interval and since start; the LBA heatmap has
 * address slices as rows (low addresses on top) and intervals as columns
 * (newest on the right).
 */
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui.h"

#define POW_MAX 64
#define BAR_W 20

static void pow_hist(const struct vxt_latdist *h, uint64_t out[POW_MAX])
{
	memset(out, 0, POW_MAX * sizeof(out[0]));
	if (h)
		vxt_latdist_log2(h, out, POW_MAX);
}

static void bar(const struct top *t, int y, int x, int w, double f, int attr)
{
	int n = (int)(f * w + 0.5);

	(void)t;
	if (f > 0 && n == 0)
		n = 1;
	for (int i = 0; i < n && i < w; i++)
		top_print(y, x + i, 1, attr, "%s", "#");
}

/* @v * @scale with @prec decimals, or "n/a" when @v is negative. @buf: 16 bytes. */
static const char *opt(double v, double scale, int prec, char *buf)
{
	if (v < 0)
		return "n/a";
	snprintf(buf, 16, "%.*f", prec, v * scale);
	return buf;
}

static void draw_summary(struct top *t, int y, uint32_t id)
{
	const struct vxt_object *ob = vxt_objtab_get(t->c->model.objs, id);
	const struct vxtop_snap *s = vxtop_shown_snap(&t->v, 0);
	struct vxtop_row r;
	char sz[16], a[16], p[16], when[32], ra[16], wa[16], rm[16], wm[16], qc[16], dc[16];

	vxtop_row_fill(&t->c->model, s, id, &r);
	top_print(y, 0, -1, TUI_R_HEADER, "%s", r.name);
	top_print(y, (int)strlen(r.name) + 2, -1, TUI_R_NORMAL, "%s  dev %u:%u  size %s   interval ending %s",
		  vxt_obj_kind_name(ob ? ob->kind : 0), ob ? ob->dev >> 20 : 0,
		  ob ? ob->dev & 0xfffff : 0,
		  ob && ob->size ? vxt_format_size(ob->size, sz, sizeof(sz)) : "?",
		  s ? top_clock(s->real_end_ns, false, when, sizeof(when)) : "-");
	top_print(y + 1, 0, -1, r.idle ? TUI_R_DIM : TUI_R_NORMAL,
		  "r/s %.1f  w/s %.1f  rMB/s %.2f  wMB/s %.2f  avg %s  p99 %s  qd %.0f  util %.1f%%",
		  r.v[VXTOP_COL_RPS], r.v[VXTOP_COL_WPS], r.v[VXTOP_COL_RMBS], r.v[VXTOP_COL_WMBS],
		  vxtop_fmt_lat(r.v[VXTOP_COL_AVG], a, sizeof(a)),
		  vxtop_fmt_lat(r.v[VXTOP_COL_P99], p, sizeof(p)), r.v[VXTOP_COL_QD],
		  r.v[VXTOP_COL_UTIL]);
	top_print(y + 2, 0, -1, r.errors_total ? TUI_R_ERROR : TUI_R_NORMAL,
		  "errors: %.0f in the interval, %llu since start", r.v[VXTOP_COL_ERR],
		  (unsigned long long)r.errors_total);
	/* iostat -x (formats/reports.md); n/a: not measured or not captured */
	top_print(y + 3, 0, -1, TUI_R_DIM,
		  "r_await %s  w_await %s  aqu-sz %.2f  areq-sz %.1fk  rrqm/s %s  wrqm/s %s  "
		  "q2c %s  d2c %s", opt(r.r_await, 1, 2, ra), opt(r.w_await, 1, 2, wa), r.aqu_sz,
		  r.areq_sz, opt(r.rrqm_s, 1, 1, rm), opt(r.wrqm_s, 1, 1, wm),
		  r.q2c_avg < 0 ? "n/a" : vxtop_fmt_lat(r.q2c_avg, qc, sizeof(qc)),
		  r.d2c_avg < 0 ? "n/a" : vxtop_fmt_lat(r.d2c_avg, dc, sizeof(dc)));
}

/* @compact: only reads, writes and the ops that occurred. */
static int draw_opmix(struct top *t, int y, int x, int h, uint32_t id, bool compact)
{
	const struct vxtop_osnap *o = vxtop_snap_obj(vxtop_shown_snap(&t->v, 0), id);
	uint64_t total = 0;
	int n = 0;

	top_print(y, x, 40, TUI_R_COLHEAD, "%-38s", "op mix (interval)");
	for (unsigned op = 0; o && op < VXT_OP_COUNT; op++)
		total += o->ios[op];
	for (unsigned op = 0; op < VXT_OP_COUNT && n + 1 < h; op++) {
		uint64_t c = o ? o->ios[op] : 0;
		double f = total ? (double)c / total : 0;

		if (compact && !c && op != VXT_OP_READ && op != VXT_OP_WRITE)
			continue;

		top_print(y + 1 + n, x, 40, c ? TUI_R_NORMAL : TUI_R_DIM, "%-12s %8llu %3.0f%%",
			  vxt_op_name(op), (unsigned long long)c, 100 * f);
		bar(t, y + 1 + n, x + 27, 11, f, TUI_R_HEAT5);
		n++;
	}
	return n + 1;
}

/* The first power of the @rows consecutive ones in [lo, hi] that hold the
 * most I/Os (too few lines for the whole histogram). */
static int busiest_window(const uint64_t *tot, const uint64_t *cur, int lo, int hi, int rows)
{
	uint64_t sum = 0, best = 0;
	int best_lo = lo;

	for (int p = lo; p <= hi; p++) {
		sum += tot[p] + cur[p];
		if (p - lo >= rows)
			sum -= tot[p - rows] + cur[p - rows];
		if (p - lo + 1 >= rows && sum > best) {
			best = sum;
			best_lo = p - rows + 1;
		}
	}
	return best_lo;
}

static int draw_latency(struct top *t, int y, int x, int h, uint32_t id)
{
	const struct vxtop_model *m = &t->c->model;
	const struct vxt_objstats *os = vxt_stats_object(&m->total, id);
	uint64_t cur[POW_MAX], tot[POW_MAX], maxc = 0, maxt = 0;
	int lo = POW_MAX, hi = -1, n = 0;

	pow_hist(vxtop_shown_last_lat(&t->v, id), cur);
	pow_hist(os ? &os->lat : NULL, tot);
	for (int p = 0; p < POW_MAX; p++) {
		if (!tot[p] && !cur[p])
			continue;
		lo = p < lo ? p : lo;
		hi = p;
		maxc = cur[p] > maxc ? cur[p] : maxc;
		maxt = tot[p] > maxt ? tot[p] : maxt;
	}
	top_print(y, x, -1, TUI_R_COLHEAD, "%-*s", COLS - x,
		  "latency      last interval          since start");
	if (hi - lo + 2 > h)
		lo = busiest_window(tot, cur, lo, hi, h - 1);
	for (int p = lo; p <= hi && n + 1 < h; p++, n++) {
		char a[16];

		top_print(y + 1 + n, x, -1, TUI_R_NORMAL, ">=%-8s %8llu", vxtop_fmt_lat((double)(1ull << p), a,
			  sizeof(a)), (unsigned long long)cur[p]);
		bar(t, y + 1 + n, x + 21, 12, maxc ? (double)cur[p] / maxc : 0, TUI_R_HEAT5);
		top_print(y + 1 + n, x + 34, -1, TUI_R_NORMAL, "%10llu", (unsigned long long)tot[p]);
		bar(t, y + 1 + n, x + 45, 12, maxt ? (double)tot[p] / maxt : 0, TUI_R_HEAT3);
	}
	if (hi < 0)
		top_print(y + 1, x, -1, TUI_R_DIM, "no completed I/O yet");
	return n + 1;
}

static void draw_lba(struct top *t, int y, int h, uint32_t id)
{
	int w = COLS - 8, rows = h - 1, fold;
	double max = 0;

	if (rows < 2 || w < 4)
		return;
	if (rows > VXTOP_LBA_BUCKETS)
		rows = VXTOP_LBA_BUCKETS;
	fold = (VXTOP_LBA_BUCKETS + rows - 1) / rows;
	rows = (VXTOP_LBA_BUCKETS + fold - 1) / fold;
	top_print(y, 0, -1, TUI_R_COLHEAD, "%-*s", COLS,
		  "LBA heatmap: completed I/Os by address (rows, low on top) and interval (newest right)");
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < w; c++) {
			const struct vxtop_osnap *o = vxtop_snap_obj(vxtop_shown_snap(&t->v, (size_t)(w - 1 - c)), id);

			for (int r = 0; r < rows; r++) {
				double v = 0;

				for (int k = r * fold; o && k < (r + 1) * fold && k < VXTOP_LBA_BUCKETS; k++)
					v += o->lba[k];
				if (!pass && v > max)
					max = v;
				else if (pass)
					top_heat_cell(y + 1 + r, 8 + c, vxtop_level(v, max, true));
			}
		}
	}
	for (int r = 0; r < rows; r++)
		top_print(y + 1 + r, 0, 7, TUI_R_DIM, "%5.0f%%",
			  100.0 * r * fold / VXTOP_LBA_BUCKETS);
}

static void detail_draw(struct top *t, int top, int bottom)
{
	uint32_t id = t->v.sel_object;
	int h = bottom - top, mid, used;

	if (!t->v.nrows && id >= vxtop_model_nobjects(&t->c->model)) {
		top_print(top, 0, -1, TUI_R_DIM, "no object selected");
		return;
	}
	draw_summary(t, top, id);
	if (COLS >= 100) {
		/* op mix and latency side by side, the LBA heatmap below */
		mid = (h - 4) / 2;
		if (mid < VXT_OP_COUNT + 1)
			mid = h - 4;
		draw_opmix(t, top + 4, 0, mid, id, false);
		draw_latency(t, top + 4, 42, mid, id);
	} else {
		/* one column: compact op mix, latency, then the heatmap */
		mid = (h - 4) * 2 / 3;
		used = draw_opmix(t, top + 4, 0, mid, id, true);
		draw_latency(t, top + 4 + used, 0, mid - used, id);
	}
	draw_lba(t, top + 4 + mid, bottom - (top + 4 + mid), id);
}

/* up/down walk the objects in table order */
static int detail_move(struct top *t, int key)
{
	top_move_key(key, t->v.nrows, &t->v.sel, 1);
	vxtop_shown_select(&t->v, t->v.sel);
	return TUI_REDRAW;
}

static const struct tui_keybar_item detail_keybar[] = {
	{ "Esc", "Back" }, { "Up/Dn", "Object" }, { "Spc", "Pause" }, { "e", "Errors" },
	{ "h", "Heat" }, { "d/D", "Intvl" }, { "q", "Quit" }, { NULL, NULL }
};

const struct top_screen top_detail_screen = {
	.name = "detail",
	.draw = detail_draw,
	.on_move = detail_move,
	.keybar = detail_keybar,
};
