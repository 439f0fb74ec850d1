/* sql.c - the SQLite module "vxtrace": tables over .vxt files, and its setup
 *
 *   CREATE VIRTUAL TABLE t USING vxtrace('trace.vxt' [, 'more*.vxt' ...] [, kind])
 *
 * The arguments are files or glob patterns, and at most one bare table kind
 * (events, ios, errors, objects, chunks, files, agg, latency; events when
 * absent). The module dispatches each method to the event tables
 * (sql_vtab.c), the index tables (sql_tables.c) or the latency table
 * (sql_latency.c). Built with -DVXT_SQL_EXTENSION this file is
 * also the loadable extension's entry point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sql_impl.h"
#include "sink/sql_rows.h"

#ifdef VXT_SQL_EXTENSION
SQLITE_EXTENSION_INIT1
#endif

#include "vxtrace/sql.h"

const char *const vxt_sql_tables[VXT_SQL_NTABLES] = {
	"events", "ios", "errors", "objects", "chunks", "files", "agg", "latency",
};

static int kind_of(const char *s)
{
	for (int i = 0; i < VXT_SQL_NTABLES; i++)
		if (!strcmp(s, vxt_sql_tables[i]))
			return i;
	return -1;
}

/* A module argument as written ('x', "x" or x) without its quotes.
 * @return a malloc'd string, or NULL when out of memory. */
static char *unquote(const char *a)
{
	size_t n = strlen(a), k = 0;
	char *s = malloc(n + 1);
	char q = n >= 2 && (a[0] == '\'' || a[0] == '"') && a[n - 1] == a[0] ? a[0] : 0;

	if (!s)
		return NULL;
	if (!q) {
		/* a bare argument: trimmed of the blanks SQLite leaves around it */
		while (*a == ' ')
			a++, n--;
		while (n && a[n - 1] == ' ')
			n--;
		memcpy(s, a, n);
		s[n] = 0;
		return s;
	}
	for (size_t i = 1; i + 1 < n; i++) {
		s[k++] = a[i];
		if (a[i] == q && a[i + 1] == q)
			i++;
	}
	s[k] = 0;
	return s;
}

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **errmsg)
{
	struct sql_vtab *vt;
	char **files = calloc((size_t)(argc > 3 ? argc : 1), sizeof(*files));
	size_t nfiles = 0;
	int kind = SQL_EVENTS, have_kind = 0, rc = SQLITE_ERROR;
	char err[VXT_ERRBUF_SIZE];

	if (!files)
		return SQLITE_NOMEM;
	for (int i = 3; i < argc; i++) {
		char *a = unquote(argv[i]);
		int k;

		if (!a) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		k = kind_of(a);
		if (k >= 0 && !have_kind) {
			kind = k;
			have_kind = 1;
			free(a);
		} else {
			files[nfiles++] = a;
		}
	}
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	memset(vt, 0, sizeof(*vt));
	vt->ctx = aux;
	vt->kind = (enum sql_kind)kind;
	vt->set = sql_set_get(vt->ctx, (const char *const *)files, nfiles, err, sizeof(err));
	if (!vt->set) {
		*errmsg = sqlite3_mprintf("vxtrace: %s", err);
		sqlite3_free(vt);
		goto out;
	}
	rc = sqlite3_declare_vtab(db, sql_schema(vt->kind));
	if (rc != SQLITE_OK) {
		sql_set_put(vt->ctx, vt->set);
		sqlite3_free(vt);
		goto out;
	}
	*out = &vt->base;
out:
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return rc;
}

static int vt_disconnect(sqlite3_vtab *base)
{
	struct sql_vtab *vt = (struct sql_vtab *)base;

	sql_set_put(vt->ctx, vt->set);
	sqlite3_free(vt);
	return SQLITE_OK;
}

static bool event_kind(const sqlite3_vtab *base)
{
	enum sql_kind k = ((const struct sql_vtab *)base)->kind;

	return k == SQL_EVENTS || k == SQL_IOS || k == SQL_ERRORS;
}

static int vt_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	if (((struct sql_vtab *)base)->kind == SQL_LATENCY)
		return sql_lat_best_index(base, info);
	return event_kind(base) ? sql_ev_best_index(base, info) : sql_ix_best_index(base, info);
}

static int vt_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct sql_vtab *vt = (struct sql_vtab *)base;
	struct sql_cursor *c = vt->kind == SQL_LATENCY ? sql_lat_open(vt) :
			       event_kind(base) ? sql_ev_open(vt) : sql_ix_open(vt);

	if (!c)
		return SQLITE_NOMEM;
	*out = &c->base;
	return SQLITE_OK;
}

#define OPS(cur) (((struct sql_cursor *)(cur))->ops)

static int vt_close(sqlite3_vtab_cursor *cur)
{
	OPS(cur)->close(cur);
	return SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		     sqlite3_value **argv)
{
	struct sql_vtab *vt = (struct sql_vtab *)cur->pVtab;
	char err[VXT_ERRBUF_SIZE];

	/* each statement first checks that no file was written anew since the
	 * table opened (its index and tables would not be the file's) */
	if (sql_set_check(vt->set, err, sizeof(err)) < 0) {
		sqlite3_free(vt->base.zErrMsg);
		vt->base.zErrMsg = sqlite3_mprintf("%s", err);
		return SQLITE_ERROR;
	}
	return OPS(cur)->filter(cur, idx_num, idx_str, argc, argv);
}

static int vt_next(sqlite3_vtab_cursor *cur)
{
	return OPS(cur)->next(cur);
}

static int vt_eof(sqlite3_vtab_cursor *cur)
{
	return OPS(cur)->eof(cur);
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	return OPS(cur)->column(cur, ctx, col);
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	return OPS(cur)->rowid(cur, rowid);
}

static const sqlite3_module vxtrace_module = {
	.iVersion = 0,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

int vxt_sql_register(sqlite3 *db)
{
	struct sql_ctx *ctx = sqlite3_malloc(sizeof(*ctx));
	const char *env = getenv("VXT_SQL_PUSHDOWN");
	int rc;

	if (!ctx)
		return SQLITE_NOMEM;
	ctx->pushdown = !(env && !strcmp(env, "0"));
	ctx->group_memory = SQL_ROWS_BUDGET;
	ctx->sets = NULL;
	rc = sqlite3_create_module_v2(db, "vxtrace", &vxtrace_module, ctx, sqlite3_free);
	if (rc != SQLITE_OK)
		return rc;	/* the module's destructor has freed ctx */
	return sql_funcs_register(db, ctx);
}

int vxt_sql_create_tables(sqlite3 *db, const char *const *files, size_t n,
			  char err[VXT_ERRBUF_SIZE])
{
	for (int k = 0; k < VXT_SQL_NTABLES; k++) {
		char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.%s USING vxtrace(",
					    vxt_sql_tables[k]);
		int rc;

		for (size_t i = 0; sql && i < n; i++) {
			char *s = sqlite3_mprintf("%s%Q, ", sql, files[i]);

			sqlite3_free(sql);
			sql = s;
		}
		if (sql) {
			char *s = sqlite3_mprintf("%s%s)", sql, vxt_sql_tables[k]);

			sqlite3_free(sql);
			sql = s;
		}
		if (!sql) {
			snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
			return SQLITE_NOMEM;
		}
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s", sqlite3_errmsg(db));
			return rc;
		}
	}
	return SQLITE_OK;
}

void vxt_sql_set_pushdown(sqlite3 *db, bool on)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT vxt_pushdown(?)", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 1, on);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

#ifdef VXT_SQL_EXTENSION
/* The entry point sqlite3 looks for in vxtrace_sqlite.so. */
int sqlite3_vxtracesqlite_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);

int sqlite3_vxtracesqlite_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
	int rc;

	SQLITE_EXTENSION_INIT2(api);
	rc = vxt_sql_register(db);
	if (rc != SQLITE_OK)
		*errmsg = sqlite3_mprintf("vxtrace: %s", sqlite3_errstr(rc));
	return rc;
}
#endif
