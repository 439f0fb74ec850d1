/* sql_query.h - vxreplay --sql: SQL over the trace files
 *
 * The files open as the tables of formats/sql.md (events, ios, errors,
 * objects, chunks, files, agg); a query's rows print as text, CSV or JSON;
 * "--sql -" reads statements from the standard input, with sqlite3's
 * dot-commands (.tables, .schema, .mode, .quit).
 */
#ifndef VXREPLAY_SQL_QUERY_H
#define VXREPLAY_SQL_QUERY_H

#include <stdio.h>

#include <sqlite3.h>

#include "report/report.h"

/* Run @query (one or more statements; "-" for the prompt) over @files.
 * @return the exit status: 0, or 1 after printing why. */
int sql_query_run(char *const *files, int nfiles, const char *query, enum report_format fmt,
		  FILE *out);

/* Run the statements of @sql, printing each one's rows to @out as @fmt.
 * Errors print as "vxreplay: --sql:LINE:COL: message" (@origin names the
 * source in place of "--sql"). @return 0, or 1 after an error. */
int sql_query_exec(sqlite3 *db, const char *sql, enum report_format fmt, FILE *out,
		   const char *origin);

/* The interactive prompt over @db (sql_prompt.c). @return the exit status. */
int sql_prompt(sqlite3 *db, enum report_format fmt, FILE *out);

#endif
