/* test_pairer_oracle.c - the pairer (pairer.h) against brute force
 *
 * Random queues, getrqs, inserts, merges, issues, completions, requeues and
 * splits on two objects, with equal starts, overlaps, flushes and a share of
 * I/Os never completed (thousands pending: many of the pairer's blocks),
 * fed to the pairer and to a reference here that keeps the pending I/Os in
 * one list in the order they were opened and answers each event by scanning
 * all of it: the I/Os of a step are the matches taken by (start, order
 * opened). Every step's result (what, unpaired, each I/O in order), the
 * unpaired counts and the pending I/Os at the end must agree.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/pairer.h"
#include "fixture.h"

#define MAXP 20000

struct ref_io {
	struct vxt_pio io;
	uint64_t seq;		/* order opened */
};

struct ref {
	unsigned flags;
	struct ref_io p[MAXP];
	size_t n;
	uint64_t seq;
	uint64_t unp[VXT_PU_COUNT];
	/* the step's answer */
	int what, unpaired;
	struct vxt_pio out[MAXP];
	size_t nout;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

/* a before b in the pairer's order: by start, then as opened */
static bool before(const struct ref_io *a, const struct ref_io *b)
{
	return a->io.start < b->io.start || (a->io.start == b->io.start && a->seq < b->seq);
}

/* The indices of @r's I/Os for which @take holds, in the pairer's order. */
static size_t ordered(struct ref *r, size_t *idx, bool (*take)(const struct vxt_pio *, uint64_t,
							       uint64_t), uint64_t a, uint64_t b)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (take(&r->p[i].io, a, b)) {
			size_t j = n++;

			for (; j > 0 && before(&r->p[i], &r->p[idx[j - 1]]); j--)
				idx[j] = idx[j - 1];
			idx[j] = i;
		}
	return n;
}

static bool starts_at(const struct vxt_pio *q, uint64_t s, uint64_t unused)
{
	(void)unused;
	return q->start == s;
}

static bool starts_in(const struct vxt_pio *q, uint64_t s, uint64_t lim)
{
	return q->start >= s && q->start < lim;
}

static void unpaired(struct ref *r, enum vxt_pu k)
{
	r->unp[k]++;
	r->unpaired = (int)k;
}

static void mark(struct ref *r, struct vxt_pio *q, int k, uint64_t t)
{
	if (q->t[VXT_PT_Q] != VXT_PT_UNSET && t < q->t[VXT_PT_Q] && r->unpaired < 0)
		unpaired(r, VXT_PU_ORDER);
	q->t[k] = t;
}

static struct vxt_pio *open_io(struct ref *r, const struct vxt_event *ev, uint64_t ord)
{
	struct ref_io *q = &r->p[r->n++];

	ck_assert_uint_lt(r->n, MAXP);
	memset(q, 0, sizeof(*q));
	q->seq = r->seq++;
	q->io.start = ev->sector;
	q->io.end = ev->sector + (ev->bytes >> 9);
	q->io.ord = ord;
	q->io.object = q->io.qobject = ev->object;
	q->io.pid = ev->pid;
	q->io.comm = ev->comm;
	q->io.op = ev->op;
	for (int k = 0; k < VXT_PT_COUNT; k++)
		q->io.t[k] = VXT_PT_UNSET;
	return &q->io;
}

/* The I/O holding @sec: the last by the pairer's order starting at or before it. */
static struct vxt_pio *holding(struct ref *r, uint32_t obj, uint64_t sec)
{
	struct ref_io *best = NULL;

	for (size_t i = 0; i < r->n; i++)
		if (r->p[i].io.object == obj && r->p[i].io.start <= sec &&
		    (!best || before(best, &r->p[i])))
			best = &r->p[i];
	if (!best)
		return NULL;
	return sec < best->io.end || (best->io.start == sec && best->io.end == sec) ? &best->io :
		NULL;
}

static void one(struct ref *r, struct vxt_pio *q)
{
	r->what = VXT_PS_MARKED;
	r->out[0] = *q;
	r->nout = 1;
}

static void ref_add(struct ref *r, const struct vxt_event *ev, uint64_t ord)
{
	static size_t idx[MAXP];
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), lim = e > s ? e : s + 1;
	struct vxt_pio *q;
	size_t n, i, first, last;
	int k;

	r->what = VXT_PS_NONE;
	r->unpaired = -1;
	r->nout = 0;
	switch (ev->phase) {
	case VXT_PH_QUEUE:
		n = ordered(r, idx, starts_at, s, 0);
		for (i = 0; i < n; i++) {
			q = &r->p[idx[i]].io;
			if (q->object == ev->object && (q->flags & VXT_PI_QUEUED) &&
			    (q->end == q->start) == !ev->bytes) {
				unpaired(r, VXT_PU_DUPQ);
				return;
			}
		}
		q = open_io(r, ev, ord);
		q->t[VXT_PT_Q] = ev->time_ns;
		q->flags = VXT_PI_QUEUED;
		r->what = VXT_PS_OPENED;
		r->out[0] = *q;
		r->nout = 1;
		return;
	case VXT_PH_GETRQ:
	case VXT_PH_INSERT:
	case VXT_PH_MERGE:
		k = ev->phase == VXT_PH_GETRQ ? VXT_PT_G : ev->phase == VXT_PH_INSERT ? VXT_PT_I :
			VXT_PT_M;
		q = holding(r, ev->object, s);
		if (!q) {
			unpaired(r, k == VXT_PT_M ? VXT_PU_MERGE : VXT_PU_NOQ);
			if (k == VXT_PT_M || !(r->flags & VXT_PAIRER_UNQUEUED))
				return;
			q = open_io(r, ev, ord);
		}
		mark(r, q, k, ev->time_ns);
		one(r, q);
		return;
	case VXT_PH_START:
	case VXT_PH_DONE:
	case VXT_PH_REQUEUE:
		n = ordered(r, idx, starts_in, s, lim);
		first = SIZE_MAX;
		last = 0;
		for (i = 0; i < n; i++) {
			q = &r->p[idx[i]].io;
			if (q->object != ev->object || q->end > e)
				continue;
			first = first == SIZE_MAX ? i : first;
			last = i;
			if (ev->phase == VXT_PH_REQUEUE) {
				q->t[VXT_PT_D] = VXT_PT_UNSET;
				continue;
			}
			mark(r, q, ev->phase == VXT_PH_START ? VXT_PT_D : VXT_PT_C, ev->time_ns);
			r->out[r->nout++] = *q;
		}
		if (ev->phase == VXT_PH_REQUEUE) {
			if (first == SIZE_MAX)
				return;
			for (i = first; i <= last; i++)
				if (r->p[idx[i]].io.object == ev->object)
					r->out[r->nout++] = r->p[idx[i]].io;
			r->what = VXT_PS_MARKED;
			return;
		}
		if (ev->phase == VXT_PH_START) {
			if (!r->nout) {
				unpaired(r, VXT_PU_NOQ);
				if (!(r->flags & VXT_PAIRER_UNQUEUED))
					return;
				q = open_io(r, ev, ord);
				q->t[VXT_PT_D] = ev->time_ns;
				one(r, q);
				return;
			}
			r->what = VXT_PS_MARKED;
			return;
		}
		/* a completion: its I/Os leave */
		for (i = 0, n = 0; i < r->n; i++)
			if (r->p[i].io.object != ev->object || !starts_in(&r->p[i].io, s, lim) ||
			    r->p[i].io.end > e)
				r->p[n++] = r->p[i];
		r->n = n;
		if (!r->nout) {
			unpaired(r, VXT_PU_NOQ);
			return;
		}
		for (i = 0, n = 0; i < r->nout; i++)
			n += r->out[i].t[VXT_PT_D] != VXT_PT_UNSET;
		if (!n && r->unpaired < 0)
			unpaired(r, VXT_PU_NOD);
		r->what = VXT_PS_CLOSED;
		return;
	case VXT_PH_SPLIT: {
		uint64_t at = s + (ev->bytes >> 9);
		struct vxt_pio half;

		q = holding(r, ev->object, s);
		if (!ev->bytes || !q || at <= q->start || at >= q->end)
			return;
		half = *q;
		q->end = at;
		q->flags |= VXT_PI_SPLIT;
		half.start = at;
		half.flags |= VXT_PI_SPLIT;
		*open_io(r, ev, ord) = half;	/* (p[] never moves: q stays) */
		one(r, q);
		return;
	}
	}
}

static void check_same(const struct vxt_pio *a, const struct vxt_pio *b)
{
	ck_assert_uint_eq(a->start, b->start);
	ck_assert_uint_eq(a->end, b->end);
	ck_assert_uint_eq(a->ord, b->ord);
	ck_assert_uint_eq(a->object, b->object);
	ck_assert_uint_eq(a->flags & 0x7f, b->flags & 0x7f);
	for (int k = 0; k < VXT_PT_COUNT; k++)
		ck_assert_uint_eq(a->t[k], b->t[k]);
}

struct each_arg {
	const struct vxt_pio **v;
	size_t n;
};

static void collect(void *arg, const struct vxt_pio *io)
{
	struct each_arg *a = arg;

	a->v[a->n++] = io;
}

static void run(unsigned flags, unsigned seed, unsigned nev)
{
	static struct ref r;
	static size_t idx[MAXP];
	static const struct vxt_pio *got[MAXP];
	struct vxt_pairer *p = vxt_pairer_new(flags);
	uint64_t t = 1000;
	struct each_arg ea = { got, 0 };
	size_t n = 0;

	memset(&r, 0, sizeof(r));
	r.flags = flags;
	rng ^= seed;
	ck_assert_ptr_nonnull(p);
	for (unsigned i = 0; i < nev; i++) {
		uint64_t x = rnd(), pick = x % 100;
		struct vxt_event ev = { .time_ns = t += 1 + (x >> 50) % 7, .object = (x >> 8) & 1,
					.pid = 7, .op = (uint8_t)(x >> 9 & 1) };
		struct vxt_pstep st;
		const struct ref_io *o = r.n ? &r.p[(x >> 12) % r.n] : NULL;

		if ((x >> 20) % 64 == 0)
			ev.time_ns -= 20;	/* out of order */
		/* most events go to a pending I/O's range, the rest anywhere */
		if (o && pick >= 30) {
			ev.object = o->io.object;
			ev.sector = o->io.start;
			ev.bytes = (uint32_t)((o->io.end - o->io.start) << 9);
			if ((x >> 24) % 8 == 0)	/* a wider range: several I/Os */
				ev.bytes += (uint32_t)(((x >> 28) % 64) << 9);
		} else {
			ev.sector = (x >> 32) % 4096;
			ev.bytes = (uint32_t)(((x >> 40) % 4) * 8 << 9);
		}
		ev.phase = pick < 30 ? VXT_PH_QUEUE : pick < 40 ? VXT_PH_GETRQ : pick < 48 ?
			VXT_PH_INSERT : pick < 53 ? VXT_PH_MERGE : pick < 65 ? VXT_PH_START :
			pick < 70 ? VXT_PH_REQUEUE : pick < 73 ? VXT_PH_SPLIT : VXT_PH_DONE;
		if (ev.phase == VXT_PH_DONE && (x >> 44) % 2 == 0)
			ev.phase = VXT_PH_QUEUE;	/* more queues than completions: thousands pending */
		if (ev.phase == VXT_PH_SPLIT && ev.bytes)
			ev.bytes = (uint32_t)(((x >> 36) % 8 + 1) << 9);
		ck_assert_int_eq(vxt_pairer_add(p, &ev, i, &st), 0);
		ref_add(&r, &ev, i);
		ck_assert_int_eq(st.what, r.what);
		ck_assert_int_eq(st.unpaired, r.unpaired);
		ck_assert_uint_eq(st.n, r.nout);
		for (size_t k = 0; k < st.n; k++)
			check_same(&st.io[k], &r.out[k]);
		ck_assert_uint_eq(vxt_pairer_pending(p), r.n);
	}
	ck_assert_uint_gt(r.n, 1000);	/* many blocks' worth */
	for (unsigned k = 0; k < VXT_PU_COUNT; k++)
		ck_assert_uint_eq(vxt_pairer_unpaired(p, k), r.unp[k]);
	vxt_pairer_each(p, collect, &ea);
	ck_assert_uint_eq(ea.n, r.n);
	for (uint32_t obj = 0; obj < 2; obj++) {
		size_t m = 0;

		for (size_t i = 0; i < r.n; i++) {
			size_t j = m;

			if (r.p[i].io.object != obj)
				continue;
			for (m++; j > 0 && before(&r.p[i], &r.p[idx[j - 1]]); j--)
				idx[j] = idx[j - 1];
			idx[j] = i;
		}
		for (size_t i = 0; i < m; i++)
			check_same(got[n++], &r.p[idx[i]].io);
	}
	vxt_pairer_free(p);
}

START_TEST(against_brute_force)
{
	run(0, 1, 30000);
}
END_TEST

START_TEST(against_brute_force_unqueued)
{
	run(VXT_PAIRER_UNQUEUED, 2, 30000);
}
END_TEST

Suite *pairer_oracle_suite(void)
{
	Suite *s = suite_create("pairer_oracle");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, against_brute_force);
	tcase_add_test(tc, against_brute_force_unqueued);
	suite_add_tcase(s, tc);
	return s;
}
