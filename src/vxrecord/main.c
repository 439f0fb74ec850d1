/* main.c - vxrecord: capture block I/O (or import a blktrace capture) into a
 * Over 700 lines: the program's option table and its run, whose steps share the options struct.
 * .vxt trace file
 *
 * A thin loop over libvxtrace: source -> batch -> writer, with a progress
 * line on a terminal, clean close on SIGINT/SIGTERM and one summary line.
 * Exit status: 0 success, 1 failure while capturing or writing, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/metrics.h"
#include "vxtrace/vxtrace.h"
#include "cli.h"
#include "keep.h"
#include "rotate.h"
#include "ship.h"

#define EXIT_USAGE CLI_EXIT_USAGE
#define NAMES_MAX (1u << 20)	/* command names remembered across files; then "(many)" */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: vxrecord -o FILE [options]\n"
"       vxrecord --import blktrace PREFIX|FILES|- -o FILE\n"
"Capture block I/O into a .vxt trace file.\n"
"  -o, --output FILE       trace file to write (created 0600)\n"
"  -s, --source KIND       kmod, ebpf, tracefs or sim (default: the first usable)\n"
"  -O, --objects LIST      objects to trace: sda,dm-0,8:16 (default: all)\n"
"      --bufsize SIZE      kernel buffer size (4M); --phases issue|all (ebpf, tracefs, kmod)\n"
"      --errors            error trace: saved and new errors (kmod)\n"
"      --import blktrace P convert a blktrace capture (prefix, files or -)\n"
"  -d, --duration TIME     stop after TIME (e.g. 30s; simulated time for sim)\n"
"  -c, --count N           stop after N events\n"
"      --seed N, --rate N  simulator seed (default 1), events/s (default 50000)\n"
"      --sim-objects SPEC  simulator objects NAME:rand|seq:READPCT:SIZE:LAT[:WEIGHT],...\n"
"      --sim-errors SPEC   simulator error bursts OBJECT@TIME+COUNT[:ERRNO],... or none\n"
"      --realtime          pace the simulator to the wall clock\n"
"      --host NAME         the file's host; --clock-offset [-]DUR moves the sim's clock\n"
"      --profile NAME      write only what profile NAME keeps (errors-in-context)\n"
"      --profile-dir DIR   look for profiles and scripts (NAME.d) in DIR first\n"
"      --script NAME       write what NAME.d or .bt keeps; -x NAME=VALUE, -- ARGS\n"
"      --listen ADDR:PORT  serve metrics on http://ADDR:PORT/metrics (Prometheus)\n"
"      --listen-remote     let --listen use a non-loopback address\n"
"      --sink URL          also ship the trace to clickhouse+http://HOST:PORT/DB.TABLE\n"
"                          (formats/clickhouse.md); the file is the spool\n"
"      --sink-batch N      rows per insert (default 65536)\n"
"      --sink-timeout DUR  one request's time limit (default 10s)\n"
"      --sink-retry DUR    at the end, retry the last batches this long (60s)\n"
"      --sink-user NAME    ClickHouse user; the password comes from\n"
"      --sink-password-file FILE  or the environment's VXT_CLICKHOUSE_PASSWORD\n"
"      --filter EXPR       write only the events matching EXPR (formats/filter.md)\n"
"  -l, --level N           zstd level (default 1)\n"
"      --sync              make each closed chunk durable (fdatasync)\n"
"      --rotate SIZE|TIME  start a new file at SIZE (64M) or TIME (10m, 1h); the\n"
"                          older ones become FILE.1, FILE.2 ... (trace.1.vxt),\n"
"                          the oldest first; at least 1s or 8K\n"
"      --keep N            with --rotate, keep at most N older files\n"
"  -f, --force             overwrite an existing file\n"
"      --follow-symlinks   allow the output to be a symlink\n"
"  -q, --quiet             no progress line or summary\n"
"  -h, --help              this help\n"
"  -V, --version           print the version\n");
}

struct options {
	const char *output;
	const char *host;		/* --host: the name the file records */
	const char *source;
	const char *import;
	struct vxt_source_opts src;
	struct vxt_writer_opts wr;
	uint64_t count;
	uint64_t duration_ns;
	bool quiet;
	const char *listen;		/* --listen */
	bool listen_remote;
	struct ship ship;		/* --sink */
	struct rotate rot;
	bool keep_set;
	struct keep keep;		/* --profile */
};

static int die_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("vxrecord", fmt, arg);
}

static char *join_args(int argc, char **argv)
{
	static char buf[256];
	size_t len = 0;

	for (int i = 0; i < argc && len < sizeof(buf) - 1; i++) {
		int n = snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		len += (size_t)n;
	}
	return buf;
}

/* @return -1 to go on, else an exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	enum { O_SRC = 256, O_IMPORT, O_SYNC, O_FOLLOW, O_HOST };	/* O_SRC: vxt_source_option() */
	enum { O_ROTATE = 400, O_KEEP };
	enum { O_PROFILE = 500, O_PROFILE_DIR, O_FILTER, O_SCRIPT };
	enum { O_LISTEN = 600, O_LISTEN_REMOTE };
	enum { O_SINK = 700, O_SINK_BATCH, O_SINK_TIMEOUT, O_SINK_RETRY, O_SINK_USER,
	       O_SINK_PWFILE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "source", required_argument, NULL, 's' },
		{ "objects", required_argument, NULL, O_SRC },
		{ "bufsize", required_argument, NULL, O_SRC },
		{ "errors", no_argument, NULL, O_SRC },
		{ "phases", required_argument, NULL, O_SRC },
		{ "import", required_argument, NULL, O_IMPORT },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, O_SRC },
		{ "rate", required_argument, NULL, O_SRC },
		{ "sim-objects", required_argument, NULL, O_SRC },
		{ "sim-errors", required_argument, NULL, O_SRC },
		{ "realtime", no_argument, NULL, O_SRC },
		{ "clock-offset", required_argument, NULL, O_SRC },
		{ "host", required_argument, NULL, O_HOST },
		{ "level", required_argument, NULL, 'l' },
		{ "sync", no_argument, NULL, O_SYNC },
		{ "force", no_argument, NULL, 'f' },
		{ "follow-symlinks", no_argument, NULL, O_FOLLOW },
		{ "rotate", required_argument, NULL, O_ROTATE },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "profile-dir", required_argument, NULL, O_PROFILE_DIR },
		{ "script", required_argument, NULL, O_SCRIPT },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "listen-remote", no_argument, NULL, O_LISTEN_REMOTE },
		{ "sink", required_argument, NULL, O_SINK },
		{ "sink-batch", required_argument, NULL, O_SINK_BATCH },
		{ "sink-timeout", required_argument, NULL, O_SINK_TIMEOUT },
		{ "sink-retry", required_argument, NULL, O_SINK_RETRY },
		{ "sink-user", required_argument, NULL, O_SINK_USER },
		{ "sink-password-file", required_argument, NULL, O_SINK_PWFILE },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char err[VXT_ERRBUF_SIZE];
	uint64_t v;
	int rc;
	int c, li = 0;

	opterr = 0;
	cli_split_script_args(&argc, argv, &o->keep.script.margs, &o->keep.script.nmargs);
	while ((c = getopt_long(argc, argv, ":o:O:s:d:c:l:x:fqhV", longopts, &li)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case O_HOST:
			if (!*optarg || strlen(optarg) >= VXT_OBJ_HOST_MAX)
				return die_usage("--host: expected a name of 1 to 63 bytes, got '%s'",
						 optarg);
			o->host = optarg;
			break;
		case 's': o->source = optarg; break;
		case O_SRC:
			if (vxt_source_option(&o->src, longopts[li].name, optarg, err) < 0)
				return die_usage("%s", err);
			break;
		case O_IMPORT:
			if (strcmp(optarg, "blktrace"))
				return die_usage("--import: unknown format '%s' (known: blktrace)",
						 optarg);
			o->import = optarg;
			break;
		case 'd':
			if (vxt_parse_duration(optarg, &o->duration_ns) < 0 || !o->duration_ns)
				return die_usage("--duration: bad duration '%s'", optarg);
			break;
		case 'c':
			if (cli_parse_uint(optarg, &o->count) < 0 || !o->count)
				return die_usage("--count: bad number '%s'", optarg);
			break;
		case 'l':
			if (cli_parse_uint(optarg, &v) < 0 || v < 1 || v > 19)
				return die_usage("--level: expected 1..19, got '%s'", optarg);
			o->wr.level = (int)v;
			break;
		case O_SYNC: o->wr.sync = true; break;
		case 'f': o->wr.force = true; break;
		case O_FOLLOW: o->wr.follow_symlink = true; break;
		case O_ROTATE:
			rc = rotate_parse(&o->rot, optarg);
			if (rc == -ERANGE)
				return die_usage("--rotate: at least 1s or 8K, got '%s'", optarg);
			if (rc < 0)
				return die_usage("--rotate: expected a size (64M, 1G) or a time (10m, "
						 "1h), got '%s'", optarg);
			break;
		case O_KEEP:
			if (cli_parse_uint(optarg, &v) < 0 || !v || v > 100000)
				return die_usage("--keep: expected 1..100000, got '%s'", optarg);
			o->rot.keep = (unsigned)v;
			o->keep_set = true;
			break;
		case O_PROFILE: o->keep.profile = optarg; break;
		case O_PROFILE_DIR: o->keep.profile_dir = optarg; break;
		case O_SCRIPT: o->keep.script.name = optarg; break;
		case 'x':
			if (!strchr(optarg, '='))
				return die_usage("-x: expected NAME=VALUE, got '%s'", optarg);
			if (o->keep.script.nx == KEEP_SCRIPT_XMAX)
				return die_usage("-x: more than %s settings", "64");
			o->keep.script.xopts[o->keep.script.nx++] = optarg;
			break;
		case O_LISTEN: o->listen = optarg; break;
		case O_LISTEN_REMOTE: o->listen_remote = true; break;
		case O_SINK:
			if (!vxt_ch_url_ok(optarg))
				return die_usage("--sink: expected clickhouse+http://HOST:PORT/DB.TABLE "
						 "(DB and TABLE of letters, digits and _), got '%s'",
						 optarg);
			o->ship.url = optarg;
			break;
		case O_SINK_BATCH:
			if (cli_parse_uint(optarg, &v) < 0 || !v || v > 10000000)
				return die_usage("--sink-batch: expected 1..10000000, got '%s'", optarg);
			o->ship.co.batch = (size_t)v;
			break;
		case O_SINK_TIMEOUT:
			if (vxt_parse_duration(optarg, &v) < 0 || v < 1000000)
				return die_usage("--sink-timeout: bad duration '%s'", optarg);
			o->ship.co.timeout_ms = v / 1000000;
			break;
		case O_SINK_RETRY:
			if (vxt_parse_duration(optarg, &v) < 0)
				return die_usage("--sink-retry: bad duration '%s'", optarg);
			o->ship.retry_ns = v;
			break;
		case O_SINK_USER: o->ship.co.user = optarg; break;
		case O_SINK_PWFILE: o->ship.password_file = optarg; break;
		case O_FILTER: o->keep.filter = optarg; break;
		case 'O':
			if (vxt_source_option(&o->src, "objects", optarg, err) < 0)
				return die_usage("%s", err);
			break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("vxrecord %s\n", vxt_version()); return 0;
		case ':':
			return die_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			return die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (!o->import || o->src.path)
			return die_usage("unexpected argument '%s'", argv[optind]);
		o->src.path = argv[optind++];
		if (optind < argc)
			return die_usage("unexpected argument '%s'", argv[optind]);
	}
	if (!o->output)
		return die_usage("%s", "no output file (-o FILE)");
	if (o->keep.script.name && o->keep.profile)
		return die_usage("%s", "--script and --profile together: give one");
	if (o->keep.script.nx && !o->keep.script.name)
		return die_usage("%s", "-x needs --script");
	if (o->keep.script.margs && !o->keep.script.name)
		return die_usage("%s", "arguments after -- are a --script's $1 ...");
	if (o->keep_set && !rotate_enabled(&o->rot))
		return die_usage("%s", "--keep needs --rotate");
	if (o->ship.url && rotate_enabled(&o->rot))
		return die_usage("%s", "--sink and --rotate together are not supported: ship "
				 "rotated files with vxreplay FILE --export URL");
	o->rot.path = o->output;
	if (rotate_enabled(&o->rot) && rotate_check_name(&o->rot) < 0)
		return die_usage("--rotate: '%s': the rotated files' names would be too long",
				 o->output);
	if (o->import) {
		if (!o->src.path)
			return die_usage("%s", "--import blktrace needs PREFIX, FILES or -");
		o->source = "blktrace";
		o->wr.input = o->src.path;	/* a capture file is not the output */
	}
	return -1;
}

static void progress(const struct options *o, struct vxt_writer *w, struct vxt_source *src,
		     uint64_t started, bool final)
{
	struct vxt_writer_stats st;
	double secs = (double)(vxt_now_mono() - started) / VXT_NSEC_PER_SEC;
	char fsize[16], kept[128];

	vxt_writer_get_stats(w, &st);
	rotate_add_totals(&o->rot, &st);
	vxt_format_size(st.file_bytes, fsize, sizeof(fsize));
	if (!final) {
		fprintf(stderr, "\r%7.1fs  %llu events  %.0f ev/s  %s written  ratio %.1fx  "
			"lost %llu%s\033[K", secs, (unsigned long long)st.events,
			secs > 0 ? (double)st.events / secs : 0.0, fsize,
			st.file_bytes ? (double)st.raw_bytes / (double)st.file_bytes : 0.0,
			(unsigned long long)vxt_source_lost(src),
			keep_progress(&o->keep, kept, sizeof(kept)));
		return;
	}
	fprintf(stderr, "vxrecord: %llu events (%llu errors, %llu lost) in %llu chunks, %s "
		"(%.1f bytes/event, ratio %.1fx) to %s in %.2fs\n",
		(unsigned long long)st.events, (unsigned long long)st.errors,
		(unsigned long long)st.lost, (unsigned long long)st.chunks, fsize,
		st.events ? (double)st.file_bytes / (double)st.events : 0.0,
		st.file_bytes ? (double)st.raw_bytes / (double)st.file_bytes : 0.0,
		o->output, secs);
	if (st.names_over)
		fprintf(stderr, "vxrecord: %llu command names past the %u a file holds were "
			"stored as %s\n", (unsigned long long)st.names_over,
			VXT_FILE_STRINGS_MAX, VXT_STR_MANY);
	if (o->rot.rotations)
		fprintf(stderr, "vxrecord: %llu files rotated out of %s\n",
			(unsigned long long)o->rot.rotations, o->output);
	keep_summary(&o->keep, stderr);
}

/* Write @b (rotating as asked). @return 0, or -1 after printing why. */
static int write_kept(struct options *o, struct vxt_writer **w, const struct vxt_batch *b,
		      struct vxt_objtab *objs, struct vxt_strtab *strs)
{
	char err[VXT_ERRBUF_SIZE];

	if (!b->n)
		return 0;
	if (rotate_enabled(&o->rot)) {
		if (rotate_write(&o->rot, w, b->ev, b->n, &o->wr, objs, strs, err) < 0) {
			fprintf(stderr, "vxrecord: %s\n", err);
			return -1;
		}
	} else if (vxt_writer_write(*w, b->ev, b->n) < 0) {
		fprintf(stderr, "vxrecord: %s\n", vxt_writer_error(*w));
		return -1;
	}
	return 0;
}

/* A live source's --duration or --count is over (the simulator stops itself). */
static bool limit_reached(const struct options *o, bool is_sim, uint64_t started,
			  uint64_t written)
{
	if (is_sim)
		return false;
	return (o->duration_ns && vxt_now_mono() - started >= o->duration_ns) ||
	       (o->count && written >= o->count);
}

/* --listen: count what the source captured, publish now and then; a
 * source that counts in the kernel (ebpf) is read every 100 ms instead.
 * @return 0, or -1 after printing why. */
static int metrics_step(struct vxt_metrics *m, const struct keep *k, struct vxt_source *src,
			const struct vxt_objtab *objs, const struct vxt_batch *b,
			struct vxt_tallies *t)
{
	struct vxt_view_stats st;

	if (!m)
		return 0;
	if (vxt_source_tallies(src)) {
		if (vxt_now_mono() - t->read_ns >= 100000000ull) {
			if (vxt_source_tally(src, t) < 0) {
				fprintf(stderr, "vxrecord: %s\n", vxt_source_error(src));
				return -1;
			}
			t->read_ns = vxt_now_mono();
			if (vxt_metrics_set_tally(m, objs, t) < 0)
				goto oom;
		}
	} else if (vxt_metrics_feed(m, objs, b->ev, b->n) < 0) {
		goto oom;
	}
	vxt_metrics_set_lost(m, vxt_source_lost(src));
	if (k->v) {
		vxt_view_get_stats(k->v, &st);
		vxt_metrics_set_view(m, &st);
	}
	if (vxt_metrics_tick(m) < 0)
		goto oom;
	return 0;
oom:
	fprintf(stderr, "vxrecord: metrics: out of memory\n");
	return -1;
}

/* --filter: the part the kernel can test goes there (ebpf); the whole
 * filter still runs on what arrives. *@line says what runs where (empty
 * without a filter). */
static void kernel_filter(struct options *o, struct vxt_kfilter *k, char *line, size_t size)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f;
	int n;

	if (!o->keep.filter)
		return;
	f = vxt_filter_compile(o->keep.filter, NULL, NULL, err);
	if (!f)
		return;		/* the view says what is wrong with it */
	n = vxt_filter_kernel(f, k);
	if (n > 0) {
		o->src.kfilter = k;
		snprintf(line, size, "the kernel tests %d of %u comparisons (%s); user space "
			 "the whole filter on what it sends", n, vxt_filter_ntests(f), k->fields);
	} else {
		snprintf(line, size, "runs in user space: %s", n < 0 ?
			 "it reads intervals or has more comparisons than the kernel's table holds" :
			 "no comparison the kernel can make (names, time, dev)");
	}
	vxt_filter_free(f);
}

static int record(struct options *o, int argc, char **argv)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_source *src = NULL;
	struct vxt_writer *w = NULL;
	struct vxt_metrics *metrics = NULL;
	struct vxt_metrics_server *http = NULL;
	struct vxt_batch batch = { 0 }, *kb;
	struct vxt_tallies tallies = { 0 };
	struct vxt_kfilter kfilter;
	char kf_line[200] = "";
	const char *term = getenv("TERM");
	bool is_sim, live, tty = isatty(STDERR_FILENO) && !o->quiet &&
				 !(term && !strcmp(term, "dumb"));
	uint64_t started = vxt_now_mono(), last_progress = started, written = 0;
	int status = 1, rc, kprog, ring_full = 0;
	bool stopping = false;
	struct vxt_kspec kspec;
	char why[256], script_name[72];

	if (!objs || !strs) {
		fprintf(stderr, "vxrecord: out of memory\n");
		goto out;
	}
	vxt_strtab_set_limit(strs, NAMES_MAX);
	o->src.progname = "vxrecord";
	is_sim = o->source && !strcmp(o->source, "sim");
	if (is_sim) {
		o->src.count = o->count;
		o->src.duration_ns = o->duration_ns;
	}
	/* a profile the kernel can run goes there, so only what it keeps leaves it */
	kprog = keep_kernel_program(&o->keep, &kspec, why, sizeof(why), err);
	if (kprog < 0) {
		fprintf(stderr, "vxrecord: %s\n", err);
		status = EXIT_USAGE;	/* the profile named is unknown or invalid */
		goto out;
	}
	if (kprog > 0)
		o->src.kspec = &kspec;
	o->src.tally = o->listen != NULL;	/* metrics from the kernel's counts where it can */
	kernel_filter(o, &kfilter, kf_line, sizeof(kf_line));
	src = vxt_source_open(o->source, &o->src, objs, strs, err);
	if (!src) {
		status = errno == EINVAL ? EXIT_USAGE : 1;	/* unknown source, bad spec */
		fprintf(stderr, "vxrecord: %s\n", err);
		goto out;
	}
	if (o->keep.script.name && !o->quiet && strcmp(vxt_source_name(src), "sim") &&
	    strcmp(vxt_source_name(src), "blktrace"))
		fprintf(stderr, "vxrecord: script %s runs in user space: the kernel runs only "
			"context: profiles (formats/profile.md, In the kernel), not scripts\n",
			o->keep.script.name);
	if (kf_line[0] && !o->quiet)
		fprintf(stderr, "vxrecord: filter: %s\n",
			o->src.kfilter && !vxt_source_kfilters(src) ?
			"runs in user space: the source cannot test it in the kernel" : kf_line);
	if (vxt_source_speculates(src)) {
		o->keep.kernel = src;
		o->wr.kernel_spec = true;
	} else if (o->keep.profile && !o->quiet && strcmp(vxt_source_name(src), "sim") &&
		   strcmp(vxt_source_name(src), "blktrace")) {
		fprintf(stderr, "vxrecord: profile %s runs in user space: %s\n", o->keep.profile,
			kprog > 0 ? vxt_source_kspec_why(src) ? vxt_source_kspec_why(src) :
			"the source cannot speculate in the kernel" : why);
	}
	live = !(is_sim && !o->src.realtime) && strcmp(vxt_source_name(src), "blktrace");
	o->keep.live = live;
	o->wr.source = vxt_source_name(src);
	o->wr.all_phases = vxt_source_all_phases(src);
	o->wr.command = join_args(argc, argv);
	vxt_source_clock(src, &o->wr.anchor_mono_ns, &o->wr.anchor_real_ns);
	o->keep.all_phases = o->wr.all_phases || !strcmp(vxt_source_name(src), "blktrace");
	o->keep.wall_off_ns = (int64_t)(o->wr.anchor_real_ns - o->wr.anchor_mono_ns);
	if (is_sim && !o->src.realtime)
		o->wr.host = "simulator";
	else if (!strcmp(vxt_source_name(src), "blktrace"))
		o->wr.host = "";	/* the capture host is not in blktrace files */
	if (o->host)
		o->wr.host = o->host;	/* --host */
	/* a file another vxrecord is writing is neither rotated away nor truncated */
	if (vxt_outfile_unused(o->output, err, sizeof(err)) < 0) {
		fprintf(stderr, "vxrecord: %s\n", err);
		goto out;
	}
	if (o->listen) {
		metrics = vxt_metrics_new();
		if (!metrics || vxt_metrics_publish(metrics) < 0) {
			fprintf(stderr, "vxrecord: metrics: out of memory\n");
			goto out;
		}
		http = vxt_metrics_serve(metrics, o->listen, o->listen_remote, err);
		if (!http) {
			fprintf(stderr, "vxrecord: %s\n", err);
			status = errno == EINVAL ? EXIT_USAGE : 1;	/* a bad address */
			goto out;
		}
		/* said even with -q: with port 0 it is the only word of the port chosen */
		fprintf(stderr, "vxrecord: metrics on %s\n", vxt_metrics_server_url(http));
	}
	if (metrics && strcmp(vxt_source_name(src), "blktrace"))
		vxt_metrics_system_objects(metrics);	/* a capture: this system's devices */
	if (ship_open(&o->ship, err) < 0) {
		fprintf(stderr, "vxrecord: %s\n", err);
		goto out;
	}
	if (rotate_enabled(&o->rot) && (rc = rotate_shift(&o->rot)) < 0) {
		fprintf(stderr, "vxrecord: %s: rotating the existing file: %s\n", o->output,
			strerror(-rc));
		goto out;
	}
	if (keep_open(&o->keep, objs, strs, err) < 0) {
		fprintf(stderr, "vxrecord: %s\n", err);
		status = EXIT_USAGE;	/* the profile named is unknown or invalid */
		goto out;
	}
	o->wr.profile = o->keep.p ? o->keep.p->name : NULL;
	if (o->keep.script.s) {	/* the header names the script as NAME.d (NAME.bt) */
		snprintf(script_name, sizeof(script_name), "%s.%s",
			 vxt_script_name(o->keep.script.s),
			 vxt_script_is_bpftrace(o->keep.script.s) ? "bt" : "d");
		o->wr.profile = script_name;
	}
	w = vxt_writer_open(o->output, &o->wr, objs, strs, err);
	if (!w) {
		fprintf(stderr, "vxrecord: %s\n", err);
		goto out;
	}
	if (ship_start(&o->ship, o->output, err) < 0) {
		fprintf(stderr, "vxrecord: %s\n", err);
		goto out;
	}
	for (;;) {
		/* on a signal or a limit, stop the source and drain what it holds */
		if (!stopping && (stop_requested || limit_reached(o, is_sim, started, written) ||
				  keep_exited(&o->keep))) {
			stopping = true;
			if (vxt_source_stop(src) < 0) {
				fprintf(stderr, "vxrecord: %s\n", vxt_source_error(src));
				goto out;
			}
		}
		rc = vxt_source_next(src, &batch, stopping ? 0 : 200);
		if (rc < 0) {
			if (rc == -EINTR)
				continue;
			fprintf(stderr, "vxrecord: %s\n", vxt_source_error(src));
			goto out;
		}
		if (!is_sim && o->count && written + batch.n > o->count)
			batch.n = (size_t)(o->count - written);
		if (metrics_step(metrics, &o->keep, src, objs, &batch, &tallies) < 0)
			goto out;
		kb = keep_batch(&o->keep, &batch);
		if (!kb || write_kept(o, &w, kb, objs, strs) < 0)
			goto out;
		written += batch.n;
		batch.n = 0;
		if (rc == 0 || (!is_sim && o->count && written >= o->count))
			break;
		kb = live ? keep_tick(&o->keep) : NULL;
		if (live && (!kb || write_kept(o, &w, kb, objs, strs) < 0))
			goto out;
		if (live && vxt_writer_tick(w) < 0) {
			fprintf(stderr, "vxrecord: %s\n", vxt_writer_error(w));
			goto out;
		}
		if (tty && vxt_now_mono() - last_progress >= 500000000ull) {
			last_progress = vxt_now_mono();
			progress(o, w, src, started, false);
		}
	}
	kb = keep_finish(&o->keep);
	if (!kb || write_kept(o, &w, kb, objs, strs) < 0)
		goto out;
	/* close the last chunk now so the summary counts it */
	if (vxt_writer_flush(w) < 0) {
		fprintf(stderr, "vxrecord: %s\n", vxt_writer_error(w));
		goto out;
	}
	status = 0;
	/* the source's buffer had no room for some events: the file is whole
	 * and counts them, the capture is not (the source's note names them) */
	if (vxt_source_lost_fails(src))
		status = ring_full = 1;
out:
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (w) {
		char said[VXT_ERRBUF_SIZE];

		if (status == 0 && !o->quiet)
			progress(o, w, src, started, true);
		/* a writer that failed repeats its error on close: say it once */
		snprintf(said, sizeof(said), "%s", vxt_writer_error(w));
		if (vxt_writer_close(w, err) < 0) {
			if (strcmp(err, said))
				fprintf(stderr, "vxrecord: %s\n", err);
			status = 1;
		}
	}
	/* the file is closed: the shipper takes what is left of it */
	if (ship_finish(&o->ship) < 0)
		status = 1;
	else if (o->ship.ch && status == 0 && !o->quiet)
		fprintf(stderr, "vxrecord: %llu events shipped to %s (%llu retries)\n",
			(unsigned long long)vxt_ch_rows_sent(o->ship.ch), o->ship.url,
			(unsigned long long)(o->ship.retries + vxt_ch_retries(o->ship.ch)));
	ship_close(&o->ship);
	vxt_metrics_server_stop(http);
	vxt_metrics_free(metrics);
	vxt_tallies_free(&tallies);
	if (src && vxt_source_note(src) && (!o->quiet || ring_full))
		fprintf(stderr, "vxrecord: %s\n", vxt_source_note(src));
	vxt_source_close(src);
	keep_close(&o->keep);
	vxt_batch_free(&batch);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return status;
}

/* What reached stdout (--help, a script's output): a write that failed, as
 * into a full disk, turns a success into exit 1; a failure already said keeps
 * its status. @return @rc, or 1. */
static int stdout_status(int rc)
{
	int e = fflush(stdout) == EOF ? errno : 0;

	if (rc || e == EPIPE || (!e && !ferror(stdout)))
		return rc;
	fprintf(stderr, "vxrecord: stdout: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
	return 1;
}

static int run(int argc, char **argv)
{
	struct options o = { .ship.retry_ns = 60000000000ull };
	struct sigaction sa = { 0 };
	int rc = parse_options(argc, argv, &o);

	if (rc >= 0)
		return rc;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return record(&o, argc, argv);
}

int main(int argc, char **argv)
{
	return stdout_status(run(argc, argv));
}
