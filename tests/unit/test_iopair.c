/* test_iopair.c - the in-flight I/O table against a plain list (oracle)
 *
 * Random issues and completions over few keys (so keys repeat, as flushes
 * do); every take must return what a linear search for the oldest equal key
 * in a plain array returns.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/iopair.h"
#include "fixture.h"

struct ent {
	uint32_t dev, size;
	uint64_t sector;
	struct vxt_iopair_val v;
	int live;
};

START_TEST(oracle)
{
	static struct ent list[40000];
	struct vxt_iopair *p = vxt_iopair_new();
	struct vxt_iopair_val v;
	size_t n = 0, i, live = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int round;

	ck_assert_ptr_nonnull(p);
	for (round = 0; round < 40000; round++) {
		uint32_t dev, size;
		uint64_t sector;

		ut_rand(&x);
		dev = (uint32_t)(x >> 60 & 1);
		sector = x >> 20 & 63;
		size = (uint32_t)(x >> 40 & 1) * 8;
		if (x % 3 != 0 && n < 40000) {	/* issue */
			struct ent *e = &list[n++];

			e->dev = dev;
			e->sector = sector;
			e->size = size;
			e->v.time_ns = (uint64_t)round;
			e->v.pid = (uint32_t)n;
			e->v.comm = (uint32_t)(x & 0xff);
			e->live = 1;
			live++;
			ck_assert_int_eq(vxt_iopair_put(p, dev, sector, size, &e->v), 0);
		} else {			/* complete */
			for (i = 0; i < n; i++)
				if (list[i].live && list[i].dev == dev && list[i].sector == sector &&
				    list[i].size == size)
					break;
			if (i == n) {
				ck_assert(!vxt_iopair_take(p, dev, sector, size, &v));
				continue;
			}
			ck_assert(vxt_iopair_take(p, dev, sector, size, &v));
			ck_assert_uint_eq(v.time_ns, list[i].v.time_ns);
			ck_assert_uint_eq(v.pid, list[i].v.pid);
			ck_assert_uint_eq(v.comm, list[i].v.comm);
			list[i].live = 0;
			live--;
		}
		ck_assert_uint_eq(vxt_iopair_count(p), live);
	}
	vxt_iopair_free(p);
}
END_TEST

START_TEST(grows_and_keeps_order)
{
	struct vxt_iopair *p = vxt_iopair_new();
	struct vxt_iopair_val v = { 0 };
	uint32_t i;

	for (i = 0; i < 100000; i++) {
		v.time_ns = i;
		ck_assert_int_eq(vxt_iopair_put(p, 1, i % 1000, 0, &v), 0);
	}
	/* key (1, 7, 0) was put at 7, 1007, 2007, ...: oldest first */
	for (i = 0; i < 100; i++) {
		ck_assert(vxt_iopair_take(p, 1, 7, 0, &v));
		ck_assert_uint_eq(v.time_ns, 7 + 1000 * i);
	}
	ck_assert(!vxt_iopair_take(p, 1, 7, 0, &v));
	ck_assert_uint_eq(vxt_iopair_count(p), 100000 - 100);
	vxt_iopair_free(p);
	vxt_iopair_free(NULL);
}
END_TEST

static bool keep_even(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
		      const struct vxt_iopair_val *v)
{
	(void)dev, (void)size, (void)v;
	++*(unsigned *)arg;
	return sector % 2 == 0;
}

START_TEST(sweep_forgets_what_it_is_told)
{
	struct vxt_iopair *p = vxt_iopair_new();
	struct vxt_iopair_val v = { 0 };
	unsigned calls = 0;
	uint32_t i;

	for (i = 0; i < 5000; i++) {
		v.time_ns = i;
		ck_assert_int_eq(vxt_iopair_put(p, 3, i % 100, 8, &v), 0);
	}
	ck_assert_uint_eq(vxt_iopair_sweep(p, keep_even, &calls), 2500);
	ck_assert_uint_eq(calls, 5000);
	ck_assert_uint_eq(vxt_iopair_count(p), 2500);
	ck_assert(!vxt_iopair_take(p, 3, 7, 8, &v));
	for (i = 0; i < 50; i++) {	/* what is left comes out oldest first */
		ck_assert(vxt_iopair_take(p, 3, 42, 8, &v));
		ck_assert_uint_eq(v.time_ns, 42 + 100 * i);
	}
	/* freed nodes are reused */
	for (i = 0; i < 3000; i++)
		ck_assert_int_eq(vxt_iopair_put(p, 4, i, 0, &v), 0);
	ck_assert_uint_eq(vxt_iopair_count(p), 2450 + 3000);
	vxt_iopair_free(p);
}
END_TEST

Suite *iopair_suite(void)
{
	Suite *s = suite_create("iopair");
	TCase *tc = tcase_create("table");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, oracle);
	tcase_add_test(tc, grows_and_keeps_order);
	tcase_add_test(tc, sweep_forgets_what_it_is_told);
	suite_add_tcase(s, tc);
	return s;
}
