/* test_tracefs_page.c - walking a tracefs ring page (tracefs_page.c)
 *
 * Pages are made here as the kernel's ring_buffer.c lays them out (short
 * and long data events, time extensions, discarded events, the padding at
 * the end; 8- and 4-byte commit counts), and each event found (its data's
 * place, length and time) is checked against libtraceevent's kbuffer on the
 * same page and against the times the page was made with. Pages of random
 * bytes never lead outside the page.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "source/tracefs_page.h"

#define PAGE 4096

struct made {
	unsigned char page[PAGE];
	uint32_t start, n;
	uint32_t off[PAGE / 8], len[PAGE / 8];	/* each data event: data offset, length */
	uint64_t ts[PAGE / 8];
};

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

/* A page of random events; @abs adds absolute time stamps. */
static void make_page(struct made *m, unsigned *seed, int long_size, bool abs)
{
	uint64_t ts = 1000000000000ull + (uint64_t)rand_r(seed) * 1000u;
	uint32_t pos, room;

	memset(m, 0, sizeof(*m));
	m->start = 8 + (uint32_t)long_size;
	memcpy(m->page, &ts, 8);
	pos = m->start;
	for (;;) {
		int kind = rand_r(seed) % (abs ? 6 : 5);
		uint32_t delta = (uint32_t)rand_r(seed) & ((1u << 27) - 1), dlen, words;

		room = PAGE - pos;
		if (room < 160)
			break;
		if (rand_r(seed) % 4 == 0)
			delta &= 0xfff;
		switch (kind) {
		case 0:
		case 1:		/* a short data event: length in the type */
			words = 1 + (uint32_t)rand_r(seed) % 28;
			put32(m->page + pos, words | delta << 5);
			for (uint32_t i = 0; i < words * 4; i++)
				m->page[pos + 4 + i] = (unsigned char)rand_r(seed);
			ts += delta;
			m->off[m->n] = pos + 4;
			m->len[m->n] = words * 4;
			m->ts[m->n++] = ts;
			pos += 4 + words * 4;
			break;
		case 2:		/* a long one: length (with its own word) in array[0] */
			dlen = 4 * (29 + (uint32_t)rand_r(seed) % 8);
			put32(m->page + pos, 0 | delta << 5);
			put32(m->page + pos + 4, dlen + 4);
			ts += delta;
			m->off[m->n] = pos + 8;
			m->len[m->n] = dlen;
			m->ts[m->n++] = ts;
			pos += 8 + dlen;
			break;
		case 3: {	/* a time extension: the high bits in array[0] */
			uint32_t hi = (uint32_t)rand_r(seed) % 64;

			put32(m->page + pos, 30 | delta << 5);
			put32(m->page + pos + 4, hi);
			ts += ((uint64_t)hi << 27) + delta;
			pos += 8;
			break;
		}
		case 4:		/* a discarded event: padding with a time */
			dlen = 4 * (1 + (uint32_t)rand_r(seed) % 20);
			if (!delta)
				delta = 1;
			put32(m->page + pos, 29 | delta << 5);
			put32(m->page + pos + 4, dlen + 4);
			ts += delta;
			pos += 8 + dlen;
			break;
		case 5: {	/* an absolute time stamp */
			uint64_t at = ts + 123456789u;

			put32(m->page + pos, 31 | (uint32_t)(at & ((1u << 27) - 1)) << 5);
			put32(m->page + pos + 4, (uint32_t)((at >> 27) & 0xffffffffu));
			ts = at;
			pos += 8;
			break;
		}
		}
	}
	/* the padding that ends a page: array[0] = the bytes after its header */
	put32(m->page + pos, 29);
	put32(m->page + pos + 4, PAGE - pos - 4);
	pos = PAGE;
	if (long_size == 8) {
		uint64_t c = pos - m->start;

		memcpy(m->page + 8, &c, 8);
	} else {
		put32(m->page + 8, pos - m->start);
	}
}

static void check_page(struct made *m, int long_size, bool with_kbuffer)
{
	struct kbuffer *kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   KBUFFER_ENDIAN_LITTLE);
	struct tfs_page pg;
	unsigned long long kts = 0;
	const void *data;
	void *kdata = NULL;
	uint64_t ts;
	uint32_t len, i = 0;

	ck_assert_ptr_nonnull(kb);
	ck_assert_int_eq(vxt_tfs_page_load(&pg, m->page, PAGE, long_size, false), 0);
	ck_assert_int_eq(kbuffer_load_subbuffer(kb, m->page), 0);
	if (with_kbuffer)
		kdata = kbuffer_read_event(kb, &kts);
	while ((data = vxt_tfs_page_next(&pg, &len, &ts))) {
		ck_assert_uint_lt(i, m->n);
		ck_assert_uint_eq((uint32_t)((const unsigned char *)data - m->page), m->off[i]);
		ck_assert_uint_eq(len, m->len[i]);
		ck_assert_uint_eq(ts, m->ts[i]);
		if (with_kbuffer) {
			ck_assert_ptr_nonnull(kdata);
			ck_assert_ptr_eq(kdata, data);
			ck_assert_uint_eq((uint32_t)kbuffer_event_size(kb), len);
			ck_assert_uint_eq(kts, ts);
			kdata = kbuffer_next_event(kb, &kts);
		}
		i++;
	}
	ck_assert_uint_eq(i, m->n);
	if (with_kbuffer)
		ck_assert_ptr_null(kdata);
	kbuffer_free(kb);
}

START_TEST(test_pages)
{
	static struct made m;
	unsigned seed = 7;

	for (int n = 0; n < 300; n++) {
		int long_size = n % 3 == 2 ? 4 : 8;

		make_page(&m, &seed, long_size, false);
		ck_assert_uint_gt(m.n, 0);
		check_page(&m, long_size, true);
	}
}
END_TEST

/* Absolute time stamps (the kernel writes them only for some triggers):
 * against the times the page was made with. */
START_TEST(test_absolute_stamps)
{
	static struct made m;
	unsigned seed = 11;

	for (int n = 0; n < 100; n++) {
		make_page(&m, &seed, 8, true);
		check_page(&m, 8, false);
	}
}
END_TEST

START_TEST(test_garbage)
{
	static unsigned char page[PAGE];
	unsigned seed = 3;
	struct tfs_page pg;
	const unsigned char *data;
	uint64_t ts;
	uint32_t len;

	for (int n = 0; n < 2000; n++) {
		for (int i = 0; i < PAGE; i++)
			page[i] = (unsigned char)rand_r(&seed);
		if (n % 2) {	/* a plausible size, so the events get walked */
			uint64_t c = (uint64_t)rand_r(&seed) % (PAGE - 16);

			memcpy(page + 8, &c, 8);
		}
		if (vxt_tfs_page_load(&pg, page, PAGE, 8, false) < 0)
			continue;
		while ((data = vxt_tfs_page_next(&pg, &len, &ts))) {
			ck_assert(data >= page + 16);
			ck_assert(data + len <= page + PAGE);
		}
	}
	/* a size past the page is refused */
	{
		uint64_t c = PAGE;

		memcpy(page + 8, &c, 8);
		ck_assert_int_eq(vxt_tfs_page_load(&pg, page, PAGE, 8, false), -1);
		ck_assert_ptr_null(vxt_tfs_page_next(&pg, &len, &ts));
	}
}
END_TEST

Suite *tracefs_page_suite(void)
{
	Suite *s = suite_create("tracefs_page");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pages);
	tcase_add_test(tc, test_absolute_stamps);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	return s;
}
