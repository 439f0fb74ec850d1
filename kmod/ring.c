// SPDX-License-Identifier: GPL-2.0
/* ring.c - byte rings of whole variable-length records
 *
 * A ring holds records back to back; byte 0 of each is its length, so a
 * reader can always tell where the next record ends. Writers check the
 * space first and never overwrite. Positions are running byte counts, the
 * offset in the buffer is the count modulo the size. Callers serialise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "vxtrace.h"

int vxt_ring_alloc(struct vxt_ring *r, u32 size)
{
	r->buf = kvmalloc(size, GFP_KERNEL);
	if (!r->buf)
		return -ENOMEM;
	r->size = size;
	r->head = 0;
	r->tail = 0;
	return 0;
}

void vxt_ring_free(struct vxt_ring *r)
{
	kvfree(r->buf);
	r->buf = NULL;
	r->size = 0;
}

void vxt_ring_reset(struct vxt_ring *r)
{
	r->tail = r->head;
}

void vxt_ring_put(struct vxt_ring *r, const void *src, u32 len)
{
	u32 off = r->head % r->size;
	u32 first = min(len, r->size - off);

	memcpy(r->buf + off, src, first);
	if (len > first)
		memcpy(r->buf, (const u8 *)src + first, len - first);
	r->head += len;
}

static void ring_copy_out(const struct vxt_ring *r, u64 pos, u8 *dst, u32 len)
{
	u32 off = pos % r->size;
	u32 first = min(len, r->size - off);

	memcpy(dst, r->buf + off, first);
	if (len > first)
		memcpy(dst + first, r->buf, len - first);
}

void vxt_ring_peek(const struct vxt_ring *r, u64 pos, u8 *dst, u32 len)
{
	ring_copy_out(r, pos, dst, len);
}

u32 vxt_ring_get_records(struct vxt_ring *r, u8 *dst, u32 max, u32 *next)
{
	u64 pos = r->tail;
	u32 n = 0, len = 0;

	while (pos < r->head) {
		len = r->buf[pos % r->size];
		if (WARN_ON_ONCE(len < 2 || len > r->head - pos)) {
			/* Cannot happen; drop the rest rather than loop. */
			r->head = pos;
			len = 0;
			break;
		}
		if (n + len > max)
			break;
		pos += len;
		n += len;
		len = 0;
	}
	if (n)
		ring_copy_out(r, r->tail, dst, n);
	r->tail = pos;
	*next = len;
	return n;
}
