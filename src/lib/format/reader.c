/* reader.c - reading .vxt files: open through the footer or by a recovery
 * Over 700 lines: open, recovery scan, follow and verify share the reader's chunk table and its invariants.
 * scan, follow a growing file, verify (seeking and iterating: reader_iter.c)
 *
 * Invariants: chunks[0..n) are sound (entry CRC checked, data in the file);
 * chunks[i].first_event == sum of nevents before i; scan_off is the end of
 * the last sound unit, where a refresh continues. At most one chunk is held
 * decoded (cur_chunk). Every size read from the file is checked against the
 * file's real size before anything is allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "format/chunkdec.h"
#include "format/codec.h"
#include "format/entry_check.h"
#include "format/reader_impl.h"
#include "format/vxtfile.h"
#include "vxtrace/util.h"

int vxt_reader_seterr(struct vxt_reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);

	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

static int read_at(struct vxt_reader *r, uint64_t off, void *buf, size_t len)
{
	return vxt_chunksrc_read(&r->src, off, buf, len);
}

static int refresh_size(struct vxt_reader *r)
{
	struct stat st;

	if (r->src.mem)
		return 0;
	if (fstat(r->src.fd, &st) < 0)
		return vxt_reader_seterr(r, -errno, "%s", strerror(errno));
	r->src.size = (uint64_t)st.st_size;
	return 0;
}

/* @return why the file of @fd can be no trace ("is a directory", "not a
 * regular file": a fifo, a device), or NULL for a regular file. */
static const char *not_a_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode))
		return NULL;	/* fstat's failure is refresh_size()'s to say */
	return S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
}

/* Read the skippable unit at @off whole into a new buffer (caller frees).
 * @return 0, -ENODATA when it runs past the end, -EBADMSG when it is no unit
 * of kind @unit, too large, or fails its CRC. */
static int read_unit(struct vxt_reader *r, uint64_t off, unsigned unit, uint8_t **out,
		     size_t *len)
{
	uint8_t hdr[8];
	uint32_t size;
	uint8_t *p;
	int rc = read_at(r, off, hdr, 8);

	if (rc < 0)
		return rc;
	if (vxt_le32(hdr) != (VXT_SKIP_MAGIC | unit))
		return -EBADMSG;
	size = vxt_le32(hdr + 4);
	if (size < 8 || size > (unit == VXT_UNIT_FOOTER ? VXT_FOOTER_MAX : VXT_UNIT_MAX))
		return -EBADMSG;
	if (off + 8 + size > r->src.size)
		return -ENODATA;
	p = malloc(8 + (size_t)size);
	if (!p)
		return -ENOMEM;
	memcpy(p, hdr, 8);
	rc = read_at(r, off + 8, p + 8, size);
	if (!rc && vxt_crc32c(0, p + 8, size - 4) != vxt_le32(p + 8 + size - 4))
		rc = -EBADMSG;
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	*len = 8 + (size_t)size;
	return 0;
}

static int load_header(struct vxt_reader *r)
{
	uint8_t *u;
	size_t len;
	struct vxt_cur c;
	struct vxt_file_info *in = &r->info;
	uint8_t magic[4];
	int rc;

	if (read_at(r, 0, magic, 4) < 0 || vxt_le32(magic) != (VXT_SKIP_MAGIC | VXT_UNIT_HEADER))
		return vxt_reader_seterr(r, -EBADMSG, "not a .vxt file (no header at offset 0)");
	rc = read_unit(r, 0, VXT_UNIT_HEADER, &u, &len);
	if (rc == -ENODATA)
		return vxt_reader_seterr(r, -EBADMSG, "truncated header at offset 0");
	if (rc == -EBADMSG)
		return vxt_reader_seterr(r, rc, "corrupt header at offset 0 (bad size or CRC)");
	if (rc < 0)
		return vxt_reader_seterr(r, rc, "reading header: %s", vxt_strerror(rc));
	c = (struct vxt_cur){ u + 8, u + len - 4, false };
	if (vxt_cur_u32(&c) != VXT_TAG_HEADER) {
		free(u);
		return vxt_reader_seterr(r, -EBADMSG, "not a .vxt file (bad header tag)");
	}
	in->version = vxt_cur_u32(&c);
	in->compat = vxt_cur_u32(&c);
	in->incompat = vxt_cur_u32(&c);
	if (in->incompat & ~(uint32_t)VXT_INCOMPAT_KNOWN) {
		free(u);
		return vxt_reader_seterr(r, -EPROTO,
			      "made by a newer vxtrace (format version %u, incompatible features 0x%x)",
			      in->version, in->incompat);
	}
	vxt_cur_u32(&c);
	in->created_real_ns = vxt_cur_u64(&c);
	in->anchor_mono_ns = vxt_cur_u64(&c);
	in->anchor_real_ns = vxt_cur_u64(&c);
	vxt_cur_str(&c, in->host, sizeof(in->host));
	vxt_cur_str(&c, in->source, sizeof(in->source));
	vxt_cur_str(&c, in->profile, sizeof(in->profile));
	vxt_cur_str(&c, in->command, sizeof(in->command));
	rc = c.bad ? -EBADMSG : vxt_get_objects(&c, r->objs);
	if (!rc)
		rc = vxt_get_strings(&c, r->strs);
	r->header_crc = vxt_le32(u + len - 4);
	free(u);
	if (rc < 0)
		return vxt_reader_seterr(r, rc, "corrupt header tables at offset 0");
	r->header_end = len;
	return 0;
}

/* Parse the fixed fields of chunk entry unit @u (CRC already checked) found
 * at @off; leaves @c at the object and string tables that follow. Touches
 * nothing in the reader, so a chunk whose data is not there yet can be
 * parsed again by the next refresh. */
static int parse_entry_fixed(struct vxt_reader *r, const uint8_t *u, size_t len, uint64_t off,
			     struct vxt_chunk_info *ci, struct vxt_cur *c)
{
	*c = (struct vxt_cur){ u + 8, u + len - 4, false };
	memset(ci, 0, sizeof(*ci));
	if (vxt_cur_u32(c) != VXT_TAG_CHUNK)
		return -EBADMSG;
	ci->offset = off;
	ci->data_offset = off + len;
	ci->first_event = vxt_cur_u64(c);
	ci->first_ns = vxt_cur_u64(c);
	ci->last_ns = vxt_cur_u64(c);
	ci->nevents = vxt_cur_u32(c);
	ci->nerrors = vxt_cur_u32(c);
	ci->nlost = vxt_cur_u64(c);
	ci->raw_size = vxt_cur_u32(c);
	ci->data_size = vxt_cur_u32(c);
	ci->data_crc = vxt_cur_u32(c);
	/* each column holds a value of at least one byte per event; a single
	 * frame also holds the columns' lengths */
	if (c->bad || ci->first_event != r->nevents || !ci->nevents ||
	    ci->nevents > VXT_CHUNK_EVENTS_MAX || ci->raw_size > VXT_CHUNK_RAW_MAX ||
	    ci->raw_size < ci->nevents * (uint64_t)VXT_CODEC_COLUMNS +
			   (r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES ? 0 : 4 * VXT_CODEC_COLUMNS) ||
	    ci->data_size > VXT_CHUNK_DATA_MAX || ci->data_size < 8 ||
	    ci->first_ns > ci->last_ns || ci->nerrors > ci->nevents ||
	    ci->data_offset < off)
		return -EBADMSG;
	return 0;
}

/* Parse the rest of the entry at @c, which lies at file offset @base from
 * @start on: the objects and strings it adds to the reader's tables, and
 * where its per-object aggregates are (*agg_off; they are checked here and
 * read when asked, aggcache.c). */
static int parse_entry_tables(struct vxt_reader *r, struct vxt_cur *c, struct vxt_chunk_info *ci,
			      uint64_t base, const uint8_t *start, uint64_t *agg_off)
{
	int rc = vxt_get_objects(c, r->objs);
	size_t nobj;

	if (!rc)
		rc = vxt_get_strings(c, r->strs);
	if (rc < 0)
		return rc;
	nobj = vxt_objtab_count(r->objs);
	ci->nobjagg = vxt_cur_u32(c);
	ci->objagg = NULL;
	if (c->bad || ci->nobjagg > nobj ||
	    ci->nobjagg > (size_t)(c->end - c->p) / VXT_OBJAGG_SIZE)
		return -EBADMSG;
	*agg_off = base + (uint64_t)(c->p - start);
	for (uint32_t i = 0; i < ci->nobjagg; i++)
		if (vxt_le32(c->p + (size_t)i * VXT_OBJAGG_SIZE) >= nobj)
			return -EBADMSG;	/* the object of aggregate i */
	vxt_cur_take(c, (size_t)ci->nobjagg * VXT_OBJAGG_SIZE);
	return c->bad ? -EBADMSG : 0;
}

static int add_chunk(struct vxt_reader *r, const struct vxt_chunk_info *ci, uint64_t agg_off)
{
	if (vxt_grow(&r->chunks, &r->cap, r->n + 1, sizeof(*r->chunks)) < 0)
		return -ENOMEM;
	/* every chunk, with or without aggregates: the cache's counts cover them all */
	if (vxt_aggcache_note(r, r->n, agg_off, ci->nobjagg) < 0)
		return -ENOMEM;
	r->chunks[r->n++] = *ci;
	r->nevents += ci->nevents;
	return 0;
}

static void set_damage(struct vxt_reader *r, uint64_t off, const char *why)
{
	r->damage_off = (int64_t)off;
	snprintf(r->damage, sizeof(r->damage), "%s at offset %llu", why,
		 (unsigned long long)off);
}

/* Load chunk data for the recovery scan: 0, -ENODATA, -EBADMSG, -ENOMEM. */
static int load_data(struct vxt_reader *r, const struct vxt_chunk_info *ci)
{
	return vxt_chunkdec_load(&r->dec, &r->src, ci);
}

/* Forward scan from r->scan_off; stops at the end or the first bad unit. */
static int scan(struct vxt_reader *r)
{
	int added = 0;

	r->damage_off = -1;
	r->damage[0] = '\0';
	while (r->scan_off + 8 <= r->src.size) {
		uint64_t off = r->scan_off;
		uint8_t hdr[8], *u = NULL;
		size_t len;
		struct vxt_chunk_info ci;
		struct vxt_cur c;
		uint64_t agg_off = 0;
		uint32_t magic;
		int rc = read_at(r, off, hdr, 8);

		if (rc < 0)
			return vxt_reader_seterr(r, rc, "read at offset %llu: %s", (unsigned long long)off,
				      vxt_strerror(rc));
		magic = vxt_le32(hdr);
		if ((magic & ~0xFu) != VXT_SKIP_MAGIC) {
			set_damage(r, off, "unexpected data (not a vxt unit)");
			break;
		}
		if ((magic & 0xF) == VXT_UNIT_FOOTER || (magic & 0xF) == VXT_UNIT_TRAILER)
			break;	/* an end whose trailer did not check out */
		if ((magic & 0xF) != VXT_UNIT_CHUNK) {
			uint64_t skip = 8 + (uint64_t)vxt_le32(hdr + 4);

			if (off + skip > r->src.size) {
				set_damage(r, off, "torn unit");
				break;
			}
			r->scan_off = off + skip;	/* unknown unit: skipped by length */
			continue;
		}
		rc = read_unit(r, off, VXT_UNIT_CHUNK, &u, &len);
		if (rc == -ENOMEM)
			return vxt_reader_seterr(r, rc, "out of memory");
		if (rc == -ENODATA) {
			set_damage(r, off, "torn chunk entry");
			break;
		}
		if (rc < 0 || (rc = parse_entry_fixed(r, u, len, off, &ci, &c)) < 0) {
			free(u);
			if (rc == -ENOMEM)
				return vxt_reader_seterr(r, rc, "out of memory");
			set_damage(r, off, "corrupt chunk entry");
			break;
		}
		/* the data first: the tables of a chunk still being written must
		 * not reach the reader's tables until the chunk is whole */
		rc = load_data(r, &ci);
		if (rc < 0) {
			free(u);
			if (rc == -ENOMEM)
				return vxt_reader_seterr(r, rc, "out of memory");
			set_damage(r, ci.data_offset, rc == -ENODATA ? "torn chunk data" :
				   "corrupt chunk data (CRC)");
			break;
		}
		rc = parse_entry_tables(r, &c, &ci, off, u, &agg_off);
		free(u);
		if (rc < 0) {
			if (rc == -ENOMEM)
				return vxt_reader_seterr(r, rc, "out of memory");
			set_damage(r, off, "corrupt chunk entry");
			break;
		}
		if (add_chunk(r, &ci, agg_off) < 0)
			return vxt_reader_seterr(r, -ENOMEM, "out of memory");
		r->scan_off = ci.data_offset + ci.data_size;
		added++;
	}
	if (r->scan_off < r->src.size && r->damage_off < 0 && r->scan_off + 8 > r->src.size)
		set_damage(r, r->scan_off, "torn unit");
	return added;
}

static void free_chunks(struct vxt_reader *r)
{
	vxt_aggcache_reset(r);	/* a file's aggregates are the cache's; a merged reader's its own */
	for (size_t i = 0; i < r->n; i++)
		free(r->chunks[i].objagg);
	r->n = 0;
	r->nevents = 0;
}

static int reset_tables(struct vxt_reader *r)
{
	free_chunks(r);
	vxt_objtab_free(r->objs);
	vxt_strtab_free(r->strs);
	r->objs = vxt_objtab_new();
	r->strs = vxt_strtab_new();
	if (!r->objs || !r->strs)
		return vxt_reader_seterr(r, -ENOMEM, "out of memory");
	return load_header(r);
}

/* The footer read in windows (an index of 1000M events is tens of MB; the
 * reader keeps what it needs of each entry, not the footer): [pos, have) of
 * buf are the bytes at file offset boff + pos on; crc runs over what was
 * read, up to end (the content before the footer's CRC). */
#define FOOTER_WINDOW (64u << 10)

struct footer_win {
	uint8_t *buf;
	size_t cap, pos, have;
	uint64_t boff, end;
	uint32_t crc;
};

/* Make @len bytes from the window's position on readable. @return 0,
 * -EBADMSG past the footer's content, -ENOMEM or a read error. */
static int win_need(struct vxt_reader *r, struct footer_win *w, size_t len)
{
	uint64_t at, want;
	int rc;

	if (w->have - w->pos >= len)
		return 0;
	if (w->boff + w->pos + len > w->end)
		return -EBADMSG;
	memmove(w->buf, w->buf + w->pos, w->have - w->pos);
	w->boff += w->pos;
	w->have -= w->pos;
	w->pos = 0;
	if (len > w->cap) {
		uint8_t *nb = realloc(w->buf, len);

		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->cap = len;
	}
	at = w->boff + w->have;
	want = w->cap - w->have < w->end - at ? w->cap - w->have : w->end - at;
	rc = read_at(r, at, w->buf + w->have, (size_t)want);
	if (rc < 0)
		return rc;
	w->crc = vxt_crc32c(w->crc, w->buf + w->have, (size_t)want);
	w->have += (size_t)want;
	return 0;
}

/* One entry of the footer: u64 offset, u32 length, the entry unit. */
static int footer_entry(struct vxt_reader *r, struct footer_win *w, uint64_t foff)
{
	uint64_t off, agg_off = 0;
	uint32_t elen;
	const uint8_t *e;
	struct vxt_chunk_info ci;
	struct vxt_cur ec;
	int rc = win_need(r, w, 12);

	if (rc < 0)
		return rc;
	off = vxt_le64(w->buf + w->pos);
	elen = vxt_le32(w->buf + w->pos + 8);
	w->pos += 12;
	if (elen < 16 || elen > VXT_UNIT_MAX + 8)
		return -EBADMSG;
	rc = win_need(r, w, elen);
	if (rc < 0)
		return rc;
	e = w->buf + w->pos;
	w->pos += elen;
	/* the copy's own CRC is not checked again: the footer's CRC, over
	 * every byte of it, is (load_footer()); until then what it adds is
	 * the caller's to reset */
	if (vxt_le32(e) != (VXT_SKIP_MAGIC | VXT_UNIT_CHUNK) || vxt_le32(e + 4) != elen - 8)
		return -EBADMSG;
	rc = parse_entry_fixed(r, e, elen, off, &ci, &ec);
	if (!rc)
		rc = parse_entry_tables(r, &ec, &ci, w->boff + (uint64_t)(e - w->buf), e, &agg_off);
	if (rc < 0)
		return rc;
	if (ci.data_offset > foff || ci.data_size > foff - ci.data_offset ||
	    (r->n && off < r->chunks[r->n - 1].data_offset + r->chunks[r->n - 1].data_size))
		return -EBADMSG;
	return add_chunk(r, &ci, agg_off) < 0 ? -ENOMEM : 0;
}

/* Load the index from the footer. @return 0, or < 0 when there is no sound
 * footer (what it added to the tables is then the caller's to reset). */
static int load_footer(struct vxt_reader *r)
{
	uint8_t t[VXT_TRAILER_SIZE], hdr[8], crc[4];
	struct footer_win w = { 0 };
	uint64_t foff;
	uint32_t flen, size, nchunks;
	int rc;

	if (r->src.size < r->header_end + VXT_TRAILER_SIZE)
		return -ENODATA;
	rc = read_at(r, r->src.size - VXT_TRAILER_SIZE, t, sizeof(t));
	if (rc < 0)
		return rc;
	foff = vxt_le64(t + 8);
	flen = vxt_le32(t + 16);
	if (vxt_le32(t) != (VXT_SKIP_MAGIC | VXT_UNIT_TRAILER) || vxt_le32(t + 4) != 16 ||
	    vxt_le32(t + 20) != VXT_TAG_END || foff < r->header_end ||
	    foff + flen != r->src.size - VXT_TRAILER_SIZE)
		return -EBADMSG;
	rc = read_at(r, foff, hdr, sizeof(hdr));
	if (rc < 0)
		return rc;
	size = vxt_le32(hdr + 4);
	if (vxt_le32(hdr) != (VXT_SKIP_MAGIC | VXT_UNIT_FOOTER) || size < 20 ||
	    size > VXT_FOOTER_MAX)
		return -EBADMSG;
	if (foff + 8 + size > r->src.size)
		return -ENODATA;
	w.boff = foff + 8;
	w.end = foff + 8 + size - 4;
	w.cap = size - 4 < FOOTER_WINDOW ? size - 4 : FOOTER_WINDOW;
	w.buf = malloc(w.cap);
	if (!w.buf)
		return -ENOMEM;
	rc = win_need(r, &w, 16);
	if (rc < 0)
		goto out;
	rc = -EBADMSG;
	if (vxt_le32(w.buf) != VXT_TAG_FOOTER)
		goto out;
	nchunks = vxt_le32(w.buf + 4);
	w.pos = 16;
	if (nchunks > (w.end - w.boff - w.pos) / 12)
		goto out;
	for (uint32_t i = 0; i < nchunks; i++) {
		rc = footer_entry(r, &w, foff);
		if (rc < 0)
			goto out;
	}
	rc = -EBADMSG;
	if (w.boff + w.pos != w.end || w.pos != w.have)
		goto out;
	/* the footer's own CRC, over all it held */
	rc = read_at(r, w.end, crc, sizeof(crc));
	if (rc < 0)
		goto out;
	rc = w.crc == vxt_le32(crc) ? 0 : -EBADMSG;
	if (!rc)
		r->scan_off = foff;
out:
	free(w.buf);
	return rc;
}

/* Every object of a file belongs to the file's host. */
static void name_hosts(struct vxt_reader *r)
{
	for (size_t i = vxt_objtab_count(r->objs); i-- > 0;) {
		if (vxt_objtab_get(r->objs, (uint32_t)i)->host[0])
			break;	/* the ones before it were named already */
		vxt_objtab_set_host(r->objs, (uint32_t)i, r->info.host);
	}
}

static struct vxt_reader *open_common(struct vxt_reader *r, char *err)
{
	int rc;

	r->cur_chunk = SIZE_MAX;
	r->damage_off = -1;
	r->objs = vxt_objtab_new();
	r->strs = vxt_strtab_new();
	if (vxt_chunkdec_init(&r->dec) < 0) {
		vxt_reader_seterr(r, -ENOMEM, "out of memory");
		goto fail;
	}
		if (!r->objs || !r->strs) {
		vxt_reader_seterr(r, -ENOMEM, "out of memory");
		goto fail;
	}
	if (load_header(r) < 0)
		goto fail;
	rc = load_footer(r);
	if (rc == 0) {
		r->has_footer = true;
	} else {
		if (rc == -ENOMEM || reset_tables(r) < 0) {
			vxt_reader_seterr(r, -ENOMEM, "out of memory");
			goto fail;
		}
		r->recovered = true;
		r->scan_off = r->header_end;
		if (scan(r) < 0)
			goto fail;
	}
	name_hosts(r);
	return r;
fail:
	snprintf(err, VXT_ERRBUF_SIZE, "%s", r->err);
	vxt_reader_close(r);
	return NULL;
}

struct vxt_reader *vxt_reader_open(const char *path, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_reader *r = calloc(1, sizeof(*r));
	const char *why;

	if (!r || !(r->name = strdup(path))) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		free(r);
		return NULL;
	}
	/* O_NONBLOCK: a fifo must not hang the open; it is refused below (the
	 * flag changes nothing for a regular file) */
	r->src.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->src.fd < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		free(r->name);
		free(r);
		return NULL;
	}
	if (refresh_size(r) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s", r->err);
		vxt_reader_close(r);
		return NULL;
	}
	if ((why = not_a_file(r->src.fd))) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, why);
		vxt_reader_close(r);
		return NULL;
	}
	return open_common(r, err);
}

struct vxt_reader *vxt_reader_open_mem(const void *buf, size_t len, const char *name,
				       char err[VXT_ERRBUF_SIZE])
{
	struct vxt_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->name = strdup(name ? name : "<memory>"))) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		free(r);
		return NULL;
	}
	r->src.fd = -1;
	r->src.mem = buf;
	r->src.size = len;
	return open_common(r, err);
}

void vxt_reader_close(struct vxt_reader *r)
{
	if (!r)
		return;
	if (r->src.fd >= 0)
		close(r->src.fd);
	vxt_merge_free(r->merge);
	free_chunks(r);
	vxt_aggcache_free(r);
	free(r->chunks);
	vxt_objtab_free(r->objs);
	vxt_strtab_free(r->strs);
	vxt_chunkdec_free(&r->dec);
	free(r->name);
	free(r);
}

const char *vxt_reader_error(const struct vxt_reader *r) { return r->err; }
const struct vxt_chunksrc *vxt_reader_src(const struct vxt_reader *r) { return &r->src; }
const char *vxt_reader_name(const struct vxt_reader *r) { return r->name; }
const struct vxt_file_info *vxt_reader_info(const struct vxt_reader *r) { return &r->info; }
const struct vxt_objtab *vxt_reader_objects(const struct vxt_reader *r) { return r->objs; }
const struct vxt_strtab *vxt_reader_strings(const struct vxt_reader *r) { return r->strs; }
uint64_t vxt_reader_nevents(const struct vxt_reader *r) { return r->nevents; }
size_t vxt_reader_nchunks(const struct vxt_reader *r) { return r->n; }
bool vxt_reader_recovered(const struct vxt_reader *r) { return r->recovered; }
uint64_t vxt_reader_tell(const struct vxt_reader *r) { return r->pos; }

uint32_t vxt_reader_chunk_nevents(const struct vxt_reader *r, size_t i)
{
	return i < r->n ? r->chunks[i].nevents : 0;
}

bool vxt_reader_chunk_ready(const struct vxt_reader *r, size_t i)
{
	return !r->merge || vxt_merge_ready(r->merge, i);
}

size_t vxt_reader_npieces(const struct vxt_reader *r)
{
	return r->merge ? vxt_merge_npieces(r->merge) : r->n;
}

const struct vxt_chunk_info *vxt_reader_piece(const struct vxt_reader *r, size_t i)
{
	if (r->merge)
		return vxt_merge_piece(r->merge, i);
	vxt_aggcache_load((struct vxt_reader *)r, i);
	return i < r->n ? &r->chunks[i] : NULL;
}

const struct vxt_chunk_info *vxt_reader_chunk(const struct vxt_reader *r, size_t i)
{
	if (r->merge && i < r->n)
		vxt_merge_resolve(r->merge, i);	/* the entry is completed when first asked for */
	else
		vxt_aggcache_load((struct vxt_reader *)r, i);	/* its aggregates, when not in memory */
	return i < r->n ? &r->chunks[i] : NULL;
}

const struct vxt_chunk_info *vxt_reader_chunk_fixed(const struct vxt_reader *r, size_t i)
{
	if (r->merge && i < r->n)
		vxt_merge_resolve(r->merge, i);
	return i < r->n ? &r->chunks[i] : NULL;
}

int64_t vxt_reader_damage(const struct vxt_reader *r, const char **why)
{
	if (why)
		*why = r->damage_off >= 0 ? r->damage : NULL;
	return r->damage_off;
}

uint64_t vxt_reader_to_real(const struct vxt_reader *r, uint64_t mono_ns)
{
	return mono_ns + (r->info.anchor_real_ns - r->info.anchor_mono_ns);
}

/* Is the file still the one opened? A recorder that writes it anew in
 * place (vxrecord --force) truncates it and writes another header: what was
 * indexed is gone, or the header's CRC differs. @return 0 or -ESTALE. */
static int check_same(struct vxt_reader *r)
{
	uint8_t crc[4];

	if (r->src.size < r->scan_off)
		return vxt_reader_seterr(r, -ESTALE, "truncated from %llu to %llu bytes since it "
					 "was opened (written anew?)",
					 (unsigned long long)r->scan_off,
					 (unsigned long long)r->src.size);
	if (read_at(r, r->header_end - 4, crc, 4) < 0 || vxt_le32(crc) != r->header_crc)
		return vxt_reader_seterr(r, -ESTALE, "its header changed since it was opened "
					 "(written anew?)");
	return 0;
}

int vxt_reader_check_same(struct vxt_reader *r)
{
	int rc;

	if (r->src.mem || r->merge)
		return 0;
	rc = refresh_size(r);
	return rc < 0 ? rc : check_same(r);
}

int vxt_reader_refresh(struct vxt_reader *r)
{
	int rc;

	if (r->has_footer || r->src.mem)
		return 0;
	rc = vxt_reader_check_same(r);
	if (rc < 0)
		return rc;
	/* a footer may have been written since: the scan stops at it */
	rc = scan(r);
	name_hosts(r);
	return rc;
}

/* Chunk @i's entry against its decoded events (entry_check.c).
 * @return 0, -EBADMSG or -ENOMEM, with the reader's error set. */
static int check_entry(struct vxt_reader *r, size_t i)
{
	const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);	/* with its aggregates */
	char msg[200];
	int rc = vxt_entry_check(ci, r->dec.ev, ci->nevents, (uint32_t)vxt_objtab_count(r->objs),
				 msg, sizeof(msg));

	if (rc == -2)
		return vxt_reader_seterr(r, -ENOMEM, "out of memory");
	if (rc < 0)
		return vxt_reader_seterr(r, -EBADMSG, "chunk %zu: index entry at offset %llu: %s", i,
					 (unsigned long long)ci->offset, msg);
	return 0;
}

static int verify_chunks(struct vxt_reader *r, uint64_t *bad_offset)
{
	for (size_t i = 0; i < r->n; i++) {
		uint8_t *u;
		size_t len;
		int rc = read_unit(r, r->chunks[i].offset, VXT_UNIT_CHUNK, &u, &len);

		if (rc == 0)
			free(u);
		if (rc == -ENOMEM)
			return vxt_reader_seterr(r, rc, "out of memory");
		if (rc < 0 || r->chunks[i].offset + len != r->chunks[i].data_offset) {
			*bad_offset = r->chunks[i].offset;
			return vxt_reader_seterr(r, -EBADMSG, "chunk %zu: corrupt entry at offset %llu", i,
				      (unsigned long long)r->chunks[i].offset);
		}
		r->cur_chunk = SIZE_MAX;
		rc = vxt_reader_decode(r, i);
		if (rc == -ENOMEM)
			return rc;	/* not damage: the message says so */
		if (rc < 0) {
			*bad_offset = r->chunks[i].data_offset;
			return -EBADMSG;
		}
		rc = check_entry(r, i);
		if (rc < 0) {
			*bad_offset = r->chunks[i].offset;
			return rc;
		}
	}
	if (r->damage_off >= 0) {
		*bad_offset = (uint64_t)r->damage_off;
		return vxt_reader_seterr(r, -EBADMSG, "%s", r->damage);
	}
	return 0;
}

int vxt_reader_verify(struct vxt_reader *r, uint64_t *bad_offset)
{
	unsigned fields = r->dec.fields;
	int rc;

	vxt_reader_set_fields(r, VXT_FIELD_ALL);	/* every column is checked */
	rc = verify_chunks(r, bad_offset);
	vxt_reader_set_fields(r, fields);
	return rc;
}
