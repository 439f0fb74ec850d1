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
#include <string.h>

#include "codec.h"

#define SECTOR_SLOTS 256	/* last sector per (object id % SECTOR_SLOTS) */

enum { C_TIME, C_PHOP, C_OBJ, C_FLAGS, C_SECTOR, C_BYTES, C_LAT, C_ERR, C_PID, C_COMM, C_CPU };

size_t vxt_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

size_t vxt_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (size_t i = 0; i < 10 && p + i < end; i++) {
		r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (i == 9 && p[i] > 1)
				return 0;	/* beyond 64 bits */
			*v = r;
			return i + 1;
		}
	}
	return 0;
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

size_t vxt_codec_encode(const struct vxt_event *ev, size_t n, uint8_t *out)
{
	uint8_t *p = out + 4 * VXT_CODEC_COLUMNS;
	uint64_t last_sector[SECTOR_SLOTS] = { 0 };

	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		uint8_t *start = p;
		uint64_t prev = 0;

		for (size_t i = 0; i < n; i++) {
			const struct vxt_event *e = &ev[i];
			uint64_t *ls;

			switch (c) {
			case C_TIME:
				p += vxt_varint_put(p, vxt_zigzag((int64_t)(e->time_ns - prev)));
				prev = e->time_ns;
				break;
			case C_PHOP:
				p += vxt_varint_put(p, (uint64_t)e->phase << 4 | (e->op & 15));
				break;
			case C_OBJ:
				p += vxt_varint_put(p, e->object);
				break;
			case C_FLAGS:
				p += vxt_varint_put(p, e->flags);
				break;
			case C_SECTOR:
				ls = &last_sector[e->object % SECTOR_SLOTS];
				p += vxt_varint_put(p, vxt_zigzag((int64_t)(e->sector - *ls)));
				*ls = e->sector;
				break;
			case C_BYTES:
				p += vxt_varint_put(p, e->bytes);
				break;
			case C_LAT:
				p += vxt_varint_put(p, e->latency_ns);
				break;
			case C_ERR:
				p += vxt_varint_put(p, vxt_zigzag(e->error));
				break;
			case C_PID:
				p += vxt_varint_put(p, vxt_zigzag((int64_t)e->pid - (int64_t)prev));
				prev = e->pid;
				break;
			case C_COMM:
				p += vxt_varint_put(p, e->comm);
				break;
			case C_CPU:
				p += vxt_varint_put(p, e->cpu);
				break;
			}
		}
		put_u32(out + 4 * c, (uint32_t)(p - start));
	}
	return (size_t)(p - out);
}

int vxt_codec_decode(const uint8_t *in, size_t len, size_t n, struct vxt_event *ev,
		     uint32_t nobjs, uint32_t nstrs)
{
	const uint8_t *p = in + 4 * VXT_CODEC_COLUMNS, *end = in + len;
	uint64_t last_sector[SECTOR_SLOTS] = { 0 };

	if (len < 4 * VXT_CODEC_COLUMNS)
		return -EBADMSG;
	memset(ev, 0, n * sizeof(*ev));
	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		uint32_t clen = get_u32(in + 4 * c);
		const uint8_t *cend;
		uint64_t prev = 0, v;

		if (clen > (size_t)(end - p))
			return -EBADMSG;
		cend = p + clen;
		for (size_t i = 0; i < n; i++) {
			struct vxt_event *e = &ev[i];
			size_t k = vxt_varint_get(p, cend, &v);
			uint64_t *ls;

			if (!k)
				return -EBADMSG;
			p += k;
			switch (c) {
			case C_TIME:
				prev += (uint64_t)vxt_unzigzag(v);
				e->time_ns = prev;
				break;
			case C_PHOP:
				if ((v >> 4) >= VXT_PH_COUNT || (v & 15) >= VXT_OP_COUNT || v > 0xff)
					return -EBADMSG;
				e->phase = (uint8_t)(v >> 4);
				e->op = (uint8_t)(v & 15);
				break;
			case C_OBJ:
				if (v >= nobjs)
					return -EBADMSG;
				e->object = (uint32_t)v;
				break;
			case C_FLAGS:
				if (v > 0xffff)
					return -EBADMSG;
				e->flags = (uint16_t)v;
				break;
			case C_SECTOR:
				ls = &last_sector[e->object % SECTOR_SLOTS];
				*ls += (uint64_t)vxt_unzigzag(v);
				e->sector = *ls;
				break;
			case C_BYTES:
				if (v > UINT32_MAX)
					return -EBADMSG;
				e->bytes = (uint32_t)v;
				break;
			case C_LAT:
				e->latency_ns = v;
				break;
			case C_ERR: {
				int64_t err = vxt_unzigzag(v);

				if (err > 0 || err < -4095)
					return -EBADMSG;
				e->error = (int16_t)err;
				break;
			}
			case C_PID:
				prev = (uint64_t)((int64_t)prev + vxt_unzigzag(v));
				if (prev > UINT32_MAX)
					return -EBADMSG;
				e->pid = (uint32_t)prev;
				break;
			case C_COMM:
				if (v >= nstrs)
					return -EBADMSG;
				e->comm = (uint32_t)v;
				break;
			case C_CPU:
				if (v > 0xffff)
					return -EBADMSG;
				e->cpu = (uint16_t)v;
				break;
			}
		}
		if (p != cend)
			return -EBADMSG;
	}
	return p == end ? 0 : -EBADMSG;
}
