/* chunkdec.c - reading one chunk's data and decoding its columns into events
 *
 * Shared by the reader (one chunk at a time, on demand) and the scanner
 * (chunks decoded ahead on helper threads): a decoder owns its buffers and
 * zstd context, so decoders on different threads never share anything but
 * the file. The layout of files written before incompat bit 0x1 (one frame
 * for all columns) is decoded in legacy.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "format/chunkdec.h"
#include "format/codec.h"
#include "format/vxtfile.h"
#include "vxtrace/util.h"

int vxt_chunksrc_read(const struct vxt_chunksrc *s, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (off > s->size || len > s->size - off)
		return -ENODATA;
	if (s->mem) {
		memcpy(buf, s->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t k = pread(s->fd, p, len, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		p += k;
		off += (uint64_t)k;
		len -= (size_t)k;
	}
	return 0;
}

int vxt_chunkdec_load(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		      const struct vxt_chunk_info *ci)
{
	int rc;

	if (ci->data_offset > src->size || ci->data_size > src->size - ci->data_offset)
		return -ENODATA;	/* checked before allocating for it */
	if (ci->data_size > d->comp_cap) {
		uint8_t *p = realloc(d->comp_lent ? NULL : d->comp, ci->data_size);

		if (!p)
			return -ENOMEM;
		d->comp = p;
		d->comp_cap = ci->data_size;
		d->comp_lent = false;
	}
	rc = vxt_chunksrc_read(src, ci->data_offset, d->comp, ci->data_size);
	if (rc < 0)
		return rc;
	if (vxt_le32(d->comp) != VXT_ZSTD_MAGIC ||
	    vxt_crc32c(0, d->comp, ci->data_size) != ci->data_crc)
		return -EBADMSG;
	return 0;
}

/* Clear field @c of every event in the buffer: a field not decoded reads as 0. */
static void zero_field(struct vxt_event *ev, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		switch (c) {
		case VXT_CODEC_FLAGS: ev[i].flags = 0; break;
		case VXT_CODEC_SECTOR: ev[i].sector = 0; break;
		case VXT_CODEC_BYTES: ev[i].bytes = 0; break;
		case VXT_CODEC_LATENCY: ev[i].latency_ns = 0; break;
		case VXT_CODEC_ERROR: ev[i].error = 0; break;
		case VXT_CODEC_PID: ev[i].pid = 0; break;
		case VXT_CODEC_COMM: ev[i].comm = 0; break;
		case VXT_CODEC_CPU: ev[i].cpu = 0; break;
		default: break;
		}
}

/* Does chunk @ci hold a remap? (Its phases are decoded: they come first.) */
static bool has_remap(const struct vxt_chunkdec *d, const struct vxt_chunk_info *ci)
{
	for (size_t i = 0; i < ci->nevents; i++)
		if (d->ev[i].phase == VXT_PH_REMAP)
			return true;
	return false;
}

/* Does chunk @ci need column @c decoded? Fields not decoded are zeroed once
 * (d->zeroed says which are zero all through the buffer). Also used by legacy.c. */
bool vxt_chunkdec_want_column(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci, int c)
{
	unsigned bit = 1u << c;

	if ((d->fields & bit) ||
	    (c == VXT_CODEC_SECTOR && (d->fields & VXT_FIELD_LOST_COUNT) && ci->nlost) ||
	    (c == VXT_CODEC_LATENCY && (d->fields & VXT_FIELD_REMAP_FROM) && has_remap(d, ci))) {
		d->zeroed &= ~bit;
		return true;
	}
	if (!(d->zeroed & bit)) {
		zero_field(d->ev, d->ev_cap, c);
		d->zeroed |= bit;
	}
	return false;
}

/* What raw held need not be kept: every caller writes it anew. */
int vxt_chunkdec_grow_raw(struct vxt_chunkdec *d, size_t need)
{
	uint8_t *p;

	if (need <= d->raw_cap)
		return 0;
	p = realloc(d->raw_lent ? NULL : d->raw, need);
	if (!p)
		return -ENOMEM;
	d->raw = p;
	d->raw_cap = need;
	d->raw_lent = false;
	return 0;
}

void vxt_chunkdec_lend_raw(struct vxt_chunkdec *d, uint8_t *buf, size_t cap)
{
	if (!d->raw_lent)
		free(d->raw);
	d->raw = buf;
	d->raw_cap = cap;
	d->raw_lent = true;
}

void vxt_chunkdec_lend_comp(struct vxt_chunkdec *d, uint8_t *buf, size_t cap)
{
	if (!d->comp_lent)
		free(d->comp);
	d->comp = buf;
	d->comp_cap = cap;
	d->comp_lent = true;
}


/* Eleven zstd frames, one per column, each declaring its size; the columns
 * not wanted are stepped over without decompressing them. */
static int decode_column_frames(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
				uint32_t nobjs, uint32_t nstrs)
{
	const uint8_t *p = d->comp, *end = d->comp + ci->data_size;
	uint64_t total = 0;

	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		size_t fsz = ZSTD_findFrameCompressedSize(p, (size_t)(end - p)), got;
		unsigned long long csz;

		if (ZSTD_isError(fsz))
			return VXT_CHUNK_BAD_FRAME;
		csz = ZSTD_getFrameContentSize(p, fsz);
		if (csz == ZSTD_CONTENTSIZE_UNKNOWN || csz == ZSTD_CONTENTSIZE_ERROR ||
		    csz > ci->raw_size - total)
			return VXT_CHUNK_BAD_FRAME;
		total += csz;
		if (vxt_chunkdec_want_column(d, ci, c)) {
			if (vxt_chunkdec_grow_raw(d, csz + VXT_CODEC_SLACK) < 0)
				return -ENOMEM;
			got = ZSTD_decompressDCtx(d->dctx, d->raw, csz, p, fsz);
			if (ZSTD_isError(got) || got != csz)
				return VXT_CHUNK_BAD_FRAME;
			memset(d->raw + got, 0, VXT_CODEC_SLACK);
			if (vxt_codec_decode_column(c, d->raw, got, ci->nevents, d->ev,
						    nobjs, nstrs) < 0)
				return VXT_CHUNK_BAD_COLUMNS;
		}
		p += fsz;
	}
	return p == end && total == ci->raw_size ? 0 : VXT_CHUNK_BAD_FRAME;
}

int vxt_chunkdec_decode(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
			bool column_frames, uint32_t nobjs, uint32_t nstrs)
{
	if (ci->nevents > d->ev_cap) {
		struct vxt_event *e = realloc(d->ev, ci->nevents * sizeof(*e));

		if (!e)
			return -ENOMEM;
		memset(e, 0, ci->nevents * sizeof(*e));
		d->ev = e;
		d->ev_cap = ci->nevents;
		d->zeroed = VXT_FIELD_ALL;
	}
	return column_frames ? decode_column_frames(d, ci, nobjs, nstrs) :
			       vxt_chunkdec_legacy(d, ci, nobjs, nstrs);
}

/* The message for @rc from loading (@loaded false) or decoding chunk
 * @index. @return the caller's code: 0, -ENOMEM or -EBADMSG. */
static int explain(int rc, bool loaded, const struct vxt_chunk_info *ci, size_t index,
		   char *msg, size_t msglen)
{
	const char *why;

	if (rc == 0)
		return 0;
	if (rc == -ENOMEM) {
		snprintf(msg, msglen, "out of memory");
		return rc;
	}
	if (loaded)
		why = rc == VXT_CHUNK_BAD_FRAME ? "bad zstd frame" : "malformed columns";
	else
		why = rc == -ENODATA ? "truncated data" :
		      rc == -EBADMSG ? "corrupt data (CRC)" : "read error";
	snprintf(msg, msglen, "chunk %zu: %s at offset %llu", index, why,
		 (unsigned long long)ci->data_offset);
	return -EBADMSG;
}

int vxt_chunkdec_run(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		     const struct vxt_chunk_info *ci, size_t index, bool column_frames,
		     uint32_t nobjs, uint32_t nstrs, char *msg, size_t msglen)
{
	int rc = vxt_chunkdec_load(d, src, ci);

	if (rc < 0)
		return explain(rc, false, ci, index, msg, msglen);
	d->ndone = d->nevents = 0;	/* raw holds one column at a time again */
	rc = vxt_chunkdec_decode(d, ci, column_frames, nobjs, nstrs);
	return explain(rc, true, ci, index, msg, msglen);
}

/* The eleven frames' columns decompressed one after the other into d->raw,
 * VXT_CODEC_SLACK zero bytes after the last: where each is into @col, @len.
 * @return 0, -ENOMEM or VXT_CHUNK_BAD_FRAME. */
static int decompress_columns(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
			      const uint8_t *col[], size_t len[])
{
	const uint8_t *p = d->comp, *end = d->comp + ci->data_size;
	size_t fsz[VXT_CODEC_COLUMNS];
	uint64_t total = 0;

	/* the sizes first: the buffer is what the frames declare, no more */
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		unsigned long long csz;

		fsz[c] = ZSTD_findFrameCompressedSize(p, (size_t)(end - p));
		if (ZSTD_isError(fsz[c]))
			return VXT_CHUNK_BAD_FRAME;
		csz = ZSTD_getFrameContentSize(p, fsz[c]);
		if (csz == ZSTD_CONTENTSIZE_UNKNOWN || csz == ZSTD_CONTENTSIZE_ERROR ||
		    csz > ci->raw_size - total)
			return VXT_CHUNK_BAD_FRAME;
		len[c] = (size_t)csz;
		total += csz;
		p += fsz[c];
	}
	if (p != end || total != ci->raw_size)
		return VXT_CHUNK_BAD_FRAME;
	if (vxt_chunkdec_grow_raw(d, (size_t)total + VXT_CODEC_SLACK) < 0)
		return -ENOMEM;
	p = d->comp;
	total = 0;
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		size_t got = ZSTD_decompressDCtx(d->dctx, d->raw + total, len[c], p, fsz[c]);

		if (ZSTD_isError(got) || got != len[c])
			return VXT_CHUNK_BAD_FRAME;
		col[c] = d->raw + total;
		total += got;
		p += fsz[c];
	}
	memset(d->raw + total, 0, VXT_CODEC_SLACK);
	return 0;
}

int vxt_chunkdec_begin(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		       const struct vxt_chunk_info *ci, size_t index, bool column_frames,
		       uint32_t nobjs, uint32_t nstrs, char *msg, size_t msglen)
{
	const uint8_t *col[VXT_CODEC_COLUMNS];
	size_t len[VXT_CODEC_COLUMNS];
	int rc = vxt_chunkdec_load(d, src, ci);

	d->ndone = d->nevents = 0;
	if (rc < 0)
		return explain(rc, false, ci, index, msg, msglen);
	d->fields = VXT_FIELD_ALL;
	if (!column_frames) {	/* one frame: every event at once */
		rc = vxt_chunkdec_decode(d, ci, false, nobjs, nstrs);
		if (rc == 0)
			d->ndone = d->nevents = ci->nevents;
		return explain(rc, true, ci, index, msg, msglen);
	}
	if (!d->steps && !(d->steps = malloc(sizeof(*d->steps))))
		return explain(-ENOMEM, true, ci, index, msg, msglen);
	if (ci->nevents > d->ev_cap) {	/* not cleared: only what is decoded is read */
		free(d->ev);
		d->ev_cap = 0;
		if (!(d->ev = malloc(ci->nevents * sizeof(*d->ev))))
			return explain(-ENOMEM, true, ci, index, msg, msglen);
		d->ev_cap = ci->nevents;
	}
	d->zeroed = 0;
	rc = decompress_columns(d, ci, col, len);
	if (rc < 0)
		return explain(rc, true, ci, index, msg, msglen);
	vxt_codec_steps_begin(d->steps, col, len, ci->nevents);
	d->nevents = ci->nevents;
	d->nobjs = nobjs;
	d->nstrs = nstrs;
	return 0;
}

int vxt_chunkdec_step(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci, size_t index,
		      size_t upto, char *msg, size_t msglen)
{
	if (upto > d->nevents)
		upto = d->nevents;
	if (upto <= d->ndone)
		return 0;
	if (vxt_codec_steps_decode(d->steps, upto, d->ev, d->nobjs, d->nstrs) < 0)
		return explain(VXT_CHUNK_BAD_COLUMNS, true, ci, index, msg, msglen);
	d->ndone = upto;
	return 0;
}

void vxt_chunkdec_swap_work(struct vxt_chunkdec *a, struct vxt_chunkdec *b)
{
	ZSTD_DCtx *dctx = a->dctx;
	uint8_t *comp = a->comp;
	size_t cap = a->comp_cap;
	bool lent = a->comp_lent;

	a->dctx = b->dctx;
	a->comp = b->comp;
	a->comp_cap = b->comp_cap;
	a->comp_lent = b->comp_lent;
	b->dctx = dctx;
	b->comp = comp;
	b->comp_cap = cap;
	b->comp_lent = lent;
}

int vxt_chunkdec_init(struct vxt_chunkdec *d)
{
	memset(d, 0, sizeof(*d));
	d->fields = VXT_FIELD_ALL;
	d->dctx = ZSTD_createDCtx();
	return d->dctx ? 0 : -ENOMEM;
}

void vxt_chunkdec_free(struct vxt_chunkdec *d)
{
	ZSTD_freeDCtx(d->dctx);
	free(d->steps);
	if (!d->comp_lent)
		free(d->comp);
	if (!d->raw_lent)
		free(d->raw);
	free(d->ev);
	memset(d, 0, sizeof(*d));
}
