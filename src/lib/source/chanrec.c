/* chanrec.c - decoder for the /dev/vxtrace record stream
 *
 * Invariant: d->partial holds the head of one unfinished record (fewer bytes
 * than its length byte says); everything before it has been handed out.
 */
#include <errno.h>
#include <string.h>

#include "vxtrace/chanrec.h"

static inline uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The fields a packed record with no previous record of its type must hold. */
#define PK_SELF (VOLIOT_PK_OP | VOLIOT_PK_FLAGS | VOLIOT_PK_CPU | VOLIOT_PK_DEV | VOLIOT_PK_PID | \
		 VOLIOT_PK_BYTES | VOLIOT_PK_ERROR | VOLIOT_PK_TIME | VOLIOT_PK_COMM)

/* Bytes of the field @bit of a packed record; 0 for the comm (counted). */
static size_t pk_size(uint16_t bit)
{
	switch (bit) {
	case VOLIOT_PK_OP:
		return 1;
	case VOLIOT_PK_FLAGS:
	case VOLIOT_PK_CPU:
		return 2;
	case VOLIOT_PK_TIME:
	case VOLIOT_PK_SECTOR:
	case VOLIOT_PK_LATENCY:
		return 8;
	case VOLIOT_PK_COMM:
		return 0;
	default:
		return 4;
	}
}

static uint64_t le_n(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Remember @io, just decoded, as the previous record of its type. */
/* A command name as packed and compact records carry it: a length byte,
 * then that many bytes (at most the field's size), at *o; *o moves past it.
 * @return false when it runs past @len or is too long. */
static bool get_comm(const uint8_t *p, size_t len, size_t *o,
		     char comm[sizeof(((struct voliot_io_rec *)0)->comm)])
{
	const size_t size = sizeof(((struct voliot_io_rec *)0)->comm);
	size_t n;

	if (*o >= len || p[*o] > size || len - *o - 1 < p[*o])
		return false;
	n = p[*o];
	memset(comm, 0, size);
	memcpy(comm, p + *o + 1, n);
	comm[size - 1] = '\0';
	*o += 1 + n;
	return true;
}

static void note_io(struct vxt_chandec *d, const struct voliot_io_rec *io)
{
	int slot = voliot_pk_slot(io->type);

	if (slot < 0)
		return;
	d->last[slot] = *io;
	d->have |= (uint8_t)(1u << slot);
	if (io->type != VOLIOT_REC_IO_START)
		return;
	d->start_at = (uint8_t)((d->start_at + 1) % VOLIOT_CP_STARTS);
	d->starts[d->start_at] = *io;
	if (d->nstarts < VOLIOT_CP_STARTS)
		d->nstarts++;
}

/* VOLIOT_REC_IO_PACKED: the I/O record it stands for, from its fields and
 * the previous record of the same type. @return 1 or -EBADMSG. */
static int decode_packed(struct vxt_chandec *d, const uint8_t *p, size_t len,
			 struct vxt_chanrec *r)
{
	int slot = voliot_pk_slot(p[2]);
	uint16_t f = le16(p + 3), bit;
	struct voliot_io_rec io, prev;
	size_t o = VOLIOT_PK_HDR, n;
	uint64_t v;

	if (slot < 0 || (f & ~VOLIOT_PK_ALL) ||
	    ((f & VOLIOT_PK_TIME) && (f & VOLIOT_PK_TIME_DELTA)) ||
	    ((f & VOLIOT_PK_SECTOR) && (f & VOLIOT_PK_SECTOR32)) ||
	    ((f & VOLIOT_PK_LATENCY) && (f & VOLIOT_PK_LATENCY32)))
		return -EBADMSG;
	if (!(d->have & 1u << slot)) {
		if ((f & PK_SELF) != PK_SELF || !(f & (VOLIOT_PK_SECTOR | VOLIOT_PK_SECTOR32)))
			return -EBADMSG;
		memset(&prev, 0, sizeof(prev));
	} else {
		prev = d->last[slot];
	}
	io = prev;
	io.sector = prev.sector + prev.bytes / 512;
	io.latency_ns = 0;
	for (bit = 1; bit && bit <= VOLIOT_PK_ALL; bit <<= 1) {
		if (!(f & bit))
			continue;
		if (bit == VOLIOT_PK_COMM) {
			if (!get_comm(p, len, &o, io.comm))
				return -EBADMSG;
			continue;
		}
		n = pk_size(bit);
		if (len - o < n)
			return -EBADMSG;
		v = le_n(p + o, n);
		o += n;
		switch (bit) {
		case VOLIOT_PK_OP: io.op = (uint8_t)v; break;
		case VOLIOT_PK_FLAGS: io.flags = (uint16_t)v; break;
		case VOLIOT_PK_CPU: io.cpu = (uint16_t)v; break;
		case VOLIOT_PK_DEV: io.dev = (uint32_t)v; break;
		case VOLIOT_PK_PID: io.pid = (uint32_t)v; break;
		case VOLIOT_PK_BYTES: io.bytes = (uint32_t)v; break;
		case VOLIOT_PK_ERROR: io.error = (int32_t)(uint32_t)v; break;
		case VOLIOT_PK_TIME: io.time_ns = v; break;
		case VOLIOT_PK_TIME_DELTA: io.time_ns = prev.time_ns + v; break;
		case VOLIOT_PK_SECTOR: case VOLIOT_PK_SECTOR32: io.sector = v; break;
		default: io.latency_ns = v; break;	/* the two latencies */
		}
	}
	if (o != len)
		return -EBADMSG;
	io.len = sizeof(io);
	io.type = p[2];
	io.reserved0 = 0;
	note_io(d, &io);
	r->len = sizeof(io);
	r->type = p[2];
	r->u.io = io;
	return 1;
}

/* An unsigned LEB128 varint at @p[*o], below @len; false when it runs past
 * @len or past 64 bits. */
static bool get_var(const uint8_t *p, size_t len, size_t *o, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		if (*o >= len || shift > 63)
			return false;
		if (shift == 63 && p[*o] > 1)
			return false;
		*v |= (uint64_t)(p[*o] & 0x7f) << shift;
		shift += 7;
		if (!(p[(*o)++] & 0x80))
			return true;
	}
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A compact record from its head at @p[*at] on, its fields below @len: the
 * I/O record it stands for, from its fields, its base and the previous
 * record of its type; *at is left where its fields end. @return 1 or
 * -EBADMSG. */
static int decode_compact_at(struct vxt_chandec *d, const uint8_t *p, size_t *at, size_t len,
			     struct vxt_chanrec *r)
{
	const uint8_t head = p[*at];
	static const uint8_t type[VOLIOT_PK_SLOTS] = {
		VOLIOT_REC_IO_START, VOLIOT_REC_IO_DONE, VOLIOT_REC_REQUEUE
	};
	unsigned slot = head & VOLIOT_CP_KIND;
	unsigned ref = (head & VOLIOT_CP_REF) >> VOLIOT_CP_REF_SHIFT;
	const struct voliot_io_rec *prev, *base;
	struct voliot_io_rec io;
	uint64_t more = 0, v, lat = 0;
	size_t o = *at + 1;

	if (slot >= VOLIOT_PK_SLOTS || !(d->have & 1u << slot) || ref > d->nstarts)
		return -EBADMSG;
	prev = &d->last[slot];
	base = ref ? &d->starts[(d->start_at + VOLIOT_CP_STARTS - (ref - 1)) % VOLIOT_CP_STARTS] :
		     prev;
	memset(&io, 0, sizeof(io));
	io.len = sizeof(io);
	io.type = type[slot];
	io.time_ns = base->time_ns;
	io.sector = ref ? base->sector : base->sector + base->bytes / 512;
	io.cpu = prev->cpu;
	io.pid = prev->pid;
	io.error = prev->error;
	memcpy(io.comm, prev->comm, sizeof(io.comm));
	io.bytes = base->bytes;
	io.dev = base->dev;
	io.op = base->op;
	io.flags = base->flags;
	if (head & VOLIOT_CP_MORE) {
		if (!get_var(p, len, &o, &more) || !more || (more & ~(uint64_t)VOLIOT_CPM_ALL) ||
		    ((more & VOLIOT_CPM_SECTOR) && (head & VOLIOT_CP_SECTOR_ABS)))
			return -EBADMSG;
	}
	if (head & VOLIOT_CP_TIME) {
		if (!get_var(p, len, &o, &v))
			return -EBADMSG;
		io.time_ns = base->time_ns + (uint64_t)unzigzag(v);
	}
	if (head & VOLIOT_CP_SECTOR_ABS) {
		if (!get_var(p, len, &o, &v))
			return -EBADMSG;
		io.sector = v;
	}
	if (ref && io.type == VOLIOT_REC_IO_DONE)
		lat = io.time_ns - base->time_ns;
	io.latency_ns = lat;
	for (v = 1; v <= VOLIOT_CPM_ALL; v <<= 1) {
		uint64_t x;

		if (!(more & v))
			continue;
		if (v == VOLIOT_CPM_COMM) {
			if (!get_comm(p, len, &o, io.comm))
				return -EBADMSG;
			continue;
		}
		if (!get_var(p, len, &o, &x))
			return -EBADMSG;
		switch (v) {
		case VOLIOT_CPM_SECTOR: io.sector += (uint64_t)unzigzag(x); break;
		case VOLIOT_CPM_LATENCY: io.latency_ns = lat + (uint64_t)unzigzag(x); break;
		case VOLIOT_CPM_CPU: io.cpu = (uint16_t)x; if (x > UINT16_MAX) return -EBADMSG; break;
		case VOLIOT_CPM_PID: io.pid = (uint32_t)x; if (x > UINT32_MAX) return -EBADMSG; break;
		case VOLIOT_CPM_ERROR:
			if (unzigzag(x) < INT32_MIN || unzigzag(x) > INT32_MAX)
				return -EBADMSG;
			io.error = (int32_t)unzigzag(x);
			break;
		case VOLIOT_CPM_BYTES: io.bytes = (uint32_t)x; if (x > UINT32_MAX) return -EBADMSG; break;
		case VOLIOT_CPM_DEV: io.dev = (uint32_t)x; if (x > UINT32_MAX) return -EBADMSG; break;
		case VOLIOT_CPM_OP: io.op = (uint8_t)x; if (x > UINT8_MAX) return -EBADMSG; break;
		default: io.flags = (uint16_t)x; if (x > UINT16_MAX) return -EBADMSG; break;
		}
	}
	*at = o;
	note_io(d, &io);
	r->len = sizeof(io);
	r->type = io.type;
	r->u.io = io;
	return 1;
}

/* VOLIOT_REC_IO_COMPACT: one compact record, exactly @len bytes. */
static int decode_compact(struct vxt_chandec *d, const uint8_t *p, size_t len,
			  struct vxt_chanrec *r)
{
	size_t at = 2;
	int rc = decode_compact_at(d, p, &at, len, r);

	return rc < 0 || at == len ? rc : -EBADMSG;
}

/* VOLIOT_REC_IO_PAIR: the two compact records in it, exactly @len bytes.
 * @return 1 or -EBADMSG. */
static int decode_pair(struct vxt_chandec *d, const uint8_t *p, size_t len,
		       struct vxt_chanrec *r1, struct vxt_chanrec *r2)
{
	size_t at = 2;

	if (decode_compact_at(d, p, &at, len, r1) < 0 || at >= len ||
	    decode_compact_at(d, p, &at, len, r2) < 0 || at != len)
		return -EBADMSG;
	return 1;
}
/* Smallest length a known type needs; 2 for unknown types. */
static size_t min_len(uint8_t type)
{
	if (vxt_chanrec_is_io(type))
		return sizeof(struct voliot_io_rec);
	switch (type) {
	case VOLIOT_REC_LOST:
		return sizeof(struct voliot_lost_rec);
	case VOLIOT_REC_OBJECT:
		return sizeof(struct voliot_object_rec);
	case VOLIOT_REC_CLOCK:
		return sizeof(struct voliot_clock_rec);
	case VOLIOT_REC_SPEC_STATS:
		return sizeof(struct voliot_spec_stats);
	case VOLIOT_REC_SPEC_HORIZON:
		return sizeof(struct voliot_spec_horizon);
	case VOLIOT_REC_IO_PACKED:
		return VOLIOT_PK_HDR;
	case VOLIOT_REC_IO_COMPACT:
		return 3;
	case VOLIOT_REC_IO_PAIR:
		return 4;
	default:
		return 2;
	}
}

/* Decode one complete record @p of @len bytes. @return 1 known, 0 unknown, -EBADMSG. */
static int decode(struct vxt_chandec *d, const uint8_t *p, size_t len, struct vxt_chanrec *r)
{
	r->len = p[0];
	r->type = p[1];
	if (len < 2)
		return -EBADMSG;
	if (min_len(r->type) == 2)
		return 0;
	if (len < min_len(r->type))
		return -EBADMSG;
	switch (r->type) {
	case VOLIOT_REC_IO_PACKED:
		return decode_packed(d, p, len, r);
	case VOLIOT_REC_IO_COMPACT:
		return decode_compact(d, p, len, r);
	case VOLIOT_REC_IO_PAIR:	/* emit() takes it; here only too short */
		return -EBADMSG;
	case VOLIOT_REC_LOST:
		r->u.lost.len = p[0];
		r->u.lost.type = p[1];
		r->u.lost.count = le64(p + 8);
		r->u.lost.time_ns = le64(p + 16);
		return 1;
	case VOLIOT_REC_OBJECT:
		r->u.object.len = p[0];
		r->u.object.type = p[1];
		r->u.object.kind = p[2];
		r->u.object.dev = le32(p + 4);
		r->u.object.nr_sectors = le64(p + 8);
		memcpy(r->u.object.name, p + 16, sizeof(r->u.object.name));
		r->u.object.name[sizeof(r->u.object.name) - 1] = '\0';
		return 1;
	case VOLIOT_REC_CLOCK:
		r->u.clock.len = p[0];
		r->u.clock.type = p[1];
		r->u.clock.mono_ns = le64(p + 8);
		r->u.clock.real_ns = le64(p + 16);
		return 1;
	case VOLIOT_REC_SPEC_HORIZON:
		memset(&r->u.horizon, 0, sizeof(r->u.horizon));
		r->u.horizon.len = p[0];
		r->u.horizon.type = p[1];
		r->u.horizon.time_ns = le64(p + 8);
		r->u.horizon.horizon_ns = le64(p + 16);
		return 1;
	case VOLIOT_REC_SPEC_STATS: {
		__u64 *f = &r->u.stats.time_ns;
		size_t i, n = (sizeof(r->u.stats) - 8) / 8;

		memset(&r->u.stats, 0, sizeof(r->u.stats));
		r->u.stats.len = p[0];
		r->u.stats.type = p[1];
		for (i = 0; i < n; i++)
			f[i] = le64(p + 8 + 8 * i);
		return 1;
	}
	default: /* the I/O records */
		r->u.io.len = p[0];
		r->u.io.type = p[1];
		r->u.io.op = p[2];
		r->u.io.reserved0 = 0;
		r->u.io.flags = le16(p + 4);
		r->u.io.cpu = le16(p + 6);
		r->u.io.dev = le32(p + 8);
		r->u.io.pid = le32(p + 12);
		r->u.io.bytes = le32(p + 16);
		r->u.io.error = (int32_t)le32(p + 20);
		r->u.io.time_ns = le64(p + 24);
		r->u.io.sector = le64(p + 32);
		r->u.io.latency_ns = le64(p + 40);
		memcpy(r->u.io.comm, p + 48, sizeof(r->u.io.comm));
		r->u.io.comm[sizeof(r->u.io.comm) - 1] = '\0';
		if (r->type == VOLIOT_REC_REMAP) {
			/* a module before the source sent the I/O record alone */
			bool from = len >= sizeof(struct voliot_remap_rec);

			r->u.remap.old_dev = from ? le32(p + 64) : 0;
			r->u.remap.reserved = 0;
			r->u.remap.old_sector = from ? le64(p + 72) : 0;
		}
		note_io(d, &r->u.io);
		return 1;
	}
}

void vxt_chandec_init(struct vxt_chandec *d)
{
	memset(d, 0, sizeof(*d));
}

static int emit(struct vxt_chandec *d, const uint8_t *p, size_t len,
		vxt_chanrec_fn fn, void *arg)
{
	struct vxt_chanrec rec, rec2;
	int rc;

	if (p[1] == VOLIOT_REC_IO_PAIR && len >= min_len(p[1])) {
		rc = decode_pair(d, p, len, &rec, &rec2);
		if (rc < 0)
			return rc;
		d->offset += len;
		d->records += 2;
		rc = fn ? fn(&rec, arg) : 0;
		return rc ? rc : fn ? fn(&rec2, arg) : 0;
	}
	rc = decode(d, p, len, &rec);
	if (rc < 0)
		return rc;
	d->offset += len;
	if (rc == 0) {
		d->skipped++;
		return 0;
	}
	d->records++;
	return fn ? fn(&rec, arg) : 0;
}

int vxt_chandec_feed(struct vxt_chandec *d, const void *buf, size_t len,
		     vxt_chanrec_fn fn, void *arg)
{
	const uint8_t *p = buf;
	int rc;

	/* Finish a record held back from the previous buffer. */
	if (d->npartial) {
		size_t need = d->partial[0] - d->npartial;
		size_t take = need < len ? need : len;

		memcpy(d->partial + d->npartial, p, take);
		d->npartial += take;
		p += take;
		len -= take;
		if (d->npartial < d->partial[0])
			return 0;
		d->npartial = 0;
		rc = emit(d, d->partial, d->partial[0], fn, arg);
		if (rc)
			return rc;
	}
	while (len) {
		size_t rlen = p[0];

		if (rlen < 2)
			return -EBADMSG;
		if (rlen > len) {
			memcpy(d->partial, p, len);
			d->npartial = len;
			return 0;
		}
		rc = emit(d, p, rlen, fn, arg);
		if (rc)
			return rc;
		p += rlen;
		len -= rlen;
	}
	return 0;
}
