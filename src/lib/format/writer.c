/* writer.c - writing .vxt files
 *
 * Events gather in memory until the chunk is full (chunk_bytes of raw
 * events) or spans chunk_ns; then they are encoded column by column,
 * compressed as one zstd frame, and written with their index entry in a
 * single write, so a crash leaves at most one torn unit at the tail.
 * Invariant: everything before w->offset is complete and durable as far as
 * the chosen sync mode promises.
 * Each file has a string table of its own (w->fstrs), holding only the names
 * its events refer to, at most VXT_FILE_STRINGS_MAX of them: the caller's ids
 * are mapped to the file's through w->smap, so a rotated file's header holds
 * at most VXT_HEADER_STRINGS of them and no file holds more strings than its
 * reader accepts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include "format/codec.h"
#include "format/vxtfile.h"
#include "vxtrace/outfile.h"
#include "vxtrace/util.h"

struct vxt_writer {
	int fd;
	char *path;
	struct vxt_writer_opts opts;
	struct vxt_objtab *objs;
	struct vxt_strtab *strs;	/* the caller's */
	struct vxt_strtab *fstrs;	/* this file's */
	uint32_t *smap;			/* caller's id -> this file's id + 1, 0 = not yet */
	size_t smap_cap;
	size_t objs_written, strs_written;
	ZSTD_CCtx *cctx;
	struct vxt_event *ev;		/* the open chunk */
	size_t nev, cap;
	uint64_t chunk_opened;		/* monotonic wall time the open chunk got its first event */
	uint8_t *raw, *comp;
	size_t raw_cap, comp_cap;
	struct vxt_objagg *agg;		/* by object id, scratch */
	size_t agg_cap;
	struct vxt_buf footer;		/* copies of every chunk entry */
	uint32_t nchunks;
	uint64_t offset;
	struct vxt_writer_stats st;
	int failed;
	char err[VXT_ERRBUF_SIZE];
};

static int seterr(struct vxt_writer *w, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int seterr(struct vxt_writer *w, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(w->err, sizeof(w->err), "%s: ", w->path);

	va_start(ap, fmt);
	vsnprintf(w->err + n, sizeof(w->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

static int write_all(struct vxt_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			w->failed = -errno;
			return seterr(w, w->failed, "write at offset %llu: %s",
				      (unsigned long long)w->offset, strerror(errno));
		}
		p += n;
		len -= (size_t)n;
		w->offset += (uint64_t)n;
		w->st.file_bytes += (uint64_t)n;
	}
	return 0;
}

static int write_header(struct vxt_writer *w)
{
	struct vxt_buf b = { 0 };
	struct utsname un;
	const struct vxt_writer_opts *o = &w->opts;
	uint64_t now_real = vxt_now_real(), now_mono = vxt_now_mono();
	size_t start;
	int rc;

	start = vxt_unit_begin(&b, VXT_UNIT_HEADER, VXT_TAG_HEADER);
	vxt_buf_u32(&b, VXT_FORMAT_VERSION);
	vxt_buf_u32(&b, (o->profile && *o->profile ?
		     VXT_COMPAT_PROFILE | (o->kernel_spec ? VXT_COMPAT_KSPEC : 0) : 0) |
		    (o->all_phases ? VXT_COMPAT_PHASES : 0));
	vxt_buf_u32(&b, VXT_INCOMPAT_COLUMN_FRAMES);	/* incompat */
	vxt_buf_u32(&b, 0);			/* reserved */
	vxt_buf_u64(&b, o->anchor_real_ns ? o->anchor_real_ns : now_real);
	vxt_buf_u64(&b, o->anchor_mono_ns ? o->anchor_mono_ns : now_mono);
	vxt_buf_u64(&b, o->anchor_real_ns ? o->anchor_real_ns : now_real);
	if (!o->host && uname(&un) == 0)
		vxt_buf_str(&b, un.nodename, 64);
	else
		vxt_buf_str(&b, o->host, 64);
	vxt_buf_str(&b, o->source, 32);
	vxt_buf_str(&b, o->profile, 64);
	vxt_buf_str(&b, o->command, 256);
	vxt_put_objects(&b, w->objs, 0);
	vxt_put_strings(&b, w->fstrs, 0);
	vxt_unit_end(&b, start);
	w->objs_written = vxt_objtab_count(w->objs);
	w->strs_written = vxt_strtab_count(w->fstrs);
	rc = b.err ? seterr(w, b.err, "out of memory") : write_all(w, b.p, b.len);
	vxt_buf_free(&b);
	return rc;
}

static int64_t file_string(struct vxt_writer *w, uint32_t id);

/* The header holds the first VXT_HEADER_STRINGS names the caller knows, so a
 * file's ids are the caller's for them; later names come as events use them. */
static int seed_strings(struct vxt_writer *w)
{
	size_t n = vxt_strtab_count(w->strs);

	if (n > VXT_HEADER_STRINGS)
		n = VXT_HEADER_STRINGS;
	for (size_t id = 1; id < n; id++)
		if (file_string(w, (uint32_t)id) < 0)
			return -ENOMEM;
	return 0;
}

struct vxt_writer *vxt_writer_open(const char *path, const struct vxt_writer_opts *opts,
				   struct vxt_objtab *objs, struct vxt_strtab *strs,
				   char err[VXT_ERRBUF_SIZE])
{
	struct vxt_writer *w = calloc(1, sizeof(*w));
	bool created = false;

	if (!w || !(w->path = strdup(path))) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		free(w);
		return NULL;
	}
	w->fd = -1;
	w->opts = *opts;
	w->objs = objs;
	w->strs = strs;
	if (!w->opts.level)
		w->opts.level = 1;	/* the event columns come out as small as at 3, in less time */
	if (!w->opts.chunk_bytes)
		w->opts.chunk_bytes = 1u << 20;
	if (!w->opts.chunk_ns)
		w->opts.chunk_ns = VXT_NSEC_PER_SEC;
	w->cap = w->opts.chunk_bytes / sizeof(struct vxt_event);
	if (w->cap < 1)
		w->cap = 1;
	if (w->cap > VXT_CHUNK_EVENTS_MAX)
		w->cap = VXT_CHUNK_EVENTS_MAX;
	w->fd = vxt_outfile_open(path, &(struct vxt_outfile_opts){
					.force = opts->force,
					.follow_symlink = opts->follow_symlink,
					.input = opts->input,
					.lock = true },
				 &created, err, VXT_ERRBUF_SIZE);
	if (w->fd < 0)
		goto fail;
	w->ev = malloc(w->cap * sizeof(*w->ev));
	w->raw_cap = VXT_CODEC_BOUND(w->cap);
	w->raw = malloc(w->raw_cap);
	/* one frame per column: each frame's bound adds its own overhead */
	w->comp_cap = ZSTD_compressBound(w->raw_cap) + VXT_CODEC_COLUMNS * 64;
	w->comp = malloc(w->comp_cap);
	w->cctx = ZSTD_createCCtx();
	w->fstrs = vxt_strtab_new();
	if (w->fstrs)
		vxt_strtab_set_limit(w->fstrs, VXT_FILE_STRINGS_MAX);
	if (!w->ev || !w->raw || !w->comp || !w->cctx || !w->fstrs) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		goto fail;
	}
	if (seed_strings(w) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		goto fail;
	}
	if (write_header(w) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s", w->err);
		goto fail;
	}
	return w;
fail:
	if (w->fd >= 0) {
		close(w->fd);
		if (created)
			unlink(path);
	}
	ZSTD_freeCCtx(w->cctx);
	vxt_strtab_free(w->fstrs);
	free(w->smap);
	free(w->ev);
	free(w->raw);
	free(w->comp);
	free(w->path);
	free(w);
	return NULL;
}

/* Build the per-object aggregates of the open chunk into w->agg (by id).
 * @return the number of objects present, or -ENOMEM. */
static int aggregate(struct vxt_writer *w, struct vxt_buf *b, uint32_t *nerrors, uint64_t *nlost)
{
	size_t nobj = vxt_objtab_count(w->objs);
	uint32_t present = 0;

	if (nobj > w->agg_cap) {
		struct vxt_objagg *a = realloc(w->agg, nobj * sizeof(*a));

		if (!a)
			return -ENOMEM;
		w->agg = a;
		w->agg_cap = nobj;
	}
	memset(w->agg, 0, nobj * sizeof(*w->agg));
	for (size_t i = 0; i < nobj; i++)
		w->agg[i].object = UINT32_MAX;	/* absent */
	for (size_t i = 0; i < w->nev; i++) {
		const struct vxt_event *e = &w->ev[i];
		struct vxt_objagg *a;

		if (e->phase == VXT_PH_LOST) {
			*nlost += e->sector;
			continue;
		}
		if (e->object >= nobj)
			continue;
		a = &w->agg[e->object];
		if (a->object == UINT32_MAX) {
			a->object = e->object;
			present++;
		}
		if (vxt_objagg_add(a, e))
			(*nerrors)++;
	}
	vxt_buf_u32(b, present);
	for (size_t i = 0; i < nobj; i++)
		if (w->agg[i].object != UINT32_MAX)
			vxt_put_objagg(b, &w->agg[i]);
	return (int)present;
}

/* Compress each column of the encoded block as a zstd frame of its own
 * (declaring its size), back to back in w->comp: a reader decompresses only
 * the columns it needs, and each column compresses a little better alone.
 * @return the bytes of the frames, or a zstd error code. */
static size_t compress_columns(struct vxt_writer *w)
{
	const uint8_t *col = w->raw + 4 * VXT_CODEC_COLUMNS;
	size_t out = 0;

	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		size_t clen = vxt_le32(w->raw + 4 * c), k;

		k = ZSTD_compressCCtx(w->cctx, w->comp + out, w->comp_cap - out, col, clen,
				      w->opts.level);
		if (ZSTD_isError(k))
			return k;
		out += k;
		col += clen;
	}
	return out;
}

int vxt_writer_flush(struct vxt_writer *w)
{
	struct vxt_buf b = { 0 };
	size_t raw_len, comp_len, start;
	uint64_t first_ns = UINT64_MAX, last_ns = 0, nlost = 0;
	uint32_t nerrors = 0;
	int rc;

	if (w->failed)
		return w->failed;
	if (!w->nev)
		return 0;
	for (size_t i = 0; i < w->nev; i++) {
		if (w->ev[i].time_ns < first_ns)
			first_ns = w->ev[i].time_ns;
		if (w->ev[i].time_ns > last_ns)
			last_ns = w->ev[i].time_ns;
	}
	raw_len = vxt_codec_encode(w->ev, w->nev, w->raw);
	comp_len = compress_columns(w);
	if (ZSTD_isError(comp_len))
		return w->failed = seterr(w, -EIO, "zstd: %s", ZSTD_getErrorName(comp_len));
	raw_len -= 4 * VXT_CODEC_COLUMNS;	/* the frames hold the columns' lengths */

	start = vxt_unit_begin(&b, VXT_UNIT_CHUNK, VXT_TAG_CHUNK);
	vxt_buf_u64(&b, w->st.events);
	vxt_buf_u64(&b, first_ns);
	vxt_buf_u64(&b, last_ns);
	vxt_buf_u32(&b, (uint32_t)w->nev);
	{
		size_t at_nerrors = b.len;

		vxt_buf_u32(&b, 0);		/* nerrors, filled below */
		size_t at_nlost = b.len;

		vxt_buf_u64(&b, 0);		/* nlost, filled below */
		vxt_buf_u32(&b, (uint32_t)raw_len);
		vxt_buf_u32(&b, (uint32_t)comp_len);
		vxt_buf_u32(&b, vxt_crc32c(0, w->comp, comp_len));
		vxt_put_objects(&b, w->objs, w->objs_written);
		vxt_put_strings(&b, w->fstrs, w->strs_written);
		if (aggregate(w, &b, &nerrors, &nlost) < 0 || b.err) {
			vxt_buf_free(&b);
			return w->failed = seterr(w, -ENOMEM, "out of memory");
		}
		memcpy(b.p + at_nerrors, (uint8_t[4]){ (uint8_t)nerrors, (uint8_t)(nerrors >> 8),
						       (uint8_t)(nerrors >> 16),
						       (uint8_t)(nerrors >> 24) }, 4);
		for (int k = 0; k < 8; k++)
			b.p[at_nlost + (size_t)k] = (uint8_t)(nlost >> (8 * k));
	}
	vxt_unit_end(&b, start);
	vxt_buf_put(&b, w->comp, comp_len);
	if (b.err) {
		vxt_buf_free(&b);
		return w->failed = seterr(w, -ENOMEM, "out of memory");
	}
	/* the footer keeps a copy of the entry unit and its file offset */
	vxt_buf_u64(&w->footer, w->offset);
	vxt_buf_u32(&w->footer, (uint32_t)(b.len - comp_len));
	vxt_buf_put(&w->footer, b.p, b.len - comp_len);
	if (w->footer.err) {
		vxt_buf_free(&b);
		return w->failed = seterr(w, -ENOMEM, "out of memory");
	}
	rc = write_all(w, b.p, b.len);
	vxt_buf_free(&b);
	if (rc < 0)
		return rc;
	if (w->opts.sync && fdatasync(w->fd) < 0)
		return w->failed = seterr(w, -errno, "fdatasync: %s", strerror(errno));
	w->objs_written = vxt_objtab_count(w->objs);
	w->strs_written = vxt_strtab_count(w->fstrs);
	w->nchunks++;
	w->st.chunks++;
	w->st.events += w->nev;
	w->st.errors += nerrors;
	w->st.lost += nlost;
	w->st.raw_bytes += w->nev * sizeof(struct vxt_event);
	w->nev = 0;
	return 0;
}

/* @return this file's id for the caller's string @id, or -ENOMEM. */
static int64_t file_string(struct vxt_writer *w, uint32_t id)
{
	const char *s;
	int64_t fid;

	if (!id || id >= vxt_strtab_count(w->strs))
		return 0;
	if (id >= w->smap_cap) {
		size_t old = w->smap_cap;

		if (vxt_grow(&w->smap, &w->smap_cap, (size_t)id + 1, sizeof(*w->smap)) < 0)
			return -ENOMEM;
		memset(w->smap + old, 0, (w->smap_cap - old) * sizeof(*w->smap));
	}
	if (w->smap[id])
		return w->smap[id] - 1;
	s = vxt_strtab_get(w->strs, id);
	fid = vxt_strtab_intern(w->fstrs, s, strlen(s));
	if (fid < 0)
		return fid;
	w->smap[id] = (uint32_t)fid + 1;
	return fid;
}

int vxt_writer_write(struct vxt_writer *w, const struct vxt_event *ev, size_t n)
{
	int64_t comm;
	int rc;

	if (w->failed)
		return w->failed;
	for (size_t i = 0; i < n; i++) {
		if (w->nev && (w->nev == w->cap ||
			       ev[i].time_ns - w->ev[0].time_ns >= w->opts.chunk_ns)) {
			rc = vxt_writer_flush(w);
			if (rc < 0)
				return rc;
		}
		if (!w->nev)
			w->chunk_opened = vxt_now_mono();
		comm = file_string(w, ev[i].comm);
		if (comm < 0)
			return w->failed = seterr(w, -ENOMEM, "out of memory");
		w->ev[w->nev] = ev[i];
		w->ev[w->nev++].comm = (uint32_t)comm;
	}
	return 0;
}

int vxt_writer_tick(struct vxt_writer *w)
{
	if (w->nev && vxt_now_mono() - w->chunk_opened >= w->opts.chunk_ns)
		return vxt_writer_flush(w);
	return w->failed;
}

static int write_footer(struct vxt_writer *w)
{
	struct vxt_buf b = { 0 };
	size_t start = vxt_unit_begin(&b, VXT_UNIT_FOOTER, VXT_TAG_FOOTER);
	uint64_t footer_offset = w->offset;
	uint32_t footer_len;
	int rc;

	vxt_buf_u32(&b, w->nchunks);
	vxt_buf_u64(&b, w->st.events);
	vxt_buf_put(&b, w->footer.p, w->footer.len);
	vxt_unit_end(&b, start);
	footer_len = (uint32_t)b.len;
	vxt_buf_u32(&b, VXT_SKIP_MAGIC | VXT_UNIT_TRAILER);
	vxt_buf_u32(&b, 16);
	vxt_buf_u64(&b, footer_offset);
	vxt_buf_u32(&b, footer_len);
	vxt_buf_u32(&b, VXT_TAG_END);
	rc = b.err ? seterr(w, -ENOMEM, "out of memory") : write_all(w, b.p, b.len);
	vxt_buf_free(&b);
	return rc;
}

int vxt_writer_close(struct vxt_writer *w, char err[VXT_ERRBUF_SIZE])
{
	int rc;

	if (!w)
		return 0;
	rc = vxt_writer_flush(w);
	if (!rc)
		rc = write_footer(w);
	if (!rc && w->opts.sync && fdatasync(w->fd) < 0)
		rc = seterr(w, -errno, "fdatasync: %s", strerror(errno));
	if (close(w->fd) < 0 && !rc)
		rc = seterr(w, -errno, "close: %s", strerror(errno));
	if (rc && err)
		snprintf(err, VXT_ERRBUF_SIZE, "%s", w->err);
	ZSTD_freeCCtx(w->cctx);
	vxt_buf_free(&w->footer);
	free(w->ev);
	free(w->raw);
	free(w->comp);
	free(w->agg);
	vxt_strtab_free(w->fstrs);
	free(w->smap);
	free(w->path);
	free(w);
	return rc;
}

const char *vxt_writer_error(const struct vxt_writer *w)
{
	return w->err;
}

void vxt_writer_get_stats(const struct vxt_writer *w, struct vxt_writer_stats *st)
{
	*st = w->st;
	st->events += w->nev;
	st->names_over = vxt_strtab_over(w->fstrs);
}
