/* test_codec.c - the columnar event codec and its varints, against plain arrays */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"
#include "fixture.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return ut_rand(&rng_state);
}

static void random_events(struct vxt_event *ev, size_t n, uint32_t nobjs, uint32_t nstrs)
{
	uint64_t t = rnd() % 1000000000000ull;

	for (size_t i = 0; i < n; i++) {
		struct vxt_event *e = &ev[i];

		memset(e, 0, sizeof(*e));
		/* mostly increasing time, sometimes backwards (per-CPU skew) */
		if (rnd() % 10 == 0)
			t -= rnd() % 5000;
		else
			t += rnd() % 100000;
		e->time_ns = t;
		e->phase = (uint8_t)(rnd() % VXT_PH_COUNT);
		e->op = (uint8_t)(rnd() % VXT_OP_COUNT);
		e->object = (uint32_t)(rnd() % nobjs);
		e->flags = (uint16_t)rnd();
		e->sector = rnd() % 4 == 0 ? rnd() : rnd() % 100000000;
		e->bytes = (uint32_t)rnd();
		e->latency_ns = rnd() % 3 == 0 ? rnd() : rnd() % 10000000;
		e->error = rnd() % 50 == 0 ? (int16_t)-(int)(1 + rnd() % 4095) : 0;
		e->pid = (uint32_t)rnd();
		e->comm = (uint32_t)(rnd() % nstrs);
		e->cpu = (uint16_t)rnd();
	}
}

static void roundtrip(const struct vxt_event *ev, size_t n)
{
	uint8_t *buf = malloc(VXT_CODEC_BOUND(n));
	struct vxt_event *out = calloc(n ? n : 1, sizeof(*out));
	size_t len;

	ck_assert_ptr_nonnull(buf);
	len = vxt_codec_encode(ev, n, buf);
	ck_assert_uint_le(len, VXT_CODEC_BOUND(n));
	ck_assert_int_eq(vxt_codec_decode(buf, len, n, out, 1000, 1000), 0);
	ck_assert_int_eq(memcmp(ev, out, n * sizeof(*ev)), 0);
	/* one event fewer or more than encoded is malformed */
	if (n)
		ck_assert_int_eq(vxt_codec_decode(buf, len, n - 1, out, 1000, 1000), -EBADMSG);
	free(buf);
	free(out);
}

START_TEST(random_streams)
{
	rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
	for (int round = 0; round < 20; round++) {
		size_t n = rnd() % 5000;
		struct vxt_event *ev = malloc((n ? n : 1) * sizeof(*ev));

		random_events(ev, n, 1000, 1000);
		roundtrip(ev, n);
		free(ev);
	}
}
END_TEST

START_TEST(edge_values)
{
	struct vxt_event ev[6];

	memset(ev, 0, sizeof(ev));
	ev[1].time_ns = UINT64_MAX;
	ev[1].sector = UINT64_MAX;
	ev[1].latency_ns = UINT64_MAX;
	ev[1].bytes = UINT32_MAX;
	ev[1].pid = UINT32_MAX;
	ev[1].flags = UINT16_MAX;
	ev[1].cpu = UINT16_MAX;
	ev[1].error = -4095;
	ev[1].object = 999;
	ev[1].comm = 999;
	ev[2].time_ns = 0;		/* from the maximum back to 0 */
	ev[3].time_ns = 5;
	ev[3].sector = 0;
	ev[4] = ev[1];
	ev[5].time_ns = 1;		/* negative delta */
	roundtrip(ev, 6);
	roundtrip(ev, 0);
}
END_TEST

START_TEST(varint_edges)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
					   (uint64_t)1 << 63, UINT64_MAX };
	uint8_t buf[16];

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t v = 0;
		size_t n = vxt_varint_put(buf, values[i]);

		ck_assert_uint_eq(vxt_varint_get(buf, buf + n, &v), n);
		ck_assert_uint_eq(v, values[i]);
		/* truncated varints are refused */
		ck_assert_uint_eq(vxt_varint_get(buf, buf + n - 1, &v), 0);
	}
	/* a nine-byte value cut short */
	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(vxt_varint_get(buf, buf + 5, &(uint64_t){ 0 }), 0);
	ck_assert_uint_eq(vxt_varint_get(buf, buf + 9, &(uint64_t){ 0 }), 9);
	/* the length of every power of two */
	for (int k = 0; k < 64; k++) {
		uint64_t v = 0, want = (uint64_t)1 << k;
		size_t n = vxt_varint_put(buf, want);

		ck_assert_uint_eq(n, k < 56 ? (size_t)k / 7 + 1 : 9);
		ck_assert_uint_eq(vxt_varint_get(buf, buf + n, &v), n);
		ck_assert_uint_eq(v, want);
	}
	for (int64_t s = -3; s <= 3; s++)
		ck_assert_int_eq(vxt_unzigzag(vxt_zigzag(s)), s);
	ck_assert_int_eq(vxt_unzigzag(vxt_zigzag(INT64_MIN)), INT64_MIN);
	ck_assert_int_eq(vxt_unzigzag(vxt_zigzag(INT64_MAX)), INT64_MAX);
	ck_assert_uint_eq(vxt_zigzag(-1), 1);
}
END_TEST

START_TEST(rejects_bad_ids)
{
	struct vxt_event ev = { .object = 7, .comm = 3 }, out;
	uint8_t buf[VXT_CODEC_BOUND(1)];
	size_t len = vxt_codec_encode(&ev, 1, buf);

	ck_assert_int_eq(vxt_codec_decode(buf, len, 1, &out, 8, 4), 0);
	ck_assert_int_eq(vxt_codec_decode(buf, len, 1, &out, 7, 4), -EBADMSG);
	ck_assert_int_eq(vxt_codec_decode(buf, len, 1, &out, 8, 3), -EBADMSG);
	ck_assert_int_eq(vxt_codec_decode(buf, len - 1, 1, &out, 8, 4), -EBADMSG);
}
END_TEST

/* Columns whose values all take one byte are decoded without length tests:
 * the same rules must hold there as on the general path. */
START_TEST(one_byte_columns)
{
	enum { N = 300 };
	struct vxt_event ev[N], out[N], slow[N];
	uint8_t *buf = malloc(VXT_CODEC_BOUND(N) + 16), col[N + 1 + VXT_CODEC_SLACK];

	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < N; i++) {
		ev[i].time_ns = (uint64_t)i * 3;
		ev[i].phase = (uint8_t)(i % 3);
		ev[i].op = (uint8_t)(i % VXT_OP_COUNT);
		ev[i].object = (uint32_t)(i % 5);
		ev[i].flags = (uint16_t)(i % 64);
		ev[i].bytes = (uint32_t)(i % 100);
		ev[i].latency_ns = (uint64_t)(i % 120);
		ev[i].error = (int16_t)-(i % 7 == 0 ? 5 : 0);
		ev[i].comm = (uint32_t)(i % 4);
		ev[i].cpu = (uint16_t)(i % 2);
	}
	roundtrip(ev, N);

	/* the same values, one written in two bytes (any form is accepted):
	 * the general loop must agree with the one-byte loop */
	for (int c = 1; c < VXT_CODEC_COLUMNS; c++) {
		if (c == VXT_CODEC_SECTOR || c == VXT_CODEC_PID || c == VXT_CODEC_TIME)
			continue;	/* deltas: always the general loop */
		size_t len = vxt_codec_encode(ev, N, buf);
		const uint8_t *p = buf + 4 * VXT_CODEC_COLUMNS;
		uint32_t clen;

		(void)len;
		for (int k = 0; k < c; k++)
			p += buf[4 * k] | buf[4 * k + 1] << 8 | buf[4 * k + 2] << 16;
		clen = buf[4 * c] | buf[4 * c + 1] << 8 | buf[4 * c + 2] << 16;
		ck_assert_uint_eq(clen, N);
		memcpy(out, ev, sizeof(ev));
		memcpy(slow, ev, sizeof(ev));
		memset(col, 0, sizeof(col));
		memcpy(col, p, N);
		ck_assert_int_eq(vxt_codec_decode_column(c, col, N, N, out, 5, 4), 0);
		/* value 0 as two bytes: 0b01 then 0 */
		memmove(col + 2, col + 1, N - 1);
		col[0] = (uint8_t)(p[0] << 1 | 1);
		col[1] = (uint8_t)(p[0] >> 7);
		ck_assert_int_eq(vxt_codec_decode_column(c, col, N + 1, N, slow, 5, 4), 0);
		ck_assert_int_eq(memcmp(out, slow, sizeof(out)), 0);
		ck_assert_int_eq(memcmp(out, ev, sizeof(out)), 0);
	}

	/* bad one-byte columns */
	memcpy(out, ev, sizeof(ev));
	memset(col, 0, sizeof(col));
	col[7] = 0x01;		/* the start of a two-byte value: the column is short */
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_FLAGS, col, N, N, out, 5, 4), -EBADMSG);
	memset(col, 0, sizeof(col));
	col[9] = 0xfe;		/* phase 7, op 15: no such op */
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_PHASE_OP, col, N, N, out, 5, 4), -EBADMSG);
	memset(col, 0, sizeof(col));
	col[3] = 2 << 1;	/* zigzag 2: error +1, never a failure */
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_ERROR, col, N, N, out, 5, 4), -EBADMSG);
	col[3] = 1 << 1;	/* zigzag 1: -1, EPERM */
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_ERROR, col, N, N, out, 5, 4), 0);
	ck_assert_int_eq(out[3].error, -1);
	memset(col, 0, sizeof(col));
	col[4] = 4 << 1;	/* comm 4 of 4 strings */
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_COMM, col, N, N, out, 5, 4), -EBADMSG);
	memset(col, 0, sizeof(col));
	col[5] = 9 << 1;	/* object 9 of 5: refused, but a lost event's reads as 0 */
	out[5].phase = VXT_PH_DONE;
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_OBJECT, col, N, N, out, 5, 4), -EBADMSG);
	out[5].phase = VXT_PH_LOST;
	ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_OBJECT, col, N, N, out, 5, 4), 0);
	ck_assert_uint_eq(out[5].object, 0);
	free(buf);
}
END_TEST

/* The columns of an encoded block at @buf: where each starts, how long. */
static void split_columns(const uint8_t *buf, const uint8_t *col[], size_t len[])
{
	const uint8_t *p = buf + 4 * VXT_CODEC_COLUMNS;

	for (int c = 0; c < VXT_CODEC_COLUMNS; c++) {
		len[c] = (size_t)buf[4 * c] | (size_t)buf[4 * c + 1] << 8 |
			 (size_t)buf[4 * c + 2] << 16 | (size_t)buf[4 * c + 3] << 24;
		col[c] = p;
		p += len[c];
	}
}

/* Decoded a few events at a time, each step going on from the last, a
 * block gives the events it holds, whatever the steps (one-byte columns
 * and longer values alike). */
START_TEST(stepped_decode)
{
	rng_state = 0x51ed2701a3c4e9b7ull * (uint64_t)(_i + 1);
	for (int round = 0; round < 20; round++) {
		size_t n = 1 + rnd() % 3000, len[VXT_CODEC_COLUMNS];
		struct vxt_event *ev = malloc(n * sizeof(*ev)), *out = malloc(n * sizeof(*out));
		uint8_t *buf = calloc(1, VXT_CODEC_BOUND(n) + VXT_CODEC_SLACK);
		const uint8_t *col[VXT_CODEC_COLUMNS];
		struct vxt_codec_steps st;
		/* small ids half the time: one-byte object and comm columns */
		uint32_t ids = round % 2 ? 100 : 1000;

		random_events(ev, n, ids, ids);
		if (round % 4 == 1)	/* one-byte flags and cpus too */
			for (size_t i = 0; i < n; i++)
				ev[i].flags = ev[i].cpu = (uint16_t)(i % 100);
		vxt_codec_encode(ev, n, buf);
		split_columns(buf, col, len);
		vxt_codec_steps_begin(&st, col, len, n);
		while (st.done < n) {
			size_t before = st.done, upto = st.done + 1 + rnd() % (round % 3 ? 50 : 700);

			ck_assert_int_eq(vxt_codec_steps_decode(&st, upto, out, ids, ids), 0);
			ck_assert_uint_eq(st.done, upto < n ? upto : n);
			ck_assert_int_eq(memcmp(ev, out, st.done * sizeof(*ev)), 0);
			/* a step to where it is already does nothing */
			ck_assert_int_eq(vxt_codec_steps_decode(&st, before, out, ids, ids), 0);
			ck_assert_uint_eq(st.done, upto < n ? upto : n);
		}
		free(ev);
		free(out);
		free(buf);
	}
}
END_TEST

/* A chunk of one process: its pid column is the first pid (long), then
 * deltas of 0; some streams change pid once later. Decoded whole and step
 * by step, the pids are those encoded; a pid past 2^32 - 1 is refused. */
START_TEST(one_process_pids)
{
	rng_state = 0x2545f4914f6cdd1dull;
	for (int round = 0; round < 41; round++) {
		/* the last: a long column whose pid changes at its end (two
		 * long values: the general loop, in bounded stack) */
		size_t n = round < 40 ? 2 + rnd() % 3000 : 400000, len[VXT_CODEC_COLUMNS];
		size_t change = round < 40 ? rnd() % n : n - 1;
		struct vxt_event *ev = malloc(n * sizeof(*ev)), *out = malloc(n * sizeof(*out));
		uint8_t *buf = calloc(1, VXT_CODEC_BOUND(n) + VXT_CODEC_SLACK);
		const uint8_t *col[VXT_CODEC_COLUMNS];
		struct vxt_codec_steps st;
		uint32_t pid = round % 5 ? (uint32_t)rnd() : (uint32_t)(rnd() % 64);

		random_events(ev, n, 100, 100);
		for (size_t i = 0; i < n; i++)
			ev[i].pid = (round % 3 == 2 || round == 40) && i >= change ? pid ^ 0x5a5a : pid;
		roundtrip(ev, n);
		vxt_codec_encode(ev, n, buf);
		split_columns(buf, col, len);
		vxt_codec_steps_begin(&st, col, len, n);
		while (round < 40 && st.done < n) {
			ck_assert_int_eq(vxt_codec_steps_decode(&st, st.done + 1 + rnd() % 200, out, 100,
								100), 0);
			ck_assert_int_eq(memcmp(ev, out, st.done * sizeof(*ev)), 0);
		}
		free(ev);
		free(out);
		free(buf);
	}
	{
		/* pid 2^32 - 1, then + 1 (zigzag 2, one byte): past a pid's range,
		 * even if - 1 (zigzag 1) brings the next back */
		struct vxt_event ev[3];
		uint8_t col[16 + VXT_CODEC_SLACK] = { 0 };
		size_t k = vxt_varint_put(col, vxt_zigzag(UINT32_MAX));

		col[k] = 2 << 1;
		col[k + 1] = 1 << 1;
		ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_PID, col, k + 2, 3, ev, 1, 1),
				 -EBADMSG);
		col[k + 1] = 0;
		ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_PID, col, k + 2, 3, ev, 1, 1),
				 -EBADMSG);
		col[k] = 1 << 1;	/* - 1 instead: fine */
		ck_assert_int_eq(vxt_codec_decode_column(VXT_CODEC_PID, col, k + 2, 3, ev, 1, 1), 0);
		ck_assert_uint_eq(ev[0].pid, UINT32_MAX);
		ck_assert_uint_eq(ev[1].pid, UINT32_MAX - 1);
		ck_assert_uint_eq(ev[2].pid, UINT32_MAX - 1);
	}
}
END_TEST

/* A malformed value fails the step that reaches it, not those before; a
 * column longer than its events fails the last step only. */
START_TEST(stepped_decode_damage)
{
	enum { N = 2000, BAD = 1234 };
	struct vxt_event *ev = malloc(N * sizeof(*ev)), *out = malloc(N * sizeof(*out));
	uint8_t *buf = calloc(1, VXT_CODEC_BOUND(N) + VXT_CODEC_SLACK);
	const uint8_t *col[VXT_CODEC_COLUMNS];
	size_t len[VXT_CODEC_COLUMNS];
	struct vxt_codec_steps st;

	rng_state = 77;
	for (int ids = 100; ids <= 1000; ids += 900) {	/* one-byte comms, then longer */
		random_events(ev, N, ids, ids);
		for (size_t i = 0; i < N; i++)
			ev[i].comm = i == BAD ? (uint32_t)ids - 1 : (uint32_t)(i % (ids - 1));
		vxt_codec_encode(ev, N, buf);
		split_columns(buf, col, len);
		/* comm BAD names no string of ids - 1 */
		vxt_codec_steps_begin(&st, col, len, N);
		ck_assert_int_eq(vxt_codec_steps_decode(&st, BAD, out, (uint32_t)ids,
							(uint32_t)ids - 1), 0);
		ck_assert_int_eq(memcmp(ev, out, BAD * sizeof(*ev)), 0);
		ck_assert_int_eq(vxt_codec_steps_decode(&st, BAD + 1, out, (uint32_t)ids,
							(uint32_t)ids - 1), -EBADMSG);
		ck_assert_uint_eq(st.done, BAD);
		/* one event fewer than encoded: good up to the end, which is short */
		vxt_codec_steps_begin(&st, col, len, N - 1);
		ck_assert_int_eq(vxt_codec_steps_decode(&st, N - 2, out, (uint32_t)ids,
							(uint32_t)ids), 0);
		ck_assert_int_eq(memcmp(ev, out, (N - 2) * sizeof(*ev)), 0);
		ck_assert_int_eq(vxt_codec_steps_decode(&st, N - 1, out, (uint32_t)ids,
							(uint32_t)ids), -EBADMSG);
	}
	free(ev);
	free(out);
	free(buf);
}
END_TEST

Suite *codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, random_streams, 0, 5);
	tcase_add_test(tc, edge_values);
	tcase_add_test(tc, varint_edges);
	tcase_add_test(tc, one_byte_columns);
	tcase_add_test(tc, rejects_bad_ids);
	tcase_add_loop_test(tc, stepped_decode, 0, 3);
	tcase_add_test(tc, one_process_pids);
	tcase_add_test(tc, stepped_decode_damage);
	suite_add_tcase(s, tc);
	return s;
}
