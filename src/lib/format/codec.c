/* codec.c - columnar, delta + zigzag varint encoding of event chunks
 *
 * Layout of an encoded block: VXT_CODEC_COLUMNS little-endian u32 column
 * lengths, then the columns in order. Every column holds exactly one value
 * per event; decode checks that each column is consumed exactly.
 * Sector deltas are kept per object (a small direct-mapped table of the last
 * sector by object id), so each object's sequential stream stays cheap even
 * when streams interleave.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "format/codec.h"


enum { C_TIME, C_PHOP, C_OBJ, C_FLAGS, C_SECTOR, C_BYTES, C_LAT, C_ERR, C_PID, C_COMM, C_CPU };

/*
 * Prefix varints: the number of trailing 1 bits of the first byte says how
 * many bytes follow (0..7, or 8 when the first byte is 0xFF), and the value
 * sits above those bits, little-endian. One length test and one unaligned
 * load decode any value.
 *   1 byte:  v < 2^7     first byte = v << 1
 *   L bytes: v < 2^(7L)  word = v << L | (2^(L-1) - 1), L <= 8
 *   9 bytes: first byte 0xFF, then v as 8 bytes
 */
static inline uint64_t load64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);	/* the format is little-endian, as is every host we build for */
	return w;
}

static inline unsigned varint_len(uint64_t v)
{
	unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
	unsigned len = (bits + 6) / 7;

	return len > 8 ? 9 : len;
}

/* Write @v at @p; up to 8 bytes past the value may be scribbled on. */
static inline size_t put_fast(uint8_t *p, uint64_t v)
{
	unsigned len;
	uint64_t w;

	if (v < 0x80) {
		*p = (uint8_t)(v << 1);
		return 1;
	}
	len = varint_len(v);
	if (len == 9) {
		p[0] = 0xff;
		memcpy(p + 1, &v, 8);
		return 9;
	}
	w = v << len | ((1ull << (len - 1)) - 1);
	memcpy(p, &w, 8);
	return len;
}

size_t vxt_varint_put(uint8_t *p, uint64_t v)
{
	uint8_t tmp[16];
	size_t n = put_fast(tmp, v);

	memcpy(p, tmp, n);
	return n;
}

size_t vxt_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint8_t tmp[16] = { 0 };
	unsigned len;

	if (p >= end)
		return 0;
	len = (unsigned)__builtin_ctz(~(unsigned)p[0]) + 1;
	if (len > (size_t)(end - p))
		return 0;
	memcpy(tmp, p, len);
	if (len == 9)
		*v = load64(tmp + 1);
	else
		*v = (load64(tmp) & (len == 8 ? ~0ull : (1ull << (8 * len)) - 1)) >> len;
	return len;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Encoding: one tight loop per column. */
#define PUT(expr) (p += put_fast(p, (expr)))

size_t vxt_codec_encode(const struct vxt_event *ev, size_t n, uint8_t *out)
{
	uint8_t *p = out + 4 * VXT_CODEC_COLUMNS, *col[VXT_CODEC_COLUMNS + 1];
	uint64_t last_sector[VXT_CODEC_SECTOR_SLOTS] = { 0 }, prev;
	size_t i;

	col[C_TIME] = p;
	for (i = 0, prev = 0; i < n; i++) {
		PUT(vxt_zigzag((int64_t)(ev[i].time_ns - prev)));
		prev = ev[i].time_ns;
	}
	col[C_PHOP] = p;
	for (i = 0; i < n; i++)
		PUT((uint64_t)ev[i].phase << 4 | (ev[i].op & 15));
	col[C_OBJ] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].object);
	col[C_FLAGS] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].flags);
	col[C_SECTOR] = p;
	for (i = 0; i < n; i++) {
		uint64_t *ls = &last_sector[ev[i].object % VXT_CODEC_SECTOR_SLOTS];

		PUT(vxt_zigzag((int64_t)(ev[i].sector - *ls)));
		*ls = ev[i].sector;
	}
	col[C_BYTES] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].bytes);
	col[C_LAT] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].latency_ns);
	col[C_ERR] = p;
	for (i = 0; i < n; i++)
		PUT(vxt_zigzag(ev[i].error));
	col[C_PID] = p;
	for (i = 0, prev = 0; i < n; i++) {
		PUT(vxt_zigzag((int64_t)ev[i].pid - (int64_t)prev));
		prev = ev[i].pid;
	}
	col[C_COMM] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].comm);
	col[C_CPU] = p;
	for (i = 0; i < n; i++)
		PUT(ev[i].cpu);
	col[VXT_CODEC_COLUMNS] = p;
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++)
		put_u32(out + 4 * c, (uint32_t)(col[c + 1] - col[c]));
	return (size_t)(p - out);
}

/* Decoding: one tight loop per column. The block is followed by at least 8
 * readable bytes (VXT_CODEC_SLACK), so a value is one load. GET() leaves the
 * column with -EBADMSG when a value runs past the column's end. */
static const uint64_t len_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull,
	0xffffffffffffffull, ~0ull,
};

#define GET(v)								\
	do {								\
		uint64_t w_ = load64(p);				\
		/* | 0x100: eight 0xff bytes make ~w_ zero (ctz of 0 is \
		 * undefined); the 9-byte form is taken for t_ == 8 */	\
		unsigned t_ = (unsigned)__builtin_ctzll(~w_ | 0x100);	\
		if (__builtin_expect(t_ < 8, 1)) {			\
			if (t_ + 1 > (size_t)(cend - p))		\
				return -EBADMSG;			\
			(v) = (w_ & len_mask[t_ + 1]) >> (t_ + 1);	\
			p += t_ + 1;					\
		} else {						\
			if (9 > cend - p)				\
				return -EBADMSG;			\
			(v) = load64(p + 1);				\
			p += 9;						\
		}							\
	} while (0)

/* A column as long as its event count holds one-byte values only (every
 * value takes at least one byte): each is its byte >> 1, with no length to
 * test. Most columns of a real capture are like this (op, object, flags,
 * error, comm, cpu). @return 0, or -EBADMSG when a byte is not a 1-byte
 * varint (then some value is longer and the column is short of values). */
/* As GET, for a value known to end inside the column. */
#define GET_FAST(v)							\
	do {								\
		uint64_t w_ = load64(p);				\
		unsigned t_ = (unsigned)__builtin_ctzll(~w_ | 0x100);	\
		if (__builtin_expect(t_ < 8, 1)) {			\
			(v) = (w_ & len_mask[t_ + 1]) >> (t_ + 1);	\
			p += t_ + 1;					\
		} else {						\
			(v) = load64(p + 1);				\
			p += 9;						\
		}							\
	} while (0)

/* Run BODY for each value of events [i, to), v holding the value:
 * without bound tests while nine bytes remain, then with them. */
#define EACH_VALUE(...)							\
	do {								\
		for (; fast && i < to && p <= safe; i++) {		\
			GET_FAST(v);					\
			__VA_ARGS__					\
		}							\
		for (; i < to; i++) {					\
			GET(v);						\
			__VA_ARGS__					\
		}							\
	} while (0)

static int decode_bytes(int c, const uint8_t *p, size_t n, struct vxt_event *ev,
			uint64_t *prevp, uint32_t nobjs, uint32_t nstrs)
{
	unsigned bad = 0;
	uint8_t all = 0;	/* a byte-wide accumulator: the loop vectorizes */
	size_t i;

	for (i = 0; i < n; i++)
		all |= p[i];
	if (all & 1)
		return -EBADMSG;
	/* columns that are all zero (no flags, no errors) need no tests */
	if (!all && (c == C_FLAGS || c == C_ERR)) {
		for (i = 0; i < n; i++) {
			if (c == C_FLAGS)
				ev[i].flags = 0;
			else
				ev[i].error = 0;
		}
		return 0;
	}
	switch (c) {
	case C_PHOP:
		for (i = 0; i < n; i++) {
			unsigned v = p[i] >> 1;

			bad |= (v >> 4 >= VXT_PH_COUNT) | ((v & 15) >= VXT_OP_COUNT);
			ev[i].phase = (uint8_t)(v >> 4);
			ev[i].op = (uint8_t)(v & 15);
		}
		break;
	case C_OBJ:
		for (i = 0; i < n; i++) {
			uint32_t v = p[i] >> 1;

			/* as below: a lost event's unknown object reads as 0 */
			if (v >= nobjs) {
				bad |= ev[i].phase != VXT_PH_LOST;
				v = 0;
			}
			ev[i].object = v;
		}
		break;
	case C_FLAGS:
		for (i = 0; i < n; i++)
			ev[i].flags = (uint16_t)(p[i] >> 1);
		break;
	case C_BYTES:
		for (i = 0; i < n; i++)
			ev[i].bytes = (uint32_t)(p[i] >> 1);
		break;
	case C_LAT:
		for (i = 0; i < n; i++)
			ev[i].latency_ns = (uint64_t)(p[i] >> 1);
		break;
	case C_ERR:
		for (i = 0; i < n; i++) {
			unsigned v = p[i] >> 1;

			/* 0 or a negative errno: zigzag makes those 0 or odd */
			bad |= (v != 0) & !(v & 1);
			ev[i].error = (int16_t)vxt_unzigzag(v);
		}
		break;
	case C_PID: {
		uint64_t prev = *prevp;

		for (i = 0; i < n; i++) {
			prev += (uint64_t)vxt_unzigzag(p[i] >> 1);	/* wraps, never overflows */
			bad |= prev > UINT32_MAX;
			ev[i].pid = (uint32_t)prev;
		}
		*prevp = prev;
		break;
	}
	case C_COMM:
		for (i = 0; i < n; i++)
			bad |= (uint32_t)(p[i] >> 1) >= nstrs;
		for (i = 0; i < n; i++)
			ev[i].comm = (uint32_t)(p[i] >> 1);
		break;
	case C_CPU:
		for (i = 0; i < n; i++)
			ev[i].cpu = (uint16_t)(p[i] >> 1);
		break;
	default:
		return 1;	/* deltas: the general loop */
	}
	return bad & 1 ? -EBADMSG : 0;
}

/* Decode events [@from, @to) of column @c (of @n in all) into @ev: the
 * column's next value is at *@pp, its end at @cend; *@prev is the last value
 * of a delta column, @last_sector the sector column's table. Both are moved
 * on; at to == n the column must end exactly. @return 0 or -EBADMSG. */
static int decode_range(int c, const uint8_t **pp, const uint8_t *cend, uint64_t *prevp,
			uint64_t *last_sector, size_t from, size_t to, size_t n,
			struct vxt_event *ev, uint32_t nobjs, uint32_t nstrs)
{
	const uint8_t *p = *pp;
	/* with nine bytes or more, a value starting at or before safe ends
	 * inside the column */
	const bool fast = cend - p >= 9;
	const uint8_t *safe = fast ? cend - 9 : p;
	uint64_t prev = *prevp, v;
	size_t i;

	/* as many bytes left as values: each is one byte, or the column is bad */
	if ((size_t)(cend - p) == n - from) {
		uint64_t prev1 = prev;
		int rc = decode_bytes(c, p, to - from, ev + from, &prev1, nobjs, nstrs);

		if (rc < 0)
			return rc;
		if (rc == 0) {
			*pp = p + (to - from);
			*prevp = prev1;
			return 0;
		}
	}
	/* a chunk of one process: its first pid, then deltas of 0 (one byte
	 * each) - the first alone, then the rest as above (once: the column
	 * then holds as many bytes as values) */
	if (c == C_PID && to - from > 1 && (size_t)(cend - p) > n - from) {
		unsigned t = (unsigned)__builtin_ctz(~(unsigned)p[0] | 0x100);
		size_t first = t < 8 ? t + 1 : 9;	/* the first value's length */

		if ((size_t)(cend - p) - first == n - from - 1) {
			int rc = decode_range(c, pp, cend, prevp, last_sector, from, from + 1, n, ev,
					      nobjs, nstrs);

			return rc < 0 ? rc : decode_range(c, pp, cend, prevp, last_sector, from + 1,
							  to, n, ev, nobjs, nstrs);
		}
	}
	i = from;
	switch (c) {
	case C_TIME:
		EACH_VALUE({
			prev += (uint64_t)vxt_unzigzag(v);
			ev[i].time_ns = prev;
		});
		break;
	case C_PHOP:
		EACH_VALUE({
			if ((v >> 4) >= VXT_PH_COUNT || (v & 15) >= VXT_OP_COUNT)
				return -EBADMSG;
			ev[i].phase = (uint8_t)(v >> 4);
			ev[i].op = (uint8_t)(v & 15);
		});
		break;
	case C_OBJ:
		EACH_VALUE({
			/* a lost event needs no object and may come before the
			 * first one is known: an id naming none is read as 0 */
			if (v >= nobjs && ev[i].phase == VXT_PH_LOST)
				v = 0;
			else if (v >= nobjs)
				return -EBADMSG;
			ev[i].object = (uint32_t)v;
		});
		break;
	case C_FLAGS:
		EACH_VALUE({
			if (v > 0xffff)
				return -EBADMSG;
			ev[i].flags = (uint16_t)v;
		});
		break;
	case C_SECTOR:
		EACH_VALUE({
			uint64_t *ls = &last_sector[ev[i].object % VXT_CODEC_SECTOR_SLOTS];

			*ls += (uint64_t)vxt_unzigzag(v);
			ev[i].sector = *ls;
		});
		break;
	case C_BYTES:
		EACH_VALUE({
			if (v > UINT32_MAX)
				return -EBADMSG;
			ev[i].bytes = (uint32_t)v;
		});
		break;
	case C_LAT:
		EACH_VALUE({
			ev[i].latency_ns = v;
		});
		break;
	case C_ERR:
		EACH_VALUE({
			int64_t err;

			err = vxt_unzigzag(v);
			if (err > 0 || err < -4095)
				return -EBADMSG;
			ev[i].error = (int16_t)err;
		});
		break;
	case C_PID:
		EACH_VALUE({
			prev += (uint64_t)vxt_unzigzag(v);	/* wraps, never overflows */
			if (prev > UINT32_MAX)
				return -EBADMSG;
			ev[i].pid = (uint32_t)prev;
		});
		break;
	case C_COMM:
		EACH_VALUE({
			if (v >= nstrs)
				return -EBADMSG;
			ev[i].comm = (uint32_t)v;
		});
		break;
	case C_CPU:
		EACH_VALUE({
			if (v > 0xffff)
				return -EBADMSG;
			ev[i].cpu = (uint16_t)v;
		});
		break;
	}
	*pp = p;
	*prevp = prev;
	return to < n || p == cend ? 0 : -EBADMSG;
}

int vxt_codec_decode_column(int c, const uint8_t *p, size_t clen, size_t n,
			    struct vxt_event *ev, uint32_t nobjs, uint32_t nstrs)
{
	uint64_t last_sector[VXT_CODEC_SECTOR_SLOTS], prev = 0;

	if (c == C_SECTOR)
		memset(last_sector, 0, sizeof(last_sector));
	return decode_range(c, &p, p + clen, &prev, last_sector, 0, n, n, ev, nobjs, nstrs);
}

void vxt_codec_steps_begin(struct vxt_codec_steps *s, const uint8_t *const col[],
			   const size_t len[], size_t n)
{
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		s->p[c] = col[c];
		s->end[c] = col[c] + len[c];
		s->prev[c] = 0;
	}
	memset(s->last_sector, 0, sizeof(s->last_sector));
	s->n = n;
	s->done = 0;
}

int vxt_codec_steps_decode(struct vxt_codec_steps *s, size_t upto, struct vxt_event *ev,
			   uint32_t nobjs, uint32_t nstrs)
{
	if (upto > s->n)
		upto = s->n;
	if (upto <= s->done)
		return 0;
	/* in column order: objects need the phases, sectors the objects */
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++)
		if (decode_range(c, &s->p[c], s->end[c], &s->prev[c], s->last_sector, s->done,
				 upto, s->n, ev, nobjs, nstrs) < 0)
			return -EBADMSG;
	s->done = upto;
	return 0;
}

int vxt_codec_decode(const uint8_t *in, size_t len, size_t n, struct vxt_event *ev,
		     uint32_t nobjs, uint32_t nstrs)
{
	const uint8_t *p = in + 4 * VXT_CODEC_COLUMNS, *end = in + len;

	if (len < 4 * VXT_CODEC_COLUMNS)
		return -EBADMSG;
	/* every field of struct vxt_event is set by exactly one column */
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		uint32_t clen = get_u32(in + 4 * c);
		int rc;

		if (clen > (size_t)(end - p))
			return -EBADMSG;
		rc = vxt_codec_decode_column(c, p, clen, n, ev, nobjs, nstrs);
		if (rc < 0)
			return rc;
		p += clen;
	}
	return p == end ? 0 : -EBADMSG;
}
