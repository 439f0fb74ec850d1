/* source_impl.h - what a capture source implements (internal to libvxtrace)
 *
 * Each source file (source_sim.c, source_kmod.c, ...) defines one const
 * struct vxt_source_ops and lists it in the table of source.c. The generic
 * struct vxt_source carries what every source shares; a source keeps its own
 * state in ->priv.
 */
#ifndef VXT_SOURCE_IMPL_H
#define VXT_SOURCE_IMPL_H

#include <stdarg.h>

#include "vxtrace/source.h"

struct vxt_source_ops {
	const char *name;
	/* Set s->priv and any kernel state. @return 0, or a negative errno with
	 * a message set by vxt_source_seterr(). */
	int (*open)(struct vxt_source *s, const struct vxt_source_opts *opts);
	/* As vxt_source_next(). */
	int (*next)(struct vxt_source *s, struct vxt_batch *b, int timeout_ms);
	/* As vxt_source_fd(); NULL = -1. */
	int (*fd)(const struct vxt_source *s);
	/* Release everything open() took; must cope with a half-done open(). */
	void (*close)(struct vxt_source *s);
	/* Can this source be used here (for picking the default)? NULL = yes. */
	int (*probe)(void);
	/* Why probe() or open() said @rc, in a few words, for the line that says
	 * why the default skipped this source; NULL (or NULL result) = the
	 * errno's text. */
	const char *(*why)(int rc);
	/* Stop capturing; next() then hands out what is left and returns 0.
	 * NULL: next() returns 0 at once after vxt_source_stop(). */
	int (*stop)(struct vxt_source *s);
	/* The kernel speculation's counters (open() set s->kspec). NULL: none. */
	int (*kspec_stats)(struct vxt_source *s, struct vxt_kspec_stats *st);
	/* The kernel's counts (opts->tally), as vxt_source_tally(). NULL: the
	 * source cannot count in the kernel (open() refuses opts->tally_only). */
	int (*tally)(struct vxt_source *s, struct vxt_tallies *out);
	/* A lost event fails the capture (vxt_source_lost_fails()): the source
	 * loses only when its buffer had no room, which a larger one prevents
	 * (but for those it counts in lost_passed as well). */
	bool lost_fails;
};

struct vxt_source {
	const struct vxt_source_ops *ops;
	struct vxt_objtab *objs;	/* borrowed */
	struct vxt_strtab *strs;	/* borrowed */
	uint64_t lost;			/* events lost so far */
	uint64_t lost_passed;		/* ... of them, losses that do not fail it */
	uint64_t clock_mono, clock_real;	/* anchor; set at open, updated by clock records */
	void *priv;
	bool stopped;			/* vxt_source_stop() was called */
	bool kspec;			/* open() made the kernel run opts->kspec */
	bool all_phases;		/* open() captures every phase (VXT_COMPAT_PHASES) */
	bool tally;			/* open() made the kernel count (opts->tally*) */
	bool kfilter;			/* open() made the kernel test opts->kfilter */
	char note[1024];
	char kspec_why[200];		/* why opts->kspec stays in user space; "" */
	char err[VXT_ERRBUF_SIZE];
};

/* printf into s->err. @return @rc, to write `return vxt_source_seterr(s, -EIO, ...)`. */
int vxt_source_seterr(struct vxt_source *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append a part to s->note (the closing note), after "; " when it has one. */
void vxt_source_add_note(struct vxt_source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

extern const struct vxt_source_ops vxt_source_kmod_ops;
extern const struct vxt_source_ops vxt_source_sim_ops;
extern const struct vxt_source_ops vxt_source_ebpf_ops;
extern const struct vxt_source_ops vxt_source_tracefs_ops;
extern const struct vxt_source_ops vxt_source_blktrace_ops;

#endif
