/* vxtest_io.c - driving I/O (O_DIRECT reads and writes), matching its
 * records, and the kernel's own view of the block tracepoints through
 * tracefs */
#include "vxtest.h"

void *io_buf;

int do_io(const char *path, const struct io *ios, size_t n, int *errs)
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
struct io *make_ios(size_t n, uint64_t base)
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
size_t match_phase(const struct tally *t, unsigned type, uint32_t dev,
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

/* ---- the kernel's own view of a tracepoint, through tracefs ---- */

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
int ktrace_start(const char *const *evs)
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

void ktrace_stop(const char *const *evs)
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
long ktrace_count(const char *ev, uint32_t dev)
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

void ktrace_reset(void)
{
	tracefs_write("trace", "");
	tracefs_write("tracing_on", "1");
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* trace-count DEV [BUFSIZE]: trace until SIGTERM/SIGINT, then print
 * "events N lost N". For the benchmark. */
int trace_count(const char *path, unsigned long bufsize)
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
