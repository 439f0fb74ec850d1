/* vxtest_capture.c - capture on one device: every I/O traced one for one,
 * request and bio errors, a blocking read, the clock, short reads, lost
 * records, several channels, who may open the device and unload the module */
#include "vxtest.h"

/* ---- tests ---- */

int t_exact(const char *path, size_t n)
{
	uint32_t dev;
	struct tally t = { 0 };
	struct io *ios = make_ios(n, 8192);
	size_t k;
	int fd, errs, rc;

	rc = chan_trace_path(path, VOLIOT_WANT_DEV, &dev, &fd);
	if (rc)
		return rc;
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

const struct voliot_io_rec *find_io(const struct tally *t, unsigned type,
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
int t_badblocks(const char *path, uint64_t bad)
{
	uint32_t dev;
	struct io ios[2] = { { 0, bad, 4096 }, { 0, bad + 4096, 4096 } };
	const struct voliot_io_rec *r;
	struct tally t = { 0 };
	int fd, errs, rc;

	rc = chan_trace_path(path, VOLIOT_WANT_DISK, &dev, &fd);
	if (rc)
		return rc;
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
int t_dmerror(const char *path)
{
	uint32_t dev;
	struct io ios[3] = { { 0, 0, 4096 }, { 0, 512, 8192 }, { 1, 1024, 4096 } };
	struct tally t = { 0 };
	size_t i, nerr = 0;
	int fd, errs, rc;

	rc = chan_trace_path(path, VOLIOT_WANT_DEV, &dev, &fd);
	if (rc)
		return rc;
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

int t_eagain(const char *path)
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
int t_clock(const char *path)
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
int t_smallbuf(const char *path)
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

void *reader_main(void *arg)
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
int t_lost(const char *path, size_t n)
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
int t_multi(const char *path, size_t n)
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

int t_eperm(void)
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

int t_hold(void)
{
	int fd = chan_open(0, 0), rc;

	CHECK(fd >= 0, "open/init: %s", strerror(-fd));
	rc = system("rmmod vxtrace 2>/dev/null");
	CHECK(rc != 0, "rmmod succeeded while a channel was open");
	CHECK(access(VOLIOT_DEVICE, F_OK) == 0, "device gone");
	close(fd);
	return result(1, "rmmod refused while a channel is open");
}
