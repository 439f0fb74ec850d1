/* source_blktrace.c - import blktrace captures as a capture source
 * Over 700 lines: the importer's per-CPU merge, record decoding and remap state share one capture's state.
 *
 * The "blktrace" source reads opts->path: a prefix ("dir/sda" meaning
 * dir/sda.blktrace.0, .1, ...), a comma-separated list of files (per-CPU
 * files or `blkparse -d` dumps), or "-" for standard input. Several files
 * are merged in time order. Each record becomes one event as listed in
 * formats/blktrace-import.md; notes name processes (PROCESS), anchor the
 * wall clock (TIMESTAMP) or become marks (MESSAGE); bounce, abort and driver
 * data records are counted and reported as skipped in the source's note.
 *
 * A damaged input (wrong magic, absurd payload length, truncated record)
 * ends the import with "FILE: offset N: what" after every event before it
 * has been handed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/blktrace.h"
#include "vxtrace/heap.h"
#include "vxtrace/iopair.h"
#include "vxtrace/util.h"
#include "source/source_impl.h"

#define BLK_BUF		(1u << 20)	/* read buffer per input */
#define BLK_BATCH	65536		/* events per next() */
#define BLK_MAX_IN	1024
#define BLK_PIDS	4096		/* pid -> comm cache slots (power of two) */

struct blk_in {
	char *path;
	char name[32];		/* object name for its first device ("" = none) */
	int fd;
	unsigned char *buf;
	size_t pos, len;	/* unread bytes are buf[pos, len) */
	uint64_t off;		/* file offset of buf[pos] */
	bool eof;
	enum vxt_blk_order order;
	bool has;		/* head holds the next record */
	struct vxt_blk_rec head;
	const unsigned char *pdu;	/* head's payload, valid until the next fill */
};

struct blk_pid {
	uint32_t pid, comm;
};

/* A record waiting in the reorder window (standard input only). */
struct blk_item {
	struct vxt_blk_rec r;
	uint64_t seq;		/* arrival order, for equal times */
	uint32_t strid;		/* MESSAGE marks: the text */
	bool mark;
	bool remap;		/* a remap's payload: where the bio came from */
	uint32_t from_dev;
	uint64_t from_sector;
};

struct blk {
	struct blk_in *in;
	size_t nin;
	struct vxt_iopair *pair;
	struct blk_pid pids[BLK_PIDS];
	uint64_t skipped[VXT_BLK_TA_NR + 1];
	uint64_t nskipped, nevents;
	int err;		/* error to return once the events before it are out */
	bool anchored;
	int64_t last_obj;
	uint32_t last_dev;
	bool ended;		/* no more input (end or error) */
	/* reorder window for a stream, whose records may come out of order */
	bool reorder;
	struct blk_item *heap;
	size_t nheap, capheap;
	uint64_t seq, maxt;
};

/* ---- input ---- */

/* Make @need bytes available at in->buf + in->pos. @return 1, 0 at a clean
 * end of input (nothing left), -EPIPE if the input ends inside, or -errno. */
static int in_fill(struct blk_in *in, size_t need)
{
	ssize_t n;

	while (in->len - in->pos < need) {
		if (in->eof)
			return in->len == in->pos ? 0 : -EPIPE;
		if (in->pos) {
			memmove(in->buf, in->buf + in->pos, in->len - in->pos);
			in->len -= in->pos;
			in->pos = 0;
		}
		n = read(in->fd, in->buf + in->len, BLK_BUF - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			in->eof = true;
		in->len += (size_t)n;
	}
	return 1;
}

static int in_error(struct vxt_source *s, struct blk_in *in, int rc, const char *what)
{
	return vxt_source_seterr(s, rc, "%s: offset %llu: %s", in->path,
				 (unsigned long long)in->off, what);
}

static bool magic_ok(const unsigned char *p)
{
	uint32_t le = (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
	uint32_t be = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];

	return (le & 0xffffff00u) == VXT_BLK_MAGIC || (be & 0xffffff00u) == VXT_BLK_MAGIC;
}

/* Load the next record of @in into in->head. @return 1, 0 at the end, or a
 * negative errno with the message set. */
static int in_advance(struct vxt_source *s, struct blk_in *in)
{
	char what[128];
	int rc;

	if (in->has) {
		in->pos += VXT_BLK_HDR_SIZE + in->head.pdu_len;
		in->off += VXT_BLK_HDR_SIZE + in->head.pdu_len;
		in->has = false;
	}
	rc = in_fill(in, VXT_BLK_HDR_SIZE);
	if (rc == 0)
		return 0;
	if (rc == -EPIPE && in->len - in->pos >= 4 && !magic_ok(in->buf + in->pos)) {
		const unsigned char *p = in->buf + in->pos;

		snprintf(what, sizeof(what), "bad magic %02x%02x%02x%02x (not a blktrace "
			 "record)", p[0], p[1], p[2], p[3]);
		return in_error(s, in, -EBADMSG, what);
	}
	if (rc == -EPIPE)
		return in_error(s, in, -EPIPE, "truncated record header");
	if (rc < 0)
		return in_error(s, in, rc, strerror(-rc));
	rc = vxt_blk_decode(in->buf + in->pos, &in->order, &in->head);
	if (rc == -EBADMSG) {
		const unsigned char *p = in->buf + in->pos;

		snprintf(what, sizeof(what), "bad magic %02x%02x%02x%02x (not a blktrace "
			 "record)", p[0], p[1], p[2], p[3]);
		return in_error(s, in, rc, what);
	}
	if (rc == -EPROTONOSUPPORT) {
		snprintf(what, sizeof(what), "unsupported blktrace version %u (want %u)",
			 in->head.magic & 0xff, VXT_BLK_VERSION);
		return in_error(s, in, rc, what);
	}
	if (rc == -E2BIG) {
		snprintf(what, sizeof(what), "absurd pdu_len %u (at most %u)",
			 in->head.pdu_len, VXT_BLK_PDU_MAX);
		return in_error(s, in, -EBADMSG, what);
	}
	rc = in_fill(in, VXT_BLK_HDR_SIZE + in->head.pdu_len);
	if (rc <= 0)
		return in_error(s, in, rc == 0 || rc == -EPIPE ? -EPIPE : rc,
				"truncated record payload");
	in->pdu = in->buf + in->pos + VXT_BLK_HDR_SIZE;
	in->has = true;
	return 1;
}

static int add_input(struct vxt_source *s, struct blk *b, const char *path, const char *name)
{
	struct blk_in *in, *grown;

	if (b->nin == BLK_MAX_IN)
		return vxt_source_seterr(s, -E2BIG, "blktrace: more than %d input files",
					 BLK_MAX_IN);
	grown = realloc(b->in, (b->nin + 1) * sizeof(*b->in));
	if (!grown)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	b->in = grown;
	in = &b->in[b->nin++];
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = strdup(path);
	in->buf = malloc(BLK_BUF);
	if (!in->path || !in->buf)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	snprintf(in->name, sizeof(in->name), "%s", name ? name : "");
	if (!strcmp(path, "-")) {
		in->fd = STDIN_FILENO;
		free(in->path);
		in->path = strdup("<stdin>");
		return in->path ? 0 : vxt_source_seterr(s, -ENOMEM, "out of memory");
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		return vxt_source_seterr(s, -errno, "%s: %s", path, strerror(errno));
	posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

/* "dir/sda.blktrace.3" -> "sda"; other names give "". */
static void name_from_file(const char *path, char name[32])
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strstr(base, ".blktrace.");
	name[0] = '\0';
	if (dot && dot > base && (size_t)(dot - base) < 32)
		snprintf(name, 32, "%.*s", (int)(dot - base), base);
}

static int cmp_cpu_files(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '.'), *y = strrchr(*(char *const *)b, '.');

	return atoi(x + 1) - atoi(y + 1);
}

/* A prefix "dir/sda": every dir/sda.blktrace.N in CPU order. */
static int add_prefix(struct vxt_source *s, struct blk *b, const char *prefix)
{
	char pat[4096], name[32];
	glob_t g;
	size_t i;
	int rc = 0;

	snprintf(pat, sizeof(pat), "%s.blktrace.[0-9]*", prefix);
	if (glob(pat, 0, NULL, &g) != 0)
		return vxt_source_seterr(s, -ENOENT, "blktrace: no such file or prefix: %s "
					 "(looked for %s and %s.blktrace.N)", prefix, prefix,
					 prefix);
	qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_cpu_files);
	for (i = 0; rc == 0 && i < g.gl_pathc; i++) {
		name_from_file(g.gl_pathv[i], name);
		rc = add_input(s, b, g.gl_pathv[i], name);
	}
	globfree(&g);
	return rc;
}

static int add_inputs(struct vxt_source *s, struct blk *b, const char *spec)
{
	char *copy, *item, *save = NULL, name[32];
	struct stat st;
	int rc = 0;

	if (!spec || !spec[0])
		return vxt_source_seterr(s, -EINVAL, "blktrace: no input (give a prefix, "
					 "files or -)");
	copy = strdup(spec);
	if (!copy)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	for (item = strtok_r(copy, ",", &save); rc == 0 && item;
	     item = strtok_r(NULL, ",", &save)) {
		if (!strcmp(item, "-")) {
			rc = add_input(s, b, item, NULL);
		} else if (stat(item, &st) == 0 && !S_ISDIR(st.st_mode)) {
			name_from_file(item, name);
			rc = add_input(s, b, item, name);
		} else {
			rc = add_prefix(s, b, item);
		}
	}
	free(copy);
	return rc;
}

/* ---- records -> events ---- */

static uint32_t *pid_slot_comm(struct blk *b, uint32_t pid, bool create)
{
	struct blk_pid *p = &b->pids[(pid * 2654435761u) >> 20 & (BLK_PIDS - 1)];

	if (p->pid == pid && p->comm)
		return &p->comm;
	if (!create)
		return NULL;
	p->pid = pid;
	p->comm = 0;
	return &p->comm;
}

static void note_process(struct vxt_source *s, struct blk *b, const struct vxt_blk_rec *r,
			 const unsigned char *pdu, size_t len)
{
	int64_t id = vxt_strtab_intern(s->strs, (const char *)pdu, strnlen((const char *)pdu, len));

	if (id > 0)
		*pid_slot_comm(b, r->pid, true) = (uint32_t)id;
}

static int64_t object_of(struct vxt_source *s, struct blk *b, struct blk_in *in, uint32_t dev)
{
	char name[32];
	int64_t id;

	if (dev == b->last_dev && b->last_obj >= 0)
		return b->last_obj;
	id = vxt_objtab_find_dev(s->objs, dev);
	if (id < 0) {
		if (in->name[0]) {
			snprintf(name, sizeof(name), "%s", in->name);
			in->name[0] = '\0';	/* the file's own device only */
		} else {
			snprintf(name, sizeof(name), "%u:%u", dev >> 20, dev & 0xfffff);
		}
		id = vxt_objtab_add(s->objs, dev, name, vxt_obj_kind_guess(name), 0);
		if (id < 0)
			return id;
	}
	b->last_dev = dev;
	b->last_obj = id;
	return id;
}

static const signed char act_phase[VXT_BLK_TA_NR] = {
	[VXT_BLK_TA_QUEUE] = VXT_PH_QUEUE,
	[VXT_BLK_TA_BACKMERGE] = VXT_PH_MERGE,
	[VXT_BLK_TA_FRONTMERGE] = VXT_PH_MERGE,
	[VXT_BLK_TA_GETRQ] = VXT_PH_GETRQ,
	[VXT_BLK_TA_SLEEPRQ] = VXT_PH_GETRQ,
	[VXT_BLK_TA_REQUEUE] = VXT_PH_REQUEUE,
	[VXT_BLK_TA_ISSUE] = VXT_PH_START,
	[VXT_BLK_TA_COMPLETE] = VXT_PH_DONE,
	[VXT_BLK_TA_PLUG] = VXT_PH_PLUG,
	[VXT_BLK_TA_UNPLUG_IO] = VXT_PH_UNPLUG,
	[VXT_BLK_TA_UNPLUG_TIMER] = VXT_PH_UNPLUG,
	[VXT_BLK_TA_INSERT] = VXT_PH_INSERT,
	[VXT_BLK_TA_SPLIT] = VXT_PH_SPLIT,
	[VXT_BLK_TA_BOUNCE] = -1,
	[VXT_BLK_TA_REMAP] = VXT_PH_REMAP,
	[VXT_BLK_TA_ABORT] = -1,
	[VXT_BLK_TA_DRV_DATA] = -1,
};

/* ---- reorder window ---- */

static bool item_before(const void *ctx, const struct blk_item *a, const struct blk_item *b)
{
	(void)ctx;
	return a->r.time < b->r.time || (a->r.time == b->r.time && a->seq < b->seq);
}

VXT_HEAP_DEFINE(item_heap, struct blk_item, const void *, item_before)

static int heap_push(struct blk *b, const struct blk_item *item)
{
	struct blk_item it = *item;

	if (b->nheap == b->capheap &&
	    vxt_grow(&b->heap, &b->capheap, b->nheap + 1, sizeof(*b->heap)) < 0)
		return -ENOMEM;
	it.seq = b->seq++;
	item_heap_push(b->heap, &b->nheap, &it, NULL);
	if (item->r.time > b->maxt)
		b->maxt = item->r.time;
	return 0;
}

static struct blk_item heap_pop(struct blk *b)
{
	struct blk_item top = b->heap[0];

	item_heap_pop(b->heap, &b->nheap, NULL);
	return top;
}

/* ---- records -> events ---- */

/* One record (an I/O action or a MESSAGE mark) -> one event in @out. */
static int convert(struct vxt_source *s, struct blk *b, struct blk_in *in,
		   const struct blk_item *it, struct vxt_batch *out)
{
	const struct vxt_blk_rec *r = &it->r;
	unsigned act = r->action & 0xff;
	struct vxt_iopair_val v = { r->time, r->pid, 0 };
	struct vxt_event *e;
	uint32_t *comm;
	int16_t err;
	int64_t id;

	id = object_of(s, b, in, r->device);
	if (id < 0)
		return (int)id;
	e = vxt_batch_push(out);
	if (!e)
		return -ENOMEM;
	b->nevents++;
	e->time_ns = r->time;
	e->object = (uint32_t)id;
	e->pid = r->pid;
	e->cpu = (uint16_t)r->cpu;
	if (it->mark) {
		e->phase = VXT_PH_MARK;
		e->op = VXT_OP_OTHER;
		e->comm = it->strid;
		return 0;
	}
	e->sector = r->sector;
	e->bytes = r->bytes;
	e->phase = (uint8_t)act_phase[act];
	vxt_blk_op_flags(r, &e->op, &e->flags);
	comm = pid_slot_comm(b, r->pid, false);
	e->comm = comm ? *comm : 0;
	v.comm = e->comm;
	switch (e->phase) {
	case VXT_PH_REMAP:
		if (it->remap && it->from_dev) {
			/* the source device becomes an object (named by its
			 * number) so the exporter can write the remap back */
			id = object_of(s, b, in, it->from_dev);
			if (id < 0)
				return (int)id;
			e->remap_from = vxt_remap_from_pack((uint32_t)id, it->from_sector);
		}
		return 0;
	case VXT_PH_START:
		return vxt_iopair_put(b->pair, r->device, r->sector, r->bytes, &v);
	case VXT_PH_REQUEUE:
		vxt_iopair_take(b->pair, r->device, r->sector, r->bytes, &v);
		return 0;
	case VXT_PH_DONE:
		err = (int16_t)r->error;
		e->error = err > 0 ? (int16_t)-err : err;
		if (vxt_iopair_take(b->pair, r->device, r->sector, r->bytes, &v)) {
			e->latency_ns = r->time >= v.time_ns ? r->time - v.time_ns : 0;
			e->pid = v.pid;
			e->comm = v.comm;
		}
		return 0;
	}
	return 0;
}

static int deliver(struct vxt_source *s, struct blk *b, struct blk_in *in,
		   const struct blk_item *it, struct vxt_batch *out)
{
	if (b->reorder)
		return heap_push(b, it);
	return convert(s, b, in, it, out);
}

/* Notes act at once (names and the clock are needed by later records);
 * a MESSAGE becomes a mark in time order. */
static int handle_notify(struct vxt_source *s, struct blk *b, struct blk_in *in,
			 struct vxt_batch *out)
{
	const struct vxt_blk_rec *r = &in->head;
	const unsigned char *pdu = in->pdu;
	size_t len = r->pdu_len;
	int64_t id;

	if ((r->action & VXT_BLK_TA_CGROUP) && len >= 8) {
		pdu += 8;
		len -= 8;
	}
	switch (r->action & 0xff) {
	case VXT_BLK_TN_PROCESS:
		note_process(s, b, r, pdu, len);
		return 0;
	case VXT_BLK_TN_TIMESTAMP:
		if (len >= 8 && !b->anchored) {
			s->clock_mono = r->time;
			s->clock_real = vxt_blk_u32(pdu, in->order) * VXT_NSEC_PER_SEC +
					vxt_blk_u32(pdu + 4, in->order);
			b->anchored = true;
		}
		return 0;
	case VXT_BLK_TN_MESSAGE:
		id = vxt_strtab_intern(s->strs, (const char *)pdu, strnlen((const char *)pdu, len));
		return deliver(s, b, in,
			       &(struct blk_item){ .r = *r, .strid = id > 0 ? (uint32_t)id : 0,
						   .mark = true }, out);
	}
	b->skipped[VXT_BLK_TA_NR]++;
	b->nskipped++;
	return 0;
}

static int handle_record(struct vxt_source *s, struct blk *b, struct blk_in *in,
			 struct vxt_batch *out)
{
	const struct vxt_blk_rec *r = &in->head;
	unsigned act = r->action & 0xff;
	struct blk_item it = { .r = *r };

	if ((r->action >> VXT_BLK_TC_SHIFT) & VXT_BLK_TC_NOTIFY)
		return handle_notify(s, b, in, out);
	if (act >= VXT_BLK_TA_NR || act == 0 || act_phase[act] < 0) {
		b->skipped[act < VXT_BLK_TA_NR ? act : 0]++;
		b->nskipped++;
		return 0;
	}
	if (act == VXT_BLK_TA_REMAP) {
		const unsigned char *pdu = in->pdu;
		size_t len = r->pdu_len;

		if ((r->action & VXT_BLK_TA_CGROUP) && len >= 8) {
			pdu += 8;
			len -= 8;
		}
		/* struct blk_io_trace_remap: big-endian whatever the machine */
		if (len >= VXT_BLK_REMAP_PDU) {
			it.remap = true;
			it.from_dev = vxt_blk_u32(pdu, VXT_BLK_ORDER_BE);
			it.from_sector = (uint64_t)vxt_blk_u32(pdu + 8, VXT_BLK_ORDER_BE) << 32 |
					 vxt_blk_u32(pdu + 12, VXT_BLK_ORDER_BE);
		}
	}
	return deliver(s, b, in, &it, out);
}

/* The input whose head is oldest, or NULL when all are done. */
static struct blk_in *oldest(struct blk *b)
{
	struct blk_in *best = NULL;
	size_t i;

	for (i = 0; i < b->nin; i++)
		if (b->in[i].has && (!best || b->in[i].head.time < best->head.time))
			best = &b->in[i];
	return best;
}

static void set_note(struct vxt_source *s, struct blk *b)
{
	static const char *const what[VXT_BLK_TA_NR + 1] = {
		[0] = "unknown", [VXT_BLK_TA_BOUNCE] = "bounce", [VXT_BLK_TA_ABORT] = "abort",
		[VXT_BLK_TA_DRV_DATA] = "driver data", [VXT_BLK_TA_NR] = "unknown note",
	};
	size_t len;
	int i;

	if (!b->nskipped) {
		s->note[0] = '\0';
		return;
	}
	len = (size_t)snprintf(s->note, sizeof(s->note), "%llu blktrace records skipped (",
			       (unsigned long long)b->nskipped);
	for (i = 0; i <= VXT_BLK_TA_NR && len < sizeof(s->note); i++)
		if (b->skipped[i])
			len += (size_t)snprintf(s->note + len, sizeof(s->note) - len, "%s%s %llu",
						s->note[len - 1] == '(' ? "" : ", ",
						what[i] ? what[i] : "other",
						(unsigned long long)b->skipped[i]);
	if (len < sizeof(s->note))
		snprintf(s->note + len, sizeof(s->note) - len, ")");
}

/*
 * Records go out in time order: files are merged by their next record's
 * time; a stream (standard input) passes a reorder window of VXT_BLKTRACE_REORDER_NS of
 * trace time. After a damaged record, everything before it is handed out,
 * then the error is returned.
 */
static int blk_next(struct vxt_source *s, struct vxt_batch *out, int timeout_ms)
{
	struct blk *b = s->priv;
	struct blk_in *in;
	size_t n0 = out->n;
	int rc;

	(void)timeout_ms;
	while (out->n - n0 < BLK_BATCH) {
		if (b->nheap && (b->ended || b->heap[0].r.time + VXT_BLKTRACE_REORDER_NS <= b->maxt)) {
			struct blk_item it = heap_pop(b);

			rc = convert(s, b, &b->in[0], &it, out);
			if (rc < 0)
				return vxt_source_seterr(s, rc, "blktrace: %s", strerror(-rc));
			continue;
		}
		if (b->ended)
			break;
		in = oldest(b);
		if (!in) {
			b->ended = true;
			continue;
		}
		rc = handle_record(s, b, in, out);
		if (rc < 0)
			return vxt_source_seterr(s, rc, "blktrace: %s", strerror(-rc));
		rc = in_advance(s, in);
		if (rc < 0) {
			b->err = rc;	/* hand out what came before first */
			in->has = false;
			b->ended = true;
		}
	}
	set_note(s, b);
	if (out->n > n0)
		return 1;
	return b->err;
}

static void blk_close(struct vxt_source *s)
{
	struct blk *b = s->priv;
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nin; i++) {
		if (b->in[i].fd > STDIN_FILENO)
			close(b->in[i].fd);
		free(b->in[i].path);
		free(b->in[i].buf);
	}
	free(b->in);
	free(b->heap);
	vxt_iopair_free(b->pair);
	free(b);
	s->priv = NULL;
}

/* No TIMESTAMP note: take the wall clock of the first file's last change as
 * the time of its last... nothing better is known; anchor at the first event. */
static void anchor_from_file(struct vxt_source *s, struct blk *b)
{
	struct stat st;
	struct blk_in *first = oldest(b);

	if (!first)
		return;
	s->clock_mono = first->head.time;
	if (b->in[0].fd > STDIN_FILENO && fstat(b->in[0].fd, &st) == 0)
		s->clock_real = (uint64_t)st.st_mtim.tv_sec * VXT_NSEC_PER_SEC +
				(uint64_t)st.st_mtim.tv_nsec;
}

/* Look ahead in the buffered head of each input for the TIMESTAMP note,
 * which blktrace writes first; so the anchor is known before any event. */
static void find_anchor(struct vxt_source *s, struct blk *b)
{
	struct vxt_blk_rec r;
	enum vxt_blk_order o;
	size_t i, pos;
	int k;

	for (i = 0; i < b->nin && !b->anchored; i++) {
		struct blk_in *in = &b->in[i];

		o = in->order;
		for (pos = in->pos, k = 0; k < 64 && pos + VXT_BLK_HDR_SIZE <= in->len; k++) {
			if (vxt_blk_decode(in->buf + pos, &o, &r) < 0 ||
			    pos + VXT_BLK_HDR_SIZE + r.pdu_len > in->len)
				break;
			if (((r.action >> VXT_BLK_TC_SHIFT) & VXT_BLK_TC_NOTIFY) &&
			    (r.action & 0xff) == VXT_BLK_TN_TIMESTAMP && r.pdu_len >= 8) {
				const unsigned char *pdu = in->buf + pos + VXT_BLK_HDR_SIZE;

				if (r.action & VXT_BLK_TA_CGROUP && r.pdu_len >= 16)
					pdu += 8;
				s->clock_mono = r.time;
				s->clock_real = vxt_blk_u32(pdu, o) * VXT_NSEC_PER_SEC +
						vxt_blk_u32(pdu + 4, o);
				b->anchored = true;
				break;
			}
			pos += VXT_BLK_HDR_SIZE + r.pdu_len;
		}
	}
	if (!b->anchored)
		anchor_from_file(s, b);
}

static int blk_open(struct vxt_source *s, const struct vxt_source_opts *opts)
{
	struct blk *b = calloc(1, sizeof(*b));
	size_t i;
	int rc;

	if (!b)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	s->priv = b;
	b->last_obj = -1;
	s->all_phases = true;	/* blktrace records every phase it sees */
	b->pair = vxt_iopair_new();
	if (!b->pair)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	rc = add_inputs(s, b, opts->path);
	if (rc < 0)
		return rc;
	for (i = 0; i < b->nin; i++) {
		rc = in_advance(s, &b->in[i]);
		if (rc < 0)
			return rc;	/* unreadable from the first record on */
	}
	find_anchor(s, b);
	b->reorder = b->nin == 1 && b->in[0].fd == STDIN_FILENO;
	return 0;
}

static int blk_probe(void)
{
	return -ENOTSUP;	/* an import, never a default */
}

const struct vxt_source_ops vxt_source_blktrace_ops = {
	.name = "blktrace",
	.open = blk_open,
	.next = blk_next,
	.close = blk_close,
	.probe = blk_probe,
};
