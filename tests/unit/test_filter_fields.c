/* test_filter_fields.c - vxt_filter_fields(): which event fields a compiled
 * filter reads, so a pass can decode only those
 */
#include <check.h>

#include "vxtrace/vxtrace.h"
#include "vxtrace/filter.h"

static unsigned fields_of(const char *expr)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f = vxt_filter_compile(expr, NULL, NULL, err);
	unsigned r;

	ck_assert_msg(f != NULL, "%s: %s", expr, err);
	r = vxt_filter_fields(f);
	vxt_filter_free(f);
	return r;
}

START_TEST(test_each_field)
{
	ck_assert_uint_eq(fields_of("time > 1s"), VXT_FIELD_TIME);
	ck_assert_uint_eq(fields_of("object == sda"), VXT_FIELD_OBJECT);
	ck_assert_uint_eq(fields_of("dev == 8:16"), VXT_FIELD_OBJECT);
	ck_assert_uint_eq(fields_of("phase == done"), VXT_FIELD_PHASE_OP);
	ck_assert_uint_eq(fields_of("op == write"), VXT_FIELD_PHASE_OP);
	ck_assert_uint_eq(fields_of("flags == sync"), VXT_FIELD_FLAGS);
	ck_assert_uint_eq(fields_of("sector < 100"), VXT_FIELD_SECTOR);
	ck_assert_uint_eq(fields_of("bytes >= 4k"), VXT_FIELD_BYTES);
	ck_assert_uint_eq(fields_of("latency > 2ms"), VXT_FIELD_LATENCY);
	ck_assert_uint_eq(fields_of("error"), VXT_FIELD_ERROR);
	ck_assert_uint_eq(fields_of("pid == 7"), VXT_FIELD_PID);
	ck_assert_uint_eq(fields_of("comm ~ \"kw*\""), VXT_FIELD_COMM);
	ck_assert_uint_eq(fields_of("cpu in (1, 2)"), VXT_FIELD_CPU);
}
END_TEST

START_TEST(test_combined)
{
	ck_assert_uint_eq(fields_of("op == write && latency > 1ms"),
			  VXT_FIELD_PHASE_OP | VXT_FIELD_LATENCY);
	ck_assert_uint_eq(fields_of("error == EIO || (bytes >= 1M && !(comm in (fio, dd)))"),
			  VXT_FIELD_ERROR | VXT_FIELD_BYTES | VXT_FIELD_COMM);
	/* every field of a wide expression, none beyond */
	ck_assert_uint_eq(fields_of("time > 0 && object == a && flags == fua && sector > 1 && "
				    "bytes > 1 && latency > 1us && error && pid > 0 && "
				    "comm == x && cpu > 0 && op == read"), VXT_FIELD_ALL);
}
END_TEST

START_TEST(test_constant)
{
	ck_assert_uint_eq(fields_of("true"), 0);
}
END_TEST

Suite *filter_fields_suite(void)
{
	Suite *s = suite_create("filter_fields");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_each_field);
	tcase_add_test(tc, test_combined);
	tcase_add_test(tc, test_constant);
	suite_add_tcase(s, tc);
	return s;
}
