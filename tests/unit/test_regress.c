/* test_regress.c - replay every regression input of tests/fuzz/regress/ and
 * every hostile file of tests/data/hostile/ through the library (and the
 * broken profiles of tests/profiles-bad/ through the profile loader)
 *
 * The fuzz targets replay the same inputs under libFuzzer; this runs them in
 * the ordinary unit test binary, so `make SAN=1 check` and the valgrind pass
 * see them too. A crash, a sanitizer report or a leak fails the test; the
 * answers themselves are checked by tests/cli/hostile_vxt.sh.
 * Runs from the top of the tree (VXT_TOP, else the current directory).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"

typedef void (*replay_fn)(const uint8_t *p, size_t n, const char *name);

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0) {
		rewind(f);
		p = malloc((size_t)len + 1);
		if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
			free(p);
			p = NULL;
		}
		*n = (size_t)len;
	}
	fclose(f);
	return p;
}

/* Replay each file of @dir (relative to the top); @return how many. */
static int replay_dir(const char *dir, replay_fn fn)
{
	const char *top = getenv("VXT_TOP");
	char path[4096];
	struct dirent *d;
	DIR *dp;
	int count = 0;

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", dir);
	dp = opendir(path);
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		char file[4096 + 256];
		uint8_t *p;
		size_t n = 0;

		if (d->d_name[0] == '.' || strstr(d->d_name, ".py"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
		p = slurp(file, &n);
		if (!p)
			continue;
		fn(p, n, d->d_name);
		free(p);
		count++;
	}
	closedir(dp);
	return count;
}

/* A message quoting hostile input stays one printable line. */
static void assert_printable(const char *msg)
{
	for (const char *m = msg; *m; m++)
		ck_assert_msg((unsigned char)*m >= 0x20 && *m != 0x7f, "control character in: %s",
			      msg);
}

static void replay_reader(const uint8_t *p, size_t n, const char *name)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = vxt_reader_open_mem(p, n, name, err);
	const struct vxt_event *ev;
	uint64_t bad, k = 0;
	size_t m;

	if (!r)
		return;
	while (vxt_reader_next(r, &ev) == 1)
		k++;
	ck_assert_uint_le(k, vxt_reader_nevents(r));
	while (vxt_reader_prev(r, &ev) == 1 && k--)
		;
	if (vxt_reader_nchunks(r)) {
		vxt_reader_seek_time(r, vxt_reader_chunk(r, 0)->last_ns);
		vxt_reader_chunk_events(r, vxt_reader_nchunks(r) - 1, &m);
	}
	vxt_reader_verify(r, &bad);
	vxt_reader_refresh(r);
	vxt_reader_close(r);
}

static int count_rec(const struct vxt_chanrec *rec, void *arg)
{
	(void)rec;
	++*(int *)arg;
	return 0;
}

static void replay_chanrec(const uint8_t *p, size_t n, const char *name)
{
	struct vxt_chandec d;
	int k = 0;

	(void)name;
	vxt_chandec_init(&d);
	vxt_chandec_feed(&d, p, n, count_rec, &k);
	ck_assert_int_eq((uint64_t)k, d.records);
}

static void replay_filter(const uint8_t *p, size_t n, const char *name)
{
	char *expr = malloc(n + 1), err[VXT_ERRBUF_SIZE];
	struct vxt_filter *f;
	struct vxt_event ev = { .time_ns = 1, .bytes = 4096 };

	(void)name;
	ck_assert_ptr_nonnull(expr);
	memcpy(expr, n ? p + 1 : p, n ? n - 1 : 0);	/* byte 0: options, as in the target */
	expr[n ? n - 1 : 0] = '\0';
	f = vxt_filter_compile(expr, NULL, NULL, err);
	if (f)
		vxt_filter_matches(f, &ev);
	else
		assert_printable(err);
	vxt_filter_free(f);
	free(expr);
}

static void replay_profile(const uint8_t *p, size_t n, const char *name)
{
	char err[VXT_ERRBUF_SIZE];
	/* an exact-size copy: the loader must not read past @n */
	char *text = malloc(n ? n : 1);
	struct vxt_profile *prof;

	ck_assert_ptr_nonnull(text);
	memcpy(text, p, n);
	prof = vxt_profile_parse(text, n, name, err);
	if (!prof)
		assert_printable(err);
	vxt_profile_free(prof);
	free(text);
}

START_TEST(regress_reader)
{
	int a = replay_dir("tests/fuzz/regress/reader", replay_reader);
	int b = replay_dir("tests/data/hostile", replay_reader);
	int c = replay_dir("tests/fuzz/seeds/reader", replay_reader);

	ck_assert_msg(a > 0 && b > 30 && c > 0,
		      "regression inputs not found (run from the top of the tree or set VXT_TOP)");
}
END_TEST

START_TEST(regress_chanrec)
{
	replay_dir("tests/fuzz/regress/chanrec", replay_chanrec);
	ck_assert_int_gt(replay_dir("tests/fuzz/seeds/chanrec", replay_chanrec), 0);
}
END_TEST

START_TEST(regress_filter)
{
	replay_dir("tests/fuzz/regress/filter", replay_filter);
	ck_assert_int_gt(replay_dir("tests/fuzz/seeds/filter", replay_filter), 0);
}
END_TEST

START_TEST(regress_profile)
{
	ck_assert_int_gt(replay_dir("tests/fuzz/regress/profile", replay_profile), 0);
	ck_assert_int_gt(replay_dir("tests/profiles-bad", replay_profile), 20);
}
END_TEST

Suite *regress_suite(void)
{
	Suite *s = suite_create("regress");
	TCase *tc = tcase_create("inputs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, regress_reader);
	tcase_add_test(tc, regress_chanrec);
	tcase_add_test(tc, regress_filter);
	tcase_add_test(tc, regress_profile);
	suite_add_tcase(s, tc);
	return s;
}
