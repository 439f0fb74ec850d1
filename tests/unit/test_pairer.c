/* test_pairer.c - the pairer (pairer.h) on small hand-made stacks: a bio
 * queued on an upper object followed through its remap to the request
 * below, a bio-based device's completion paired without an issue, a
 * split completing in two halves, a remap loop and a remap from
 * nothing, I/O opened by a later phase, and flushes (size 0) pairing among
 * themselves only
 */
#include <check.h>
#include <string.h>

#include "vxtrace/pairer.h"

static struct vxt_event ev(uint64_t t, uint32_t obj, unsigned phase, uint64_t sec, uint32_t nsec)
{
	return (struct vxt_event){ .time_ns = t, .object = obj, .phase = (uint8_t)phase,
				   .sector = sec, .bytes = nsec * 512, .pid = 7 };
}

static struct vxt_event remap(uint64_t t, uint32_t obj, uint64_t sec, uint32_t nsec,
			      uint32_t from, uint64_t fsec)
{
	struct vxt_event e = ev(t, obj, VXT_PH_REMAP, sec, nsec);

	e.remap_from = vxt_remap_from_pack(from, fsec);
	return e;
}

static struct vxt_pstep feed(struct vxt_pairer *p, struct vxt_event e, uint64_t ord)
{
	struct vxt_pstep st;

	ck_assert_int_eq(vxt_pairer_add(p, &e, ord, &st), 0);
	return st;
}

START_TEST(remap_to_the_device_below)
{
	struct vxt_pairer *p = vxt_pairer_new(0);
	struct vxt_pstep st;

	ck_assert_ptr_nonnull(p);
	st = feed(p, ev(100, 0, VXT_PH_QUEUE, 1000, 8), 0);
	ck_assert_int_eq(st.what, VXT_PS_OPENED);
	st = feed(p, remap(110, 1, 5000, 8, 0, 1000), 1);
	ck_assert_int_eq(st.what, VXT_PS_MARKED);
	ck_assert_uint_eq(st.io[0].object, 1);
	ck_assert_uint_eq(st.io[0].qobject, 0);
	st = feed(p, ev(111, 1, VXT_PH_QUEUE, 5000, 8), 2);
	ck_assert_int_eq(st.what, VXT_PS_JOINED);	/* the same bio, not a second one */
	ck_assert_int_eq(st.unpaired, -1);
	feed(p, ev(120, 1, VXT_PH_GETRQ, 5000, 8), 3);
	feed(p, ev(140, 1, VXT_PH_START, 5000, 8), 4);
	st = feed(p, ev(200, 1, VXT_PH_DONE, 5000, 8), 5);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 100);	/* from the top-level queue */
	ck_assert_uint_eq(st.io[0].t[VXT_PT_G], 120);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_D], 140);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_C], 200);
	ck_assert(st.io[0].flags & VXT_PI_REMAPPED);
	st = feed(p, ev(210, 0, VXT_PH_DONE, 1000, 8), 6);	/* the upper bio's own end */
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 100);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_D], VXT_PT_UNSET);
	ck_assert_int_eq(st.unpaired, VXT_PU_NOD);
	ck_assert_uint_eq(vxt_pairer_pending(p), 0);
	/* a second queue at the same sector below is a duplicate again */
	feed(p, ev(300, 1, VXT_PH_QUEUE, 6000, 8), 7);
	st = feed(p, ev(301, 1, VXT_PH_QUEUE, 6000, 8), 8);
	ck_assert_int_eq(st.unpaired, VXT_PU_DUPQ);
	vxt_pairer_free(p);
}
END_TEST

/* A bio-based device's bio (VXT_F_BIO): its queue, its remap onto the disk
 * below, the request there, then its own completion, paired without an
 * issue; the same completion without the flag has none (VXT_PU_NOD). */
START_TEST(bio_level_completion)
{
	struct vxt_pairer *p = vxt_pairer_new(0);
	struct vxt_event e;
	struct vxt_pstep st;

	ck_assert_ptr_nonnull(p);
	e = ev(100, 0, VXT_PH_QUEUE, 64, 8);
	e.flags = VXT_F_BIO;
	st = feed(p, e, 0);
	ck_assert_int_eq(st.what, VXT_PS_OPENED);
	feed(p, remap(101, 1, 2112, 8, 0, 64), 1);
	feed(p, ev(102, 1, VXT_PH_QUEUE, 2112, 8), 2);
	feed(p, ev(103, 1, VXT_PH_START, 2112, 8), 3);
	st = feed(p, ev(150, 1, VXT_PH_DONE, 2112, 8), 4);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 100);
	ck_assert_uint_eq(st.io[0].qobject, 0);
	e = ev(151, 0, VXT_PH_DONE, 64, 8);
	e.flags = VXT_F_BIO;
	st = feed(p, e, 5);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_int_eq(st.unpaired, -1);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 100);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_C], 151);
	ck_assert_uint_eq(vxt_pairer_unpaired(p, VXT_PU_NOD), 0);
	feed(p, ev(200, 0, VXT_PH_QUEUE, 72, 8), 6);
	st = feed(p, ev(201, 0, VXT_PH_DONE, 72, 8), 7);
	ck_assert_int_eq(st.unpaired, VXT_PU_NOD);
	vxt_pairer_free(p);
}
END_TEST

START_TEST(split_halves_complete)
{
	struct vxt_pairer *p = vxt_pairer_new(0);
	struct vxt_pstep st;

	feed(p, ev(300, 2, VXT_PH_QUEUE, 8000, 16), 0);
	st = feed(p, ev(305, 2, VXT_PH_SPLIT, 8000, 8), 1);
	ck_assert_int_eq(st.what, VXT_PS_MARKED);
	ck_assert_uint_eq(vxt_pairer_pending(p), 2);
	feed(p, ev(320, 2, VXT_PH_START, 8000, 8), 2);
	feed(p, ev(321, 2, VXT_PH_START, 8008, 8), 3);
	st = feed(p, ev(400, 2, VXT_PH_DONE, 8000, 8), 4);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.io[0].start, 8000);
	ck_assert_uint_eq(st.io[0].end, 8008);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 300);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_D], 320);
	st = feed(p, ev(410, 2, VXT_PH_DONE, 8008, 8), 5);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 300);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_D], 321);
	ck_assert_uint_eq(vxt_pairer_pending(p), 0);
	vxt_pairer_free(p);
}
END_TEST

START_TEST(remap_loops_and_strays)
{
	struct vxt_pairer *p = vxt_pairer_new(0);
	struct vxt_pstep st;

	/* an object that queued nothing: not followed, not counted */
	st = feed(p, remap(10, 1, 50, 8, 3, 40), 0);
	ck_assert_int_eq(st.unpaired, -1);
	feed(p, ev(100, 0, VXT_PH_QUEUE, 2000, 8), 1);
	st = feed(p, remap(105, 0, 2000, 8, 0, 2000), 2);
	ck_assert_int_eq(st.unpaired, VXT_PU_REMAP_LOOP);
	/* down and back up to where it was queued */
	feed(p, remap(106, 1, 9000, 8, 0, 2000), 3);
	st = feed(p, remap(107, 0, 3000, 8, 1, 9000), 4);
	ck_assert_int_eq(st.unpaired, VXT_PU_REMAP_LOOP);
	st = feed(p, remap(110, 1, 9100, 8, 0, 7777), 5);
	ck_assert_int_eq(st.unpaired, VXT_PU_REMAP_UNKNOWN);
	st = feed(p, ev(120, 1, VXT_PH_MERGE, 12345, 8), 6);
	ck_assert_int_eq(st.unpaired, VXT_PU_MERGE);
	st = feed(p, ev(130, 1, VXT_PH_DONE, 12345, 8), 7);
	ck_assert_int_eq(st.unpaired, VXT_PU_NOQ);
	feed(p, ev(140, 1, VXT_PH_QUEUE, 500, 8), 8);
	st = feed(p, ev(135, 1, VXT_PH_GETRQ, 500, 8), 9);
	ck_assert_int_eq(st.unpaired, VXT_PU_ORDER);
	ck_assert_uint_eq(vxt_pairer_unpaired(p, VXT_PU_REMAP_LOOP), 2);
	ck_assert_uint_eq(vxt_pairer_unpaired(p, VXT_PU_REMAP_UNKNOWN), 1);
	/* a remap whose source is not known is a remap like any other */
	st = feed(p, ev(150, 1, VXT_PH_REMAP, 600, 8), 10);
	ck_assert_int_eq(st.what, VXT_PS_NONE);
	ck_assert_int_eq(st.unpaired, -1);
	vxt_pairer_free(p);
}
END_TEST

START_TEST(unqueued_and_flushes)
{
	struct vxt_pairer *p = vxt_pairer_new(VXT_PAIRER_UNQUEUED), *q = vxt_pairer_new(0);
	struct vxt_pstep st;
	uint64_t t[VXT_PT_COUNT];

	st = feed(p, ev(10, 0, VXT_PH_START, 64, 8), 0);
	ck_assert_int_eq(st.unpaired, VXT_PU_NOQ);	/* counted all the same */
	st = feed(p, ev(30, 0, VXT_PH_DONE, 64, 8), 1);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	vxt_pairer_request(&st, t);
	ck_assert_uint_eq(t[VXT_PT_D], 10);
	ck_assert_uint_eq(t[VXT_PT_Q], VXT_PT_UNSET);
	feed(q, ev(10, 0, VXT_PH_START, 64, 8), 0);
	st = feed(q, ev(30, 0, VXT_PH_DONE, 64, 8), 1);
	ck_assert_int_eq(st.what, VXT_PS_NONE);		/* btt's way: no queue, no I/O */
	/* a flush at sector 0 beside a read there */
	feed(p, ev(40, 0, VXT_PH_QUEUE, 0, 8), 2);
	st = feed(p, ev(41, 0, VXT_PH_QUEUE, 0, 0), 3);
	ck_assert_int_eq(st.what, VXT_PS_OPENED);
	feed(p, ev(42, 0, VXT_PH_START, 0, 0), 4);
	st = feed(p, ev(50, 0, VXT_PH_DONE, 0, 0), 5);
	ck_assert_int_eq(st.what, VXT_PS_CLOSED);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 41);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_D], 42);
	st = feed(p, ev(60, 0, VXT_PH_DONE, 0, 8), 6);
	ck_assert_uint_eq(st.io[0].t[VXT_PT_Q], 40);
	ck_assert_uint_eq(vxt_pairer_pending(p), 0);
	vxt_pairer_free(p);
	vxt_pairer_free(q);
}
END_TEST

Suite *pairer_suite(void)
{
	Suite *s = suite_create("pairer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, remap_to_the_device_below);
	tcase_add_test(tc, bio_level_completion);
	tcase_add_test(tc, split_halves_complete);
	tcase_add_test(tc, remap_loops_and_strays);
	tcase_add_test(tc, unqueued_and_flushes);
	suite_add_tcase(s, tc);
	return s;
}
