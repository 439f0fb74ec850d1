/* profile.h - YAML profiles: filter, speculation, timeline, heatmap, columns
 *
 * A profile says which events matter (a filter and speculation rules or the
 * context shorthand) and how to show them (timeline, heatmap, event columns,
 * latency thresholds). Profiles are YAML files found by name on a search
 * path; every mistake in one is reported as "file:line:column: message".
 * Spec: formats/profile.md.
 *
 *   char err[VXT_ERRBUF_SIZE];
 *   struct vxt_profile *p = vxt_profile_open("errors-in-context", NULL, err);
 *   if (!p)
 *           die("%s", err);
 *   ... p->filter, p->spec, p->heatmap ...
 *   vxt_profile_free(p);
 */
#ifndef VXTRACE_PROFILE_H
#define VXTRACE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"
#include "spec.h"

#define VXT_PROFILE_NAME_MAX	64
#define VXT_PROFILE_PATH_MAX	4096
#define VXT_PROFILE_MAX_COLUMNS	16
#define VXT_PROFILE_MAX_BYTES	(1 << 20)	/* largest profile file */
#define VXT_PROFILE_MAX_DIRS	6

/* Where the installed profiles live; the build may set it. */
#ifndef VXT_PROFILE_DATADIR
#define VXT_PROFILE_DATADIR "/usr/local/share/vxtrace/profiles"
#endif

/* Event list columns. */
enum vxt_column {
	VXT_COL_TIME, VXT_COL_WALL, VXT_COL_OBJECT, VXT_COL_DEV, VXT_COL_PHASE,
	VXT_COL_OP, VXT_COL_FLAGS, VXT_COL_SECTOR, VXT_COL_BYTES, VXT_COL_LATENCY,
	VXT_COL_ERROR, VXT_COL_PID, VXT_COL_COMM, VXT_COL_CPU, VXT_COL_SPEC,
	/* a completion's own intervals (filter.md's q2d ... i2d) */
	VXT_COL_Q2D, VXT_COL_D2C, VXT_COL_Q2C, VXT_COL_Q2G, VXT_COL_G2I, VXT_COL_I2D,
	VXT_COL_COUNT
};

/* heatmap: rows, metric and scale as a profile names them. A metric's name
 * is also what vxt_heat_metric_parse() (heatmap.h) takes, where it exists. */
enum vxt_prof_rows { VXT_PROF_ROWS_OBJECTS, VXT_PROF_ROWS_LBA };
enum vxt_prof_metric {
	VXT_PROF_IOPS, VXT_PROF_BYTES, VXT_PROF_LAT_P50, VXT_PROF_LAT_P99, VXT_PROF_ERRORS,
	VXT_PROF_METRIC_COUNT
};
enum vxt_prof_scale { VXT_PROF_LINEAR, VXT_PROF_LOG };

/* timeline.marks */
#define VXT_MARK_ERRORS	0x1
#define VXT_MARK_LOST	0x2
#define VXT_MARK_SLOW	0x4	/* latency at or above thresholds.latency_crit_ns */

struct vxt_profile {
	char name[VXT_PROFILE_NAME_MAX];
	char path[VXT_PROFILE_PATH_MAX];	/* the file it came from, "" if from memory */
	char *description;			/* NULL if none */

	char *filter;				/* NULL = every event */
	unsigned filter_line, filter_col;	/* where the expression starts */

	bool has_spec;				/* speculation:, context: or program: */
	/* program: a D script (formats/script.md), laid out so that its lines
	 * and columns are the file's (blank lines and spaces before it) */
	char *program;				/* NULL if none */
	size_t program_len;
	bool is_context;			/* ... given as context: */
	struct vxt_spec_config spec;		/* strings owned by the profile */
	struct {				/* context: as written */
		unsigned key;
		uint64_t before_ns, after_ns;
		uint32_t before_events, after_events;	/* 0 = no count bound */
		char *on;
	} context;

	struct {
		bool bin_auto;			/* bin: auto (the default) */
		uint64_t bin_ns;
		unsigned marks;			/* VXT_MARK_*; default errors | lost */
	} timeline;

	struct {
		unsigned rows;			/* enum vxt_prof_rows */
		char object[32];		/* rows: lba: the object */
		unsigned buckets;		/* rows: lba: LBA buckets (default 64) */
		unsigned metric;		/* enum vxt_prof_metric */
		unsigned scale;			/* enum vxt_prof_scale */
		unsigned bins;			/* time bins; 0 = fit the screen */
	} heatmap;

	unsigned ncolumns;			/* 0 = the program's default */
	unsigned columns[VXT_PROFILE_MAX_COLUMNS];	/* enum vxt_column */

	struct {
		uint64_t latency_warn_ns;	/* 0 = none */
		uint64_t latency_crit_ns;
	} thresholds;
};

/* "time", "wall", "object", ... ; and back (-1 if unknown). */
const char *vxt_column_name(unsigned col);
int vxt_column_parse(const char *s);
/* "iops", "bytes", "latency-p50", "latency-p99", "errors". */
const char *vxt_prof_metric_name(unsigned metric);

/*
 * Parse profile text @text (@len bytes). @file names it in messages.
 * @return the profile (caller frees with vxt_profile_free()), or NULL with
 * "file:line:column: message" in @err.
 */
struct vxt_profile *vxt_profile_parse(const char *text, size_t len, const char *file,
				      char err[VXT_ERRBUF_SIZE]);

/* Load the profile file @path. @return as vxt_profile_parse(). */
struct vxt_profile *vxt_profile_load(const char *path, char err[VXT_ERRBUF_SIZE]);

/*
 * The directories searched for profiles, in order: @dir (--profile-dir, may
 * be NULL), $XDG_CONFIG_HOME/vxtrace/profiles (~/.config/... when unset),
 * $VXT_PROFILE_DIR, the source tree's formats/profiles when the program runs
 * from a build directory, then VXT_PROFILE_DATADIR.
 * @return how many were written to @dirs.
 */
int vxt_profile_dirs(const char *dir, char dirs[][VXT_PROFILE_PATH_MAX], int max);

/*
 * Find profile @name: a path (containing '/' or ending in .yaml/.yml) is used
 * as is; a name is looked up as NAME.yaml, then NAME.yml, in each directory.
 * @return 0 with the file in @path, or -ENOENT / -EINVAL with a message.
 */
int vxt_profile_find(const char *name, const char *dir, char path[VXT_PROFILE_PATH_MAX],
		     char err[VXT_ERRBUF_SIZE]);

/* vxt_profile_find() then vxt_profile_load(). */
struct vxt_profile *vxt_profile_open(const char *name, const char *dir,
				     char err[VXT_ERRBUF_SIZE]);

/* Names of the profiles on the search path, the first of each name, sorted.
 * @return how many were written to @names (at most @max). */
int vxt_profile_list(const char *dir, char names[][VXT_PROFILE_NAME_MAX], int max);

/* Names of the files on the search path (vxt_profile_dirs() of @dir) that
 * @keep accepts: it is given each file name and, to accept it, writes the
 * name to list into @name and returns true. The first of each name, sorted.
 * vxt_profile_list() is this with the profile files.
 * @return how many were written to @names (at most @max). */
int vxt_profile_list_files(const char *dir,
			   bool (*keep)(const char *file, char name[VXT_PROFILE_NAME_MAX]),
			   char names[][VXT_PROFILE_NAME_MAX], int max);

/* NULL is fine. */
void vxt_profile_free(struct vxt_profile *p);

/* The ops @p's speculation (or its program) compiles to on the script
 * engine, as vxt_script_explain() lists a script's, then whether a kernel
 * source runs it (vxt_profile_kspec()). @return 0, -EINVAL with a message
 * in @err (no speculation), or EOF on a write error. */
int vxt_profile_explain(const struct vxt_profile *p, FILE *out, char err[VXT_ERRBUF_SIZE]);

struct vxt_kspec;
/* Can a kernel source run @p itself (see struct vxt_kspec in source.h)? Its
 * speculation compiled to the script engine is the context form with no
 * filter, keyed by object, pid or object,pid, or the request form, and its
 * trigger behaves as `error`, `latency >= D`, `latency > D` or either
 * (profile_kspec.c).
 * @return 1 with @k filled, or 0 with the reason in @why (a phrase:
 * "it has a filter, which runs in user space"; out of memory, it is "it
 * does not compile: ...", and the profile runs in user space). */
int vxt_profile_kspec(const struct vxt_profile *p, struct vxt_kspec *k, char *why, size_t len);

#endif
