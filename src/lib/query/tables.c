/* tables.c - the columns of every table, and the index tables
 *
 * The event tables' schemas and the fields each column needs; the index
 * tables (objects, chunks, files, agg) list what the readers hold in
 * memory - headers, object tables, index entries and their per-object
 * aggregates - so they never decompress a chunk.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "query/sql_impl.h"

#define EV_COLS \
	"time_ns INTEGER, object TEXT, phase TEXT, op TEXT, flags TEXT, sector INTEGER, " \
	"bytes INTEGER, latency_ns INTEGER, error INTEGER, errname TEXT, pid INTEGER, " \
	"comm TEXT, cpu INTEGER, wall TEXT, real_ns INTEGER, host TEXT, file TEXT, " \
	"ordinal INTEGER, object_id INTEGER, rel_ns INTEGER"

const char *sql_schema(enum sql_kind kind)
{
	switch (kind) {
	case SQL_EVENTS:
	case SQL_ERRORS:
		return "CREATE TABLE x(" EV_COLS ")";
	case SQL_IOS:
		return "CREATE TABLE x(" EV_COLS ", issue_ns INTEGER, queue_ns INTEGER, "
		       "getrq_ns INTEGER, insert_ns INTEGER, q2d_ns INTEGER, q2c_ns INTEGER)";
	case SQL_OBJECTS:
		return "CREATE TABLE x(host TEXT, file TEXT, id INTEGER, name TEXT, kind TEXT, "
		       "dev TEXT, major INTEGER, minor INTEGER, size_bytes INTEGER)";
	case SQL_CHUNKS:
		return "CREATE TABLE x(host TEXT, file TEXT, chunk INTEGER, offset INTEGER, "
		       "data_offset INTEGER, data_size INTEGER, raw_size INTEGER, data_crc INTEGER, "
		       "events INTEGER, first_event INTEGER, first_ns INTEGER, last_ns INTEGER, "
		       "errors INTEGER, lost INTEGER, objects INTEGER)";
	case SQL_FILES:
		return "CREATE TABLE x(host TEXT, file TEXT, version INTEGER, compat INTEGER, "
		       "incompat INTEGER, source TEXT, profile TEXT, command TEXT, created TEXT, "
		       "created_real_ns INTEGER, anchor_mono_ns INTEGER, anchor_real_ns INTEGER, "
		       "events INTEGER, chunks INTEGER, first_ns INTEGER, last_ns INTEGER, "
		       "idx TEXT, damage_offset INTEGER, warning TEXT)";
	case SQL_AGG:
		return "CREATE TABLE x(host TEXT, file TEXT, chunk INTEGER, first_ns INTEGER, "
		       "last_ns INTEGER, object TEXT, object_id INTEGER, ios INTEGER, reads INTEGER, "
		       "writes INTEGER, flushes INTEGER, discards INTEGER, other_ios INTEGER, "
		       "starts INTEGER, errors INTEGER, bytes_read INTEGER, bytes_written INTEGER, "
		       "lat_sum_ns INTEGER, lat_hist TEXT)";
	case SQL_LATENCY:
		return "CREATE TABLE x(host TEXT, file TEXT, object TEXT, op TEXT, window_ns INTEGER, "
		       "n INTEGER, avg_ns INTEGER, max_ns INTEGER, p50_ns INTEGER, p90_ns INTEGER, "
		       "p99_ns INTEGER, p999_ns INTEGER, hist BLOB, from_ns HIDDEN, to_ns HIDDEN, "
		       "interval_ns HIDDEN)";
	}
	return NULL;
}

unsigned sql_col_fields(int col)
{
	switch (col) {
	case C_TIME: case C_WALL: case C_REAL: case C_REL: return VXT_FIELD_TIME;
	case C_OBJECT: case C_OBJID: return VXT_FIELD_OBJECT;
	case C_PHASE: case C_OP: return VXT_FIELD_PHASE_OP;
	case C_FLAGS: return VXT_FIELD_FLAGS;
	case C_SECTOR: return VXT_FIELD_SECTOR;
	case C_BYTES: return VXT_FIELD_BYTES;
	case C_LATENCY: return VXT_FIELD_LATENCY;
	case C_ERROR: case C_ERRNAME: return VXT_FIELD_ERROR;
	case C_PID: return VXT_FIELD_PID;
	case C_COMM: return VXT_FIELD_COMM;
	case C_CPU: return VXT_FIELD_CPU;
	case C_ISSUE: case C_Q2D: return VXT_FIELD_TIME | VXT_FIELD_LATENCY;
	case C_QUEUE: case C_GETRQ: case C_INSERT: case C_Q2C:
		return VXT_FIELD_TIME | VXT_FIELD_SECTOR | VXT_FIELD_BYTES;
	default: return 0;	/* host, file, ordinal: from the table */
	}
}

char *sql_format_wall(uint64_t real_ns, char *buf, size_t size)
{
	time_t t = (time_t)(real_ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "%" PRIu64, real_ns);
		return buf;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(real_ns % 1000000000u));
	return buf;
}

/* ---- the index tables: one row per (file, item, sub-item) ---- */

struct ix_cursor {
	struct sql_cursor c;
	struct sql_vtab *vt;
	size_t fi, i, j;
	sqlite3_int64 row;
	bool eof;
};

/* Items of file @fi: objects, chunks, 1 (files), chunks (agg). */
static size_t items(const struct ix_cursor *c, size_t fi)
{
	struct vxt_reader *r = c->vt->set->f[fi].r;

	switch (c->vt->kind) {
	case SQL_OBJECTS: return vxt_objtab_count(vxt_reader_objects(r));
	case SQL_FILES: return 1;
	default: return vxt_reader_nchunks(r);
	}
}

static size_t subitems(const struct ix_cursor *c)
{
	if (c->vt->kind != SQL_AGG)
		return 1;
	return vxt_reader_chunk(c->vt->set->f[c->fi].r, c->i)->nobjagg;
}

/* From (fi, i, j), find the first existing row. */
static void ix_settle(struct ix_cursor *c)
{
	for (; c->fi < c->vt->set->n; c->fi++, c->i = 0, c->j = 0)
		for (; c->i < items(c, c->fi); c->i++, c->j = 0)
			if (c->j < subitems(c))
				return;
	c->eof = true;
}

static int ix_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		     sqlite3_value **argv)
{
	struct ix_cursor *c = (struct ix_cursor *)cur;

	(void)idx_num, (void)idx_str, (void)argc, (void)argv;
	c->fi = c->i = c->j = 0;
	c->row = 0;
	c->eof = false;
	ix_settle(c);
	return SQLITE_OK;
}

static int ix_next(sqlite3_vtab_cursor *cur)
{
	struct ix_cursor *c = (struct ix_cursor *)cur;

	c->row++;
	c->j++;
	ix_settle(c);
	return SQLITE_OK;
}

static int ix_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ix_cursor *)cur)->eof;
}

static void result_u64(sqlite3_context *ctx, uint64_t v)
{
	sqlite3_result_int64(ctx, (sqlite3_int64)v);
}

static void object_col(sqlite3_context *ctx, const struct vxt_object *o, uint32_t id, int col)
{
	char dev[32];

	switch (col) {
	case 2: result_u64(ctx, id); break;
	case 3: sqlite3_result_text(ctx, o->name, -1, SQLITE_TRANSIENT); break;
	case 4: sqlite3_result_text(ctx, vxt_obj_kind_name(o->kind), -1, SQLITE_STATIC); break;
	case 5:
		snprintf(dev, sizeof(dev), "%u:%u", o->dev >> 20, o->dev & 0xfffff);
		sqlite3_result_text(ctx, dev, -1, SQLITE_TRANSIENT);
		break;
	case 6: result_u64(ctx, o->dev >> 20); break;
	case 7: result_u64(ctx, o->dev & 0xfffff); break;
	case 8: result_u64(ctx, o->size); break;
	}
}

static void chunk_col(sqlite3_context *ctx, const struct vxt_chunk_info *ci, size_t i, int col)
{
	const uint64_t v[] = { i, ci->offset, ci->data_offset, ci->data_size, ci->raw_size,
			       ci->data_crc, ci->nevents, ci->first_event, ci->first_ns,
			       ci->last_ns, ci->nerrors, ci->nlost, ci->nobjagg };

	if (col >= 2 && col - 2 < (int)(sizeof(v) / sizeof(v[0])))
		result_u64(ctx, v[col - 2]);
}

static void file_col(sqlite3_context *ctx, struct vxt_reader *r, int col)
{
	const struct vxt_file_info *in = vxt_reader_info(r);
	size_t n = vxt_reader_nchunks(r);
	const char *why;
	int64_t dmg = vxt_reader_damage(r, &why);
	char buf[600];

	switch (col) {
	case 2: result_u64(ctx, in->version); break;
	case 3: result_u64(ctx, in->compat); break;
	case 4: result_u64(ctx, in->incompat); break;
	case 5: sqlite3_result_text(ctx, in->source, -1, SQLITE_TRANSIENT); break;
	case 6: sqlite3_result_text(ctx, in->profile, -1, SQLITE_TRANSIENT); break;
	case 7: sqlite3_result_text(ctx, in->command, -1, SQLITE_TRANSIENT); break;
	case 8:
		sqlite3_result_text(ctx, sql_format_wall(in->created_real_ns, buf, sizeof(buf)), -1,
				    SQLITE_TRANSIENT);
		break;
	case 9: result_u64(ctx, in->created_real_ns); break;
	case 10: result_u64(ctx, in->anchor_mono_ns); break;
	case 11: result_u64(ctx, in->anchor_real_ns); break;
	case 12: result_u64(ctx, vxt_reader_nevents(r)); break;
	case 13: result_u64(ctx, n); break;
	case 14: if (n) result_u64(ctx, vxt_reader_chunk(r, 0)->first_ns); break;
	case 15: if (n) result_u64(ctx, vxt_reader_chunk(r, n - 1)->last_ns); break;
	case 16:
		sqlite3_result_text(ctx, vxt_reader_recovered(r) ? "recovered" : "footer", -1,
				    SQLITE_STATIC);
		break;
	case 17: if (dmg >= 0) sqlite3_result_int64(ctx, dmg); break;
	case 18:
		if (dmg >= 0) {
			snprintf(buf, sizeof(buf), "damaged at offset %" PRId64 ": %s; events after "
				 "it are lost", dmg, why);
			sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		} else if (vxt_reader_recovered(r)) {
			sqlite3_result_text(ctx, "no footer: recovered by a forward scan", -1,
					    SQLITE_STATIC);
		}
		break;
	}
}

static void agg_col(sqlite3_context *ctx, struct vxt_reader *r, const struct vxt_chunk_info *ci,
		    size_t i, const struct vxt_objagg *a, int col)
{
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), a->object);
	uint64_t ios = 0;
	char buf[VXT_LAT_BUCKETS * 12 + 4];
	size_t len = 0;

	for (int op = 0; op < VXT_OP_COUNT; op++)
		ios += a->ios[op];
	switch (col) {
	case 2: result_u64(ctx, i); break;
	case 3: result_u64(ctx, ci->first_ns); break;
	case 4: result_u64(ctx, ci->last_ns); break;
	case 5: sqlite3_result_text(ctx, o ? o->name : "?", -1, SQLITE_TRANSIENT); break;
	case 6: result_u64(ctx, a->object); break;
	case 7: result_u64(ctx, ios); break;
	case 8: result_u64(ctx, a->ios[VXT_OP_READ]); break;
	case 9: result_u64(ctx, a->ios[VXT_OP_WRITE]); break;
	case 10: result_u64(ctx, a->ios[VXT_OP_FLUSH]); break;
	case 11: result_u64(ctx, a->ios[VXT_OP_DISCARD]); break;
	case 12:
		result_u64(ctx, ios - a->ios[VXT_OP_READ] - a->ios[VXT_OP_WRITE] -
			   a->ios[VXT_OP_FLUSH] - a->ios[VXT_OP_DISCARD]);
		break;
	case 13: result_u64(ctx, a->starts); break;
	case 14: result_u64(ctx, a->errors); break;
	case 15: result_u64(ctx, a->bytes_read); break;
	case 16: result_u64(ctx, a->bytes_written); break;
	case 17: result_u64(ctx, a->lat_sum_ns); break;
	case 18:
		buf[len++] = '[';
		for (int b = 0; b < VXT_LAT_BUCKETS; b++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", b ? "," : "",
						a->lat_hist[b]);
		buf[len++] = ']';
		sqlite3_result_text(ctx, buf, (int)len, SQLITE_TRANSIENT);
		break;
	}
}

static int ix_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ix_cursor *c = (struct ix_cursor *)cur;
	const struct sql_file *f = &c->vt->set->f[c->fi];
	const struct vxt_chunk_info *ci;

	if (col == 0) {
		sqlite3_result_text(ctx, vxt_reader_info(f->r)->host, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	if (col == 1) {
		sqlite3_result_text(ctx, f->path, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	switch (c->vt->kind) {
	case SQL_OBJECTS:
		object_col(ctx, vxt_objtab_get(vxt_reader_objects(f->r), (uint32_t)c->i),
			   (uint32_t)c->i, col);
		break;
	case SQL_CHUNKS:
		chunk_col(ctx, vxt_reader_chunk(f->r, c->i), c->i, col);
		break;
	case SQL_FILES:
		file_col(ctx, f->r, col);
		break;
	default:
		ci = vxt_reader_chunk(f->r, c->i);
		agg_col(ctx, f->r, ci, c->i, &ci->objagg[c->j], col);
		break;
	}
	return SQLITE_OK;
}

static int ix_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct ix_cursor *)cur)->row;
	return SQLITE_OK;
}

static void ix_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
}

static const struct sql_cursor_ops ix_ops = {
	.filter = ix_filter, .next = ix_next, .eof = ix_eof, .column = ix_column,
	.rowid = ix_rowid, .close = ix_close,
};

struct sql_cursor *sql_ix_open(struct sql_vtab *vt)
{
	struct ix_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->c.ops = &ix_ops;
	c->vt = vt;
	c->eof = true;
	return &c->c;
}

int sql_ix_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	struct sql_vtab *vt = (struct sql_vtab *)base;
	double rows = 1;

	for (size_t i = 0; i < vt->set->n; i++)
		rows += (double)vxt_reader_nchunks(vt->set->f[i].r) * (vt->kind == SQL_AGG ? 4 : 1);
	info->estimatedCost = rows;
	info->estimatedRows = (sqlite3_int64)rows;
	return SQLITE_OK;
}
