/* test_rwbs.c - every op and flag combination the kernel can write as rwbs
 *
 * The reference is the kernel's own blk_fill_rwbs() (block/blktrace.c, 6.18),
 * rewritten here over the kernel's REQ_OP_* and REQ_* values, with the sector
 * range the block tracepoints report for that op (blk_rq_trace_sector() and
 * blk_rq_trace_nr_sectors(): passthrough and flush requests as 0 + 0).
 * Each string must parse back to the op and the flags it was made of (the
 * one string that two combinations share, "FF", reads as a flush request).
 */
#include <check.h>
#include <string.h>

#include "source/rwbs.h"
#include "vxtrace/event.h"

/* the kernel's enum req_op */
enum { K_READ = 0, K_WRITE = 1, K_FLUSH = 2, K_DISCARD = 3, K_SECURE_ERASE = 5,
       K_ZONE_APPEND = 7, K_WRITE_ZEROES = 9, K_ZONE_OPEN = 10, K_ZONE_CLOSE = 11,
       K_ZONE_FINISH = 12, K_ZONE_RESET = 13, K_ZONE_RESET_ALL = 15, K_DRV_IN = 34,
       K_DRV_OUT = 35 };
/* the kernel's request flags, as bits of this test */
enum { K_PREFLUSH = 1, K_FUA = 2, K_RAHEAD = 4, K_SYNC = 8, K_META = 16, K_ATOMIC = 32 };

static void kernel_fill_rwbs(char *rwbs, int op, unsigned f)
{
	int i = 0;

	if (f & K_PREFLUSH)
		rwbs[i++] = 'F';
	switch (op) {
	case K_WRITE: rwbs[i++] = 'W'; break;
	case K_DISCARD: rwbs[i++] = 'D'; break;
	case K_SECURE_ERASE: rwbs[i++] = 'D'; rwbs[i++] = 'E'; break;
	case K_FLUSH: rwbs[i++] = 'F'; break;
	case K_READ: rwbs[i++] = 'R'; break;
	default: rwbs[i++] = 'N';
	}
	if (f & K_FUA)
		rwbs[i++] = 'F';
	if (f & K_RAHEAD)
		rwbs[i++] = 'A';
	if (f & K_SYNC)
		rwbs[i++] = 'S';
	if (f & K_META)
		rwbs[i++] = 'M';
	if (f & K_ATOMIC)
		rwbs[i++] = 'U';
	rwbs[i] = '\0';
}

START_TEST(every_op_and_flag)
{
	static const struct {
		int kop;
		uint64_t sector;
		uint32_t nr;
		int want;
	} ops[] = {
		{ K_READ, 2048, 8, VXT_OP_READ },
		{ K_WRITE, 2048, 8, VXT_OP_WRITE },
		{ K_WRITE, 0, 0, VXT_OP_WRITE },	/* an empty preflush write */
		{ K_FLUSH, 0, 0, VXT_OP_FLUSH },
		{ K_DISCARD, 0, 2048, VXT_OP_DISCARD },
		{ K_SECURE_ERASE, 4096, 2048, VXT_OP_DISCARD },
		{ K_WRITE_ZEROES, 2048, 128, VXT_OP_WRITE_ZEROES },
		{ K_DRV_IN, 0, 0, VXT_OP_PASSTHRU },
		{ K_DRV_OUT, 0, 0, VXT_OP_PASSTHRU },
		{ K_ZONE_RESET, 524288, 0, VXT_OP_OTHER },
		{ K_ZONE_OPEN, 524288, 0, VXT_OP_OTHER },
		{ K_ZONE_CLOSE, 524288, 0, VXT_OP_OTHER },
		{ K_ZONE_FINISH, 524288, 0, VXT_OP_OTHER },
	};
	char rwbs[16];
	size_t i;
	unsigned f;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (f = 0; f < 64; f++) {
			unsigned want = 0;
			uint16_t flags;
			uint8_t op;

			kernel_fill_rwbs(rwbs, ops[i].kop, f);
			vxt_rwbs_parse(rwbs, ops[i].sector, ops[i].nr, &op, &flags);
			want |= f & K_PREFLUSH ? VXT_F_PREFLUSH : 0;
			want |= f & K_FUA ? VXT_F_FUA : 0;
			want |= f & K_RAHEAD ? VXT_F_RAHEAD : 0;
			want |= f & K_SYNC ? VXT_F_SYNC : 0;
			want |= f & K_META ? VXT_F_META : 0;
			/* "FF" is both PREFLUSH + flush and flush + FUA; the kernel's
			 * flush requests are the first */
			if (ops[i].kop == K_FLUSH && (f & (K_FUA | K_PREFLUSH)) == K_FUA)
				want = (want & ~VXT_F_FUA) | VXT_F_PREFLUSH;
			ck_assert_msg(op == ops[i].want, "rwbs %s (kernel op %d): op %s, want %s",
				      rwbs, ops[i].kop, vxt_op_name(op), vxt_op_name(ops[i].want));
			ck_assert_msg(flags == want, "rwbs %s: flags %#x, want %#x", rwbs, flags,
				      want);
		}
}
END_TEST

START_TEST(junk)
{
	uint16_t flags;
	uint8_t op;

	vxt_rwbs_parse("", 0, 0, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_OTHER);
	ck_assert_int_eq(flags, 0);
	vxt_rwbs_parse("?WS", 8, 8, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_OTHER);
	vxt_rwbs_parse("F", 0, 0, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_FLUSH);
	ck_assert_int_eq(flags, 0);
}
END_TEST

Suite *rwbs_suite(void)
{
	Suite *s = suite_create("rwbs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_op_and_flag);
	tcase_add_test(tc, junk);
	suite_add_tcase(s, tc);
	return s;
}
