/* vxtest_spec.c - speculation in the kernel (VOLIOT_IO_SPECULATE): programs,
 * and what a context, a time window and a request key keep */
#include "vxtest.h"

/* ---- speculation in the kernel (VOLIOT_IO_SPECULATE) ---- */

void spec_prog(struct voliot_spec *p, uint32_t key, uint32_t triggers)
{
	memset(p, 0, sizeof(*p));
	p->version = VOLIOT_SPEC_VERSION;
	p->size = sizeof(*p);
	p->key = key;
	p->triggers = triggers;
	p->nspec = 16;
	p->specsize = 256 * sizeof(struct voliot_io_rec);
}

int spec_set(int fd, const struct voliot_spec *p)
{
	return ioctl(fd, VOLIOT_IO_SPECULATE, p) < 0 ? -errno : 0;
}

int spec_get(int fd, struct voliot_spec_stats *st)
{
	return ioctl(fd, VOLIOT_GET_SPEC_STATS, st) < 0 ? -errno : 0;
}

/* A 4 MiB I/O channel on the disk @dev, speculating with @p unless NULL. */
int spec_chan(uint32_t dev, const struct voliot_spec *p)
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
int stats_add_up(const struct voliot_spec_stats *s)
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
const char *same_as(const struct tally *full, const unsigned char *keep,
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

void mark(unsigned char *keep, size_t n, long from, long to)
{
	long i;

	for (i = from < 0 ? 0 : from; i <= to && i < (long)n; i++)
		keep[i] = 1;
}

/* Indexes of the failed completions in @t (at most @max). */
size_t find_errors(const struct tally *t, size_t *at, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < t->nio && n < max; i++)
		if (t->io[i].type == VOLIOT_REC_IO_DONE && t->io[i].error)
			at[n++] = i;
	return n;
}

/* good reads on @path away from @bad, then one bad read, @n times */
struct io *spec_ios(const size_t *good, size_t ngood, uint64_t bad, size_t *n)
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
int t_spec_ctx(const char *path, uint64_t bad)
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
int t_spec_time(const char *path, uint64_t bad)
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
int t_spec_req(const char *fast, const char *slow)
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
