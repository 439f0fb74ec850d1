/* test_heap.c - the one binary heap (vxtrace/heap.h) against a sort
 *
 * Random keys from a small range (so most keys repeat): pushing and popping
 * in any interleaving, building from an array, changing the top or any
 * element and moving it, the heap gives the least key each time, as a
 * brute-force scan of the same elements does; with a tie-break the order is
 * exactly qsort()'s. A heap of indices ordered through a context (the merge's
 * shape) gives the same.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "vxtrace/heap.h"
#include "fixture.h"

struct item {
	uint32_t key;
	uint32_t id;			/* unique: the order among equal keys */
};

static bool key_before(const void *ctx, const struct item *a, const struct item *b)
{
	(void)ctx;
	return a->key < b->key;
}

static bool full_before(const void *ctx, const struct item *a, const struct item *b)
{
	(void)ctx;
	return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* indices into a key array the context holds */
static bool index_before(const uint32_t *keys, const size_t *a, const size_t *b)
{
	return keys[*a] < keys[*b] || (keys[*a] == keys[*b] && *a < *b);
}

/* Check marks every ck_assert (a write per call in fork mode): the loops
 * here test millions of times, so they fail through this instead */
#define EXPECT(c)                                                                   \
	do {                                                                        \
		if (!(c))                                                           \
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);           \
	} while (0)

VXT_HEAP_DEFINE(kheap, struct item, const void *, key_before)
VXT_HEAP_DEFINE(fheap, struct item, const void *, full_before)
VXT_HEAP_DEFINE(iheap, size_t, const uint32_t *, index_before)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static int cmp_full(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	return full_before(NULL, a, b) ? -1 : full_before(NULL, b, a) ? 1 : 0;
}

/* every parent comes no later than its children */
static void check_order(const struct item *h, size_t n)
{
	for (size_t i = 1; i < n; i++)
		EXPECT(h[(i - 1) / 2].key <= h[i].key);
}

/* the least key of @v[0..n) by a scan */
static uint32_t least(const struct item *v, size_t n)
{
	uint32_t m = UINT32_MAX;

	for (size_t i = 0; i < n; i++)
		if (v[i].key < m)
			m = v[i].key;
	return m;
}

/* drop the element of id @id from the brute-force list */
static void drop_id(struct item *v, size_t *n, uint32_t id)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i].id == id) {
			v[i] = v[--*n];
			return;
		}
	ck_abort_msg("id %u not in the list", (unsigned)id);
}

START_TEST(push_all_pop_all)
{
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rnd_below(600), hn = 0;
		uint32_t range = 1 + rnd_below((uint32_t)n / 4 + 1);
		struct item *h = malloc(n * sizeof(*h)), *want = malloc(n * sizeof(*want));

		EXPECT(h);
		EXPECT(want);
		for (size_t i = 0; i < n; i++) {
			want[i] = (struct item){ rnd_below(range), (uint32_t)i };
			fheap_push(h, &hn, &want[i], NULL);
			check_order(h, hn);
		}
		qsort(want, n, sizeof(*want), cmp_full);
		for (size_t i = 0; i < n; i++) {
			EXPECT(h[0].key == want[i].key);
			EXPECT(h[0].id == want[i].id);
			fheap_pop(h, &hn, NULL);
			EXPECT(hn == n - 1 - i);
			check_order(h, hn);
		}
		free(h);
		free(want);
	}
}
END_TEST

START_TEST(interleaved)
{
	for (int round = 0; round < 100; round++) {
		size_t cap = 1000, hn = 0, bn = 0;
		uint32_t range = 1 + rnd_below(50), id = 0;
		struct item *h = malloc(cap * sizeof(*h)), *b = malloc(cap * sizeof(*b));

		EXPECT(h);
		EXPECT(b);
		for (int op = 0; op < 2000; op++) {
			if (hn < cap && (hn == 0 || rnd_below(100) < 55)) {
				struct item x = { rnd_below(range), id++ };

				kheap_push(h, &hn, &x, NULL);
				b[bn++] = x;
			} else {
				EXPECT(h[0].key == least(b, bn));
				drop_id(b, &bn, h[0].id);
				kheap_pop(h, &hn, NULL);
			}
			EXPECT(hn == bn);
			check_order(h, hn);
		}
		while (hn) {
			EXPECT(h[0].key == least(b, bn));
			drop_id(b, &bn, h[0].id);
			kheap_pop(h, &hn, NULL);
		}
		free(h);
		free(b);
	}
}
END_TEST

START_TEST(make_then_pop)
{
	for (int round = 0; round < 200; round++) {
		size_t n = rnd_below(500), hn;
		uint32_t range = 1 + rnd_below(40);
		struct item *h = malloc((n + 1) * sizeof(*h)), *want = malloc((n + 1) * sizeof(*want));

		EXPECT(h);
		EXPECT(want);
		for (size_t i = 0; i < n; i++)
			h[i] = want[i] = (struct item){ rnd_below(range), (uint32_t)i };
		fheap_make(h, n, NULL);
		check_order(h, n);
		qsort(want, n, sizeof(*want), cmp_full);
		for (size_t i = 0; i < n; i++) {
			EXPECT(h[0].id == want[i].id);
			hn = n - i;
			fheap_pop(h, &hn, NULL);
		}
		free(h);
		free(want);
	}
}
END_TEST

/* the top's key changes (as the merge's part moves to its next event), or
 * any element's, and fix_top / up / down restore the order */
START_TEST(change_keys)
{
	for (int round = 0; round < 100; round++) {
		size_t n = 1 + rnd_below(300), hn = n, bn = n;
		uint32_t range = 1 + rnd_below(30);
		struct item *h = malloc(n * sizeof(*h)), *b = malloc(n * sizeof(*b));

		EXPECT(h);
		EXPECT(b);
		for (size_t i = 0; i < n; i++)
			h[i] = b[i] = (struct item){ rnd_below(range), (uint32_t)i };
		kheap_make(h, hn, NULL);
		for (int op = 0; op < 2000 && hn; op++) {
			size_t i = rnd_below(4) ? 0 : rnd_below((uint32_t)hn);
			uint32_t old = h[i].key, key = rnd_below(range);

			for (size_t j = 0; j < bn; j++)
				if (b[j].id == h[i].id)
					b[j].key = key;
			h[i].key = key;
			if (i == 0)
				kheap_fix_top(h, hn, NULL);
			else if (key < old)
				kheap_up(h, i, NULL);
			else
				kheap_down(h, hn, i, NULL);
			check_order(h, hn);
			EXPECT(h[0].key == least(b, bn));
			if (rnd_below(10) == 0) {
				drop_id(b, &bn, h[0].id);
				kheap_pop(h, &hn, NULL);
			}
		}
		free(h);
		free(b);
	}
}
END_TEST

START_TEST(through_context)
{
	for (int round = 0; round < 100; round++) {
		size_t n = 1 + rnd_below(64), hn = 0, k;
		uint32_t keys[64], last_key = 0;
		size_t h[64];
		int left[64];

		for (size_t i = 0; i < n; i++) {
			keys[i] = rnd_below(8);
			left[i] = (int)rnd_below(20);
			h[hn++] = i;
		}
		iheap_make(h, hn, keys);
		/* each part yields left[] more keys, rising, as files do */
		while (hn) {
			k = h[0];
			for (size_t j = 0; j < n; j++)
				EXPECT(left[j] < 0 || keys[j] > keys[k] ||
					  (keys[j] == keys[k] && j >= k));
			EXPECT(keys[k] >= last_key);
			last_key = keys[k];
			if (left[k]-- > 0) {
				keys[k] += rnd_below(3);
				iheap_fix_top(h, hn, keys);
			} else {
				iheap_pop(h, &hn, keys);
			}
		}
	}
}
END_TEST

START_TEST(one_and_none)
{
	struct item h[2], x = { 7, 1 };
	size_t hn = 0;

	kheap_make(h, 0, NULL);
	kheap_fix_top(h, 0, NULL);
	kheap_push(h, &hn, &x, NULL);
	EXPECT(hn == 1);
	kheap_fix_top(h, hn, NULL);
	EXPECT(h[0].key == 7);
	kheap_pop(h, &hn, NULL);
	EXPECT(hn == 0);
}
END_TEST

Suite *heap_suite(void)
{
	Suite *s = suite_create("heap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, push_all_pop_all);
	tcase_add_test(tc, interleaved);
	tcase_add_test(tc, make_then_pop);
	tcase_add_test(tc, change_keys);
	tcase_add_test(tc, through_context);
	tcase_add_test(tc, one_and_none);
	suite_add_tcase(s, tc);
	return s;
}
