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
	default:
		return 2;
	}
}

/* Decode one complete record @p of @len bytes. @return 1 known, 0 unknown, -EBADMSG. */
static int decode(const uint8_t *p, size_t len, struct vxt_chanrec *r)
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
	struct vxt_chanrec rec;
	int rc = decode(p, len, &rec);

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
