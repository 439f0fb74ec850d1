/* vxtest_devices.c - device kinds: stacked (dm) devices, every op,
 * partitions, requeues on a throttled device, the phases of the block layer */
#include "vxtest.h"

/* A stacked device: bios on the dm device, requests on the disk under it,
 * each I/O once per level and never twice on one device. */
int t_stacked(const char *top, const char *low, size_t n)
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
int t_ops(const char *path)
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

/* Partitions: a disk set takes the disk and its partitions, a partition
 * set only the requests that belong to the partition. Requests are
 * reported on the whole disk at absolute sectors. */
int t_partition(const char *disk, const char *part, uint64_t start)
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

/* Reads on a throttled null_blk behind mq-deadline: whether the block layer
 * requeues them, and whether the driver marks a request started before it
 * turns it away, depend on the kernel; the channel must match the kernel's
 * own block_rq_issue and block_rq_requeue counts (tracefs). */
int t_requeue(const char *path, size_t n)
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

/* dm-create NAME SECTORS TARGET [PARAMS] */
/* The capture level: VOLIOT_IO_PHASES's errors, voliot_info.phases, and
 * reads of the partition @part (at sector @start of @disk) seen by a
 * channel at level all selecting the partition (remap, queue, getrq,
 * insert records on the disk at absolute sectors, before the issue) and by
 * one at level issue selecting the disk (start and done only).
 */
int t_phases(const char *disk, const char *part, uint64_t start)
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
