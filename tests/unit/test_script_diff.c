/* test_script_diff.c - random scripts run event by event and in batches
 *
 * 3 000 random scripts (tests/fuzz/script_diff.h's grammar, expressions up
 * to 8 levels deep) over random overlapping I/O, each run through
 * vxt_script_push() and vxt_script_push_many(): every record, the
 * statistics and the exit status must be the same. A script on which they
 * differ is printed whole.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../fuzz/script_diff.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

START_TEST(test_engines_agree)
{
	static const char *const names[] = { "sda", "sdb1", "dm-0" };
	static const char *const comms[] = { "fio", "kworker/u8:2", "dd" };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	uint8_t bytes[2048];
	unsigned compiled = 0;

	ck_assert(objs && strs);
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
	for (unsigned k = 0; k < 3000; k++) {
		char *script = NULL;

		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = rnd8();
		if (diff_engines(bytes, sizeof(bytes), objs, strs, &script)) {
			fprintf(stderr, "the entry points differ on:\n%s", script);
			free(script);
			ck_abort_msg("one event at a time and a batch differ (script %u)", k);
		}
		compiled++;
	}
	ck_assert_uint_eq(compiled, 3000);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *script_diff_suite(void)
{
	Suite *s = suite_create("script_diff");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_engines_agree);
	suite_add_tcase(s, tc);
	return s;
}
