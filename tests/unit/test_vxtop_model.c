/* test_vxtop_model.c - vxtop's in-flight count: an I/O is in flight from its
 * start to its own completion or requeue; a start whose completion is never
 * seen ages out after VXTOP_INFLIGHT_AGE_NS and is counted, and a completion
 * of nothing in flight ends nothing else.
 */
#include <check.h>
#include <string.h>

#include "model.h"
#include "fixture.h"

#define SEC 1000000000ull

static void feed(struct vxtop_model *m, uint64_t t, unsigned phase, unsigned op,
		 uint64_t sector)
{
	struct vxt_event ev = ut_io_event(t, phase, op, sector);

	ev.latency_ns = phase == VXT_PH_DONE ? 1000 : 0;
	ck_assert_int_eq(vxtop_model_feed(m, &ev, 1), 0);
}

static const struct vxtop_osnap *last(const struct vxtop_model *m)
{
	return vxtop_snap_obj(vxtop_model_snap(m, 0), 0);
}

START_TEST(unpaired_start_ages_out)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;
	uint64_t s, aged_at = 0, aged = 0;

	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	feed(&m, SEC / 2, VXT_PH_START, VXT_OP_WRITE, 100);	/* never completes */
	for (s = 1; s <= 40; s++) {
		/* one paired I/O per interval, elsewhere */
		feed(&m, s * SEC - SEC / 2 + 1, VXT_PH_START, VXT_OP_READ, 8);
		feed(&m, s * SEC - SEC / 4, VXT_PH_DONE, VXT_OP_READ, 8);
		if (s == 35)	/* a completion whose start aged out */
			feed(&m, s * SEC - SEC / 8, VXT_PH_DONE, VXT_OP_WRITE, 100);
		ck_assert_int_eq(vxtop_model_close(&m, s * SEC), 0);
		aged += last(&m)->aged_out;
		if (last(&m)->aged_out)
			aged_at = s;
		if (s * SEC < SEC / 2 + VXTOP_INFLIGHT_AGE_NS)
			ck_assert_uint_eq(last(&m)->in_flight, 1);
		else
			ck_assert_uint_eq(last(&m)->in_flight, 0);
		if (s == 35)
			ck_assert_uint_eq(last(&m)->unpaired_done, 1);
	}
	ck_assert_uint_eq(aged, 1);
	ck_assert_uint_eq(m.aged_out, 1);
	ck_assert_uint_eq(aged_at, (SEC / 2 + VXTOP_INFLIGHT_AGE_NS + SEC - 1) / SEC);
	/* once it aged out the object is not busy: only the paired reads count */
	ck_assert_uint_eq(last(&m)->busy_ns, SEC / 4 - 1);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

START_TEST(requeue_and_foreign_completions)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;

	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	/* issued, requeued, issued again, completed: nothing left in flight */
	feed(&m, 10, VXT_PH_START, VXT_OP_WRITE, 5);
	feed(&m, 20, VXT_PH_REQUEUE, VXT_OP_WRITE, 5);
	feed(&m, 30, VXT_PH_START, VXT_OP_WRITE, 5);
	feed(&m, 40, VXT_PH_DONE, VXT_OP_WRITE, 5);
	/* a flush at sector 0 is not ended by a write completing there */
	feed(&m, 50, VXT_PH_START, VXT_OP_FLUSH, 0);
	feed(&m, 60, VXT_PH_DONE, VXT_OP_WRITE, 0);
	ck_assert_int_eq(vxtop_model_close(&m, SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 1);
	ck_assert_uint_eq(last(&m)->unpaired_done, 1);
	feed(&m, SEC + 10, VXT_PH_DONE, VXT_OP_FLUSH, 0);
	feed(&m, SEC + 20, VXT_PH_DONE, VXT_OP_FLUSH, 0);	/* twice: ends nothing */
	ck_assert_int_eq(vxtop_model_close(&m, 2 * SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 0);
	ck_assert_uint_eq(last(&m)->unpaired_done, 1);
	ck_assert_uint_eq(last(&m)->busy_ns, 10);
	ck_assert_uint_eq(m.aged_out, 0);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

/* A lost event naming an issue (the ebpf source's completion never seen)
 * ends that I/O's flight there, and only that one. */
START_TEST(lost_event_closes_its_io)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;
	struct vxt_event ev;

	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	feed(&m, 10, VXT_PH_START, VXT_OP_READ, 100);
	feed(&m, 20, VXT_PH_START, VXT_OP_READ, 200);
	ev = ut_lost_event(SEC / 2, VXT_OP_READ, 1, vxt_lost_io_pack(100));
	ck_assert_int_eq(vxtop_model_feed(&m, &ev, 1), 0);
	ck_assert_int_eq(vxtop_model_close(&m, SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 1);
	ck_assert_uint_eq(last(&m)->closed_by_loss, 1);
	ck_assert_uint_eq(vxtop_model_snap(&m, 0)->lost, 1);
	feed(&m, SEC + 10, VXT_PH_DONE, VXT_OP_READ, 200);
	ck_assert_int_eq(vxtop_model_close(&m, 2 * SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 0);
	ck_assert_uint_eq(last(&m)->busy_ns, 10);
	ck_assert_uint_eq(last(&m)->unpaired_done, 0);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

/* A lost event naming no I/O: the starts before it still in flight
 * VXTOP_LOST_GRACE_NS after it leave the flight at the next close, closed
 * by loss (not aged out); those after it and those completed stay as they
 * are, and the device goes idle. */
START_TEST(starts_before_an_anonymous_loss_age_out)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;
	struct vxt_event ev;

	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	feed(&m, 100, VXT_PH_START, VXT_OP_READ, 100);	/* its completion lost */
	feed(&m, 200, VXT_PH_START, VXT_OP_READ, 200);
	ev = ut_lost_event(SEC / 4, 0, 3, 0);
	ck_assert_int_eq(vxtop_model_feed(&m, &ev, 1), 0);
	feed(&m, SEC / 4 + 10, VXT_PH_DONE, VXT_OP_READ, 200);
	feed(&m, SEC / 2, VXT_PH_START, VXT_OP_WRITE, 300);	/* after it */
	ck_assert_int_eq(vxtop_model_close(&m, SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 1);
	ck_assert_uint_eq(last(&m)->aged_out, 0);
	ck_assert_uint_eq(last(&m)->closed_by_loss, 1);
	feed(&m, SEC + SEC / 4, VXT_PH_DONE, VXT_OP_WRITE, 300);
	ck_assert_int_eq(vxtop_model_close(&m, 2 * SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 0);
	ck_assert_uint_eq(last(&m)->busy_ns, SEC / 4);
	ck_assert_int_eq(vxtop_model_close(&m, 3 * SEC), 0);
	ck_assert_uint_eq(last(&m)->busy_ns, 0);		/* idle */
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

static int queue_of_4(uint32_t dev, uint64_t *n)
{
	(void)dev;
	*n = 4;
	return 0;
}

/* No more in flight than the device's queue holds: a fifth start ages the
 * oldest out (its completion was lost), and its completion, should it come
 * after all, ends nothing else. */
START_TEST(in_flight_bounded_by_the_queue)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxtop_model m;

	ck_assert_int_ge(vxt_objtab_add(objs, 7u << 20, "loop0", VXT_OBJ_OTHER, 0), 0);
	ck_assert_int_eq(vxtop_model_init(&m, objs, SEC, 0), 0);
	m.queue_max = queue_of_4;
	for (unsigned i = 0; i < 6; i++)
		feed(&m, 100 + i, VXT_PH_START, i % 2 ? VXT_OP_WRITE : VXT_OP_READ, 8 * i);
	ck_assert_int_eq(vxtop_model_close(&m, SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 4);
	ck_assert_uint_eq(last(&m)->aged_out, 2);
	feed(&m, SEC + 1, VXT_PH_DONE, VXT_OP_READ, 0);		/* the oldest, late */
	feed(&m, SEC + 2, VXT_PH_DONE, VXT_OP_READ, 16);
	ck_assert_int_eq(vxtop_model_close(&m, 2 * SEC), 0);
	ck_assert_uint_eq(last(&m)->in_flight, 3);
	ck_assert_uint_eq(last(&m)->unpaired_done, 1);
	vxtop_model_free(&m);
	vxt_objtab_free(objs);
}
END_TEST

Suite *vxtop_model_suite(void)
{
	Suite *s = suite_create("vxtop_model");
	TCase *tc = tcase_create("inflight");

	tcase_add_test(tc, unpaired_start_ages_out);
	tcase_add_test(tc, requeue_and_foreign_completions);
	tcase_add_test(tc, lost_event_closes_its_io);
	tcase_add_test(tc, starts_before_an_anonymous_loss_age_out);
	tcase_add_test(tc, in_flight_bounded_by_the_queue);
	suite_add_tcase(s, tc);
	return s;
}
