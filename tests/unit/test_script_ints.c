/* test_script_ints.c - integer predicates and arguments of a script, as compiled
 *
 * Predicates and printf arguments over the integer fields, req->, this->
 * and global variables, with every comparison (against a constant and
 * between two values; op against its names), masks of | and ?: (as
 * translators build flags words) and
 * between two values), arithmetic, bitwise and logical operators, unary
 * minus and ~, a ^^ (left to the tree walk) and a division by zero at run
 * time, over random overlapping I/O, a third of it in flight beside an I/O
 * of the same object, sector and size (req-> follows them first in, first
 * out). The printed text is compared with the same expressions computed
 * here in C, event by event, the requests matched by a brute-force search.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	return ut_rand(&rng);
}

struct text {
	char *buf;
	size_t len, cap;
};

static void add(struct text *t, const char *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n + 1);
		t->buf = realloc(t->buf, t->cap);
		ck_assert_ptr_nonnull(t->buf);
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static int sink(void *arg, const struct vxt_script_rec *r)
{
	if (r->len)
		add(arg, r->text, r->len);
	return 0;
}

#define NIO 4000

static int cmp_ev(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	return (x->sector > y->sector) - (x->sector < y->sector);
}

static const char script[] =
	"#pragma D option quiet\n"
	"io:::start { req->n = sector + 1; x = x + 1; this->b = bytes; req->id = ++c; }\n"
	"io:::start /this->b >= 8192 && (sector % 7 == 3 || pid > 5) && !(pid < 2)/\n"
	"{ printf(\"S %d %d %d\\n\", sector * 3 - bytes, ~pid & 255, x); }\n"
	"io:::done /req->n && req->n - 1 == sector && -error == -5/ { printf(\"E %d\\n\", sector); }\n"
	"io:::done /req->n != sector + 1 || req->n <= 0/ { printf(\"bad %d\\n\", sector); }\n"
	"io:::done /(100 / (sector % 5) > 30 ^^ latency >= 500)/ { printf(\"D %d\\n\", sector); }\n"
	"io:::done /pid == 3 && bytes < 16384 && sector >= 100 && bytes != 4096 && x > 10/\n"
	"{ printf(\"P %d %d\\n\", sector, bytes << 1 | 1); }\n"
	"io:::done /req->id/ { printf(\"F %d %d\\n\", sector, req->id); }\n"
	"io:::start /((op == \"read\" ? 64 : 256) | 2) & 64/ { printf(\"R %d\\n\", sector); }\n"
	"io:::done /((op == \"read\" ? 64 : 256) | (flags & 1 ? 0 : 1024) | (error ? 4 : 0)) & 1028\n"
	"  && op != \"write\"/ { printf(\"M %d %d\\n\", sector, flags & 3 | 4 & 6); }\n";

START_TEST(test_int_predicates)
{
	struct vxt_event *ev = calloc(2 * NIO, sizeof(*ev));
	struct text got = { 0 }, want = { 0 };
	char err[VXT_ERRBUF_SIZE], line[128];
	struct vxt_script_stats st;
	struct vxt_script *s;
	uint64_t div0 = 0, x = 0, *id = calloc(2 * NIO, sizeof(*id));
	bool *taken = calloc(2 * NIO, sizeof(*taken));
	size_t n = 0;

	ck_assert_ptr_nonnull(ev);
	ck_assert_ptr_nonnull(id);
	ck_assert_ptr_nonnull(taken);
	for (unsigned i = 0; i < NIO; i++) {	/* overlapping */
		uint64_t t0 = 1000 + 10 * (uint64_t)i + 1 + rnd() % 9, lat = 1 + rnd() % 999;
		struct vxt_event e = { .sector = 17 * (uint64_t)i + rnd() % 17,
				       .bytes = 4096u << (rnd() % 3), .pid = 1 + (uint32_t)(rnd() % 7),
				       .op = (uint8_t)(rnd() % 3), .flags = (uint16_t)(rnd() % 4) };

		if (i % 3 == 2) {	/* the previous I/O's object, sector and size */
			e.sector = ev[n - 2].sector;
			e.bytes = ev[n - 2].bytes;
		}
		e.time_ns = t0;
		e.phase = VXT_PH_START;
		ev[n++] = e;
		e.time_ns = t0 + 10 * lat;
		e.phase = VXT_PH_DONE;
		e.latency_ns = lat;
		e.error = rnd() % 4 == 0 ? -5 : 0;
		ev[n++] = e;
	}
	qsort(ev, n, sizeof(*ev), cmp_ev);

	s = vxt_script_compile(script, strlen(script), "t.d", NULL, 0, err);
	ck_assert_msg(s != NULL, "%s", err);
	vxt_script_start(s, NULL, NULL, sink, &got);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(vxt_script_push(s, &ev[i], i), 0);
	vxt_script_end(s);
	vxt_script_get_stats(s, &st);

	for (size_t i = 0; i < n; i++) {	/* the reference */
		const struct vxt_event *e = &ev[i];
		int64_t sec = (int64_t)e->sector, by = e->bytes, pid = e->pid;

		size_t j;

		if (e->phase == VXT_PH_START) {
			id[i] = ++x;
			if (by >= 8192 && (sec % 7 == 3 || pid > 5) && !(pid < 2)) {
				snprintf(line, sizeof(line), "S %" PRId64 " %" PRId64 " %" PRIu64 "\n",
					 sec * 3 - by, ~pid & 255, x);
				add(&want, line, strlen(line));
			}
			if (e->op == VXT_OP_READ) {
				snprintf(line, sizeof(line), "R %" PRId64 "\n", sec);
				add(&want, line, strlen(line));
			}
			continue;
		}
		if (e->error == -5) {
			snprintf(line, sizeof(line), "E %" PRId64 "\n", sec);
			add(&want, line, strlen(line));
		}
		if (sec % 5 == 0) {
			div0++;
		} else if ((100 / (sec % 5) > 30) != (e->latency_ns >= 500)) {
			snprintf(line, sizeof(line), "D %" PRId64 "\n", sec);
			add(&want, line, strlen(line));
		}
		if (pid == 3 && by < 16384 && sec >= 100 && by != 4096 && x > 10) {
			snprintf(line, sizeof(line), "P %" PRId64 " %" PRId64 "\n", sec, by << 1 | 1);
			add(&want, line, strlen(line));
		}
		/* its request: the first start of the same key not completed yet */
		for (j = 0; j < i; j++)
			if (ev[j].phase == VXT_PH_START && !taken[j] && ev[j].sector == e->sector &&
			    ev[j].bytes == e->bytes && ev[j].object == e->object)
				break;
		ck_assert_uint_lt(j, i);
		taken[j] = true;
		snprintf(line, sizeof(line), "F %" PRId64 " %" PRIu64 "\n", sec, id[j]);
		add(&want, line, strlen(line));
		if ((!(e->flags & 1) || e->error) && e->op != VXT_OP_WRITE) {
			snprintf(line, sizeof(line), "M %" PRId64 " %u\n", sec, (e->flags & 3) | 4);
			add(&want, line, strlen(line));
		}
	}
	ck_assert_ptr_nonnull(want.buf);
	ck_assert_ptr_nonnull(got.buf);
	ck_assert_uint_gt(div0, 0);
	ck_assert_uint_eq(st.div_zero, div0);
	ck_assert_uint_eq(st.errors, div0);
	ck_assert_uint_eq(got.len, want.len);
	ck_assert_str_eq(got.buf, want.buf);
	vxt_script_free(s);
	free(got.buf);
	free(want.buf);
	free(ev);
	free(id);
	free(taken);
}
END_TEST

Suite *script_ints_suite(void)
{
	Suite *s = suite_create("script_ints");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_int_predicates);
	suite_add_tcase(s, tc);
	return s;
}
