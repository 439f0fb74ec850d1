// SPDX-License-Identifier: GPL-2.0
/* pack.c - packed I/O records of a speculating channel (VOLIOT_SPEC_F_PACKED)
 *
 * A committed record is queued as VOLIOT_REC_IO_PACKED when that is shorter
 * than the record itself: only the fields that differ from the previous
 * record of the same type the channel queued (a time as a 32-bit delta, a
 * sector that follows on the previous I/O left out, a zero latency left
 * out). The first record of each type, and after VOLIOT_DISCARD, goes out
 * in full, so a reader always has what a packed record is told against.
 * The caller holds the channel's lock. Format: formats/channel.md.
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

void vxt_pack_reset(struct vxt_pack *pk, bool on)
{
	pk->on = on;
	pk->have = 0;
}

u32 vxt_pack_rec(const struct vxt_pack *pk, const struct voliot_io_rec *rec,
		 u8 *out)
{
	int slot = voliot_pk_slot(rec->type);
	const struct voliot_io_rec *prev;
	u16 f = 0;
	u32 o = VOLIOT_PK_HDR, n;
	u64 d;

	if (!pk->on || slot < 0 || !(pk->have & (1U << slot)))
		return 0;
	prev = &pk->last[slot];
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

void vxt_pack_sent(struct vxt_pack *pk, const struct voliot_io_rec *rec)
{
	int slot = voliot_pk_slot(rec->type);

	if (!pk->on || slot < 0)
		return;
	pk->last[slot] = *rec;
	pk->have |= 1U << slot;
}
