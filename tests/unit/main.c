/* main.c - runs every Check suite of tests/unit (one per test_NAME.c)
 *
 * VXT_UNIT_CLAIM=DIR lets several runners share the suites: each runs the
 * next suite no other runner has claimed yet (a claim is a file created with
 * O_EXCL in DIR), so two runners on two cores finish together however the
 * suites' times change (.ci/run runs the sanitizer build that way). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef SUITE

static const struct unit_suite {
	const char *name;
	Suite *(*make)(void);
} unit_suites[] = {
#define SUITE(name) { #name, name##_suite },
#include "suites.h"
#undef SUITE
};

#define UNIT_NSUITES (sizeof(unit_suites) / sizeof(unit_suites[0]))

/* 1 when this runner takes the suite, 0 when another runner has, -1 on
 * an error (said) */
static int suite_claim(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		fprintf(stderr, "unit-tests: VXT_UNIT_CLAIM=%s: path too long\n", dir);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno == EEXIST)
		return 0;
	fprintf(stderr, "unit-tests: %s: %s\n", path, strerror(errno));
	return -1;
}

/* runs the suites other runners sharing dir have not claimed, one runner
 * per suite; the total is printed last */
static int run_claimed(const char *dir)
{
	int checks = 0, failed = 0, suites = 0;

	for (size_t i = 0; i < UNIT_NSUITES; i++) {
		SRunner *sr;
		int rc = suite_claim(dir, unit_suites[i].name);

		if (rc < 0)
			return EXIT_FAILURE;
		if (rc == 0)
			continue;
		sr = srunner_create(unit_suites[i].make());
		srunner_run_all(sr, CK_NORMAL);
		checks += srunner_ntests_run(sr);
		failed += srunner_ntests_failed(sr);
		suites++;
		srunner_free(sr);
	}
	printf("unit: %d passed, %d failed (%d suites claimed)\n", checks - failed, failed, suites);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
	const char *claim = getenv("VXT_UNIT_CLAIM");
	SRunner *sr;
	int run, failed;

	/* Check's timeout guards against a hang, not a slow machine: 4 s is
	 * its default, too short for a sanitizer build on a busy one (suites
	 * that need more set their own) */
	setenv("CK_DEFAULT_TIMEOUT", "60", 0);
	if (claim && *claim)
		return run_claimed(claim);
	sr = srunner_create(NULL);
	for (size_t i = 0; i < UNIT_NSUITES; i++)
		srunner_add_suite(sr, unit_suites[i].make());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* the line every kind of test ends with (make check T=NAME) */
	printf("unit: %d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
