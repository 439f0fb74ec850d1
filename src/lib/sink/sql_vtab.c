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

#include "sink/sql_plan.h"
#include "vxtrace/iopair.h"

struct ev_cursor {
	struct sql_cursor c;
	struct sql_vtab *vt;
	struct sql_plan p;
	struct vxt_reader **rd;		/* the cursor's own reader of each file */
	struct vxt_scan *scan;		/* decoding ahead on helper threads, or NULL */
	size_t scan_ci;			/* the chunk it gave last */
	bool eof;
	size_t fi;			/* current file */
	size_t ci;			/* current chunk of that file */
	uint64_t flo, fhi;		/* the plan's time range on this file's clock */
	bool objs;			/* rows are limited to some objects: */
	uint8_t *objok;			/* objects of this file kept */
	size_t nobjok;
	bool lost_ok;			/* ... and lost events (object "") */
	bool lost_only;			/* no object but lost events kept */
	/* object order (ORDER/GROUP BY object): one pass per name, sorted */
	char **pass;
	size_t npass, pi;
	/* the current chunk, decoded ... */
	const struct vxt_event *ev;
	size_t n, k;
	/* ... or not: rows counted by the index, the current one being match vj */
	bool virt;
	uint64_t vleft, vj;
	/* ios: the phases of the current completion, 0 = not captured */
	struct vxt_iopair *pair[3];	/* queue, getrq, insert */
	uint64_t ph[3];
};

static bool ios_kind(const struct ev_cursor *c)
{
	return c->vt->kind == SQL_IOS;
}

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
static bool want_err(const struct ev_cursor *c);

/* Decode ahead on helper threads when most chunks will be decoded anyway:
 * rows whose columns are read, no time range and no error filter to skip
 * chunks by (or no pushdown at all). @return SQLITE_OK or an error. */
static int start_scan(struct ev_cursor *c)
{
	const struct sql_file *f = &c->vt->set->f[c->fi];
	char err[VXT_ERRBUF_SIZE];
	unsigned threads = vxt_scan_default_threads();

	vxt_scan_stop(c->scan);
	c->scan = NULL;
	c->scan_ci = SIZE_MAX;
	if (!threads || (c->p.pushdown && (!c->p.cols || want_err(c) || c->flo > 0 ||
					   c->fhi < UINT64_MAX)))
		return SQLITE_OK;
	if (!c->rd[c->fi] && !(c->rd[c->fi] = vxt_reader_open(f->path, err)))
		return set_error(c, "%s%s", err, "");
	if (vxt_reader_nchunks(c->rd[c->fi]) < vxt_reader_nchunks(f->r))
		return set_error(c, "%s: %s", f->path, "the file changed while being read");
	c->scan = vxt_scan_start(c->rd[c->fi], c->ci, decode_fields(c), threads);
	return c->scan ? SQLITE_OK : SQLITE_NOMEM;
}

static bool plan_has(const struct sql_plan *p, const char *name)
{
	for (size_t j = 0; j < p->nnames; j++)
		if (!strcmp(p->names[j], name))
			return true;
	return false;
}

static int enter_file(struct ev_cursor *c)
{
	const struct sql_file *f = &c->vt->set->f[c->fi];
	const struct vxt_objtab *ot = vxt_reader_objects(f->r);
	int64_t off = f->real_off;

	c->ci = 0;
	c->flo = c->p.lo;
	c->fhi = c->p.hi;
	/* real_ns = time_ns + off */
	if (c->p.rlo > 0) {
		uint64_t m = (int64_t)c->p.rlo - off < 0 ? 0 : (uint64_t)((int64_t)c->p.rlo - off);

		if (m > c->flo)
			c->flo = m;
	}
	if (c->p.rhi < UINT64_MAX) {
		if ((int64_t)c->p.rhi - off < 0)
			c->flo = 1, c->fhi = 0;
		else if ((uint64_t)((int64_t)c->p.rhi - off) < c->fhi)
			c->fhi = (uint64_t)((int64_t)c->p.rhi - off);
	}
	free(c->objok);
	c->objok = NULL;
	c->nobjok = 0;
	c->objs = c->p.objs || c->p.byobj;
	c->lost_ok = c->lost_only = false;
	if (c->objs) {
		const char *pass = c->p.byobj ? c->pass[c->pi] : NULL;
		bool any = false;

		c->nobjok = vxt_objtab_count(ot);
		c->objok = calloc(c->nobjok ? c->nobjok : 1, 1);
		if (!c->objok)
			return SQLITE_NOMEM;
		c->lost_ok = (!c->p.objs || plan_has(&c->p, "")) && (!pass || !pass[0]);
		for (size_t i = 0; i < c->nobjok; i++) {
			const char *name = vxt_objtab_get(ot, (uint32_t)i)->name;

			c->objok[i] = (!c->p.objs || plan_has(&c->p, name)) &&
				      (!pass || !strcmp(pass, name));
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
static bool chunk_may_match(const struct ev_cursor *c, const struct vxt_chunk_info *ci)
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
static bool seek_match(struct ev_cursor *c)
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

static int decode(struct ev_cursor *c)
{
	const struct sql_file *f = &c->vt->set->f[c->fi];
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;

	if (!c->rd[c->fi] && !(c->rd[c->fi] = vxt_reader_open(f->path, err)))
		return set_error(c, "%s%s", err, "");
	r = c->rd[c->fi];
	if (c->ci >= vxt_reader_nchunks(r))
		return set_error(c, "%s: %s", f->path, "the file changed while being read");
	if (c->scan) {
		/* the scan gives every chunk in order; settle() asks for rising ones */
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
static int settle(struct ev_cursor *c)
{
	const struct sql_set *s = c->vt->set;
	int rc;

	c->virt = false;
	while (c->fi < s->n) {
		struct vxt_reader *r = s->f[c->fi].r;

		for (; c->ci < vxt_reader_nchunks(r); c->ci++) {
			const struct vxt_chunk_info *ci = vxt_reader_chunk(r, c->ci);
			int64_t cnt;

			if (c->p.pushdown && !chunk_may_match(c, ci))
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
			rc = decode(c);
			if (rc)
				return rc;
			if (seek_match(c))
				return SQLITE_OK;
		}
		if (++c->fi == s->n && c->p.byobj && c->pi + 1 < c->npass) {
			c->pi++;	/* the next object's pass */
			c->fi = 0;
		}
		if (c->fi < s->n && (rc = enter_file(c)))
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
	rc = decode(c);
	if (rc)
		return rc;
	for (c->k = 0; seek_match(c); c->k++, j++) {
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

	if (c->virt) {
		if (--c->vleft) {
			c->vj++;
			return SQLITE_OK;
		}
		c->ci++;
		return settle(c);
	}
	c->k++;
	if (seek_match(c))
		return SQLITE_OK;
	c->ci++;
	return settle(c);
}

static void free_passes(struct ev_cursor *c)
{
	for (size_t i = 0; i < c->npass; i++)
		free(c->pass[i]);
	free(c->pass);
	c->pass = NULL;
	c->npass = c->pi = 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);	/* SQLite's BINARY order */
}

/* The names to pass over, in order: every object name of the files (the
 * plan's only, when it names some), and "" first when lost records exist. */
static int make_passes(struct ev_cursor *c)
{
	const struct sql_set *s = c->vt->set;
	size_t cap = 1, k = 0;
	bool lost = false;

	free_passes(c);
	for (size_t f = 0; f < s->n; f++) {
		struct vxt_reader *r = s->f[f].r;

		cap += vxt_objtab_count(vxt_reader_objects(r));
		for (size_t i = 0; i < vxt_reader_nchunks(r) && !lost; i++)
			lost = vxt_reader_chunk(r, i)->nlost > 0;
	}
	c->pass = calloc(cap, sizeof(*c->pass));
	if (!c->pass)
		return SQLITE_NOMEM;
	for (size_t f = 0; f < s->n; f++) {
		const struct vxt_objtab *ot = vxt_reader_objects(s->f[f].r);

		for (size_t i = 0; i < vxt_objtab_count(ot); i++) {
			const char *name = vxt_objtab_get(ot, (uint32_t)i)->name;

			if (c->p.objs && !plan_has(&c->p, name))
				continue;
			if (!(c->pass[c->npass++] = strdup(name)))
				return SQLITE_NOMEM;
		}
	}
	if (lost && (!c->p.objs || plan_has(&c->p, "")) && !(c->pass[c->npass++] = strdup("")))
		return SQLITE_NOMEM;
	qsort(c->pass, c->npass, sizeof(*c->pass), cmp_name);
	for (size_t i = 0; i < c->npass; i++) {	/* unique */
		if (k && !strcmp(c->pass[k - 1], c->pass[i]))
			free(c->pass[i]);
		else
			c->pass[k++] = c->pass[i];
	}
	c->npass = k;
	return SQLITE_OK;
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
	if (c->p.byobj && (rc = make_passes(c)))
		return rc;
	if (!c->vt->set->n || (c->p.byobj && !c->npass)) {
		c->eof = true;
		return SQLITE_OK;
	}
	rc = enter_file(c);
	return rc ? rc : settle(c);
}

static int ev_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ev_cursor *)cur)->eof;
}

/* Columns of the ios table beyond the events'. */
static void ios_column(struct ev_cursor *c, sqlite3_context *ctx, int col,
		       const struct vxt_event *e)
{
	uint64_t issue = e->latency_ns && e->latency_ns <= e->time_ns ? e->time_ns - e->latency_ns : 0;
	uint64_t q = c->ph[0];

	switch (col) {
	case C_ISSUE:
		if (issue)
			sqlite3_result_int64(ctx, (sqlite3_int64)issue);
		break;
	case C_QUEUE: case C_GETRQ: case C_INSERT:
		if (c->ph[col - C_QUEUE])
			sqlite3_result_int64(ctx, (sqlite3_int64)c->ph[col - C_QUEUE]);
		break;
	case C_Q2D:
		if (q && issue >= q)
			sqlite3_result_int64(ctx, (sqlite3_int64)(issue - q));
		break;
	case C_Q2C:
		if (q && e->time_ns >= q)
			sqlite3_result_int64(ctx, (sqlite3_int64)(e->time_ns - q));
		break;
	}
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	const struct sql_file *f;
	const struct vxt_event *e;
	const struct vxt_object *o;
	char buf[64];
	int rc = materialize(c);

	if (rc)
		return rc;
	f = &c->vt->set->f[c->fi];
	e = &c->ev[c->k];
	switch (col) {
	case C_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)e->time_ns); break;
	case C_OBJECT:
		o = e->phase == VXT_PH_LOST ? NULL : vxt_objtab_get(vxt_reader_objects(f->r), e->object);
		sqlite3_result_text(ctx, o ? o->name : e->phase == VXT_PH_LOST ? "" : "?", -1,
				    SQLITE_TRANSIENT);
		break;
	case C_PHASE: sqlite3_result_text(ctx, vxt_phase_name(e->phase), -1, SQLITE_STATIC); break;
	case C_OP: sqlite3_result_text(ctx, vxt_op_name(e->op), -1, SQLITE_STATIC); break;
	case C_FLAGS:
		sqlite3_result_text(ctx, vxt_flags_format(e->flags, buf, sizeof(buf)), -1,
				    SQLITE_TRANSIENT);
		break;
	case C_SECTOR: sqlite3_result_int64(ctx, (sqlite3_int64)e->sector); break;
	case C_BYTES: sqlite3_result_int64(ctx, e->bytes); break;
	case C_LATENCY: sqlite3_result_int64(ctx, (sqlite3_int64)e->latency_ns); break;
	case C_ERROR: sqlite3_result_int(ctx, -(int)e->error); break;
	case C_ERRNAME:
		sqlite3_result_text(ctx, vxt_errno_label(e->error, buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
		break;
	case C_PID: sqlite3_result_int64(ctx, e->pid); break;
	case C_COMM:
		sqlite3_result_text(ctx, vxt_strtab_get(vxt_reader_strings(f->r), e->comm), -1,
				    SQLITE_TRANSIENT);
		break;
	case C_CPU: sqlite3_result_int(ctx, e->cpu); break;
	case C_WALL:
		sqlite3_result_text(ctx, sql_format_wall((uint64_t)((int64_t)e->time_ns + f->real_off),
							 buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
		break;
	case C_REAL:
		sqlite3_result_int64(ctx, (sqlite3_int64)e->time_ns + f->real_off);
		break;
	case C_HOST:
		sqlite3_result_text(ctx, vxt_reader_info(f->r)->host, -1, SQLITE_TRANSIENT);
		break;
	case C_FILE: sqlite3_result_text(ctx, f->path, -1, SQLITE_TRANSIENT); break;
	case C_ORDINAL:
		sqlite3_result_int64(ctx, (sqlite3_int64)(vxt_reader_chunk(f->r, c->ci)->first_event +
							  c->k));
		break;
	case C_OBJID:
		if (e->phase != VXT_PH_LOST)
			sqlite3_result_int64(ctx, e->object);
		break;
	default:
		ios_column(c, ctx, col, e);
		break;
	}
	return SQLITE_OK;
}

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	const struct sql_file *f;
	int rc = materialize(c);

	if (rc)
		return rc;
	f = &c->vt->set->f[c->fi];
	*rowid = (sqlite3_int64)(f->base + vxt_reader_chunk(f->r, c->ci)->first_event + c->k);
	return SQLITE_OK;
}

static void ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	sql_plan_free(&c->p);
	vxt_scan_stop(c->scan);
	free_passes(c);
	free(c->objok);
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
