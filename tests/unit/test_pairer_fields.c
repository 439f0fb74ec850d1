/* test_pairer_fields.c - a file read with VXT_PAIRER_FIELDS alone pairs as
 * the I/Os were generated: a bio-based device's bios (VXT_F_BIO: queue and
 * completion only, no issue missed), requests with and without their issue,
 * requests requeued and issued again, and bios of a dm device remapped onto
 * the disk below (Q2C from the top-level queue); each on its own sectors,
 * interleaved in time. The unpaired counts and the sums of Q2C and D2C are
 * computed from the generated I/Os, and every step equals the pairing of the
 * same file decoded whole.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/pairer.h"
#include "vxtrace/vxt.h"
#include "fixture.h"

#define NIO 3000
#define MAXEV (NIO * 8)
#define OBJ_MD 0	/* bio-based */
#define OBJ_SDA 1	/* request-based */
#define OBJ_DM 2	/* bio-based, remapped onto sda */

enum kind { K_BIO, K_REQ, K_NOD, K_REQUEUE, K_REMAP, K_KINDS };

static struct vxt_event evs[MAXEV];
static size_t nev;
static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t want_nod, want_q2c, want_d2c, want_closed;

static uint64_t rnd(uint64_t n)
{
	return ut_rand_below(&rng, n);
}

static int cmp_time(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	return (x->sector > y->sector) - (x->sector < y->sector);
}

static void put(uint64_t t, uint32_t obj, unsigned phase, uint64_t sec, uint16_t flags,
		uint64_t latency)
{
	evs[nev++] = (struct vxt_event){ .time_ns = t, .object = obj, .phase = (uint8_t)phase,
					 .sector = sec, .bytes = 4096, .flags = flags,
					 .latency_ns = latency, .pid = 42, .op = VXT_OP_READ };
}

/* The request phases G, I, [D, [R, D]], C of an I/O on sda queued at @q. */
static void request(uint64_t q, uint64_t t, uint64_t sec, enum kind k)
{
	uint64_t d = 0;

	put(t += 10 + rnd(100), OBJ_SDA, VXT_PH_GETRQ, sec, 0, 0);
	put(t += 10 + rnd(100), OBJ_SDA, VXT_PH_INSERT, sec, 0, 0);
	if (k != K_NOD)
		put(d = t += 10 + rnd(1000), OBJ_SDA, VXT_PH_START, sec, 0, 0);
	if (k == K_REQUEUE) {
		put(t += 10 + rnd(100), OBJ_SDA, VXT_PH_REQUEUE, sec, 0, 0);
		put(d = t += 10 + rnd(1000), OBJ_SDA, VXT_PH_START, sec, 0, 0);
	}
	t += 100 + rnd(100000);
	put(t, OBJ_SDA, VXT_PH_DONE, sec, 0, 0);
	want_closed++;
	want_q2c += t - q;
	if (d)
		want_d2c += t - d;
	else
		want_nod++;
}

static void generate(void)
{
	nev = 0;
	want_nod = want_q2c = want_d2c = want_closed = 0;
	for (uint64_t i = 0; i < NIO; i++) {
		enum kind k = (enum kind)rnd(K_KINDS);
		uint64_t t = 1000000 + rnd(1000000000), sec = i * 64, c;

		switch (k) {
		case K_BIO:
			put(t, OBJ_MD, VXT_PH_QUEUE, sec, VXT_F_BIO, 0);
			c = t + 100 + rnd(100000);
			put(c, OBJ_MD, VXT_PH_DONE, sec, VXT_F_BIO, 0);
			want_closed++;
			want_q2c += c - t;
			break;
		case K_REMAP:
			/* dm's bio, remapped onto sda (whose Q joins it), completes on both */
			put(t, OBJ_DM, VXT_PH_QUEUE, sec, VXT_F_BIO, 0);
			put(t + 5, OBJ_SDA, VXT_PH_REMAP, sec + 8, VXT_F_BIO,
			    vxt_remap_from_pack(OBJ_DM, sec));
			put(t + 6, OBJ_SDA, VXT_PH_QUEUE, sec + 8, 0, 0);
			request(t, t + 6, sec + 8, K_REQ);
			c = evs[nev - 1].time_ns + 1 + rnd(100);
			put(c, OBJ_DM, VXT_PH_DONE, sec, VXT_F_BIO, 0);
			want_closed++;
			want_q2c += c - t;
			break;
		default:
			put(t, OBJ_SDA, VXT_PH_QUEUE, sec, 0, 0);
			request(t, t, sec, k);
			break;
		}
	}
	qsort(evs, nev, sizeof(evs[0]), cmp_time);
}

static void write_file(const char *path)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = 64 * 1024, .source = "test", .force = true,
				      .all_phases = true };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;

	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	ck_assert_int_eq(vxt_objtab_add(objs, 0x900000, "md0", 0, 1ull << 30), OBJ_MD);
	ck_assert_int_eq(vxt_objtab_add(objs, 0x800000, "sda", 0, 1ull << 30), OBJ_SDA);
	ck_assert_int_eq(vxt_objtab_add(objs, 0xfd00000, "dm-0", 0, 1ull << 30), OBJ_DM);
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, nev), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

/* One step, flattened for comparison (pid and comm left out: not paired on). */
struct flat {
	int what, unpaired;
	size_t n;
	uint64_t start, end, t[VXT_PT_COUNT];
	uint32_t object, qobject;
	uint8_t flags, hops;
};

static struct flat flatten(const struct vxt_pstep *st)
{
	struct flat f;

	memset(&f, 0, sizeof(f));	/* padding too: the steps are compared whole */
	f.what = (int)st->what;
	f.unpaired = st->unpaired;
	f.n = st->n;
	if (st->n) {
		f.start = st->io[0].start;
		f.end = st->io[0].end;
		memcpy(f.t, st->io[0].t, sizeof(f.t));
		f.object = st->io[0].object;
		f.qobject = st->io[0].qobject;
		f.flags = st->io[0].flags;
		f.hops = st->io[0].hops;
	}
	return f;
}

/* Pair the file decoded with @fields; the steps go to @out (nev of them). */
static struct vxt_pairer *pair_file(const char *path, unsigned fields, struct flat *out)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = vxt_reader_open(path, err);
	struct vxt_pairer *p = vxt_pairer_new(0);
	size_t k = 0;

	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_ptr_nonnull(p);
	vxt_reader_set_fields(r, fields);
	for (size_t i = 0; i < vxt_reader_nchunks(r); i++) {
		size_t n;
		const struct vxt_event *ev = vxt_reader_chunk_events(r, i, &n);

		ck_assert_ptr_nonnull(ev);
		for (size_t j = 0; j < n; j++, k++) {
			struct vxt_pstep st;

			ck_assert_uint_lt(k, nev);
			ck_assert_int_eq(vxt_pairer_add(p, &ev[j], k, &st), 0);
			out[k] = flatten(&st);
		}
	}
	ck_assert_uint_eq(k, nev);
	vxt_reader_close(r);
	return p;
}

START_TEST(pairer_fields_pair_as_generated)
{
	static struct flat part[MAXEV], whole[MAXEV];
	char path[] = "/tmp/vxt-pairf-XXXXXX";
	int fd = mkstemp(path);
	struct vxt_pairer *p, *q;
	uint64_t closed = 0, q2c = 0, d2c = 0;

	ck_assert_int_ge(fd, 0);
	close(fd);
	generate();
	write_file(path);
	p = pair_file(path, VXT_PAIRER_FIELDS, part);
	q = pair_file(path, VXT_FIELD_ALL, whole);
	unlink(path);
	for (size_t k = 0; k < nev; k++) {
		ck_assert_msg(!memcmp(&part[k], &whole[k], sizeof(part[k])),
			      "event %zu pairs otherwise than with every field decoded", k);
		if (part[k].what != VXT_PS_CLOSED)
			continue;
		ck_assert_uint_eq(part[k].n, 1);
		closed++;
		q2c += part[k].t[VXT_PT_C] - part[k].t[VXT_PT_Q];
		if (part[k].t[VXT_PT_D] != VXT_PT_UNSET)
			d2c += part[k].t[VXT_PT_C] - part[k].t[VXT_PT_D];
	}
	ck_assert_uint_eq(closed, want_closed);
	ck_assert_uint_eq(q2c, want_q2c);
	ck_assert_uint_eq(d2c, want_d2c);
	ck_assert_uint_gt(want_nod, 0);
	ck_assert_uint_eq(vxt_pairer_unpaired(p, VXT_PU_NOD), want_nod);
	for (unsigned u = 0; u < VXT_PU_COUNT; u++) {
		ck_assert_uint_eq(vxt_pairer_unpaired(p, u), vxt_pairer_unpaired(q, u));
		if (u != VXT_PU_NOD)
			ck_assert_uint_eq(vxt_pairer_unpaired(p, u), 0);
	}
	vxt_pairer_free(p);
	vxt_pairer_free(q);
}
END_TEST

Suite *pairer_fields_suite(void)
{
	Suite *s = suite_create("pairer_fields");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pairer_fields_pair_as_generated);
	suite_add_tcase(s, tc);
	return s;
}
