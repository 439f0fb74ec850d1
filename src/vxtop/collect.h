/* collect.h - vxtop's collector: source or followed file -> interval model
 *
 * One loop step waits (poll) on the source and on the terminal at once, drains
 * what the source has, records it when asked (-w), feeds the model and closes
 * intervals when their end has passed. The source is never left waiting: a
 * step returns within ~100 ms and the caller redraws only once per interval or
 * on a key. No curses here.
 */
#ifndef VXTOP_COLLECT_H
#define VXTOP_COLLECT_H

#include <stdbool.h>
#include <sys/types.h>
#include <stdint.h>

#include "model.h"
#include "script.h"
#include "vxtrace/metrics.h"

struct vxtop_opts {
	const char *source;		/* NULL = the default source */
	const char *follow;		/* follow this .vxt instead of a source */
	const char *write;		/* record to this file while viewing */
	const char *profile;
	const char *profile_dir;	/* --profile-dir: looked in first */
	const char *where;		/* filter expression (formats/filter.md) */
	struct vxt_source_opts so;	/* the source options (vxt_source_option()) */
	uint64_t interval_ns;
	const char *command;		/* the command line, for -w */
	const char *listen;		/* serve /metrics on this address */
	bool listen_remote;		/* ... even when it is not loopback */
	bool force;			/* -w overwrites */
	bool maps;			/* --maps: the kernel counts, no events */
	const char *script;		/* --script NAME: a D-style script, or NULL */
	const char *const *xopts;	/* its -x NAME=VALUE settings */
	unsigned nx;
	const char *const *margs;	/* after "--": its $1 ... */
	unsigned nmargs;
};

struct vxtop_collector;

/* Called for every closed interval (newest snapshot in the model). */
typedef void (*vxtop_close_fn)(struct vxtop_collector *c, const struct vxtop_snap *s,
			       void *arg);

struct vxtop_collector {
	struct vxt_source *src;
	struct vxt_reader *rd;
	struct vxt_writer *wr;
	struct vxt_profile *profile;	/* --profile, or NULL */
	struct vxt_view *view;		/* --profile and --where; NULL = every event */
	const struct vxt_objtab *view_objs;	/* the table the view is bound to */
	const char *where;		/* --where, borrowed from the options */
	struct vxt_batch kept;		/* what the view kept of the batch */
	struct vxt_objtab *objs;	/* owned (source mode) */
	struct vxt_strtab *strs;	/* owned (source mode) */
	struct vxt_batch batch;
	struct vxt_tallies tallies;	/* --maps: the kernel's counts, last read */
	struct vxt_metrics *metrics;	/* --listen */
	struct vxt_metrics_server *http;
	struct vxtop_model model;
	int64_t clock_off;		/* source time minus CLOCK_MONOTONIC */
	bool clock_set;
	uint64_t lag_ns;		/* how long to wait for late events */
	uint64_t start_mono;		/* when the view started */
	uint64_t view_start;		/* ... in source time */
	uint64_t next_refresh;		/* follow: next look at the file */
	uint64_t fed;			/* events fed since start */
	bool ended;			/* the source has no more events */
	bool closed;			/* following a finished file: read it through */
	bool history_done;		/* follow: an event of the view's time was seen */
	const char *follow_path;	/* follow: the path, followed as tail -F does */
	dev_t follow_dev;		/* ... and the file it named when opened */
	ino_t follow_ino;
	uint64_t rotations;		/* follow: times the path was rotated */
	struct vxtop_script *script;	/* --script, or NULL */
	vxtop_close_fn on_close;
	void *arg;
	char name[160];			/* "sim", "follow trace.vxt" */
	char err[VXT_ERRBUF_SIZE];
};

/* Open the source (or the followed file) and the recording. @return 0, or a
 * negative errno with a message in c->err: -EINVAL when the options are at
 * fault (an unknown source or profile, a bad --where, -w with --follow). */
int vxtop_collect_open(struct vxtop_collector *c, const struct vxtop_opts *o);
/* Close everything; the recording gets its footer. @return 0, or a negative
 * errno with a message in c->err (from closing the recording). */
int vxtop_collect_close(struct vxtop_collector *c);
/* One step: wait at most ~100 ms for the source or @in_fd (-1 = none), take
 * what came, close due intervals (calling c->on_close). *@input tells whether
 * @in_fd is readable. @return 0, or a negative errno with c->err set. */
int vxtop_collect_step(struct vxtop_collector *c, int in_fd, bool *input);
/* Close the open interval at source time @end (the partial one at the end
 * of a finished source), calling c->on_close. @return 0 or a negative errno. */
int vxtop_collect_close_interval(struct vxtop_collector *c, uint64_t end);
/* Run the script's END (once; its text in c->script->end). @return 0, or a
 * negative errno with c->err set. No script: 0. */
int vxtop_collect_end_script(struct vxtop_collector *c);
/* Events the source lost so far (the larger of its count and the stream's). */
uint64_t vxtop_collect_lost(const struct vxtop_collector *c);
/* Change the interval; the open interval ends at its start plus @ns. */
void vxtop_collect_set_interval(struct vxtop_collector *c, uint64_t ns);
/* Seconds since the view started. */
double vxtop_collect_uptime(const struct vxtop_collector *c);
/* The object table in use (the source's or the followed file's). */
const struct vxt_objtab *vxtop_collect_objects(const struct vxtop_collector *c);
const struct vxt_strtab *vxtop_collect_strings(const struct vxtop_collector *c);

#endif
