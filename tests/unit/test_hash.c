/* test_hash.c - the one hash table (vxtrace/hash.h) against a plain array
 *
 * Random puts, gets and removals over keys from a small range (so keys come
 * back after their removal), with a good hash and with one that sends most
 * keys to a few homes near the table's end (long runs that wrap around, so
 * backward-shift deletion crosses the end): the table holds exactly the keys
 * and values a plain array searched linearly holds. A table of row numbers
 * (the key in rows kept beside it) gives the same; and a table holding equal
 * keys in their order (the in-flight request table's shape) finds the oldest
 * of a key first along its run, and the others after it in their order,
 * through growths and removals, as the array in insertion order says.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "vxtrace/hash.h"
#include "fixture.h"

/* Check marks every ck_assert (a write per call in fork mode): the loops
 * here test millions of times, so they fail through this instead */
#define EXPECT(c)                                                                   \
	do {                                                                        \
		if (!(c))                                                           \
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);           \
	} while (0)

struct cfg {
	bool bad;		/* the poor hash: few homes, at the table's end */
};

static size_t key_hash(const struct cfg *c, uint64_t key)
{
	if (c->bad)
		return (size_t)(key % 3) + ~(size_t)0 - 4;	/* homes cap-5 .. cap-3 */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 29);
}

/* ---- entries in the slots ---- */

struct ent {
	uint64_t key;		/* 0 = empty */
	uint64_t val;
};

#define ENT_HASH(c, s) key_hash(c, (s)->key)
#define ENT_MATCH(c, s, k) ((s)->key == *(k))
#define ENT_EMPTY(s) (!(s)->key)
VXT_HASH_DEFINE(etab, struct ent, const struct cfg *, uint64_t, ENT_HASH, ENT_MATCH, ENT_EMPTY)

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)ut_rand_below(&rng, n);
}

/* the index of @key in the plain array, or n */
static size_t ref_find(const struct ent *v, size_t n, uint64_t key)
{
	size_t i;

	for (i = 0; i < n && v[i].key != key; i++)
		;
	return i;
}

static void check_same(struct ent *t, size_t cap, const struct cfg *c, const struct ent *v,
		       size_t n, uint32_t range)
{
	size_t used = 0;

	for (size_t i = 0; i < cap; i++)
		used += !ENT_EMPTY(&t[i]);
	EXPECT(used == n);
	EXPECT(!cap || 2 * n <= cap);
	for (uint64_t key = 1; key <= range; key++) {
		size_t r = ref_find(v, n, key);
		struct ent *e = etab_get(t, cap, c, &key, key_hash(c, key));

		EXPECT((r < n) == (e != NULL));
		if (e)
			EXPECT(e->val == v[r].val);
	}
}

static void entries_against_array(bool bad)
{
	const struct cfg c = { bad };

	for (int round = 0; round < 60; round++) {
		uint32_t range = 1 + rnd_below(400);
		struct ent *t = NULL, *v = malloc((range + 1) * sizeof(*v));
		size_t cap = 0, n = 0;

		EXPECT(v);
		for (int op = 0; op < 3000; op++) {
			uint64_t key = 1 + rnd_below(range), val = ut_rand(&rng);
			size_t h = key_hash(&c, key), r = ref_find(v, n, key), i;

			if (rnd_below(100) < 60) {	/* put */
				EXPECT(etab_room(&t, &cap, n, 8, &c) == 0);
				i = etab_seek(t, cap, &c, &key, h);
				EXPECT(ENT_EMPTY(&t[i]) == (r == n));
				t[i] = (struct ent){ key, val };
				if (r == n)
					n++;
				v[r] = t[i];
			} else if (r < n) {		/* remove */
				struct ent *e = etab_get(t, cap, &c, &key, h);

				EXPECT(e);
				etab_remove(t, cap, (size_t)(e - t), &c);
				v[r] = v[--n];
			}
			if (op % 16 == 0 || op > 2980)
				check_same(t, cap, &c, v, n, range);
		}
		free(t);
		free(v);
	}
}

START_TEST(entries_good_hash)
{
	entries_against_array(false);
}
END_TEST

START_TEST(entries_poor_hash)
{
	entries_against_array(true);
}
END_TEST

/* ---- row numbers in the slots, the keys in rows beside them ---- */

struct row {
	uint32_t pid, comm;
};

struct rows {
	const struct row *r;
	struct cfg c;
};

static uint64_t row_key(const struct row *r)
{
	return (uint64_t)r->pid << 32 | r->comm;
}

#define ROW_HASH(x, s) key_hash(&(x)->c, row_key(&(x)->r[*(s) - 1]))
#define ROW_MATCH(x, s, k) (row_key(&(x)->r[*(s) - 1]) == row_key(k))
#define ROW_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(rtab, uint32_t, const struct rows *, struct row, ROW_HASH, ROW_MATCH, ROW_EMPTY)

START_TEST(row_numbers)
{
	for (int round = 0; round < 40; round++) {
		struct row *rows = malloc(2000 * sizeof(*rows));
		struct rows x = { rows, { round % 2 == 1 } };
		uint32_t *t = NULL;
		size_t cap = 0, n = 0;

		EXPECT(rows);
		for (int op = 0; op < 4000; op++) {
			struct row k = { 1 + rnd_below(40), rnd_below(40) };
			size_t h = key_hash(&x.c, row_key(&k)), r, i;

			for (r = 0; r < n && row_key(&rows[r]) != row_key(&k); r++)
				;
			if (rnd_below(2)) {
				uint32_t *s = rtab_get(t, cap, &x, &k, h);

				EXPECT((s != NULL) == (r < n));
				EXPECT(!s || *s == r + 1);
				continue;
			}
			EXPECT(rtab_room(&t, &cap, n, 4, &x) == 0);
			i = rtab_seek(t, cap, &x, &k, h);
			EXPECT(ROW_EMPTY(&t[i]) == (r == n));
			if (r == n) {
				rows[n++] = k;
				t[i] = (uint32_t)n;
			}
			EXPECT(t[i] == r + 1);
		}
		free(t);
		free(rows);
	}
}
END_TEST

/* ---- equal keys in their order ---- */

struct req {
	uint64_t key;
	uint64_t seq;		/* 0 = empty; increasing as they are added */
};

#define REQ_HASH(c, s) key_hash(c, (s)->key)
#define REQ_MATCH(c, s, k) ((s)->key == *(k))
#define REQ_EMPTY(s) (!(s)->seq)
VXT_HASH_DEFINE(qtab, struct req, const struct cfg *, uint64_t, REQ_HASH, REQ_MATCH, REQ_EMPTY)

static void fifo_against_array(bool bad)
{
	const struct cfg c = { bad };

	for (int round = 0; round < 40; round++) {
		uint32_t range = 1 + rnd_below(30);
		struct req *t = NULL, *v = malloc(3000 * sizeof(*v));
		size_t cap = 0, n = 0;
		uint64_t seq = 0;

		EXPECT(v);
		for (int op = 0; op < 3000; op++) {
			uint64_t key = 1 + rnd_below(range);
			size_t h = key_hash(&c, key), r, i, q;

			for (r = 0; r < n && v[r].key != key; r++)	/* the oldest */
				;
			if (rnd_below(100) < 55) {		/* add, after its equals */
				EXPECT(qtab_room(&t, &cap, n, 2, &c) == 0);
				i = qtab_vacant(t, cap, h);
				t[i] = (struct req){ key, ++seq };
				v[n++] = t[i];
				continue;
			}
			if (!cap) {
				EXPECT(r == n);
				continue;
			}
			i = qtab_seek(t, cap, &c, &key, h);
			EXPECT(REQ_EMPTY(&t[i]) == (r == n));
			if (r == n)
				continue;
			EXPECT(t[i].seq == v[r].seq);	/* the first met is the oldest */
			q = r;
			for (size_t j = i; !REQ_EMPTY(&t[j]); j = qtab_next(t, cap, &c, &key, j)) {
				EXPECT(q < n && t[j].seq == v[q].seq);	/* then each in order */
				for (q++; q < n && v[q].key != key; q++)
					;
			}
			EXPECT(q == n);				/* and no other */
			qtab_remove(t, cap, i, &c);
			for (n--; r < n; r++)
				v[r] = v[r + 1];
		}
		free(t);
		free(v);
	}
}

START_TEST(fifo_good_hash)
{
	fifo_against_array(false);
}
END_TEST

START_TEST(fifo_poor_hash)
{
	fifo_against_array(true);
}
END_TEST

Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, entries_good_hash);
	tcase_add_test(tc, entries_poor_hash);
	tcase_add_test(tc, row_numbers);
	tcase_add_test(tc, fifo_good_hash);
	tcase_add_test(tc, fifo_poor_hash);
	suite_add_tcase(s, tc);
	return s;
}
