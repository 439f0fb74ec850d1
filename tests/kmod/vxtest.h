/* vxtest.h - what the files of vxtest share: the checks of /dev/vxtrace run
 * inside the test guest
 *
 * Built statically on the host from include/vxtrace/voltrace.h (tests/kmod/
 * lib.sh builds every tests/kmod/vxtest*.c into one program) and run by
 * guest.sh. Each subcommand drives real I/O with O_DIRECT, reads the
 * channel and prints one line "VXT-RESULT PASS|FAIL|SKIP name: detail"; the
 * exit status is 0 on pass or skip. Helper subcommands (dm-create,
 * trace-count) print what they did.
 */
#ifndef VXTEST_H
#define VXTEST_H


#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <linux/major.h>
#include <linux/raid/md_p.h>
#include <linux/raid/md_u.h>

#include "vxtrace/voltrace.h"

#define SKIPPED	2	/* result(): the guest's kernel cannot show this */

#define CHECK(cond, ...) do { if (!(cond)) return result(0, __VA_ARGS__); } while (0)

/* vxtest.c */
extern const char *test_name;	/* the subcommand, named in result() */
int result(int ok, const char *fmt, ...);

/* ---- what a channel returned ---- */

struct tally {
	struct voliot_io_rec *io;	/* start, done, error, requeue, phases, in order */
	size_t nio, cap;
	uint64_t lost;			/* sum of lost records */
	unsigned nlost_recs, nobj, nclock, nbad, nreads;
	unsigned first_type;
	unsigned unannounced;		/* events before their object's record */
	struct voliot_object_rec obj[16];
	size_t bytes;
	unsigned nstats;		/* speculation counter records */
	struct voliot_spec_stats stats;	/* the last of them */
	unsigned npacked;		/* records packed (VOLIOT_REC_IO_PACKED, _COMPACT, _PAIR) */
	unsigned npairs;		/* VOLIOT_REC_IO_PAIR */
	struct voliot_io_rec last[3];	/* the last start, done, requeue */
	unsigned have;			/* bit per entry of last */
	struct voliot_io_rec starts[8];	/* the latest starts, starts[nstarts % 8] next */
	unsigned nstarts;
	struct voliot_remap_rec remap[64];	/* the first remaps, with their source */
	unsigned nremap;
};

/* ---- I/O ---- */

struct io {
	int write;
	uint64_t sector;
	uint32_t bytes;
};

struct reader {
	int fd;
	volatile int stop;
	struct tally t;
};

#define TRACEFS	"/sys/kernel/tracing"

#define MS	1000000ULL
#define SEC	1000000000ULL

/* vxtest_chan.c */
uint32_t dev_of(const char *path);
int chan_open(unsigned long bufsize, int flags);
int chan_want(int fd, unsigned long cmd, uint32_t type, uint32_t val);
int chan_trace_path(const char *path, uint32_t type, uint32_t *dev, int *fd);
int chan_info(int fd, struct voliot_info *info);
void tally_free(struct tally *t);
int announced(const struct tally *t, uint32_t dev);
void tally_feed(struct tally *t, const uint8_t *buf, size_t n);
int drain(int fd, struct tally *t, size_t bufsize);
size_t count_type(const struct tally *t, unsigned type, uint32_t dev);

/* vxtest_io.c */
extern void *io_buf;
int do_io(const char *path, const struct io *ios, size_t n, int *errs);
struct io *make_ios(size_t n, uint64_t base);
size_t match_phase(const struct tally *t, unsigned type, uint32_t dev,
		   const struct io *ios, size_t n, pid_t pid);
int ktrace_start(const char *const *evs);
void ktrace_stop(const char *const *evs);
long ktrace_count(const char *ev, uint32_t dev);
void ktrace_reset(void);
int trace_count(const char *path, unsigned long bufsize);

/* vxtest_capture.c */
int t_exact(const char *path, size_t n);
const struct voliot_io_rec *find_io(const struct tally *t, unsigned type,
				    uint32_t dev, uint64_t sector);
int t_badblocks(const char *path, uint64_t bad);
int t_dmerror(const char *path);
int t_eagain(const char *path);
int t_clock(const char *path);
int t_smallbuf(const char *path);
void *reader_main(void *arg);
int t_lost(const char *path, size_t n);
int t_multi(const char *path, size_t n);
int t_eperm(void);
int t_hold(void);

/* vxtest_errors.c */
int t_errchan(const char *bad_path, uint64_t bad, unsigned min_saved);
int t_errlost(const char *path, uint64_t bad, unsigned n);
int expect_errno(int rc, int want);
int t_ioctls(const char *path);
int t_errshare(const char *path, uint64_t bad);

/* vxtest_devices.c */
int t_stacked(const char *top, const char *low, size_t n);
int t_ops(const char *path);
int t_partition(const char *disk, const char *part, uint64_t start);
int t_requeue(const char *path, size_t n);
int t_phases(const char *disk, const char *part, uint64_t start);

/* vxtest_stress.c */
unsigned long param_ul(const char *name);
int t_stress(const char *busy, const char *exact, size_t n);

/* vxtest_spec.c */
void spec_prog(struct voliot_spec *p, uint32_t key, uint32_t triggers);
int spec_set(int fd, const struct voliot_spec *p);
int spec_get(int fd, struct voliot_spec_stats *st);
int spec_chan(uint32_t dev, const struct voliot_spec *p);
int stats_add_up(const struct voliot_spec_stats *s);
const char *same_as(const struct tally *full, const unsigned char *keep,
		    const struct tally *got);
void mark(unsigned char *keep, size_t n, long from, long to);
size_t find_errors(const struct tally *t, size_t *at, size_t max);
struct io *spec_ios(const size_t *good, size_t ngood, uint64_t bad, size_t *n);
int t_spec_ctx(const char *path, uint64_t bad);
int t_spec_time(const char *path, uint64_t bad);
int t_spec_req(const char *fast, const char *slow);

/* vxtest_spec_safety.c */
int t_spec_foreign(const char *path, const char *err_path);
int t_spec_bad(const char *path);
int t_spec_safety(const char *path, uint64_t bad);

/* vxtest_make.c */
int make_mbr(const char *path, uint32_t start, uint32_t count);
int dm_create(const char *name, uint64_t sectors, const char *target,
	      const char *params);
int md_create(const char *md, int kib, char *const *devs, int n);

#endif
