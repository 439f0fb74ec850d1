/* sql_impl.h - the SQL module's insides (internal to libvxtrace)
 *
 * A table of the module "vxtrace" holds a set of opened files (sql_files.c).
 * Event tables (events, ios, errors) scan chunks through the index and their
 * pushdown plan (sql_vtab.c); index tables (objects, chunks, files, agg)
 * list what the readers hold in memory (sql_tables.c); the latency table
 * builds the reports' histograms (sql_latency.c). Functions: sql_funcs.c.
 */
#ifndef VXT_SQL_IMPL_H
#define VXT_SQL_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "sink/sql_sqlite.h"
#include "vxtrace/vxtrace.h"

/* One opened file of a table. */
struct sql_file {
	char *path;
	struct vxt_reader *r;
	uint64_t base;			/* rowid of its first event */
	int64_t real_off;		/* realtime - monotonic, from the header anchor */
};

struct sql_set {
	size_t n;
	struct sql_file *f;		/* ordered by the wall clock of their first event */
	char *key;			/* the arguments that named the files */
	unsigned refs;			/* tables sharing it */
	struct sql_set *next;
};

/* Per connection: the module's and the functions' shared state. */
struct sql_ctx {
	bool pushdown;
	uint64_t group_memory;		/* object order: bytes of rows kept per read */
	struct sql_set *sets;		/* opened file sets, shared by the tables over them */
};

/* The set of files @pats name (paths or glob patterns), shared with the
 * connection's other tables over the same arguments. @return the set (give
 * it back with sql_set_put()), or NULL with a message in @err. */
struct sql_set *sql_set_get(struct sql_ctx *ctx, const char *const *pats, size_t n, char *err,
			    size_t errsz);
void sql_set_put(struct sql_ctx *ctx, struct sql_set *s);
/* Are the set's files still the ones opened (vxt_reader_check_same())?
 * @return 0, or -1 with the first that is not named in @err. */
int sql_set_check(struct sql_set *s, char *err, size_t errsz);

enum sql_kind {
	SQL_EVENTS, SQL_IOS, SQL_ERRORS, SQL_OBJECTS, SQL_CHUNKS, SQL_FILES, SQL_AGG, SQL_LATENCY
};

struct sql_vtab {
	sqlite3_vtab base;
	struct sql_ctx *ctx;
	enum sql_kind kind;
	struct sql_set *set;
};

/* Columns of the event tables (events and errors use the first
 * SQL_EV_NCOLS, ios all). */
enum {
	C_TIME, C_OBJECT, C_PHASE, C_OP, C_FLAGS, C_SECTOR, C_BYTES, C_LATENCY, C_ERROR,
	C_ERRNAME, C_PID, C_COMM, C_CPU, C_WALL, C_REAL, C_HOST, C_FILE, C_ORDINAL, C_OBJID,
	SQL_EV_NCOLS,
	C_ISSUE = SQL_EV_NCOLS, C_QUEUE, C_GETRQ, C_INSERT, C_Q2D, C_Q2C,
	SQL_IOS_NCOLS
};

/* The CREATE TABLE statement of @kind, for sqlite3_declare_vtab(). */
const char *sql_schema(enum sql_kind kind);
/* The reader fields column @col of an event table needs. */
unsigned sql_col_fields(int col);
/* "2026-12-01T10:30:20.123456789Z" (UTC). @return buf. */
char *sql_format_wall(uint64_t real_ns, char *buf, size_t size);
/* real_ns of time_ns @time_ns of a file whose clock anchor gives @off:
 * time_ns + off, or INT64_MAX above it (a crafted anchor). Can't fail. */
int64_t sql_real_ns(uint64_t time_ns, int64_t off);
/* Column @col of the event-table row of @e: its file @f, its @ordinal in
 * that file and (ios) its queue, getrq and insert times @ph (0 = none). */
void sql_ev_column(sqlite3_context *ctx, int col, const struct sql_file *f,
		   const struct vxt_event *e, uint64_t ordinal, const uint64_t ph[3]);

/* A cursor of either family starts with this; the module dispatches on ops. */
struct sql_cursor_ops {
	int (*filter)(sqlite3_vtab_cursor *c, int idx_num, const char *idx_str, int argc,
		      sqlite3_value **argv);
	int (*next)(sqlite3_vtab_cursor *c);
	int (*eof)(sqlite3_vtab_cursor *c);
	int (*column)(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col);
	int (*rowid)(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid);
	void (*close)(sqlite3_vtab_cursor *c);
};

struct sql_cursor {
	sqlite3_vtab_cursor base;
	const struct sql_cursor_ops *ops;
};

/* The event tables (sql_vtab.c) ... */
int sql_ev_best_index(sqlite3_vtab *vt, sqlite3_index_info *info);
struct sql_cursor *sql_ev_open(struct sql_vtab *vt);
/* ... and the index tables (sql_tables.c). @return NULL when out of memory. */
int sql_ix_best_index(sqlite3_vtab *vt, sqlite3_index_info *info);
struct sql_cursor *sql_ix_open(struct sql_vtab *vt);

/* ... and the latency histograms (sql_latency.c). */
int sql_lat_best_index(sqlite3_vtab *vt, sqlite3_index_info *info);
struct sql_cursor *sql_lat_open(struct sql_vtab *vt);

/* The functions vxt_percentile() etc. on @db (sql_funcs.c). */
int sql_funcs_register(sqlite3 *db, struct sql_ctx *ctx);

#endif
