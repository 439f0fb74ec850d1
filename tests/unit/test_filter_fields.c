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

/* One field an expression reads, and the field it names. */
static const struct {
	const char *expr;
	unsigned field;
} each[] = {
	{ "time > 1s", VXT_FIELD_TIME },
	{ "object == sda", VXT_FIELD_OBJECT },
	{ "dev == 8:16", VXT_FIELD_OBJECT },
	{ "phase == done", VXT_FIELD_PHASE_OP },
	{ "op == write", VXT_FIELD_PHASE_OP },
	{ "flags == sync", VXT_FIELD_FLAGS },
	{ "sector < 100", VXT_FIELD_SECTOR },
	{ "bytes >= 4k", VXT_FIELD_BYTES },
	{ "latency > 2ms", VXT_FIELD_LATENCY },
	{ "error", VXT_FIELD_ERROR },
	{ "pid == 7", VXT_FIELD_PID },
	{ "comm ~ \"kw*\"", VXT_FIELD_COMM },
	{ "cpu in (1, 2)", VXT_FIELD_CPU },
};

START_TEST(test_each_field)
{
	ck_assert_uint_eq(fields_of(each[_i].expr), each[_i].field);
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

	tcase_add_loop_test(tc, test_each_field, 0, sizeof(each) / sizeof(each[0]));
	tcase_add_test(tc, test_combined);
	tcase_add_test(tc, test_constant);
	suite_add_tcase(s, tc);
	return s;
}
