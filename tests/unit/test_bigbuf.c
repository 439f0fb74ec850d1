/* test_bigbuf.c - large buffers on huge pages (bigbuf.c) and a chunk decoder
 * given a buffer to decompress into (vxt_chunkdec_lend_raw()): the events of
 * a chunk decoded into a lent buffer, one too small for it, and one of its
 * own, against the events written; a lent buffer is never freed with the
 * decoder (ASan and valgrind runs see a bad free). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/bigbuf.h"
#include "format/chunkdec.h"
#include "format/reader_impl.h"
#include "vxtrace/vxtrace.h"

#define NEV 5000

static struct vxt_event ev[NEV];
static char path[64];

START_TEST(bigbuf_aligned_and_zero)
{
	size_t sizes[] = { 1, 4096, (2u << 20) - 1, 2u << 20, (3u << 20) + 5 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t mapped = 0;
		uint8_t *p = vxt_bigbuf_alloc(sizes[s], &mapped);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % VXT_BIGBUF_ALIGN, 0);
		ck_assert_uint_ge(mapped, sizes[s]);
		ck_assert_uint_eq(mapped % VXT_BIGBUF_ALIGN, 0);
		ck_assert_uint_lt(mapped - sizes[s], VXT_BIGBUF_ALIGN);
		for (size_t i = 0; i < mapped; i += 4096)
			ck_assert_uint_eq(p[i], 0);
		memset(p, 0xA5, mapped);	/* every byte writable */
		vxt_bigbuf_free(p, mapped);
	}
	ck_assert_ptr_null(vxt_bigbuf_alloc(0, &sizes[0]));
	vxt_bigbuf_free(NULL, 0);
}
END_TEST

static void write_file(void)
{
	struct vxt_writer_opts o = { .force = true, .host = "h", .source = "test" };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	uint64_t x = 88172645463325252ull, t = 1000000;

	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	vxt_strtab_intern(strs, "fio", 3);
	for (size_t i = 0; i < NEV; i++) {
		struct vxt_event *e = &ev[i];

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		memset(e, 0, sizeof(*e));
		t += x % 5000;
		e->time_ns = t;
		e->object = (uint32_t)(x % 2);
		e->phase = (uint8_t)(x % 2);
		e->op = (uint8_t)((x >> 8) % 2);
		e->sector = x % 1000000;
		e->bytes = 4096 * (uint32_t)(1 + x % 4);
		e->latency_ns = e->phase ? x % 900000 : 0;
		e->pid = (uint32_t)(100 + x % 7);
		e->comm = (uint32_t)(x % 2);
		e->cpu = (uint16_t)(x % 4);
	}
	snprintf(path, sizeof(path), "/tmp/vxt-bigbuf-%d.vxt", (int)getpid());
	w = vxt_writer_open(path, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, ev, NEV), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

/* Decode the file's chunks with @d, lent @cap bytes at @buf (none if 0),
 * each chunk's events against the ones written. @return whether d's raw
 * was still the lent buffer at the end. */
static bool decode_all(struct vxt_reader *r, uint8_t *buf, size_t cap)
{
	struct vxt_chunkdec d;
	char msg[200];
	bool kept;

	ck_assert_int_eq(vxt_chunkdec_init(&d), 0);
	if (cap)
		vxt_chunkdec_lend_raw(&d, buf, cap);
	for (size_t c = 0; c < vxt_reader_nchunks(r); c++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(r, c);

		ck_assert_int_eq(vxt_chunkdec_begin(&d, vxt_reader_src(r), ci, c,
						    r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES,
						    2, 2, msg, sizeof(msg)), 0);
		ck_assert_int_eq(vxt_chunkdec_step(&d, ci, c, ci->nevents, msg, sizeof(msg)), 0);
		ck_assert_uint_eq(d.ndone, ci->nevents);
		for (size_t i = 0; i < ci->nevents; i++) {
			const struct vxt_event *a = &d.ev[i], *b = &ev[ci->first_event + i];

			ck_assert_msg(a->time_ns == b->time_ns && a->sector == b->sector &&
				      a->latency_ns == b->latency_ns && a->bytes == b->bytes &&
				      a->object == b->object && a->pid == b->pid &&
				      a->comm == b->comm && a->cpu == b->cpu &&
				      a->phase == b->phase && a->op == b->op,
				      "chunk %zu event %zu differs", c, i);
		}
	}
	kept = cap && d.raw == buf;
	vxt_chunkdec_free(&d);	/* frees what it allocated, never the lent buffer */
	return kept;
}

START_TEST(lent_buffer)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;
	static uint8_t small[64];
	size_t big = 0, mapped;
	uint8_t *block;

	write_file();
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	for (size_t c = 0; c < vxt_reader_nchunks(r); c++)
		if (vxt_reader_entry(r, c)->raw_size > big)
			big = vxt_reader_entry(r, c)->raw_size;
	ck_assert_uint_gt(big, sizeof(small));
	block = vxt_bigbuf_alloc(big + 8, &mapped);
	ck_assert_ptr_nonnull(block);
	ck_assert_int_eq(decode_all(r, block, big + 8), true);	/* fits: used */
	ck_assert_int_eq(decode_all(r, small, sizeof(small)), false);	/* too small: its own */
	ck_assert_int_eq(decode_all(r, NULL, 0), false);		/* none lent */
	vxt_bigbuf_free(block, mapped);
	vxt_reader_close(r);
	unlink(path);
}
END_TEST

Suite *bigbuf_suite(void)
{
	Suite *s = suite_create("bigbuf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bigbuf_aligned_and_zero);
	tcase_add_test(tc, lent_buffer);
	suite_add_tcase(s, tc);
	return s;
}
