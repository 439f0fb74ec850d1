/* test_strings.c - command-name floods: a million distinct names through the
 * writer give files the reader accepts, with the names past the per-file
 * bound read as "(many)" and counted, and a later file's header does not
 * repeat the whole table */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"

#define NNAMES 1000000u

static char path[64];

static void name_of(uint32_t i, char *buf, size_t size)
{
	snprintf(buf, size, "flood-%07u", i);
}

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/vxt-strings-%d.vxt", (int)getpid());
}

static void teardown(void)
{
	unlink(path);
}

/* Write @n events, event i naming caller string @ids[i]. */
static void write_events(struct vxt_objtab *objs, struct vxt_strtab *strs, const uint32_t *ids,
			 size_t n, struct vxt_writer_stats *st)
{
	struct vxt_writer_opts o = { .force = true, .host = "h", .source = "test" };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w = vxt_writer_open(path, &o, objs, strs, err);
	struct vxt_event e = { .phase = VXT_PH_START, .bytes = 4096 };

	ck_assert_msg(w != NULL, "%s", err);
	for (size_t i = 0; i < n; i++) {
		e.time_ns = 1000 + i;
		e.comm = ids[i];
		ck_assert_int_eq(vxt_writer_write(w, &e, 1), 0);
	}
	vxt_writer_get_stats(w, st);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
}

START_TEST(million_names)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	uint32_t *ids = malloc(NNAMES * sizeof(*ids));
	struct vxt_writer_stats st;
	char err[VXT_ERRBUF_SIZE], name[32];
	const struct vxt_event *ev;
	struct vxt_reader *r;
	struct stat sb;
	uint64_t n = 0, many = 0;
	int rc;

	ck_assert_ptr_nonnull(ids);
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 1 << 30);
	for (uint32_t i = 0; i < NNAMES; i++) {
		name_of(i, name, sizeof(name));
		ids[i] = (uint32_t)vxt_strtab_intern(strs, name, strlen(name));
	}
	ck_assert_uint_eq(vxt_strtab_count(strs), NNAMES + 1);
	write_events(objs, strs, ids, NNAMES, &st);
	ck_assert_uint_eq(st.events, NNAMES);
	/* "" and "(many)" take two of the file's slots */
	ck_assert_uint_eq(st.names_over, NNAMES - (VXT_FILE_STRINGS_MAX - 2));

	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_le(vxt_strtab_count(vxt_reader_strings(r)), VXT_FILE_STRINGS_MAX);
	while ((rc = vxt_reader_next(r, &ev)) == 1) {
		const char *s = vxt_strtab_get(vxt_reader_strings(r), ev->comm);

		if (n < VXT_FILE_STRINGS_MAX - 2) {
			name_of((uint32_t)n, name, sizeof(name));
			ck_assert_str_eq(s, name);
		} else {
			ck_assert_str_eq(s, VXT_STR_MANY);
			many++;
		}
		n++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, NNAMES);
	ck_assert_uint_eq(many, st.names_over);
	vxt_reader_close(r);

	/* the next file (as after a rotation) holds only what it refers to */
	ids[0] = NNAMES - 7;
	write_events(objs, strs, ids, 1, &st);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_lt((uint64_t)sb.st_size, 64 * 1024);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_int_eq(vxt_reader_next(r, &ev), 1);
	name_of(NNAMES - 8, name, sizeof(name));
	ck_assert_str_eq(vxt_strtab_get(vxt_reader_strings(r), ev->comm), name);
	vxt_reader_close(r);
	free(ids);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

START_TEST(table_limit)
{
	struct vxt_strtab *t = vxt_strtab_new();
	int64_t a, b, c, d;

	vxt_strtab_set_limit(t, 4);
	a = vxt_strtab_intern(t, "a", 1);
	b = vxt_strtab_intern(t, "b", 1);
	c = vxt_strtab_intern(t, "c", 1);
	d = vxt_strtab_intern(t, "d", 1);
	ck_assert_int_eq(a, 1);
	ck_assert_int_eq(b, 2);
	ck_assert_int_eq(c, 3);
	ck_assert_int_eq(d, 3);
	ck_assert_str_eq(vxt_strtab_get(t, 3), VXT_STR_MANY);
	ck_assert_int_eq(vxt_strtab_intern(t, "a", 1), 1);	/* known names keep their id */
	ck_assert_uint_eq(vxt_strtab_count(t), 4);
	ck_assert_uint_eq(vxt_strtab_over(t), 2);
	vxt_strtab_free(t);
}
END_TEST

Suite *strings_suite(void)
{
	Suite *s = suite_create("strings");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, million_names);
	tcase_add_test(tc, table_limit);
	suite_add_tcase(s, tc);
	return s;
}
