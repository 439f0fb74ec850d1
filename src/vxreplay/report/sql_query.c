/* sql_query.c - vxreplay --sql: run statements and print their rows
 *
 * Text is aligned columns (the widths of the first rows, as the other
 * reports' text), CSV is RFC 4180 with a header row, JSON is one array of
 * objects per statement that returns rows. NULL prints as an empty field
 * (text, CSV) or null (JSON). Values are escaped for each output as the
 * reports' names are (escape.h): text from a trace never reaches the
 * terminal raw. No statement attaches a database (ATTACH, VACUUM INTO).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/sql_query.h"
#include "vxtrace/sql.h"

#define TEXT_SAMPLE 1000	/* rows read ahead to size the text columns */

/* One CSV field, as every CSV output writes it (vxt_escape_csv()). */
static void csv_field(FILE *out, const char *s)
{
	vxt_fputs_csv(s, out);
}

static void json_value(FILE *out, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: fputs("null", out); break;
	case SQLITE_INTEGER: fprintf(out, "%lld", (long long)sqlite3_column_int64(st, i)); break;
	case SQLITE_FLOAT: fprintf(out, "%.17g", sqlite3_column_double(st, i)); break;
	default: report_json_str(out, (const char *)sqlite3_column_text(st, i)); break;
	}
}

/* The text of column @i, "" for NULL. */
static const char *cell(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* cell() escaped for a terminal. @return a malloc'd string, or NULL. */
static char *text_cell(const char *s)
{
	size_t n = VXT_ESCAPE_MAX(strlen(s));
	char *b = malloc(n);

	if (b)
		vxt_escape_text(s, b, n);
	return b;
}

/* Text rows: a copy of the first TEXT_SAMPLE rows sizes the columns. */
struct text_out {
	int ncol;
	size_t *width;
	char **sample;		/* nsample * ncol strings */
	size_t nsample;
};

static void text_row(FILE *out, const struct text_out *t, char *const *cells,
		     sqlite3_stmt *st)
{
	for (int i = 0; i < t->ncol; i++) {
		char *own = cells ? NULL : text_cell(cell(st, i));
		const char *s = cells ? cells[i] : own ? own : "";

		if (i + 1 == t->ncol)
			fprintf(out, "%s\n", s);
		else
			fprintf(out, "%-*s  ", (int)t->width[i], s);
		free(own);
	}
}

/* @return SQLITE_DONE, or an error code. */
static int print_text(sqlite3_stmt *st, FILE *out)
{
	struct text_out t = { .ncol = sqlite3_column_count(st) };
	int rc = SQLITE_NOMEM;
	size_t i;

	t.width = calloc((size_t)t.ncol, sizeof(*t.width));
	t.sample = malloc(TEXT_SAMPLE * (size_t)t.ncol * sizeof(*t.sample));
	if (!t.width || !t.sample)
		goto out;
	for (int c = 0; c < t.ncol; c++) {
		char *h = text_cell(sqlite3_column_name(st, c));

		t.width[c] = h ? strlen(h) : 0;
		free(h);
	}
	while (t.nsample < TEXT_SAMPLE && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < t.ncol; c++) {
			char *s = text_cell(cell(st, c));
			size_t k = t.nsample * (size_t)t.ncol + (size_t)c;

			t.sample[k] = s;
			if (!s) {
				for (int d = 0; d < c; d++)
					free(t.sample[k - (size_t)c + (size_t)d]);
				rc = SQLITE_NOMEM;
				goto out;
			}
			if (strlen(s) > t.width[c])
				t.width[c] = strlen(s);
		}
		t.nsample++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto out;
	for (int c = 0; c < t.ncol; c++) {
		char *h = text_cell(sqlite3_column_name(st, c));

		if (c + 1 == t.ncol)
			fprintf(out, "%s\n", h ? h : "");
		else
			fprintf(out, "%-*s  ", (int)t.width[c], h ? h : "");
		free(h);
	}
	for (i = 0; i < t.nsample; i++)
		text_row(out, &t, t.sample + i * (size_t)t.ncol, NULL);
	if (rc == SQLITE_ROW)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			text_row(out, &t, NULL, st);
out:
	for (i = 0; t.sample && i < t.nsample * (size_t)t.ncol; i++)
		free(t.sample[i]);
	free(t.sample);
	free(t.width);
	return rc;
}

static int print_csv(sqlite3_stmt *st, FILE *out)
{
	int n = sqlite3_column_count(st), rc;

	for (int c = 0; c < n; c++) {
		csv_field(out, sqlite3_column_name(st, c));
		fputc(c + 1 == n ? '\n' : ',', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < n; c++) {
			csv_field(out, cell(st, c));
			fputc(c + 1 == n ? '\n' : ',', out);
		}
	}
	return rc;
}

static int print_json(sqlite3_stmt *st, FILE *out)
{
	int n = sqlite3_column_count(st), rc;
	bool first = true;

	fputc('[', out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(out, "%s\n {", first ? "" : ",");
		for (int c = 0; c < n; c++) {
			report_json_str(out, sqlite3_column_name(st, c));
			fputs(": ", out);
			json_value(out, st, c);
			if (c + 1 < n)
				fputs(", ", out);
		}
		fputc('}', out);
		first = false;
	}
	fputs(first ? "]\n" : "\n]\n", out);
	return rc;
}

/* "LINE:COL" of byte @off in @sql. */
static void position(const char *sql, int off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (int i = 0; i < off && sql[i]; i++) {
		if (sql[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int sql_error(sqlite3 *db, const char *sql, const char *at, const char *origin)
{
	int off = sqlite3_error_offset(db), line, col;

	/* where SQLite says, else where the statement starts */
	position(sql, (int)(at - sql) + (off >= 0 ? off : 0), &line, &col);
	fprintf(stderr, "vxreplay: %s:%d:%d: %s\n", origin, line, col,
		sqlite3_errcode(db) == SQLITE_AUTH ? "ATTACH and VACUUM INTO are refused: --sql "
		"writes no file but -o FILE" : sqlite3_errmsg(db));
	return 1;
}

/* ATTACH, and VACUUM INTO (which attaches its file), would create or open
 * files anywhere, by any link, past -o's rules: the only action refused. */
static int authorize(void *ctx, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH ? SQLITE_DENY : SQLITE_OK;
}

int sql_query_exec(sqlite3 *db, const char *sql, enum report_format fmt, FILE *out,
		   const char *origin)
{
	const char *at = sql, *tail;

	while (*at) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(db, at, -1, &st, &tail);

		if (rc != SQLITE_OK)
			return sql_error(db, sql, at, origin);
		if (!st) {	/* blanks or a comment */
			at = tail;
			continue;
		}
		if (!sqlite3_column_count(st))
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
		else if (fmt == FMT_CSV)
			rc = print_csv(st, out);
		else if (fmt == FMT_JSON)
			rc = print_json(st, out);
		else
			rc = print_text(st, out);
		if (rc != SQLITE_DONE) {
			/* the statement's own text locates a run-time error */
			fflush(out);
			sql_error(db, sql, at, origin);
			sqlite3_finalize(st);
			return 1;
		}
		sqlite3_finalize(st);
		at = tail;
	}
	return 0;
}

/* Warn about each damaged file, as the other reports do. */
static void warn_damage(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT file, warning FROM temp.files WHERE damage_offset "
			       "IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(stderr, "vxreplay: %s: warning: %s\n", cell(st, 0), cell(st, 1));
	sqlite3_finalize(st);
}

int sql_query_run(char *const *files, int nfiles, const char *query, enum report_format fmt,
		  FILE *out)
{
	char err[VXT_ERRBUF_SIZE];
	sqlite3 *db = NULL;
	int rc;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "vxreplay: sqlite: %s\n", db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return 1;
	}
	if (vxt_sql_register(db) != SQLITE_OK) {
		fprintf(stderr, "vxreplay: sqlite: %s\n", sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	if (vxt_sql_create_tables(db, (const char *const *)files, (size_t)nfiles, err) !=
	    SQLITE_OK) {
		fprintf(stderr, "vxreplay: %s\n", strncmp(err, "vxtrace: ", 9) ? err : err + 9);
		sqlite3_close(db);
		return 1;
	}
	warn_damage(db);
	sqlite3_set_authorizer(db, authorize, NULL);
	if (!strcmp(query, "-"))
		rc = sql_prompt(db, fmt, out);
	else
		rc = sql_query_exec(db, query, fmt, out, "--sql");
	sqlite3_close(db);
	return rc;
}
