/* vxtest_errors.c - the error channel: saved errors, a ring that overflows,
 * the ioctls and their refusals, DISCARD shared between error channels */
#include "vxtest.h"

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
int t_errchan(const char *bad_path, uint64_t bad, unsigned min_saved)
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

/* The saved-error ring keeps the newest errors: a channel that comes late
 * is told how many it missed. Run with errbuf_size=256 (4 errors). */
int t_errlost(const char *path, uint64_t bad, unsigned n)
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

int expect_errno(int rc, int want)
{
	return rc < 0 && errno == want;
}

/* ioctl semantics: clamping, re-initialisation, bad arguments, limits. */
int t_ioctls(const char *path)
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

/* ---- an error channel's DISCARD and the other error channels ---- */

/* DISCARD on one error channel leaves the errors another open channel has
 * not read yet; channels opened later start after them. */
int t_errshare(const char *path, uint64_t bad)
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
