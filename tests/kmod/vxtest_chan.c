/* vxtest_chan.c - a channel of /dev/vxtrace: opening it, choosing what it
 * traces, and decoding what it returns (struct tally) */
#include "vxtest.h"

/* ---- devices ---- */

uint32_t dev_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	return VOLIOT_MKDEV(major(st.st_rdev), minor(st.st_rdev));
}

/* ---- channels ---- */

int chan_open(unsigned long bufsize, int flags)
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

int chan_want(int fd, unsigned long cmd, uint32_t type, uint32_t val)
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

/* A channel tracing the block device at @path, chosen by @type
 * (VOLIOT_WANT_DEV or VOLIOT_WANT_DISK): its dev in *@dev, the channel in
 * *@fd. @return 0, or result()'s failure, said. */
int chan_trace_path(const char *path, uint32_t type, uint32_t *dev, int *fd)
{
	int rc;

	*dev = dev_of(path);
	CHECK(*dev, "%s is not a block device", path);
	*fd = chan_open(0, 0);
	CHECK(*fd >= 0, "open/init: %s", strerror(-*fd));
	rc = chan_want(*fd, VOLIOT_IO_TRACE, type, *dev);
	CHECK(!rc, "VOLIOT_IO_TRACE: %s", strerror(-rc));
	return 0;
}

int chan_info(int fd, struct voliot_info *info)
{
	return ioctl(fd, VOLIOT_GET_INFO, info) < 0 ? -errno : 0;
}

void tally_free(struct tally *t)
{
	free(t->io);
	memset(t, 0, sizeof(*t));
}

/* Has an object record for @dev come yet? (only the first 16 are kept) */
int announced(const struct tally *t, uint32_t dev)
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
void tally_feed(struct tally *t, const uint8_t *buf, size_t n)
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
int drain(int fd, struct tally *t, size_t bufsize)
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

size_t count_type(const struct tally *t, unsigned type, uint32_t dev)
{
	size_t i, n = 0;

	for (i = 0; i < t->nio; i++)
		if (t->io[i].type == type && (!dev || t->io[i].dev == dev))
			n++;
	return n;
}
