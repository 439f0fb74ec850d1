/* test_util.c - errno names, durations, sizes, trace times, CRC-32C */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/util.h"
#include "fixture.h"

START_TEST(crc32c_known_values)
{
	static const char digits[] = "123456789";
	unsigned char buf[1000];

	/* the check value of CRC-32C */
	ck_assert_uint_eq(vxt_crc32c(0, digits, 9), 0xE3069283u);
	ck_assert_uint_eq(vxt_crc32c_sw(0, digits, 9), 0xE3069283u);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len < sizeof(buf); len += 13) {
		ck_assert_uint_eq(vxt_crc32c(0, buf, len), vxt_crc32c_sw(0, buf, len));
		/* incremental equals whole */
		ck_assert_uint_eq(vxt_crc32c(vxt_crc32c(0, buf, len / 2), buf + len / 2,
					     len - len / 2), vxt_crc32c(0, buf, len));
	}
}
END_TEST

/* vxt_lower_bound_u64() against a linear scan: random ascending arrays with
 * runs of equal values, every value in and around them, and an empty one. */
START_TEST(lower_bound_oracle)
{
	uint64_t a[64], rng = 0x9e3779b97f4a7c15ull;

	ck_assert_uint_eq(vxt_lower_bound_u64(NULL, 0, 5), 0);
	for (int round = 0; round < 200; round++) {
		size_t n = ut_rand_below(&rng, 65);

		for (size_t i = 0; i < n; i++)
			a[i] = (i ? a[i - 1] : 0) + ut_rand_below(&rng, 3);
		for (uint64_t x = 0; x <= (n ? a[n - 1] + 1 : 1); x++) {
			size_t want = 0;

			while (want < n && a[want] < x)
				want++;
			ck_assert_uint_eq(vxt_lower_bound_u64(a, n, x), want);
		}
	}
}
END_TEST

/* Known values of the two parsers: the text, the result and, when 0, the value. */
static const struct {
	int (*parse)(const char *s, uint64_t *v);
	const char *in;
	int rc;
	uint64_t v;
} parsed[] = {
	{ vxt_parse_duration, "500us", 0, 500000 },
	{ vxt_parse_duration, "20ms", 0, 20000000 },
	{ vxt_parse_duration, "1.5", 0, 1500000000 },
	{ vxt_parse_duration, "2m", 0, 120000000000ull },
	{ vxt_parse_duration, "-1s", -EINVAL, 0 },
	{ vxt_parse_duration, "5 parsecs", -EINVAL, 0 },
	{ vxt_parse_duration, "", -EINVAL, 0 },
	{ vxt_parse_size, "4k", 0, 4096 },
	{ vxt_parse_size, "1M", 0, 1048576 },
	{ vxt_parse_size, "2GiB", 0, 2147483648ull },
	{ vxt_parse_size, "12q", -EINVAL, 0 },
};

START_TEST(durations_and_sizes)
{
	uint64_t v;

	ck_assert_int_eq(parsed[_i].parse(parsed[_i].in, &v), parsed[_i].rc);
	if (parsed[_i].rc == 0)
		ck_assert_uint_eq(v, parsed[_i].v);
}
END_TEST

START_TEST(trace_times)
{
	uint64_t out, start = 1000000000000ull, cur = start + 5000000000ull;
	/* anchor: monotonic 1000 s is 2026-01-01T00:00:00Z */
	uint64_t am = 1000000000000ull, ar = 1767225600000000000ull;

	setenv("TZ", "UTC", 1);
	ck_assert_int_eq(vxt_parse_time("12.5", start, cur, am, ar, &out), 0);
	ck_assert_uint_eq(out, start + 12500000000ull);
	ck_assert_int_eq(vxt_parse_time("+2s", start, cur, am, ar, &out), 0);
	ck_assert_uint_eq(out, cur + 2000000000ull);
	ck_assert_int_eq(vxt_parse_time("-500ms", start, cur, am, ar, &out), 0);
	ck_assert_uint_eq(out, cur - 500000000ull);
	ck_assert_int_eq(vxt_parse_time("00:00:07.25", start, cur, am, ar, &out), 0);
	ck_assert_uint_eq(out, am + 7250000000ull);
	ck_assert_int_eq(vxt_parse_time("2026-01-01T00:01:00", start, cur, am, ar, &out), 0);
	ck_assert_uint_eq(out, am + 60000000000ull);
	ck_assert_int_eq(vxt_parse_time("25:00:00", start, cur, am, ar, &out), -EINVAL);
	ck_assert_int_eq(vxt_parse_time("soon", start, cur, am, ar, &out), -EINVAL);
}
END_TEST

START_TEST(errno_names)
{
	ck_assert_str_eq(vxt_errno_name(-EIO), "EIO");
	ck_assert_str_eq(vxt_errno_name(ETIMEDOUT), "ETIMEDOUT");
	ck_assert_int_eq(vxt_errno_parse("EIO"), EIO);
	ck_assert_int_eq(vxt_errno_parse("110"), 110);
	ck_assert_int_eq(vxt_errno_parse("EBOGUS"), -1);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, crc32c_known_values);
	tcase_add_test(tc, lower_bound_oracle);
	tcase_add_loop_test(tc, durations_and_sizes, 0, sizeof(parsed) / sizeof(parsed[0]));
	tcase_add_test(tc, trace_times);
	tcase_add_test(tc, errno_names);
	suite_add_tcase(s, tc);
	return s;
}
