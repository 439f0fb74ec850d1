/* test_blktrace.c - blktrace record decoding and the blktrace import source
 *
 * Records are built with the encoder in both byte orders and decoded back;
 * the import source is run over synthesised per-CPU files (merge order,
 * latency pairing, notes, damaged input) and over the real capture in
 * $VXT_SHARED/data/blktrace/centos7-sda against blkparse's figures.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/blktrace.h"
#include "vxtrace/source.h"

#define TC(x) ((uint32_t)(x) << VXT_BLK_TC_SHIFT)

static struct vxt_blk_rec rec(uint64_t time, uint32_t act, uint32_t tc, uint64_t sector,
			      uint32_t bytes)
{
	struct vxt_blk_rec r = { 0 };

	r.magic = VXT_BLK_MAGIC | VXT_BLK_VERSION;
	r.time = time;
	r.action = TC(tc) | act;
	r.sector = sector;
	r.bytes = bytes;
	r.pid = 42;
	r.device = 8u << 20 | 16;
	return r;
}

START_TEST(decode_both_orders)
{
	static const enum vxt_blk_order orders[] = { VXT_BLK_ORDER_LE, VXT_BLK_ORDER_BE };
	unsigned char buf[VXT_BLK_HDR_SIZE];
	struct vxt_blk_rec in, out;
	enum vxt_blk_order o;
	int i;

	for (i = 0; i < 2; i++) {
		in = rec(0x0102030405060708ull, VXT_BLK_TA_COMPLETE, VXT_BLK_TC_WRITE |
			 VXT_BLK_TC_COMPLETE, 0x1122334455ull, 65536);
		in.sequence = 77;
		in.cpu = 3;
		in.error = (uint16_t)-5;
		in.pdu_len = 16;
		vxt_blk_encode(buf, orders[i], &in);
		o = VXT_BLK_ORDER_UNKNOWN;
		ck_assert_int_eq(vxt_blk_decode(buf, &o, &out), 0);
		ck_assert_int_eq(o, orders[i]);
		ck_assert(memcmp(&in, &out, sizeof(in)) == 0);
		/* the magic's bytes tell the order */
		ck_assert_int_eq(buf[i == 0 ? 0 : 3], VXT_BLK_VERSION);
	}
}
END_TEST

START_TEST(decode_le_bytes)
{
	/* first record of a real little-endian capture */
	static const unsigned char raw[48] = {
		0x07, 0x74, 0x61, 0x65, 0x01, 0x00, 0x00, 0x00, 0xba, 0x3c, 0x40, 0xa9,
		0x3c, 0x97, 0x00, 0x00, 0xc8, 0xa1, 0xcb, 0x02, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x10, 0x00, 0x00, 0x04, 0x00, 0x12, 0x00, 0xbc, 0x45, 0x00, 0x00,
		0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	enum vxt_blk_order o = VXT_BLK_ORDER_UNKNOWN;
	struct vxt_blk_rec r;

	ck_assert_int_eq(vxt_blk_decode(raw, &o, &r), 0);
	ck_assert_int_eq(o, VXT_BLK_ORDER_LE);
	ck_assert_uint_eq(r.sequence, 1);
	ck_assert_uint_eq(r.sector, 46899656);
	ck_assert_uint_eq(r.bytes, 4096);
	ck_assert_uint_eq(r.action & 0xff, VXT_BLK_TA_GETRQ);
	ck_assert_uint_eq(r.device, 8u << 20);
	ck_assert_str_eq(vxt_blk_act_name(r.action), "G");
}
END_TEST

START_TEST(decode_rejects)
{
	unsigned char buf[VXT_BLK_HDR_SIZE];
	struct vxt_blk_rec r = rec(1, VXT_BLK_TA_QUEUE, VXT_BLK_TC_QUEUE, 0, 0), out;
	enum vxt_blk_order o;

	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, &r);
	buf[2] ^= 0x40;
	o = VXT_BLK_ORDER_UNKNOWN;
	ck_assert_int_eq(vxt_blk_decode(buf, &o, &out), -EBADMSG);

	r.magic = VXT_BLK_MAGIC | 0x06;
	vxt_blk_encode(buf, VXT_BLK_ORDER_BE, &r);
	o = VXT_BLK_ORDER_UNKNOWN;
	ck_assert_int_eq(vxt_blk_decode(buf, &o, &out), -EPROTONOSUPPORT);

	r.magic = VXT_BLK_MAGIC | VXT_BLK_VERSION;
	r.pdu_len = 60000;
	vxt_blk_encode(buf, VXT_BLK_ORDER_BE, &r);
	o = VXT_BLK_ORDER_UNKNOWN;
	ck_assert_int_eq(vxt_blk_decode(buf, &o, &out), -E2BIG);

	/* a big-endian record inside a little-endian stream */
	r.pdu_len = 0;
	vxt_blk_encode(buf, VXT_BLK_ORDER_BE, &r);
	o = VXT_BLK_ORDER_LE;
	ck_assert_int_eq(vxt_blk_decode(buf, &o, &out), -EBADMSG);
}
END_TEST

START_TEST(op_and_flags)
{
	struct vxt_blk_rec r = rec(1, VXT_BLK_TA_ISSUE, VXT_BLK_TC_WRITE | VXT_BLK_TC_SYNC |
				   VXT_BLK_TC_FUA | VXT_BLK_TC_FLUSH | VXT_BLK_TC_META, 8, 4096);
	uint16_t flags;
	uint8_t op;

	vxt_blk_op_flags(&r, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_WRITE);
	ck_assert_int_eq(flags, VXT_F_SYNC | VXT_F_FUA | VXT_F_PREFLUSH | VXT_F_META);
	r = rec(1, VXT_BLK_TA_ISSUE, VXT_BLK_TC_FLUSH, 0, 0);
	vxt_blk_op_flags(&r, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_FLUSH);
	ck_assert_int_eq(flags, 0);
	r = rec(1, VXT_BLK_TA_ISSUE, VXT_BLK_TC_AHEAD, 0, 4096);
	vxt_blk_op_flags(&r, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_READ);
	ck_assert_int_eq(flags, VXT_F_RAHEAD);
	r = rec(1, VXT_BLK_TA_ISSUE, VXT_BLK_TC_DISCARD | VXT_BLK_TC_WRITE, 0, 4096);
	vxt_blk_op_flags(&r, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_DISCARD);
	r = rec(1, VXT_BLK_TA_ISSUE, VXT_BLK_TC_PC, 0, 512);
	vxt_blk_op_flags(&r, &op, &flags);
	ck_assert_int_eq(op, VXT_OP_PASSTHRU);
}
END_TEST

/* ---- the import source over synthesised files ---- */

static char tmpdir[64];

static void put(FILE *f, enum vxt_blk_order o, struct vxt_blk_rec r, const void *pdu)
{
	unsigned char buf[VXT_BLK_HDR_SIZE];

	vxt_blk_encode(buf, o, &r);
	fwrite(buf, 1, sizeof(buf), f);
	if (pdu)
		fwrite(pdu, 1, r.pdu_len, f);
}

static char *path_of(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	return p;
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/vxt-blk-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

struct run {
	struct vxt_objtab *objs;
	struct vxt_strtab *strs;
	struct vxt_batch b;
	int rc;			/* last next() result */
	char err[VXT_ERRBUF_SIZE];
	char note[256];		/* the source's note at the end */
	uint64_t anchor_mono, anchor_real;
};

/* Import @path to the end or the first error. @return 0, or -1 if open failed. */
static int import(const char *path, struct run *r)
{
	struct vxt_source_opts opts = { .path = path };
	struct vxt_source *s;

	memset(r, 0, sizeof(*r));
	r->objs = vxt_objtab_new();
	r->strs = vxt_strtab_new();
	s = vxt_source_open("blktrace", &opts, r->objs, r->strs, r->err);
	if (!s)
		return -1;
	vxt_source_clock(s, &r->anchor_mono, &r->anchor_real);
	while ((r->rc = vxt_source_next(s, &r->b, 0)) == 1)
		;
	if (r->rc < 0)
		snprintf(r->err, sizeof(r->err), "%s", vxt_source_error(s));
	snprintf(r->note, sizeof(r->note), "%s",
		 vxt_source_note(s) ? vxt_source_note(s) : "");
	vxt_source_close(s);
	return 0;
}

static void run_free(struct run *r)
{
	vxt_batch_free(&r->b);
	vxt_objtab_free(r->objs);
	vxt_strtab_free(r->strs);
}

/* Two per-CPU files, one per byte order, interleaved in time. */
static void write_pair(void)
{
	FILE *f0 = fopen(path_of("sdb.blktrace.0"), "wb");
	FILE *f1 = fopen(path_of("sdb.blktrace.1"), "wb");
	struct vxt_blk_rec r;
	/* TIMESTAMP payload: seconds 1700000000, nanoseconds 250000000, big-endian */
	static const unsigned char tsb[8] = { 0x65, 0x53, 0xf1, 0x00, 0x0e, 0xe6, 0xb2, 0x80 };

	ck_assert_ptr_nonnull(f0);
	ck_assert_ptr_nonnull(f1);
	r = rec(1000, VXT_BLK_TN_TIMESTAMP, VXT_BLK_TC_NOTIFY, 0, 0);
	r.pdu_len = 8;
	put(f1, VXT_BLK_ORDER_BE, r, tsb);
	r = rec(1001, VXT_BLK_TN_PROCESS, VXT_BLK_TC_NOTIFY, 0, 0);
	r.pdu_len = 16;
	put(f0, VXT_BLK_ORDER_LE, r, "dd\0\0\0\0\0\0\0\0\0\0\0\0\0");
	put(f0, VXT_BLK_ORDER_LE, rec(2000, VXT_BLK_TA_QUEUE, VXT_BLK_TC_READ |
		VXT_BLK_TC_QUEUE, 100, 4096), NULL);
	put(f1, VXT_BLK_ORDER_BE, rec(2500, VXT_BLK_TA_ISSUE, VXT_BLK_TC_READ |
		VXT_BLK_TC_ISSUE, 100, 4096), NULL);
	put(f0, VXT_BLK_ORDER_LE, rec(2600, VXT_BLK_TA_BOUNCE, VXT_BLK_TC_READ, 100, 4096),
	    NULL);
	r = rec(4000, VXT_BLK_TA_COMPLETE, VXT_BLK_TC_READ | VXT_BLK_TC_COMPLETE, 100, 4096);
	r.error = (uint16_t)-5;
	r.pid = 0;
	put(f0, VXT_BLK_ORDER_LE, r, NULL);
	fclose(f0);
	fclose(f1);
}

START_TEST(import_merges_and_pairs)
{
	struct run r;

	write_pair();
	ck_assert_int_eq(import(path_of("sdb"), &r), 0);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(r.b.n, 3);	/* Q, D, C; the bounce is skipped */
	ck_assert_str_eq(r.note, "1 blktrace records skipped (bounce 1)");
	ck_assert_int_eq(r.b.ev[0].phase, VXT_PH_QUEUE);
	ck_assert_int_eq(r.b.ev[1].phase, VXT_PH_START);
	ck_assert_int_eq(r.b.ev[2].phase, VXT_PH_DONE);
	ck_assert_uint_eq(r.b.ev[1].time_ns, 2500);
	ck_assert_int_eq(r.b.ev[2].error, -5);
	ck_assert_uint_eq(r.b.ev[2].latency_ns, 1500);
	ck_assert_uint_eq(r.b.ev[2].pid, 42);		/* the issuer's */
	ck_assert_str_eq(vxt_strtab_get(r.strs, r.b.ev[2].comm), "dd");
	ck_assert_int_eq(r.b.ev[2].op, VXT_OP_READ);
	ck_assert_uint_eq(vxt_objtab_count(r.objs), 1);
	ck_assert_str_eq(vxt_objtab_get(r.objs, 0)->name, "sdb");
	ck_assert_uint_eq(vxt_objtab_get(r.objs, 0)->dev, 8u << 20 | 16);
	ck_assert_uint_eq(r.anchor_mono, 1000);
	ck_assert_uint_eq(r.anchor_real, 1700000000ull * 1000000000ull + 250000000);
	run_free(&r);
}
END_TEST

/* A good record then @bad bytes: the error names the file and the offset of
 * the bad record, and the good event comes out first. */
static void check_damaged(const void *bad, size_t badlen, const char *what)
{
	char list[256];
	struct run r;
	FILE *f = fopen(path_of("d.bin"), "wb");

	ck_assert_ptr_nonnull(f);
	put(f, VXT_BLK_ORDER_LE, rec(10, VXT_BLK_TA_QUEUE, VXT_BLK_TC_QUEUE, 8, 512), NULL);
	fwrite(bad, 1, badlen, f);
	fclose(f);
	snprintf(list, sizeof(list), "%s", path_of("d.bin"));
	ck_assert_int_eq(import(list, &r), 0);
	ck_assert_int_lt(r.rc, 0);
	ck_assert_uint_eq(r.b.n, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "d.bin: offset 48: "));
	ck_assert_msg(strstr(r.err, what), "'%s' lacks '%s'", r.err, what);
	ck_assert_ptr_null(strchr(r.err, '\n'));
	run_free(&r);
}

START_TEST(import_damaged)
{
	unsigned char buf[VXT_BLK_HDR_SIZE + 4];
	struct vxt_blk_rec r = rec(20, VXT_BLK_TA_ISSUE, VXT_BLK_TC_ISSUE, 8, 512);

	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, &r);
	check_damaged(buf, 20, "truncated record header");
	r.pdu_len = 40;
	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, &r);
	check_damaged(buf, sizeof(buf), "truncated record payload");
	r.pdu_len = 65000;
	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, &r);
	check_damaged(buf, VXT_BLK_HDR_SIZE, "absurd pdu_len 65000");
	memcpy(buf, "JUNKJUNK", 8);
	check_damaged(buf, VXT_BLK_HDR_SIZE, "bad magic 4a554e4b");
}
END_TEST

/* A stream on standard input may come out of order (blktrace -o - writes
 * per-CPU buffers as they fill): the reorder window sorts it, so the
 * completion still finds its issue. */
START_TEST(import_stdin_reorders)
{
	FILE *f = fopen(path_of("stream"), "wb");
	struct vxt_blk_rec r;
	struct run run;
	int fd;

	ck_assert_ptr_nonnull(f);
	put(f, VXT_BLK_ORDER_LE, rec(1000, VXT_BLK_TA_QUEUE, VXT_BLK_TC_WRITE |
		VXT_BLK_TC_QUEUE, 64, 8192), NULL);
	r = rec(2500, VXT_BLK_TA_COMPLETE, VXT_BLK_TC_WRITE | VXT_BLK_TC_COMPLETE, 64, 8192);
	r.cpu = 1;
	put(f, VXT_BLK_ORDER_LE, r, NULL);
	put(f, VXT_BLK_ORDER_LE, rec(2000, VXT_BLK_TA_ISSUE, VXT_BLK_TC_WRITE |
		VXT_BLK_TC_ISSUE, 64, 8192), NULL);
	r = rec(1500, VXT_BLK_TN_MESSAGE, VXT_BLK_TC_NOTIFY, 0, 0);
	r.pdu_len = 6;
	put(f, VXT_BLK_ORDER_LE, r, "hello");
	fclose(f);
	fd = open(path_of("stream"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	ck_assert_int_eq(import("-", &run), 0);
	ck_assert_int_eq(run.rc, 0);
	ck_assert_uint_eq(run.b.n, 4);
	ck_assert_int_eq(run.b.ev[0].phase, VXT_PH_QUEUE);
	ck_assert_int_eq(run.b.ev[1].phase, VXT_PH_MARK);
	ck_assert_str_eq(vxt_strtab_get(run.strs, run.b.ev[1].comm), "hello");
	ck_assert_int_eq(run.b.ev[2].phase, VXT_PH_START);
	ck_assert_int_eq(run.b.ev[3].phase, VXT_PH_DONE);
	ck_assert_uint_eq(run.b.ev[3].latency_ns, 500);
	ck_assert_str_eq(vxt_objtab_get(run.objs, 0)->name, "8:16");
	run_free(&run);
}
END_TEST

START_TEST(import_missing_input)
{
	struct run r;

	ck_assert_int_eq(import(path_of("nothing"), &r), -1);
	ck_assert_ptr_nonnull(strstr(r.err, "no such file or prefix"));
	run_free(&r);
}
END_TEST

/* blkparse 1.2.0's figures for the real capture (see its README.md). */
START_TEST(import_centos7_matches_blkparse)
{
	const char *shared = getenv("VXT_SHARED");
	char prefix[512];
	uint64_t n[VXT_PH_COUNT] = { 0 }, kib[VXT_PH_COUNT] = { 0 }, errors = 0, paired = 0;
	struct run r;
	size_t i;

	snprintf(prefix, sizeof(prefix), "%s/data/blktrace/centos7-sda/sda",
		 shared ? shared : "../shared");
	snprintf(prefix + strlen(prefix), 32, ".blktrace.0");
	if (access(prefix, R_OK) != 0)
		return;		/* data not there: nothing to compare */
	prefix[strlen(prefix) - strlen(".blktrace.0")] = '\0';
	ck_assert_int_eq(import(prefix, &r), 0);
	ck_assert_int_eq(r.rc, 0);
	for (i = 0; i < r.b.n; i++) {
		const struct vxt_event *e = &r.b.ev[i];

		n[e->phase]++;
		kib[e->phase] += e->bytes;
		errors += e->error != 0;
		paired += e->phase == VXT_PH_DONE && e->latency_ns > 0;
		if (e->phase == VXT_PH_QUEUE || e->phase == VXT_PH_START ||
		    e->phase == VXT_PH_DONE)
			ck_assert_int_eq(e->op, VXT_OP_WRITE);
		if (i)
			ck_assert_uint_ge(e->time_ns, r.b.ev[i - 1].time_ns);
	}
	ck_assert_uint_eq(r.b.n, 799);
	ck_assert_uint_eq(n[VXT_PH_QUEUE], 113);
	ck_assert_uint_eq(kib[VXT_PH_QUEUE] >> 10, 3156);
	ck_assert_uint_eq(n[VXT_PH_START], 109);
	ck_assert_uint_eq(kib[VXT_PH_START] >> 10, 3156);
	ck_assert_uint_eq(n[VXT_PH_DONE], 109);
	ck_assert_uint_eq(kib[VXT_PH_DONE] >> 10, 3156);
	ck_assert_uint_eq(n[VXT_PH_MERGE], 4);
	ck_assert_uint_eq(kib[VXT_PH_MERGE] >> 10, 28);
	ck_assert_uint_eq(n[VXT_PH_UNPLUG], 10);
	ck_assert_uint_eq(n[VXT_PH_PLUG], 10);
	ck_assert_uint_eq(n[VXT_PH_INSERT], 109);
	ck_assert_uint_eq(n[VXT_PH_GETRQ], 109);
	ck_assert_uint_eq(n[VXT_PH_REMAP], 226);
	ck_assert_uint_eq(errors, 0);
	ck_assert_uint_eq(paired, 109);
	ck_assert_str_eq(vxt_objtab_get(r.objs, 0)->name, "sda");
	run_free(&r);
}
END_TEST

Suite *blktrace_suite(void)
{
	Suite *s = suite_create("blktrace");
	TCase *tc = tcase_create("records");
	TCase *imp = tcase_create("import");

	tcase_add_test(tc, decode_both_orders);
	tcase_add_test(tc, decode_le_bytes);
	tcase_add_test(tc, decode_rejects);
	tcase_add_test(tc, op_and_flags);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(imp, setup, teardown);
	tcase_add_test(imp, import_merges_and_pairs);
	tcase_add_test(imp, import_damaged);
	tcase_add_test(imp, import_stdin_reorders);
	tcase_add_test(imp, import_missing_input);
	tcase_add_test(imp, import_centos7_matches_blkparse);
	suite_add_tcase(s, imp);
	return s;
}
