/* codec.h - columnar encoding of event chunks (internal)
 *
 * A chunk's events are stored column by column: time, phase+op, object,
 * flags, sector, bytes, latency, error, pid, comm, cpu. Integers are
 * prefix varints (the first byte's trailing 1 bits give the length); time,
 * sector and pid are deltas (sector per object), signed values zigzag.
 * The writer compresses each column as a zstd frame of its own.
 */
#ifndef VXT_CODEC_H
#define VXT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "vxtrace/event.h"

#define VXT_CODEC_COLUMNS 11
/* Bytes past the end of a block that encode may scribble on and decode may
 * read (never use): buffers holding blocks are this much larger. */
#define VXT_CODEC_SLACK 8
/* Worst case encoded size of @n events (column headers and slack included). */
#define VXT_CODEC_BOUND(n) (4u * VXT_CODEC_COLUMNS + (size_t)(n) * 64u + VXT_CODEC_SLACK)

/* Encode @n events into @out (at least VXT_CODEC_BOUND(n) bytes).
 * @return the encoded size. Can't fail. */
size_t vxt_codec_encode(const struct vxt_event *ev, size_t n, uint8_t *out);
/* Decode @len bytes holding exactly @n events into @ev; VXT_CODEC_SLACK
 * readable bytes must follow in[len - 1]. Object ids must be
 * below @nobjs (a lost event's that is not is read as 0) and comm ids
 * below @nstrs.
 * @return 0, or -EBADMSG when the block is malformed. */
int vxt_codec_decode(const uint8_t *in, size_t len, size_t n, struct vxt_event *ev,
		     uint32_t nobjs, uint32_t nstrs);

/* Decode column @c (0 .. VXT_CODEC_COLUMNS-1, in the order above) of @n
 * events from the @clen bytes at @p into its fields of @ev; the same rules
 * and slack as vxt_codec_decode(). The object column needs the phases, the
 * sector column the objects, already decoded. @return 0 or -EBADMSG. */
int vxt_codec_decode_column(int c, const uint8_t *p, size_t clen, size_t n,
			    struct vxt_event *ev, uint32_t nobjs, uint32_t nstrs);
/* A chunk's columns decoded a few events at a time, each from where the
 * last step left it (a screen needs the first events of a chunk only). */
#define VXT_CODEC_SECTOR_SLOTS 256	/* last sector per (object id % slots) */
struct vxt_codec_steps {
	const uint8_t *p[VXT_CODEC_COLUMNS];	/* each column's next value ... */
	const uint8_t *end[VXT_CODEC_COLUMNS];	/* ... and its end */
	uint64_t prev[VXT_CODEC_COLUMNS];	/* a delta column's last value */
	uint64_t last_sector[VXT_CODEC_SECTOR_SLOTS];
	size_t n, done;				/* events in all, decoded so far */
};
/* Start at the first of @n events whose column c is the @len[c] bytes at
 * @col[c] (VXT_CODEC_SLACK readable bytes after each). */
void vxt_codec_steps_begin(struct vxt_codec_steps *s, const uint8_t *const col[],
			   const size_t len[], size_t n);
/* Decode events [s->done, @upto) of every column into @ev (room for all n)
 * and move s->done to @upto (at most n); at n every column must end
 * exactly. Events before s->done are as vxt_codec_decode_column() makes
 * them. @return 0, or -EBADMSG when a value is malformed (s->done is then
 * left where it was). */
int vxt_codec_steps_decode(struct vxt_codec_steps *s, size_t upto, struct vxt_event *ev,
			   uint32_t nobjs, uint32_t nstrs);
/* The column of each event field (VXT_FIELD_* bit numbers follow it). */
enum {
	VXT_CODEC_TIME, VXT_CODEC_PHASE_OP, VXT_CODEC_OBJECT, VXT_CODEC_FLAGS, VXT_CODEC_SECTOR,
	VXT_CODEC_BYTES, VXT_CODEC_LATENCY, VXT_CODEC_ERROR, VXT_CODEC_PID, VXT_CODEC_COMM,
	VXT_CODEC_CPU
};

/* Varint primitives, exposed for the file format code and the tests. */
size_t vxt_varint_put(uint8_t *p, uint64_t v);
/* @return bytes read, or 0 when the varint is truncated or longer than 10 bytes. */
size_t vxt_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v);
static inline uint64_t vxt_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t vxt_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#endif
