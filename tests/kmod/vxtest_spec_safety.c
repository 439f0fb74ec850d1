/* vxtest_spec_safety.c - speculation at its edges: an error on an unselected
 * object, programs the module refuses, teardown and many channels at once */
#include "vxtest.h"

/* Trigger 0x4 with key pid: an error on an object the channel does not
 * select (a dm "error" target) commits the failing task's events on the
 * selected one, and no event of the other object. */
int t_spec_foreign(const char *path, const char *err_path)
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
int t_spec_bad(const char *path)
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

int t_spec_safety(const char *path, uint64_t bad)
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
