/* test_source_kmod.c - the kmod capture source where the module is absent
 *
 * The module itself is tested in a guest kernel (tests/kmod/); here: without
 * /dev/vxtrace the source says so in one line and takes nothing.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

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

Suite *source_kmod_suite(void)
{
	Suite *s = suite_create("source_kmod");
	TCase *tc = tcase_create("absent");

	tcase_add_test(tc, test_kmod_absent);
	suite_add_tcase(s, tc);
	return s;
}
