/* test_chanrec.c - the channel record decoder: records split at every byte,
 * the phase records (types 16 to 24) decoded as I/O records, a remap with
 * its source and one without (an older module's), packed records (type 10),
 * compact records (type 11) and pairs (type 12) built by hand from
 * formats/channel.md */
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

/* A start and a done in full at @buf (the ones packed, compact and pair
 * records are told against). @return their length. */
static size_t full_start_done(uint8_t *buf)
{
	struct voliot_io_rec io = { sizeof(io), VOLIOT_REC_IO_START, VOLIOT_OP_READ, 0,
				    VOLIOT_F_SYNC, 1, VOLIOT_MKDEV(251, 0), 300, 4096, 0,
				    1000000, 800, 0, "fio" };
	size_t n = 0;

	memcpy(buf + n, &io, sizeof(io)); n += sizeof(io);
	io.type = VOLIOT_REC_IO_DONE;
	io.pid = 0;
	io.time_ns = 1050000;
	io.latency_ns = 50000;
	memset(io.comm, 0, sizeof(io.comm));
	memcpy(buf + n, &io, sizeof(io)); n += sizeof(io);
	return n;
}

/* A start in full at @buf, for the malformed records after it. @return its length. */
static size_t small_start(uint8_t *buf)
{
	struct voliot_io_rec io = { sizeof(io), VOLIOT_REC_IO_START, VOLIOT_OP_READ, 0,
				    0, 0, VOLIOT_MKDEV(251, 0), 1, 4096, 0, 1000, 8, 0, "x" };

	memcpy(buf, &io, sizeof(io));
	return sizeof(io);
}

/* @buf's @len bytes are malformed after the @good bytes before. */
static void bad(const uint8_t *buf, size_t len, size_t good)
{
	struct vxt_chandec d;

	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, len, NULL, NULL), -EBADMSG);
	ck_assert_uint_eq(d.offset, good);
}

/* Feed @buf's @n bytes into a new @d in two parts cut at @cut, collecting
 * into @s: @want records, every byte taken. */
static void feed_cut(struct vxt_chandec *d, struct seen *s, const uint8_t *buf, size_t n,
		     size_t cut, int want)
{
	memset(s, 0, sizeof(*s));
	vxt_chandec_init(d);
	ck_assert_int_eq(vxt_chandec_feed(d, buf, cut, collect, s), 0);
	ck_assert_int_eq(vxt_chandec_feed(d, buf + cut, n - cut, collect, s), 0);
	ck_assert_int_eq(s->n, want);
	ck_assert_uint_eq(d->offset, n);
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

/* A remap with its source (80 bytes), and one of a module before it (64
 * bytes, source 0), back to back and split at every byte. */
START_TEST(remap_source)
{
	struct voliot_remap_rec r = {
		{ sizeof(r), VOLIOT_REC_REMAP, VOLIOT_OP_WRITE, 0, 0, 1, VOLIOT_MKDEV(43, 0), 9,
		  8192, 0, 5000, 123456, 0, "fio" },
		VOLIOT_MKDEV(254, 3), 0, 4567,
	};
	struct voliot_io_rec old = r.io;
	uint8_t buf[sizeof(r) + sizeof(old)];
	struct vxt_chandec d;
	size_t cut;

	old.len = sizeof(old);
	old.sector = 77;
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), &old, sizeof(old));
	for (cut = 0; cut <= sizeof(buf); cut++) {
		struct seen s;

		feed_cut(&d, &s, buf, sizeof(buf), cut, 2);
		ck_assert_int_eq(s.types[0], VOLIOT_REC_REMAP);
		ck_assert_uint_eq(s.recs[0].len, sizeof(r));
		ck_assert_uint_eq(s.recs[0].u.io.sector, 123456);
		ck_assert_uint_eq(s.recs[0].u.io.bytes, 8192);
		ck_assert_uint_eq(s.recs[0].u.remap.old_dev, VOLIOT_MKDEV(254, 3));
		ck_assert_uint_eq(s.recs[0].u.remap.old_sector, 4567);
		ck_assert_int_eq(s.types[1], VOLIOT_REC_REMAP);
		ck_assert_uint_eq(s.recs[1].u.io.sector, 77);
		ck_assert_uint_eq(s.recs[1].u.remap.old_dev, 0);
		ck_assert_uint_eq(s.recs[1].u.remap.old_sector, 0);
	}
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

/* A packed record of type @kind with fields @f, values from @v in bit
 * order (the comm as a string). @return its length. */
static size_t pk(uint8_t *out, uint8_t kind, uint16_t f, const uint64_t *v, const char *comm)
{
	static const uint8_t size[13] = { 1, 2, 2, 4, 4, 4, 4, 8, 4, 8, 4, 8, 4 };
	size_t o = VOLIOT_PK_HDR, i, k = 0, b;

	for (i = 0; i < 13; i++) {
		if (!(f & (1u << i)))
			continue;
		for (b = 0; b < size[i]; b++)
			out[o++] = (uint8_t)(v[k] >> (8 * b));
		k++;
	}
	if (f & VOLIOT_PK_COMM) {
		out[o++] = (uint8_t)strlen(comm);
		memcpy(out + o, comm, strlen(comm));
		o += strlen(comm);
	}
	out[0] = (uint8_t)o;
	out[1] = VOLIOT_REC_IO_PACKED;
	out[2] = kind;
	out[3] = (uint8_t)f;
	out[4] = (uint8_t)(f >> 8);
	return o;
}

/* A start and a done in full, then packed ones told against them: left out
 * fields from the previous record of the same type, the sector following on,
 * a time delta, a new comm, a full packed start; split at every byte. */
START_TEST(packed)
{
	uint8_t buf[512];
	size_t n, cut, i;
	struct vxt_chandec d;
	struct seen s;

	n = full_start_done(buf);
	/* start: 10 us later, the next sector (800 + 8) left out */
	n += pk(buf + n, VOLIOT_REC_IO_START, VOLIOT_PK_TIME_DELTA, (uint64_t[]){ 60000 }, NULL);
	/* done: time delta, sector 808 left out, latency, error */
	n += pk(buf + n, VOLIOT_REC_IO_DONE, VOLIOT_PK_ERROR | VOLIOT_PK_TIME_DELTA |
		VOLIOT_PK_LATENCY32, (uint64_t[]){ (uint32_t)-5, 70000, 60000 }, NULL);
	/* start: other cpu, pid, comm, a sector of 64 bits, the same time */
	n += pk(buf + n, VOLIOT_REC_IO_START, VOLIOT_PK_CPU | VOLIOT_PK_PID | VOLIOT_PK_SECTOR |
		VOLIOT_PK_COMM, (uint64_t[]){ 0, 301, 1ull << 40 }, "kworker/0:1H");
	/* a full packed start with a 64-bit latency field */
	n += pk(buf + n, VOLIOT_REC_IO_START, VOLIOT_PK_OP | VOLIOT_PK_FLAGS | VOLIOT_PK_CPU |
		VOLIOT_PK_DEV | VOLIOT_PK_PID | VOLIOT_PK_BYTES | VOLIOT_PK_ERROR | VOLIOT_PK_TIME |
		VOLIOT_PK_SECTOR32 | VOLIOT_PK_LATENCY | VOLIOT_PK_COMM,
		(uint64_t[]){ VOLIOT_OP_WRITE, 0, 3, VOLIOT_MKDEV(8, 16), 7, 512, 0, 5000000, 99,
			      1ull << 33 }, "dd");
	for (cut = 0; cut <= n; cut++) {
		feed_cut(&d, &s, buf, n, cut, 6);
		for (i = 0; i < 6; i++) {
			ck_assert_uint_eq(s.recs[i].len, sizeof(struct voliot_io_rec));
			ck_assert(vxt_chanrec_is_io(s.types[i]));
		}
		ck_assert_int_eq(s.types[2], VOLIOT_REC_IO_START);
		ck_assert_uint_eq(s.recs[2].u.io.time_ns, 1060000);
		ck_assert_uint_eq(s.recs[2].u.io.sector, 808);
		ck_assert_uint_eq(s.recs[2].u.io.pid, 300);
		ck_assert_uint_eq(s.recs[2].u.io.cpu, 1);
		ck_assert_uint_eq(s.recs[2].u.io.bytes, 4096);
		ck_assert_uint_eq(s.recs[2].u.io.flags, VOLIOT_F_SYNC);
		ck_assert_uint_eq(s.recs[2].u.io.dev, VOLIOT_MKDEV(251, 0));
		ck_assert_uint_eq(s.recs[2].u.io.latency_ns, 0);
		ck_assert_str_eq(s.recs[2].u.io.comm, "fio");
		ck_assert_int_eq(s.types[3], VOLIOT_REC_IO_DONE);
		ck_assert_uint_eq(s.recs[3].u.io.time_ns, 1120000);
		ck_assert_uint_eq(s.recs[3].u.io.sector, 808);
		ck_assert_int_eq(s.recs[3].u.io.error, -5);
		ck_assert_uint_eq(s.recs[3].u.io.latency_ns, 60000);
		ck_assert_uint_eq(s.recs[3].u.io.pid, 0);
		ck_assert_str_eq(s.recs[3].u.io.comm, "");
		ck_assert_uint_eq(s.recs[4].u.io.time_ns, 1060000);
		ck_assert_uint_eq(s.recs[4].u.io.sector, 1ull << 40);
		ck_assert_uint_eq(s.recs[4].u.io.cpu, 0);
		ck_assert_uint_eq(s.recs[4].u.io.pid, 301);
		ck_assert_str_eq(s.recs[4].u.io.comm, "kworker/0:1H");
		ck_assert_uint_eq(s.recs[5].u.io.op, VOLIOT_OP_WRITE);
		ck_assert_uint_eq(s.recs[5].u.io.flags, 0);
		ck_assert_uint_eq(s.recs[5].u.io.dev, VOLIOT_MKDEV(8, 16));
		ck_assert_uint_eq(s.recs[5].u.io.bytes, 512);
		ck_assert_uint_eq(s.recs[5].u.io.time_ns, 5000000);
		ck_assert_uint_eq(s.recs[5].u.io.sector, 99);
		ck_assert_uint_eq(s.recs[5].u.io.latency_ns, 1ull << 33);
		ck_assert_str_eq(s.recs[5].u.io.comm, "dd");
	}
}
END_TEST

/* Packed records that cannot be decoded: none before of its type and not
 * every field, a length that does not match the fields, an unknown bit, a
 * kind that is not a start, done or requeue, both time fields. */
START_TEST(packed_malformed)
{
	const size_t io = sizeof(struct voliot_io_rec);
	uint8_t buf[256];
	struct vxt_chandec d;
	size_t n;

	n = pk(buf, VOLIOT_REC_IO_START, VOLIOT_PK_TIME_DELTA, (uint64_t[]){ 5 }, NULL);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	/* with a start before it: fine; as a done: no done before it */
	small_start(buf);
	n = io + pk(buf + io, VOLIOT_REC_IO_START, VOLIOT_PK_TIME_DELTA,
			    (uint64_t[]){ 5 }, NULL);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), 0);
	buf[io + 2] = VOLIOT_REC_IO_DONE;
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	ck_assert_uint_eq(d.offset, io);
	buf[io + 2] = VOLIOT_REC_ERROR;
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	buf[io + 2] = VOLIOT_REC_IO_START;
	buf[io]++;			/* one byte more than its fields */
	buf[n++] = 0;
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	n = io + pk(buf + io, VOLIOT_REC_IO_START, VOLIOT_PK_TIME_DELTA |
			    VOLIOT_PK_TIME, (uint64_t[]){ 5, 6 }, NULL);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	n = io + pk(buf + io, VOLIOT_REC_IO_START, VOLIOT_PK_TIME_DELTA,
			    (uint64_t[]){ 5 }, NULL);
	buf[io + 4] |= 0x40;		/* bit 14: unknown */
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
	/* a comm longer than 16 bytes */
	n = io + pk(buf + io, VOLIOT_REC_IO_START, VOLIOT_PK_COMM, NULL,
			    "0123456789abcdefg");
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), -EBADMSG);
}
END_TEST

/* A compact record: @head, then @more as a varint when head says so, then
 * the @nv varints @v (time, sector, then the more fields in bit order, the
 * comm left out) and the comm as a string where more's bit says. */
static size_t cp(uint8_t *out, uint8_t head, uint64_t more, const uint64_t *v, size_t nv,
		 const char *comm)
{
	size_t o = 3, i, ci = nv + 1;
	uint64_t x;

	if (head & VOLIOT_CP_MORE) {
		for (x = more; x >= 0x80; x >>= 7)
			out[o++] = (uint8_t)(x | 0x80);
		out[o++] = (uint8_t)x;
	}
	/* the comm goes after the fields of the bits below it */
	if (more & VOLIOT_CPM_COMM) {
		ci = !!(head & VOLIOT_CP_TIME) + !!(head & VOLIOT_CP_SECTOR_ABS);
		for (x = 1; x < VOLIOT_CPM_COMM; x <<= 1)
			ci += !!(more & x);
	}
	for (i = 0; i <= nv; i++) {
		if (i == ci) {
			out[o++] = (uint8_t)strlen(comm);
			memcpy(out + o, comm, strlen(comm));
			o += strlen(comm);
		}
		if (i == nv)
			break;
		for (x = v[i]; x >= 0x80; x >>= 7)
			out[o++] = (uint8_t)(x | 0x80);
		out[o++] = (uint8_t)x;
	}
	out[0] = (uint8_t)o;
	out[1] = VOLIOT_REC_IO_COMPACT;
	out[2] = head;
	return o;
}

#define ZZ(x) ((uint64_t)(x) >= 1ull << 63 ? ~((uint64_t)(x) << 1) : (uint64_t)(x) << 1)
#define REF(r) ((uint8_t)((r) << VOLIOT_CP_REF_SHIFT))

/* A start and a done in full, then compact ones: a start with a new sector,
 * a done told against its own start (latency from the times, an error), a
 * start going back in time with every field new, a done against the start
 * before the latest (a sector less than its start's); split at every byte. */
START_TEST(compact)
{
	uint8_t buf[512];
	size_t n, cut, i;
	struct vxt_chandec d;
	struct seen s;

	n = full_start_done(buf);
	n += cp(buf + n, 0 | VOLIOT_CP_TIME | VOLIOT_CP_SECTOR_ABS, 0,
		(uint64_t[]){ ZZ(60000), 5000 }, 2, NULL);
	n += cp(buf + n, 1 | REF(1) | VOLIOT_CP_TIME | VOLIOT_CP_MORE,
		VOLIOT_CPM_LATENCY | VOLIOT_CPM_ERROR,
		(uint64_t[]){ ZZ(30000), ZZ(150), ZZ(-5) }, 3, NULL);
	n += cp(buf + n, 0 | VOLIOT_CP_TIME | VOLIOT_CP_MORE,
		VOLIOT_CPM_CPU | VOLIOT_CPM_PID | VOLIOT_CPM_COMM | VOLIOT_CPM_BYTES |
		VOLIOT_CPM_DEV | VOLIOT_CPM_OP | VOLIOT_CPM_FLAGS,
		(uint64_t[]){ ZZ(-100), 0, 301, 512, VOLIOT_MKDEV(8, 16), VOLIOT_OP_WRITE, 0 }, 7,
		"kworker/0:1H");
	n += cp(buf + n, 1 | REF(2) | VOLIOT_CP_TIME | VOLIOT_CP_MORE, VOLIOT_CPM_SECTOR,
		(uint64_t[]){ ZZ(40000), ZZ(-8) }, 2, NULL);
	ck_assert_uint_lt(n - 2 * sizeof(struct voliot_io_rec), 4 * 20);
	for (cut = 0; cut <= n; cut++) {
		feed_cut(&d, &s, buf, n, cut, 6);
		for (i = 0; i < 6; i++)
			ck_assert_uint_eq(s.recs[i].len, sizeof(struct voliot_io_rec));
		ck_assert_int_eq(s.types[2], VOLIOT_REC_IO_START);
		ck_assert_uint_eq(s.recs[2].u.io.time_ns, 1060000);
		ck_assert_uint_eq(s.recs[2].u.io.sector, 5000);
		ck_assert_uint_eq(s.recs[2].u.io.pid, 300);
		ck_assert_uint_eq(s.recs[2].u.io.cpu, 1);
		ck_assert_uint_eq(s.recs[2].u.io.bytes, 4096);
		ck_assert_uint_eq(s.recs[2].u.io.flags, VOLIOT_F_SYNC);
		ck_assert_uint_eq(s.recs[2].u.io.latency_ns, 0);
		ck_assert_str_eq(s.recs[2].u.io.comm, "fio");
		ck_assert_int_eq(s.types[3], VOLIOT_REC_IO_DONE);
		ck_assert_uint_eq(s.recs[3].u.io.time_ns, 1090000);
		ck_assert_uint_eq(s.recs[3].u.io.sector, 5000);
		ck_assert_uint_eq(s.recs[3].u.io.bytes, 4096);
		ck_assert_uint_eq(s.recs[3].u.io.latency_ns, 30150);
		ck_assert_int_eq(s.recs[3].u.io.error, -5);
		ck_assert_uint_eq(s.recs[3].u.io.pid, 0);
		ck_assert_uint_eq(s.recs[3].u.io.cpu, 1);
		ck_assert_str_eq(s.recs[3].u.io.comm, "");
		ck_assert_int_eq(s.types[4], VOLIOT_REC_IO_START);
		ck_assert_uint_eq(s.recs[4].u.io.time_ns, 1059900);
		ck_assert_uint_eq(s.recs[4].u.io.sector, 5008);
		ck_assert_uint_eq(s.recs[4].u.io.cpu, 0);
		ck_assert_uint_eq(s.recs[4].u.io.pid, 301);
		ck_assert_str_eq(s.recs[4].u.io.comm, "kworker/0:1H");
		ck_assert_uint_eq(s.recs[4].u.io.bytes, 512);
		ck_assert_uint_eq(s.recs[4].u.io.dev, VOLIOT_MKDEV(8, 16));
		ck_assert_uint_eq(s.recs[4].u.io.op, VOLIOT_OP_WRITE);
		ck_assert_uint_eq(s.recs[4].u.io.flags, 0);
		ck_assert_int_eq(s.types[5], VOLIOT_REC_IO_DONE);
		ck_assert_uint_eq(s.recs[5].u.io.time_ns, 1100000);
		ck_assert_uint_eq(s.recs[5].u.io.sector, 4992);
		ck_assert_uint_eq(s.recs[5].u.io.bytes, 4096);
		ck_assert_uint_eq(s.recs[5].u.io.dev, VOLIOT_MKDEV(251, 0));
		ck_assert_uint_eq(s.recs[5].u.io.latency_ns, 40000);
		ck_assert_int_eq(s.recs[5].u.io.error, -5);
		ck_assert_str_eq(s.recs[5].u.io.comm, "");
	}
}
END_TEST

/* Compact records that cannot be decoded: none before of its kind, a ref
 * past the starts seen, kind 3, an empty or unknown more, two sectors, a
 * varint cut short or of more than 64 bits, a field past its width, a
 * length that does not match the fields, a comm longer than 16 bytes. */
START_TEST(compact_malformed)
{
	uint8_t buf[256];
	const size_t h = small_start(buf);
	struct vxt_chandec d;
	size_t n;

	/* fine first: a start after a start */
	n = h + cp(buf + h, VOLIOT_CP_TIME, 0, (uint64_t[]){ 2 }, 1, NULL);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), 0);
	n = h + cp(buf + h, 1 | VOLIOT_CP_TIME, 0, (uint64_t[]){ 2 }, 1, NULL);
	bad(buf, n, h);					/* a done with no done before */
	n = h + cp(buf + h, 2 | REF(1), 0, NULL, 0, NULL);
	bad(buf, n, h);					/* a requeue with none before */
	n = h + cp(buf + h, 3, 0, NULL, 0, NULL);
	bad(buf, n, h);					/* kind 3 */
	n = h + cp(buf + h, REF(2), 0, NULL, 0, NULL);
	bad(buf, n, h);					/* only one start seen */
	n = h + cp(buf + h, VOLIOT_CP_MORE, 0, NULL, 0, NULL);
	bad(buf, n, h);					/* more says nothing */
	n = h + cp(buf + h, VOLIOT_CP_MORE, 0x400, (uint64_t[]){ 1 }, 1, NULL);
	bad(buf, n, h);					/* unknown bit */
	n = h + cp(buf + h, VOLIOT_CP_SECTOR_ABS | VOLIOT_CP_MORE, VOLIOT_CPM_SECTOR,
		   (uint64_t[]){ 1, 2 }, 2, NULL);
	bad(buf, n, h);					/* both sectors */
	n = h + cp(buf + h, VOLIOT_CP_TIME, 0, (uint64_t[]){ 300 }, 1, NULL);
	buf[h]--;
	bad(buf, n - 1, h);				/* the varint cut short */
	buf[h] = 14;
	buf[h + 1] = VOLIOT_REC_IO_COMPACT;
	buf[h + 2] = VOLIOT_CP_TIME;
	memset(buf + h + 3, 0xff, 10);
	buf[h + 13] = 0x01;
	bad(buf, h + 14, h);				/* 11 varint bytes */
	buf[h + 12] = 0x02;
	buf[h] = 13;
	bad(buf, h + 13, h);				/* 10 bytes, past 64 bits */
	n = h + cp(buf + h, VOLIOT_CP_MORE, VOLIOT_CPM_CPU, (uint64_t[]){ 65536 }, 1, NULL);
	bad(buf, n, h);					/* cpu past 16 bits */
	n = h + cp(buf + h, VOLIOT_CP_MORE, VOLIOT_CPM_OP, (uint64_t[]){ 256 }, 1, NULL);
	bad(buf, n, h);					/* op past 8 bits */
	n = h + cp(buf + h, VOLIOT_CP_TIME, 0, (uint64_t[]){ 2 }, 1, NULL);
	buf[h]++;
	buf[n++] = 0;
	bad(buf, n, h);					/* a byte more than its fields */
	n = h + cp(buf + h, VOLIOT_CP_MORE, VOLIOT_CPM_COMM, NULL, 0, "0123456789abcdefg");
	bad(buf, n, h);					/* a 17-byte comm */
}
END_TEST

/* A pair record of the compact records @a and @b at @out. @return its length. */
static size_t pair(uint8_t *out, const uint8_t *a, const uint8_t *b)
{
	memcpy(out + 2, a + 2, a[0] - 2u);
	memcpy(out + a[0], b + 2, b[0] - 2u);
	out[0] = (uint8_t)(a[0] + b[0] - 2);
	out[1] = VOLIOT_REC_IO_PAIR;
	return out[0];
}

/* A start and a done in full, then a pair (a start and its done, told
 * against it), a compact start and a second pair; split at every byte, the
 * same records as the compact ones apart. */
START_TEST(pairs)
{
	uint8_t buf[512], sep[512], a[64], b[64], c[64];
	size_t n, ns, cut, i;
	struct vxt_chandec d;
	struct seen s, s2;

	n = full_start_done(buf);
	memcpy(sep, buf, n);
	ns = n;
	cp(a, VOLIOT_CP_TIME | VOLIOT_CP_SECTOR_ABS, 0, (uint64_t[]){ ZZ(60000), 5000 }, 2, NULL);
	cp(b, 1 | REF(1) | VOLIOT_CP_TIME | VOLIOT_CP_MORE, VOLIOT_CPM_LATENCY | VOLIOT_CPM_ERROR,
	   (uint64_t[]){ ZZ(30000), ZZ(150), ZZ(-5) }, 3, NULL);
	cp(c, VOLIOT_CP_TIME, 0, (uint64_t[]){ ZZ(10000) }, 1, NULL);
	n += pair(buf + n, a, b);
	memcpy(buf + n, c, c[0]); n += c[0];
	cp(a, VOLIOT_CP_TIME | VOLIOT_CP_SECTOR_ABS, 0, (uint64_t[]){ ZZ(20000), 77 }, 2, NULL);
	cp(b, 1 | REF(1) | VOLIOT_CP_TIME | VOLIOT_CP_MORE, VOLIOT_CPM_ERROR,
	   (uint64_t[]){ ZZ(9000), ZZ(0) }, 2, NULL);
	n += pair(buf + n, a, b);
	/* the same as compact records one by one */
	cp(sep + ns, VOLIOT_CP_TIME | VOLIOT_CP_SECTOR_ABS, 0, (uint64_t[]){ ZZ(60000), 5000 }, 2,
	   NULL);
	ns += sep[ns];
	cp(sep + ns, 1 | REF(1) | VOLIOT_CP_TIME | VOLIOT_CP_MORE,
	   VOLIOT_CPM_LATENCY | VOLIOT_CPM_ERROR, (uint64_t[]){ ZZ(30000), ZZ(150), ZZ(-5) }, 3,
	   NULL);
	ns += sep[ns];
	memcpy(sep + ns, c, c[0]); ns += c[0];
	memcpy(sep + ns, a, a[0]); ns += a[0];
	memcpy(sep + ns, b, b[0]); ns += b[0];
	ck_assert_uint_eq(n + 4, ns);	/* 2 bytes less a pair */
	memset(&s2, 0, sizeof(s2));
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, sep, ns, collect, &s2), 0);
	ck_assert_int_eq(s2.n, 7);
	for (cut = 0; cut <= n; cut++) {
		feed_cut(&d, &s, buf, n, cut, 7);
		ck_assert_uint_eq(d.records, 7);
		for (i = 0; i < 7; i++) {
			ck_assert_int_eq(s.types[i], s2.types[i]);
			ck_assert(!memcmp(&s.recs[i].u.io, &s2.recs[i].u.io, sizeof(struct voliot_io_rec)));
		}
	}
	ck_assert_int_eq(s.types[2], VOLIOT_REC_IO_START);
	ck_assert_uint_eq(s.recs[2].u.io.sector, 5000);
	ck_assert_int_eq(s.types[3], VOLIOT_REC_IO_DONE);
	ck_assert_uint_eq(s.recs[3].u.io.time_ns, 1090000);
	ck_assert_uint_eq(s.recs[3].u.io.latency_ns, 30150);
	ck_assert_int_eq(s.recs[3].u.io.error, -5);
	ck_assert_uint_eq(s.recs[4].u.io.sector, 5008);
	ck_assert_uint_eq(s.recs[4].u.io.time_ns, 1070000);
	ck_assert_uint_eq(s.recs[5].u.io.time_ns, 1090000);
	ck_assert_uint_eq(s.recs[5].u.io.sector, 77);
	ck_assert_uint_eq(s.recs[6].u.io.time_ns, 1099000);
	ck_assert_uint_eq(s.recs[6].u.io.sector, 77);
	ck_assert_uint_eq(s.recs[6].u.io.latency_ns, 9000);
	ck_assert_int_eq(s.recs[6].u.io.error, 0);
}
END_TEST

/* Pairs that cannot be decoded: too short, one record only, a byte after
 * the second, a second that is malformed. */
START_TEST(pairs_malformed)
{
	uint8_t buf[256], a[64], b[64];
	const size_t h = small_start(buf);
	struct vxt_chandec d;
	size_t n;

	cp(a, VOLIOT_CP_TIME, 0, (uint64_t[]){ 2 }, 1, NULL);
	cp(b, VOLIOT_CP_TIME, 0, (uint64_t[]){ 4 }, 1, NULL);
	n = h + pair(buf + h, a, b);
	vxt_chandec_init(&d);
	ck_assert_int_eq(vxt_chandec_feed(&d, buf, n, NULL, NULL), 0);
	ck_assert_uint_eq(d.records, 3);
	buf[h] = 3;
	bad(buf, h + 3, h);				/* too short */
	memcpy(buf + h, a, a[0]);
	buf[h + 1] = VOLIOT_REC_IO_PAIR;
	bad(buf, h + a[0], h);				/* one record only */
	n = h + pair(buf + h, a, b);
	buf[h]++;
	buf[n++] = 0;
	bad(buf, n, h);					/* a byte after the second */
	cp(b, 1 | VOLIOT_CP_TIME, 0, (uint64_t[]){ 4 }, 1, NULL);
	n = h + pair(buf + h, a, b);
	bad(buf, n, h);					/* a done with none before */
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
	tcase_add_test(tc, remap_source);
	tcase_add_test(tc, horizon);
	tcase_add_test(tc, packed);
	tcase_add_test(tc, packed_malformed);
	tcase_add_test(tc, compact);
	tcase_add_test(tc, compact_malformed);
	tcase_add_test(tc, pairs);
	tcase_add_test(tc, pairs_malformed);
	suite_add_tcase(s, tc);
	return s;
}
