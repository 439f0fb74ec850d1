/* main.c - runs every Check suite of tests/unit (one per test_NAME.c) */
#include <check.h>
#include <stdlib.h>

#define SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	SRunner *sr;
	int failed;

	/* Check's timeout guards against a hang, not a slow machine: 4 s is
	 * its default, too short for a sanitizer build on a busy one (suites
	 * that need more set their own) */
	setenv("CK_DEFAULT_TIMEOUT", "60", 0);
	sr = srunner_create(NULL);
#define SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.h"
#undef SUITE
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
