/* vxtest_stress.c - the module under stress: channels opened, traced and
 * closed while I/O runs */
#include "vxtest.h"

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

unsigned long param_ul(const char *name)
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
int t_stress(const char *busy, const char *exact, size_t n)
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
