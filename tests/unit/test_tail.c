/* test_tail.c - the reader against a file that grows or was cut anywhere
 *
 * A file is written with small chunks, new objects and new command names
 * appearing along the way. Then (1) a reader follows it while it grows by
 * uneven steps, as if the writer were still appending (steps cut units and
 * chunk data in the middle), and (2) every prefix of it, as a crash would
 * leave it, is opened. Either way the reader must show exactly the events of
 * the chunks that are complete, never part of a chunk, with the right
 * objects and names, and find all of them once the file is whole.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/vxt.h"

#define NEV 2000
#define PER_CHUNK 50

static struct vxt_event want[NEV];
static uint8_t *file;
static size_t file_len;
static uint64_t chunk_end[NEV / PER_CHUNK + 2];	/* file offset where chunk i ends */
static size_t nchunks;
static char dir[64];
static char names[NEV][16];		/* object name by id */

static void make_file(void)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { .chunk_bytes = PER_CHUNK * sizeof(struct vxt_event),
				     .source = "test", .host = "h" };
	struct vxt_writer_stats st;
	char path[96], err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/vxt-tail-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.vxt", dir);
	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	w = vxt_writer_open(path, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	for (int i = 0; i < NEV; i++) {
		struct vxt_event *e = &want[i];
		char comm[16];

		memset(e, 0, sizeof(*e));
		if (i % 200 == 0) {
			snprintf(names[i / 200], sizeof(names[0]), "disk%d", i / 200);
			vxt_objtab_add(objs, (uint32_t)(8 << 20 | (i / 200 + 1)), names[i / 200],
				       1, 1 << 30);
		}
		snprintf(comm, sizeof(comm), "cmd%d", i / 150);
		e->time_ns = 1000000000ull + (uint64_t)i * 1000;
		e->object = (uint32_t)(i / 200 - (i % 3 == 0 && i >= 200));
		e->phase = i % 2 ? VXT_PH_DONE : VXT_PH_START;
		e->op = (uint8_t)(i % 4 == 1);
		e->sector = (uint64_t)i * 8;
		e->bytes = 4096;
		e->latency_ns = i % 2 ? 1000 + (uint64_t)i : 0;
		e->error = i % 97 == 1 ? -5 : 0;
		e->pid = 100 + (uint32_t)(i % 7);
		e->comm = (uint32_t)vxt_strtab_intern(strs, comm, strlen(comm));
		ck_assert_int_eq(vxt_writer_write(w, e, 1), 0);
		vxt_writer_get_stats(w, &st);
		if (st.chunks > nchunks)
			chunk_end[nchunks++] = st.file_bytes;
	}
	ck_assert_int_eq(vxt_writer_flush(w), 0);
	vxt_writer_get_stats(w, &st);
	if (st.chunks > nchunks)
		chunk_end[nchunks++] = st.file_bytes;
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	ck_assert_uint_eq(nchunks, NEV / PER_CHUNK);

	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	file_len = (size_t)ftell(f);
	rewind(f);
	file = malloc(file_len);
	ck_assert_uint_eq(fread(file, 1, file_len, f), file_len);
	fclose(f);
	unlink(path);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

static void setup(void)
{
	if (!file)
		make_file();
}

/* Events in chunks wholly inside the first @len bytes. */
static uint64_t complete_events(size_t len)
{
	size_t k = 0;

	while (k < nchunks && chunk_end[k] <= len)
		k++;
	return (uint64_t)k * PER_CHUNK;
}

/* The reader's events [from, nevents) must be want[from..]. */
static void check_events(struct vxt_reader *r, uint64_t from)
{
	const struct vxt_event *ev;
	uint64_t n = vxt_reader_nevents(r);

	ck_assert_int_eq(vxt_reader_seek_ordinal(r, from), 0);
	for (uint64_t i = from; i < n; i++) {
		const struct vxt_object *o;

		ck_assert_int_eq(vxt_reader_next(r, &ev), 1);
		ck_assert_msg(!memcmp(ev, &want[i], sizeof(*ev)), "event %llu differs",
			      (unsigned long long)i);
		o = vxt_objtab_get(vxt_reader_objects(r), ev->object);
		ck_assert_ptr_nonnull(o);
		ck_assert_str_eq(o->name, names[ev->object]);
		ck_assert_uint_eq(o->dev, 8 << 20 | (ev->object + 1));
	}
	ck_assert_int_eq(vxt_reader_next(r, &ev), 0);
}

static void follow(size_t step0, unsigned seed)
{
	char path[96], err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = NULL;
	size_t len = 0;
	uint64_t seen = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/grow.vxt", dir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	srand(seed);
	while (len < file_len) {
		size_t step = step0 ? step0 : 1 + (size_t)rand() % 3000;

		if (step > file_len - len)
			step = file_len - len;
		ck_assert_int_eq(write(fd, file + len, step), (ssize_t)step);
		len += step;
		if (!r) {
			r = vxt_reader_open(path, err);
			if (!r)
				continue;	/* the header is not whole yet */
		} else {
			ck_assert_int_ge(vxt_reader_refresh(r), 0);
		}
		ck_assert_uint_le(vxt_reader_nevents(r), complete_events(len));
		check_events(r, seen);
		seen = vxt_reader_nevents(r);
	}
	ck_assert_ptr_nonnull(r);
	ck_assert_int_ge(vxt_reader_refresh(r), 0);
	/* the whole file (footer included): every event, none twice */
	ck_assert_uint_eq(vxt_reader_nevents(r), NEV);
	ck_assert_uint_eq(vxt_objtab_count(vxt_reader_objects(r)), (NEV + 199) / 200);
	check_events(r, 0);
	vxt_reader_close(r);
	close(fd);
	unlink(path);
}

START_TEST(follow_growing_file)
{
	static const size_t steps[] = { 0, 0, 0, 1999, 4096, 613, 211 };

	follow(steps[_i], (unsigned)_i + 1);
}
END_TEST

START_TEST(every_crash_point)
{
	char err[VXT_ERRBUF_SIZE];

	for (size_t len = 0; len <= file_len; len += len < 700 ? 1 : 157) {
		struct vxt_reader *r = vxt_reader_open_mem(file, len, "cut", err);
		uint64_t bad;

		if (!r)
			continue;	/* only while the header is not whole */
		ck_assert_uint_eq(vxt_reader_nevents(r), complete_events(len));
		check_events(r, 0);
		if (len < file_len) {
			ck_assert(vxt_reader_recovered(r));
			/* a cut inside a unit is named as damage */
			if (complete_events(len) < NEV && len != chunk_end[
				complete_events(len) / PER_CHUNK - (complete_events(len) > 0)] &&
			    len > chunk_end[0])
				ck_assert_int_lt(vxt_reader_verify(r, &bad), 0);
		}
		vxt_reader_close(r);
	}
	ck_assert_ptr_null(vxt_reader_open_mem(file, 100, "cut", err));
	ck_assert(strstr(err, "header") != NULL);
}
END_TEST

Suite *tail_suite(void)
{
	Suite *s = suite_create("tail");
	TCase *tc = tcase_create("reader");

	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 240);	/* sanitizer builds on a busy machine */
	tcase_add_loop_test(tc, follow_growing_file, 0, 7);
	tcase_add_test(tc, every_crash_point);
	suite_add_tcase(s, tc);
	return s;
}
