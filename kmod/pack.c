// SPDX-License-Identifier: GPL-2.0
/* pack.c - packed I/O records of a speculating channel
 *
 * A committed record is queued in a shorter form when that is shorter than
 * the record itself. VOLIOT_REC_IO_COMPACT (VOLIOT_SPEC_F_COMPACT): varints
 * of how it differs from a base, the previous record of its type or, for a
 * completion, its own start among the latest starts queued (the I/O's
 * fields already went out with it). VOLIOT_REC_IO_PACKED
 * (VOLIOT_SPEC_F_PACKED alone): fixed-width fields that differ from the
 * previous record of the same type. The first record of each type, and
 * after VOLIOT_DISCARD, goes out in full, so a reader always has what a
 * packed record is told against. VOLIOT_REC_IO_PAIR (VOLIOT_SPEC_F_PAIR):
 * a completion queued right after its compact start, while the reader has
 * not taken it, is written as one record with it, saving the completion's
 * length and type. The caller holds the channel's lock.
 * Format: formats/channel.md.
 */
#include <linux/string.h>

#include "vxtrace.h"

static u32 put_le(u8 *p, u64 v, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
	return n;
}

void vxt_pack_reset(struct vxt_pack *pk, u32 flags)
{
	pk->flags = flags & (VOLIOT_SPEC_F_PACKED | VOLIOT_SPEC_F_COMPACT |
			     VOLIOT_SPEC_F_PAIR);
	pk->pair_ok = false;
	pk->have = 0;
	pk->nstarts = 0;
	pk->start_at = 0;
}

/* ---- VOLIOT_REC_IO_COMPACT ---- */

static u32 put_var(u8 *p, u64 v)
{
	u32 n = 0;

	while (v >= 0x80) {
		p[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	p[n++] = v;
	return n;
}

static u32 var_len(u64 v)
{
	u32 n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static u64 zigzag(s64 v)
{
	return ((u64)v << 1) ^ (u64)(v >> 63);
}

/* The @ref-th latest start queued (1 = the latest). */
static const struct voliot_io_rec *pack_start(const struct vxt_pack *pk, u32 ref)
{
	return &pk->starts[(pk->start_at + VOLIOT_CP_STARTS - (ref - 1)) %
			   VOLIOT_CP_STARTS];
}

/* The latest start a completion or requeue @rec belongs to: 1.., or 0. */
static u32 pack_find_start(const struct vxt_pack *pk,
			   const struct voliot_io_rec *rec)
{
	const struct voliot_io_rec *s;
	u32 ref;

	if (rec->type == VOLIOT_REC_IO_START)
		return 0;
	for (ref = 1; ref <= pk->nstarts; ref++) {
		s = pack_start(pk, ref);
		if (s->dev == rec->dev && s->sector == rec->sector)
			return ref;
	}
	return 0;
}

static u32 pack_compact(const struct vxt_pack *pk, int slot,
			const struct voliot_io_rec *rec, u8 *out)
{
	u32 ref = pack_find_start(pk, rec), o = 3, n;
	const struct voliot_io_rec *prev = &pk->last[slot];
	const struct voliot_io_rec *base = ref ? pack_start(pk, ref) : prev;
	u64 sector = ref ? base->sector : base->sector + base->bytes / 512;
	u64 lat = 0, zs = 0;
	u16 more = 0;
	u8 head = slot | ref << VOLIOT_CP_REF_SHIFT;

	if (rec->time_ns != base->time_ns)
		head |= VOLIOT_CP_TIME;
	if (rec->sector != sector) {
		zs = zigzag(rec->sector - sector);
		if (var_len(rec->sector) <= var_len(zs))
			head |= VOLIOT_CP_SECTOR_ABS;
		else
			more |= VOLIOT_CPM_SECTOR;
	}
	if (ref && rec->type == VOLIOT_REC_IO_DONE)
		lat = rec->time_ns - base->time_ns;
	if (rec->latency_ns != lat)
		more |= VOLIOT_CPM_LATENCY;
	if (rec->cpu != prev->cpu)
		more |= VOLIOT_CPM_CPU;
	if (rec->pid != prev->pid)
		more |= VOLIOT_CPM_PID;
	if (rec->error != prev->error)
		more |= VOLIOT_CPM_ERROR;
	if (memcmp(rec->comm, prev->comm, sizeof(rec->comm)))
		more |= VOLIOT_CPM_COMM;
	if (rec->bytes != base->bytes)
		more |= VOLIOT_CPM_BYTES;
	if (rec->dev != base->dev)
		more |= VOLIOT_CPM_DEV;
	if (rec->op != base->op)
		more |= VOLIOT_CPM_OP;
	if (rec->flags != base->flags)
		more |= VOLIOT_CPM_FLAGS;
	if (more) {
		head |= VOLIOT_CP_MORE;
		o += put_var(out + o, more);
	}
	if (head & VOLIOT_CP_TIME)
		o += put_var(out + o, zigzag(rec->time_ns - base->time_ns));
	if (head & VOLIOT_CP_SECTOR_ABS)
		o += put_var(out + o, rec->sector);
	if (more & VOLIOT_CPM_SECTOR)
		o += put_var(out + o, zs);
	if (more & VOLIOT_CPM_LATENCY)
		o += put_var(out + o, zigzag(rec->latency_ns - lat));
	if (more & VOLIOT_CPM_CPU)
		o += put_var(out + o, rec->cpu);
	if (more & VOLIOT_CPM_PID)
		o += put_var(out + o, rec->pid);
	if (more & VOLIOT_CPM_ERROR)
		o += put_var(out + o, zigzag(rec->error));
	if (more & VOLIOT_CPM_COMM) {
		n = strnlen(rec->comm, sizeof(rec->comm));
		out[o++] = n;
		memcpy(out + o, rec->comm, n);
		o += n;
	}
	if (more & VOLIOT_CPM_BYTES)
		o += put_var(out + o, rec->bytes);
	if (more & VOLIOT_CPM_DEV)
		o += put_var(out + o, rec->dev);
	if (more & VOLIOT_CPM_OP)
		o += put_var(out + o, rec->op);
	if (more & VOLIOT_CPM_FLAGS)
		o += put_var(out + o, rec->flags);
	if (o >= sizeof(*rec))
		return 0;
	out[0] = o;
	out[1] = VOLIOT_REC_IO_COMPACT;
	out[2] = head;
	return o;
}

/* ---- VOLIOT_REC_IO_PACKED ---- */

static u32 pack_fixed(const struct voliot_io_rec *prev,
		      const struct voliot_io_rec *rec, u8 *out)
{
	u16 f = 0;
	u32 o = VOLIOT_PK_HDR, n;
	u64 d;

	if (rec->op != prev->op) {
		f |= VOLIOT_PK_OP;
		o += put_le(out + o, rec->op, 1);
	}
	if (rec->flags != prev->flags) {
		f |= VOLIOT_PK_FLAGS;
		o += put_le(out + o, rec->flags, 2);
	}
	if (rec->cpu != prev->cpu) {
		f |= VOLIOT_PK_CPU;
		o += put_le(out + o, rec->cpu, 2);
	}
	if (rec->dev != prev->dev) {
		f |= VOLIOT_PK_DEV;
		o += put_le(out + o, rec->dev, 4);
	}
	if (rec->pid != prev->pid) {
		f |= VOLIOT_PK_PID;
		o += put_le(out + o, rec->pid, 4);
	}
	if (rec->bytes != prev->bytes) {
		f |= VOLIOT_PK_BYTES;
		o += put_le(out + o, rec->bytes, 4);
	}
	if (rec->error != prev->error) {
		f |= VOLIOT_PK_ERROR;
		o += put_le(out + o, (u32)rec->error, 4);
	}
	d = rec->time_ns - prev->time_ns;
	if (rec->time_ns < prev->time_ns || d > U32_MAX) {
		f |= VOLIOT_PK_TIME;
		o += put_le(out + o, rec->time_ns, 8);
	} else if (d) {
		f |= VOLIOT_PK_TIME_DELTA;
		o += put_le(out + o, d, 4);
	}
	if (rec->sector != prev->sector + prev->bytes / 512) {
		if (rec->sector > U32_MAX) {
			f |= VOLIOT_PK_SECTOR;
			o += put_le(out + o, rec->sector, 8);
		} else {
			f |= VOLIOT_PK_SECTOR32;
			o += put_le(out + o, rec->sector, 4);
		}
	}
	if (rec->latency_ns > U32_MAX) {
		f |= VOLIOT_PK_LATENCY;
		o += put_le(out + o, rec->latency_ns, 8);
	} else if (rec->latency_ns) {
		f |= VOLIOT_PK_LATENCY32;
		o += put_le(out + o, rec->latency_ns, 4);
	}
	if (memcmp(rec->comm, prev->comm, sizeof(rec->comm))) {
		n = strnlen(rec->comm, sizeof(rec->comm));
		f |= VOLIOT_PK_COMM;
		out[o++] = n;
		memcpy(out + o, rec->comm, n);
		o += n;
	}
	if (o >= sizeof(*rec))
		return 0;
	out[0] = o;
	out[1] = VOLIOT_REC_IO_PACKED;
	out[2] = rec->type;
	put_le(out + 3, f, 2);
	return o;
}

u32 vxt_pack_rec(const struct vxt_pack *pk, const struct voliot_io_rec *rec,
		 u8 *out)
{
	int slot = voliot_pk_slot(rec->type);

	if (!pk->flags || slot < 0 || !(pk->have & (1U << slot)))
		return 0;
	if (pk->flags & VOLIOT_SPEC_F_COMPACT)
		return pack_compact(pk, slot, rec, out);
	return pack_fixed(&pk->last[slot], rec, out);
}

bool vxt_pack_pair(struct vxt_pack *pk, struct vxt_ring *r,
		   const struct voliot_io_rec *rec)
{
	u8 out[2 * VOLIOT_CP_MAX], done[VOLIOT_CP_MAX];
	int slot = voliot_pk_slot(rec->type);
	u32 n;

	if (!(pk->flags & VOLIOT_SPEC_F_PAIR) || !(pk->flags & VOLIOT_SPEC_F_COMPACT) ||
	    !pk->pair_ok || rec->type != VOLIOT_REC_IO_DONE ||
	    !(pk->have & (1U << slot)) || pk->pair_pos < r->tail ||
	    pk->pair_pos + pk->pair_len != r->head || pack_find_start(pk, rec) != 1)
		return false;
	n = pack_compact(pk, slot, rec, done);
	if (!n || pk->pair_len + n - 2 > U8_MAX || n - 2 > vxt_ring_space(r))
		return false;
	/* the start from its head on, then the completion from its head on */
	vxt_ring_peek(r, pk->pair_pos, out, pk->pair_len);
	memcpy(out + pk->pair_len, done + 2, n - 2);
	out[0] = pk->pair_len + n - 2;
	out[1] = VOLIOT_REC_IO_PAIR;
	r->head = pk->pair_pos;
	vxt_ring_put(r, out, out[0]);
	pk->pair_ok = false;
	return true;
}

void vxt_pack_sent(struct vxt_pack *pk, const struct voliot_io_rec *rec,
		   const u8 *out, u32 len, u64 pos)
{
	int slot = voliot_pk_slot(rec->type);

	pk->pair_ok = len && out[1] == VOLIOT_REC_IO_COMPACT &&
		      rec->type == VOLIOT_REC_IO_START;
	pk->pair_len = len;
	pk->pair_pos = pos;
	if (!pk->flags || slot < 0)
		return;
	pk->last[slot] = *rec;
	pk->have |= 1U << slot;
	if (rec->type != VOLIOT_REC_IO_START)
		return;
	pk->start_at = (pk->start_at + 1) % VOLIOT_CP_STARTS;
	pk->starts[pk->start_at] = *rec;
	if (pk->nstarts < VOLIOT_CP_STARTS)
		pk->nstarts++;
}
