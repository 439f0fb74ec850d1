/* test_script_reqtab.c - the script's table of I/Os in flight against a plain list (oracle)
 *
 * Random queues, starts, requeues and completions over few keys (so keys
 * repeat and probe runs grow long, and deletions shift entries back across
 * the table's end): after every step the table's oldest started and oldest
 * queued request of a key are what a linear search of a plain array in
 * arrival order finds, and the table holds as many requests as the array.
 * vxt_sreqtab_bound() and a start's claim take the first request of the key
 * their walk meets: they find the same only while the table keeps each
 * key's requests in arrival order along the probe run, through growth too.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "fixture.h"

struct ref {
	uint64_t ka, kb, id;
	bool started;
};

#define NREF	20000

/* The oldest request of (@ka, @kb) in @list with started == @started. */
static struct ref *ref_oldest(struct ref *list, size_t n, uint64_t ka, uint64_t kb,
			      bool started)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].ka == ka && list[i].kb == kb &&
		    list[i].started == started)
			return &list[i];
	return NULL;
}

static void same(const struct sreq *got, const struct ref *want)
{
	if (!want) {
		ck_assert_ptr_null(got);
		return;
	}
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->id, want->id);
	ck_assert_uint_eq(got->ka, want->ka);
	ck_assert_uint_eq(got->kb, want->kb);
	ck_assert_int_eq(got->started, want->started);
}

START_TEST(oracle)
{
	static struct ref list[NREF];
	struct sreqtab t = { 0 };
	size_t n = 0, adds = 0;	/* list[0 .. n): the requests in flight, oldest first */
	uint64_t x = 0x2545f4914f6cdd1dull;
	/* few keys (long runs of equal keys), then more; at the end every
	 * request completes and the table is empty again */
	unsigned nkeys = _i ? 512 : 24;

	while (adds < NREF || n) {
		struct sreq *st, *qu;
		struct ref *rs, *rq;
		uint64_t ka, kb;
		unsigned op;

		ut_rand(&x);
		ka = (x >> 8) % 3 << 32 | 4096;
		kb = (x >> 16) % nkeys;
		op = (unsigned)(x >> 40) % 8;
		if (adds >= NREF) {	/* drain: complete one in flight */
			ka = list[(x >> 16) % n].ka;
			kb = list[(x >> 16) % n].kb;
			op = 7;
		}
		vxt_sreqtab_find(&t, ka, kb, &st, &qu);
		rs = ref_oldest(list, n, ka, kb, true);
		rq = ref_oldest(list, n, ka, kb, false);
		same(st, rs);
		same(qu, rq);
		/* what a done binds: the first of the key met, by the order */
		same(vxt_sreqtab_bound(&t, ka, kb), rs ? rs : rq);
		if (op < 4 && adds < NREF) {	/* a queue, or a start: the oldest queued or a new one */
			struct sreq *r;
			int rc = vxt_sreqtab_claim(&t, ka, kb, op >= 2, &r);

			ck_assert_int_ge(rc, 0);
			if (op >= 2 && rq) {
				ck_assert_int_eq(rc, 1);
				rq->started = true;
				same(r, rq);	/* the oldest queued, now started */
			} else {
				ck_assert_int_eq(rc, 0);
				list[n] = (struct ref){ .ka = ka, .kb = kb, .id = r->id,
							.started = op >= 2 };
				if (n)
					ck_assert_uint_gt(r->id, list[n - 1].id);
				same(r, &list[n]);
				n++;
				adds++;
			}
		} else if (op == 4 && st) {		/* requeue the oldest started */
			st->started = false;
			rs->started = false;
		} else if (op >= 5 && (st || qu)) {	/* complete: started first */
			struct ref *gone = rs ? rs : rq;

			vxt_sreqtab_delete(&t, st ? st : qu);
			memmove(gone, gone + 1, (size_t)(list + n - gone - 1) * sizeof(*gone));
			n--;
		}
		ck_assert_uint_eq(t.n, n);
		ck_assert_uint_le(SREQTAB_FILL * t.n, t.cap);
	}
	ck_assert_uint_eq(t.n, 0);
	for (size_t i = 0; i < t.cap; i++)
		ck_assert_uint_eq(t.e[i].id, 0);
	vxt_sreqtab_free(&t);
}
END_TEST

/* One key whose run wraps around the table's end when the table grows: its
 * requests must still be met oldest first (a growth that walked the old
 * table from slot 0 would put the wrapped, newer ones first). */
START_TEST(growth_keeps_order)
{
	struct sreqtab t = { 0 };
	struct sreq *r;
	uint64_t ka = 1ull << 32 | 4096, kb, first;
	size_t last;

	/* a key whose home is the last slot of the first table */
	for (kb = 0;; kb++) {
		ck_assert_int_eq(vxt_sreqtab_claim(&t, ka, kb, false, &r), 0);
		last = t.cap - 1;
		if ((size_t)(r - t.e) == last) {
			first = r->id;
			break;
		}
		vxt_sreqtab_delete(&t, r);
	}
	for (unsigned i = 1; i < 4 * last; i++) {	/* queued ones: several growths */
		ck_assert_int_eq(vxt_sreqtab_claim(&t, ka, kb, false, &r), 0);
		ck_assert_uint_eq(t.n, i + 1);
	}
	for (uint64_t want = first; t.n; want++) {
		r = vxt_sreqtab_bound(&t, ka, kb);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->id, want);	/* the oldest */
		if (want % 2) {			/* a start takes the oldest queued */
			ck_assert_int_eq(vxt_sreqtab_claim(&t, ka, kb, true, &r), 1);
			ck_assert_uint_eq(r->id, want);
		}
		vxt_sreqtab_delete(&t, r);
	}
	vxt_sreqtab_free(&t);
}
END_TEST

Suite *script_reqtab_suite(void)
{
	Suite *s = suite_create("script_reqtab");
	TCase *tc = tcase_create("oracle");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, oracle, 0, 2);
	tcase_add_test(tc, growth_keeps_order);
	suite_add_tcase(s, tc);
	return s;
}
