/* blktrace.c - decode and encode blktrace's 48-byte trace records
 *
 * Byte order is explicit (never "native"), so little- and big-endian
 * captures read the same on any host.
 */
#include <errno.h>
#include <string.h>

#include "vxtrace/blktrace.h"
#include "vxtrace/event.h"

static uint16_t get16(const unsigned char *p, enum vxt_blk_order o)
{
	return o == VXT_BLK_ORDER_BE ? (uint16_t)(p[0] << 8 | p[1]) :
				       (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t get32(const unsigned char *p, enum vxt_blk_order o)
{
	if (o == VXT_BLK_ORDER_BE)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t get64(const unsigned char *p, enum vxt_blk_order o)
{
	uint64_t a = get32(p, o), b = get32(p + 4, o);

	return o == VXT_BLK_ORDER_BE ? a << 32 | b : b << 32 | a;
}

static void put16(unsigned char *p, enum vxt_blk_order o, uint16_t v)
{
	if (o == VXT_BLK_ORDER_BE) {
		p[0] = (unsigned char)(v >> 8);
		p[1] = (unsigned char)v;
	} else {
		p[0] = (unsigned char)v;
		p[1] = (unsigned char)(v >> 8);
	}
}

static void put32(unsigned char *p, enum vxt_blk_order o, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[o == VXT_BLK_ORDER_BE ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, enum vxt_blk_order o, uint64_t v)
{
	put32(p + (o == VXT_BLK_ORDER_BE ? 4 : 0), o, (uint32_t)v);
	put32(p + (o == VXT_BLK_ORDER_BE ? 0 : 4), o, (uint32_t)(v >> 32));
}

uint32_t vxt_blk_u32(const void *p, enum vxt_blk_order order)
{
	return get32(p, order);
}

int vxt_blk_decode(const void *buf, enum vxt_blk_order *order, struct vxt_blk_rec *r)
{
	const unsigned char *p = buf;
	enum vxt_blk_order o = *order;

	if ((get32(p, VXT_BLK_ORDER_LE) & 0xffffff00u) == VXT_BLK_MAGIC)
		o = o == VXT_BLK_ORDER_BE ? VXT_BLK_ORDER_UNKNOWN : VXT_BLK_ORDER_LE;
	else if ((get32(p, VXT_BLK_ORDER_BE) & 0xffffff00u) == VXT_BLK_MAGIC)
		o = o == VXT_BLK_ORDER_LE ? VXT_BLK_ORDER_UNKNOWN : VXT_BLK_ORDER_BE;
	else
		o = VXT_BLK_ORDER_UNKNOWN;
	if (o == VXT_BLK_ORDER_UNKNOWN)
		return -EBADMSG;
	*order = o;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (o == VXT_BLK_ORDER_LE) {	/* the usual case: the layout is the struct's */
		memcpy(r, p, sizeof(*r));
		goto check;
	}
#endif
	r->magic = get32(p, o);
	r->sequence = get32(p + 4, o);
	r->time = get64(p + 8, o);
	r->sector = get64(p + 16, o);
	r->bytes = get32(p + 24, o);
	r->action = get32(p + 28, o);
	r->pid = get32(p + 32, o);
	r->device = get32(p + 36, o);
	r->cpu = get32(p + 40, o);
	r->error = get16(p + 44, o);
	r->pdu_len = get16(p + 46, o);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
check:
#endif
	if ((r->magic & 0xff) != VXT_BLK_VERSION)
		return -EPROTONOSUPPORT;
	if (r->pdu_len > VXT_BLK_PDU_MAX)
		return -E2BIG;
	return 0;
}

void vxt_blk_encode(void *buf, enum vxt_blk_order o, const struct vxt_blk_rec *r)
{
	unsigned char *p = buf;

	put32(p, o, r->magic);
	put32(p + 4, o, r->sequence);
	put64(p + 8, o, r->time);
	put64(p + 16, o, r->sector);
	put32(p + 24, o, r->bytes);
	put32(p + 28, o, r->action);
	put32(p + 32, o, r->pid);
	put32(p + 36, o, r->device);
	put32(p + 40, o, r->cpu);
	put16(p + 44, o, r->error);
	put16(p + 46, o, r->pdu_len);
}

const char *vxt_blk_act_name(uint32_t action)
{
	static const char *const names[VXT_BLK_TA_NR] = {
		"?", "Q", "M", "F", "G", "S", "R", "D", "C", "P", "U", "UT", "I", "X",
		"B", "A", "K", "V",
	};
	unsigned a = action & 0xff;

	if ((action >> VXT_BLK_TC_SHIFT) & VXT_BLK_TC_NOTIFY)
		return "N";
	return a < VXT_BLK_TA_NR ? names[a] : "?";
}

void vxt_blk_op_flags(const struct vxt_blk_rec *r, uint8_t *op, uint16_t *flags)
{
	uint32_t tc = r->action >> VXT_BLK_TC_SHIFT;

	*flags = 0;
	if (tc & VXT_BLK_TC_PC)
		*op = VXT_OP_PASSTHRU;
	else if (tc & VXT_BLK_TC_DISCARD)
		*op = VXT_OP_DISCARD;
	else if (tc & VXT_BLK_TC_WRITE)
		*op = VXT_OP_WRITE;
	else if (r->bytes)
		*op = VXT_OP_READ;
	else if (tc & VXT_BLK_TC_FLUSH)
		*op = VXT_OP_FLUSH;
	else
		*op = VXT_OP_OTHER;
	if ((tc & VXT_BLK_TC_FLUSH) && *op != VXT_OP_FLUSH)
		*flags |= VXT_F_PREFLUSH;
	if (tc & VXT_BLK_TC_FUA)
		*flags |= VXT_F_FUA;
	if (tc & VXT_BLK_TC_AHEAD)
		*flags |= VXT_F_RAHEAD;
	if (tc & VXT_BLK_TC_SYNC)
		*flags |= VXT_F_SYNC;
	if (tc & VXT_BLK_TC_META)
		*flags |= VXT_F_META;
}
