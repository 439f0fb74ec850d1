/* test_srcopt.c - the source options vxrecord and vxtop share
 * (vxt_source_option(), vxtrace/source.h): what each accepts, what it
 * refuses with the option's name in the message, and what is not one.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"

/* A sysfs of two disks, sda (8:0) and sdb (8:16), for --objects. */
static char root[64];

static void mk(const char *rel, const char *dev)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if (!dev)
		return;
	snprintf(path, sizeof(path), "%s/%s/dev", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", dev);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/vxt-srcopt-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("VXT_SYSFS", root, 1);
	mk("class", NULL);
	mk("class/block", NULL);
	mk("class/block/sda", "8:0");
	mk("class/block/sdb", "8:16");
	mk("dev", NULL);
	mk("dev/block", NULL);
	mk("dev/block/8:0", NULL);
	mk("dev/block/8:16", NULL);
}

static void teardown(void)
{
	char cmd[96];

	unsetenv("VXT_SYSFS");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_srcopt_values)
{
	struct vxt_source_opts o = { 0 };
	char err[VXT_ERRBUF_SIZE];

	ck_assert_int_eq(vxt_source_option(&o, "objects", "sda,8:16", err), 1);
	ck_assert_str_eq(o.objects, "sda,8:16");
	ck_assert_int_eq(vxt_source_option(&o, "bufsize", "4M", err), 1);
	ck_assert_uint_eq(o.bufsize, 4u << 20);
	ck_assert_int_eq(vxt_source_option(&o, "errors", NULL, err), 1);
	ck_assert(o.errors);
	ck_assert_int_eq(vxt_source_option(&o, "seed", "42", err), 1);
	ck_assert_uint_eq(o.seed, 42);
	ck_assert_int_eq(vxt_source_option(&o, "rate", "2500.5", err), 1);
	ck_assert(o.rate == 2500.5);
	ck_assert_int_eq(vxt_source_option(&o, "sim-objects", "a:rand:50:4k:1ms", err), 1);
	ck_assert_str_eq(o.sim_objects, "a:rand:50:4k:1ms");
	ck_assert_int_eq(vxt_source_option(&o, "sim-errors", "none", err), 1);
	ck_assert_str_eq(o.sim_errors, "none");
	ck_assert_int_eq(vxt_source_option(&o, "realtime", NULL, err), 1);
	ck_assert(o.realtime);
}
END_TEST

START_TEST(test_srcopt_refused)
{
	static const char *bad[][2] = {
		{ "rate", "0" }, { "rate", "-5" }, { "rate", "fast" }, { "rate", "2e9" },
		{ "rate", "" }, { "seed", "-1" }, { "seed", "12x" }, { "bufsize", "lots" },
		{ "bufsize", "0" },
	};
	struct vxt_source_opts o = { 0 };
	char err[VXT_ERRBUF_SIZE], want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		ck_assert_int_eq(vxt_source_option(&o, bad[i][0], bad[i][1], err), -EINVAL);
		snprintf(want, sizeof(want), "--%s: bad ", bad[i][0]);
		ck_assert_msg(!strncmp(err, want, strlen(want)), "%s %s: %s", bad[i][0],
			      bad[i][1], err);
		ck_assert_ptr_nonnull(strstr(err, bad[i][1]));
	}
	ck_assert(o.rate == 0 && o.seed == 0 && o.bufsize == 0);
	ck_assert_int_eq(vxt_source_option(&o, "output", "x.vxt", err), 0);
	ck_assert_int_eq(vxt_source_option(&o, "rates", "5", err), 0);
}
END_TEST

/* A list naming no device, or one the system lacks, is refused with the
 * names it may hold. */
START_TEST(test_srcopt_objects)
{
	static const char *bad[] = { "", ",,,", " , ", "sdz", "sda,sdz", "8:99" };
	struct vxt_source_opts o = { 0 };
	char err[VXT_ERRBUF_SIZE];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		ck_assert_int_eq(vxt_source_option(&o, "objects", bad[i], err), -EINVAL);
		ck_assert_msg(!strncmp(err, "--objects: ", 11) &&
			      strstr(err, "(block devices here: sda, sdb)"), "'%s': %s", bad[i], err);
		ck_assert_ptr_null(o.objects);
	}
	ck_assert_int_eq(vxt_source_option(&o, "objects", "sdb, 8:0,", err), 1);
	ck_assert_str_eq(o.objects, "sdb, 8:0,");
}
END_TEST

Suite *srcopt_suite(void)
{
	Suite *s = suite_create("srcopt");
	TCase *tc = tcase_create("srcopt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_srcopt_values);
	tcase_add_test(tc, test_srcopt_refused);
	tcase_add_test(tc, test_srcopt_objects);
	suite_add_tcase(s, tc);
	return s;
}
