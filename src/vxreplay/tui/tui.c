/* tui.c - vxreplay's interactive browser: setup, main loop glue, --bench
 *
 * Opens the model, builds the panels and runs the screen manager until q.
 * With opts->bench the same screen is drawn to a virtual terminal and a
 * scripted series of keys is timed; the figures go to stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/app.h"

/* Paragraphs: the help wraps them to the screen's width. */
static const char *const help_before[] = {
	"vxreplay browses a trace: the header, a timeline (errors, IOPS, MiB/s or latency p50 / "
	"p99 per bin: c; time labels in seconds as the TIME column), a heatmap of the busiest "
	"objects, and the events. Tab moves between panels; Left/Right on the timeline or the "
	"heatmap step one bin, on the event list they scroll its columns sideways (the time "
	"column stays). On a small screen the list keeps five rows first, then the timeline, "
	"then the heatmap: a panel squeezed out says so and what it hides.",
	"",
	NULL
};

static const char *const help_after[] = {
	"Filters: op == write && latency > 20ms && object ~ \"sd*\"  (see formats/filter.md)",
	"Times:   12.5 (seconds from the start)  +2s / -500ms (from the cursor)  14:03:07.25",
	"Prompts: Up / Down recall what was entered before; Esc leaves without a change.",
	"Long work (binning, counting a filter, export) runs in steps: Esc cancels it.",
	"Mouse: a click on the timeline or the heatmap jumps there; a wheel notch moves one event.",
	"Lost events are counted in the header and marked ! under the timeline; a profile's "
	"timeline.mark: [slow] marks bins with I/O at or above its latency crit threshold.",
	"Speculation (s) runs on the events the filter (/) lets through: filter first.",
	"Marks (m) are kept beside the trace in TRACE.marks and come back when it is opened again.",
	NULL
};

static bool app_busy(void *app)
{
	return vr_model_busy(&((struct vr_app *)app)->m);
}

static int app_step(void *app)
{
	struct vr_app *a = app;

	vr_model_step(&a->m);
	vr_show_note(a);
	return TUI_REDRAW;
}

static void app_cancel(void *app)
{
	vr_model_cancel(&((struct vr_app *)app)->m);
}

static int app_tick(void *app)
{
	struct vr_app *a = app;
	int n;

	if (!a->m.following)
		return TUI_NONE;
	n = vr_model_check_rotated(&a->m);
	if (n != 0) {
		char err[VXT_ERRBUF_SIZE], nb[VXT_ESCAPE_MAX(200)];

		if (n < 0)
			return TUI_QUIT;	/* the model is closed: the caller says why */
		/* the new file: the same filter and profile as asked on the command line */
		if (a->opts->profile)
			vr_apply_profile(a, a->opts->profile, err, sizeof(err));
		if (a->opts->filter)
			vr_apply_filter(a, a->opts->filter, err, sizeof(err));
		vr_model_end(&a->m);
		tui_screen_msg(&a->scr, TUI_R_MSG, "%s was rotated: following the new file",
			       vxt_text(a->m.path, nb, sizeof(nb)));
		return TUI_REDRAW;
	}
	n = vr_model_refresh(&a->m);
	if (n < 0) {
		tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "%s", vxt_reader_error(a->m.rd));
		return TUI_REDRAW;
	}
	if (n > 0) {
		vr_model_end(&a->m);
		return TUI_REDRAW;
	}
	return TUI_NONE;
}

static const char *app_progress(void *app)
{
	struct vr_app *a = app;

	return vr_model_progress(&a->m, a->progress, sizeof(a->progress));
}

static const struct tui_app_ops app_ops = {
	.layout = vr_layout,
	.busy = app_busy,
	.step = app_step,
	.cancel = app_cancel,
	.tick = app_tick,
	.progress = app_progress,
};

static int setup_screen(struct vr_app *a, bool virt, int lines, int cols)
{
	struct tui_screen_opts so = {
		.color = a->opts->no_color ? TUI_COLOR_NEVER : TUI_COLOR_AUTO,
		.ascii = a->opts->ascii,
		.mouse = true,
		.virtual_screen = virt,
		.lines = lines,
		.cols = cols,
		.tick_ms = 500,
	};

	if (tui_screen_init(&a->scr, &so) < 0)
		return -1;
	a->scr.app = a;
	a->scr.app_ops = &app_ops;
	a->scr.keys = vr_keys;
	a->scr.keybar = vr_keybar;
	vr_panels_init(a);
	vr_overlays_init(a);
	vr_procview_init(a);
	tui_help_init(&a->help, "vxreplay help", vr_keys, help_before, help_after);
	tui_screen_add(&a->scr, &a->header);
	tui_screen_add(&a->scr, &a->timeline);
	tui_screen_add(&a->scr, &a->heatmap);
	tui_screen_add(&a->scr, &a->list);
	tui_screen_focus(&a->scr, &a->list);
	return 0;
}

static double ms_since(uint64_t t0)
{
	return (double)(vxt_now_mono() - t0) / 1e6;
}

/* CPU time of the process in ns: the figures apart from the machine's load. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * VXT_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void rss_kib(long *rss, long *hwm)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	*rss = *hwm = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss);
		sscanf(line, "VmHWM: %ld", hwm);
	}
	fclose(f);
}

static const int bench_keys[] = {
	KEY_DOWN, KEY_DOWN, KEY_DOWN, KEY_NPAGE, KEY_NPAGE, KEY_NPAGE, KEY_PPAGE, 'G', 'g',
	'e', 'e', 'e', 'E', 't', 't', 'T', '+', '+', '+', '-', KEY_NPAGE, 'G', KEY_PPAGE,
	KEY_UP, '-', '-', '-', 'g', 'e', '\t', '\t', '\t', '\t', 'G', 'g', '\r', 27, 'o', 27,
	'?', 'q', 'L', 'L', 'M', 'M', 'M', 'M',
	/* the timeline's metrics, the histogram, the processes, the I/O listing */
	'c', 'c', 'c', 'c', 'L', 'L', 'c', 'b', KEY_RIGHT, '2', '1', 27, 'P', 27, 'i', 'G', 'g', 'i',
	/* the D script's aggregations (without a script: its message) */
	'A', 27,
};

/* Run the stepped jobs to the end. @return the ms it took. */
static double finish_jobs(struct vr_app *a)
{
	uint64_t t = vxt_now_mono();

	while (vr_model_busy(&a->m))
		vr_model_step(&a->m);
	tui_screen_draw(&a->scr);
	return ms_since(t);
}

struct key_times {
	double mean, worst, cpu_mean, cpu_worst;
	int worst_key;
};

static void bench_keys_run(struct vr_app *a, struct key_times *kt)
{
	size_t nk = sizeof(bench_keys) / sizeof(bench_keys[0]);
	double sum = 0, csum = 0;

	memset(kt, 0, sizeof(*kt));
	for (size_t i = 0; i < nk; i++) {
		uint64_t t = vxt_now_mono(), c = cpu_ns();
		double d, dc;

		/* a key and the redraw it causes; the stepped work it starts runs
		 * between keys in the real loop and is timed apart */
		tui_screen_feed(&a->scr, bench_keys[i]);
		tui_screen_draw(&a->scr);
		d = ms_since(t);
		dc = (double)(cpu_ns() - c) / 1e6;
		sum += d;
		csum += dc;
		if (dc > kt->cpu_worst)
			kt->cpu_worst = dc;
		if (d > kt->worst) {
			kt->worst = d;
			kt->worst_key = bench_keys[i];
		}
		if (vr_model_busy(&a->m))
			vr_model_step(&a->m);
	}
	kt->mean = sum / nk;
	kt->cpu_mean = csum / nk;
}

/* @first is timed from main(), @first_cpu from exec (the process's CPU
 * clock); @at_real is when the screen was done, on the real-time clock, so
 * a caller that noted that clock before exec times the whole start (the
 * dynamic loader included) as date +%s%N sees it. */
static void print_first(const struct vr_app *a, double first, double first_cpu, uint64_t at_real)
{
	printf("file: %s\nevents: %" PRIu64 "  chunks: %zu\n", a->m.path,
	       vxt_reader_nevents(a->m.rd), vxt_reader_nchunks(a->m.rd));
	printf("first full screen: %.1f ms (%.1f ms CPU; from main() and from exec: open, index, first draw at 120x40)\n",
	       first, first_cpu);
	printf("first full screen at: %" PRIu64 " ns (real-time clock)\n", at_real);
}

static int run_bench(struct vr_app *a, uint64_t t_start)
{
	size_t nk = sizeof(bench_keys) / sizeof(bench_keys[0]);
	double first, first_cpu, full, filt, end_ms;
	uint64_t first_at;
	struct key_times k, kf;
	char err[256];
	long rss, hwm;

	if (setup_screen(a, true, 40, 120) < 0)
		return 1;
	tui_screen_draw(&a->scr);
	first = ms_since(t_start);
	first_cpu = (double)cpu_ns() / 1e6;
	first_at = vxt_now_real();
	if (a->opts->bench_first) {
		tui_screen_end(&a->scr);
		print_first(a, first, first_cpu, first_at);
		return 0;
	}
	/* End and the redraw it causes, from the first screen */
	{
		uint64_t t = vxt_now_mono();

		tui_screen_feed(&a->scr, KEY_END);
		tui_screen_draw(&a->scr);
		end_ms = ms_since(t);
		tui_screen_feed(&a->scr, KEY_HOME);
		tui_screen_draw(&a->scr);
	}
	bench_keys_run(a, &k);
	vr_model_set_window(&a->m, a->m.t_first, a->m.t_last + 1, a->m.nbins);
	vr_model_rebin(&a->m);
	full = finish_jobs(a);
	if (vr_apply_filter(a, "op == write && latency > 1ms", err, sizeof(err)) < 0) {
		tui_screen_end(&a->scr);
		fprintf(stderr, "vxreplay: %s\n", err);
		return 1;
	}
	filt = finish_jobs(a);
	bench_keys_run(a, &kf);
	finish_jobs(a);
	rss_kib(&rss, &hwm);
	tui_screen_end(&a->scr);
	print_first(a, first, first_cpu, first_at);
	printf("redraw after End: %.1f ms\n", end_ms);
	printf("navigation keys: %zu, redraw mean %.2f ms, worst %.2f ms (%s); CPU mean %.2f, worst %.2f ms\n",
	       nk, k.mean, k.worst, keyname(k.worst_key) ? keyname(k.worst_key) : "?", k.cpu_mean,
	       k.cpu_worst);
	printf("  with a filter: mean %.2f ms, worst %.2f ms (%s); CPU mean %.2f, worst %.2f ms\n",
	       kf.mean, kf.worst, keyname(kf.worst_key) ? keyname(kf.worst_key) : "?", kf.cpu_mean,
	       kf.cpu_worst);
	printf("exact timeline of the whole file (stepped, in the background): %.0f ms\n", full);
	printf("filter 'op == write && latency > 1ms' over the file (stepped): %.0f ms\n", filt);
	printf("resident memory: %.1f MiB at the end, %.1f MiB peak\n", rss / 1024.0, hwm / 1024.0);
	return 0;
}

int vxreplay_tui(const char *path, const struct vxreplay_tui_opts *opts)
{
	uint64_t t_start = opts->t_start ? opts->t_start : vxt_now_mono();
	struct vr_app *a = calloc(1, sizeof(*a));
	char err[256];
	int rc = 0;

	if (!a) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	a->opts = opts;
	if ((opts->npaths > 1 ? vr_model_open_set(&a->m, opts->paths, opts->npaths) :
	     vr_model_open(&a->m, path)) < 0) {
		fprintf(stderr, "vxreplay: %s\n", a->m.err);
		free(a);
		return 1;
	}
	a->m.profile_dir = opts->profile_dir;
	if (opts->profile && vr_apply_profile(a, opts->profile, err, sizeof(err)) < 0) {
		fprintf(stderr, "vxreplay: %s\n", err);
		rc = 1;
		goto out_close;
	}
	if (opts->filter && vr_apply_filter(a, opts->filter, err, sizeof(err)) < 0) {
		fprintf(stderr, "vxreplay: %s\n", err);
		rc = 1;
		goto out_close;
	}
	a->m.following = opts->follow;
	if (opts->bench) {
		rc = run_bench(a, t_start);
		goto out_close;
	}
	if (setup_screen(a, false, 0, 0) < 0) {
		rc = 1;
		goto out_close;
	}
	if (a->m.following)
		vr_model_end(&a->m);
	rc = tui_screen_run(&a->scr);
	tui_screen_end(&a->scr);
	if (!a->m.rd) {
		/* the rotated file could not be opened */
		fprintf(stderr, "vxreplay: %s\n", a->m.err);
		vr_search_free(a->search_f);
		vr_overlays_free(a);
		free(a->tl_marks);
		free(a->tl_uncapt);
		free(a->tl_vals);
		free(a);
		return 1;
	}
	if (rc) {
		fprintf(stderr, "vxreplay: stopped by signal %d\n", rc);
		rc = 1;
	}
out_close:
	vr_search_free(a->search_f);
	vr_overlays_free(a);
	free(a->tl_marks);
	free(a->tl_uncapt);
	free(a->tl_vals);
	vr_model_close(&a->m);
	free(a);
	return rc;
}
