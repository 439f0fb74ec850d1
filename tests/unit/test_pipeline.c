/* test_pipeline.c - source -> view -> sink (vxtrace/pipeline.h)
 *
 * A random stream goes through a filtering view in batches of random sizes;
 * what reaches the sink is compared with the events a plain loop here
 * selects (op == write && bytes >= 8192, lost markers always), in order. The
 * ordinals given to the pipeline come back as each kept event's seq, and a
 * sink's error stops the pass and is returned.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

#define N 20000

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

static struct vxt_event *stream(void)
{
	struct vxt_event *ev = calloc(N, sizeof(*ev));
	uint64_t t = VXT_NSEC_PER_SEC;

	ck_assert_ptr_nonnull(ev);
	for (size_t i = 0; i < N; i++) {
		t += rnd() % 100000;
		ev[i].time_ns = t;
		ev[i].op = (uint8_t)(rnd() % 3);
		ev[i].bytes = 4096u << (rnd() % 3);
		ev[i].phase = rnd() % 50 == 0 ? VXT_PH_LOST : (uint8_t)(rnd() % 2);
		ev[i].object = 0;
	}
	return ev;
}

static bool selected(const struct vxt_event *e)
{
	return e->phase == VXT_PH_LOST || (e->op == VXT_OP_WRITE && e->bytes >= 8192);
}

struct ords {
	uint64_t seq[N];
	size_t n;
};

static int take_seq(void *arg, const struct vxt_spec_event *out)
{
	struct ords *o = arg;

	o->seq[o->n++] = out->seq;
	return 0;
}

static struct vxt_view *view(struct vxt_objtab *objs, struct vxt_strtab *strs)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_view *v = vxt_view_new(NULL, "op == write && bytes >= 8k", objs, strs, err);

	ck_assert_msg(v != NULL, "%s", err);
	return v;
}

START_TEST(test_pipeline_batches)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event *ev = stream();
	struct vxt_view *v = view(objs, strs);
	struct vxt_batch kept = { 0 };
	size_t i = 0, want = 0, k = 0;

	vxt_objtab_add(objs, 8 << 20, "sda", 0, 0);
	while (i < N) {
		size_t n = 1 + rnd() % 700;

		if (n > N - i)
			n = N - i;
		ck_assert_int_eq(vxt_pipeline_push(v, ev + i, n, VXT_PIPE_NO_ORDINAL,
						   vxt_pipe_to_batch, &kept), 0);
		i += n;
	}
	ck_assert_int_eq(vxt_pipeline_finish(v, vxt_pipe_to_batch, &kept), 0);
	for (i = 0; i < N; i++) {
		if (!selected(&ev[i]))
			continue;
		want++;
		ck_assert_uint_lt(k, kept.n);
		ck_assert_uint_eq(kept.ev[k].time_ns, ev[i].time_ns);
		ck_assert_uint_eq(kept.ev[k].phase, ev[i].phase);
		k++;
	}
	ck_assert_uint_gt(want, N / 10);
	ck_assert_uint_eq(kept.n, want);
	vxt_batch_free(&kept);
	vxt_view_free(v);
	free(ev);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

START_TEST(test_pipeline_ordinals)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event *ev = stream();
	struct vxt_view *v = view(objs, strs);
	static struct ords got;
	size_t k = 0;

	vxt_objtab_add(objs, 8 << 20, "sda", 0, 0);
	got.n = 0;
	/* the events are ordinals 1000, 1001 ... of a file, given 100 at a time */
	for (size_t i = 0; i < N; i += 100)
		ck_assert_int_eq(vxt_pipeline_push(v, ev + i, 100, 1000 + i, take_seq, &got), 0);
	ck_assert_int_eq(vxt_pipeline_finish(v, take_seq, &got), 0);
	for (size_t i = 0; i < N; i++)
		if (selected(&ev[i])) {
			ck_assert_uint_lt(k, got.n);
			ck_assert_uint_eq(got.seq[k], 1000 + i);
			k++;
		}
	ck_assert_uint_eq(got.n, k);
	vxt_view_free(v);
	free(ev);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

static int refuse_third(void *arg, const struct vxt_spec_event *out)
{
	size_t *n = arg;

	(void)out;
	return ++*n == 3 ? -ENOSPC : 0;
}

START_TEST(test_pipeline_sink_error)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_event *ev = stream();
	struct vxt_view *v = view(objs, strs);
	size_t calls = 0;

	vxt_objtab_add(objs, 8 << 20, "sda", 0, 0);
	ck_assert_int_eq(vxt_pipeline_push(v, ev, N, VXT_PIPE_NO_ORDINAL, refuse_third, &calls),
			 -ENOSPC);
	ck_assert_uint_eq(calls, 3);
	vxt_view_free(v);
	free(ev);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *pipeline_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *tc = tcase_create("pipeline");

	tcase_add_test(tc, test_pipeline_batches);
	tcase_add_test(tc, test_pipeline_ordinals);
	tcase_add_test(tc, test_pipeline_sink_error);
	suite_add_tcase(s, tc);
	return s;
}
