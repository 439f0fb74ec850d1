/* test_browser_ioph.c - the browser's pairing of phases per I/O against the
 * times the I/Os were generated with: I/Os interleaved on their own sector
 * ranges of two objects, some with a bio merged behind the first one (the
 * request's issue and completion then cover both), some requeued, some
 * missing phases; each completion's Q, G, I and D times follow from what
 * was generated (the request's own phases; the merged bio's queue when the
 * request's first bio left no trace before its issue; the issue after the
 * last requeue; the latency when no issue is left).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ioph.h"

#define NEV 6000
#define NSLOT 12

struct gen_io {
	bool on, merge, requeue, requeued, merged;
	int step;
	uint32_t obj;
	uint64_t sector;
	uint64_t t[VR_PH_KINDS];	/* the first bio's phases seen (0: not) */
	uint64_t mq;			/* the merged bio's queue */
};

/* What the completion of @io should carry. */
static void expect(const struct gen_io *io, const struct vxt_event *c, uint64_t *w)
{
	bool first = io->t[VR_PH_Q] || io->t[VR_PH_G] || io->t[VR_PH_I];

	memcpy(w, io->t, sizeof(io->t));
	if (!first && io->merged)
		w[VR_PH_Q] = io->mq;
	if (!w[VR_PH_D] && c->latency_ns)
		w[VR_PH_D] = c->time_ns - c->latency_ns;
}

START_TEST(pairs_as_generated)
{
	static struct vxt_event ev[NEV];
	static uint64_t want[NEV][VR_PH_KINDS];
	static bool is_done[NEV];
	struct gen_io io[NSLOT];
	struct vr_ioph p;
	size_t n = 0, ndone = 0;
	uint64_t t = 1000;

	srand(5);
	memset(io, 0, sizeof(io));
	memset(is_done, 0, sizeof(is_done));
	while (n < NEV - 4) {
		int k = rand() % NSLOT;
		static const unsigned steps[] = { VXT_PH_QUEUE, VXT_PH_GETRQ, VXT_PH_INSERT,
						  VXT_PH_START, VXT_PH_DONE };
		struct vxt_event *e = &ev[n];
		struct gen_io *g = &io[k];
		int kind;

		t += 1 + (uint64_t)(rand() % 1000);
		if (!g->on) {
			memset(g, 0, sizeof(*g));
			g->on = true;
			g->obj = (uint32_t)(rand() % 2);
			g->sector = 64u * (uint64_t)k + 16u * (uint64_t)(rand() % 2);
			g->merge = rand() % 5 == 0;
			g->requeue = rand() % 7 == 0;
		}
		memset(e, 0, sizeof(*e));
		e->time_ns = t;
		e->object = g->obj;
		e->sector = g->sector;
		e->bytes = g->merged && g->step >= 2 ? 8192 : 4096;
		if (g->merge && g->step == 1) {
			/* a bio merged at the end of this one: its queue, its merge */
			e->phase = VXT_PH_QUEUE;
			e->sector += 8;
			g->mq = t;
			ev[++n] = *e;
			ev[n].phase = VXT_PH_MERGE;
			ev[n].time_ns = ++t;
			g->merge = false;
			g->merged = true;
			n++;
			continue;
		}
		if (g->requeue && g->step == 4) {
			e->phase = VXT_PH_REQUEUE;
			g->requeue = false;
			g->step = 3;
			g->t[VR_PH_D] = 0;
			n++;
			continue;
		}
		e->phase = (uint8_t)steps[g->step];
		if (e->phase == VXT_PH_GETRQ)
			e->bytes = 4096;
		g->step++;
		if (e->phase == VXT_PH_DONE) {
			e->latency_ns = rand() % 3 ? 0 : 77;
			expect(g, e, want[n]);
			is_done[n] = true;
			g->on = false;
			n++;
			continue;
		}
		/* some phases are never seen */
		if (rand() % 9 == 0)
			continue;
		kind = e->phase == VXT_PH_QUEUE ? VR_PH_Q : e->phase == VXT_PH_GETRQ ? VR_PH_G :
		       e->phase == VXT_PH_INSERT ? VR_PH_I : VR_PH_D;
		g->t[kind] = t;
		n++;
	}
	ck_assert_int_eq(vr_ioph_init(&p), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vr_ioph_push(&p, &ev[i], 100 + i), 0);
	for (size_t c = 0; c < n; c++) {
		const struct vr_ioph_row *r;

		if (!is_done[c])
			continue;
		ndone++;
		r = vr_ioph_find(&p, 100 + c);
		ck_assert_ptr_nonnull(r);
		for (int k = 0; k < VR_PH_KINDS; k++)
			ck_assert_msg(r->t[k] == want[c][k], "completion %zu phase %d: %llu, want %llu",
				      c, k, (unsigned long long)r->t[k],
				      (unsigned long long)want[c][k]);
	}
	ck_assert_uint_eq(p.completions, ndone);
	ck_assert_uint_eq(p.n, ndone);
	ck_assert_uint_gt(p.merged, 0);
	ck_assert_uint_gt(p.requeued, 0);
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

	tcase_add_test(tc, pairs_as_generated);
	suite_add_tcase(s, tc);
	return s;
}
