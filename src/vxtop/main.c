/* main.c - vxtop: live view of block I/O per object
 *
 * Parses the command line, opens the source (or the followed file), and runs
 * either the batch output (-b, no terminal needed) or the live screens.
 */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtop.h"
#include "cli.h"

volatile sig_atomic_t vxtop_stop;

/* What reached stdout (-b's tables, --help): a write that failed, as into a
 * full disk, turns a success into exit 1; a reader gone (| head) is no
 * failure, and a failure already said keeps its status. @return @rc, or 1. */
static int stdout_status(int rc)
{
	int e = fflush(stdout) == EOF ? errno : 0;

	if (rc || e == EPIPE || (!e && !ferror(stdout)))
		return rc;
	fprintf(stderr, "vxtop: stdout: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: vxtop [options]\n"
"       vxtop -b [-c COUNT] [-i INTERVAL] [-F text|json] [options]\n"
"\n"
"Live view of block I/O per object: rates, latency, queue depth, utilisation,\n"
"errors as they happen, and heatmaps of the last minutes.\n"
"\n"
"  -b, --batch           print one table per interval on stdout (no terminal needed)\n"
"  -c, --count N         stop after N intervals (also the live view)\n"
"  -i, --interval DUR    interval: 1 (seconds), 500ms, 2s ... (default 1s)\n"
"  -F, --format FMT      batch output: text, json or jsonl (formats/vxtop-json.md)\n"
"      --processes       batch: rows per process and object too, as biotop\n"
"  -s, --source KIND     kmod, ebpf, tracefs or sim (default: the first usable)\n"
"      --follow FILE     watch a .vxt file that vxrecord is writing\n"
"  -o, --output FILE     record to FILE while viewing (created 0600)\n"
"  -f, --force           let -o overwrite an existing file\n"
"  -O, --objects LIST    trace only these objects (sda,dm-0,8:16)\n"
"      --sort COL        sort by COL (r/s w/s rMB/s wMB/s avg p99 qd util err name)\n"
"      --asc             ascending sort\n"
"      --match GLOB      show only objects whose name matches GLOB\n"
"      --filter EXPR     count only events matching EXPR (formats/filter.md),\n"
"                        e.g. 'op == write && latency > 20ms' (time: from start)\n"
"      --profile NAME    keep what profile NAME keeps: its filter and\n"
"                        speculation (formats/profile.md)\n"
"      --profile-dir DIR look for profiles (and scripts) in DIR first\n"
"      --script NAME     run a script (NAME.d, NAME.bt) live; key a shows it\n"
"  -x NAME=VALUE         a script option (nspec, aggsize, quiet ...); -- ARGS: its $1\n"
"      --bufsize SIZE    kernel buffer per channel, e.g. 4M (see vxrecord(1))\n"
"      --seed N, --rate N  simulator seed, events per second\n"
"      --sim-objects S   simulator objects (see vxrecord(1))\n"
"      --sim-errors S    simulator error bursts\n"
"      --listen ADDR:PORT serve Prometheus metrics on http://ADDR:PORT/metrics\n"
"                        (formats/metrics.md); loopback addresses only unless\n"
"      --listen-remote   is given too\n"
"      --maps            ebpf: count per object in BPF maps, read once per\n"
"                        interval; no event leaves the kernel (see vxtop(1))\n"
"      --no-color        monochrome screens\n"
"  -h, --help            this help\n"
"  -V, --version         the version\n"
"\n"
"Keys: ? for help, q to quit.\n");
}

/* OPT_SRC: a source option (vxt_source_option()); OPT_OLD_*: the spellings
 * before README.md's option table, kept one release with a hint. */
enum {
	OPT_FOLLOW = 256, OPT_SORT, OPT_ASC, OPT_SRC, OPT_NO_COLOR, OPT_FILTER, OPT_MATCH,
	OPT_PROFILE, OPT_PROFILE_DIR, OPT_OLD_WRITE, OPT_OLD_WHERE, OPT_SCRIPT,
};
#define MAX_XOPTS 32	/* -x settings */

static const char *xopts[MAX_XOPTS];
enum { OPT_LISTEN = 300, OPT_LISTEN_REMOTE, OPT_MAPS, OPT_PROCESSES };

static const struct option long_opts[] = {
	{ "batch", no_argument, NULL, 'b' },
	{ "count", required_argument, NULL, 'c' },
	{ "interval", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'F' },
	{ "source", required_argument, NULL, 's' },
	{ "follow", required_argument, NULL, OPT_FOLLOW },
	{ "output", required_argument, NULL, 'o' },
	{ "write", required_argument, NULL, OPT_OLD_WRITE },
	{ "force", no_argument, NULL, 'f' },
	{ "objects", required_argument, NULL, 'O' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "asc", no_argument, NULL, OPT_ASC },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "bufsize", required_argument, NULL, OPT_SRC },
	{ "seed", required_argument, NULL, OPT_SRC },
	{ "rate", required_argument, NULL, OPT_SRC },
	{ "sim-objects", required_argument, NULL, OPT_SRC },
	{ "sim-errors", required_argument, NULL, OPT_SRC },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "where", required_argument, NULL, OPT_OLD_WHERE },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "listen-remote", no_argument, NULL, OPT_LISTEN_REMOTE },
	{ "maps", no_argument, NULL, OPT_MAPS },
	{ "processes", no_argument, NULL, OPT_PROCESSES },
	{ "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
	{ "script", required_argument, NULL, OPT_SCRIPT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void die_usage(const char *fmt, const char *arg)
{
	exit(cli_usage_error("vxtop", fmt, arg));
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static void deprecated(const char *old, const char *now)
{
	fprintf(stderr, "vxtop: %s is deprecated, use %s (README.md, Options)\n", old, now);
}

static void source_opt(struct vxtop_cfg *cfg, const char *name, const char *arg)
{
	char err[VXT_ERRBUF_SIZE];

	if (vxt_source_option(&cfg->src.so, name, arg, err) < 0)
		die_usage("%s", err);
}

/* @name: the long option's name, for the source options. */
static void parse_opt(struct vxtop_cfg *cfg, int c, const char *name, const char *arg)
{
	int col;

	switch (c) {
	case 'b': cfg->batch = true; break;
	case 'n':
		deprecated("-n", "-c/--count");
		/* fall through */
	case 'c':
		if (cli_parse_uint(arg, &cfg->count) < 0)
			die_usage("bad count '%s'", arg);
		break;
	case 'i':
		if (vxt_parse_duration(arg, &cfg->src.interval_ns) < 0 ||
		    cfg->src.interval_ns < 10000000ull)
			die_usage("bad interval '%s' (at least 10ms)", arg);
		break;
	case 'F':
		if (!strcmp(arg, "text"))
			cfg->format = VXTOP_FMT_TEXT;
		else if (!strcmp(arg, "json"))
			cfg->format = VXTOP_FMT_JSON;
		else if (!strcmp(arg, "jsonl"))
			cfg->format = VXTOP_FMT_JSONL;
		else if (access(arg, F_OK) == 0)	/* -F FILE was --follow before */
			die_usage("unknown format '%s' (text, json or jsonl; to watch a file, "
				  "--follow FILE)", arg);
		else
			die_usage("unknown format '%s' (text, json or jsonl)", arg);
		break;
	case 's': cfg->src.source = arg; break;
	case OPT_FOLLOW: cfg->src.follow = arg; break;
	case 'w': case OPT_OLD_WRITE:
		deprecated(c == 'w' ? "-w" : "--write", "-o/--output");
		/* fall through */
	case 'o': cfg->src.write = arg; break;
	case 'f': cfg->src.force = true; break;
	case 'O': source_opt(cfg, "objects", arg); break;
	case OPT_SORT:
		col = vxtop_col_parse(arg);
		if (col < 0)
			die_usage("unknown column '%s'", arg);
		cfg->view.sort_col = (unsigned)col;
		cfg->view.ascending = col == VXTOP_COL_NAME;
		cfg->sort_given = true;
		break;
	case OPT_ASC: cfg->view.ascending = true; break;
	case OPT_MATCH: cfg->view.glob = arg; break;
	case OPT_SRC: source_opt(cfg, name, arg); break;
	case OPT_NO_COLOR: cfg->mono = true; break;
	case OPT_OLD_WHERE:
		deprecated("--where", "--filter");
		/* fall through */
	case OPT_FILTER: cfg->src.where = arg; break;
	case OPT_PROFILE: cfg->src.profile = arg; break;
	case OPT_LISTEN: cfg->src.listen = arg; break;
	case OPT_LISTEN_REMOTE: cfg->src.listen_remote = true; break;
	case OPT_MAPS: cfg->src.maps = true; break;
	case OPT_PROCESSES: cfg->processes = true; break;
	case OPT_PROFILE_DIR: cfg->src.profile_dir = arg; break;
	case OPT_SCRIPT: cfg->src.script = arg; break;
	case 'x':
		if (cfg->src.nx == MAX_XOPTS)
			die_usage("too many -x settings (at most 32): '%s'", arg);
		xopts[cfg->src.nx++] = arg;
		cfg->src.xopts = xopts;
		break;
	case 'h': usage(stdout); exit(stdout_status(0));
	case 'V': printf("vxtop %s\n", vxt_version()); exit(stdout_status(0));
	default: usage(stderr); exit(2);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	vxtop_stop = 1;
}

static void set_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int run(int argc, char **argv)
{
	struct vxtop_cfg cfg = {
		.src.interval_ns = VXT_NSEC_PER_SEC,
		.view.sort_col = VXTOP_COL_UTIL,
	};
	struct vxtop_collector c;
	int opt, status, rc, li = 0;
	const char *cs, *term;
	char **margs = NULL;

	setlocale(LC_ALL, "");
	opterr = 0;
	cli_split_script_args(&argc, argv, &margs, &cfg.src.nmargs);
	cfg.src.margs = (const char *const *)margs;
	while ((opt = getopt_long(argc, argv, ":bc:n:i:F:s:o:w:fO:x:hV", long_opts, &li)) != -1) {
		if (opt == '?' || opt == ':')
			die_usage(opt == ':' ? "option '%s' needs a value" : "unknown option '%s'",
				  argv[optind - 1]);
		parse_opt(&cfg, opt, long_opts[li].name, optarg);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (cfg.src.nx && !cfg.src.script)
		die_usage("%s", "-x sets an option of a --script");
	if (cfg.src.margs && !cfg.src.script)
		die_usage("%s", "arguments after -- are a --script's $1 ...");
	if (getenv("NO_COLOR") && getenv("NO_COLOR")[0])
		cfg.mono = true;
	cs = nl_langinfo(CODESET);
	cfg.ascii = !cs || strcmp(cs, "UTF-8");
	term = getenv("TERM");
	if (!cfg.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !*term ||
			   !strcmp(term, "dumb"))) {
		fprintf(stderr, "vxtop: not a terminal that can hold a screen%s; use -b for batch "
			"output\n", term && !strcmp(term, "dumb") ? " (TERM=dumb)" : "");
		return 2;
	}
	if (cfg.src.maps && !cfg.src.source)
		cfg.src.source = "ebpf";	/* the source that counts in the kernel */
	cfg.src.command = join_args(argc, argv);
	set_signals();
	rc = vxtop_collect_open(&c, &cfg.src);
	if (rc < 0) {
		fprintf(stderr, "vxtop: ");
		vxt_fputs_text(c.err, stderr);
		fputc('\n', stderr);
		vxtop_collect_close(&c);
		free((char *)cfg.src.command);
		return rc == -EINVAL ? 2 : 1;	/* usage: the options are at fault */
	}
	if (c.http)
		fprintf(stderr, "vxtop: metrics on %s\n", vxt_metrics_server_url(c.http));
	status = cfg.batch ? vxtop_batch(&c, &cfg) : vxtop_tui(&c, &cfg);
	rc = vxtop_collect_close(&c);
	if (rc < 0) {
		fprintf(stderr, "vxtop: %s: %s\n", cfg.src.write, c.err);
		status = 1;
	}
	free((char *)cfg.src.command);
	return status;
}

int main(int argc, char **argv)
{
	return stdout_status(run(argc, argv));
}

char *vxtop_fmt_lat(double ns, char *buf, size_t size)
{
	if (ns <= 0)
		snprintf(buf, size, "-");
	else if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e5)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1e6)
		snprintf(buf, size, "%.0fus", ns / 1e3);
	else if (ns < 1e8)
		snprintf(buf, size, "%.2fms", ns / 1e6);
	else if (ns < VXT_NSEC_PER_SEC)
		snprintf(buf, size, "%.0fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / VXT_NSEC_PER_SEC);
	return buf;
}

char *vxtop_fmt_rate(double v, char *buf, size_t size)
{
	if (v < 9999.5)
		snprintf(buf, size, v < 99.95 && v != 0 ? "%.1f" : "%.0f", v);
	else if (v < 9999.5e3)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.1fM", v / 1e6);
	return buf;
}

/* The script's text, line by line, each escaped (names in it are the
 * trace's). */
void vxtop_print_lines(const char *p)
{
	char line[4096];

	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

		memcpy(line, p, k);
		line[k] = '\0';
		vxt_fputs_text(line, stdout);
		putchar('\n');
		p += n + (p[n] == '\n');
	}
}
