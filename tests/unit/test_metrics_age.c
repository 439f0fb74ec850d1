/* test_metrics_age.c - /metrics after a lost event naming no I/O
 * (metrics_age.c): the issues from before it still in flight
 * VXT_LOST_GRACE_NS after it leave vxtrace_io_in_flight, as in vxtop, by the
 * events' clock or by the idle clock of vxt_metrics_tick(); those after it
 * and those completed stay as they are; a lost event naming its I/O still
 * closes only that one. With no lost event, an issue older than
 * VXT_FLIGHT_AGE_NS leaves it too.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"
#include "fixture.h"

#define SEC 1000000000ull

static void feed(struct vxt_metrics *m, const struct vxt_objtab *objs, uint64_t t,
		 unsigned phase, unsigned op, uint64_t sector)
{
	struct vxt_event ev = ut_io_event(t, phase, op, sector);

	ck_assert_int_eq(vxt_metrics_feed(m, objs, &ev, 1), 0);
}

/* A lost event at @t: @count events lost, naming the I/O at @io - 1 (0: none). */
static void lost(struct vxt_metrics *m, const struct vxt_objtab *objs, uint64_t t,
		 uint64_t count, unsigned op, uint64_t io)
{
	struct vxt_event ev = ut_lost_event(t, op, count, io);

	ck_assert_int_eq(vxt_metrics_feed(m, objs, &ev, 1), 0);
}

/* The published vxtrace_io_in_flight of sda, @op; -1 when absent. */
static long long in_flight(struct vxt_metrics *m, const char *op)
{
	char name[96], *out, *p;
	size_t len;
	long long v = -1;

	ck_assert_int_eq(vxt_metrics_publish(m), 0);
	ck_assert_int_eq(vxt_metrics_render(m, VXT_METRICS_PROMETHEUS, &out, &len), 0);
	out = realloc(out, len + 1);
	out[len] = 0;
	snprintf(name, sizeof(name), "\nvxtrace_io_in_flight{object=\"sda\",op=\"%s\"} ", op);
	p = strstr(out, name);
	if (p)
		v = atoll(p + strlen(name));
	free(out);
	return v;
}

/* Each test: a metrics sink and a table of one object, sda. */
static struct vxt_objtab *sda_objs;
static struct vxt_metrics *met;

static void setup(void)
{
	sda_objs = vxt_objtab_new();
	met = vxt_metrics_new();
	vxt_objtab_add(sda_objs, 1, "sda", VXT_OBJ_DISK, 0);
}

static void teardown(void)
{
	vxt_metrics_free(met);
	vxt_objtab_free(sda_objs);
}

START_TEST(starts_before_an_anonymous_loss_age_out)
{
	uint64_t mark = SEC + SEC / 4;

	feed(met, sda_objs, SEC + 100, VXT_PH_START, VXT_OP_READ, 100);	/* its completion lost */
	feed(met, sda_objs, SEC + 200, VXT_PH_START, VXT_OP_READ, 200);
	lost(met, sda_objs, mark, 3, VXT_OP_READ, 0);				/* names no I/O */
	feed(met, sda_objs, mark + 10, VXT_PH_DONE, VXT_OP_READ, 200);
	feed(met, sda_objs, SEC + SEC / 2, VXT_PH_START, VXT_OP_WRITE, 300);	/* after it */
	ck_assert_int_eq(in_flight(met, "read"), 1);
	ck_assert_int_eq(in_flight(met, "write"), 1);
	/* within the grace: nothing ages out */
	ck_assert_uint_eq(metrics_age(met, mark + VXT_LOST_GRACE_NS - 1), 0);
	ck_assert_int_eq(in_flight(met, "read"), 1);
	/* past it: the read from before the loss goes, the write after it stays */
	ck_assert_uint_eq(metrics_age(met, mark + VXT_LOST_GRACE_NS), 1);
	ck_assert_int_eq(in_flight(met, "read"), 0);
	ck_assert_int_eq(in_flight(met, "write"), 1);
	ck_assert_uint_eq(metrics_age(met, mark + 2 * VXT_LOST_GRACE_NS), 0);	/* once */
	ck_assert_int_eq(in_flight(met, "write"), 1);
	/* the lost completion, should it come after all, ends nothing else */
	feed(met, sda_objs, 2 * SEC, VXT_PH_START, VXT_OP_READ, 400);
	feed(met, sda_objs, 2 * SEC + 10, VXT_PH_DONE, VXT_OP_READ, 100);
	ck_assert_int_eq(in_flight(met, "read"), 0);	/* never below 0 */
	feed(met, sda_objs, 2 * SEC + 20, VXT_PH_DONE, VXT_OP_WRITE, 300);
	ck_assert_int_eq(in_flight(met, "write"), 0);
}
END_TEST

/* A lost event naming its I/O that comes after the gap's rule closed that
 * I/O closes nothing more: the next start of the same op and sector, issued
 * after the gap, stays in flight until its own completion. */
START_TEST(late_name_after_the_gap)
{
	feed(met, sda_objs, SEC, VXT_PH_START, VXT_OP_READ, 8);		/* A */
	lost(met, sda_objs, 2 * SEC, 5, VXT_OP_OTHER, 0);			/* the gap */
	feed(met, sda_objs, 2 * SEC + SEC / 10, VXT_PH_START, VXT_OP_READ, 8);	/* B */
	ck_assert_uint_eq(metrics_age(met, 2 * SEC + VXT_LOST_GRACE_NS), 1);	/* A */
	ck_assert_int_eq(in_flight(met, "read"), 1);
	lost(met, sda_objs, 2 * SEC + 7 * SEC / 10, 0, VXT_OP_READ, vxt_lost_io_pack(8));
	ck_assert_int_eq(in_flight(met, "read"), 1);				/* B still */
	feed(met, sda_objs, 2 * SEC + 8 * SEC / 10, VXT_PH_DONE, VXT_OP_READ, 8);
	ck_assert_int_eq(in_flight(met, "read"), 0);
}
END_TEST

/* A completion that comes after all for an issue aged out after a gap (its
 * latency says its start was that one) takes it back: the gauge counts it
 * once, and the other read in flight stays. */
START_TEST(late_completion_after_the_gap)
{
	struct vxt_event ev = ut_io_event(4 * SEC, VXT_PH_DONE, VXT_OP_READ, 16);

	feed(met, sda_objs, SEC, VXT_PH_START, VXT_OP_READ, 16);		/* A */
	lost(met, sda_objs, 2 * SEC, 5, VXT_OP_OTHER, 0);
	ck_assert_uint_eq(metrics_age(met, 2 * SEC + VXT_LOST_GRACE_NS), 1);
	feed(met, sda_objs, 3 * SEC, VXT_PH_START, VXT_OP_READ, 24);		/* B */
	ck_assert_int_eq(in_flight(met, "read"), 1);
	ev.latency_ns = 3 * SEC;						/* A's */
	ck_assert_int_eq(vxt_metrics_feed(met, sda_objs, &ev, 1), 0);
	ck_assert_int_eq(in_flight(met, "read"), 1);				/* B */
	feed(met, sda_objs, 4 * SEC + 10, VXT_PH_DONE, VXT_OP_READ, 24);
	ck_assert_int_eq(in_flight(met, "read"), 0);
}
END_TEST

/* The events' clock moves on with the feed: a later event past the grace
 * ages the issues out with no call but vxt_metrics_feed(). */
START_TEST(ages_out_as_events_come)
{
	feed(met, sda_objs, SEC, VXT_PH_START, VXT_OP_READ, 100);
	lost(met, sda_objs, SEC + 1, 1, VXT_OP_READ, 0);
	feed(met, sda_objs, SEC + 2, VXT_PH_START, VXT_OP_READ, 200);
	feed(met, sda_objs, SEC + VXT_LOST_GRACE_NS, VXT_PH_START, VXT_OP_READ, 300);
	ck_assert_int_eq(in_flight(met, "read"), 3);
	feed(met, sda_objs, SEC + 1 + VXT_LOST_GRACE_NS, VXT_PH_DONE, VXT_OP_READ, 300);
	ck_assert_int_eq(in_flight(met, "read"), 1);	/* 100 aged out, 200 stays */
}
END_TEST

/* An idle device sends no events: vxt_metrics_tick() runs their clock on
 * with the monotonic one. */
START_TEST(ages_out_when_idle)
{
	uint64_t now = vxt_now_mono();

	feed(met, sda_objs, now - SEC, VXT_PH_START, VXT_OP_READ, 100);
	lost(met, sda_objs, now - SEC + 1, 1, VXT_OP_READ, 0);
	ck_assert_int_eq(vxt_metrics_tick(met), 0);
	ck_assert_int_eq(in_flight(met, "read"), 1);
	met->last_mono -= VXT_LOST_GRACE_NS;	/* as if that long had passed */
	ck_assert_int_eq(vxt_metrics_tick(met), 0);
	ck_assert_int_eq(in_flight(met, "read"), 0);
}
END_TEST

/* A lost event naming its I/O closes that one at once, and starts no
 * grace: the others stay in flight. */
START_TEST(named_loss_closes_its_io_only)
{
	feed(met, sda_objs, SEC, VXT_PH_START, VXT_OP_READ, 100);
	feed(met, sda_objs, SEC + 1, VXT_PH_START, VXT_OP_READ, 200);
	lost(met, sda_objs, SEC + 2, 1, VXT_OP_READ, vxt_lost_io_pack(100));
	ck_assert_int_eq(in_flight(met, "read"), 1);
	ck_assert_uint_eq(metrics_age(met, SEC + 2 + 10 * VXT_LOST_GRACE_NS), 0);
	ck_assert_int_eq(in_flight(met, "read"), 1);
}
END_TEST

/* With no lost event at all, an issue older than VXT_FLIGHT_AGE_NS (the
 * block layer's request timeout) leaves the flight, as in vxtop: counted
 * by hand over four issues. */
START_TEST(ages_out_past_the_bound)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_metrics *m = vxt_metrics_new();

	vxt_objtab_add(objs, 1, "sda", VXT_OBJ_DISK, 0);
	feed(m, objs, SEC, VXT_PH_START, VXT_OP_READ, 100);		/* never completes */
	feed(m, objs, SEC + 20 * SEC, VXT_PH_START, VXT_OP_READ, 200);	/* never completes */
	feed(m, objs, SEC + 20 * SEC + 1, VXT_PH_START, VXT_OP_WRITE, 300);
	feed(m, objs, SEC + 20 * SEC + 2, VXT_PH_DONE, VXT_OP_WRITE, 300);
	ck_assert_int_eq(in_flight(m, "read"), 2);
	/* 30 s after the first: it goes, the second stays */
	feed(m, objs, SEC + VXT_FLIGHT_AGE_NS + 1, VXT_PH_START, VXT_OP_WRITE, 400);
	ck_assert_int_eq(in_flight(m, "read"), 1);
	ck_assert_int_eq(in_flight(m, "write"), 1);
	/* 30 s after the second (the write of 400 is younger) */
	feed(m, objs, 21 * SEC + VXT_FLIGHT_AGE_NS + 1, VXT_PH_START, VXT_OP_WRITE, 500);
	ck_assert_int_eq(in_flight(m, "read"), 0);
	ck_assert_int_eq(in_flight(m, "write"), 2);
	vxt_metrics_free(m);
	vxt_objtab_free(objs);
}
END_TEST

Suite *metrics_age_suite(void)
{
	Suite *s = suite_create("metrics_age");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, starts_before_an_anonymous_loss_age_out);
	tcase_add_test(tc, ages_out_as_events_come);
	tcase_add_test(tc, late_name_after_the_gap);
	tcase_add_test(tc, late_completion_after_the_gap);
	tcase_add_test(tc, ages_out_when_idle);
	tcase_add_test(tc, named_loss_closes_its_io_only);
	tcase_add_test(tc, ages_out_past_the_bound);
	suite_add_tcase(s, tc);
	return s;
}
