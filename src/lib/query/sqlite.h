/* sqlite.h - the SQLite API as the SQL module's files see it
 *
 * Linked into libvxtrace (and so into vxreplay), the module calls libsqlite3
 * directly. Built as the loadable extension vxtrace_sqlite.so
 * (-DVXT_SQL_EXTENSION), it calls the host's SQLite through the routine table
 * sqlite3_load_extension() hands over, so one process never holds two SQLites.
 */
#ifndef VXT_SQL_SQLITE_H
#define VXT_SQL_SQLITE_H

#ifdef VXT_SQL_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

#endif
