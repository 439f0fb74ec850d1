/* test_browser_ioph.c - the browser's pairing of phases per I/O against
 * brute force: overlapping I/Os on few sectors of two objects, merges,
 * requeues and missing phases; each completion's Q, G, I and D times are
 * those a linear search finds (the oldest phase of its kind at the same
 * object and first sector not taken by an earlier completion, merge or
 * requeue).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ioph.h"

#define NEV 6000

static int kind_of(unsigned phase)
{
	switch (phase) {
	case VXT_PH_QUEUE: return VR_PH_Q;
	case VXT_PH_GETRQ: return VR_PH_G;
	case VXT_PH_INSERT: return VR_PH_I;
	case VXT_PH_START: return VR_PH_D;
	default: return -1;
	}
}

/* Does event @t take a phase of @kind? */
static bool takes(const struct vxt_event *t, int kind)
{
	return t->phase == VXT_PH_DONE || (t->phase == VXT_PH_MERGE && kind == VR_PH_Q) ||
	       (t->phase == VXT_PH_REQUEUE && kind == VR_PH_D);
}

START_TEST(pairs_as_brute_force)
{
	static struct vxt_event ev[NEV];
	static bool used[NEV];
	struct vr_ioph p;
	size_t n = 0, ndone = 0;
	uint64_t t = 1000;

	srand(5);
	/* I/Os begun at random and advanced one phase at a time, interleaved */
	struct { bool on; int step; uint32_t obj; uint64_t sector; bool merge, requeue; } io[12];
	memset(io, 0, sizeof(io));
	while (n < NEV - 4) {
		int k = rand() % 12;

		t += 1 + (uint64_t)(rand() % 1000);
		if (!io[k].on) {
			io[k].on = true;
			io[k].step = 0;
			io[k].obj = (uint32_t)(rand() % 2);
			io[k].sector = 8u * (uint64_t)(rand() % 6);
			io[k].merge = rand() % 5 == 0;
			io[k].requeue = rand() % 7 == 0;
		}
		static const unsigned steps[] = { VXT_PH_QUEUE, VXT_PH_GETRQ, VXT_PH_INSERT,
						  VXT_PH_START, VXT_PH_DONE };
		struct vxt_event *e = &ev[n];

		memset(e, 0, sizeof(*e));
		e->time_ns = t;
		e->object = io[k].obj;
		e->sector = io[k].sector;
		e->bytes = 4096;
		if (io[k].merge && io[k].step == 1) {
			/* a bio merged at the end of this one: its queue, its merge */
			e->phase = VXT_PH_QUEUE;
			e->sector += 8;
			ev[++n] = *e;
			ev[n].phase = VXT_PH_MERGE;
			ev[n].time_ns = ++t;
			io[k].merge = false;
			n++;
			continue;
		}
		if (io[k].requeue && io[k].step == 4) {
			e->phase = VXT_PH_REQUEUE;
			io[k].requeue = false;
			io[k].step = 3;
			n++;
			continue;
		}
		e->phase = (uint8_t)steps[io[k].step];
		if (e->phase == VXT_PH_DONE) {
			e->latency_ns = rand() % 3 ? 0 : 77;
			io[k].on = false;
		}
		io[k].step++;
		/* some phases are never seen */
		if (e->phase != VXT_PH_DONE && rand() % 9 == 0)
			continue;
		n++;
	}
	ck_assert_int_eq(vr_ioph_init(&p), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vr_ioph_push(&p, &ev[i], 100 + i), 0);
	memset(used, 0, sizeof(used));
	for (size_t c = 0; c < n; c++) {
		uint64_t want[VR_PH_KINDS] = { 0 };
		const struct vr_ioph_row *r;

		if (ev[c].phase != VXT_PH_DONE && ev[c].phase != VXT_PH_MERGE &&
		    ev[c].phase != VXT_PH_REQUEUE)
			continue;
		for (int k = 0; k < VR_PH_KINDS; k++) {
			if (!takes(&ev[c], k))
				continue;
			for (size_t i = 0; i < c; i++)
				if (!used[i] && kind_of(ev[i].phase) == k &&
				    ev[i].object == ev[c].object && ev[i].sector == ev[c].sector) {
					used[i] = true;
					want[k] = ev[i].time_ns;
					break;
				}
		}
		if (ev[c].phase != VXT_PH_DONE)
			continue;
		ndone++;
		if (!want[VR_PH_D] && ev[c].latency_ns)
			want[VR_PH_D] = ev[c].time_ns - ev[c].latency_ns;
		r = vr_ioph_find(&p, 100 + c);
		ck_assert_ptr_nonnull(r);
		for (int k = 0; k < VR_PH_KINDS; k++)
			ck_assert_uint_eq(r->t[k], want[k]);
	}
	ck_assert_uint_eq(p.completions, ndone);
	ck_assert_uint_eq(p.n, ndone);
	ck_assert_ptr_null(vr_ioph_find(&p, 99));
	ck_assert_ptr_null(vr_ioph_find(&p, 100 + n));
	{
		uint64_t q2c;

		ck_assert_int_eq(vr_ioph_interval(&p.rows[0], 5000, VR_PH_Q, VR_PH_KINDS, &q2c),
				 p.rows[0].t[VR_PH_Q] != 0);
	}
	vr_ioph_free(&p);
}
END_TEST

Suite *browser_ioph_suite(void)
{
	Suite *s = suite_create("browser_ioph");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pairs_as_brute_force);
	suite_add_tcase(s, tc);
	return s;
}
