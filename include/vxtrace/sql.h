/* sql.h - SQL over .vxt files: a SQLite virtual-table module
 *
 * The module "vxtrace" reads trace files in place, with no import: a table
 * is one kind of row over one or more files (a rotated set, several hosts),
 * and the index answers what it can (time ranges, objects, errors) without
 * decompressing chunks. Tables, columns and functions: formats/sql.md.
 *
 *   sqlite3 *db;
 *   char err[VXT_ERRBUF_SIZE];
 *   sqlite3_open(":memory:", &db);
 *   if (vxt_sql_register(db) != SQLITE_OK ||
 *       vxt_sql_create_tables(db, files, nfiles, err) != SQLITE_OK)
 *           die("%s", err);
 *   // SELECT object, vxt_percentile(latency_ns, 0.99) FROM ios GROUP BY object
 *
 * In SQL:  CREATE VIRTUAL TABLE t USING vxtrace('trace.vxt' [, 'more.vxt' ...] [, 'errors'])
 * (a bare table kind among the arguments picks the kind; events by default).
 */
#ifndef VXTRACE_SQL_H
#define VXTRACE_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "vxt.h"

/* The table kinds, in the order vxt_sql_create_tables() creates them. */
extern const char *const vxt_sql_tables[];
#define VXT_SQL_NTABLES 8

/* Register the module "vxtrace" and the functions vxt_percentile(),
 * vxt_lat_quantile(), vxt_time(), vxt_errno() and vxt_pushdown() on @db.
 * Pushdown starts on, unless the environment sets VXT_SQL_PUSHDOWN=0.
 * @return SQLITE_OK or an SQLite error code. */
int vxt_sql_register(sqlite3 *db);
/* Create one temp table of each kind (events, ios, errors, objects, chunks,
 * files, agg) over @files (@n paths or glob patterns). A file that cannot be
 * opened fails the call; a damaged one is read up to its damage.
 * @return SQLITE_OK, or an SQLite error code with a message in @err. */
int vxt_sql_create_tables(sqlite3 *db, const char *const *files, size_t n,
			  char err[VXT_ERRBUF_SIZE]);
/* Push constraints into the index (true, the default) or scan every row and
 * let SQLite filter them (false): the two give the same results. Applies to
 * statements prepared afterwards. */
void vxt_sql_set_pushdown(sqlite3 *db, bool on);

#endif
