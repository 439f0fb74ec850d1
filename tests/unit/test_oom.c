/* test_oom.c - the reader under allocation failure: fail the 1st, 2nd, 3rd
 * ... allocation of an open-read-verify-refresh session until one runs
 * through, and require a clean answer every time
 *
 * This file compiles its own copy of the reader and of the table and unit
 * code it allocates through (reader.c, vxtfile.c, objtab.c, strtab.c) with
 * malloc, calloc, realloc and strdup routed to counting wrappers; the copies
 * stand in for the library's (the unit test binary links them first). With
 * no failure armed they behave exactly as the library.
 * A failed allocation must end in "out of memory" (never a claim that the
 * file is corrupt, never fewer events presented as the whole file), free
 * everything (ASan and valgrind runs check that), and never crash.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long oom_countdown = -1;	/* allocations left before one fails; -1 = never */
static long oom_calls;
static int oom_failed;

static int oom_hit(void)
{
	oom_calls++;
	if (oom_countdown < 0)
		return 0;
	if (oom_countdown-- == 0) {
		oom_failed = 1;
		return 1;
	}
	return 0;
}

static void *oom_malloc(size_t n) { return oom_hit() ? NULL : malloc(n); }
static void *oom_calloc(size_t n, size_t m) { return oom_hit() ? NULL : calloc(n, m); }
static void *oom_realloc(void *p, size_t n) { return oom_hit() ? NULL : realloc(p, n); }
static char *oom_strdup(const char *s) { return oom_hit() ? NULL : strdup(s); }

#define malloc(n) oom_malloc(n)
#define calloc(n, m) oom_calloc(n, m)
#define realloc(p, n) oom_realloc(p, n)
#define strdup(s) oom_strdup(s)
#include "common/objtab.c"
#include "common/strtab.c"
#include "format/vxtfile.c"
#include "format/reader.c"
#undef malloc
#undef calloc
#undef realloc
#undef strdup

#define NEV 1200

static char path_full[96], path_torn[96];
static uint64_t torn_events;

static void make_files(void)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { .chunk_bytes = 100 * sizeof(struct vxt_event),
				     .source = "test", .host = "h" };
	char dir[64], err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	const struct vxt_chunk_info *last;
	struct vxt_reader *r;
	struct stat st;
	int in, out;
	size_t cut;
	char *buf;

	snprintf(dir, sizeof(dir), "/tmp/vxt-oom-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path_full, sizeof(path_full), "%s/full.vxt", dir);
	snprintf(path_torn, sizeof(path_torn), "%s/torn.vxt", dir);
	w = vxt_writer_open(path_full, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	for (int i = 0; i < NEV; i++) {
		struct vxt_event e = { 0 };
		char name[16];

		if (i % 300 == 0) {
			snprintf(name, sizeof(name), "d%d", i);
			vxt_objtab_add(objs, (uint32_t)(i + 1), name, 1, 0);
		}
		snprintf(name, sizeof(name), "c%d", i / 100);
		e.time_ns = 1000 + (uint64_t)i * 1000;
		e.object = (uint32_t)(i / 300);
		e.phase = (uint8_t)(i % 2);
		e.sector = (uint64_t)i * 8;
		e.bytes = 4096;
		e.error = i % 50 == 1 ? -5 : 0;
		e.comm = (uint32_t)vxt_strtab_intern(strs, name, strlen(name));
		ck_assert_int_eq(vxt_writer_write(w, &e, 1), 0);
	}
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	/* the torn copy: no footer, cut inside the last chunk's data */
	r = vxt_reader_open(path_full, err);
	ck_assert_msg(r != NULL, "%s", err);
	last = vxt_reader_chunk(r, vxt_reader_nchunks(r) - 1);
	cut = (size_t)(last->data_offset + last->data_size / 2);
	torn_events = NEV - last->nevents;
	vxt_reader_close(r);
	ck_assert_int_eq(stat(path_full, &st), 0);
	buf = malloc((size_t)st.st_size);
	in = open(path_full, O_RDONLY);
	ck_assert_int_eq(read(in, buf, (size_t)st.st_size), st.st_size);
	close(in);
	out = open(path_torn, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_eq(write(out, buf, cut), (ssize_t)cut);
	close(out);
	free(buf);
}

static void setup(void)
{
	if (!path_full[0])
		make_files();
}

static int is_oom(const char *msg)
{
	return strstr(msg, "out of memory") || strstr(msg, "Cannot allocate memory");
}

/* One session. @return 0 when it ran through, 1 when it stopped on ENOMEM. */
static int session(const char *path, uint64_t want_events, int *opened)
{
	char err[VXT_ERRBUF_SIZE];
	const struct vxt_event *ev;
	struct vxt_reader *r = vxt_reader_open(path, err);
	uint64_t n = 0, bad;
	int rc;

	*opened = r != NULL;
	if (!r) {
		ck_assert_msg(is_oom(err), "open: %s", err);
		return 1;
	}
	/* an open that succeeded indexed the whole file */
	ck_assert_uint_eq(vxt_reader_nevents(r), want_events);
	while ((rc = vxt_reader_next(r, &ev)) == 1)
		n++;
	if (rc < 0) {
		ck_assert_msg(is_oom(vxt_reader_error(r)), "next: %s", vxt_reader_error(r));
		vxt_reader_close(r);
		return 1;
	}
	ck_assert_uint_eq(n, want_events);
	rc = vxt_reader_verify(r, &bad);
	if (rc < 0 && is_oom(vxt_reader_error(r))) {
		vxt_reader_close(r);
		return 1;
	}
	ck_assert_int_eq(rc, want_events == NEV ? 0 : -EBADMSG);
	rc = vxt_reader_seek_time(r, 1000 + 500 * 1000);
	ck_assert(rc == 0 || rc == -ENOMEM);
	rc = vxt_reader_refresh(r);
	ck_assert(rc >= 0 || rc == -ENOMEM);
	vxt_reader_close(r);
	return 0;
}

static void sweep(const char *path, uint64_t want_events)
{
	long k, failures = 0;
	int opened;

	oom_countdown = -1;
	oom_calls = 0;
	ck_assert_int_eq(session(path, want_events, &opened), 0);
	ck_assert_int_gt(oom_calls, 5);
	for (k = 0;; k++) {
		oom_countdown = k;
		oom_failed = 0;
		session(path, want_events, &opened);
		oom_countdown = -1;
		if (!oom_failed)
			break;		/* the k-th allocation is past the session's last */
		failures++;
		ck_assert_int_lt(k, 100000);
	}
	ck_assert_int_ge(failures, 5);
}

START_TEST(oom_sweep_footer)
{
	sweep(path_full, NEV);
}
END_TEST

START_TEST(oom_sweep_recovery_scan)
{
	sweep(path_torn, torn_events);
}
END_TEST

Suite *oom_suite(void)
{
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("reader");

	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, oom_sweep_footer);
	tcase_add_test(tc, oom_sweep_recovery_scan);
	suite_add_tcase(s, tc);
	return s;
}
