/* fixture.h - what several unit suites share: the one random generator, a
 * trace of random overlapping I/O written to a temporary file, checks of the
 * browser model against it, a script sink that keeps what it is given, and
 * a fake sysfs tree
 *
 * ut_rand() is xorshift64 (shifts 13, 7, 17): each suite keeps its own state,
 * seeded with a constant, so its draws are the same at every run. The bench
 * programs include this header for the generator alone.
 */
#ifndef VXT_TESTS_UNIT_FIXTURE_H
#define VXT_TESTS_UNIT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "vxtrace/event.h"

/* the next value of the generator whose state is *s (never seed it with 0) */
static inline uint64_t ut_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* the next value modulo n */
static inline uint64_t ut_rand_below(uint64_t *s, uint64_t n)
{
	return ut_rand(s) % n;
}

struct vr_model;

#define UT_SEC 1000000000ull

/* A 4 KiB I/O event: @phase (enum vxt_phase) of @op at @t on @sector, every
 * other field 0. */
struct vxt_event ut_io_event(uint64_t t, unsigned phase, unsigned op, uint64_t sector);

/* A lost event at @t: @count events of @op lost, naming the I/O @lost_io
 * (vxt_lost_io_pack(); 0: none). */
struct vxt_event ut_lost_event(uint64_t t, unsigned op, uint64_t count, uint64_t lost_io);

/* A trace of nio I/Os (a start and a done each) on the first nobjs of sda,
 * sdb and dm-0. Per I/O, drawn in this order: the latency (10 us plus a draw
 * below lat_ns, or below slow_ns one time in slow_one_in), the start (within
 * span_ns of 1 s), the sector (below 2^sector_bits, times 8), the size (4 KiB
 * shifted by a draw below size_steps), the object, the pid (100 plus a draw
 * below npids), the op (a write one time in write_one_in, else a read) and
 * whether the done fails with EIO (one time in error_one_in). A zero
 * slow_one_in, size_steps, npids or write_one_in draws nothing: no slow I/O,
 * 4 KiB, pid 100 (0 when pid0 is set), reads only. */
struct ut_trace {
	const char *name;		/* the file: /tmp/vxt-NAME-XXXXXX */
	uint64_t rng;			/* the generator's state, advanced */
	unsigned nio, nobjs;
	uint64_t lat_ns, slow_ns;
	unsigned slow_one_in;
	uint64_t span_ns;
	unsigned sector_bits, size_steps, npids, write_one_in, error_one_in;
	int pid0;			/* pids are 0, not 100 */
	size_t chunk_bytes;		/* the writer's chunk size */
};

/* Writes the trace to a new file named in path (at least 64 bytes); evs
 * (2 * nio) holds its events in file order: by time, a start before a done. */
void ut_trace_write(struct ut_trace *t, struct vxt_event *evs, char *path, size_t pathlen);

struct vxt_timeline;

/* Checks tl's bins, [w0, w1) cut in tl->nbins equal parts, against the
 * events, completions and failed completions of evs counted per bin. */
void ut_check_bins(const struct vxt_timeline *tl, const struct vxt_event *evs, size_t nev,
		   uint64_t w0, uint64_t w1);

struct vxt_script_rec;

/* What a script run gave its sink: the ordinals of the events it recorded
 * (ord[0..n)) and all its text (NUL-terminated; NULL before any). Start
 * from { 0 }; free with ut_script_out_free(). */
struct ut_script_out {
	uint64_t *ord;
	size_t n, cap;
	char *text;
	size_t tlen;
};

/* a vxt_script sink collecting into the struct ut_script_out at arg */
int ut_script_sink(void *arg, const struct vxt_script_rec *r);

void ut_script_out_free(struct ut_script_out *u);

/* runs the browser model's jobs to the end */
void ut_model_finish(struct vr_model *m);

/* closes the model and removes the trace at path and its marks sidecar */
void ut_model_close(struct vr_model *m, const char *path);

/* A fake sysfs tree: a new directory /tmp/NAME-XXXXXX that VXT_SYSFS points
 * the device code at (its path in ut_sysfs_root); files and directories
 * made in it by path under it; ut_sysfs_remove() unsets VXT_SYSFS and
 * removes the tree. Failures fail the test. */
extern char ut_sysfs_root[64];
void ut_sysfs_new(const char *name);
void ut_sysfs_put(const char *rel, const char *text);
void ut_sysfs_dir(const char *rel);
void ut_sysfs_remove(void);

#endif
