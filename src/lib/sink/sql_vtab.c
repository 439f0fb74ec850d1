/* sql_vtab.c - the event tables: events, errors and ios
 *
 * A cursor walks the files of its table chunk by chunk. With the plan of
 * sql_plan.c it skips the chunks whose index entry excludes every row (time
 * range, objects present, error counts), and where the index alone knows how
 * many rows a chunk gives (a chunk wholly inside the time range, counting
 * errors or completed I/Os) it yields that many rows without decompressing
 * the chunk: a chunk is decoded only when SQLite asks for a column or a
 * rowid of one of its rows. Decoded chunks hold only the fields the query
 * names. Invariant: the rows are the same, in the same order, with pushdown
 * on or off.
 * Each cursor decodes through readers of its own (opened on first use), so
 * two cursors over one table (a self-join) never share decoded chunks; the
 * chunk list is the table's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sql_evcursor.h"

/* The cursor's own reader of file @fi, opened on first use: the file the
 * table opened (same header), else an error. @return it, or NULL. */
static struct vxt_reader *own_reader(struct ev_cursor *c, size_t fi);

static bool want_err(const struct ev_cursor *c)
{
	return c->p.err || c->vt->kind == SQL_ERRORS;
}

static int set_error(struct ev_cursor *c, const char *fmt, const char *a, const char *b)
{
	sqlite3_free(c->vt->base.zErrMsg);
	c->vt->base.zErrMsg = sqlite3_mprintf(fmt, a, b);
	return SQLITE_ERROR;
}

/* Does @e give a row? */
static bool match(const struct ev_cursor *c, const struct vxt_event *e)
{
	if (ios_kind(c) && e->phase != VXT_PH_DONE)
		return false;
	if (want_err(c) && !e->error)
		return false;
	if (e->time_ns < c->flo || e->time_ns > c->fhi)
		return false;
	if (c->objs) {
		if (e->phase == VXT_PH_LOST)
			return c->lost_ok;
		if (e->object >= c->nobjok || !c->objok[e->object])
			return false;
	}
	return true;
}

static unsigned decode_fields(const struct ev_cursor *c);

/* The ordinal in its file of the current event of a decoded chunk. */
uint64_t sql_ev_ordinal(const struct ev_cursor *c)
{
	return vxt_reader_chunk(c->vt->set->f[c->fi].r, c->ci)->first_event + c->k;
}

/* Decode ahead on helper threads when most chunks will be decoded anyway:
 * rows whose columns are read, no time range and no error filter to skip
 * chunks by (or no pushdown at all). @return SQLITE_OK or an error. */
static int start_scan(struct ev_cursor *c)
{
	unsigned threads = vxt_scan_default_threads();

	vxt_scan_stop(c->scan);
	c->scan = NULL;
	c->scan_ci = SIZE_MAX;
	if (!threads || (c->p.pushdown && (!c->p.cols || want_err(c) || c->flo > 0 ||
					   c->fhi < UINT64_MAX)))
		return SQLITE_OK;
	if (!own_reader(c, c->fi))
		return SQLITE_ERROR;
	c->scan = vxt_scan_start(c->rd[c->fi], c->ci, decode_fields(c), threads);
	return c->scan ? SQLITE_OK : SQLITE_NOMEM;
}

static struct vxt_reader *own_reader(struct ev_cursor *c, size_t fi)
{
	const struct sql_file *f = &c->vt->set->f[fi];
	const struct vxt_file_info *a, *b;
	char err[VXT_ERRBUF_SIZE];

	if (c->rd[fi])
		return c->rd[fi];
	if (!(c->rd[fi] = vxt_reader_open(f->path, err))) {
		set_error(c, "%s%s", err, "");
		return NULL;
	}
	a = vxt_reader_info(c->rd[fi]);
	b = vxt_reader_info(f->r);
	if (vxt_reader_nchunks(c->rd[fi]) < vxt_reader_nchunks(f->r) ||
	    a->created_real_ns != b->created_real_ns || a->anchor_mono_ns != b->anchor_mono_ns ||
	    a->anchor_real_ns != b->anchor_real_ns || strcmp(a->command, b->command)) {
		vxt_reader_close(c->rd[fi]);
		c->rd[fi] = NULL;
		set_error(c, "%s: %s", f->path, "the file changed while being read (written "
			  "anew?); reopen the table");
		return NULL;
	}
	return c->rd[fi];
}

int sql_ev_enter_file(struct ev_cursor *c)
{
	const struct sql_file *f = &c->vt->set->f[c->fi];
	const struct vxt_objtab *ot = vxt_reader_objects(f->r);
	int64_t off = f->real_off;

	c->ci = 0;
	c->flo = c->p.lo;
	c->fhi = c->p.hi;
	/* real_ns = time_ns + off, saturated (sql_real_ns()): the times whose
	 * real_ns is in [rlo, rhi]; rlo - off and rhi - off are exact in
	 * uint64_t when not negative, and negative when rlo <= off (rhi < off) */
	if (c->p.rlo > c->p.rhi) {
		c->flo = 1, c->fhi = 0;
	} else {
		if (c->p.rlo > INT64_MIN && c->p.rlo > off) {
			uint64_t m = (uint64_t)c->p.rlo - (uint64_t)off;

			if (m > c->flo)
				c->flo = m;
		}
		if (c->p.rhi < INT64_MAX) {
			if (c->p.rhi < off)
				c->flo = 1, c->fhi = 0;
			else if ((uint64_t)c->p.rhi - (uint64_t)off < c->fhi)
				c->fhi = (uint64_t)c->p.rhi - (uint64_t)off;
		}
	}
	free(c->objok);
	free(c->slot);
	c->objok = NULL;
	c->slot = NULL;
	c->nobjok = 0;
	c->objs = c->p.objs || c->p.byobj;
	c->lost_ok = c->lost_only = false;
	if (c->objs) {
		bool any = false;

		c->nobjok = vxt_objtab_count(ot);
		c->objok = calloc(c->nobjok ? c->nobjok : 1, 1);
		c->slot = calloc(c->nobjok ? c->nobjok : 1, sizeof(*c->slot));
		if (!c->objok || !c->slot)
			return SQLITE_NOMEM;
		c->lost_ok = (!c->p.objs || sql_plan_has(&c->p, "")) &&
			     (!c->p.byobj || sql_ev_pass_slot(c, "") > 0);
		for (size_t i = 0; i < c->nobjok; i++) {
			const char *name = vxt_objtab_get(ot, (uint32_t)i)->name;

			if (c->p.byobj)
				c->slot[i] = sql_ev_pass_slot(c, name);
			c->objok[i] = (!c->p.objs || sql_plan_has(&c->p, name)) &&
				      (!c->p.byobj || c->slot[i]);
			any |= c->objok[i];
		}
		c->lost_only = c->lost_ok && !any;
	}
	for (int i = 0; i < 3; i++) {
		vxt_iopair_free(c->pair[i]);
		c->pair[i] = NULL;
		if (c->p.track && !(c->pair[i] = vxt_iopair_new()))
			return SQLITE_NOMEM;
	}
	/* the first chunk that can hold the range: a binary search when the
	 * chunks' last times rise, as a file's do unless its source reorders */
	if (c->p.pushdown && !c->p.track && c->flo > 0) {
		size_t n = vxt_reader_nchunks(f->r), lo = 0, hi = n;
		bool rising = true;

		for (size_t i = 1; i < n && rising; i++)
			rising = vxt_reader_chunk(f->r, i)->last_ns >=
				 vxt_reader_chunk(f->r, i - 1)->last_ns;
		while (rising && lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (vxt_reader_chunk(f->r, mid)->last_ns < c->flo)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (rising)
			c->ci = lo;
	}
	return start_scan(c);
}

/* The rows of chunk @ci the index alone can count, or -1. */
static int64_t index_count(const struct ev_cursor *c, const struct vxt_chunk_info *ci)
{
	uint64_t n = 0;
	bool err = want_err(c);

	if (c->p.track || c->p.cols || ci->first_ns < c->flo || ci->last_ns > c->fhi)
		return -1;
	if (!c->objs && !err && !ios_kind(c))
		return ci->nevents;
	if (!c->objs && err)
		return ci->nerrors;
	if (c->objs && c->lost_ok)
		return -1;
	if (c->objs && !err && !ios_kind(c))
		return -1;	/* the aggregates count starts and completions only */
	for (uint32_t j = 0; j < ci->nobjagg; j++) {
		const struct vxt_objagg *a = &ci->objagg[j];

		if (c->objs && (a->object >= c->nobjok || !c->objok[a->object]))
			continue;
		if (err) {
			n += a->errors;
		} else {
			for (int op = 0; op < VXT_OP_COUNT; op++)
				n += a->ios[op];
		}
	}
	return (int64_t)n;
}

/* Can chunk @ci hold a row? (Only the index is read.) */
bool sql_ev_chunk_may_match(const struct ev_cursor *c, const struct vxt_chunk_info *ci)
{
	bool err = want_err(c), any = false;

	if (ci->first_ns > c->fhi)
		return false;
	if (ci->last_ns < c->flo && !c->p.track)
		return false;
	if (err && !ci->nerrors)
		return false;
	if (c->lost_only)
		return ci->nlost > 0;	/* lost records count at least one event */
	if (!c->objs || c->lost_ok)
		return true;
	for (uint32_t j = 0; j < ci->nobjagg && !any; j++) {
		const struct vxt_objagg *a = &ci->objagg[j];

		if (a->object < c->nobjok && c->objok[a->object])
			any = !err || a->errors;
	}
	return any;
}

/* Feed @e to the phase pairing (ios with phase columns). */
static void track(struct ev_cursor *c, const struct vxt_event *e)
{
	static const int slot[VXT_PH_COUNT] = {
		[VXT_PH_QUEUE] = 1, [VXT_PH_GETRQ] = 2, [VXT_PH_INSERT] = 3,
	};
	struct vxt_iopair_val v = { .time_ns = e->time_ns };

	if (e->phase >= VXT_PH_COUNT || e->phase == VXT_PH_LOST)
		return;
	if (slot[e->phase]) {
		/* a failed put only loses this phase's time for that I/O */
		(void)vxt_iopair_put(c->pair[slot[e->phase] - 1], e->object, e->sector, e->bytes, &v);
	} else if (e->phase == VXT_PH_DONE) {
		for (int i = 0; i < 3; i++)
			c->ph[i] = vxt_iopair_take(c->pair[i], e->object, e->sector, e->bytes, &v) ?
				   v.time_ns : 0;
	}
}

/* From c->k on, stop at the next matching event of the decoded chunk.
 * @return true when there is one. */
bool sql_ev_seek_match(struct ev_cursor *c)
{
	for (; c->k < c->n; c->k++) {
		if (c->p.track)
			track(c, &c->ev[c->k]);
		if (match(c, &c->ev[c->k]))
			return true;
	}
	return false;
}

static unsigned decode_fields(const struct ev_cursor *c)
{
	unsigned f = c->p.fields;

	if (want_err(c))
		f |= VXT_FIELD_ERROR;
	if (c->p.track)
		f |= VXT_FIELD_SECTOR | VXT_FIELD_BYTES;
	return f;
}

int sql_ev_decode(struct ev_cursor *c)
{
	const struct sql_file *f = &c->vt->set->f[c->fi];
	struct vxt_reader *r;

	if (!(r = own_reader(c, c->fi)))
		return SQLITE_ERROR;
	if (c->ci >= vxt_reader_nchunks(r))
		return set_error(c, "%s: %s", f->path, "the file changed while being read");
	if (c->scan) {
		/* the scan gives every chunk in order; sql_ev_settle() asks for rising ones */
		int got = 1;

		while (got == 1 && (c->scan_ci == SIZE_MAX || c->scan_ci < c->ci))
			got = vxt_scan_next(c->scan, &c->scan_ci, &c->ev, &c->n);
		if (got < 0)
			return set_error(c, "%s: %s", f->path, vxt_scan_error(c->scan));
		if (got == 0 || c->scan_ci != c->ci)
			return set_error(c, "%s: %s", f->path, "the scan lost its place");
	} else {
		vxt_reader_set_fields(r, decode_fields(c));
		c->ev = vxt_reader_chunk_events(r, c->ci, &c->n);
		if (!c->ev)
			return set_error(c, "%s: %s", f->path, vxt_reader_error(r));
	}
	c->k = 0;
	return SQLITE_OK;
}

/* Move to the first row at or after chunk c->ci of file c->fi. */
int sql_ev_settle(struct ev_cursor *c)
{
	const struct sql_set *s = c->vt->set;
	int rc;

	c->virt = false;
	while (c->fi < s->n) {
		struct vxt_reader *r = s->f[c->fi].r;

		for (; c->ci < vxt_reader_nchunks(r); c->ci++) {
			const struct vxt_chunk_info *ci = vxt_reader_chunk(r, c->ci);
			int64_t cnt;

			if (c->p.pushdown && !sql_ev_chunk_may_match(c, ci))
				continue;
			cnt = c->p.pushdown ? index_count(c, ci) : -1;
			if (cnt == 0)
				continue;
			if (cnt > 0) {
				c->virt = true;
				c->vleft = (uint64_t)cnt;
				c->vj = 0;
				return SQLITE_OK;
			}
			rc = sql_ev_decode(c);
			if (rc)
				return rc;
			if (sql_ev_seek_match(c))
				return SQLITE_OK;
		}
		if (++c->fi == s->n && c->p.byobj)
			return sql_ev_next_names(c);	/* the names after this one's pass */
		if (c->fi < s->n && (rc = sql_ev_enter_file(c)))
			return rc;
	}
	c->eof = true;
	return SQLITE_OK;
}

/* A counted row is needed in full: decode its chunk and find it. */
static int materialize(struct ev_cursor *c)
{
	uint64_t j = 0;
	int rc;

	if (!c->virt)
		return SQLITE_OK;
	rc = sql_ev_decode(c);
	if (rc)
		return rc;
	for (c->k = 0; sql_ev_seek_match(c); c->k++, j++) {
		if (j == c->vj) {
			c->virt = false;
			return SQLITE_OK;
		}
	}
	return set_error(c, "%s: chunk disagrees with its index entry%s",
			 c->vt->set->f[c->fi].path, "");
}

static int ev_next(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	if (c->buffered) {
		c->bk++;
		return sql_ev_seek_buffered(c) ? SQLITE_OK : sql_ev_next_names(c);
	}
	if (c->virt) {
		if (--c->vleft) {
			c->vj++;
			return SQLITE_OK;
		}
		c->ci++;
		return sql_ev_settle(c);
	}
	c->k++;
	if (sql_ev_seek_match(c))
		return SQLITE_OK;
	c->ci++;
	return sql_ev_settle(c);
}

static int ev_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		     sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	int rc;

	sql_plan_free(&c->p);
	vxt_scan_stop(c->scan);
	c->scan = NULL;
	rc = sql_plan_parse(&c->p, idx_num, idx_str, argc, argv);
	if (rc)
		return rc;
	c->eof = false;
	c->fi = 0;
	c->virt = false;
	c->n = c->k = 0;
	sql_ev_free_group(c);
	if (c->p.byobj && (rc = sql_ev_make_passes(c)))
		return rc;
	if (!c->vt->set->n || (c->p.byobj && !c->npass)) {
		c->eof = true;
		return SQLITE_OK;
	}
	if (c->p.byobj)
		return sql_ev_next_names(c);
	rc = sql_ev_enter_file(c);
	return rc ? rc : sql_ev_settle(c);
}

static int ev_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ev_cursor *)cur)->eof;
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	int rc = materialize(c);

	if (rc)
		return rc;
	if (c->buffered)
		sql_ev_column(ctx, col, &c->vt->set->f[c->row.file], &c->row.ev, c->row.ordinal,
			      c->row.ph);
	else
		sql_ev_column(ctx, col, &c->vt->set->f[c->fi], &c->ev[c->k], sql_ev_ordinal(c), c->ph);
	return SQLITE_OK;
}

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	const struct sql_file *f;
	int rc = materialize(c);

	if (rc)
		return rc;
	if (c->buffered) {
		*rowid = (sqlite3_int64)(c->vt->set->f[c->row.file].base + c->row.ordinal);
		return SQLITE_OK;
	}
	f = &c->vt->set->f[c->fi];
	*rowid = (sqlite3_int64)(f->base + sql_ev_ordinal(c));
	return SQLITE_OK;
}

static void ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	sql_plan_free(&c->p);
	vxt_scan_stop(c->scan);
	sql_ev_free_group(c);
	sql_ev_free_passes(c);
	free(c->objok);
	free(c->slot);
	for (int i = 0; i < 3; i++)
		vxt_iopair_free(c->pair[i]);
	for (size_t i = 0; i < c->vt->set->n; i++)
		vxt_reader_close(c->rd[i]);
	free(c->rd);
	sqlite3_free(c);
}

static const struct sql_cursor_ops ev_ops = {
	.filter = ev_filter, .next = ev_next, .eof = ev_eof, .column = ev_column,
	.rowid = ev_rowid, .close = ev_close,
};

struct sql_cursor *sql_ev_open(struct sql_vtab *vt)
{
	struct ev_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->rd = calloc(vt->set->n ? vt->set->n : 1, sizeof(*c->rd));
	if (!c->rd) {
		sqlite3_free(c);
		return NULL;
	}
	c->c.ops = &ev_ops;
	c->vt = vt;
	c->eof = true;
	return &c->c;
}

int sql_ev_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	struct sql_vtab *vt = (struct sql_vtab *)base;
	double rows = 0;

	for (size_t i = 0; i < vt->set->n; i++)
		rows += (double)vxt_reader_nevents(vt->set->f[i].r);
	return sql_plan_best_index(info, vt->ctx->pushdown,
				   vt->kind == SQL_IOS ? SQL_IOS_NCOLS : SQL_EV_NCOLS, rows);
}
