/* vxtfile.h - the units of a .vxt file: constants, and encoding and parsing
 * of the header, chunk entries, footer and trailer (internal)
 *
 * Shared by writer.c and reader.c; spec in formats/vxt.md. Parsers take
 * untrusted bytes: every length is checked against what is really there
 * before anything is allocated.
 */
#ifndef VXT_VXTFILE_H
#define VXT_VXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/vxt.h"

#define VXT_SKIP_MAGIC		0x184D2A50u	/* zstd skippable frame, low nibble = unit */
#define VXT_UNIT_HEADER		0x0
#define VXT_UNIT_CHUNK		0x1
#define VXT_UNIT_FOOTER		0x2
#define VXT_UNIT_TRAILER	0x3
#define VXT_ZSTD_MAGIC		0xFD2FB528u

#define VXT_TAG_HEADER		0x48545856u	/* "VXTH" */
#define VXT_TAG_CHUNK		0x43545856u	/* "VXTC" */
#define VXT_TAG_FOOTER		0x46545856u	/* "VXTF" */
#define VXT_TAG_END		0x45545856u	/* "VXTE" */

#define VXT_TRAILER_SIZE	24		/* 8 frame header + 16 content */
#define VXT_UNIT_MAX		(64u << 20)	/* largest skippable unit we read */
#define VXT_FOOTER_MAX		(1u << 30)
#define VXT_CHUNK_DATA_MAX	(64u << 20)	/* largest compressed chunk */
#define VXT_CHUNK_RAW_MAX	(64u << 20)	/* largest encoded chunk */
#define VXT_CHUNK_EVENTS_MAX	(1u << 20)
#define VXT_OBJAGG_SIZE		192
#define VXT_OBJECTS_MAX		65536
#define VXT_STRINGS_MAX		(1u << 20)

/* A growable byte buffer for building units. */
struct vxt_buf {
	uint8_t *p;
	size_t len, cap;
	int err;		/* sticky -ENOMEM */
};

void vxt_buf_put(struct vxt_buf *b, const void *data, size_t len);
void vxt_buf_u8(struct vxt_buf *b, uint8_t v);
void vxt_buf_u32(struct vxt_buf *b, uint32_t v);
void vxt_buf_u64(struct vxt_buf *b, uint64_t v);
void vxt_buf_str(struct vxt_buf *b, const char *s, size_t fixed);	/* NUL padded */
void vxt_buf_free(struct vxt_buf *b);

/* A bounds-checked cursor over untrusted bytes. Reads past the end set ->bad. */
struct vxt_cur {
	const uint8_t *p, *end;
	bool bad;
};

uint8_t vxt_cur_u8(struct vxt_cur *c);
uint32_t vxt_cur_u32(struct vxt_cur *c);
uint64_t vxt_cur_u64(struct vxt_cur *c);
void vxt_cur_str(struct vxt_cur *c, char *out, size_t fixed);
const uint8_t *vxt_cur_take(struct vxt_cur *c, size_t len);

/* Start a skippable unit of kind @unit with @tag; finish with vxt_unit_end(),
 * which fills in the frame size and appends the CRC-32C of the content. */
size_t vxt_unit_begin(struct vxt_buf *b, unsigned unit, uint32_t tag);
void vxt_unit_end(struct vxt_buf *b, size_t start);

/* Object and string table deltas, as carried by the header and chunk entries. */
void vxt_put_objects(struct vxt_buf *b, const struct vxt_objtab *t, size_t from);
void vxt_put_strings(struct vxt_buf *b, const struct vxt_strtab *t, size_t from);
/* @return 0, -EBADMSG, or -ENOMEM. */
int vxt_get_objects(struct vxt_cur *c, struct vxt_objtab *t);
int vxt_get_strings(struct vxt_cur *c, struct vxt_strtab *t);

void vxt_put_objagg(struct vxt_buf *b, const struct vxt_objagg *a);
void vxt_get_objagg(struct vxt_cur *c, struct vxt_objagg *a);

static inline uint32_t vxt_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t vxt_le64(const uint8_t *p)
{
	return vxt_le32(p) | (uint64_t)vxt_le32(p + 4) << 32;
}

/* Count @e into an index entry's aggregate of its object, the rule every
 * index entry follows (writer and merged reader). @return true when @e is a
 * failed completion (the entry's nerrors counts it too). */
static inline bool vxt_objagg_add(struct vxt_objagg *a, const struct vxt_event *e)
{
	unsigned b;

	if (e->phase == VXT_PH_START) {
		a->starts++;
		return false;
	}
	if (e->phase != VXT_PH_DONE)
		return false;
	a->ios[e->op < VXT_OP_COUNT ? e->op : VXT_OP_OTHER]++;
	if (!e->error) {
		if (e->op == VXT_OP_READ)
			a->bytes_read += e->bytes;
		else if (e->op == VXT_OP_WRITE)
			a->bytes_written += e->bytes;
	} else {
		a->errors++;
	}
	a->lat_sum_ns += e->latency_ns;
	b = e->latency_ns ? 63u - (unsigned)__builtin_clzll(e->latency_ns) : 0;
	a->lat_hist[b < VXT_LAT_BUCKETS ? b : VXT_LAT_BUCKETS - 1]++;
	return e->error != 0;
}

#endif
