/* latency.c - the latency table: the reports' latency histograms in SQL
 *
 * One row per file, object and op (and time window, when asked): the
 * completions' count, mean, maximum, p50/p90/p99/p99.9 and the histogram
 * itself as a blob (struct vxt_latdist encoded, the one every report
 * uses), which vxt_hist_percentile() merges over a GROUP BY. The
 * histograms are built in one read of each file, decoding only time, phase,
 * op, object, latency and error on the scanner's helper threads, the way the
 * reports do: p99 per object costs what --report objects costs, where the
 * exact vxt_percentile() over the ios table passes every row through SQLite.
 *
 * The hidden columns from_ns, to_ns and interval_ns are its arguments, as a
 * table-valued function: latency(from_ns, to_ns, interval_ns) counts the
 * completions with from_ns <= time_ns <= to_ns (the file's clock, as the
 * events table's time_ns), in windows of interval_ns aligned to multiples of
 * it (window_ns is the window's start; NULL without an interval). Windows
 * are on time_ns as SQL shows it, signed: a time past 2^63 - 1 ns is in a
 * window before 0, as it is before 0 to from_ns and to_ns.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/sql_impl.h"
#include "vxtrace/hash.h"
#include "vxtrace/stats.h"
#include "vxtrace/util.h"

/* Cells (file, object, op, window) a query may make: 150 bytes each, and
 * 1 KiB per power of two its latencies span once past 8 completions. */
#define LAT_MAX_CELLS	65536u

enum {
	L_HOST, L_FILE, L_OBJECT, L_OP, L_WINDOW, L_N, L_AVG, L_MAX, L_P50, L_P90, L_P99, L_P999,
	L_HIST, L_FROM, L_TO, L_INTERVAL, L_NCOLS
};

struct lat_cell {
	uint32_t file, object;
	uint8_t op;
	int64_t window;			/* its start (0 without an interval) */
	struct vxt_latdist h;
};

struct lat_cursor {
	struct sql_cursor c;
	struct sql_vtab *vt;
	struct lat_cell **cell;		/* in row order after the read */
	size_t n, cap, i;
	uint32_t *slot;			/* open addressing: cell index + 1, 0 = empty */
	size_t nslot;
	int64_t from, to;		/* time_ns in [from, to], as SQL shows it */
	struct sql_trange tr;		/* ... as the files' times */
	int64_t interval;		/* 0: no windows */
};

int sql_lat_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	int argv = 0, have[3] = { 0, 0, 0 };

	(void)base;
	/* the arguments: equality on a hidden column, each used once, omitted
	 * (the rows have no such value for SQLite to check) */
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];
		int h = k->iColumn - L_FROM;

		if (h < 0 || h > 2 || k->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!k->usable)
			return SQLITE_CONSTRAINT;	/* an argument must be known first */
		if (have[h])
			continue;
		have[h] = ++argv;
		info->aConstraintUsage[i].argvIndex = argv;
		info->aConstraintUsage[i].omit = 1;
		info->idxNum |= h << (2 * (argv - 1));
	}
	info->idxNum |= argv << 8;
	info->estimatedCost = 1e6;
	info->estimatedRows = 1000;
	return SQLITE_OK;
}

static void lat_clear(struct lat_cursor *c)
{
	for (size_t i = 0; i < c->n; i++)
		vxt_latdist_free(&c->cell[i]->h), free(c->cell[i]);
	free(c->cell);
	free(c->slot);
	c->cell = NULL;
	c->slot = NULL;
	c->n = c->cap = c->i = c->nslot = 0;
}

static size_t cell_hash(uint32_t file, uint32_t object, unsigned op, int64_t window)
{
	uint64_t h = ((uint64_t)file << 40) ^ ((uint64_t)object << 8) ^ op;

	h ^= (uint64_t)window * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

static size_t cell_hash_of(const struct lat_cell *x)
{
	return cell_hash(x->file, x->object, x->op, x->window);
}

/* a cell's key, apart */
struct lat_key {
	uint32_t file, object;
	unsigned op;
	int64_t window;
};

static bool cell_is(const struct lat_cell *x, const struct lat_key *k)
{
	return x->file == k->file && x->object == k->object && x->op == k->op &&
	       x->window == k->window;
}

#define SLOT_HASH(c, s) cell_hash_of((c)->cell[*(s) - 1])
#define SLOT_MATCH(c, s, k) cell_is((c)->cell[*(s) - 1], k)
#define SLOT_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(ctab, uint32_t, const struct lat_cursor *, struct lat_key, SLOT_HASH,
		SLOT_MATCH, SLOT_EMPTY)

static int set_error(struct lat_cursor *c, const char *msg)
{
	sqlite3_free(c->vt->base.zErrMsg);
	c->vt->base.zErrMsg = sqlite3_mprintf("latency: %s", msg);
	return SQLITE_ERROR;
}

/* The cell of (file, object, op, window), made when new. */
static struct lat_cell *cell_get(struct lat_cursor *c, uint32_t file, uint32_t object,
				 unsigned op, int64_t window, int *rc)
{
	struct lat_key key = { file, object, op, window };
	size_t k;

	if (ctab_room(&c->slot, &c->nslot, c->n, 64, c) < 0) {
		*rc = SQLITE_NOMEM;
		return NULL;
	}
	k = ctab_seek(c->slot, c->nslot, c, &key, cell_hash(file, object, op, window));
	if (c->slot[k])
		return c->cell[c->slot[k] - 1];
	if (c->n == LAT_MAX_CELLS) {
		*rc = set_error(c, "more than 65536 (file, object, op, window) rows; "
				   "ask for a longer interval_ns or a shorter time range");
		return NULL;
	}
	if (vxt_grow(&c->cell, &c->cap, c->n + 1, sizeof(*c->cell)) < 0) {
		*rc = SQLITE_NOMEM;
		return NULL;
	}
	if (!(c->cell[c->n] = calloc(1, sizeof(**c->cell)))) {
		*rc = SQLITE_NOMEM;
		return NULL;
	}
	c->cell[c->n]->file = file;
	c->cell[c->n]->object = object;
	c->cell[c->n]->op = (uint8_t)op;
	c->cell[c->n]->window = window;
	c->slot[k] = (uint32_t)c->n + 1;
	return c->cell[c->n++];
}

/* The start of the window of @iv ns holding time @t (signed, as SQL shows
 * it): the multiple of @iv at or below @t, or INT64_MIN when that multiple
 * is below INT64_MIN. */
static int64_t window_of(int64_t t, int64_t iv)
{
	int64_t r = t % iv;

	if (r < 0)
		r += iv;
	return t < INT64_MIN + r ? INT64_MIN : t - r;
}

/* Add the completions of one decoded chunk of file @fi. */
static int add_events(struct lat_cursor *c, uint32_t fi, const struct vxt_event *ev, size_t n)
{
	struct lat_cell *last = NULL;
	int rc = SQLITE_OK;

	for (size_t i = 0; i < n; i++) {
		const struct vxt_event *e = &ev[i];
		unsigned op = e->op < VXT_OP_COUNT ? e->op : VXT_OP_OTHER;
		int64_t w = 0;

		/* the reports' rule: a failed completion of unknown latency
		 * is not a latency of 0 */
		if (e->phase != VXT_PH_DONE || (!e->latency_ns && e->error))
			continue;
		if (!sql_in_trange(&c->tr, e->time_ns))
			continue;
		if (c->interval)
			w = window_of((int64_t)e->time_ns, c->interval);
		if (!last || last->object != e->object || last->op != op || last->window != w) {
			last = cell_get(c, fi, e->object, op, w, &rc);
			if (!last)
				return rc;
		}
		if (vxt_latdist_add(&last->h, e->latency_ns) < 0)
			return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

static int read_file(struct lat_cursor *c, uint32_t fi)
{
	const struct sql_file *f = &c->vt->set->f[fi];
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = vxt_reader_open(f->path, err);
	struct vxt_scan *s;
	const struct vxt_event *ev;
	size_t first = 0, ci, n;
	bool rising = true;
	int got, rc = SQLITE_OK;

	if (!r)
		return set_error(c, err);
	/* the first chunk that can hold from_ns, when the chunks' times rise */
	for (size_t i = 0; i < vxt_reader_nchunks(r); i++) {
		const struct vxt_chunk_info *x = vxt_reader_chunk(r, i);

		if (i && x->last_ns < vxt_reader_chunk(r, i - 1)->last_ns) {
			first = 0;
			rising = false;
			break;
		}
		if (x->last_ns < c->tr.lo)
			first = i + 1;
	}
	s = vxt_scan_start(r, first, VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT |
				     VXT_FIELD_LATENCY | VXT_FIELD_ERROR,
			   vxt_scan_default_threads());
	if (!s) {
		vxt_reader_close(r);
		return SQLITE_NOMEM;
	}
	while (rc == SQLITE_OK && (got = vxt_scan_next(s, &ci, &ev, &n)) != 0) {
		if (got < 0) {
			snprintf(err, sizeof(err), "%s: %s", f->path, vxt_scan_error(s));
			rc = set_error(c, err);
			break;
		}
		if (rising && vxt_reader_chunk(r, ci)->first_ns > c->tr.hi)
			break;	/* nothing later is in range */
		rc = add_events(c, fi, ev, n);
	}
	vxt_scan_stop(s);
	vxt_reader_close(r);
	return rc;
}

/* Row order: file, object name, op, window. */
static int cmp_cell(const void *pa, const void *pb, void *set)
{
	const struct lat_cell *a = *(struct lat_cell *const *)pa, *b = *(struct lat_cell *const *)pb;
	const struct sql_set *sort_set = set;
	int d;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->object != b->object) {
		const struct vxt_objtab *ot = vxt_reader_objects(sort_set->f[a->file].r);

		d = strcmp(vxt_objtab_get(ot, a->object)->name, vxt_objtab_get(ot, b->object)->name);
		if (d)
			return d;
		return a->object < b->object ? -1 : 1;
	}
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return a->window < b->window ? -1 : a->window > b->window;
}

static int lat_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		      sqlite3_value **argv)
{
	struct lat_cursor *c = (struct lat_cursor *)cur;
	const struct sql_set *s = c->vt->set;
	int rc = SQLITE_OK;

	(void)idx_str;
	lat_clear(c);
	c->from = INT64_MIN;
	c->to = INT64_MAX;
	c->interval = 0;
	for (int i = 0; i < argc && i < (idx_num >> 8); i++) {
		int h = (idx_num >> (2 * i)) & 3;
		sqlite3_int64 v = sqlite3_value_int64(argv[i]);
		double d = sqlite3_value_double(argv[i]);

		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			continue;	/* NULL: the default */
		if (sqlite3_value_type(argv[i]) != SQLITE_INTEGER &&
		    sqlite3_value_type(argv[i]) != SQLITE_FLOAT)
			return set_error(c, h == 0 ? "from_ns must be a number" :
					    h == 1 ? "to_ns must be a number" :
						     "interval_ns must be a number");
		if (h == 0)
			c->from = v;
		else if (h == 1)
			c->to = v;
		else if (v <= 0 || (sqlite3_value_type(argv[i]) == SQLITE_FLOAT &&
				    (d >= 9223372036854775808.0 || d != (double)v)))
			/* a real number is no interval once rounded or clamped */
			return set_error(c, "interval_ns must be > 0, in whole ns below 2^63");
		else
			c->interval = v;
	}
	sql_time_range(&c->tr, c->from, c->to);
	for (size_t fi = 0; rc == SQLITE_OK && fi < s->n && c->from <= c->to; fi++)
		rc = read_file(c, (uint32_t)fi);
	if (rc != SQLITE_OK)
		return rc;
	if (c->n > 1)	/* no rows: c->cell may be NULL, which qsort_r() must not see */
		qsort_r(c->cell, c->n, sizeof(*c->cell), cmp_cell, (void *)s);
	return SQLITE_OK;
}

static int lat_next(sqlite3_vtab_cursor *cur)
{
	((struct lat_cursor *)cur)->i++;
	return SQLITE_OK;
}

static int lat_eof(sqlite3_vtab_cursor *cur)
{
	const struct lat_cursor *c = (const struct lat_cursor *)cur;

	return c->i >= c->n;
}

static int lat_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct lat_cursor *c = (const struct lat_cursor *)cur;
	const struct lat_cell *x = c->cell[c->i];
	const struct sql_file *f = &c->vt->set->f[x->file];
	static const double q[] = { 0.5, 0.9, 0.99, 0.999 };

	switch (col) {
	case L_HOST:
		sqlite3_result_text(ctx, vxt_reader_info(f->r)->host, -1, SQLITE_STATIC);
		break;
	case L_FILE: sqlite3_result_text(ctx, f->path, -1, SQLITE_STATIC); break;
	case L_OBJECT:
		sqlite3_result_text(ctx, vxt_objtab_get(vxt_reader_objects(f->r), x->object)->name, -1,
				    SQLITE_STATIC);
		break;
	case L_OP: sqlite3_result_text(ctx, vxt_op_name(x->op), -1, SQLITE_STATIC); break;
	case L_WINDOW:
		if (c->interval)
			sqlite3_result_int64(ctx, x->window);
		break;
	case L_N: sqlite3_result_int64(ctx, (sqlite3_int64)x->h.count); break;
	case L_AVG:
		sqlite3_result_int64(ctx, (sqlite3_int64)(x->h.count ? x->h.sum / x->h.count : 0));
		break;
	case L_MAX: sqlite3_result_int64(ctx, (sqlite3_int64)x->h.max); break;
	case L_P50: case L_P90: case L_P99: case L_P999:
		sqlite3_result_int64(ctx, (sqlite3_int64)vxt_latdist_quantile(&x->h, q[col - L_P50]));
		break;
	case L_HIST: {
		size_t size = vxt_latdist_encode(&x->h, NULL, 0);
		void *b = sqlite3_malloc64(size);

		if (!b)
			return SQLITE_NOMEM;
		vxt_latdist_encode(&x->h, b, size);
		sqlite3_result_blob64(ctx, b, size, sqlite3_free);
		break;
	}
	case L_FROM:
		if (c->from != INT64_MIN)
			sqlite3_result_int64(ctx, c->from);
		break;
	case L_TO:
		if (c->to != INT64_MAX)
			sqlite3_result_int64(ctx, c->to);
		break;
	case L_INTERVAL:
		if (c->interval)
			sqlite3_result_int64(ctx, c->interval);
		break;
	}
	return SQLITE_OK;
}

static int lat_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct lat_cursor *)cur)->i;
	return SQLITE_OK;
}

static void lat_close(sqlite3_vtab_cursor *cur)
{
	lat_clear((struct lat_cursor *)cur);
	sqlite3_free(cur);
}

static const struct sql_cursor_ops lat_ops = {
	.filter = lat_filter, .next = lat_next, .eof = lat_eof, .column = lat_column,
	.rowid = lat_rowid, .close = lat_close,
};

struct sql_cursor *sql_lat_open(struct sql_vtab *vt)
{
	struct lat_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->c.ops = &lat_ops;
	c->vt = vt;
	return &c->c;
}
