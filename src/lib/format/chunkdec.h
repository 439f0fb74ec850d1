/* chunkdec.h - reading and decoding one chunk's events (internal)
 *
 * A struct vxt_chunkdec owns a zstd context and the buffers of one decoded
 * chunk; a struct vxt_chunksrc is where chunks are read from (a descriptor
 * read with pread, or memory), safe to share between threads.
 */
#ifndef VXT_CHUNKDEC_H
#define VXT_CHUNKDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "vxtrace/vxt.h"

struct vxt_chunksrc {
	int fd;			/* -1 when mem is set */
	const uint8_t *mem;
	uint64_t size;		/* bytes readable */
};

/* Read @len bytes at @off. @return 0, -ENODATA past the end, or -errno. */
int vxt_chunksrc_read(const struct vxt_chunksrc *s, uint64_t off, void *buf, size_t len);

struct vxt_chunkdec {
	ZSTD_DCtx *dctx;
	uint8_t *comp, *raw;	/* the chunk's frames; one decompressed column */
	size_t comp_cap, raw_cap;
	bool raw_lent, comp_lent;	/* raw, comp are a lender's (vxt_chunkdec_lend()) */
	struct vxt_event *ev;	/* the decoded events */
	size_t ev_cap;
	unsigned fields;	/* VXT_FIELD_* to decode */
	unsigned zeroed;	/* fields that are 0 in every ev[0..ev_cap) */
	/* a chunk decoded in steps (vxt_chunkdec_begin()): its columns are
	 * all in raw, ev[0..ndone) decoded */
	struct vxt_codec_steps *steps;
	size_t ndone, nevents;
	uint32_t nobjs, nstrs;
};

/* vxt_chunkdec_decode() results besides 0 and -ENOMEM */
#define VXT_CHUNK_BAD_FRAME	(-EILSEQ)	/* not the zstd frames the entry announces */
#define VXT_CHUNK_BAD_COLUMNS	(-EBADMSG)	/* frames sound, columns malformed */

/* Set up with every field wanted. @return 0 or -ENOMEM. */
int vxt_chunkdec_init(struct vxt_chunkdec *d);
void vxt_chunkdec_free(struct vxt_chunkdec *d);
/* Read chunk @ci's data into d->comp and check its CRC.
 * @return 0, -ENODATA (not all in the file), -EBADMSG (CRC), -ENOMEM, -errno. */
int vxt_chunkdec_load(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		      const struct vxt_chunk_info *ci);
/* Decode the loaded data into d->ev. @return 0, -ENOMEM, VXT_CHUNK_BAD_*. */
int vxt_chunkdec_decode(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
			bool column_frames, uint32_t nobjs, uint32_t nstrs);
/* Load and decode chunk number @index; on failure a message naming the chunk
 * and offset goes to @msg. @return 0, -ENOMEM or -EBADMSG (damage). */
int vxt_chunkdec_run(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		     const struct vxt_chunk_info *ci, size_t index, bool column_frames,
		     uint32_t nobjs, uint32_t nstrs, char *msg, size_t msglen);

/* Decode chunk @ci (@index, for messages) in steps, every field: load it
 * and decompress its columns now, decode no event yet (d->ndone = 0; all
 * of them at once for the one-frame layout of older files). Then decode
 * its events up to @upto (d->ndone moves there, at most to the chunk's
 * end), going on from where the last step left off; a malformed value
 * fails the step that reaches it, the events before it stay good. Both: on
 * failure a message as vxt_chunkdec_run()'s goes to @msg.
 * @return 0, -ENOMEM or -EBADMSG (damage). */
int vxt_chunkdec_begin(struct vxt_chunkdec *d, const struct vxt_chunksrc *src,
		       const struct vxt_chunk_info *ci, size_t index, bool column_frames,
		       uint32_t nobjs, uint32_t nstrs, char *msg, size_t msglen);
int vxt_chunkdec_step(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci, size_t index,
		      size_t upto, char *msg, size_t msglen);

/* Make @buf, @cap bytes the caller keeps for as long as @d lives, @d's
 * buffer of decompressed columns (lend_raw) or of compressed data
 * (lend_comp; it goes with the zstd context in vxt_chunkdec_swap_work()):
 * it is not freed with @d, and a chunk needing more gets a buffer of @d's
 * own instead. */
void vxt_chunkdec_lend_raw(struct vxt_chunkdec *d, uint8_t *buf, size_t cap);
void vxt_chunkdec_lend_comp(struct vxt_chunkdec *d, uint8_t *buf, size_t cap);

/* Swap the zstd contexts and compressed-data buffers of @a and @b: decoders
 * that take turns share one of each (a chunk begun needs neither after). */
void vxt_chunkdec_swap_work(struct vxt_chunkdec *a, struct vxt_chunkdec *b);

/* For the decoders of chunkdec.c and legacy.c: does chunk @ci need column
 * @c (a field not wanted is zeroed once)? Make d->raw hold @need bytes
 * (0 or -ENOMEM; what it held is not kept). Decode the one-frame layout of
 * older files (0, or a VXT_CHUNK_BAD_* code, or -ENOMEM). */
bool vxt_chunkdec_want_column(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci, int c);
int vxt_chunkdec_grow_raw(struct vxt_chunkdec *d, size_t need);
int vxt_chunkdec_legacy(struct vxt_chunkdec *d, const struct vxt_chunk_info *ci,
			uint32_t nobjs, uint32_t nstrs);

#endif
