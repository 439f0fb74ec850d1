/* test_ebpf_recon.c - the ebpf source's issues in flight against the
 * kernel's count: per device the oldest issues beyond that count are taken
 * (freed and handed back), live only when two rounds in a row judge them
 * so, at once when no issue is taken; an issue after the round's start, a
 * device with no count, a requeued or flush request are never taken.
 * Checked against a count made by hand over a small table.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "source/ebpf_recon.h"

#define NSLOTS 64
#define DEV_A 0x700001u
#define DEV_B 0x700002u
#define DEV_X 0x700003u		/* keeps no statistics */

static struct vxt_bpf_slot slots[NSLOTS];
static uint64_t kernel_a, kernel_b;
static uint64_t taken_rq[NSLOTS];
static int ntaken;

static int fake_count(uint32_t dev, uint64_t *n)
{
	if (dev == DEV_A)
		*n = kernel_a;
	else if (dev == DEV_B)
		*n = kernel_b;
	else
		return -EOPNOTSUPP;
	return 0;
}

static void found(void *arg, const struct vxt_bpf_slot *copy)
{
	(void)arg;
	taken_rq[ntaken++] = copy->rq;
}

static void issue(uint32_t at, uint64_t rq, uint32_t dev, uint8_t op, uint64_t t)
{
	memset(&slots[at], 0, sizeof(slots[at]));
	slots[at].rq = rq;
	slots[at].dev = dev;
	slots[at].op = op;
	slots[at].state = VXT_BPF_SLOT_ISSUED;
	slots[at].is.time_ns = t;
	slots[at].sector = rq * 8;
}

static void reset(void)
{
	memset(slots, 0, sizeof(slots));
	ntaken = 0;
}

static int round_(struct vxt_ebpf_recon *r, uint64_t t0, bool at_once)
{
	return vxt_ebpf_recon_round(r, slots, NSLOTS, t0, at_once, found, NULL);
}

START_TEST(oldest_beyond_the_count_at_once)
{
	struct vxt_ebpf_recon *r = vxt_ebpf_recon_new(fake_count);

	reset();
	issue(5, 0x105, DEV_A, VOLIOT_OP_READ, 300);
	issue(9, 0x109, DEV_A, VOLIOT_OP_WRITE, 100);	/* the oldest */
	issue(2, 0x102, DEV_A, VOLIOT_OP_READ, 200);
	issue(7, 0x107, DEV_A, VOLIOT_OP_READ, 900);	/* after t0: never */
	issue(11, 0x111, DEV_A, VOLIOT_OP_FLUSH, 50);	/* not counted by the kernel */
	issue(12, 0x112, DEV_X, VOLIOT_OP_READ, 10);	/* no count to go by */
	issue(13, 0x113, DEV_B, VOLIOT_OP_READ, 10);
	slots[14] = slots[13];
	slots[14].rq = 0x114;
	slots[14].state = VXT_BPF_SLOT_REQUEUED;	/* not in flight */
	kernel_a = 1 + 1;	/* one of the three before t0, and the one after */
	kernel_b = 1;
	ck_assert_int_eq(round_(r, 500, true), 1);
	ck_assert_int_eq(ntaken, 1);
	ck_assert_uint_eq(taken_rq[0], 0x109);
	ck_assert_uint_eq(slots[9].rq, 0);		/* freed */
	ck_assert_uint_eq(slots[2].rq, 0x102);
	ck_assert_uint_eq(slots[12].rq, 0x112);
	ck_assert_uint_eq(slots[11].rq, 0x111);
	vxt_ebpf_recon_free(r);
}
END_TEST

START_TEST(live_waits_for_a_second_look)
{
	struct vxt_ebpf_recon *r = vxt_ebpf_recon_new(fake_count);

	reset();
	issue(3, 0x103, DEV_A, VOLIOT_OP_READ, 100);
	issue(4, 0x104, DEV_A, VOLIOT_OP_READ, 200);
	kernel_a = 0;	/* both done in the kernel's eyes */
	ck_assert_int_eq(round_(r, 500, false), 0);
	/* slot 4's completion was only under way: it runs and frees it */
	slots[4].rq = 0;
	ck_assert_int_eq(round_(r, 1000, false), 1);
	ck_assert_uint_eq(taken_rq[0], 0x103);
	/* slot 3 taken again by a new issue of another request: a new look */
	issue(3, 0x203, DEV_A, VOLIOT_OP_READ, 1100);
	ck_assert_int_eq(round_(r, 1200, false), 0);
	kernel_a = 1;
	ck_assert_int_eq(round_(r, 1300, false), 0);	/* in flight after all */
	ck_assert_uint_eq(slots[3].rq, 0x203);
	vxt_ebpf_recon_free(r);
}
END_TEST

Suite *ebpf_recon_suite(void)
{
	Suite *s = suite_create("ebpf_recon");
	TCase *tc = tcase_create("rounds");

	tcase_add_test(tc, oldest_beyond_the_count_at_once);
	tcase_add_test(tc, live_waits_for_a_second_look);
	suite_add_tcase(s, tc);
	return s;
}
