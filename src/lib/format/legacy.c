/* legacy.c - the chunk layout of files written before column frames
 *
 * Before incompat bit 0x1 (formats/vxt.md), a chunk's data was one zstd
 * frame holding the eleven column lengths (u32 each) and then the columns.
 * Such files are still read; nothing writes this layout any more, so it
 * lives apart from the current decoder (chunkdec.c), as zstd keeps its
 * legacy formats apart.
 */
#include <errno.h>
#include <string.h>
#include <zstd.h>

#include "format/chunkdec.h"
#include "format/codec.h"
#include "format/vxtfile.h"
#include "vxtrace/util.h"

int vxt_chunkdec_legacy(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
			       uint32_t nobjs, uint32_t nstrs)
{
	const uint8_t *p, *end;
	size_t got;

	/* the frame must declare the size the entry claims before a buffer of
	 * that size is allocated */
	if (ZSTD_getFrameContentSize(d->comp, ci->data_size) != ci->raw_size)
		return VXT_CHUNK_BAD_FRAME;
	if (vxt_chunkdec_grow_raw(d, ci->raw_size + VXT_CODEC_SLACK) < 0)
		return -ENOMEM;
	got = ZSTD_decompressDCtx(d->dctx, d->raw, ci->raw_size, d->comp, ci->data_size);
	if (ZSTD_isError(got) || got != ci->raw_size)
		return VXT_CHUNK_BAD_FRAME;
	memset(d->raw + got, 0, VXT_CODEC_SLACK);
	p = d->raw + 4 * VXT_CODEC_COLUMNS;
	end = d->raw + got;
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		uint32_t clen = vxt_le32(d->raw + 4 * c);

		if (clen > (size_t)(end - p))
			return VXT_CHUNK_BAD_COLUMNS;
		if (vxt_chunkdec_want_column(d, ci, c) &&
		    vxt_codec_decode_column(c, p, clen, ci->nevents, d->ev, nobjs, nstrs) < 0)
			return VXT_CHUNK_BAD_COLUMNS;
		p += clen;
	}
	return p == end ? 0 : VXT_CHUNK_BAD_COLUMNS;
}
