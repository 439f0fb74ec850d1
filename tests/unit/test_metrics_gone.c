/* test_metrics_gone.c - the series of a device gone from the system are
 * removed, once idle (metrics_gone.c), over a sysfs of two disks in a
 * temporary directory (VXT_SYSFS); simulated objects and busy devices stay;
 * a device that comes back starts anew; the kernel's tally does not bring a
 * gone device back until its counts move.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/metrics_impl.h"
#include "vxtrace/sysdev.h"

static char root[64];

static void put_dev(const char *majmin, const char *name)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev/block/%s", root, majmin);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block/%s/uevent", root, majmin);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "DEVNAME=%s\nDEVTYPE=disk\n", name);
	fclose(f);
}

/* The device goes: its sysfs directory with it. */
static void gone(const char *majmin)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/dev/block/%s/uevent", root, majmin);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/dev/block/%s", root, majmin);
	ck_assert_int_eq(rmdir(path), 0);
}

static void setup(void)
{
	char path[128];

	snprintf(root, sizeof(root), "/tmp/vxt-mgone-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("VXT_SYSFS", root, 1);
	snprintf(path, sizeof(path), "%s/dev", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put_dev("8:0", "sda");
	put_dev("8:16", "sdb");
}

static void teardown(void)
{
	char cmd[96];

	unsetenv("VXT_SYSFS");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* One read of @object: its start and its completion. */
static void io(struct vxt_metrics *m, const struct vxt_objtab *objs, uint32_t object)
{
	struct vxt_event ev[2];

	memset(ev, 0, sizeof(ev));
	ev[0].object = ev[1].object = object;
	ev[0].op = ev[1].op = VXT_OP_READ;
	ev[0].bytes = ev[1].bytes = 4096;
	ev[0].phase = VXT_PH_START;
	ev[1].phase = VXT_PH_DONE;
	ev[1].latency_ns = 1000;
	ev[1].error = object == 1 ? -5 : 0;	/* sdb fails: an error count too */
	ck_assert_int_eq(vxt_metrics_feed(m, objs, ev, 2), 0);
}

/* The completions of @object's reads in the published text; -1: no series. */
static long long completed(struct vxt_metrics *m, const char *object)
{
	char *out, key[128];
	size_t len;
	long long n = -1;

	ck_assert_int_eq(vxt_metrics_publish(m), 0);
	ck_assert_int_eq(vxt_metrics_render(m, VXT_METRICS_PROMETHEUS, &out, &len), 0);
	out = realloc(out, len + 1);
	out[len] = 0;
	snprintf(key, sizeof(key), "\nvxtrace_io_completed_total{object=\"%s\",op=\"read\"} ",
		 object);
	if (strstr(out, key))
		n = atoll(strstr(out, key) + strlen(key));
	free(out);
	return n;
}

static bool has_errors(struct vxt_metrics *m, const char *object)
{
	char *out, key[96];
	size_t len;
	bool found;

	ck_assert_int_eq(vxt_metrics_render(m, VXT_METRICS_PROMETHEUS, &out, &len), 0);
	out = realloc(out, len + 1);
	out[len] = 0;
	snprintf(key, sizeof(key), "vxtrace_io_errors_total{object=\"%s\"", object);
	found = strstr(out, key) != NULL;
	free(out);
	return found;
}

START_TEST(gone_devices_removed)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_metrics *m = vxt_metrics_new();

	vxt_objtab_add(objs, VXT_SYSDEV_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VXT_SYSDEV_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VXT_SYSDEV_MKDEV(240, 0), "sim0", VXT_OBJ_SIM, 0);
	for (uint32_t o = 0; o < 3; o++)
		io(m, objs, o);
	ck_assert_int_eq(metrics_gone_look(m), 0);	/* all busy since the start */
	ck_assert_int_eq(completed(m, "sdb"), 1);
	ck_assert(has_errors(m, "sdb"));

	/* sdb goes while idle: its series and errors go; the idle simulated
	 * object and busy sda stay */
	io(m, objs, 0);
	gone("8:16");
	ck_assert_int_eq(metrics_gone_look(m), 1);
	ck_assert_int_eq(completed(m, "sdb"), -1);
	ck_assert(!has_errors(m, "sdb"));
	ck_assert_int_eq(completed(m, "sda"), 2);
	ck_assert_int_eq(completed(m, "sim0"), 1);

	/* sda goes while it completes its last I/O: kept until a look finds it idle */
	gone("8:0");
	io(m, objs, 0);
	ck_assert_int_eq(metrics_gone_look(m), 0);
	ck_assert_int_eq(completed(m, "sda"), 3);
	ck_assert_int_eq(metrics_gone_look(m), 1);
	ck_assert_int_eq(completed(m, "sda"), -1);
	ck_assert_int_eq(completed(m, "sim0"), 1);

	/* sdb comes back: new series from its first I/O */
	put_dev("8:16", "sdb");
	io(m, objs, 1);
	ck_assert_int_eq(completed(m, "sdb"), 1);
	ck_assert_int_eq(metrics_gone_look(m), 0);
	vxt_metrics_free(m);
	vxt_objtab_free(objs);
}
END_TEST

START_TEST(gone_tallied_device_stays_gone)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_metrics *m = vxt_metrics_new();
	struct vxt_tally t[2] = {
		{ .object = 0, .op = VXT_OP_READ, .started = 5, .completed = 5 },
		{ .object = 1, .op = VXT_OP_READ, .started = 7, .completed = 7 },
	};
	struct vxt_tally_error e = { .object = 1, .op = VXT_OP_READ, .error = -5, .n = 2 };
	struct vxt_tallies ts = { .t = t, .n = 2, .e = &e, .ne = 1 };

	vxt_objtab_add(objs, VXT_SYSDEV_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VXT_SYSDEV_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	ck_assert_int_eq(vxt_metrics_set_tally(m, objs, &ts), 0);
	ck_assert_int_eq(metrics_gone_look(m), 0);
	gone("8:16");
	ck_assert_int_eq(metrics_gone_look(m), 1);
	/* the kernel's counts still hold sdb: the same counts do not bring it back */
	ck_assert_int_eq(vxt_metrics_set_tally(m, objs, &ts), 0);
	ck_assert_int_eq(completed(m, "sdb"), -1);
	ck_assert(!has_errors(m, "sdb"));
	ck_assert_int_eq(completed(m, "sda"), 5);
	/* counts that move do */
	t[1].started = t[1].completed = 9;
	ck_assert_int_eq(vxt_metrics_set_tally(m, objs, &ts), 0);
	ck_assert_int_eq(completed(m, "sdb"), 9);
	ck_assert(has_errors(m, "sdb"));
	vxt_metrics_free(m);
	vxt_objtab_free(objs);
}
END_TEST

Suite *metrics_gone_suite(void)
{
	Suite *s = suite_create("metrics_gone");
	TCase *tc = tcase_create("metrics_gone");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gone_devices_removed);
	tcase_add_test(tc, gone_tallied_device_stays_gone);
	suite_add_tcase(s, tc);
	return s;
}
