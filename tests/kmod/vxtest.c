/* vxtest.c - checks of /dev/vxtrace run inside the test guest
 *
 * Built statically on the host from include/vxtrace/voltrace.h and run by
 * guest.sh. Each subcommand drives real I/O with O_DIRECT, reads the
 * channel and prints one line "VXT-RESULT PASS|FAIL|SKIP name: detail"; the
 * exit status is 0 on pass or skip. Helper subcommands (dm-create, trace-count) print
 * what they did.
 */
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

static const char *test_name = "?";

#define SKIPPED	2	/* result(): the guest's kernel cannot show this */

static int result(int ok, const char *fmt, ...)
{
	static const char *const verdict[] = { "FAIL", "PASS", "SKIP" };
	va_list ap;

	printf("VXT-RESULT %s %s: ", verdict[ok], test_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok ? 0 : 1;
}

#define CHECK(cond, ...) do { if (!(cond)) return result(0, __VA_ARGS__); } while (0)

/* ---- devices ---- */

static uint32_t dev_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	return VOLIOT_MKDEV(major(st.st_rdev), minor(st.st_rdev));
}

/* ---- channels ---- */

static int chan_open(unsigned long bufsize, int flags)
{
	int fd = open(VOLIOT_DEVICE, O_RDONLY | flags);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, VOLIOT_IO_TRACE_INIT, bufsize) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static int chan_want(int fd, unsigned long cmd, uint32_t type, uint32_t val)
{
	union voliot_want_set set;
	struct voliot_want_list wl;

	memset(&set, 0, sizeof(set));
	set.type = type;
	set.dev.dev = val;
	memset(&wl, 0, sizeof(wl));
	wl.count = 1;
	wl.sets = (uintptr_t)&set;
	return ioctl(fd, cmd, &wl) < 0 ? -errno : 0;
}

static int chan_info(int fd, struct voliot_info *info)
{
	return ioctl(fd, VOLIOT_GET_INFO, info) < 0 ? -errno : 0;
}

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

static void tally_free(struct tally *t)
{
	free(t->io);
	memset(t, 0, sizeof(*t));
}

/* Has an object record for @dev come yet? (only the first 16 are kept) */
static int announced(const struct tally *t, uint32_t dev)
{
	unsigned i;

	if (t->nobj > 16)
		return 1;
	for (i = 0; i < t->nobj; i++)
		if (t->obj[i].dev == dev)
			return 1;
	return 0;
}

static int last_slot(unsigned type)
{
	return type == VOLIOT_REC_IO_START ? 0 : type == VOLIOT_REC_IO_DONE ? 1 :
	       type == VOLIOT_REC_REQUEUE ? 2 : -1;
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A packed record (formats/channel.md) back to the record it stands for.
 * @return 0, or -1 when it is malformed. */
static int unpack(struct tally *t, const uint8_t *p, unsigned len, struct voliot_io_rec *io)
{
	static const unsigned size[13] = { 1, 2, 2, 4, 4, 4, 4, 8, 4, 8, 4, 8, 4 };
	int slot = len >= VOLIOT_PK_HDR ? last_slot(p[2]) : -1;
	unsigned f, o = VOLIOT_PK_HDR, i;
	uint64_t v[13] = { 0 };

	if (slot < 0 || !(t->have & (1u << slot)))
		return -1;
	f = p[3] | p[4] << 8;
	if (f & ~VOLIOT_PK_ALL)
		return -1;
	for (i = 0; i < 13; i++) {
		if (!(f & (1u << i)))
			continue;
		if (o + size[i] > len)
			return -1;
		v[i] = get_le(p + o, size[i]);
		o += size[i];
	}
	*io = t->last[slot];
	io->sector += io->bytes / 512;
	io->latency_ns = 0;
	if (f & VOLIOT_PK_OP)
		io->op = v[0];
	if (f & VOLIOT_PK_FLAGS)
		io->flags = v[1];
	if (f & VOLIOT_PK_CPU)
		io->cpu = v[2];
	if (f & VOLIOT_PK_DEV)
		io->dev = v[3];
	if (f & VOLIOT_PK_PID)
		io->pid = v[4];
	if (f & VOLIOT_PK_BYTES)
		io->bytes = v[5];
	if (f & VOLIOT_PK_ERROR)
		io->error = (int32_t)v[6];
	if (f & VOLIOT_PK_TIME)
		io->time_ns = v[7];
	if (f & VOLIOT_PK_TIME_DELTA)
		io->time_ns += v[8];
	if (f & (VOLIOT_PK_SECTOR | VOLIOT_PK_SECTOR32))
		io->sector = v[9] | v[10];
	if (f & (VOLIOT_PK_LATENCY | VOLIOT_PK_LATENCY32))
		io->latency_ns = v[11] | v[12];
	if (f & VOLIOT_PK_COMM) {
		if (o >= len || p[o] > sizeof(io->comm) || o + 1 + p[o] > len)
			return -1;
		memset(io->comm, 0, sizeof(io->comm));
		memcpy(io->comm, p + o + 1, p[o]);
		o += 1 + p[o];
	}
	if (o != len)
		return -1;
	io->len = sizeof(*io);
	io->type = p[2];
	return 0;
}

/* Varints of a compact record: an unsigned LEB128 at p[*o], below len. */
static int get_var(const uint8_t *p, unsigned len, unsigned *o, uint64_t *v)
{
	unsigned i;

	*v = 0;
	for (i = 0; i < 10 && *o < len; i++) {
		*v |= (uint64_t)(p[*o] & 0x7f) << (7 * i);
		if (!(p[(*o)++] & 0x80))
			return 0;
	}
	return -1;
}

static uint64_t unzz(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

/* A compact record (formats/channel.md) from its head at p[*at] back to the
 * record it stands for: its base is the previous record of its kind or,
 * with a ref r, the r-th latest start; *at is left where its fields end.
 * @return 0, or -1 when it is malformed. */
static int uncompact(struct tally *t, const uint8_t *p, unsigned *at, unsigned len,
		     struct voliot_io_rec *io)
{
	const uint8_t hd = *at < len ? p[*at] : 0xff;
	static const uint8_t kinds[3] = {
		VOLIOT_REC_IO_START, VOLIOT_REC_IO_DONE, VOLIOT_REC_REQUEUE
	};
	unsigned kind = hd & 3, ref = (hd >> 2) & 7, o = *at + 1, bit;
	const struct voliot_io_rec *prev, *base;
	uint64_t more = 0, v, lat = 0;

	if (*at >= len || kind > 2 || !(t->have & (1u << kind)) || ref > t->nstarts || ref > 7)
		return -1;
	prev = &t->last[kind];
	base = ref ? &t->starts[(t->nstarts - ref) % 8] : prev;
	*io = *base;
	io->type = kinds[kind];
	io->sector = ref ? base->sector : base->sector + base->bytes / 512;
	io->cpu = prev->cpu;
	io->pid = prev->pid;
	io->error = prev->error;
	memcpy(io->comm, prev->comm, sizeof(io->comm));
	if ((hd & 0x80) && (get_var(p, len, &o, &more) || !more || more >= 0x400))
		return -1;
	if ((hd & 0x20) && get_var(p, len, &o, &v) == 0)
		io->time_ns = base->time_ns + unzz(v);
	else if (hd & 0x20)
		return -1;
	if (hd & 0x40) {
		if (get_var(p, len, &o, &v))
			return -1;
		io->sector = v;
	}
	if (ref && kind == 1)
		lat = io->time_ns - base->time_ns;
	io->latency_ns = lat;
	for (bit = 0; bit < 10; bit++) {
		if (!(more & (1u << bit)))
			continue;
		if (bit == 5) {		/* comm */
			if (o >= len || p[o] > 16 || o + 1 + p[o] > len)
				return -1;
			memset(io->comm, 0, sizeof(io->comm));
			memcpy(io->comm, p + o + 1, p[o]);
			o += 1 + p[o];
			continue;
		}
		if (get_var(p, len, &o, &v))
			return -1;
		switch (bit) {
		case 0: io->sector += unzz(v); break;
		case 1: io->latency_ns = lat + unzz(v); break;
		case 2: io->cpu = v; break;
		case 3: io->pid = v; break;
		case 4: io->error = (int32_t)unzz(v); break;
		case 6: io->bytes = v; break;
		case 7: io->dev = v; break;
		case 8: io->op = v; break;
		default: io->flags = v; break;
		}
	}
	*at = o;
	io->len = sizeof(*io);
	return 0;
}

static void tally_io(struct tally *t, const struct voliot_io_rec *io)
{
	int slot = last_slot(io->type);

	if (t->nio == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->io = realloc(t->io, t->cap * sizeof(*t->io));
		if (!t->io)
			abort();
	}
	t->io[t->nio++] = *io;
	if (!announced(t, io->dev))
		t->unannounced++;
	if (slot >= 0) {
		t->last[slot] = *io;
		t->have |= 1u << slot;
	}
	if (io->type == VOLIOT_REC_IO_START)
		t->starts[t->nstarts++ % 8] = *io;
}

/* Parse one read()'s worth; every read must hold whole records. */
static void tally_feed(struct tally *t, const uint8_t *buf, size_t n)
{
	struct voliot_io_rec io;
	size_t off = 0;
	unsigned at;

	t->nreads++;
	t->bytes += n;
	while (off < n) {
		const struct voliot_hdr *h = (const void *)(buf + off);

		if (h->len < 2 || off + h->len > n) {
			t->nbad++;
			return;
		}
		if (!t->first_type)
			t->first_type = h->type;
		switch (h->type) {
		case VOLIOT_REC_IO_START:
		case VOLIOT_REC_IO_DONE:
		case VOLIOT_REC_ERROR:
		case VOLIOT_REC_REQUEUE:
		case VOLIOT_REC_QUEUE ... VOLIOT_REC_SPLIT:
			if (h->len != sizeof(struct voliot_io_rec)) {
				t->nbad++;
				break;
			}
			memcpy(&io, buf + off, sizeof(io));
			tally_io(t, &io);
			break;
		case VOLIOT_REC_REMAP: {
			struct voliot_remap_rec rm;

			if (h->len != sizeof(rm)) {
				t->nbad++;
				break;
			}
			memcpy(&rm, buf + off, sizeof(rm));
			if (t->nremap < 64)
				t->remap[t->nremap] = rm;
			t->nremap++;
			tally_io(t, &rm.io);
			break;
		}
		case VOLIOT_REC_IO_PACKED:
			if (unpack(t, buf + off, h->len, &io)) {
				t->nbad++;
				break;
			}
			t->npacked++;
			tally_io(t, &io);
			break;
		case VOLIOT_REC_IO_COMPACT:
			at = 2;
			if (uncompact(t, buf + off, &at, h->len, &io) || at != h->len) {
				t->nbad++;
				break;
			}
			t->npacked++;
			tally_io(t, &io);
			break;
		case VOLIOT_REC_IO_PAIR:	/* two compact records */
			at = 2;
			if (uncompact(t, buf + off, &at, h->len, &io)) {
				t->nbad++;
				break;
			}
			tally_io(t, &io);
			if (uncompact(t, buf + off, &at, h->len, &io) || at != h->len) {
				t->nbad++;
				break;
			}
			tally_io(t, &io);
			t->npacked += 2;
			t->npairs++;
			break;
		case VOLIOT_REC_LOST: {
			struct voliot_lost_rec l;

			memcpy(&l, buf + off, sizeof(l));
			t->lost += l.count;
			t->nlost_recs++;
			break;
		}
		case VOLIOT_REC_OBJECT:
			if (t->nobj < 16)
				memcpy(&t->obj[t->nobj], buf + off, sizeof(t->obj[0]));
			t->nobj++;
			break;
		case VOLIOT_REC_CLOCK:
			t->nclock++;
			break;
		case VOLIOT_REC_SPEC_STATS:
			if (h->len != sizeof(t->stats)) {
				t->nbad++;
				break;
			}
			memcpy(&t->stats, buf + off, sizeof(t->stats));
			t->nstats++;
			break;
		}
		off += h->len;
	}
}

/* Read everything ready without blocking. @return 0 or -errno. */
static int drain(int fd, struct tally *t, size_t bufsize)
{
	uint8_t *buf = malloc(bufsize);
	int flags = fcntl(fd, F_GETFL);
	ssize_t n;
	int rc = 0;

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while ((n = read(fd, buf, bufsize)) > 0)
		tally_feed(t, buf, n);
	if (n < 0 && errno != EAGAIN)
		rc = -errno;
	fcntl(fd, F_SETFL, flags);
	free(buf);
	return rc;
}

static size_t count_type(const struct tally *t, unsigned type, uint32_t dev)
{
	size_t i, n = 0;

	for (i = 0; i < t->nio; i++)
		if (t->io[i].type == type && (!dev || t->io[i].dev == dev))
			n++;
	return n;
}

/* ---- I/O ---- */

struct io {
	int write;
	uint64_t sector;
	uint32_t bytes;
};

static void *io_buf;

static int do_io(const char *path, const struct io *ios, size_t n, int *errs)
{
	int fd = open(path, O_RDWR | O_DIRECT);
	size_t i;

	if (fd < 0)
		return -errno;
	if (!io_buf && posix_memalign(&io_buf, 4096, 1 << 20))
		return -ENOMEM;
	memset(io_buf, 0x5a, 1 << 20);
	*errs = 0;
	for (i = 0; i < n; i++) {
		off_t off = (off_t)ios[i].sector * 512;
		ssize_t r = ios[i].write ? pwrite(fd, io_buf, ios[i].bytes, off)
					 : pread(fd, io_buf, ios[i].bytes, off);

		if (r != (ssize_t)ios[i].bytes)
			(*errs)++;
	}
	close(fd);
	return 0;
}

/* A known mix: every third a write, sizes 4..16 KiB, distinct sectors. */
static struct io *make_ios(size_t n, uint64_t base)
{
	struct io *ios = calloc(n, sizeof(*ios));
	size_t i;

	for (i = 0; i < n; i++) {
		ios[i].write = i % 3 == 2;
		ios[i].bytes = 4096 * (1 + i % 4);
		ios[i].sector = base + i * 64;
	}
	return ios;
}

/* A request is issued by the task that submitted it, or by kblockd when
 * the block layer defers the dispatch (as it does for O_DIRECT writes). */
static int issuer_ok(const struct voliot_io_rec *r, pid_t pid)
{
	if ((pid_t)r->pid == pid)
		return !strcmp(r->comm, "vxtest");
	return r->pid && !strncmp(r->comm, "kworker/", 8);
}

/* Match one phase one for one, in order. @return index of the first
 * mismatch, or n when all match. */
static size_t match_phase(const struct tally *t, unsigned type, uint32_t dev,
			  const struct io *ios, size_t n, pid_t pid)
{
	size_t i, k = 0;

	for (i = 0; i < t->nio && k < n; i++) {
		const struct voliot_io_rec *r = &t->io[i];

		if (r->type != type || r->dev != dev)
			continue;
		if (r->op != (ios[k].write ? VOLIOT_OP_WRITE : VOLIOT_OP_READ) ||
		    r->sector != ios[k].sector || r->bytes != ios[k].bytes ||
		    r->error != 0 || (r->flags & VOLIOT_F_BIO) ||
		    (type == VOLIOT_REC_IO_START && !issuer_ok(r, pid)) ||
		    (type == VOLIOT_REC_IO_DONE && r->latency_ns == 0)) {
			printf("mismatch: type %u op %u sector %llu bytes %u error %d "
			       "flags %#x pid %u comm %.16s latency %llu; expected "
			       "%s sector %llu bytes %u pid %d\n", r->type, r->op,
			       (unsigned long long)r->sector, r->bytes, r->error,
			       r->flags, r->pid, r->comm,
			       (unsigned long long)r->latency_ns,
			       ios[k].write ? "write" : "read",
			       (unsigned long long)ios[k].sector, ios[k].bytes, pid);
			return k;
		}
		k++;
	}
	return k;
}

/* ---- tests ---- */

static int t_exact(const char *path, size_t n)
{
	uint32_t dev = dev_of(path);
	struct tally t = { 0 };
	struct io *ios = make_ios(n, 8192);
	size_t k;
	int fd, errs, rc;

	CHECK(dev, "%s is not a block device", path);
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	rc = do_io(path, ios, n, &errs);
	CHECK(!rc && !errs, "I/O failed (%d errors)", errs);
	rc = drain(fd, &t, 1 << 16);
	CHECK(!rc, "read: %s", strerror(-rc));
	CHECK(t.nbad == 0, "%u malformed records", t.nbad);
	CHECK(t.first_type == VOLIOT_REC_CLOCK, "first record type %u, not clock",
	      t.first_type);
	CHECK(t.nobj == 1 && t.obj[0].dev == dev &&
	      !strncmp(t.obj[0].name, path + 5, sizeof(t.obj[0].name)) &&
	      t.obj[0].kind == VOLIOT_OBJ_DISK,
	      "expected one object record for %s, got %u", path, t.nobj);
	CHECK(t.unannounced == 0, "%u events came before their object record",
	      t.unannounced);
	CHECK(count_type(&t, VOLIOT_REC_IO_START, 0) == n,
	      "%zu start records, expected %zu", count_type(&t, VOLIOT_REC_IO_START, 0), n);
	CHECK(count_type(&t, VOLIOT_REC_IO_DONE, 0) == n,
	      "%zu done records, expected %zu", count_type(&t, VOLIOT_REC_IO_DONE, 0), n);
	k = match_phase(&t, VOLIOT_REC_IO_START, dev, ios, n, getpid());
	CHECK(k == n, "start record %zu does not match the I/O issued", k);
	k = match_phase(&t, VOLIOT_REC_IO_DONE, dev, ios, n, getpid());
	CHECK(k == n, "done record %zu does not match the I/O issued", k);
	CHECK(t.lost == 0, "%llu lost", (unsigned long long)t.lost);
	close(fd);
	tally_free(&t);
	free(ios);
	return result(1, "%zu reads+writes on %s traced one for one (start and done, "
		      "sector, size, op, pid, latency)", n, path);
}

static const struct voliot_io_rec *find_io(const struct tally *t, unsigned type,
					   uint32_t dev, uint64_t sector)
{
	size_t i;

	for (i = 0; i < t->nio; i++)
		if (t->io[i].type == type && t->io[i].dev == dev &&
		    t->io[i].sector == sector)
			return &t->io[i];
	return NULL;
}

/* A read over a bad range fails with EIO at the request level. */
static int t_badblocks(const char *path, uint64_t bad)
{
	uint32_t dev = dev_of(path);
	struct io ios[2] = { { 0, bad, 4096 }, { 0, bad + 4096, 4096 } };
	const struct voliot_io_rec *r;
	struct tally t = { 0 };
	int fd, errs, rc;

	CHECK(dev, "%s is not a block device", path);
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	rc = do_io(path, ios, 2, &errs);
	CHECK(!rc && errs == 1, "expected exactly one failed read, got %d", errs);
	drain(fd, &t, 1 << 16);
	r = find_io(&t, VOLIOT_REC_IO_DONE, dev, bad);
	CHECK(r, "no done record at sector %llu", (unsigned long long)bad);
	CHECK(r->error == -EIO, "error %d at sector %llu, expected -EIO", r->error,
	      (unsigned long long)bad);
	CHECK(!(r->flags & VOLIOT_F_BIO), "request-level error flagged as bio");
	r = find_io(&t, VOLIOT_REC_IO_DONE, dev, bad + 4096);
	CHECK(r && r->error == 0, "good read not traced as success");
	CHECK(count_type(&t, VOLIOT_REC_IO_START, dev) == 2 &&
	      count_type(&t, VOLIOT_REC_IO_DONE, dev) == 2,
	      "expected 2 starts and 2 dones");
	close(fd);
	tally_free(&t);
	return result(1, "read at bad sector %llu: done with -EIO, good read ok",
		      (unsigned long long)bad);
}

/* A dm "error" target fails bios before any request exists. */
static int t_dmerror(const char *path)
{
	uint32_t dev = dev_of(path);
	struct io ios[3] = { { 0, 0, 4096 }, { 0, 512, 8192 }, { 1, 1024, 4096 } };
	struct tally t = { 0 };
	size_t i, nerr = 0;
	int fd, errs, rc;

	CHECK(dev, "%s is not a block device", path);
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	rc = do_io(path, ios, 3, &errs);
	CHECK(!rc && errs == 3, "expected 3 failed I/Os, got %d", errs);
	drain(fd, &t, 1 << 16);
	CHECK(t.nobj >= 1 && t.obj[0].kind == VOLIOT_OBJ_DM,
	      "no dm object announced (kind %u)", t.nobj ? t.obj[0].kind : 0);
	for (i = 0; i < 3; i++) {
		const struct voliot_io_rec *s = find_io(&t, VOLIOT_REC_IO_START, dev,
							ios[i].sector);
		const struct voliot_io_rec *d = find_io(&t, VOLIOT_REC_IO_DONE, dev,
							ios[i].sector);

		CHECK(s && (s->flags & VOLIOT_F_BIO) && s->bytes == ios[i].bytes,
		      "bio start %zu missing or wrong", i);
		CHECK(d && (d->flags & VOLIOT_F_BIO) && d->error == -EIO,
		      "bio done %zu missing or not -EIO", i);
		CHECK(d->bytes == ios[i].bytes, "bio done %zu: %u bytes, expected %u", i,
		      d->bytes, ios[i].bytes);
		CHECK(s->op == (ios[i].write ? VOLIOT_OP_WRITE : VOLIOT_OP_READ),
		      "bio %zu op %u", i, s->op);
	}
	for (i = 0; i < t.nio; i++)
		nerr += t.io[i].error != 0;
	CHECK(count_type(&t, VOLIOT_REC_IO_START, dev) == 3 && nerr == 3,
	      "expected 3 starts and 3 errors, got %zu and %zu",
	      count_type(&t, VOLIOT_REC_IO_START, dev), nerr);
	close(fd);
	tally_free(&t);
	return result(1, "3 bios on %s: bio-level start and done with -EIO", path);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void *late_io(void *arg)
{
	struct io io = { 0, 8192, 4096 };
	int errs;

	sleep(2);
	do_io(arg, &io, 1, &errs);
	return NULL;
}

/* A blocking read on an empty channel, with SIGALRM (no SA_RESTART) after
 * 200 ms; an I/O after 2 s ends a wait that ignores the signal. */
static ssize_t intr_read(int fd, const char *path)
{
	struct sigaction sa, old;
	sigset_t set;
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	uint8_t buf[4096];
	pthread_t th;
	ssize_t n;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* the signal is for this thread */
	pthread_create(&th, NULL, late_io, (void *)path);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(fd, buf, sizeof(buf));
	e = errno;
	pthread_join(th, NULL);
	sigaction(SIGALRM, &old, NULL);
	errno = e;
	return n;
}

static int t_eagain(const char *path)
{
	uint32_t dev = dev_of(path);
	struct io io = { 0, 4096, 4096 };
	uint8_t buf[4096];
	struct pollfd pfd;
	ssize_t n;
	int fd, errs, rc;

	fd = chan_open(0, O_NONBLOCK);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	n = read(fd, buf, sizeof(buf));
	CHECK(n == sizeof(struct voliot_clock_rec) && buf[1] == VOLIOT_REC_CLOCK,
	      "first read: %zd bytes, expected the clock record", n);
	n = read(fd, buf, sizeof(buf));
	CHECK(n < 0 && errno == EAGAIN, "empty O_NONBLOCK read: %zd (%s), not EAGAIN",
	      n, n < 0 ? strerror(errno) : "data");
	pfd.fd = fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 0) == 0, "poll on an empty channel is ready");
	rc = do_io(path, &io, 1, &errs);
	CHECK(!rc && !errs, "I/O failed");
	CHECK(poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLIN),
	      "poll did not report data after I/O");
	n = read(fd, buf, sizeof(buf));
	CHECK(n > 0, "read after poll: %s", strerror(errno));
	n = intr_read(fd, path);
	CHECK(n < 0 && errno == EINTR, "blocking read under a signal: %zd (%s), not EINTR",
	      n, n < 0 ? strerror(errno) : "data");
	close(fd);
	return result(1, "EAGAIN when empty with O_NONBLOCK; poll() wakes on data; "
		      "a blocked read is interrupted by a signal (EINTR)");
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The clock record pairs CLOCK_MONOTONIC with CLOCK_REALTIME at INIT, and
 * event times are on the monotonic clock. */
static int t_clock(const char *path)
{
	uint32_t dev = dev_of(path);
	struct io io = { 0, 4096, 4096 };
	struct voliot_clock_rec c;
	struct tally t = { 0 };
	uint64_t m0, m1, r1, m2;
	int64_t skew;
	uint8_t buf[4096];
	ssize_t n;
	int fd, errs, rc;

	m0 = now_ns(CLOCK_MONOTONIC);
	fd = chan_open(0, O_NONBLOCK);
	m1 = now_ns(CLOCK_MONOTONIC);
	r1 = now_ns(CLOCK_REALTIME);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	n = read(fd, buf, sizeof(buf));
	CHECK(n == sizeof(c) && buf[1] == VOLIOT_REC_CLOCK,
	      "first read: %zd bytes, expected the clock record", n);
	memcpy(&c, buf, sizeof(c));
	CHECK(c.mono_ns >= m0 && c.mono_ns <= m1, "clock record mono %llu outside "
	      "[%llu, %llu]", (unsigned long long)c.mono_ns, (unsigned long long)m0,
	      (unsigned long long)m1);
	skew = (int64_t)(c.real_ns - c.mono_ns) - (int64_t)(r1 - m1);
	CHECK(skew > -50000000 && skew < 50000000,
	      "clock record real - mono differs from the system's by %lld ns", (long long)skew);
	rc = do_io(path, &io, 1, &errs);
	CHECK(!rc && !errs, "I/O failed");
	m2 = now_ns(CLOCK_MONOTONIC);
	drain(fd, &t, 4096);
	CHECK(t.nio == 2, "%zu events, expected start and done", t.nio);
	CHECK(t.io[0].time_ns >= m1 && t.io[1].time_ns <= m2 &&
	      t.io[0].time_ns <= t.io[1].time_ns, "event times %llu, %llu outside [%llu, %llu]",
	      (unsigned long long)t.io[0].time_ns, (unsigned long long)t.io[1].time_ns,
	      (unsigned long long)m1, (unsigned long long)m2);
	close(fd);
	tally_free(&t);
	return result(1, "clock record at INIT pairs monotonic and real time (skew %lld ns); "
		      "event times on the monotonic clock", (long long)skew);
}

/* Every read returns whole records, never more than asked. */
static int t_smallbuf(const char *path)
{
	uint32_t dev = dev_of(path);
	struct io *ios = make_ios(20, 1 << 16);
	struct tally t = { 0 };
	size_t sizes[] = { 64, 70, 100, 130, 200 }, i;
	uint8_t buf[256];
	int fd, errs, rc, einval;
	ssize_t n;

	fd = chan_open(0, O_NONBLOCK);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	rc = do_io(path, ios, 20, &errs);
	CHECK(!rc && !errs, "I/O failed");
	n = read(fd, buf, 1);
	einval = n < 0 && errno == EINVAL;
	CHECK(einval, "1-byte read: %zd (%s), expected EINVAL", n,
	      n < 0 ? strerror(errno) : "data");
	for (i = 0; ; i++) {
		size_t want = sizes[i % 5];

		n = read(fd, buf, want);
		if (n < 0 && errno == EAGAIN)
			break;
		CHECK(n > 0 && (size_t)n <= want, "read(%zu) returned %zd", want, n);
		tally_feed(&t, buf, n);
	}
	CHECK(t.nbad == 0, "%u reads split a record", t.nbad);
	CHECK(count_type(&t, VOLIOT_REC_IO_START, dev) == 20 &&
	      count_type(&t, VOLIOT_REC_IO_DONE, dev) == 20,
	      "got %zu starts, %zu dones", count_type(&t, VOLIOT_REC_IO_START, dev),
	      count_type(&t, VOLIOT_REC_IO_DONE, dev));
	close(fd);
	free(ios);
	return result(1, "%u reads of 64..200 bytes returned whole records; "
		      "1-byte read EINVAL", t.nreads);
}

struct reader {
	int fd;
	volatile int stop;
	struct tally t;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint8_t buf[4096];
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;

	while (!r->stop) {
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(r->fd, buf, sizeof(buf));
		if (n > 0)
			tally_feed(&r->t, buf, n);
	}
	return NULL;
}

/* A tiny ring under load: traced + lost = issued, exactly. */
static int t_lost(const char *path, size_t n)
{
	uint32_t dev = dev_of(path);
	struct io *ios = make_ios(n, 1 << 17);
	struct reader r = { 0 };
	struct voliot_info info;
	pthread_t th;
	size_t traced;
	int errs, rc;

	r.fd = chan_open(1, O_NONBLOCK);
	CHECK(r.fd >= 0, "open/init: %s", strerror(-r.fd));
	rc = chan_want(r.fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	chan_info(r.fd, &info);
	CHECK(info.bufsize == 256, "bufsize 1 clamped to %llu, expected 256",
	      (unsigned long long)info.bufsize);
	pthread_create(&th, NULL, reader_main, &r);
	rc = do_io(path, ios, n, &errs);
	usleep(200000);
	r.stop = 1;
	pthread_join(th, NULL);
	drain(r.fd, &r.t, 4096);
	CHECK(!rc && !errs, "I/O failed");
	traced = count_type(&r.t, VOLIOT_REC_IO_START, dev) +
		 count_type(&r.t, VOLIOT_REC_IO_DONE, dev);
	chan_info(r.fd, &info);
	CHECK(r.t.lost > 0, "nothing lost with a 256-byte ring (traced %zu)", traced);
	CHECK(traced + r.t.lost == 2 * n,
	      "traced %zu + lost %llu != issued %zu", traced,
	      (unsigned long long)r.t.lost, 2 * n);
	CHECK(info.lost == r.t.lost && info.events == traced,
	      "info says %llu events %llu lost, records say %zu and %llu",
	      (unsigned long long)info.events, (unsigned long long)info.lost,
	      traced, (unsigned long long)r.t.lost);
	CHECK(r.t.nbad == 0, "malformed records");
	close(r.fd);
	free(ios);
	return result(1, "256-byte ring: traced %zu + lost %llu (%u lost records) = "
		      "issued %zu", traced, (unsigned long long)r.t.lost,
		      r.t.nlost_recs, 2 * n);
}

/* Several channels at once, selecting the device in different ways. */
static int t_multi(const char *path, size_t n)
{
	uint32_t dev = dev_of(path);
	struct io *ios = make_ios(n, 1 << 18);
	uint32_t types[4] = { VOLIOT_WANT_DEV, VOLIOT_WANT_DISK, VOLIOT_WANT_MAJOR,
			      VOLIOT_WANT_ALL };
	uint32_t vals[4] = { dev, dev, VOLIOT_MAJOR(dev), 0 };
	struct tally t[4];
	int fd[4], i, errs, rc;

	memset(t, 0, sizeof(t));
	for (i = 0; i < 4; i++) {
		fd[i] = chan_open(0, 0);
		CHECK(fd[i] >= 0, "open/init %d: %s", i, strerror(-fd[i]));
		rc = chan_want(fd[i], VOLIOT_IO_TRACE, types[i], vals[i]);
		CHECK(!rc, "VOLIOT_IO_TRACE type %u: %s", types[i], strerror(-rc));
	}
	rc = do_io(path, ios, n, &errs);
	CHECK(!rc && !errs, "I/O failed");
	for (i = 0; i < 4; i++) {
		drain(fd[i], &t[i], 1 << 16);
		CHECK(match_phase(&t[i], VOLIOT_REC_IO_START, dev, ios, n, getpid()) == n &&
		      match_phase(&t[i], VOLIOT_REC_IO_DONE, dev, ios, n, getpid()) == n,
		      "channel %d (want type %u) missed events", i, types[i]);
		CHECK(count_type(&t[i], VOLIOT_REC_IO_START, dev) == n,
		      "channel %d: %zu starts", i, count_type(&t[i], VOLIOT_REC_IO_START, dev));
		CHECK(t[i].unannounced == 0, "channel %d: %u events before their object record",
		      i, t[i].unannounced);
	}
	/* Untrace on channel 0: it must see nothing more. */
	rc = chan_want(fd[0], VOLIOT_IO_UNTRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_UNTRACE: %s", strerror(-rc));
	tally_free(&t[0]);
	do_io(path, ios, 1, &errs);
	drain(fd[0], &t[0], 1 << 16);
	CHECK(t[0].nio == 0, "untraced channel still got %zu events", t[0].nio);
	for (i = 0; i < 4; i++) {
		close(fd[i]);
		tally_free(&t[i]);
	}
	free(ios);
	return result(1, "4 channels (dev, disk, major, all) each got all %zu I/Os; "
		      "untrace stops them", n);
}

struct waiter {
	int fd;
	struct tally t;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	uint8_t buf[4096];
	ssize_t n = read(w->fd, buf, sizeof(buf));	/* blocks */

	if (n > 0)
		tally_feed(&w->t, buf, n);
	return NULL;
}

/* Saved errors replay on a new error channel; DISCARD drops them; a
 * blocked reader gets a new error. */
static int t_errchan(const char *bad_path, uint64_t bad, unsigned min_saved)
{
	uint32_t dev = dev_of(bad_path);
	struct io io = { 0, bad, 4096 };
	struct tally t = { 0 };
	struct waiter w = { 0 };
	const struct voliot_io_rec *r;
	struct voliot_info info;
	pthread_t th;
	size_t nerr;
	int fd, fd2, errs, rc;

	fd = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(ioctl(fd, VOLIOT_ERROR_TRACE_INIT) == 0, "ERROR_TRACE_INIT: %s",
	      strerror(errno));
	chan_info(fd, &info);
	CHECK(info.mode == VOLIOT_MODE_ERROR, "mode %u", info.mode);
	drain(fd, &t, 4096);
	nerr = count_type(&t, VOLIOT_REC_ERROR, 0);
	CHECK(nerr >= min_saved, "%zu saved errors replayed, expected >= %u", nerr,
	      min_saved);
	r = find_io(&t, VOLIOT_REC_ERROR, dev, bad);
	CHECK(r && r->error == -EIO, "saved error at %s sector %llu missing",
	      bad_path, (unsigned long long)bad);
	CHECK(t.nobj >= 1 && t.unannounced == 0, "no object record before the errors");
	CHECK(ioctl(fd, VOLIOT_DISCARD) == 0, "DISCARD: %s", strerror(errno));
	close(fd);

	/* A later error channel sees no saved error, and waits for new ones. */
	fd2 = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(fd2 >= 0 && ioctl(fd2, VOLIOT_ERROR_TRACE_INIT) == 0, "reopen");
	tally_free(&t);
	drain(fd2, &t, 4096);
	CHECK(t.nio == 0 && t.nclock == 1, "after DISCARD a new channel got %zu errors",
	      t.nio);
	w.fd = fd2;
	pthread_create(&th, NULL, waiter_main, &w);
	usleep(300000);
	rc = do_io(bad_path, &io, 1, &errs);
	CHECK(!rc && errs == 1, "bad read did not fail");
	pthread_join(th, NULL);
	r = find_io(&w.t, VOLIOT_REC_ERROR, dev, bad);
	CHECK(r && r->error == -EIO, "blocked reader did not get the new error");
	CHECK(w.t.nobj == 1 && w.t.obj[0].dev == dev, "new error without its object");
	close(fd2);
	tally_free(&t);
	tally_free(&w.t);
	return result(1, "%zu saved errors replayed (sector %llu on %s with EIO), "
		      "DISCARD drops them, a blocked reader gets a new one", nerr,
		      (unsigned long long)bad, bad_path);
}

/* A stacked device: bios on the dm device, requests on the disk under it,
 * each I/O once per level and never twice on one device. */
static int t_stacked(const char *top, const char *low, size_t n)
{
	uint32_t tdev = dev_of(top), ldev = dev_of(low);
	struct io *ios = make_ios(n, 1 << 12);
	struct tally t = { 0 };
	size_t i, tb = 0, lrq = 0, lbio = 0;
	int fd, errs, rc;

	CHECK(tdev && ldev, "%s or %s is not a block device", top, low);
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, tdev);
	rc = rc ? rc : chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, ldev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	rc = do_io(top, ios, n, &errs);
	CHECK(!rc && !errs, "I/O failed");
	drain(fd, &t, 1 << 16);
	for (i = 0; i < t.nio; i++) {
		const struct voliot_io_rec *r = &t.io[i];

		if (r->dev == tdev && (r->flags & VOLIOT_F_BIO))
			tb++;
		else if (r->dev == ldev && !(r->flags & VOLIOT_F_BIO))
			lrq++;
		else if (r->dev == ldev)
			lbio++;
	}
	CHECK(lbio == 0, "%zu bio-level events on the request-based %s", lbio, low);
	CHECK(tb == 2 * n, "%zu bio events on %s, expected %zu", tb, top, 2 * n);
	CHECK(lrq == 2 * n, "%zu request events on %s, expected %zu", lrq, low, 2 * n);
	for (i = 0; i < n; i++) {
		const struct voliot_io_rec *a = find_io(&t, VOLIOT_REC_IO_DONE, tdev,
							ios[i].sector);
		const struct voliot_io_rec *b = find_io(&t, VOLIOT_REC_IO_DONE, ldev,
							ios[i].sector);

		CHECK(a && b && a->bytes == ios[i].bytes && b->bytes == ios[i].bytes,
		      "I/O %zu not seen at both levels", i);
		CHECK(a->time_ns >= b->time_ns, "dm completion before its request's");
		/* the bio's latency comes from the block layer's note at submission */
		CHECK(a->latency_ns > 0 && a->latency_ns >= b->latency_ns,
		      "dm bio latency %llu ns, its request's %llu ns",
		      (unsigned long long)a->latency_ns, (unsigned long long)b->latency_ns);
	}
	CHECK(t.nobj == 2, "%u objects announced, expected 2", t.nobj);
	CHECK(t.unannounced == 0, "%u events came before their object record",
	      t.unannounced);
	close(fd);
	tally_free(&t);
	free(ios);
	return result(1, "%zu I/Os on %s: once as bios there, once as requests on %s; "
		      "bio latency covers the request's", n, top, low);
}

static const struct voliot_io_rec *find_op(const struct tally *t, unsigned type,
					   unsigned op, unsigned flags)
{
	size_t i;

	for (i = 0; i < t->nio; i++)
		if (t->io[i].type == type && t->io[i].op == op &&
		    (t->io[i].flags & flags) == flags)
			return &t->io[i];
	return NULL;
}

/* Operations and flags: sync and FUA writes, a cache flush, a discard. */
static int t_ops(const char *path)
{
	uint32_t dev = dev_of(path);
	uint64_t range[2] = { 8192 * 512, 65536 };
	const struct voliot_io_rec *r;
	struct tally t = { 0 };
	int fd, wfd, sfd, rc;

	CHECK(dev, "%s is not a block device", path);
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	if (!io_buf && posix_memalign(&io_buf, 4096, 1 << 20))
		return result(0, "out of memory");
	wfd = open(path, O_RDWR | O_DIRECT);
	sfd = open(path, O_RDWR | O_DIRECT | O_DSYNC);
	CHECK(wfd >= 0 && sfd >= 0, "open %s: %s", path, strerror(errno));
	CHECK(pwrite(wfd, io_buf, 4096, 4096 * 512) == 4096, "write failed");
	CHECK(pwrite(sfd, io_buf, 4096, 4104 * 512) == 4096, "O_DSYNC write failed");
	CHECK(fsync(wfd) == 0, "fsync: %s", strerror(errno));
	CHECK(ioctl(wfd, BLKDISCARD, range) == 0, "BLKDISCARD: %s", strerror(errno));
	close(wfd);
	close(sfd);
	drain(fd, &t, 1 << 16);
	r = find_op(&t, VOLIOT_REC_IO_START, VOLIOT_OP_WRITE, VOLIOT_F_SYNC);
	CHECK(r && r->sector == 4096, "no sync write start at sector 4096");
	r = find_op(&t, VOLIOT_REC_IO_DONE, VOLIOT_OP_WRITE, VOLIOT_F_FUA);
	CHECK(r && r->sector == 4104, "no FUA write done at sector 4104");
	CHECK(find_op(&t, VOLIOT_REC_IO_START, VOLIOT_OP_FLUSH, 0) &&
	      find_op(&t, VOLIOT_REC_IO_DONE, VOLIOT_OP_FLUSH, 0), "no flush request");
	r = find_op(&t, VOLIOT_REC_IO_DONE, VOLIOT_OP_DISCARD, 0);
	CHECK(r && r->sector == 8192 && r->bytes == 65536, "no 64 KiB discard at 8192");
	close(fd);
	tally_free(&t);
	return result(1, "sync write, FUA write, flush and discard traced with their op "
		      "and flags");
}

/* The saved-error ring keeps the newest errors: a channel that comes late
 * is told how many it missed. Run with errbuf_size=256 (4 errors). */
static int t_errlost(const char *path, uint64_t bad, unsigned n)
{
	struct io io = { 0, bad, 4096 };
	struct tally t = { 0 };
	unsigned i;
	int fd, errs;

	for (i = 0; i < n; i++)
		CHECK(do_io(path, &io, 1, &errs) == 0 && errs == 1, "bad read did not fail");
	fd = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(fd >= 0 && ioctl(fd, VOLIOT_ERROR_TRACE_INIT) == 0, "error channel");
	drain(fd, &t, 4096);
	CHECK(count_type(&t, VOLIOT_REC_ERROR, 0) == 4, "%zu errors kept, expected 4",
	      count_type(&t, VOLIOT_REC_ERROR, 0));
	CHECK(t.lost == 0, "a new channel reports %llu lost", (unsigned long long)t.lost);
	/* Overrun this channel: its next read reports what it missed. */
	for (i = 0; i < n; i++)
		do_io(path, &io, 1, &errs);
	tally_free(&t);
	drain(fd, &t, 4096);
	CHECK(t.lost == n - 4 && t.nlost_recs == 1, "lost %llu in %u records, expected %u",
	      (unsigned long long)t.lost, t.nlost_recs, n - 4);
	CHECK(count_type(&t, VOLIOT_REC_ERROR, 0) == 4, "%zu errors after the loss",
	      count_type(&t, VOLIOT_REC_ERROR, 0));
	close(fd);
	tally_free(&t);
	return result(1, "256-byte error ring keeps the newest 4 errors; a reader "
		      "overrun by %u errors gets a lost record of %u", n, n - 4);
}

static int expect_errno(int rc, int want)
{
	return rc < 0 && errno == want;
}

/* ioctl semantics: clamping, re-initialisation, bad arguments, limits. */
static int t_ioctls(const char *path)
{
	uint32_t dev = dev_of(path);
	struct io io = { 0, 0, 4096 };
	union voliot_want_set sets[2];
	struct voliot_want_list wl;
	struct voliot_info info;
	struct tally t = { 0 };
	int fd, fds[4], i, errs;

	fd = open(VOLIOT_DEVICE, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(chan_info(fd, &info) == 0 && info.mode == VOLIOT_MODE_NONE &&
	      info.abi_version == VOLIOT_ABI_VERSION, "info of a new channel");
	CHECK(expect_errno(read(fd, &info, sizeof(info)), EINVAL),
	      "read before INIT is not EINVAL");
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_ALL, 0) == -EINVAL,
	      "TRACE before INIT is not EINVAL");
	CHECK(expect_errno(ioctl(fd, VOLIOT_DISCARD), EINVAL), "DISCARD before INIT");
	CHECK(expect_errno(ioctl(fd, _IO(VOLIOT_IOC_MAGIC, 99)), ENOTTY), "unknown ioctl");
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, (unsigned long)-1) == 0, "INIT -1");
	chan_info(fd, &info);
	CHECK(info.bufsize == 64u << 20, "bufsize -1 gave %llu, not max_bufsize",
	      (unsigned long long)info.bufsize);
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, 128UL << 20) == 0, "INIT 128 MiB");
	chan_info(fd, &info);
	CHECK(info.bufsize == 64u << 20, "bufsize 128 MiB gave %llu, not max_bufsize",
	      (unsigned long long)info.bufsize);
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, 0UL) == 0, "INIT 0");
	chan_info(fd, &info);
	CHECK(info.bufsize == 1u << 20, "bufsize 0 gave %llu, not default_bufsize",
	      (unsigned long long)info.bufsize);
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, 100000UL) == 0, "INIT 100000");
	chan_info(fd, &info);
	CHECK(info.bufsize == 100000, "bufsize 100000 gave %llu",
	      (unsigned long long)info.bufsize);
	/* Bad want lists. */
	memset(sets, 0, sizeof(sets));
	memset(&wl, 0, sizeof(wl));
	wl.sets = (uintptr_t)sets;
	CHECK(expect_errno(ioctl(fd, VOLIOT_IO_TRACE, &wl), EINVAL), "count 0 accepted");
	wl.count = VOLIOT_WANT_MAX + 1;
	CHECK(expect_errno(ioctl(fd, VOLIOT_IO_TRACE, &wl), EINVAL), "count 257 accepted");
	wl.count = 1;
	sets[0].type = 77;
	CHECK(expect_errno(ioctl(fd, VOLIOT_IO_TRACE, &wl), EINVAL), "type 77 accepted");
	wl.sets = 8;
	CHECK(expect_errno(ioctl(fd, VOLIOT_IO_TRACE, &wl), EFAULT), "bad pointer accepted");
	CHECK(expect_errno(ioctl(fd, VOLIOT_IO_TRACE, (void *)8), EFAULT),
	      "bad list pointer accepted");
	/* Re-initialising closes the channel down: events, selection, counters. */
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev) == 0, "TRACE");
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev) == 0, "TRACE again");
	chan_info(fd, &info);
	CHECK(info.nsets == 1, "the same set twice counts %u", info.nsets);
	CHECK(do_io(path, &io, 1, &errs) == 0 && !errs, "I/O failed");
	chan_info(fd, &info);
	CHECK(info.events == 2, "%llu events queued, expected 2",
	      (unsigned long long)info.events);
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, 0UL) == 0, "re-INIT");
	chan_info(fd, &info);
	CHECK(info.events == 0 && info.nsets == 0, "re-INIT kept events or sets");
	CHECK(do_io(path, &io, 1, &errs) == 0 && !errs, "I/O failed");
	drain(fd, &t, 4096);
	CHECK(t.nio == 0 && t.nclock == 1, "after re-INIT: %zu events, %u clocks", t.nio,
	      t.nclock);
	/* An error channel takes no object selection. */
	CHECK(ioctl(fd, VOLIOT_ERROR_TRACE_INIT) == 0, "ERROR_TRACE_INIT");
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_ALL, 0) == -EINVAL,
	      "TRACE on an error channel");
	close(fd);
	/* max_channels: open past it fails with EMFILE. */
	system("echo 3 > /sys/module/vxtrace/parameters/max_channels");
	for (i = 0; i < 4; i++)
		fds[i] = open(VOLIOT_DEVICE, O_RDONLY);
	errs = fds[3] < 0 && errno == EMFILE;
	for (i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	system("echo 32 > /sys/module/vxtrace/parameters/max_channels");
	CHECK(errs && fds[2] >= 0, "4th open with max_channels=3 did not fail with EMFILE");
	tally_free(&t);
	return result(1, "bufsize 0/-1/over max/clamp, re-INIT starts afresh, EINVAL/EFAULT/ENOTTY "
		      "on bad calls, EMFILE past max_channels");
}

/* Partitions: a disk set takes the disk and its partitions, a partition
 * set only the requests that belong to the partition. Requests are
 * reported on the whole disk at absolute sectors. */
static int t_partition(const char *disk, const char *part, uint64_t start)
{
	uint32_t ddev = dev_of(disk), pdev = dev_of(part);
	struct io in[4], out[2];
	uint32_t types[2] = { VOLIOT_WANT_DISK, VOLIOT_WANT_DEV };
	uint32_t vals[2] = { ddev, pdev };
	struct tally t[2];
	size_t i, n[2];
	int fd[2], errs, rc;

	CHECK(ddev && pdev, "%s or %s is not a block device", disk, part);
	memset(t, 0, sizeof(t));
	for (i = 0; i < 4; i++)
		in[i] = (struct io){ (int)(i & 1), 64 * i, 4096 };
	out[0] = (struct io){ 0, 100000, 4096 };
	out[1] = (struct io){ 1, 100064, 8192 };
	for (i = 0; i < 2; i++) {
		fd[i] = chan_open(0, 0);
		CHECK(fd[i] >= 0, "open/init: %s", strerror(-fd[i]));
		rc = chan_want(fd[i], VOLIOT_IO_TRACE, types[i], vals[i]);
		CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	}
	rc = do_io(part, in, 4, &errs);
	CHECK(!rc && !errs, "I/O on %s failed", part);
	rc = do_io(disk, out, 2, &errs);
	CHECK(!rc && !errs, "I/O on %s failed", disk);
	for (i = 0; i < 2; i++) {
		drain(fd[i], &t[i], 1 << 16);
		n[i] = count_type(&t[i], VOLIOT_REC_IO_DONE, ddev);
		close(fd[i]);
	}
	CHECK(n[0] == 6, "disk set: %zu completions, expected 6", n[0]);
	CHECK(n[1] == 4, "partition set: %zu completions, expected 4", n[1]);
	for (i = 0; i < 4; i++)
		CHECK(find_io(&t[1], VOLIOT_REC_IO_DONE, ddev, start + in[i].sector),
		      "partition I/O %zu not at absolute sector %llu", i,
		      (unsigned long long)(start + in[i].sector));
	CHECK(!find_io(&t[1], VOLIOT_REC_IO_DONE, ddev, 100000),
	      "partition set got I/O outside the partition");
	tally_free(&t[0]);
	tally_free(&t[1]);
	return result(1, "disk set: 4 partition + 2 disk I/Os; partition set: only "
		      "its 4, at absolute sectors");
}

/* mbr DEV START COUNT: one Linux partition, then re-read the table. */
static int make_mbr(const char *path, uint32_t start, uint32_t count)
{
	uint8_t mbr[512];
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(mbr, 0, sizeof(mbr));
	mbr[446 + 4] = 0x83;
	memcpy(mbr + 446 + 8, &start, 4);
	memcpy(mbr + 446 + 12, &count, 4);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	if (pwrite(fd, mbr, sizeof(mbr), 0) != sizeof(mbr) || fsync(fd) ||
	    ioctl(fd, BLKRRPART) < 0) {
		perror("mbr");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/* A throttled null_blk (mbps) hands requests back: each one is issued,
 * requeued and issued again. Starts = completions + requeues, exactly. */
/* ---- the kernel's own view of a tracepoint, through tracefs ---- */

#define TRACEFS	"/sys/kernel/tracing"

static int tracefs_write(const char *file, const char *s)
{
	char path[256];
	int fd, rc;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	rc = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Record the block events @evs (NULL-terminated) afresh.
 * @return 0, or a negative errno when tracefs cannot be used. */
static int ktrace_start(const char *const *evs)
{
	char file[128];

	mount("nodev", TRACEFS, "tracefs", 0, NULL);	/* may be mounted */
	if (tracefs_write("tracing_on", "0") || tracefs_write("trace", ""))
		return -ENOENT;
	for (; *evs; evs++) {
		snprintf(file, sizeof(file), "events/block/%s/enable", *evs);
		if (tracefs_write(file, "1"))
			return -ENOENT;
	}
	return tracefs_write("tracing_on", "1");
}

static void ktrace_stop(const char *const *evs)
{
	char file[128];

	tracefs_write("tracing_on", "0");
	for (; *evs; evs++) {
		snprintf(file, sizeof(file), "events/block/%s/enable", *evs);
		tracefs_write(file, "0");
	}
}

/* How many events @ev the kernel logged for the device @dev, or -1 when
 * the trace cannot be read. */
static long ktrace_count(const char *ev, uint32_t dev)
{
	char key[96], line[512];
	long n = 0;
	FILE *f;

	snprintf(key, sizeof(key), "%s: %u,%u ", ev, VOLIOT_MAJOR(dev), VOLIOT_MINOR(dev));
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, key))
			n++;
	fclose(f);
	return n;
}

static void ktrace_reset(void)
{
	tracefs_write("trace", "");
	tracefs_write("tracing_on", "1");
}

/* Reads on a throttled null_blk behind mq-deadline: whether the block layer
 * requeues them, and whether the driver marks a request started before it
 * turns it away, depend on the kernel; the channel must match the kernel's
 * own block_rq_issue and block_rq_requeue counts (tracefs). */
static int t_requeue(const char *path, size_t n)
{
	uint32_t dev = dev_of(path);
	struct io *ios = calloc(n, sizeof(*ios));
	struct tally t = { 0 };
	static const char *const evs[] = { "block_rq_issue", "block_rq_requeue", NULL };
	size_t i, st, rq, dn;
	int fd, errs, rc, kt;
	long kst = -1, krq = -1;

	for (i = 0; i < n; i++)
		ios[i] = (struct io){ 0, 8 * i, 4096 };
	fd = chan_open(0, 0);
	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	kt = ktrace_start(evs);
	rc = do_io(path, ios, n, &errs);
	if (!kt) {
		ktrace_stop(evs);
		kst = ktrace_count("block_rq_issue", dev);
		krq = ktrace_count("block_rq_requeue", dev);
		ktrace_reset();
	}
	CHECK(!rc && !errs, "I/O failed");
	drain(fd, &t, 1 << 16);
	st = count_type(&t, VOLIOT_REC_IO_START, dev);
	rq = count_type(&t, VOLIOT_REC_REQUEUE, dev);
	dn = count_type(&t, VOLIOT_REC_IO_DONE, dev);
	if (krq == 0 && rq == 0) {
		close(fd);
		tally_free(&t);
		free(ios);
		return result(SKIPPED, "this kernel requeued none of %zu reads on the "
			      "throttled %s (its own block_rq_requeue saw 0)", n, path);
	}
	CHECK(rq > 0, "no requeue seen (%zu starts, %zu dones; the kernel's "
	      "block_rq_requeue saw %ld)", st, dn, krq);
	CHECK(dn == n, "%zu completions for %zu reads", dn, n);
	if (kst >= 0 && krq >= 0)
		CHECK((size_t)kst == st && (size_t)krq == rq, "%zu starts and %zu "
		      "requeues traced, the kernel's tracepoints saw %ld and %ld",
		      st, rq, kst, krq);
	else
		CHECK(st == n + rq, "%zu starts, %zu requeues, %zu dones for %zu reads",
		      st, rq, dn, n);
	for (i = 0; i < t.nio; i++)
		CHECK(t.io[i].type != VOLIOT_REC_REQUEUE ||
		      (t.io[i].error == 0 && t.io[i].bytes == 4096 && t.io[i].sector % 8 == 0),
		      "bad requeue record");
	close(fd);
	tally_free(&t);
	free(ios);
	return result(1, "%zu reads on a throttled device: %zu requeues, %zu starts "
		      "(%s)", n, rq, st, kst < 0 ? "tracefs unavailable: starts = "
		      "completions + requeues" : "as the kernel's own tracepoints");
}

static int t_eperm(void)
{
	struct stat st;
	pid_t pid;
	int status;

	CHECK(stat(VOLIOT_DEVICE, &st) == 0, "stat: %s", strerror(errno));
	CHECK((st.st_mode & 0777) == 0600, "device mode %o, expected 600",
	      st.st_mode & 0777);
	/* Let permission bits pass so that only the capability check stands. */
	chmod(VOLIOT_DEVICE, 0666);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(VOLIOT_DEVICE, O_RDONLY);
		_exit(fd < 0 && errno == EPERM ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	chmod(VOLIOT_DEVICE, 0600);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "non-root open did not fail with EPERM (status %d)", status);
	return result(1, "device is 0600; uid 65534 gets EPERM even with 0666");
}

static int t_hold(void)
{
	int fd = chan_open(0, 0), rc;

	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = system("rmmod vxtrace 2>/dev/null");
	CHECK(rc != 0, "rmmod succeeded while a channel was open");
	CHECK(access(VOLIOT_DEVICE, F_OK) == 0, "device gone");
	close(fd);
	return result(1, "rmmod refused while a channel is open");
}

/* ---- the module under stress ---- */

struct churn {
	pthread_t th;
	uint32_t dev;
	unsigned seed;
	volatile int *stop;
	unsigned long cycles, errors;
	int last_err;
};

/* Open, select, maybe speculate, read a little and close a channel, over
 * and over. */
static void *churn_main(void *arg)
{
	static const unsigned long sizes[] = { 256, 4096, 65536, 1 << 20 };
	struct churn *c = arg;
	struct tally t = { 0 };
	int fd, rc;

	while (!*c->stop) {
		fd = chan_open(sizes[rand_r(&c->seed) % 4], O_NONBLOCK);
		if (fd < 0) {
			c->errors++;
			c->last_err = -fd;
			continue;
		}
		rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, c->dev);
		if (!rc && rand_r(&c->seed) % 2) {
			/* Half of them speculate, with a program of their own. */
			struct voliot_spec p;

			memset(&p, 0, sizeof(p));
			p.version = VOLIOT_SPEC_VERSION;
			p.size = sizeof(p);
			p.key = 1 + rand_r(&c->seed) % 4;
			p.triggers = 1 + rand_r(&c->seed) % VOLIOT_SPEC_ON_ALL;
			if (p.triggers & VOLIOT_SPEC_ON_LATENCY)
				p.latency_ns = 1 + rand_r(&c->seed) % 200000;
			if (p.key != VOLIOT_SPEC_KEY_REQUEST) {
				p.before_events = 1 + rand_r(&c->seed) % 64;
				p.before_ns = rand_r(&c->seed) % 10000000;
				p.after_events = rand_r(&c->seed) % 16;
			}
			p.nspec = 1 + rand_r(&c->seed) % 256;
			p.specsize = 64 * (1 + rand_r(&c->seed) % 64);
			p.overflow = rand_r(&c->seed) % 2;
			if (rand_r(&c->seed) % 2)
				p.flags |= VOLIOT_SPEC_F_HORIZON;
			if (rand_r(&c->seed) % 2)
				p.flags |= VOLIOT_SPEC_F_PACKED;
			if (rand_r(&c->seed) % 2)
				p.flags |= VOLIOT_SPEC_F_COMPACT;
			if (rand_r(&c->seed) % 2)
				p.flags |= VOLIOT_SPEC_F_PAIR;
			if ((p.key == VOLIOT_SPEC_KEY_PID || p.key == VOLIOT_SPEC_KEY_OBJECT_PID) &&
			    rand_r(&c->seed) % 2)
				p.flags |= VOLIOT_SPEC_F_ISSUE_PID;
			if (ioctl(fd, VOLIOT_IO_SPECULATE, &p) < 0)
				rc = -errno;
		}
		if (rc) {
			c->errors++;
			c->last_err = -rc;
		} else if (rand_r(&c->seed) % 2) {
			drain(fd, &t, 4096);
			tally_free(&t);
		}
		close(fd);
		c->cycles++;
	}
	return NULL;
}

static unsigned long param_ul(const char *name)
{
	char path[128];
	unsigned long v = ~0UL;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/vxtrace/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return ~0UL;
	if (fscanf(f, "%lu", &v) != 1)
		v = ~0UL;
	fclose(f);
	return v;
}

#define NCHURN 32

/* stress BUSY EXACT N: NCHURN channels open and close on BUSY (where fio
 * runs) while one 4 KiB channel traces N known I/Os on EXACT, and rmmod is
 * tried in between. traced + lost = issued on the small channel; every
 * rmmod is refused. */
static int t_stress(const char *busy, const char *exact, size_t n)
{
	uint32_t bdev = dev_of(busy), edev = dev_of(exact);
	struct io *ios = make_ios(n, 4096);
	static struct churn ch[NCHURN];
	volatile int stop = 0;
	unsigned long cycles = 0, errors = 0, peak = 0, v;
	struct reader r = { 0 };
	struct voliot_info info;
	pthread_t th;
	size_t i, done, traced;
	int errs = 0, rc, rmmods = 0, refused = 0, last_err = 0;

	CHECK(bdev && edev, "%s or %s is not a block device", busy, exact);
	system("echo 64 > /sys/module/vxtrace/parameters/max_channels");
	r.fd = chan_open(4096, O_NONBLOCK);
	CHECK(r.fd >= 0, "open/init: %s", strerror(-r.fd));
	rc = chan_want(r.fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, edev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	chan_info(r.fd, &info);
	CHECK(info.bufsize == 4096, "bufsize %llu, expected 4096",
	      (unsigned long long)info.bufsize);
	pthread_create(&th, NULL, reader_main, &r);
	for (i = 0; i < NCHURN; i++) {
		ch[i].dev = bdev;
		ch[i].seed = i + 1;
		ch[i].stop = &stop;
		pthread_create(&ch[i].th, NULL, churn_main, &ch[i]);
	}
	/* The known I/O in slices, with an rmmod attempt after each. */
	for (done = 0; done < n; done += n / 8) {
		size_t k = n - done < n / 8 ? n - done : n / 8;
		int e;

		rc = do_io(exact, ios + done, k, &e);
		errs += rc ? (int)k : e;
		v = param_ul("open_channels");
		if (v != ~0UL && v > peak)
			peak = v;
		rmmods++;
		refused += system("rmmod vxtrace 2>/dev/null") != 0;
	}
	stop = 1;
	for (i = 0; i < NCHURN; i++) {
		pthread_join(ch[i].th, NULL);
		cycles += ch[i].cycles;
		errors += ch[i].errors;
		if (ch[i].last_err)
			last_err = ch[i].last_err;
	}
	usleep(200000);
	r.stop = 1;
	pthread_join(th, NULL);
	drain(r.fd, &r.t, 4096);
	chan_info(r.fd, &info);
	close(r.fd);
	system("echo 32 > /sys/module/vxtrace/parameters/max_channels");
	traced = count_type(&r.t, VOLIOT_REC_IO_START, edev) +
		 count_type(&r.t, VOLIOT_REC_IO_DONE, edev);
	CHECK(!errs, "%d of %zu I/Os on %s failed", errs, n, exact);
	CHECK(refused == rmmods, "rmmod succeeded %d of %d times with channels open",
	      rmmods - refused, rmmods);
	CHECK(access(VOLIOT_DEVICE, F_OK) == 0, "device gone");
	CHECK(!errors, "%lu channel open/select errors (last: %s)", errors,
	      strerror(last_err));
	CHECK(cycles >= NCHURN, "only %lu open/close cycles", cycles);
	CHECK(r.t.nbad == 0, "%u malformed records on the 4 KiB channel", r.t.nbad);
	CHECK(traced + r.t.lost == 2 * n, "4 KiB channel: traced %zu + lost %llu != "
	      "issued %zu", traced, (unsigned long long)r.t.lost, 2 * n);
	CHECK(info.lost == r.t.lost && info.events == traced,
	      "info says %llu events %llu lost, records say %zu and %llu",
	      (unsigned long long)info.events, (unsigned long long)info.lost,
	      traced, (unsigned long long)r.t.lost);
	free(ios);
	rc = result(1, "%d channels: %lu open/trace/close cycles on %s (peak %lu open); "
		    "4 KiB channel on %s: traced %zu + lost %llu = issued %zu; "
		    "%d rmmods refused", NCHURN, cycles, busy, peak, exact, traced,
		    (unsigned long long)r.t.lost, 2 * n, refused);
	tally_free(&r.t);
	return rc;
}

/* ---- an error channel's DISCARD and the other error channels ---- */

/* DISCARD on one error channel leaves the errors another open channel has
 * not read yet; channels opened later start after them. */
static int t_errshare(const char *path, uint64_t bad)
{
	uint32_t dev = dev_of(path);
	struct io io = { 0, bad, 4096 };
	struct tally ta = { 0 }, tb = { 0 }, tc = { 0 };
	int a, b, c, errs;

	a = open(VOLIOT_DEVICE, O_RDONLY);
	b = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(a >= 0 && b >= 0 && ioctl(a, VOLIOT_ERROR_TRACE_INIT) == 0 &&
	      ioctl(b, VOLIOT_ERROR_TRACE_INIT) == 0, "two error channels");
	drain(a, &ta, 4096);
	drain(b, &tb, 4096);
	tally_free(&ta);
	tally_free(&tb);
	CHECK(do_io(path, &io, 1, &errs) == 0 && errs == 1, "bad read did not fail");
	drain(b, &tb, 4096);
	CHECK(count_type(&tb, VOLIOT_REC_ERROR, dev) == 1, "channel B got %zu errors",
	      count_type(&tb, VOLIOT_REC_ERROR, dev));
	CHECK(ioctl(b, VOLIOT_DISCARD) == 0, "DISCARD: %s", strerror(errno));
	drain(a, &ta, 4096);
	CHECK(count_type(&ta, VOLIOT_REC_ERROR, dev) == 1 && ta.lost == 0,
	      "after B's DISCARD channel A got %zu errors and %llu lost, expected 1 and 0",
	      count_type(&ta, VOLIOT_REC_ERROR, dev), (unsigned long long)ta.lost);
	c = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(c >= 0 && ioctl(c, VOLIOT_ERROR_TRACE_INIT) == 0, "third error channel");
	drain(c, &tc, 4096);
	CHECK(tc.nio == 0 && tc.lost == 0, "a channel opened after DISCARD got %zu errors",
	      tc.nio);
	close(a);
	close(b);
	close(c);
	tally_free(&ta);
	tally_free(&tb);
	tally_free(&tc);
	return result(1, "B's DISCARD left A its unread error; a later channel gets none");
}

/* ---- speculation in the kernel (VOLIOT_IO_SPECULATE) ---- */

#define MS	1000000ULL
#define SEC	1000000000ULL

static void spec_prog(struct voliot_spec *p, uint32_t key, uint32_t triggers)
{
	memset(p, 0, sizeof(*p));
	p->version = VOLIOT_SPEC_VERSION;
	p->size = sizeof(*p);
	p->key = key;
	p->triggers = triggers;
	p->nspec = 16;
	p->specsize = 256 * sizeof(struct voliot_io_rec);
}

static int spec_set(int fd, const struct voliot_spec *p)
{
	return ioctl(fd, VOLIOT_IO_SPECULATE, p) < 0 ? -errno : 0;
}

static int spec_get(int fd, struct voliot_spec_stats *st)
{
	return ioctl(fd, VOLIOT_GET_SPEC_STATS, st) < 0 ? -errno : 0;
}

/* A 4 MiB I/O channel on the disk @dev, speculating with @p unless NULL. */
static int spec_chan(uint32_t dev, const struct voliot_spec *p)
{
	int fd = chan_open(4 << 20, O_NONBLOCK), rc;

	if (fd < 0)
		return fd;
	rc = chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, dev);
	if (!rc && p)
		rc = spec_set(fd, p);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* The accounting every snapshot keeps. */
static int stats_add_up(const struct voliot_spec_stats *s)
{
	return s->seen == s->kept + s->discards + s->drops + s->failed + s->pending &&
	       s->bytes_seen == s->seen * sizeof(struct voliot_io_rec) &&
	       s->bytes_kept == s->kept * sizeof(struct voliot_io_rec);
}

/* The counters of the last stats record equal VOLIOT_GET_SPEC_STATS's. */
static int stats_same(const struct voliot_spec_stats *a, const struct voliot_spec_stats *b)
{
	size_t skip = offsetof(struct voliot_spec_stats, seen);

	return !memcmp((const char *)a + skip, (const char *)b + skip, sizeof(*a) - skip);
}

/* Reference: the records of the full trace @full whose indexes are marked
 * in @keep, in order; compared with what the speculating channel got.
 * @return NULL when equal, else a static description of the first difference.
 */
static const char *same_as(const struct tally *full, const unsigned char *keep,
			   const struct tally *got)
{
	static char why[160];
	size_t i, k = 0;

	for (i = 0; i < full->nio; i++) {
		if (!keep[i])
			continue;
		if (k >= got->nio) {
			snprintf(why, sizeof(why), "record %zu of the reference (full #%zu) "
				 "missing, got %zu", k, i, got->nio);
			return why;
		}
		if (memcmp(&full->io[i], &got->io[k], sizeof(got->io[k]))) {
			snprintf(why, sizeof(why), "record %zu differs from full #%zu "
				 "(type %u sector %llu vs type %u sector %llu)", k, i,
				 got->io[k].type, (unsigned long long)got->io[k].sector,
				 full->io[i].type, (unsigned long long)full->io[i].sector);
			return why;
		}
		k++;
	}
	if (k != got->nio) {
		snprintf(why, sizeof(why), "%zu records past the reference's %zu", got->nio - k, k);
		return why;
	}
	return NULL;
}

static size_t count_keep(const unsigned char *keep, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += keep[i];
	return c;
}

static void mark(unsigned char *keep, size_t n, long from, long to)
{
	long i;

	for (i = from < 0 ? 0 : from; i <= to && i < (long)n; i++)
		keep[i] = 1;
}

/* Indexes of the failed completions in @t (at most @max). */
static size_t find_errors(const struct tally *t, size_t *at, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < t->nio && n < max; i++)
		if (t->io[i].type == VOLIOT_REC_IO_DONE && t->io[i].error)
			at[n++] = i;
	return n;
}

/* good reads on @path away from @bad, then one bad read, @n times */
static struct io *spec_ios(const size_t *good, size_t ngood, uint64_t bad, size_t *n)
{
	size_t i, j, k = 0, total = 0;
	struct io *ios;

	for (i = 0; i < ngood; i++)
		total += good[i] + 1;
	ios = calloc(total, sizeof(*ios));
	for (i = 0; i < ngood; i++) {
		for (j = 0; j < good[i]; j++, k++) {
			ios[k].sector = bad + 8192 + k * 8;
			ios[k].bytes = 4096;
		}
		if (i + 1 < ngood) {
			ios[k].sector = bad;
			ios[k++].bytes = 4096;
		}
	}
	*n = k;
	return ios;
}

/* Count windows on one object: a big buffer, a small one that drops its
 * oldest events, a small one that drops its newest; each compared record
 * for record with a full trace of the same I/O cut by hand. */
static int t_spec_ctx(const char *path, uint64_t bad)
{
	static const size_t good[] = { 60, 60, 30 };
	uint32_t dev = dev_of(path);
	struct voliot_spec p[3];
	struct voliot_spec_stats st;
	struct tally full = { 0 }, t[3] = { { 0 } };
	struct pollfd pfd;
	unsigned char *keep;
	const char *why;
	size_t trig[4], ntrig, n, i, k;
	struct io *ios = spec_ios(good, 3, bad, &n);
	int fd, fds[3], errs, rc;
	char line[512];
	FILE *f;

	CHECK(dev, "%s is not a block device", path);
	spec_prog(&p[0], VOLIOT_SPEC_KEY_OBJECT, VOLIOT_SPEC_ON_ERROR);
	p[0].before_events = 20;
	p[0].before_ns = 10 * SEC;
	p[0].after_events = 10;
	p[0].after_ns = 10 * SEC;
	p[1] = p[0];
	p[1].specsize = 8 * sizeof(struct voliot_io_rec);
	p[1].overflow = VOLIOT_SPEC_DROP_OLDEST;
	p[2] = p[1];
	p[2].before_ns = 0;
	p[2].overflow = VOLIOT_SPEC_DROP_NEWEST;
	fd = spec_chan(dev, NULL);
	CHECK(fd >= 0, "full channel: %s", strerror(-fd));
	for (i = 0; i < 3; i++) {
		fds[i] = spec_chan(dev, &p[i]);
		CHECK(fds[i] >= 0, "channel %zu: VOLIOT_IO_SPECULATE: %s", i, strerror(-fds[i]));
	}
	rc = do_io(path, ios, n, &errs);
	CHECK(!rc && errs == 2, "%d of %zu reads failed, expected 2", errs, n);
	drain(fd, &full, 1 << 16);
	for (i = 0; i < 3; i++)
		drain(fds[i], &t[i], 4096);
	CHECK(full.lost == 0 && full.nio == 2 * n, "full trace: %zu records, %llu lost",
	      full.nio, (unsigned long long)full.lost);
	ntrig = find_errors(&full, trig, 4);
	CHECK(ntrig == 2, "%zu failed completions in the full trace", ntrig);
	keep = calloc(full.nio, 1);
	for (i = 0; i < 3; i++) {
		memset(keep, 0, full.nio);
		for (k = 0; k < ntrig; k++) {
			long tk = (long)trig[k];

			if (i == 0)
				mark(keep, full.nio, tk - 20, tk + 10);
			else if (i == 1)
				mark(keep, full.nio, tk - 8, tk + 10);
			else if (k == 0)	/* the first 8 events, kept */
				mark(keep, full.nio, 0, 7), mark(keep, full.nio, tk, tk + 10);
			else			/* the first 8 after the window */
				mark(keep, full.nio, (long)trig[0] + 11, (long)trig[0] + 18),
				mark(keep, full.nio, tk, tk + 10);
		}
		why = same_as(&full, keep, &t[i]);
		CHECK(!why, "channel %zu (%s): %s", i,
		      i == 0 ? "big buffer" : i == 1 ? "drop oldest" : "drop newest", why);
		CHECK(t[i].unannounced == 0 && t[i].nbad == 0, "channel %zu: records before "
		      "their object or malformed", i);
		CHECK(spec_get(fds[i], &st) == 0, "GET_SPEC_STATS: %s", strerror(errno));
		CHECK(stats_add_up(&st), "channel %zu: seen %llu != kept %llu + discards %llu "
		      "+ drops %llu + failed %llu + pending %llu", i,
		      (unsigned long long)st.seen, (unsigned long long)st.kept,
		      (unsigned long long)st.discards, (unsigned long long)st.drops,
		      (unsigned long long)st.failed, (unsigned long long)st.pending);
		CHECK(st.seen == full.nio && st.kept == count_keep(keep, full.nio) &&
		      st.commits == 2 && st.failed == 0 && st.busy == 0,
		      "channel %zu: seen %llu kept %llu commits %llu failed %llu busy %llu", i,
		      (unsigned long long)st.seen, (unsigned long long)st.kept,
		      (unsigned long long)st.commits, (unsigned long long)st.failed,
		      (unsigned long long)st.busy);
		CHECK(i == 0 ? st.drops == 0 : st.drops > 0, "channel %zu: %llu drops", i,
		      (unsigned long long)st.drops);
		CHECK(t[i].nstats >= 1 && stats_same(&t[i].stats, &st),
		      "channel %zu: %u stats records, the last one differs from GET_SPEC_STATS",
		      i, t[i].nstats);
	}
	f = fopen("/sys/module/vxtrace/parameters/spec_stats", "r");
	CHECK(f && fgets(line, sizeof(line), f), "spec_stats not readable");
	fclose(f);
	CHECK(!strncmp(line, "channels 3 ", 11), "spec_stats: %s", line);
	/* Good I/O now only fills buffers: no reader is woken, nothing to read. */
	rc = do_io(path, ios, 10, &errs);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 300) == 0, "a speculating channel became readable without a trigger");
	for (i = 0; i < 3; i++)
		close(fds[i]);
	close(fd);
	free(keep);
	free(ios);
	tally_free(&full);
	for (i = 0; i < 3; i++)
		tally_free(&t[i]);
	return result(1, "%zu reads, 2 errors: 20+1+10 events per error kept, as a full trace "
		      "cut by hand; buffers of 8 drop the oldest or the newest as told; "
		      "counters add up in records and GET_SPEC_STATS", n);
}

/* Time windows: the events of the second before and after an error. */
static int t_spec_time(const char *path, uint64_t bad)
{
	uint32_t dev = dev_of(path);
	struct voliot_spec p, pk, cpk;
	struct voliot_spec_stats st, st2;
	struct tally full = { 0 }, t = { 0 }, tp = { 0 }, tc = { 0 };
	struct io io_bad = { 0, bad, 4096 };
	struct io *ios = make_ios(40, bad + 16384);
	struct pollfd pfd;
	unsigned char *keep;
	const char *why;
	size_t trig, i;
	int fd, sfd, pkfd, cpfd, errs = 0, e;
	char msg[320];

	for (i = 0; i < 40; i++)
		ios[i].write = 0;
	spec_prog(&p, VOLIOT_SPEC_KEY_OBJECT, VOLIOT_SPEC_ON_ERROR);
	p.before_ns = 1 * SEC;
	p.after_ns = 1 * SEC;
	fd = spec_chan(dev, NULL);
	sfd = spec_chan(dev, &p);
	CHECK(fd >= 0 && sfd >= 0, "channels: %s", strerror(-(fd < 0 ? fd : sfd)));
	pk = p;
	pk.flags = VOLIOT_SPEC_F_PACKED;
	pkfd = spec_chan(dev, &pk);
	CHECK(pkfd >= 0, "packed channel: %s", strerror(-pkfd));
	cpk = p;
	cpk.flags = VOLIOT_SPEC_F_COMPACT | VOLIOT_SPEC_F_PACKED | VOLIOT_SPEC_F_PAIR;
	cpfd = spec_chan(dev, &cpk);
	CHECK(cpfd >= 0, "compact channel: %s", strerror(-cpfd));
	do_io(path, ios, 20, &e);
	errs += e;
	usleep(1500000);
	do_io(path, ios + 20, 5, &e);
	errs += e;
	do_io(path, &io_bad, 1, &e);
	CHECK(e == 1, "bad read did not fail");
	do_io(path, ios + 25, 5, &e);
	errs += e;
	usleep(1500000);
	do_io(path, ios + 30, 5, &e);
	errs += e;
	CHECK(!errs, "%d good reads failed", errs);
	drain(fd, &full, 1 << 16);
	drain(sfd, &t, 4096);
	drain(pkfd, &tp, 4096);
	drain(cpfd, &tc, 4096);
	CHECK(find_errors(&full, &trig, 1) == 1, "no failed completion in the full trace");
	keep = calloc(full.nio, 1);
	for (i = 0; i < full.nio; i++)
		keep[i] = full.io[i].time_ns + p.before_ns >= full.io[trig].time_ns &&
			  full.io[i].time_ns <= full.io[trig].time_ns + p.after_ns;
	why = same_as(&full, keep, &t);
	CHECK(!why, "%s", why);
	/* Packed: the same records, told in fewer bytes. */
	why = same_as(&full, keep, &tp);
	CHECK(!why, "packed: %s", why);
	CHECK(tp.nbad == 0 && tp.npacked > 0 && tp.npacked < tp.nio &&
	      tp.bytes - tp.nstats * sizeof(st) < (t.bytes - t.nstats * sizeof(st)) * 3 / 4,
	      "packed: %u of %zu records packed, %u malformed, %zu bytes against %zu",
	      tp.npacked, tp.nio, tp.nbad, tp.bytes, t.bytes);
	close(pkfd);
	/* Compact: the same records again, in fewer bytes than packed */
	why = same_as(&full, keep, &tc);
	CHECK(!why, "compact: %s", why);
	CHECK(tc.nbad == 0 && tc.npacked > 0 && tc.npacked < tc.nio && tc.npairs > 0 &&
	      tc.bytes - tc.nstats * sizeof(st) < (tp.bytes - tp.nstats * sizeof(st)) * 3 / 4,
	      "compact: %u of %zu records compact (%u pairs), %u malformed, %zu bytes against "
	      "%zu packed", tc.npacked, tc.nio, tc.npairs, tc.nbad, tc.bytes, tp.bytes);
	close(cpfd);
	CHECK(count_keep(keep, full.nio) == 22, "the reference keeps %zu, expected 22 "
	      "(the I/O was slower than the windows)", count_keep(keep, full.nio));
	CHECK(spec_get(sfd, &st) == 0 && stats_add_up(&st), "counters do not add up");
	CHECK(st.discards == 40 && st.pending == 10 && st.commits == 1,
	      "discards %llu pending %llu commits %llu, expected 40, 10, 1",
	      (unsigned long long)st.discards, (unsigned long long)st.pending,
	      (unsigned long long)st.commits);
	/* Pending events do not wake or ready the reader. */
	do_io(path, ios + 35, 5, &e);
	pfd.fd = sfd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 300) == 0, "readable without a trigger");
	CHECK(spec_get(sfd, &st2) == 0 && st2.pending == 20 && st2.seen == st.seen + 10,
	      "pending %llu seen %llu after 5 more reads", (unsigned long long)st2.pending,
	      (unsigned long long)st2.seen);
	close(sfd);	/* with 20 events pending */
	close(fd);
	free(keep);
	free(ios);
	snprintf(msg, sizeof(msg), "1 s before and after an error: 22 events kept, 40 older "
		 "ones discarded without waking the reader, closed with 20 pending; packed the "
		 "same in %zu bytes instead of %zu, compact in %zu (%u pairs)", tp.bytes, t.bytes,
		 tc.bytes, tc.npairs);
	tally_free(&full);
	tally_free(&t);
	tally_free(&tp);
	tally_free(&tc);
	return result(1, "%s", msg);
}

/* key request, triggered by latency: every slow I/O with its start (and
 * requeues), nothing of the fast ones. */
static int t_spec_req(const char *fast, const char *slow)
{
	uint32_t fdev = dev_of(fast), sdev = dev_of(slow);
	struct voliot_spec p;
	struct voliot_spec_stats st;
	struct tally full = { 0 }, t = { 0 };
	struct io io = { 0, 0, 4096 };
	unsigned char *keep;
	const char *why;
	size_t i, j, slow_n = 0;
	int fd, sfd, rc, e, errs = 0;

	CHECK(fdev && sdev, "%s or %s is not a block device", fast, slow);
	spec_prog(&p, VOLIOT_SPEC_KEY_REQUEST, VOLIOT_SPEC_ON_LATENCY);
	p.latency_ns = 1 * MS;
	p.nspec = 64;
	p.specsize = 16 * sizeof(struct voliot_io_rec);
	fd = spec_chan(fdev, NULL);
	sfd = spec_chan(fdev, &p);
	CHECK(fd >= 0 && sfd >= 0, "channels");
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, sdev) == 0 &&
	      chan_want(sfd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, sdev) == 0, "TRACE %s", slow);
	for (i = 0; i < 24; i++) {
		io.sector = 8192 + i * 64;
		rc = do_io(i % 3 ? fast : slow, &io, 1, &e);
		errs += rc ? 1 : e;
	}
	CHECK(!errs, "%d reads failed", errs);
	drain(fd, &full, 1 << 16);
	drain(sfd, &t, 4096);
	CHECK(full.lost == 0, "full trace lost %llu", (unsigned long long)full.lost);
	/* A slow completion keeps itself and the earlier records of its I/O
	 * (same object and sector: every read has its own sector). */
	keep = calloc(full.nio, 1);
	for (i = 0; i < full.nio; i++) {
		const struct voliot_io_rec *d = &full.io[i];

		if (d->type != VOLIOT_REC_IO_DONE || d->latency_ns < p.latency_ns)
			continue;
		slow_n++;
		keep[i] = 1;
		for (j = 0; j < i; j++)
			if (full.io[j].dev == d->dev && full.io[j].sector == d->sector &&
			    full.io[j].type != VOLIOT_REC_IO_DONE)
				keep[j] = 1;
	}
	/* In commit order: each I/O's records together, at its completion. */
	{
		struct tally ref = { 0 };
		unsigned char *all;

		for (i = 0; i < full.nio; i++) {
			const struct voliot_io_rec *d = &full.io[i];

			if (!keep[i] || d->type != VOLIOT_REC_IO_DONE)
				continue;
			for (j = 0; j <= i; j++)
				if (keep[j] && full.io[j].dev == d->dev &&
				    full.io[j].sector == d->sector)
					tally_feed(&ref, (const uint8_t *)&full.io[j],
						   sizeof(full.io[j]));
		}
		all = calloc(ref.nio + 1, 1);
		memset(all, 1, ref.nio);
		why = same_as(&ref, all, &t);
		free(all);
		tally_free(&ref);
	}
	CHECK(!why, "%s", why);
	CHECK(spec_get(sfd, &st) == 0 && stats_add_up(&st), "counters do not add up");
	CHECK(st.commits == slow_n && st.pending == 0 && st.failed == 0,
	      "commits %llu (slow I/Os %zu) pending %llu failed %llu",
	      (unsigned long long)st.commits, slow_n, (unsigned long long)st.pending,
	      (unsigned long long)st.failed);
	CHECK(slow_n >= 1 && st.discards >= 2, "nothing to tell apart: %zu slow I/Os, "
	      "%llu events discarded", slow_n, (unsigned long long)st.discards);
	close(sfd);
	close(fd);
	free(keep);
	tally_free(&full);
	tally_free(&t);
	return result(1, "24 reads on %s and %s: the %zu slower than 1 ms kept with their "
		      "starts, %llu events of the others discarded", fast, slow, slow_n,
		      (unsigned long long)st.discards);
}

/* Trigger 0x4 with key pid: an error on an object the channel does not
 * select (a dm "error" target) commits the failing task's events on the
 * selected one, and no event of the other object. */
static int t_spec_foreign(const char *path, const char *err_path)
{
	uint32_t dev = dev_of(path), edev = dev_of(err_path);
	struct voliot_spec p;
	struct voliot_spec_stats st;
	struct tally full = { 0 }, t = { 0 };
	struct io *ios = make_ios(30, 8192);
	struct io eio = { 0, 0, 4096 };
	unsigned char *keep;
	const char *why;
	size_t i, trig = 0, n = 0;
	uint32_t pid;
	long j;
	int fd, sfd, e;

	CHECK(dev && edev, "%s or %s is not a block device", path, err_path);
	for (i = 0; i < 30; i++)
		ios[i].write = 0;
	spec_prog(&p, VOLIOT_SPEC_KEY_PID, VOLIOT_SPEC_ON_ERRCHAN);
	p.before_events = 10;
	fd = spec_chan(dev, NULL);
	sfd = spec_chan(dev, &p);
	CHECK(fd >= 0 && sfd >= 0, "channels");
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, edev) == 0, "TRACE %s", err_path);
	do_io(path, ios, 30, &e);
	CHECK(!e, "good reads failed");
	do_io(err_path, &eio, 1, &e);
	CHECK(e == 1, "read on %s did not fail", err_path);
	drain(fd, &full, 1 << 16);
	drain(sfd, &t, 4096);
	for (i = 0; i < full.nio; i++)
		if (full.io[i].dev == edev && full.io[i].type == VOLIOT_REC_IO_DONE &&
		    full.io[i].error)
			break;
	CHECK(i < full.nio, "no failed completion on %s in the full trace", err_path);
	trig = i;
	keep = calloc(full.nio, 1);
	for (j = (long)trig - 1; j >= 0 && n < 10; j--)
		if (full.io[j].dev == dev && full.io[j].pid == full.io[trig].pid)
			keep[j] = 1, n++;
	CHECK(n == 10, "the reference found only %zu events of pid %u", n, full.io[trig].pid);
	why = same_as(&full, keep, &t);
	CHECK(!why, "%s", why);
	CHECK(spec_get(sfd, &st) == 0 && stats_add_up(&st) && st.commits == 1 &&
	      st.kept == 10, "commits %llu kept %llu", (unsigned long long)st.commits,
	      (unsigned long long)st.kept);
	pid = full.io[trig].pid;
	close(sfd);
	close(fd);
	free(keep);
	free(ios);
	tally_free(&full);
	tally_free(&t);
	return result(1, "an error on %s committed the last 10 events of pid %u on %s",
		      err_path, pid, path);
}

static int sub_result(const char *name, int ok, const char *detail)
{
	test_name = name;
	return result(ok, "%s", detail);
}

/* Bad programs: each refused with its errno. */
static int t_spec_bad(const char *path)
{
	uint32_t dev = dev_of(path);
	struct voliot_spec p, q;
	struct voliot_spec_stats st;
	unsigned char big[sizeof(p) + 32];
	int fd, efd, ok, bad = 0;

	fd = spec_chan(dev, NULL);
	CHECK(fd >= 0, "channel: %s", strerror(-fd));
	spec_prog(&p, VOLIOT_SPEC_KEY_OBJECT, VOLIOT_SPEC_ON_ERROR);
	p.before_events = 10;

	q = p, q.key = 0;
	ok = spec_set(fd, &q) == -EINVAL;
	q = p, q.key = 5;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.version = 2;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.size = sizeof(q) - 8;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.reserved[3] = 1;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.overflow = 2;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.flags = 0x20;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.flags = VOLIOT_SPEC_F_ISSUE_PID;	/* key object */
	ok = ok && spec_set(fd, &q) == -EINVAL;
	bad += sub_result("spec_key", ok, "key 0 and 5, version 2, a short struct, a reserved "
			  "field, overflow 2, flag 0x20, flag 0x1 on key object: EINVAL");

	q = p, q.triggers = 0;
	ok = spec_set(fd, &q) == -EINVAL;
	q = p, q.triggers = 0x8;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.triggers = VOLIOT_SPEC_ON_LATENCY;	/* no threshold */
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.latency_ns = MS;			/* threshold, no trigger */
	ok = ok && spec_set(fd, &q) == -EINVAL;
	bad += sub_result("spec_trigger", ok, "no trigger, trigger 0x8, latency without its "
			  "threshold and the reverse: EINVAL");

	q = p, q.before_events = 0;
	ok = spec_set(fd, &q) == -EINVAL;
	q = p, q.before_ns = VOLIOT_SPEC_WINDOW_MAX_NS + 1;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.after_events = VOLIOT_SPEC_EVENTS_MAX + 1;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.key = VOLIOT_SPEC_KEY_REQUEST;		/* a request has no window */
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.nspec = 0;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	q = p, q.specsize = sizeof(struct voliot_io_rec) - 1;
	ok = ok && spec_set(fd, &q) == -EINVAL;
	bad += sub_result("spec_window", ok, "window 0, over an hour, over 2^20 events, a "
			  "window on key request, nspec 0, specsize under one record: EINVAL");

	system("echo 1048576 > /sys/module/vxtrace/parameters/spec_max_bytes");
	q = p, q.nspec = 17, q.specsize = 65536;
	ok = spec_set(fd, &q) == -E2BIG;
	q = p, q.nspec = 1024, q.specsize = 4 << 20;	/* errors-in-context's 4 GiB */
	ok = ok && spec_set(fd, &q) == -E2BIG;
	q = p, q.nspec = 16, q.specsize = 65536;	/* exactly the limit */
	ok = ok && spec_set(fd, &q) == 0;
	system("echo 67108864 > /sys/module/vxtrace/parameters/spec_max_bytes");
	bad += sub_result("spec_e2big", ok, "17 x 64 KiB and 1024 x 4 MiB past a 1 MiB "
			  "spec_max_bytes: E2BIG; 16 x 64 KiB accepted");

	ok = spec_set(fd, &p) == -EBUSY;
	ok = ok && spec_get(fd, &st) == 0 && st.seen == 0;
	/* A larger struct of a later version is accepted when its tail is 0. */
	close(fd);
	fd = spec_chan(dev, NULL);
	ok = ok && ioctl(fd, VOLIOT_IO_SPECULATE, (void *)8) < 0 && errno == EFAULT;
	memset(big, 0, sizeof(big));
	q = p, q.size = sizeof(big);
	memcpy(big, &q, sizeof(q));
	big[sizeof(big) - 1] = 1;
	ok = ok && spec_set(fd, (void *)big) == -EINVAL;
	big[sizeof(big) - 1] = 0;
	ok = ok && spec_set(fd, (void *)big) == 0;
	close(fd);
	bad += sub_result("spec_ebusy", ok, "a second SPECULATE: EBUSY; a larger struct with "
			  "a zero tail accepted, non-zero refused; a bad pointer EFAULT");

	efd = open(VOLIOT_DEVICE, O_RDONLY);
	ok = efd >= 0 && spec_set(efd, &p) == -EINVAL && spec_get(efd, &st) == -EINVAL;
	ok = ok && ioctl(efd, VOLIOT_ERROR_TRACE_INIT) == 0 && spec_set(efd, &p) == -EINVAL;
	close(efd);
	bad += sub_result("spec_errchan", ok, "SPECULATE and GET_SPEC_STATS on an "
			  "uninitialised channel and on an error channel: EINVAL");
	return bad ? 1 : 0;
}

/* Teardown with buffers pending, rmmod while speculating, UNTRACE, DISCARD
 * and re-INIT with live speculations, and 32 channels each with its own
 * program compared with one full trace. */
#define NSPEC_CHANS 32

static int t_spec_safety(const char *path, uint64_t bad)
{
	static const size_t good[] = { 40, 20 };
	uint32_t dev = dev_of(path);
	struct voliot_spec p, ps[NSPEC_CHANS];
	struct voliot_spec_stats st, st2;
	struct tally full = { 0 }, t = { 0 };
	unsigned long bytes0 = param_ul("buffer_bytes"), bytes1;
	unsigned char *keep;
	const char *why;
	size_t n, i, trig;
	struct io *ios = spec_ios(good, 2, bad, &n);
	int fd, fds[NSPEC_CHANS], e;

	spec_prog(&p, VOLIOT_SPEC_KEY_OBJECT, VOLIOT_SPEC_ON_ERROR);
	p.before_events = 50;
	fd = spec_chan(dev, &p);
	CHECK(fd >= 0, "channel: %s", strerror(-fd));
	do_io(path, ios, 10, &e);
	CHECK(spec_get(fd, &st) == 0 && st.pending == 20, "pending %llu after 10 reads",
	      (unsigned long long)st.pending);
	CHECK(system("rmmod vxtrace 2>/dev/null") != 0, "rmmod succeeded while speculating");
	bytes1 = param_ul("buffer_bytes");
	CHECK(bytes1 > bytes0 + p.nspec * p.specsize, "buffer_bytes %lu does not count the "
	      "speculation buffers", bytes1);
	CHECK(chan_want(fd, VOLIOT_IO_UNTRACE, VOLIOT_WANT_DISK, dev) == 0, "UNTRACE");
	do_io(path, ios, 10, &e);
	CHECK(spec_get(fd, &st2) == 0 && st2.seen == st.seen && st2.pending == 20,
	      "after UNTRACE: seen %llu pending %llu", (unsigned long long)st2.seen,
	      (unsigned long long)st2.pending);
	CHECK(chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, dev) == 0, "TRACE again");
	CHECK(ioctl(fd, VOLIOT_DISCARD) == 0 && spec_get(fd, &st2) == 0 && st2.pending == 0 &&
	      st2.discards == st.discards + 20 && stats_add_up(&st2), "DISCARD left %llu pending",
	      (unsigned long long)st2.pending);
	do_io(path, ios, 10, &e);
	CHECK(ioctl(fd, VOLIOT_IO_TRACE_INIT, 0UL) == 0, "re-INIT");
	CHECK(spec_get(fd, &st2) == -EINVAL, "re-INIT kept the speculation");
	CHECK(param_ul("buffer_bytes") < bytes1 - p.nspec * p.specsize,
	      "re-INIT did not free the speculation buffers");
	CHECK(spec_set(fd, &p) == 0, "SPECULATE after re-INIT: %s", strerror(errno));
	close(fd);
	CHECK(param_ul("buffer_bytes") == bytes0, "buffer_bytes %lu after close, %lu before",
	      param_ul("buffer_bytes"), bytes0);

	/* 32 programs at once, one full trace to judge them. */
	system("echo 64 > /sys/module/vxtrace/parameters/max_channels");
	fd = spec_chan(dev, NULL);
	CHECK(fd >= 0, "full channel");
	for (i = 0; i < NSPEC_CHANS; i++) {
		spec_prog(&ps[i], VOLIOT_SPEC_KEY_OBJECT, i % 2 ? VOLIOT_SPEC_ON_ERROR :
			  VOLIOT_SPEC_ON_ERRCHAN);
		ps[i].before_events = 1 + i;
		ps[i].after_events = i % 5;
		ps[i].overflow = i % 2;
		ps[i].nspec = 1 + i;
		ps[i].specsize = (33 + i) * sizeof(struct voliot_io_rec);
		fds[i] = spec_chan(dev, &ps[i]);
		CHECK(fds[i] >= 0, "channel %zu: %s", i, strerror(-fds[i]));
	}
	CHECK(system("rmmod vxtrace 2>/dev/null") != 0, "rmmod succeeded with 33 channels");
	do_io(path, ios, n, &e);
	CHECK(e == 1, "%d reads failed, expected 1", e);
	drain(fd, &full, 1 << 16);
	CHECK(find_errors(&full, &trig, 1) == 1 && full.lost == 0, "full trace");
	keep = calloc(full.nio, 1);
	for (i = 0; i < NSPEC_CHANS; i++) {
		memset(keep, 0, full.nio);
		mark(keep, full.nio, (long)trig - 1 - (long)i, (long)trig + (long)(i % 5));
		drain(fds[i], &t, 4096);
		why = same_as(&full, keep, &t);
		CHECK(!why, "channel %zu (before %u, after %u): %s", i, ps[i].before_events,
		      ps[i].after_events, why);
		CHECK(spec_get(fds[i], &st) == 0 && stats_add_up(&st) && st.commits == 1,
		      "channel %zu: counters", i);
		tally_free(&t);
	}
	for (i = 0; i < NSPEC_CHANS; i++)
		close(fds[i]);
	close(fd);
	system("echo 32 > /sys/module/vxtrace/parameters/max_channels");
	free(keep);
	free(ios);
	tally_free(&full);
	CHECK(param_ul("buffer_bytes") == bytes0, "buffer_bytes %lu after the 32 channels",
	      param_ul("buffer_bytes"));
	return result(1, "closed with events pending, rmmod refused, UNTRACE/DISCARD/re-INIT "
		      "with a live speculation; %d programs at once each equal to the full "
		      "trace cut by hand", NSPEC_CHANS);
}

/* Helpers for the guest script. */

static int dm_ioctl(int ctl, unsigned long cmd, const char *name, void *extra,
		    size_t extra_len, uint32_t target_count)
{
	char buf[16384];
	struct dm_ioctl *io = (void *)buf;

	memset(buf, 0, sizeof(buf));
	io->version[0] = DM_VERSION_MAJOR;
	io->data_size = sizeof(buf);
	io->data_start = sizeof(*io);
	io->target_count = target_count;
	snprintf(io->name, sizeof(io->name), "%s", name);
	if (extra)
		memcpy(buf + sizeof(*io), extra, extra_len);
	return ioctl(ctl, cmd, io) < 0 ? -errno : 0;
}

/* dm-create NAME SECTORS TARGET [PARAMS] */
/* The capture level: VOLIOT_IO_PHASES's errors, voliot_info.phases, and
 * reads of the partition @part (at sector @start of @disk) seen by a
 * channel at level all selecting the partition (remap, queue, getrq,
 * insert records on the disk at absolute sectors, before the issue) and by
 * one at level issue selecting the disk (start and done only).
 */
static int t_phases(const char *disk, const char *part, uint64_t start)
{
	uint32_t ddev = dev_of(disk), pdev = dev_of(part);
	struct io ios[4];
	struct tally ta = { 0 }, ti = { 0 };
	struct voliot_info info;
	struct voliot_spec p;
	unsigned type;
	size_t i, k;
	int fa, fi, fs, errs;

	fs = open(VOLIOT_DEVICE, O_RDONLY);
	CHECK(fs >= 0, "open: %s", strerror(errno));
	CHECK(expect_errno(ioctl(fs, VOLIOT_IO_PHASES, 1UL), EINVAL),
	      "PHASES before INIT is not EINVAL");
	CHECK(ioctl(fs, VOLIOT_IO_TRACE_INIT, 0UL) == 0, "INIT");
	CHECK(chan_info(fs, &info) == 0 && info.phases == VOLIOT_PHASES_ISSUE,
	      "a new channel is at level %u", info.phases);
	CHECK(expect_errno(ioctl(fs, VOLIOT_IO_PHASES, 2UL), EINVAL), "level 2 accepted");
	spec_prog(&p, VOLIOT_SPEC_KEY_REQUEST, VOLIOT_SPEC_ON_ERROR);
	CHECK(spec_set(fs, &p) == 0, "SPECULATE");
	CHECK(expect_errno(ioctl(fs, VOLIOT_IO_PHASES, 1UL), EINVAL),
	      "level all on a speculating channel accepted");
	CHECK(ioctl(fs, VOLIOT_IO_TRACE_INIT, 0UL) == 0, "re-INIT");
	CHECK(ioctl(fs, VOLIOT_IO_PHASES, 1UL) == 0, "PHASES 1");
	CHECK(chan_info(fs, &info) == 0 && info.phases == VOLIOT_PHASES_ALL,
	      "level %u after PHASES 1", info.phases);
	CHECK(spec_set(fs, &p) == -EINVAL, "SPECULATE at level all accepted");
	CHECK(ioctl(fs, VOLIOT_IO_TRACE_INIT, 0UL) == 0 && chan_info(fs, &info) == 0 &&
	      info.phases == VOLIOT_PHASES_ISSUE, "re-INIT kept level %u", info.phases);
	close(fs);

	fa = chan_open(1 << 20, O_NONBLOCK);
	fi = chan_open(1 << 20, O_NONBLOCK);
	CHECK(fa >= 0 && fi >= 0, "channels: %s", strerror(-(fa < 0 ? fa : fi)));
	CHECK(ioctl(fa, VOLIOT_IO_PHASES, (unsigned long)VOLIOT_PHASES_ALL) == 0,
	      "PHASES: %s", strerror(errno));
	CHECK(chan_want(fa, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, pdev) == 0 &&
	      chan_want(fi, VOLIOT_IO_TRACE, VOLIOT_WANT_DISK, ddev) == 0, "TRACE");
	for (i = 0; i < 4; i++) {
		ios[i].write = 0;
		ios[i].sector = 64 * i;
		ios[i].bytes = 4096;
	}
	CHECK(do_io(part, ios, 4, &errs) == 0 && !errs, "reads of %s failed", part);
	drain(fa, &ta, 1 << 16);
	drain(fi, &ti, 1 << 16);
	close(fa);
	close(fi);
	for (i = 0; i < ti.nio; i++)
		CHECK(ti.io[i].type == VOLIOT_REC_IO_START || ti.io[i].type == VOLIOT_REC_IO_DONE,
		      "the level-issue channel got a record of type %u", ti.io[i].type);
	CHECK(count_type(&ti, VOLIOT_REC_IO_START, ddev) == 4 &&
	      count_type(&ti, VOLIOT_REC_IO_DONE, ddev) == 4,
	      "level issue: %zu starts, %zu dones of 4", count_type(&ti, VOLIOT_REC_IO_START, ddev),
	      count_type(&ti, VOLIOT_REC_IO_DONE, ddev));
	/* each read: A Q G I D C on the disk, in this order, at its absolute sector */
	static const unsigned order[] = { VOLIOT_REC_REMAP, VOLIOT_REC_QUEUE, VOLIOT_REC_GETRQ,
					  VOLIOT_REC_INSERT, VOLIOT_REC_IO_START,
					  VOLIOT_REC_IO_DONE };
	for (i = 0; i < 4; i++) {
		size_t last = 0, seen = 0;

		for (k = 0; k < ta.nio; k++) {
			const struct voliot_io_rec *r = &ta.io[k];

			if (r->sector != start + ios[i].sector)
				continue;
			type = r->type;
			/* no scheduler on this disk: a request may be issued without an insert */
			if (type == VOLIOT_REC_INSERT || type == VOLIOT_REC_PLUG ||
			    type == VOLIOT_REC_UNPLUG)
				continue;
			CHECK(r->dev == ddev && r->bytes == ios[i].bytes && r->op == VOLIOT_OP_READ &&
			      r->error == 0, "record type %u of sector %llu: dev %#x bytes %u op %u",
			      type, (unsigned long long)r->sector, r->dev, r->bytes, r->op);
			while (last < 6 && order[last] != type)
				last++;
			CHECK(last < 6, "read %zu: type %u out of order", i, type);
			seen |= 1u << last;
		}
		CHECK(seen == 0x37, "read %zu at sector %llu: phases seen %#zx, want remap, "
		      "queue, getrq, start, done (0x37)", i,
		      (unsigned long long)(start + ios[i].sector), seen);
		/* the remap names where the bio came from: the partition */
		for (k = 0; k < ta.nremap && k < 64; k++)
			if (ta.remap[k].io.sector == start + ios[i].sector)
				break;
		CHECK(k < ta.nremap && k < 64 && ta.remap[k].old_dev == pdev &&
		      ta.remap[k].old_sector == ios[i].sector && !ta.remap[k].reserved,
		      "read %zu: remap from %#x sector %llu, want %#x sector %llu", i,
		      k < 64 ? ta.remap[k].old_dev : 0,
		      (unsigned long long)(k < 64 ? ta.remap[k].old_sector : 0), pdev,
		      (unsigned long long)ios[i].sector);
	}
	tally_free(&ta);
	tally_free(&ti);
	return result(1, "EINVAL before INIT, for level 2 and with speculation; info.phases; "
		      "re-INIT back to issue; reads of %s: remap (from the partition's sector), "
		      "queue, getrq, start, done on the disk at absolute sectors at level all, "
		      "start and done only at level issue",
		      part);
}

static int dm_create(const char *name, uint64_t sectors, const char *target,
		     const char *params)
{
	char spec_buf[4096];
	struct dm_target_spec *spec = (void *)spec_buf;
	size_t len;
	int ctl, rc;

	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		perror("/dev/mapper/control");
		return 1;
	}
	rc = dm_ioctl(ctl, DM_DEV_CREATE, name, NULL, 0, 0);
	if (rc) {
		fprintf(stderr, "DM_DEV_CREATE: %s\n", strerror(-rc));
		return 1;
	}
	memset(spec_buf, 0, sizeof(spec_buf));
	spec->sector_start = 0;
	spec->length = sectors;
	snprintf(spec->target_type, sizeof(spec->target_type), "%s", target);
	snprintf(spec_buf + sizeof(*spec), sizeof(spec_buf) - sizeof(*spec), "%s",
		 params ? params : "");
	len = sizeof(*spec) + strlen(spec_buf + sizeof(*spec)) + 1;
	len = (len + 7) & ~(size_t)7;
	spec->next = 0;
	rc = dm_ioctl(ctl, DM_TABLE_LOAD, name, spec, len, 1);
	if (rc) {
		fprintf(stderr, "DM_TABLE_LOAD: %s\n", strerror(-rc));
		return 1;
	}
	rc = dm_ioctl(ctl, DM_DEV_SUSPEND, name, NULL, 0, 0);	/* resume */
	if (rc) {
		fprintf(stderr, "DM_DEV_SUSPEND: %s\n", strerror(-rc));
		return 1;
	}
	close(ctl);
	return 0;
}

/* md-create MDDEV KIB DEV...: a RAID-1 md array of the DEVs without
 * superblocks (mdadm --build --level=1 --assume-clean: member sector S is
 * array sector S, no resync writes), each mirror KIB KiB. */
static int md_create(const char *md, int kib, char *const *devs, int n)
{
	mdu_array_info_t a;
	struct stat st;
	int fd, i;

	if (stat(md, &st) < 0 && mknod(md, S_IFBLK | 0600, makedev(MD_MAJOR, 0)) < 0) {
		perror(md);
		return 1;
	}
	fd = open(md, O_RDWR);
	if (fd < 0) {
		perror(md);
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.level = 1;
	a.size = kib;
	a.nr_disks = a.raid_disks = a.active_disks = a.working_disks = n;
	a.not_persistent = 1;
	a.state = 1 << MD_SB_CLEAN;
	if (fstat(fd, &st) == 0)
		a.md_minor = (int)minor(st.st_rdev);
	if (ioctl(fd, SET_ARRAY_INFO, &a) < 0) {
		fprintf(stderr, "%s: SET_ARRAY_INFO: %s\n", md, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		mdu_disk_info_t d;

		if (stat(devs[i], &st) < 0 || !S_ISBLK(st.st_mode)) {
			fprintf(stderr, "%s: not a block device\n", devs[i]);
			return 1;
		}
		memset(&d, 0, sizeof(d));
		d.number = d.raid_disk = i;
		d.state = (1 << MD_DISK_SYNC) | (1 << MD_DISK_ACTIVE);
		d.major = (int)major(st.st_rdev);
		d.minor = (int)minor(st.st_rdev);
		if (ioctl(fd, ADD_NEW_DISK, &d) < 0) {
			fprintf(stderr, "%s: ADD_NEW_DISK %s: %s\n", md, devs[i], strerror(errno));
			return 1;
		}
	}
	if (ioctl(fd, RUN_ARRAY, NULL) < 0) {
		fprintf(stderr, "%s: RUN_ARRAY: %s\n", md, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* trace-count DEV [BUFSIZE]: trace until SIGTERM/SIGINT, then print
 * "events N lost N". For the benchmark. */
static int trace_count(const char *path, unsigned long bufsize)
{
	uint32_t dev = dev_of(path);
	struct voliot_info info;
	static uint8_t buf[1 << 16];
	uint64_t lost = 0, events = 0;
	struct sigaction sa;
	int fd = chan_open(bufsize, 0);
	ssize_t n;

	if (fd < 0 || chan_want(fd, VOLIOT_IO_TRACE, VOLIOT_WANT_DEV, dev)) {
		fprintf(stderr, "trace-count: cannot trace %s\n", path);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("tracing\n");
	fflush(stdout);
	while (!stop_flag) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			break;
		if (n <= 0)
			continue;
		for (ssize_t off = 0; off < n; off += buf[off]) {
			if (buf[off + 1] == VOLIOT_REC_IO_START ||
			    buf[off + 1] == VOLIOT_REC_IO_DONE)
				events++;
			else if (buf[off + 1] == VOLIOT_REC_LOST) {
				struct voliot_lost_rec l;

				memcpy(&l, buf + off, sizeof(l));
				lost += l.count;
			}
		}
	}
	chan_info(fd, &info);
	printf("events %llu lost %llu bufsize %llu\n", (unsigned long long)events,
	       (unsigned long long)info.lost, (unsigned long long)info.bufsize);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: vxtest TEST [ARGS]\n");
		return 2;
	}
	test_name = argv[1];
	if (!strcmp(argv[1], "exact") && argc == 4)
		return t_exact(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "badblocks") && argc == 4)
		return t_badblocks(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "dmerror") && argc == 3)
		return t_dmerror(argv[2]);
	if (!strcmp(argv[1], "eagain") && argc == 3)
		return t_eagain(argv[2]);
	if (!strcmp(argv[1], "clock") && argc == 3)
		return t_clock(argv[2]);
	if (!strcmp(argv[1], "smallbuf") && argc == 3)
		return t_smallbuf(argv[2]);
	if (!strcmp(argv[1], "lost") && argc == 4)
		return t_lost(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "multi") && argc == 4)
		return t_multi(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "errchan") && argc == 5)
		return t_errchan(argv[2], strtoull(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "stacked") && argc == 5)
		return t_stacked(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "ops") && argc == 3)
		return t_ops(argv[2]);
	if (!strcmp(argv[1], "errlost") && argc == 5)
		return t_errlost(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "ioctls") && argc == 3)
		return t_ioctls(argv[2]);
	if (!strcmp(argv[1], "phases") && argc == 5)
		return t_phases(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (!strcmp(argv[1], "partition") && argc == 5)
		return t_partition(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (!strcmp(argv[1], "mbr") && argc == 5)
		return make_mbr(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "requeue") && argc == 4)
		return t_requeue(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "eperm"))
		return t_eperm();
	if (!strcmp(argv[1], "hold"))
		return t_hold();
	if (!strcmp(argv[1], "stress") && argc == 5)
		return t_stress(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "errshare") && argc == 4)
		return t_errshare(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_ctx") && argc == 4)
		return t_spec_ctx(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_time") && argc == 4)
		return t_spec_time(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_req") && argc == 4)
		return t_spec_req(argv[2], argv[3]);
	if (!strcmp(argv[1], "spec_foreign") && argc == 4)
		return t_spec_foreign(argv[2], argv[3]);
	if (!strcmp(argv[1], "spec_bad") && argc == 3)
		return t_spec_bad(argv[2]);
	if (!strcmp(argv[1], "spec_safety") && argc == 4)
		return t_spec_safety(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "dm-create") && argc >= 5)
		return dm_create(argv[2], strtoull(argv[3], NULL, 0), argv[4],
				 argc > 5 ? argv[5] : NULL);
	if (!strcmp(argv[1], "md-create") && argc >= 6)
		return md_create(argv[2], atoi(argv[3]), argv + 4, argc - 4);
	if (!strcmp(argv[1], "trace-count") && argc >= 3)
		return trace_count(argv[2], argc > 3 ? strtoul(argv[3], NULL, 0) : 0);
	fprintf(stderr, "vxtest: unknown test or wrong arguments: %s\n", argv[1]);
	return 2;
}
