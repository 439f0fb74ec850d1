/* test_tracefs_recon.c - the tracefs source's issues in flight against the
 * kernel's count, read from a fake sysfs tree (VXT_SYSFS): a blk-mq disk
 * sda (8:0, keeping I/O statistics) and a bio-based dm-0 (253:0). Per device
 * the oldest issues from before the round's start beyond the inflight
 * file's reads + writes are taken, live only when two rounds in a row judge
 * them so, at once when asked; an issue after the round's start, a flush, a
 * bio-based device's bio are never taken. The expected sectors are counted
 * by hand over a small table.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/tracefs_impl.h"
#include "vxtrace/sysdev.h"
#include "fixture.h"

#define SDA VXT_SYSDEV_MKDEV(8, 0)
#define DM0 VXT_SYSDEV_MKDEV(253, 0)

static uint64_t taken[16];
static int ntaken;

static void setup(void)
{
	ut_sysfs_new("vxt-recon");
	ut_sysfs_dir("dev");
	ut_sysfs_dir("dev/block");
	ut_sysfs_dir("dev/block/8:0");
	ut_sysfs_dir("dev/block/8:0/mq");
	ut_sysfs_dir("dev/block/8:0/mq/0");
	ut_sysfs_dir("dev/block/8:0/queue");
	ut_sysfs_put("dev/block/8:0/dev", "8:0\n");
	ut_sysfs_put("dev/block/8:0/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
	ut_sysfs_put("dev/block/8:0/queue/iostats", "1\n");
	ut_sysfs_put("dev/block/8:0/inflight", "       1        0\n");
	ut_sysfs_dir("dev/block/253:0");
	ut_sysfs_dir("dev/block/253:0/queue");
	ut_sysfs_put("dev/block/253:0/dev", "253:0\n");
	ut_sysfs_put("dev/block/253:0/uevent", "MAJOR=253\nMINOR=0\nDEVNAME=dm-0\nDEVTYPE=disk\n");
	ut_sysfs_put("dev/block/253:0/queue/iostats", "1\n");
	ut_sysfs_put("dev/block/253:0/inflight", "       0        0\n");
}

static void teardown(void)
{
	ut_sysfs_remove();
}

static int found(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
		 const struct vxt_iopair_val *v)
{
	(void)arg;
	(void)dev;
	(void)size;
	(void)v;
	taken[ntaken++] = sector;
	return 0;
}

static void issue(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint8_t op, uint64_t t)
{
	struct vxt_iopair_val v = { t, 42, 0 };

	ck_assert_int_eq(vxt_iopair_put(p, dev, sector, 8u | (uint32_t)op << 28, &v), 0);
}

static int round_(struct vxt_recon *r, struct vxt_iopair *p, uint64_t t0, bool at_once)
{
	return vxt_tfs_recon_round(r, p, t0, at_once, vxt_tfs_count, found, NULL);
}

START_TEST(oldest_beyond_the_inflight_file)
{
	struct vxt_iopair *p = vxt_iopair_new();
	struct vxt_recon *r = vxt_recon_new();

	ntaken = 0;
	issue(p, SDA, 300, VXT_OP_READ, 300);
	issue(p, SDA, 100, VXT_OP_READ, 100);	/* the oldest */
	issue(p, SDA, 200, VXT_OP_WRITE, 200);
	issue(p, SDA, 900, VXT_OP_READ, 900);	/* after t0: never */
	issue(p, SDA, 50, VXT_OP_FLUSH, 50);	/* not counted by the kernel */
	issue(p, DM0, 10, VXT_OP_READ, 10);	/* bio-based: not judged */
	/* sda: "1 0", three reads and writes before t0: the two oldest are in
	 * excess; a first look takes nothing */
	ck_assert_int_eq(round_(r, p, 500, false), 0);
	ck_assert_int_eq(ntaken, 0);
	ck_assert_int_eq(round_(r, p, 600, false), 2);
	ck_assert_int_eq(ntaken, 2);
	ck_assert_uint_eq(taken[0], 100);
	ck_assert_uint_eq(taken[1], 200);
	ck_assert_uint_eq(vxt_iopair_count(p), 4);
	/* sda idle: "0 0", at once: 300 and 900 (now before t0) */
	ut_sysfs_put("dev/block/8:0/inflight", "       0        0\n");
	ck_assert_int_eq(round_(r, p, 1000, true), 2);
	ck_assert_uint_eq(taken[2], 300);
	ck_assert_uint_eq(taken[3], 900);
	ck_assert_uint_eq(vxt_iopair_count(p), 2);	/* the flush and dm-0's */
	vxt_recon_free(r);
	vxt_iopair_free(p);
}
END_TEST

START_TEST(a_completion_under_way_is_waited_for)
{
	struct vxt_iopair *p = vxt_iopair_new();
	struct vxt_recon *r = vxt_recon_new();
	struct vxt_iopair_val v;

	ntaken = 0;
	ut_sysfs_put("dev/block/8:0/inflight", "       0        0\n");
	issue(p, SDA, 100, VXT_OP_READ, 100);
	issue(p, SDA, 200, VXT_OP_READ, 200);
	ck_assert_int_eq(round_(r, p, 500, false), 0);
	/* 200's completion was still in the ring: it comes and pairs */
	ck_assert(vxt_iopair_take(p, SDA, 200, 8u | VXT_OP_READ << 28, &v));
	ck_assert_int_eq(round_(r, p, 1000, false), 1);
	ck_assert_uint_eq(taken[0], 100);
	/* the same sector issued again later is a new look */
	issue(p, SDA, 100, VXT_OP_READ, 1100);
	ck_assert_int_eq(round_(r, p, 1200, false), 0);
	ut_sysfs_put("dev/block/8:0/inflight", "       1        0\n");
	ck_assert_int_eq(round_(r, p, 1300, false), 0);	/* in flight after all */
	ck_assert_uint_eq(vxt_iopair_count(p), 1);
	/* no count to go by (the queue keeps no statistics): never */
	ut_sysfs_put("dev/block/8:0/queue/iostats", "0\n");
	ck_assert_int_eq(round_(r, p, 2000, true), 0);
	vxt_recon_free(r);
	vxt_iopair_free(p);
}
END_TEST

Suite *tracefs_recon_suite(void)
{
	Suite *s = suite_create("tracefs_recon");
	TCase *tc = tcase_create("rounds");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, oldest_beyond_the_inflight_file);
	tcase_add_test(tc, a_completion_under_way_is_waited_for);
	suite_add_tcase(s, tc);
	return s;
}
