/* main.c - vxreplay: investigate a .vxt trace file
 * Over 700 lines: the program's option table and its dispatch to reports, SQL, --explain and the browser.
 *
 * Batch mode prints reports (summary, objects, errors, events) as text, JSON
 * or CSV; --info describes the file and --verify checks every CRC and frame.
 * Exit status: 0 success, 1 the file is unreadable or damaged (--verify),
 * 2 bad usage, 3 a report skipped damaged chunks (complete for the rest).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "report/batch_profile.h"
#include "report/batch_script.h"
#include "report/export.h"
#include "report/files.h"
#include "report/keep_filter.h"
#include "vxtrace/clickhouse.h"
#include "report/report.h"
#include "report/sql_query.h"
#include "tui/tui.h"
#include "cli.h"

#define EXIT_USAGE CLI_EXIT_USAGE

enum mode { MODE_DEFAULT, MODE_REPORT, MODE_INFO, MODE_VERIFY };

struct options {
	enum mode mode;
	const char *file;
	const char *report;
	enum report_format fmt;
	const char *from, *to, *object;
	const char *output;
	struct vxt_outfile_opts out;	/* --force, --follow-symlinks; never the input */
	const char *sql;	/* --sql QUERY over every FILE */
	char **files;
	int nfiles;
	int export;		/* enum export_format, -1 = none */
	struct sink_opts sink;	/* --export clickhouse+http://... */
	struct vxreplay_tui_opts tui;	/* the browser, when no batch option is given */
	const char *script;		/* --script NAME */
	bool explain;			/* --explain: print the script's programs */
	const char *xopts[BATCH_SCRIPT_MAX_X];	/* -x NAME=VALUE */
	unsigned nx;
	char **margs;		/* after "--": the script's $1 ... */
	unsigned nmargs;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: vxreplay FILE... [--report KIND | --export FORMAT] [options]\n"
"       vxreplay FILE... --sql QUERY|-\n"
"       vxreplay --info FILE | --verify FILE\n"
"Investigate a .vxt trace file.\n"
"  -r, --report KIND   summary, objects, processes, errors, events, breakdown or html\n"
"      --export FMT    csv, jsonl, chrome or blktrace (every event in scope), or\n"
"                      clickhouse+http://HOST:PORT/DB.TABLE (formats/clickhouse.md)\n"
"      --sink-batch N  rows per ClickHouse insert (default 65536)\n"
"      --sink-timeout DUR  one request's time limit (default 10s)\n"
"      --sink-retry DUR    retry a batch this long before giving up (default 60s)\n"
"      --sink-user NAME    ClickHouse user; the password comes from\n"
"      --sink-password-file FILE  or the environment's VXT_CLICKHOUSE_PASSWORD\n"
"      --sql QUERY     SQL over the files' tables (events, ios, errors, objects,\n"
"                      chunks, files, agg, latency; see formats/sql.md); - for\n"
"                      a prompt\n"
"  -F, --format FMT    text (default), json or csv\n"
"      --from T        start at T: seconds from the start (12.5), +2s, or 14:03:07.25\n"
"      --to T          stop at T (same syntax; +T is relative to --from)\n"
"  -O, --objects NAME  only this object\n"
"      --profile NAME  only what profile NAME keeps (its filter and speculation);\n"
"                      the summary adds its speculation figures (also --filter EXPR,\n"
"                      --profile-dir DIR)\n"
"      --script NAME   run the script NAME.d, or bpftrace's NAME.bt (or a path):\n"
"                      print what it records and its aggregations at END; with\n"
"                      --report or --export, cover the events it keeps\n"
"                      (vxscript(5)); -- ARGS after the options are its $1 $2 ...\n"
"  -x NAME=VALUE       a script option, as dtrace -x (nspec=4, specsize=1m, ...)\n"
"      --explain       with --script, --profile or --filter, no FILE: its ops\n"
"  -o, --output FILE   write the report to FILE (created 0600, never the input)\n"
"  -f, --force         overwrite an existing FILE\n"
"      --follow-symlinks  allow FILE to be a symlink\n"
"      --info          describe the file: header, objects, chunks, index\n"
"      --verify        check every CRC and frame; exit 1 at the first damage\n"
"Without a batch option on a terminal, vxreplay opens the browser (? for its keys):\n"
"      --filter EXPR   start with this filter      --follow   follow a growing file\n"
"      --profile NAME  start with this profile     --ascii    ASCII drawing only\n"
"      --no-color      monochrome                  --bench    time the browser, print figures\n"
"      --bench=first   time the browser's first full screen only\n"
"  -h, --help          this help\n"
"  -V, --version       print the version\n");
}

static int die_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("vxreplay", fmt, arg);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { O_FROM = 256, O_TO, O_OBJECT, O_INFO, O_VERIFY };
	enum { O_EXPORT = 400, O_FOLLOW_SYMLINKS, O_SQL, O_SCRIPT, O_EXPLAIN };
	enum { O_SINK_BATCH = 700, O_SINK_TIMEOUT, O_SINK_RETRY, O_SINK_USER, O_SINK_PWFILE };
	enum { O_FILTER = 500, O_PROFILE, O_PROFILE_DIR, O_FOLLOW, O_BENCH, O_ASCII,
	       O_NO_COLOR };
	static const struct option longopts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'F' },
		{ "export", required_argument, NULL, O_EXPORT },
		{ "sink-batch", required_argument, NULL, O_SINK_BATCH },
		{ "sink-timeout", required_argument, NULL, O_SINK_TIMEOUT },
		{ "sink-retry", required_argument, NULL, O_SINK_RETRY },
		{ "sink-user", required_argument, NULL, O_SINK_USER },
		{ "sink-password-file", required_argument, NULL, O_SINK_PWFILE },
		{ "sql", required_argument, NULL, O_SQL },
		{ "from", required_argument, NULL, O_FROM },
		{ "to", required_argument, NULL, O_TO },
		{ "objects", required_argument, NULL, 'O' },
		{ "object", required_argument, NULL, O_OBJECT },	/* before -O, one release */
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "follow-symlinks", no_argument, NULL, O_FOLLOW_SYMLINKS },
		{ "info", no_argument, NULL, O_INFO },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "profile-dir", required_argument, NULL, O_PROFILE_DIR },
		{ "script", required_argument, NULL, O_SCRIPT },
		{ "explain", no_argument, NULL, O_EXPLAIN },
		{ "follow", no_argument, NULL, O_FOLLOW },
		{ "bench", optional_argument, NULL, O_BENCH },
		{ "ascii", no_argument, NULL, O_ASCII },
		{ "no-color", no_argument, NULL, O_NO_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	uint64_t dur, v;
	int c, ex;

	opterr = 0;
	cli_split_script_args(&argc, argv, &o->margs, &o->nmargs);
	while ((c = getopt_long(argc, argv, ":r:F:o:O:x:fhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "summary") && strcmp(optarg, "objects") &&
			    strcmp(optarg, "errors") && strcmp(optarg, "events") &&
			    strcmp(optarg, "html") && strcmp(optarg, "breakdown") &&
			    strcmp(optarg, "processes"))
				return die_usage("--report: unknown report '%s' (summary, objects, "
						 "processes, errors, events, breakdown, html)", optarg);
			o->report = optarg;
			o->mode = MODE_REPORT;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				o->fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->fmt = FMT_JSON;
			else if (!strcmp(optarg, "csv"))
				o->fmt = FMT_CSV;
			else
				return die_usage("--format: unknown format '%s' (text, json, csv)",
						 optarg);
			break;
		case O_EXPORT:
			ex = export_parse(optarg);
			if (ex < 0)
				return die_usage("--export: unknown format '%s' (csv, jsonl, chrome, "
						 "blktrace)", optarg);
			if (ex == EXPORT_CLICKHOUSE && !vxt_ch_url_ok(optarg))
				return die_usage("--export: expected clickhouse+http://HOST:PORT/DB.TABLE "
						 "(DB and TABLE of letters, digits and _), got '%s'",
						 optarg);
			o->export = ex;
			o->sink.url = optarg;
			o->mode = MODE_REPORT;
			break;
		case O_SINK_BATCH:
			if (cli_parse_uint(optarg, &v) < 0 || !v || v > 10000000)
				return die_usage("--sink-batch: expected 1..10000000, got '%s'", optarg);
			o->sink.batch = (size_t)v;
			break;
		case O_SINK_TIMEOUT:
		case O_SINK_RETRY:
			if (vxt_parse_duration(optarg, &dur) < 0 || (c == O_SINK_TIMEOUT && !dur))
				return die_usage("bad duration '%s'", optarg);
			if (c == O_SINK_TIMEOUT)
				o->sink.timeout_ms = dur / 1000000 ? dur / 1000000 : 1;
			else
				o->sink.retry_ns = dur;
			break;
		case O_SINK_USER: o->sink.user = optarg; break;
		case O_SINK_PWFILE: o->sink.password_file = optarg; break;
		case O_SQL: o->sql = optarg; break;
		case O_FROM: o->from = optarg; break;
		case O_TO: o->to = optarg; break;
		case O_OBJECT:
			fprintf(stderr, "vxreplay: --object is deprecated, use -O/--objects "
				"(README.md, Options)\n");
			/* fall through */
		case 'O': o->object = optarg; break;
		case 'o': o->output = optarg; break;
		case 'f': o->out.force = true; break;
		case O_FOLLOW_SYMLINKS: o->out.follow_symlink = true; break;
		case O_INFO: o->mode = MODE_INFO; break;
		case O_VERIFY: o->mode = MODE_VERIFY; break;
		case O_FILTER: o->tui.filter = optarg; break;
		case O_PROFILE: o->tui.profile = optarg; break;
		case O_PROFILE_DIR: o->tui.profile_dir = optarg; break;
		case O_SCRIPT:
			o->script = optarg;
			if (o->mode == MODE_DEFAULT)
				o->mode = MODE_REPORT;
			break;
		case O_EXPLAIN: o->explain = true; break;
		case 'x':
			if (o->nx == BATCH_SCRIPT_MAX_X)
				return die_usage("-x: at most %s settings", "32");
			o->xopts[o->nx++] = optarg;
			break;
		case O_FOLLOW: o->tui.follow = true; break;
		case O_BENCH:
			if (optarg && strcmp(optarg, "first"))
				return die_usage("--bench=%s: the only value is first", optarg);
			o->tui.bench = true;
			o->tui.bench_first = optarg != NULL;
			break;
		case O_ASCII: o->tui.ascii = true; break;
		case O_NO_COLOR: o->tui.no_color = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("vxreplay %s\n", vxt_version()); return 0;
		case ':':
			return die_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			return die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->export >= 0 && o->report)
		return die_usage("%s", "--report and --export: give one");
	if (o->script && o->tui.profile)
		return die_usage("%s", "--script and --profile: give one");
	if (o->nx && !o->script)
		return die_usage("%s", "-x sets an option of a --script");
	if (o->margs && !o->script)
		return die_usage("%s", "arguments after -- are a --script's $1 ...");
	if (o->explain && !o->script && !o->tui.profile && !o->tui.filter)
		return die_usage("%s", "--explain explains a --script, a --profile or a --filter");
	if (o->explain && optind < argc)
		return die_usage("--explain reads no trace file ('%s')", argv[optind]);
	if (o->explain)
		return -1;
	if (optind >= argc)
		return die_usage("%s", "no trace file given");
	if (o->sql) {
		o->files = argv + optind;
		o->nfiles = argc - optind;
		return -1;
	}
	o->file = argv[optind];
	o->out.input = o->file;
	o->files = argv + optind;
	o->nfiles = argc - optind;
	return -1;
}

/* --from after --to, or a range the file does not reach, is a usage error
 * (rather than an empty report that looks like a quiet trace).
 * @return 0 or EXIT_USAGE. */
static int check_range(struct vxt_reader *r, const struct options *o, const struct report_ctx *c)
{
	size_t n = vxt_reader_nchunks(r);
	uint64_t end = n ? vxt_reader_chunk(r, n - 1)->last_ns : c->start_ns;
	char msg[512], a[32];

	if (c->scope.to_ns < c->scope.from_ns)
		snprintf(msg, sizeof(msg), "--to %s is before --from %s", o->to, o->from);
	else if (o->from && c->scope.from_ns > end)
		snprintf(msg, sizeof(msg), "--from %s: past the end of the trace (its last event "
			 "is at %s)", o->from, vxt_format_reltime(end, c->start_ns, a, sizeof(a)));
	else if (o->to && c->scope.to_ns < c->start_ns)
		snprintf(msg, sizeof(msg), "--to %s: before the start of the trace", o->to);
	else
		return 0;
	return die_usage("%s", msg);
}

/* The objects of @t by name, joined by ", " and escaped into @buf (cut with
 * "..."), for the message that says which names -O may hold. @return @buf. */
static const char *object_names(const struct vxt_objtab *t, char *buf, size_t size)
{
	char name[VXT_ESCAPE_MAX(VXT_OBJ_NAME_MAX)];
	size_t i, n = vxt_objtab_count(t), len = 0;

	snprintf(buf, size, "none");
	for (i = 0; i < n; i++) {
		vxt_text(vxt_objtab_get(t, (uint32_t)i)->name, name, sizeof(name));
		if (len + strlen(name) + 6 >= size) {
			snprintf(buf + len, size - len, "%s...", len ? ", " : "");
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", name);
	}
	return buf;
}

/* Resolve --from, --to and --object against the file. @return 0 or an exit status. */
static int make_scope(struct vxt_reader *r, const struct options *o, struct report_ctx *c)
{
	const struct vxt_file_info *in = vxt_reader_info(r);
	uint64_t start = c->start_ns;

	c->scope.from_ns = 0;
	c->scope.to_ns = UINT64_MAX;
	c->scope.object = -1;
	if (o->from && vxt_parse_time(o->from, start, start, in->anchor_mono_ns,
				      in->anchor_real_ns, &c->scope.from_ns) < 0)
		return die_usage("--from: bad time '%s' (12.5, +2s, 14:03:07.25)", o->from);
	if (o->to && vxt_parse_time(o->to, start, c->scope.from_ns ? c->scope.from_ns : start,
				    in->anchor_mono_ns, in->anchor_real_ns, &c->scope.to_ns) < 0)
		return die_usage("--to: bad time '%s' (12.5, +2s, 14:03:07.25)", o->to);
	if (o->object) {
		c->scope.object = vxt_objtab_find_name(vxt_reader_objects(r), o->object);
		if (c->scope.object < 0) {
			char nb[VXT_ESCAPE_MAX(256)], names[VXT_ESCAPE_MAX(160)];

			fprintf(stderr, "vxreplay: %s: no object named '%s' (its objects: %s)\n",
				o->file, vxt_text(o->object, nb, sizeof(nb)),
				object_names(vxt_reader_objects(r), names, sizeof(names)));
			return EXIT_USAGE;
		}
	}
	return check_range(r, o, c);
}

static int verify(struct vxt_reader *r, const char *file)
{
	uint64_t bad;
	const char *why;

	int rc = vxt_reader_verify(r, &bad);

	if (rc == -EBADMSG) {
		fprintf(stderr, "vxreplay: %s: damaged at offset %llu: %s\n", file,
			(unsigned long long)bad, vxt_reader_error(r));
		return 1;
	}
	if (rc < 0) {	/* could not check (out of memory, I/O error): no verdict */
		fprintf(stderr, "vxreplay: %s\n", vxt_reader_error(r));
		return 1;
	}
	printf("%s: ok: %llu events in %zu chunks, every CRC and frame sound%s\n", file,
	       (unsigned long long)vxt_reader_nevents(r), vxt_reader_nchunks(r),
	       vxt_reader_recovered(r) ? " (no footer: recovered by scan)" : "");
	(void)why;
	return 0;
}

/* --filter in batch mode: reports and exports keep the matching events. */
static int batch_filter(struct vxt_reader *r, const struct options *o, struct report_ctx *c)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f;

	if (!o->tui.filter)
		return 0;
	f = vxt_filter_compile(o->tui.filter, vxt_reader_objects(r), vxt_reader_strings(r), err);
	if (!f)
		return die_usage("%s", err);
	vxt_filter_set_time_base(f, c->start_ns);
	c->keep = keep_filter_match;
	c->keep_arg = keep_filter_new(f);
	if (!c->keep_arg) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	return 0;
}

/* The report or export of run_report() into c->out. @return an exit status. */
static int report_body(struct report_ctx *c, const struct options *o)
{
	if (o->export >= 0)
		return export_run(c, (enum export_format)o->export);
	if (o->report && !strcmp(o->report, "html"))
		return report_html(c);
	if (!o->report || !strcmp(o->report, "summary"))
		return report_summary(c);
	if (!strcmp(o->report, "objects"))
		return report_objects(c);
	if (!strcmp(o->report, "processes"))
		return report_processes(c);
	if (!strcmp(o->report, "errors"))
		return report_errors(c);
	if (!strcmp(o->report, "breakdown"))
		return report_breakdown(c);
	return report_events(c);
}

/* --script: its own output, or a report / export over the events it keeps. */
/* Flush and close the report's output (stdout is only flushed). A write
 * error is reported when @rc is still 0, or always with @always_flush.
 * @return @rc, or 1 when the output failed. */
static int close_output(const struct options *o, FILE *out, int rc, bool always_flush)
{
	if ((fflush(out) != 0 || ferror(out)) && (!rc || always_flush)) {
		fprintf(stderr, "vxreplay: %s: write error: %s\n", o->output ? o->output : "stdout",
			strerror(errno));
		rc = 1;
	}
	if (o->output && fclose(out) != 0 && !rc) {
		fprintf(stderr, "vxreplay: %s: %s\n", o->output, strerror(errno));
		rc = 1;
	}
	return rc;
}

static int run_script(const struct options *o, struct report_ctx *c)
{
	struct batch_script bs;
	bool own = o->export < 0 && !o->report;
	FILE *out = stdout;
	int rc;

	if (o->output) {
		char err[VXT_ERRBUF_SIZE];
		bool created;
		int fd = vxt_outfile_open(o->output, &o->out, &created, err, sizeof(err));

		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			if (fd >= 0)
				snprintf(err, sizeof(err), "%s: %s", o->output, strerror(errno)),
				close(fd);
			fprintf(stderr, "vxreplay: %s\n", err);
			return 1;
		}
	}
	c->out = out;
	rc = batch_script_begin(c, &bs, o->script, o->tui.profile_dir, o->xopts, o->nx,
				(const char *const *)o->margs, o->nmargs, o->tui.filter,
				own ? out : NULL);
	if (!rc && !own)
		rc = report_body(c, o);
	if (!rc)
		batch_script_problems(&bs, stderr);
	rc = close_output(o, out, rc, false);
	if (!rc && own && bs.exit_code)
		rc = bs.exit_code & 0xff;
	batch_script_end(&bs);
	return rc;
}

static int run_report(struct vxt_reader *r, const struct options *o)
{
	struct report_ctx c = { .r = r, .fmt = o->fmt, .out = stdout, .sink = &o->sink };
	struct batch_profile bp = { 0 };
	const char *why;
	int rc;

	if (vxt_reader_nchunks(r))
		c.start_ns = vxt_reader_chunk(r, 0)->first_ns;
	rc = make_scope(r, o, &c);
	if (rc)
		return rc;
	if (vxt_reader_damage(r, &why) >= 0)
		fprintf(stderr, "vxreplay: %s: warning: %s; reading what came before\n", o->file,
			why);
	if (o->export >= 0 && export_is_binary(o->export) && !o->output &&
	    isatty(STDOUT_FILENO))
		return die_usage("%s", "--export: binary output to a terminal; use -o FILE");
	if (o->script)
		return run_script(o, &c);
	rc = o->tui.profile ? batch_profile_begin(&c, &bp, o->tui.profile, o->tui.profile_dir,
						  o->tui.filter) : batch_filter(r, o, &c);
	if (rc)
		return batch_profile_end(&bp), rc;
	if (o->report && (!strcmp(o->report, "html") || !strcmp(o->report, "breakdown")))
		c.held = NULL;	/* they pair the events not kept too: the file again */
	if (o->output) {
		char err[VXT_ERRBUF_SIZE];
		bool created;
		int fd = vxt_outfile_open(o->output, &o->out, &created, err, sizeof(err));

		c.out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!c.out) {
			if (fd >= 0)
				snprintf(err, sizeof(err), "%s: %s", o->output, strerror(errno)),
				close(fd);
			fprintf(stderr, "vxreplay: %s\n", err);
			if (!c.spec)
				keep_filter_free(c.keep_arg);
			batch_profile_end(&bp);
			return 1;
		}
	}
	rc = report_body(&c, o);
	rc = close_output(o, c.out, rc, true);
	if (!c.spec)
		keep_filter_free(c.keep_arg);
	batch_profile_end(&bp);
	if (!rc && c.damaged)
		rc = REPORT_EXIT_DAMAGE;	/* complete for what survives */
	return rc;
}

/* --sql over every file, to stdout or -o FILE (opened as the reports' are). */
static int run_sql(struct options *o)
{
	FILE *out = stdout;
	int rc;

	if (o->output) {
		char err[VXT_ERRBUF_SIZE];
		bool created;
		int fd;

		o->out.input = o->files[0];
		fd = vxt_outfile_open(o->output, &o->out, &created, err, sizeof(err));
		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			if (fd >= 0)
				snprintf(err, sizeof(err), "%s: %s", o->output, strerror(errno)),
				close(fd);
			fprintf(stderr, "vxreplay: %s\n", err);
			return 1;
		}
	}
	rc = sql_query_run(o->files, o->nfiles, o->sql, o->fmt, out);
	rc = close_output(o, out, rc, false);
	return rc;
}

/* --info or --verify of several files: each on its own. @return the worst
 * status. */
static int each_file(const struct options *o, const struct trace_files *tf)
{
	int worst = 0;

	for (size_t i = 0; i < tf->n; i++) {
		char err[VXT_ERRBUF_SIZE];
		struct vxt_reader *r = vxt_reader_open(tf->paths[i], err);
		int rc;

		if (!r) {
			fprintf(stderr, "vxreplay: %s\n", err);
			worst = worst ? worst : 1;
			continue;
		}
		if (o->mode == MODE_INFO)
			printf("%s%s:\n", i ? "\n" : "", tf->paths[i]);
		rc = o->mode == MODE_INFO ? report_info(r, stdout) : verify(r, tf->paths[i]);
		worst = rc > worst ? rc : worst;
		vxt_reader_close(r);
	}
	return worst;
}

/* A terminal that can hold the browser: not TERM=dumb (nor unset), which get
 * the batch summary as a pipe does. */
static bool screen_ok(void)
{
	const char *term = getenv("TERM");

	return term && *term && strcmp(term, "dumb");
}

/* What reached stdout (a report, --info, --help): a write that failed, as
 * into a full disk, turns a success into exit 1; a failure already said keeps
 * its status. @return @rc, or 1. */
static int stdout_status(int rc)
{
	int e = fflush(stdout) == EOF ? errno : 0;

	if (rc || (!e && !ferror(stdout)))
		return rc;
	fprintf(stderr, "vxreplay: stdout: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
	return 1;
}

/* A rotated set or a fleet is opened whole, one descriptor per file: take
 * every descriptor the hard limit allows (the soft limit is often 1024).
 * Can't fail: a limit left as it was shows as the open that fails. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The end of an --explain: @rc of the listing, then stdout flushed. */
static int explain_written(int rc)
{
	if (rc == 0 && fflush(stdout) != 0)
		rc = -1;
	if (rc) {
		fprintf(stderr, "vxreplay: --explain: cannot write the listing\n");
		return 1;
	}
	return 0;
}

/* --explain --profile NAME: its speculation's programs on stdout. */
static int explain_profile(const struct options *o)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p = vxt_profile_open(o->tui.profile, o->tui.profile_dir, err);
	int rc;

	if (!p) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return EXIT_USAGE;
	}
	rc = vxt_profile_explain(p, stdout, err);
	vxt_profile_free(p);
	if (rc == -EINVAL) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return EXIT_USAGE;
	}
	return explain_written(rc);
}

/* --explain --filter EXPR: its program and what the kernel tests of it. */
static int explain_filter(const struct options *o)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(o->tui.filter, NULL, NULL, err);
	int rc;

	if (!f) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return EXIT_USAGE;
	}
	rc = vxt_filter_explain(f, stdout);
	vxt_filter_free(f);
	return explain_written(rc);
}

/* --explain --script NAME: the script's programs on stdout. */
static int run_explain(const struct options *o)
{
	char err[VXT_ERRBUF_SIZE], path[VXT_PROFILE_PATH_MAX];
	struct vxt_script *s;
	int rc;

	if (!o->script && !o->tui.profile)
		return explain_filter(o);
	if (!o->script)
		return explain_profile(o);
	if (vxt_script_find(o->script, o->tui.profile_dir, path, sizeof(path), err) < 0) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return EXIT_USAGE;
	}
	s = vxt_script_load(path, o->xopts, o->nx, err);
	if (!s) {
		fprintf(stderr, "vxreplay: %s\n", err);
		return EXIT_USAGE;
	}
	rc = vxt_script_explain(s, stdout);
	vxt_script_free(s);
	return explain_written(rc);
}

static int run(int argc, char **argv)
{
	struct options o = { .export = -1, .sink.retry_ns = 60000000000ull,
			     .tui.t_start = vxt_now_mono() };
	struct trace_files tf = { 0 };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;
	int rc = parse_options(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.explain)
		return run_explain(&o);
	raise_nofile();
	if (o.sql)
		return run_sql(&o);
	if (trace_files_collect(&tf, o.files, (size_t)o.nfiles))
		return trace_files_free(&tf), 1;
	if (tf.n > 1 && (o.mode == MODE_INFO || o.mode == MODE_VERIFY)) {
		rc = each_file(&o, &tf);
		trace_files_free(&tf);
		return rc;
	}
	o.file = o.out.input = tf.paths[0];
	/* the browser opens the files itself: one index load before its first screen */
	if (o.mode == MODE_DEFAULT && o.export < 0 &&
	    (o.tui.bench || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && screen_ok()))) {
		o.tui.paths = (const char *const *)tf.paths;
		o.tui.npaths = tf.n;
		rc = vxreplay_tui(o.file, &o.tui);
		trace_files_free(&tf);
		return rc;
	}
	r = vxt_reader_open_set((const char *const *)tf.paths, tf.n, err);
	if (!r) {
		fprintf(stderr, "vxreplay: %s\n", err);
		trace_files_free(&tf);
		return 1;
	}
	if (vxt_reader_note(r))
		fprintf(stderr, "vxreplay: warning: %s\n", vxt_reader_note(r));
	switch (o.mode) {
	case MODE_INFO:
		rc = report_info(r, stdout);
		break;
	case MODE_VERIFY:
		rc = verify(r, o.file);
		break;
	default:
		rc = run_report(r, &o);
		break;
	}
	vxt_reader_close(r);
	trace_files_free(&tf);
	return rc;
}

int main(int argc, char **argv)
{
	return stdout_status(run(argc, argv));
}
