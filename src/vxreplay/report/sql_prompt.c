/* sql_prompt.c - vxreplay --sql -: the interactive SQL prompt
 *
 * sqlite3's shell conventions: statements end with ';' and may span lines;
 * dot-commands at the start of a line: .tables, .schema [TABLE],
 * .mode text|csv|json, .help, .quit (.exit). A long query shows its running
 * time on the terminal and Ctrl-C interrupts it (sqlite3_interrupt()); at
 * the prompt Ctrl-C drops the statement being typed; end of input leaves.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/sql_query.h"
#include "vxtrace/vxtrace.h"

#define PROGRESS_OPS 100000	/* VM steps between progress calls */

static volatile sig_atomic_t interrupted;
static sqlite3 *prompt_db;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
	if (prompt_db)
		sqlite3_interrupt(prompt_db);	/* safe from a signal handler */
}

struct progress {
	uint64_t start_ns;
	bool shown;
	bool tty;
};

/* Past one second, show the running time on the terminal. Never stops the query. */
static int on_progress(void *arg)
{
	struct progress *p = arg;
	uint64_t now = vxt_now_mono();

	if (p->tty && now - p->start_ns >= 1000000000ull) {
		fprintf(stderr, "\r(running %.1f s; Ctrl-C interrupts)",
			(double)(now - p->start_ns) / 1e9);
		p->shown = true;
	}
	return 0;
}

static void help(FILE *out)
{
	fputs(".tables            the tables\n"
	      ".schema [TABLE]    their columns\n"
	      ".mode text|csv|json  how rows print\n"
	      ".quit, .exit       leave\n"
	      "SQL statements end with ';'. Ctrl-C interrupts a running query.\n", out);
}

static void tables(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_temp_master WHERE type = 'table' "
			       "UNION ALL SELECT name FROM sqlite_master WHERE type = 'table' "
			       "ORDER BY 1", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(out, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* "CREATE TABLE t(col TYPE, ...)" of each table (or only @only). */
static void schema(sqlite3 *db, const char *only, FILE *out)
{
	sqlite3_stmt *st, *ci;

	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_temp_master WHERE type = 'table' "
			       "UNION ALL SELECT name FROM sqlite_master WHERE type = 'table' "
			       "ORDER BY 1", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		bool first = true;

		if (only && *only && strcmp(only, t))
			continue;
		if (sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?)", -1, &ci,
				       NULL) != SQLITE_OK)
			continue;
		sqlite3_bind_text(ci, 1, t, -1, SQLITE_TRANSIENT);
		fprintf(out, "CREATE TABLE %s(", t);
		while (sqlite3_step(ci) == SQLITE_ROW) {
			fprintf(out, "%s%s %s", first ? "" : ", ", sqlite3_column_text(ci, 0),
				sqlite3_column_text(ci, 1));
			first = false;
		}
		fputs(");\n", out);
		sqlite3_finalize(ci);
	}
	sqlite3_finalize(st);
}

/* A dot-command. @return 1 to leave, 0 to go on. */
static int dot(sqlite3 *db, char *line, enum report_format *fmt, FILE *out)
{
	char *cmd = strtok(line, " \t\r\n"), *arg = strtok(NULL, " \t\r\n");

	if (!strcmp(cmd, ".quit") || !strcmp(cmd, ".exit"))
		return 1;
	if (!strcmp(cmd, ".tables")) {
		tables(db, out);
	} else if (!strcmp(cmd, ".schema")) {
		schema(db, arg, out);
	} else if (!strcmp(cmd, ".mode")) {
		if (!arg)
			fprintf(out, "%s\n", *fmt == FMT_CSV ? "csv" : *fmt == FMT_JSON ? "json" : "text");
		else if (!strcmp(arg, "text") || !strcmp(arg, "column") || !strcmp(arg, "list"))
			*fmt = FMT_TEXT;
		else if (!strcmp(arg, "csv"))
			*fmt = FMT_CSV;
		else if (!strcmp(arg, "json"))
			*fmt = FMT_JSON;
		else
			fprintf(stderr, "vxreplay: .mode: unknown mode '%s' (text, csv, json)\n", arg);
	} else if (!strcmp(cmd, ".help")) {
		help(out);
	} else {
		fprintf(stderr, "vxreplay: unknown command '%s' (.help lists them)\n", cmd);
	}
	return 0;
}

/* @return 0, or 1 when a statement failed. */
static int run(sqlite3 *db, const char *sql, enum report_format fmt, FILE *out, bool tty)
{
	struct progress p = { .start_ns = vxt_now_mono(), .tty = tty };
	int rc;

	interrupted = 0;
	sqlite3_progress_handler(db, PROGRESS_OPS, on_progress, &p);
	if (p.tty)
		fflush(stderr);
	rc = sql_query_exec(db, sql, fmt, out, "sql");
	sqlite3_progress_handler(db, 0, NULL, NULL);
	if (p.shown)
		fprintf(stderr, "\r%40s\r", "");
	fflush(out);
	return rc;
}

/* Append @line to the statement buffer. @return 0 or -1 (out of memory). */
static int append(char **buf, size_t *len, const char *line)
{
	size_t k = strlen(line);
	char *b = realloc(*buf, *len + k + 1);

	if (!b)
		return -1;
	memcpy(b + *len, line, k + 1);
	*buf = b;
	*len += k;
	return 0;
}

int sql_prompt(sqlite3 *db, enum report_format fmt, FILE *out)
{
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	bool tty = isatty(STDIN_FILENO);
	char *line = NULL, *buf = NULL;
	size_t cap = 0, len = 0;
	ssize_t got;
	int rc = 0, failed = 0;

	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: Ctrl-C ends a read at the prompt */
	prompt_db = db;
	sigaction(SIGINT, &sa, &old);
	if (tty)
		fprintf(stderr, "vxreplay %s SQL over the trace; .help for commands, .quit to "
			"leave\n", vxt_version());
	for (;;) {
		if (tty) {
			fputs(len ? "   ...> " : "vxsql> ", stderr);
			fflush(stderr);
		}
		errno = 0;
		got = getline(&line, &cap, stdin);
		if (got < 0) {
			if (errno == EINTR && interrupted) {
				clearerr(stdin);
				interrupted = 0;
				len = 0;
				fputc('\n', stderr);
				continue;
			}
			break;
		}
		if (!len && line[strspn(line, " \t")] == '.') {
			if (dot(db, line + strspn(line, " \t"), &fmt, out))
				break;
			continue;
		}
		if (append(&buf, &len, line) < 0) {
			fprintf(stderr, "vxreplay: out of memory\n");
			rc = 1;
			break;
		}
		if (sqlite3_complete(buf)) {
			failed |= run(db, buf, fmt, out, tty);
			len = 0;
		}
	}
	if (len && buf[strspn(buf, " \t\r\n")])
		failed |= run(db, buf, fmt, out, tty);	/* a last statement without its ';' */
	/* as sqlite3: read from a pipe, a failed statement fails the run */
	if (failed && !tty)
		rc = 1;
	if (tty)
		fputc('\n', stderr);
	sigaction(SIGINT, &old, NULL);
	prompt_db = NULL;
	free(line);
	free(buf);
	return rc;
}
