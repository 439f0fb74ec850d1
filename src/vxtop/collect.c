/* collect.c - vxtop's collector: source or followed file -> interval model
 *
 * Intervals are cut in source time. A live source stamps events with
 * CLOCK_MONOTONIC, so "now" in source time is the monotonic clock (plus an
 * offset learnt from the first event when a source uses another base). An
 * interval closes when an event past its end arrives, or when the clock has
 * passed its end by lag_ns (events may sit in a buffer or, when following a
 * file, in the recorder's open chunk for up to a second).
 * A finished file (one with its footer) is not followed: it is read through
 * from its first event, intervals cut by event times alone, and the source
 * ends at its end. Times are never trusted: interval ends saturate at 2^64,
 * and an event far ahead of the clock moves the clock there.
 * A followed path is followed as tail -F does: when it names another file (a
 * recorder with --rotate renamed the old one away), the rest of the old file
 * is read and the new one is followed from its first event.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect.h"
#include "collect_impl.h"
#include "vxtrace/profile.h"
#include "vxtrace/view.h"

#define STEP_MAX_MS 100
#define DRAIN_CALLS_MAX 256		/* bounded work per step */
#define LIVE_LAG_NS 20000000ull		/* 20 ms */
#define CLOCK_SAME_NS 10000000000ull	/* closer than this to the clock: same base */
#define GAP_INTERVALS 100		/* skip empty stretches longer than this */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t src_now(const struct vxtop_collector *c)
{
	return (uint64_t)((int64_t)vxt_now_mono() + c->clock_off);
}

static int open_source(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	struct vxt_source_opts so = o->so;
	uint64_t mono, real;

	so.progname = "vxtop";
	so.realtime = true;		/* a live view: the simulator keeps the wall clock */
	so.tally_only = o->maps;
	c->objs = vxt_objtab_new();
	c->strs = vxt_strtab_new();
	if (!c->objs || !c->strs) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	vxt_strtab_set_limit(c->strs, 1u << 20);	/* then new names read "(many)" */
	c->src = vxt_source_open(o->source, &so, c->objs, c->strs, c->err);
	if (!c->src)	/* EINVAL: an unknown source or a bad spec, a usage error */
		return errno == EINVAL ? -EINVAL : -ENODEV;
	snprintf(c->name, sizeof(c->name), "%s", vxt_source_name(c->src));
	vxt_source_clock(c->src, &mono, &real);
	vxtop_model_set_anchor(&c->model, mono, real);
	c->lag_ns = LIVE_LAG_NS;
	return 0;
}

static int open_writer(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	struct vxt_writer_opts wo = {
		.force = o->force,
		.source = vxt_source_name(c->src),
		.profile = o->profile,
		.command = o->command,
	};

	vxt_source_clock(c->src, &wo.anchor_mono_ns, &wo.anchor_real_ns);
	c->wr = vxt_writer_open(o->write, &wo, c->objs, c->strs, c->err);
	return c->wr ? 0 : -EIO;
}

/* --profile and --where: the same filter-then-speculation view as vxrecord
 * and vxreplay, so a profile means the same thing everywhere. */
static int open_view(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	bool where = o->where && o->where[0];

	if (!where && !o->profile)
		return 0;
	c->where = where ? o->where : NULL;
	if (o->profile) {
		c->profile = vxt_profile_open(o->profile, o->profile_dir, c->err);
		if (!c->profile)
			return -EINVAL;
	}
	c->view = vxt_view_new(c->profile, where ? o->where : NULL, vxtop_collect_objects(c),
			       vxtop_collect_strings(c), c->err);
	if (!c->view)
		return -EINVAL;
	c->view_objs = vxtop_collect_objects(c);
	/* `time` counts from the start of the view, as from the start of a capture */
	vxt_view_set_time_base(c->view, c->view_start);
	c->model.partial = c->profile && c->profile->has_spec;
	return 0;
}

/* The view starts once the source records (setting up tracefs can take a
 * while): no empty intervals for the time it took. */
static void start_view(struct vxtop_collector *c)
{
	c->start_mono = vxt_now_mono();
	c->view_start = c->start_mono;
	vxtop_model_restart(&c->model, c->start_mono);
}

/* --listen: the metrics of what the view keeps, served from their own thread. */
static int open_metrics(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	if (!o->listen)
		return 0;
	c->metrics = vxt_metrics_new();
	if (!c->metrics) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	if (c->src)	/* not a followed file: this system's devices */
		vxt_metrics_system_objects(c->metrics);
	vxt_metrics_publish(c->metrics);
	c->http = vxt_metrics_serve(c->metrics, o->listen, o->listen_remote, c->err);
	if (!c->http)
		return errno == EINVAL ? -EINVAL : -EIO;	/* the address, or the system */
	return 0;
}

/* --maps: read the kernel's counts into the open interval and the metrics. */
static int take_tally(struct vxtop_collector *c)
{
	int rc;

	if (!c->src || !vxt_source_tallies(c->src))
		return 0;
	rc = vxt_source_tally(c->src, &c->tallies);
	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "%s: %s", c->name, vxt_source_error(c->src));
		return rc;
	}
	if (vxtop_model_tally(&c->model, &c->tallies) < 0 ||
	    (c->metrics && vxt_metrics_set_tally(c->metrics, c->objs, &c->tallies) < 0)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* After each step: the figures the loop keeps, then publish now and then. */
static int tick_metrics(struct vxtop_collector *c)
{
	struct vxt_view_stats st;
	int rc;

	if (!c->metrics)
		return 0;
	rc = take_tally(c);
	if (rc < 0)
		return rc;
	vxt_metrics_set_lost(c->metrics, c->src ? vxt_source_lost(c->src) : 0);
	if (c->view) {
		vxt_view_get_stats(c->view, &st);
		vxt_metrics_set_view(c->metrics, &st);
	}
	if (vxt_metrics_tick(c->metrics) < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int open_script(struct vxtop_collector *c, const struct vxtop_opts *o);
static int start_script(struct vxtop_collector *c);

int vxtop_collect_open(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (o->maps && (o->follow || o->write || o->where || o->profile || o->script)) {
		snprintf(c->err, sizeof(c->err), "--maps counts in the kernel and sees no events: "
			 "not with %s", o->follow ? "--follow" : o->write ? "-o" :
			 o->where ? "--filter" : o->profile ? "--profile" : "--script");
		return -EINVAL;
	}
	c->start_mono = vxt_now_mono();
	c->view_start = c->start_mono;
	rc = vxtop_model_init(&c->model, NULL, o->interval_ns, c->start_mono);
	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return rc;
	}
	rc = open_script(c, o);
	if (rc < 0)
		return rc;
	if (o->follow) {
		if (o->write) {
			snprintf(c->err, sizeof(c->err),
				 "-o and --follow together: the recorder already keeps the data");
			return -EINVAL;
		}
		rc = vxtop_follow_open(c, o);
		if (rc < 0)
			return rc;
		c->model.objs = vxt_reader_objects(c->rd);
		vxtop_model_set_anchor(&c->model, vxt_reader_info(c->rd)->anchor_mono_ns,
				       vxt_reader_info(c->rd)->anchor_real_ns);
		start_view(c);
		rc = open_view(c, o);
		if (rc < 0 || (rc = start_script(c)) < 0)
			return rc;
		return open_metrics(c, o);
	}
	rc = open_source(c, o);
	if (rc < 0)
		return rc;
	c->model.objs = c->objs;
	start_view(c);
	rc = open_view(c, o);
	if (rc < 0 || (rc = start_script(c)) < 0)
		return rc;
	if (o->write && (rc = open_writer(c, o)) < 0)
		return rc;
	return open_metrics(c, o);
}

int vxtop_collect_close(struct vxtop_collector *c)
{
	int rc = 0;

	vxt_metrics_server_stop(c->http);
	vxt_metrics_free(c->metrics);
	c->http = NULL;
	c->metrics = NULL;
	if (c->wr)
		rc = vxt_writer_close(c->wr, c->err);
	c->wr = NULL;
	vxt_view_free(c->view);
	vxt_profile_free(c->profile);
	vxt_batch_free(&c->kept);
	if (c->script)
		vxtop_script_free(c->script);
	free(c->script);
	c->script = NULL;
	c->view = NULL;
	c->profile = NULL;
	vxt_source_close(c->src);
	vxt_reader_close(c->rd);
	vxt_batch_free(&c->batch);
	vxt_tallies_free(&c->tallies);
	vxtop_model_free(&c->model);
	vxt_objtab_free(c->objs);
	vxt_strtab_free(c->strs);
	c->src = NULL;
	c->rd = NULL;
	c->objs = NULL;
	c->strs = NULL;
	return rc;
}

static void script_error(struct vxtop_collector *c, int rc);

static int close_interval(struct vxtop_collector *c, uint64_t end)
{
	int rc = take_tally(c);

	if (rc < 0)
		return rc;
	rc = vxtop_model_close(&c->model, end);
	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return rc;
	}
	if (c->script) {
		/* a tick at the interval's end prints into it */
		rc = vxtop_script_tick(c->script, end);
		if (rc < 0) {
			script_error(c, rc);
			return rc;
		}
		vxtop_script_close_interval(c->script, end);
	}
	if (c->on_close)
		c->on_close(c, vxtop_model_snap(&c->model, 0), c->arg);
	return 0;
}

int vxtop_collect_close_interval(struct vxtop_collector *c, uint64_t end)
{
	return close_interval(c, end);
}

/* An event at @t lies past the open interval: close intervals up to it; a long
 * silence (a paused recorder) is closed once and then skipped. */
static int catch_up(struct vxtop_collector *c, uint64_t t)
{
	struct vxtop_model *m = &c->model;
	int rc;

	/* an interval ending at 2^64 never closes: the loop ends there */
	while (t >= vxtop_model_cur_end(m) && vxtop_model_cur_end(m) != UINT64_MAX) {
		rc = close_interval(c, vxtop_model_cur_end(m));
		if (rc < 0)
			return rc;
		if (t - m->cur_start > GAP_INTERVALS * m->interval_ns)
			m->cur_start = t - (t - m->cur_start) % m->interval_ns;
	}
	return 0;
}

/* The first event tells whether the source stamps with this clock. */
static void learn_clock(struct vxtop_collector *c, uint64_t t)
{
	uint64_t now = vxt_now_mono();
	uint64_t d = t > now ? t - now : now - t;

	c->clock_set = true;
	if (c->closed) {
		/* a finished file: its intervals start at its first event */
		c->view_start = t;
		if (c->view)
			vxt_view_set_time_base(c->view, t);
		if (c->script)
			vxt_script_set_time_base(c->script->s, t);
		vxtop_model_restart(&c->model, t);
		return;
	}
	if (d < CLOCK_SAME_NS)
		return;
	c->clock_off = (int64_t)(t - now);
	c->view_start = t;
	if (c->view)
		vxt_view_set_time_base(c->view, t);
	if (c->script)
		vxt_script_set_time_base(c->script->s, t);
	vxtop_model_restart(&c->model, t);
}

/* An event long before the open interval: the source's clock went back. */
static bool far_back(const struct vxtop_collector *c, uint64_t t)
{
	return (c->closed || c->history_done) && t < c->model.cur_start &&
	       c->model.cur_start - t > CLOCK_SAME_NS;
}

/* Close what the open interval holds and go on from @t, on the clock too. */
static int jump_back(struct vxtop_collector *c, uint64_t t)
{
	struct vxtop_model *m = &c->model;
	uint64_t end = c->closed ? m->total.last_ns : src_now(c);
	int rc;

	if (m->cur_events) {
		if (end <= m->cur_start)
			end = m->cur_start == UINT64_MAX ? m->cur_start : m->cur_start + 1;
		if (end > vxtop_model_cur_end(m))
			end = vxtop_model_cur_end(m);
		rc = close_interval(c, end);
		if (rc < 0)
			return rc;
	}
	if (!c->closed)
		c->clock_off = (int64_t)(t - vxt_now_mono());
	vxtop_model_restart(m, t);
	return 0;
}

/* A failure while counting: memory, or the script's. */
static void script_error(struct vxtop_collector *c, int rc)
{
	const char *first = c->script ? vxt_script_first_error(c->script->s) : "";

	if (rc == -ENOMEM || !c->script)
		snprintf(c->err, sizeof(c->err), "out of memory");
	else
		snprintf(c->err, sizeof(c->err), "%s: %s", vxtop_script_name(c->script),
			 first[0] ? first : strerror(-rc));
}

/* --script: compiled before the source starts, so a bad script costs nothing. */
static int open_script(struct vxtop_collector *c, const struct vxtop_opts *o)
{
	if (!o->script)
		return 0;
	c->script = calloc(1, sizeof(*c->script));
	if (!c->script) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	return vxtop_script_open(c->script, o->script, o->profile_dir, o->xopts, o->nx, o->margs,
				 o->nmargs, c->err, sizeof(c->err));
}

/* BEGIN, once the object and command tables exist. Following a file, ticks
 * go by event time; live, by the clock. */
static int start_script(struct vxtop_collector *c)
{
	int rc;

	if (!c->script)
		return 0;
	if (c->rd)	/* walltimestamp: the file's wall clock */
		vxt_script_set_wall_offset(c->script->s,
					   (int64_t)(vxt_reader_info(c->rd)->anchor_real_ns -
						     vxt_reader_info(c->rd)->anchor_mono_ns));
	rc = vxtop_script_start(c->script, vxtop_collect_objects(c), vxtop_collect_strings(c),
				!c->rd, c->view_start);
	if (rc < 0)
		script_error(c, rc);
	return rc;
}

int vxtop_collect_end_script(struct vxtop_collector *c)
{
	int rc;

	if (!c->script)
		return 0;
	rc = vxtop_script_end(c->script);
	if (rc < 0)
		script_error(c, rc);
	return rc;
}

static int feed(struct vxtop_collector *c, const struct vxt_event *ev, size_t n)
{
	size_t i = 0, j;
	int rc;

	/* Following a file, what happened before the view started is history
	 * (it arrives late, with the chunk that was open when we started); once
	 * the view's time is reached, an earlier time is a clock that ran
	 * backwards, and its events count. */
	while (c->rd && !c->closed && !c->history_done && i < n &&
	       ev[i].time_ns < c->view_start)
		i++;
	if (i < n)
		c->history_done = true;
	while (i < n) {
		uint64_t end = vxtop_model_cur_end(&c->model);

		for (j = i; j < n && ev[j].time_ns < end && !far_back(c, ev[j].time_ns); j++)
			;
		rc = vxtop_model_feed(&c->model, ev + i, j - i);
		if (rc >= 0 && c->script)
			rc = vxtop_script_feed(c->script, ev + i, j - i);
		if (rc < 0) {
			script_error(c, rc);
			return rc;
		}
		c->fed += j - i;
		/* an event far ahead of the clock: the clock jumped, follow it */
		if (j < n && !c->closed && ev[j].time_ns > sat_add(src_now(c), CLOCK_SAME_NS))
			c->clock_off = (int64_t)(ev[j].time_ns - vxt_now_mono());
		if (j < n && far_back(c, ev[j].time_ns)) {
			rc = jump_back(c, ev[j].time_ns);
			if (rc < 0)
				return rc;
		} else if (j < n) {
			rc = catch_up(c, ev[j].time_ns);
			if (rc < 0)
				return rc;
		}
		i = j;
	}
	return 0;
}

/* Replace the batch by what the view keeps (lost markers always pass).
 * Speculated events come out when their speculation commits. */
static int apply_view(struct vxtop_collector *c)
{
	struct vxt_batch *b = &c->batch, tmp;

	c->kept.n = 0;
	if (vxt_pipeline_push(c->view, b->ev, b->n, VXT_PIPE_NO_ORDINAL, vxt_pipe_to_batch,
			      &c->kept) < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	tmp = *b;
	*b = c->kept;
	c->kept = tmp;
	return 0;
}

int vxtop_collect_take_batch(struct vxtop_collector *c)
{
	int rc = 0;

	if (c->batch.n && !c->clock_set)
		learn_clock(c, c->batch.ev[0].time_ns);
	if (c->view) {
		rc = apply_view(c);
		if (rc < 0)
			return rc;
	}

	if (c->wr && c->batch.n) {
		rc = vxt_writer_write(c->wr, c->batch.ev, c->batch.n);
		if (rc < 0) {
			snprintf(c->err, sizeof(c->err), "%s", vxt_writer_error(c->wr));
			return rc;
		}
	}
	if (c->metrics && vxt_metrics_feed(c->metrics, vxtop_collect_objects(c), c->batch.ev,
					   c->batch.n) < 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	rc = feed(c, c->batch.ev, c->batch.n);
	c->batch.n = 0;
	return rc;
}

static int read_source(struct vxtop_collector *c, int timeout_ms)
{
	int rc = vxt_source_next(c->src, &c->batch, timeout_ms);

	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "%s: %s", c->name, vxt_source_error(c->src));
		return rc;
	}
	if (rc == 0)
		c->ended = true;
	return vxtop_collect_take_batch(c);
}

/* Take everything the source has now, in a few calls (a source fills at most
 * a few thousand events per call). */
static int drain_source(struct vxtop_collector *c)
{
	size_t before;
	int rc, calls;

	for (calls = 0; calls < DRAIN_CALLS_MAX && !c->ended; calls++) {
		before = c->batch.n;
		rc = vxt_source_next(c->src, &c->batch, 0);
		if (rc < 0) {
			snprintf(c->err, sizeof(c->err), "%s: %s", c->name,
				 vxt_source_error(c->src));
			return rc;
		}
		if (rc == 0)
			c->ended = true;
		if (c->batch.n == before)
			break;
	}
	return vxtop_collect_take_batch(c);
}

int vxtop_collect_rebuild_view(struct vxtop_collector *c)
{
	vxt_view_free(c->view);
	c->view = vxt_view_new(c->profile, c->where, vxtop_collect_objects(c),
			       vxtop_collect_strings(c), c->err);
	if (!c->view)
		return -EINVAL;
	c->view_objs = vxtop_collect_objects(c);
	vxt_view_set_time_base(c->view, c->view_start);
	return 0;
}

static int wait_ms(const struct vxtop_collector *c)
{
	uint64_t due = sat_add(vxtop_model_cur_end(&c->model), c->lag_ns);
	uint64_t now = src_now(c);
	uint64_t ms;

	if (c->closed || now >= due)
		return 0;
	ms = (due - now + 999999) / 1000000;
	if (c->rd && ms > FOLLOW_POLL_NS / 1000000)
		ms = FOLLOW_POLL_NS / 1000000;
	return ms > STEP_MAX_MS ? STEP_MAX_MS : (int)ms;
}

static bool poll_input(int in_fd, int timeout_ms)
{
	struct pollfd p = { .fd = in_fd, .events = POLLIN };

	if (in_fd < 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		return false;
	}
	return poll(&p, 1, timeout_ms) > 0 && (p.revents & (POLLIN | POLLHUP));
}

static int wait_and_read(struct vxtop_collector *c, int in_fd, bool *input)
{
	struct pollfd p[2];
	int timeout = wait_ms(c);
	int sfd, n = 0;

	if (c->rd) {
		*input = poll_input(in_fd, c->ended ? STEP_MAX_MS : timeout);
		return c->ended ? 0 : vxtop_follow_read(c);
	}
	if (c->ended) {
		*input = poll_input(in_fd, timeout);
		return 0;
	}
	sfd = vxt_source_fd(c->src);
	if (sfd < 0) {
		/* No fd to wait on (the simulator makes events as time passes):
		 * wait on the terminal alone, then take all that is due. */
		*input = poll_input(in_fd, timeout);
		return drain_source(c);
	}
	p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	if (in_fd >= 0)
		p[n++] = (struct pollfd){ .fd = in_fd, .events = POLLIN };
	if (poll(p, n, timeout) < 0 && errno != EINTR) {
		snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
		return -errno;
	}
	*input = n > 1 && (p[1].revents & (POLLIN | POLLHUP));
	if (p[0].revents)
		return read_source(c, 0);
	return 0;
}

int vxtop_collect_step(struct vxtop_collector *c, int in_fd, bool *input)
{
	struct vxtop_model *m = &c->model;
	int rc;

	*input = false;
	rc = wait_and_read(c, in_fd, input);
	if (rc < 0 || (rc = tick_metrics(c)) < 0)
		return rc;
	/* live ticks: by the clock, before the due interval closes */
	if (c->script && !c->rd && !c->ended) {
		uint64_t now = src_now(c);

		rc = vxtop_script_tick(c->script, now > c->lag_ns ? now - c->lag_ns : 0);
		if (rc < 0) {
			script_error(c, rc);
			return rc;
		}
	}
	if (c->wr) {
		rc = vxt_writer_tick(c->wr);
		if (rc < 0) {
			snprintf(c->err, sizeof(c->err), "%s", vxt_writer_error(c->wr));
			return rc;
		}
	}
	if (!c->closed && src_now(c) >= sat_add(vxtop_model_cur_end(m), c->lag_ns))
		return catch_up(c, src_now(c) - c->lag_ns);
	return 0;
}

uint64_t vxtop_collect_lost(const struct vxtop_collector *c)
{
	uint64_t stream = c->model.total.lost;
	uint64_t src = c->src ? vxt_source_lost(c->src) : 0;

	return stream > src ? stream : src;
}

void vxtop_collect_set_interval(struct vxtop_collector *c, uint64_t ns)
{
	vxtop_model_set_interval(&c->model, ns);
}

double vxtop_collect_uptime(const struct vxtop_collector *c)
{
	return (double)(vxt_now_mono() - c->start_mono) / VXT_NSEC_PER_SEC;
}

const struct vxt_objtab *vxtop_collect_objects(const struct vxtop_collector *c)
{
	return c->rd ? vxt_reader_objects(c->rd) : c->objs;
}

const struct vxt_strtab *vxtop_collect_strings(const struct vxtop_collector *c)
{
	return c->rd ? vxt_reader_strings(c->rd) : c->strs;
}
