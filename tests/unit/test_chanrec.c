/* test_chanrec.c - the channel record decoder: records split at every byte,
 * the phase records (types 16 to 24) decoded as I/O records */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "vxtrace/chanrec.h"

struct seen {
	int n;
	uint8_t types[16];
	struct vxt_chanrec recs[16];
};

static int collect(const struct vxt_chanrec *rec, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->types[s->n] = rec->type;
		s->recs[s->n] = *rec;
	}
	s->n++;
	return 0;
}

/* A stream: object, io start, an unknown type, lost, io done, clock. */
static size_t make_stream(uint8_t *buf)
{
	struct voliot_object_rec o = { sizeof(o), VOLIOT_REC_OBJECT, VOLIOT_OBJ_DISK, 0,
				       VOLIOT_MKDEV(8, 0), 1000, "sda" };
	struct voliot_io_rec io = { sizeof(io), VOLIOT_REC_IO_START, VOLIOT_OP_WRITE, 0,
				    VOLIOT_F_SYNC, 3, VOLIOT_MKDEV(8, 0), 42, 4096, 0,
				    123456789, 2048, 0, "fio" };
	struct voliot_lost_rec l = { sizeof(l), VOLIOT_REC_LOST, { 0 }, 17, 5 };
	struct voliot_clock_rec c = { sizeof(c), VOLIOT_REC_CLOCK, { 0 }, 1, 2 };
	uint8_t unknown[9] = { 9, 200, 1, 2, 3, 4, 5, 6, 7 };
	size_t n = 0;

	memcpy(buf + n, &o, sizeof(o)); n += sizeof(o);
	memcpy(buf + n, &io, sizeof(io)); n += sizeof(io);
	memcpy(buf + n, unknown, sizeof(unknown)); n += sizeof(unknown);
	memcpy(buf + n, &l, sizeof(l)); n += sizeof(l);
	io.type = VOLIOT_REC_IO_DONE;
	io.error = -5;
	io.latency_ns = 777;
	memcpy(buf + n, &io, sizeof(io)); n += sizeof(io);
	memcpy(buf + n, &c, sizeof(c)); n += sizeof(c);
	return n;
}

static void check_seen(const struct seen *s)
{
	ck_assert_int_eq(s->n, 5);
	ck_assert_int_eq(s->types[0], VOLIOT_REC_OBJECT);
	ck_assert_str_eq(s->recs[0].u.object.name, "sda");
	ck_assert_uint_eq(s->recs[0].u.object.nr_sectors, 1000);
	ck_assert_int_eq(s->types[1], VOLIOT_REC_IO_START);
	ck_assert_uint_eq(s->recs[1].u.io.sector, 2048);
	ck_assert_uint_eq(s->recs[1].u.io.bytes, 4096);
	ck_assert_uint_eq(s->recs[1].u.io.pid, 42);
	ck_assert_str_eq(s->recs[1].u.io.comm, "fio");
	ck_assert_int_eq(s->types[2], VOLIOT_REC_LOST);
	ck_assert_uint_eq(s->recs[2].u.lost.count, 17);
	ck_assert_int_eq(s->types[3], VOLIOT_REC_IO_DONE);
	ck_assert_int_eq(s->recs[3].u.io.error, -5);
	ck_assert_uint_eq(s->recs[3].u.io.latency_ns, 777);
	ck_assert_int_eq(s->types[4], VOLIOT_REC_CLOCK);
	ck_assert_uint_eq(s->recs[4].u.clock.real_ns, 2);
}

START_TEST(split_everywhere)
{
	uint8_t buf[512];
	size_t len = make_stream(buf);

	for (size_t a = 0; a <= len; a++) {
		for (size_t b = a; b <= len; b += 7) {
			struct vxt_chandec d;
			struct seen s = { 0 };

			vxt_chandec_init(&d);
			ck_assert_int_eq(vxt_chandec_feed(&d, buf, a, collect, &s), 0);
			ck_assert_int_eq(vxt_chandec_feed(&d, buf + a, b - a, collect, &s), 0);
			ck_assert_int_eq(vxt_chandec_feed(&d, buf + b, len - b, collect, &s), 0);
			check_seen(&s);
			ck_assert_uint_eq(d.skipped, 1);
			ck_assert_uint_eq(vxt_chandec_pending(&d), 0);
			ck_assert_uint_eq(d.offset, len);
		}
	}
}
END_TEST

START_TEST(byte_at_a_time)
{
	uint8_t buf[512];
	size_t len = make_stream(buf);
	struct vxt_chandec d;
	struct seen s = { 0 };

	vxt_chandec_init(&d);
	for (size_t i = 0; i < len; i++)
		ck_assert_int_eq(vxt_chandec_feed(&d, buf + i, 1, collect, &s), 0);
	check_seen(&s);
}
END_TEST

START_TEST(malformed)
{
	struct vxt_chandec d;
	uint8_t zero_len[4] = { 0, 1, 0, 0 };
	uint8_t short_io[10] = { 10, VOLIOT_REC_IO_START };

	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, zero_len, sizeof(zero_len), NULL, NULL), -EBADMSG);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, short_io, sizeof(short_io), NULL, NULL), -EBADMSG);
}
END_TEST

/* Every phase record has the I/O record's fields; a short one is malformed. */
START_TEST(phase_records)
{
	static const uint8_t types[] = {
		VOLIOT_REC_QUEUE, VOLIOT_REC_GETRQ, VOLIOT_REC_INSERT, VOLIOT_REC_BACKMERGE,
		VOLIOT_REC_FRONTMERGE, VOLIOT_REC_PLUG, VOLIOT_REC_UNPLUG, VOLIOT_REC_SPLIT,
		VOLIOT_REC_REMAP,
	};
	uint8_t buf[sizeof(types) * sizeof(struct voliot_io_rec)];
	uint8_t short_rec[40] = { 40, VOLIOT_REC_QUEUE };
	struct seen s = { 0 };
	struct vxt_chandec d;
	size_t i;

	for (i = 0; i < sizeof(types); i++) {
		struct voliot_io_rec io = { sizeof(io), types[i], VOLIOT_OP_READ, 0, 0, 1,
					    VOLIOT_MKDEV(251, 6), 7, 4096, 0, 1000 + i,
					    8 * i, 0, "dd" };

		memcpy(buf + i * sizeof(io), &io, sizeof(io));
	}
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, sizeof(buf), collect, &s), 0);
	ck_assert_int_eq(s.n, (int)sizeof(types));
	ck_assert_uint_eq(d.skipped, 0);
	for (i = 0; i < sizeof(types); i++) {
		ck_assert_int_eq(s.types[i], types[i]);
		ck_assert_uint_eq(s.recs[i].u.io.time_ns, 1000 + i);
		ck_assert_uint_eq(s.recs[i].u.io.sector, 8 * i);
		ck_assert_uint_eq(s.recs[i].u.io.dev, VOLIOT_MKDEV(251, 6));
		ck_assert_str_eq(s.recs[i].u.io.comm, "dd");
	}
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, short_rec, sizeof(short_rec), NULL, NULL), -EBADMSG);
}
END_TEST

/* The horizon record, and one too short for its type. */
START_TEST(horizon)
{
	struct voliot_spec_horizon h = { sizeof(h), VOLIOT_REC_SPEC_HORIZON, { 0 }, 900, 700 };
	struct vxt_chandec d;
	struct seen s = { 0 };

	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, &h, sizeof(h), collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.types[0], VOLIOT_REC_SPEC_HORIZON);
	ck_assert_uint_eq(s.recs[0].u.horizon.time_ns, 900);
	ck_assert_uint_eq(s.recs[0].u.horizon.horizon_ns, 700);
	h.len = 16;
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, &h, 16, collect, &s), -EBADMSG);
}
END_TEST

Suite *chanrec_suite(void)
{
	Suite *s = suite_create("chanrec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, split_everywhere);
	tcase_add_test(tc, byte_at_a_time);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, phase_records);
	tcase_add_test(tc, horizon);
	suite_add_tcase(s, tc);
	return s;
}
