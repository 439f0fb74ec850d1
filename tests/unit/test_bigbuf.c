/* test_bigbuf.c - large buffers on huge pages (bigbuf.c) and a chunk decoder
 * given buffers to read and decompress into (vxt_chunkdec_lend_raw(),
 * _comp()): the events of each chunk decoded with lent buffers, ones too
 * small for it, and its own, against the events written, the compressed
 * one passed between decoders as a merge does; a lent buffer is never
 * freed with a decoder (a bad free aborts; ASan and valgrind see it too). */
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
#include "fixture.h"

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

		ut_rand(&x);
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

/* Decode the file's chunks with a decoder lent @rcap bytes at @raw and
 * @ccap at @comp (none if 0), its compressed data used through a second
 * decoder's (vxt_chunkdec_swap_work(), as the merge takes turns), each
 * chunk's events against the ones written. @return whether both lent
 * buffers were still in use at the end. */
static bool decode_all(struct vxt_reader *r, uint8_t *raw, size_t rcap, uint8_t *comp,
		       size_t ccap)
{
	struct vxt_chunkdec d, work;
	char msg[200];
	bool kept;

	ck_assert_int_eq(vxt_chunkdec_init(&d), 0);
	ck_assert_int_eq(vxt_chunkdec_init(&work), 0);
	if (rcap)
		vxt_chunkdec_lend_raw(&d, raw, rcap);
	if (ccap)
		vxt_chunkdec_lend_comp(&work, comp, ccap);
	for (size_t c = 0; c < vxt_reader_nchunks(r); c++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(r, c);
		int rc;

		vxt_chunkdec_swap_work(&d, &work);
		rc = vxt_chunkdec_begin(&d, vxt_reader_src(r), ci, c,
					r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES, 2, 2, msg,
					sizeof(msg));
		vxt_chunkdec_swap_work(&d, &work);
		ck_assert_msg(rc == 0, "%s", msg);
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
	kept = rcap && d.raw == raw && ccap && work.comp == comp;
	vxt_chunkdec_free(&d);	/* free what they allocated, never a lent buffer */
	vxt_chunkdec_free(&work);
	return kept;
}

START_TEST(lent_buffer)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;
	static uint8_t small[64], small2[64];
	size_t big = 0, bigc = 0, mapped;
	uint8_t *block;

	write_file();
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	for (size_t c = 0; c < vxt_reader_nchunks(r); c++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(r, c);

		big = ci->raw_size > big ? ci->raw_size : big;
		bigc = ci->data_size > bigc ? ci->data_size : bigc;
	}
	ck_assert_uint_gt(bigc, sizeof(small2));
	block = vxt_bigbuf_alloc(big + 8 + bigc, &mapped);
	ck_assert_ptr_nonnull(block);
	/* both fit: used */
	ck_assert_int_eq(decode_all(r, block, big + 8, block + big + 8, bigc), true);
	/* too small: their own */
	ck_assert_int_eq(decode_all(r, small, sizeof(small), small2, sizeof(small2)), false);
	ck_assert_int_eq(decode_all(r, block, big + 8, small2, sizeof(small2)), false);
	ck_assert_int_eq(decode_all(r, NULL, 0, NULL, 0), false);	/* none lent */
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
