/* test_sysdev.c - block device resolution and description over a fake sysfs
 *
 * Builds a small /sys tree in a temporary directory (VXT_SYSFS points the
 * resolver at it): a disk sda (8:0, blk-mq with 2 hardware queues of 64
 * requests, keeping I/O statistics) with a
 * partition sda1 (8:1), a bio-based dm-0 (253:0) and loop3 (7:3, keeping
 * none).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/objtab.h"
#include "vxtrace/sysdev.h"
#include "fixture.h"

static void setup(void)
{
	ut_sysfs_new("vxt-sysfs");
	ut_sysfs_dir("class");
	ut_sysfs_dir("class/block");
	ut_sysfs_dir("dev");
	ut_sysfs_dir("dev/block");
	/* sda and its partition, nested as sysfs does */
	ut_sysfs_dir("dev/block/8:0");
	ut_sysfs_dir("dev/block/8:0/mq");
	ut_sysfs_dir("dev/block/8:0/mq/0");
	ut_sysfs_dir("dev/block/8:0/mq/1");
	ut_sysfs_dir("dev/block/8:0/sda1");
	ut_sysfs_put("dev/block/8:0/dev", "8:0\n");
	ut_sysfs_put("dev/block/8:0/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
	ut_sysfs_put("dev/block/8:0/size", "2097152\n");
	ut_sysfs_put("dev/block/8:0/sda1/dev", "8:1\n");
	ut_sysfs_put("dev/block/8:0/sda1/partition", "1\n");
	ut_sysfs_put("dev/block/8:0/sda1/start", "2048\n");
	ut_sysfs_put("dev/block/8:0/sda1/size", "1000\n");
	ut_sysfs_put("dev/block/8:0/sda1/uevent", "MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\n");
	{
		char a[256], b[256];

		snprintf(a, sizeof(a), "%s/dev/block/8:0/sda1", ut_sysfs_root);
		snprintf(b, sizeof(b), "%s/dev/block/8:1", ut_sysfs_root);
		ck_assert_int_eq(symlink(a, b), 0);
	}
	ut_sysfs_dir("dev/block/8:0/queue");
	ut_sysfs_put("dev/block/8:0/queue/iostats", "1\n");
	ut_sysfs_put("dev/block/8:0/queue/nr_requests", "64\n");
	ut_sysfs_put("dev/block/8:0/inflight", "       3        2\n");
	ut_sysfs_put("dev/block/8:0/sda1/inflight", "       1        0\n");
	ut_sysfs_dir("dev/block/253:0");
	ut_sysfs_put("dev/block/253:0/uevent", "MAJOR=253\nMINOR=0\nDEVNAME=dm-0\nDEVTYPE=disk\n");
	ut_sysfs_put("dev/block/253:0/size", "8\n");
	ut_sysfs_dir("dev/block/7:3");
	ut_sysfs_dir("dev/block/7:3/mq");
	ut_sysfs_put("dev/block/7:3/uevent", "MAJOR=7\nMINOR=3\nDEVNAME=loop3\nDEVTYPE=disk\n");
	ut_sysfs_dir("dev/block/7:3/queue");
	ut_sysfs_put("dev/block/7:3/queue/iostats", "0\n");
	ut_sysfs_put("dev/block/7:3/inflight", "       0        0\n");
	ut_sysfs_dir("class/block/sda");
	ut_sysfs_put("class/block/sda/dev", "8:0\n");
	ut_sysfs_dir("class/block/sda1");
	ut_sysfs_put("class/block/sda1/dev", "8:1\n");
	ut_sysfs_dir("class/block/dm-0");
	ut_sysfs_put("class/block/dm-0/dev", "253:0\n");
	ut_sysfs_dir("class/block/loop3");
	ut_sysfs_put("class/block/loop3/dev", "7:3\n");
}

static void teardown(void)
{
	ut_sysfs_remove();
}

START_TEST(resolve_list)
{
	char err[VXT_ERRBUF_SIZE] = "";
	uint32_t devs[8];
	int n;

	n = vxt_sysdev_resolve("sda, dm-0,8:1,loop3,7,3,sda", devs, 8, err);
	ck_assert_msg(n == 4, "n = %d (%s)", n, err);
	ck_assert_uint_eq(devs[0], VXT_SYSDEV_MKDEV(8, 0));
	ck_assert_uint_eq(devs[1], VXT_SYSDEV_MKDEV(253, 0));
	ck_assert_uint_eq(devs[2], VXT_SYSDEV_MKDEV(8, 1));
	ck_assert_uint_eq(devs[3], VXT_SYSDEV_MKDEV(7, 3));
	ck_assert_int_eq(vxt_sysdev_resolve("", devs, 8, err), 0);
	ck_assert_int_eq(vxt_sysdev_resolve("sda,dm-0", devs, 1, err), -E2BIG);
}
END_TEST

START_TEST(resolve_errors)
{
	char err[VXT_ERRBUF_SIZE];
	uint32_t devs[4];

	ck_assert_int_eq(vxt_sysdev_resolve("sda,nvme9n9", devs, 4, err), -ENOENT);
	ck_assert_str_eq(err, "object 'nvme9n9': no such block device");
	ck_assert_int_eq(vxt_sysdev_resolve("9:9", devs, 4, err), -ENOENT);
	ck_assert_int_eq(vxt_sysdev_resolve("/dev/null", devs, 4, err), -ENOTBLK);
	ck_assert_str_eq(err, "object '/dev/null': not a block device");
	ck_assert_int_eq(vxt_sysdev_resolve("../etc", devs, 4, err), -EINVAL);
}
END_TEST

START_TEST(describe)
{
	char name[32];
	unsigned kind;
	uint64_t size;
	uint32_t disk;
	uint64_t start;

	ck_assert_int_eq(vxt_sysdev_describe(VXT_SYSDEV_MKDEV(8, 0), name, &kind, &size), 0);
	ck_assert_str_eq(name, "sda");
	ck_assert_uint_eq(kind, VXT_OBJ_DISK);
	ck_assert_uint_eq(size, 2097152ull * 512);
	ck_assert_int_eq(vxt_sysdev_describe(VXT_SYSDEV_MKDEV(8, 1), name, &kind, NULL), 0);
	ck_assert_str_eq(name, "sda1");
	ck_assert_uint_eq(kind, VXT_OBJ_PARTITION);
	ck_assert_int_eq(vxt_sysdev_describe(VXT_SYSDEV_MKDEV(253, 0), name, &kind, NULL), 0);
	ck_assert_uint_eq(kind, VXT_OBJ_DM);
	ck_assert_int_eq(vxt_sysdev_describe(VXT_SYSDEV_MKDEV(7, 3), NULL, &kind, &size), 0);
	ck_assert_uint_eq(kind, VXT_OBJ_LOOP);
	ck_assert_uint_eq(size, 0);
	ck_assert_int_eq(vxt_sysdev_describe(VXT_SYSDEV_MKDEV(9, 9), name, &kind, &size),
			 -ENOENT);

	ck_assert_int_eq(vxt_sysdev_partition(VXT_SYSDEV_MKDEV(8, 1), &disk, &start), 1);
	ck_assert_uint_eq(disk, VXT_SYSDEV_MKDEV(8, 0));
	ck_assert_uint_eq(start, 2048);
	ck_assert_int_eq(vxt_sysdev_partition(VXT_SYSDEV_MKDEV(8, 0), &disk, &start), 0);
	ck_assert_uint_eq(disk, VXT_SYSDEV_MKDEV(8, 0));
	ck_assert(vxt_sysdev_is_mq(VXT_SYSDEV_MKDEV(8, 0)));
	ck_assert(!vxt_sysdev_is_mq(VXT_SYSDEV_MKDEV(253, 0)));
}
END_TEST

START_TEST(inflight)
{
	uint64_t n = 99;

	ck_assert_int_eq(vxt_sysdev_inflight(VXT_SYSDEV_MKDEV(8, 0), &n), 0);
	ck_assert_uint_eq(n, 5);
	/* a partition: its own count, the disk's queue's statistics */
	ck_assert_int_eq(vxt_sysdev_inflight(VXT_SYSDEV_MKDEV(8, 1), &n), 0);
	ck_assert_uint_eq(n, 1);
	/* no statistics kept: the count would say 0 whatever is in flight */
	ck_assert_int_eq(vxt_sysdev_inflight(VXT_SYSDEV_MKDEV(7, 3), &n), -EOPNOTSUPP);
	ck_assert_int_eq(vxt_sysdev_inflight(VXT_SYSDEV_MKDEV(253, 0), &n), -EOPNOTSUPP);
	ck_assert_int_eq(vxt_sysdev_inflight(VXT_SYSDEV_MKDEV(9, 9), &n), -ENOENT);
	ck_assert_uint_eq(n, 1);
}
END_TEST

/* The requests a device holds at most: nr_requests per hardware queue. */
START_TEST(queue_max)
{
	uint64_t n = 99;

	ck_assert_int_eq(vxt_sysdev_queue_max(VXT_SYSDEV_MKDEV(8, 0), &n), 0);
	ck_assert_uint_eq(n, 128);
	ck_assert_int_eq(vxt_sysdev_queue_max(VXT_SYSDEV_MKDEV(8, 1), &n), 0);	/* its disk's */
	ck_assert_uint_eq(n, 128);
	ck_assert_int_eq(vxt_sysdev_queue_max(VXT_SYSDEV_MKDEV(253, 0), &n), -EOPNOTSUPP);
	ck_assert_int_eq(vxt_sysdev_queue_max(VXT_SYSDEV_MKDEV(9, 9), &n), -ENOENT);
}
END_TEST

Suite *sysdev_suite(void)
{
	Suite *s = suite_create("sysdev");
	TCase *tc = tcase_create("sysfs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, resolve_list);
	tcase_add_test(tc, resolve_errors);
	tcase_add_test(tc, queue_max);
	tcase_add_test(tc, describe);
	tcase_add_test(tc, inflight);
	suite_add_tcase(s, tc);
	return s;
}
