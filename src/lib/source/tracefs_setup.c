/* tracefs_setup.c - the tracefs source's set-up: which devices it traces
 * and at which level (requests of blk-mq disks, partitions through their
 * disk's requests in their sector range, bios of bio-based devices), the
 * tracepoints' filters on those devices, the per-CPU rings and the event
 * parser (libtraceevent) with the fields read of each tracepoint.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "source/tracefs_impl.h"
#include "source/tracefs_inst.h"
#include "vxtrace/sysdev.h"
#include "vxtrace/util.h"

const char *const tfs_event_names[K_COUNT] = {
	"block_rq_issue", "block_rq_complete", "block_rq_requeue", "block_rq_error",
	"block_bio_queue", "block_bio_complete",
	"block_getrq", "block_rq_insert", "block_bio_backmerge", "block_bio_frontmerge",
	"block_plug", "block_unplug", "block_split", "block_bio_remap",
};

/* ---- objects and filters ---- */

int vxt_tfs_add_route(struct vxt_source *s, struct tfs *t, uint32_t dev, uint64_t lo,
		     uint64_t hi, uint32_t obj, bool bio)
{
	if (t->nroute == TFS_MAX_OBJS)
		return vxt_source_seterr(s, -E2BIG, "tracefs: more than %d objects",
					 TFS_MAX_OBJS);
	t->route[t->nroute++] = (struct tfs_route){ dev, lo, hi, obj, bio };
	return 0;
}

int64_t vxt_tfs_add_object(struct vxt_source *s, uint32_t dev)
{
	char name[32];
	unsigned kind = VXT_OBJ_OTHER;
	uint64_t size = 0;

	if (vxt_sysdev_describe(dev, name, &kind, &size) < 0)
		snprintf(name, sizeof(name), "%u:%u", VXT_SYSDEV_MAJOR(dev),
			 VXT_SYSDEV_MINOR(dev));
	return vxt_objtab_add(s->objs, dev, name, kind, size);
}

/* Route one selected device: partitions through their disk's requests,
 * blk-mq devices by requests, others by bios. */
static int select_dev(struct vxt_source *s, struct tfs *t, uint32_t dev)
{
	uint32_t disk;
	uint64_t start, size = 0;
	int64_t obj = vxt_tfs_add_object(s, dev);
	int part;

	if (obj < 0)
		return vxt_source_seterr(s, (int)obj, "tracefs: object table: %s",
					 strerror((int)-obj));
	part = vxt_sysdev_partition(dev, &disk, &start);
	if (part < 0)
		return vxt_source_seterr(s, part, "tracefs: device %u:%u vanished",
					 VXT_SYSDEV_MAJOR(dev), VXT_SYSDEV_MINOR(dev));
	if (part == 1 && vxt_sysdev_is_mq(disk)) {
		vxt_sysdev_describe(dev, NULL, NULL, &size);
		return vxt_tfs_add_route(s, t, disk, start, start + size / 512, (uint32_t)obj, false);
	}
	return vxt_tfs_add_route(s, t, dev, 0, UINT64_MAX, (uint32_t)obj,
			 part == 0 ? !vxt_sysdev_is_mq(dev) : true);
}

/* Every bio-based whole device present now gets a bio-level route. */
static int select_bio_devices(struct vxt_source *s, struct tfs *t)
{
	char path[512], line[64];
	struct dirent *de;
	unsigned ma, mi;
	uint32_t dev;
	DIR *d = opendir("/sys/dev/block");
	int rc = 0;

	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		FILE *f;

		if (sscanf(de->d_name, "%u:%u", &ma, &mi) != 2)
			continue;
		dev = VXT_SYSDEV_MKDEV(ma, mi);
		snprintf(path, sizeof(path), "/sys/dev/block/%s/partition", de->d_name);
		if (access(path, F_OK) == 0 || vxt_sysdev_is_mq(dev))
			continue;
		snprintf(path, sizeof(path), "/sys/dev/block/%s/size", de->d_name);
		f = fopen(path, "re");
		if (f) {
			bool empty = !fgets(line, sizeof(line), f) || atoll(line) == 0;

			fclose(f);
			if (empty)
				continue;	/* unused loop/zram slots etc. */
		}
		rc = select_dev(s, t, dev);
	}
	closedir(d);
	return rc;
}

/* Build "dev == A || (dev == B && sector >= x && sector < y)" for a level.
 * @return the length, 0 when no route of that level exists, or -E2BIG. */
static int build_filter(const struct tfs *t, bool bio, char *buf, size_t size)
{
	size_t i, len = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < t->nroute; i++) {
		const struct tfs_route *r = &t->route[i];

		if (r->bio != bio)
			continue;
		if (r->hi == UINT64_MAX)
			n = snprintf(buf + len, size - len, "%sdev == %u", len ? " || " : "",
				     r->dev);
		else
			n = snprintf(buf + len, size - len,
				     "%s(dev == %u && sector >= %llu && sector < %llu)",
				     len ? " || " : "", r->dev, (unsigned long long)r->lo,
				     (unsigned long long)r->hi);
		if (n < 0 || (size_t)n >= size - len)
			return -E2BIG;
		len += (size_t)n;
	}
	return (int)len;
}

/* ---- events ---- */

int vxt_tfs_enable_event(struct vxt_source *s, struct tfs *t, int k, const char *filter)
{
	struct tfs_evdesc *d = &t->ev[k];
	const char *name = tfs_event_names[k];

	if (filter && filter[0] &&
	    tracefs_event_file_write(t->inst, "block", name, "filter", filter) < 0)
		return vxt_source_seterr(s, -EINVAL, "tracefs: setting the filter of "
					 "block:%s to '%.200s' failed", name, filter);
	if (tracefs_event_enable(t->inst, "block", name) < 0)
		return vxt_source_seterr(s, -EIO, "tracefs: enabling block:%s failed", name);
	d->id = d->ev->id;
	return 0;
}

static int setup_event(struct vxt_source *s, struct tfs *t, int k, const char *filter)
{
	struct tfs_evdesc *d = &t->ev[k];
	const char *name = tfs_event_names[k];

	d->id = -1;
	d->ev = tep_find_event_by_name(t->tep, "block", name);
	if (!d->ev) {
		if (k == K_RQ_ERROR)
			return 0;	/* older kernels: errors come with rq_complete */
		return vxt_source_seterr(s, -ENOENT, "tracefs: the kernel has no block:%s "
					 "tracepoint", name);
	}
	d->dev = tep_find_field(d->ev, "dev");
	d->sector = tep_find_field(d->ev, "sector");
	d->nr_sector = tep_find_field(d->ev, "nr_sector");
	d->bytes = tep_find_field(d->ev, "bytes");
	d->error = tep_find_field(d->ev, "error");
	d->rwbs = tep_find_field(d->ev, "rwbs");
	d->comm = tep_find_field(d->ev, "comm");
	if (!d->dev || !d->sector || !d->nr_sector || !d->rwbs)
		return vxt_source_seterr(s, -EPROTO, "tracefs: block:%s lacks dev, sector, "
					 "nr_sector or rwbs", name);
	return vxt_tfs_enable_event(s, t, k, filter);
}

int vxt_tfs_setup_events(struct vxt_source *s, struct tfs *t)
{
	static char rqf[16384], biof[16384], qf[2 * 16384 + 16];
	int nrq, nbio, k, rc;
	bool rqlevel;

	nrq = build_filter(t, false, rqf, sizeof(rqf));
	nbio = build_filter(t, true, biof, sizeof(biof));
	if (nrq < 0 || nbio < 0)
		return vxt_source_seterr(s, -E2BIG, "tracefs: object list too long for a "
					 "tracefs filter");
	rqlevel = nrq > 0 || t->all;
	/* --phases all: block_bio_queue is also the queue phase of the
	 * request-level devices */
	if (!t->phases || !rqlevel || t->all)
		snprintf(qf, sizeof(qf), "%s", t->phases && t->all ? "" : biof);
	else if (nbio == 0)
		snprintf(qf, sizeof(qf), "%s", rqf);
	else
		snprintf(qf, sizeof(qf), "(%s) || (%s)", biof, rqf);
	for (k = 0; k < K_COUNT; k++) {
		bool bio = k == K_BIO_QUEUE || k == K_BIO_COMPLETE;

		t->ev[k].id = -1;
		if (k >= K_PHASE_FIRST) {
			/* a remap's dev is where the bio goes: a bio-based
			 * device too (dm over dm), so both levels' routes */
			if (t->phases && (rqlevel || nbio) &&
			    (rc = vxt_tfs_setup_phase(s, t, k, t->all ? "" : qf)) < 0)
				return rc;
			continue;
		}
		if (k == K_BIO_QUEUE && t->phases && rqlevel) {
			rc = setup_event(s, t, k, qf);
			if (rc < 0)
				return rc;
			continue;
		}
		if (bio ? nbio == 0 : (nrq == 0 && !t->all))
			continue;	/* no object at this level */
		rc = setup_event(s, t, k, bio ? biof : rqf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- fixed offsets ---- */

static int learn(struct vxt_source *s, const struct tfs_evdesc *d, const char *what,
		 const struct tep_format_field *f, bool number, struct tfs_fld *out,
		 unsigned *need)
{
	out->off = out->size = 0;
	if (!f)
		return 0;
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset < 0 || f->size <= 0 ||
	    f->offset + f->size > 0xffff ||
	    (number && f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return vxt_source_seterr(s, -EPROTO, "tracefs: block:%s: field %s has a "
					 "layout this reader does not know (offset %d, size %d%s)",
					 d->ev->name, what, f->offset, f->size,
					 f->flags & TEP_FIELD_IS_DYNAMIC ? ", dynamic" : "");
	out->off = (uint16_t)f->offset;
	out->size = (uint16_t)f->size;
	if ((unsigned)(f->offset + f->size) > *need)
		*need = (unsigned)(f->offset + f->size);
	return 0;
}

int vxt_tfs_learn_fields(struct vxt_source *s, struct tfs *t)
{
	for (int k = 0; k < K_COUNT; k++) {
		struct tfs_evdesc *d = &t->ev[k];
		unsigned need = 8;	/* the common fields: type, flags, pid */

		if (d->id < 0 || !d->ev)
			continue;
		if (learn(s, d, "dev", d->dev, true, &d->fdev, &need) < 0 ||
		    learn(s, d, "sector", d->sector, true, &d->fsector, &need) < 0 ||
		    learn(s, d, "nr_sector", d->nr_sector, true, &d->fnr_sector, &need) < 0 ||
		    learn(s, d, "bytes", d->bytes, true, &d->fbytes, &need) < 0 ||
		    learn(s, d, "error", d->error, true, &d->ferror, &need) < 0 ||
		    learn(s, d, "rwbs", d->rwbs, false, &d->frwbs, &need) < 0 ||
		    learn(s, d, "comm", d->comm, false, &d->fcomm, &need) < 0)
			return -EPROTO;
		if (d->new_sector && (unsigned)(d->new_sector->offset + d->new_sector->size) > need)
			need = (unsigned)(d->new_sector->offset + d->new_sector->size);
		d->need = need;
	}
	return 0;
}

/* ---- open / close ---- */

int vxt_tfs_open_cpus(struct vxt_source *s, struct tfs *t)
{
	struct epoll_event ee = { .events = EPOLLIN };
	char file[64], *path;
	int i, fd;

	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->epfd < 0 || t->timerfd < 0)
		return vxt_source_seterr(s, -errno, "tracefs: epoll/timerfd: %s",
					 strerror(errno));
	ee.data.u32 = UINT32_MAX;
	epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->timerfd, &ee);
	t->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (t->ncpu < 1)
		t->ncpu = 1;
	t->cpu = calloc((size_t)t->ncpu, sizeof(*t->cpu));
	if (!t->cpu)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	for (i = 0; i < t->ncpu; i++) {
		t->cpu[i].fd = -1;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", i);
		path = tracefs_instance_get_file(t->inst, file);
		if (!path)
			return vxt_source_seterr(s, -ENOMEM, "out of memory");
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		tracefs_put_tracing_file(path);
		if (fd < 0)
			continue;	/* CPU not present */
		t->cpu[i].fd = fd;
		ee.data.u32 = (uint32_t)i;
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ee) < 0)
			return vxt_source_seterr(s, -errno, "tracefs: epoll: %s",
						 strerror(errno));
	}
	return 0;
}

int vxt_tfs_setup_buffers(struct vxt_source *s, struct tfs *t, size_t bufsize)
{
	long long kb = 0;

	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0)
		return vxt_source_seterr(s, -EIO, "tracefs: the kernel has no 'mono' "
					 "trace clock");
	if (tracefs_instance_set_buffer_size(t->inst, (bufsize ? bufsize : TFS_DEFAULT_BUF) / 1024,
					     -1) < 0)
		return vxt_source_seterr(s, -ENOMEM, "tracefs: cannot set the ring size to "
					 "%zu bytes per CPU", bufsize ? bufsize : TFS_DEFAULT_BUF);
	t->ring_bytes = bufsize ? bufsize : TFS_DEFAULT_BUF;
	/* wake a poller on any data, not at half a ring */
	tracefs_instance_file_write(t->inst, "buffer_percent", "0");
	t->page_size = (size_t)getpagesize();
	if (tracefs_instance_file_read_number(t->inst, "buffer_subbuf_size_kb", &kb) == 0 &&
	    kb > 0)
		t->page_size = (size_t)kb * 1024;
	t->page = malloc(t->page_size);
	if (!t->page)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	return 0;
}

/* The parser knows the page header and the formats of the block events we
 * read, nothing else: tracefs_local_events_system() would also parse every
 * kernel symbol (/proc/kallsyms), most of what a short capture spent. */
int vxt_tfs_setup_parser(struct vxt_source *s, struct tfs *t)
{
	enum tep_endian host = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN :
			       TEP_LITTLE_ENDIAN;
	char *text;
	int size = 0;

	t->tep = tep_alloc();
	if (!t->tep)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	tep_set_file_bigendian(t->tep, host);
	tep_set_local_bigendian(t->tep, host);
	tep_set_long_size(t->tep, (int)sizeof(long));
	tep_set_page_size(t->tep, getpagesize());
	text = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!text || tep_parse_header_page(t->tep, text, (unsigned long)size,
					  (int)sizeof(long)) < 0) {
		free(text);
		return vxt_source_seterr(s, -EIO, "tracefs: cannot read the ring page "
					 "header format %s/events/header_page",
					 tracefs_tracing_dir());
	}
	free(text);
	for (int k = 0; k < K_COUNT; k++) {
		/* a tracepoint this kernel lacks has no format: setup_event() says so */
		text = tracefs_event_file_read(NULL, "block", tfs_event_names[k], "format", &size);
		if (!text)
			continue;
		if (tep_parse_event(t->tep, text, (unsigned long)size, "block") != 0) {
			free(text);
			return vxt_source_seterr(s, -EIO, "tracefs: cannot parse the format "
						 "%s/events/block/%s/format", tracefs_tracing_dir(),
						 tfs_event_names[k]);
		}
		free(text);
	}
	t->long_size = tep_get_header_page_size(t->tep) == 4 ? 4 : 8;
	t->big = tep_is_file_bigendian(t->tep);
	return 0;
}

int vxt_tfs_select_objects(struct vxt_source *s, struct tfs *t, const char *objects)
{
	uint32_t devs[TFS_MAX_OBJS];
	char err[VXT_ERRBUF_SIZE];
	int n, i, rc;

	t->all = !objects || !objects[0];
	if (t->all)
		return select_bio_devices(s, t);
	n = vxt_sysdev_resolve(objects, devs, TFS_MAX_OBJS, err);
	if (n < 0)
		return vxt_source_seterr(s, n, "%s", err);
	/* partitions first: they win over their disk for their range */
	for (i = 0; i < n; i++) {
		uint32_t disk;
		uint64_t start;

		if (vxt_sysdev_partition(devs[i], &disk, &start) == 1 &&
		    (rc = select_dev(s, t, devs[i])) < 0)
			return rc;
	}
	for (i = 0; i < n; i++) {
		uint32_t disk;
		uint64_t start;

		if (vxt_sysdev_partition(devs[i], &disk, &start) != 1 &&
		    (rc = select_dev(s, t, devs[i])) < 0)
			return rc;
	}
	return 0;
}
