/* test_source_kmod.c - the kmod capture source where the module is absent
 *
 * The module itself is tested in a guest kernel (tests/kmod/); here: without
 * /dev/vxtrace the source says so in one line and takes nothing, and the
 * buffers a profile's speculation asks of the module (kmod_spec.h).
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "source/kmod_spec.h"
#include "vxtrace/source.h"
#include "vxtrace/voltrace.h"

START_TEST(test_kmod_absent)
{
	struct vxt_source_opts opts = { 0 };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	char err[VXT_ERRBUF_SIZE] = "";
	struct vxt_source *s;

	if (access(VOLIOT_DEVICE, F_OK) == 0) {
		vxt_objtab_free(objs);
		vxt_strtab_free(strs);
		return;		/* the module is loaded here */
	}
	s = vxt_source_open("kmod", &opts, objs, strs, err);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, "/dev/vxtrace does not exist (load vxtrace.ko)"),
		      "message: %s", err);
	ck_assert_uint_eq(vxt_objtab_count(objs), 0);
	opts.errors = true;
	s = vxt_source_open("kmod", &opts, objs, strs, err);
	ck_assert_ptr_null(s);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

/* The profile's nspec and specsize, keyed by object at most one buffer per
 * object selected, keyed by request at most 1 KiB a buffer; sizes past the
 * module's limit are named with it. */
START_TEST(test_kmod_spec_size)
{
	union voliot_want_set sets[3];
	struct vxt_kspec ks = { .key = 0, .nspec = 1024, .specsize = 4u << 20 };
	uint32_t nspec = 0, size = 0;
	char why[200] = "";

	memset(sets, 0, sizeof(sets));
	for (int i = 0; i < 3; i++) {
		sets[i].dev.type = VOLIOT_WANT_DEV;	/* partitions: one object each */
		sets[i].dev.dev = VOLIOT_MKDEV(259, i + 1);
	}
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), 0);
	ck_assert_uint_eq(nspec, 3);
	ck_assert_uint_eq(size, 4u << 20);
	ks.nspec = 2;		/* fewer buffers than objects: the profile's */
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), 0);
	ck_assert_uint_eq(nspec, 2);
	ks.key = 1;		/* pid: as many as the profile says */
	ks.nspec = 1024;
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), 0);
	ck_assert_uint_eq(nspec, 1024);
	ck_assert_uint_eq(size, 4u << 20);
	ks.key = 3;		/* request: an I/O's life */
	ks.nspec = 65536;
	ks.specsize = 4096;
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), 0);
	ck_assert_uint_eq(nspec, 65536);
	ck_assert_uint_eq(size, 1024);
	ks.specsize = 512;
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), 0);
	ck_assert_uint_eq(size, 512);
	ks.key = 1;
	ks.specsize = 5ull << 30;
	ck_assert_int_eq(vxt_kmod_spec_size(&ks, sets, 3, &nspec, &size, why, sizeof(why)), -E2BIG);
	ck_assert_msg(strstr(why, "specsize 5368709120 is past"), "%s", why);
	vxt_kmod_spec_toobig(64, 2u << 20, 0, why, sizeof(why));
	ck_assert_msg(!strncmp(why, "its 64 buffers x 2 MiB = 128 MiB do not fit the module's "
			       "spec_max_bytes", 72), "%s", why);
	vxt_kmod_spec_toobig(3, 100000, 1, why, sizeof(why));
	ck_assert_msg(!strncmp(why, "its 3 buffers (one per object) x 100000 bytes = 300000 bytes",
			       60), "%s", why);
}
END_TEST

Suite *source_kmod_suite(void)
{
	Suite *s = suite_create("source_kmod");
	TCase *tc = tcase_create("absent");

	tcase_add_test(tc, test_kmod_absent);
	tcase_add_test(tc, test_kmod_spec_size);
	suite_add_tcase(s, tc);
	return s;
}
