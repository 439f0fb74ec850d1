/* test_merge.c - several files as one trace (vxt_reader_open_set()): the
 * merged events against a brute-force reference (every file's events keyed
 * by the largest shifted time so far, sorted by key, file and ordinal), read
 * in order and with the merged chunks decoded backwards and in a scattered
 * order, and after a merge of fewer fields; each merged chunk's index entry
 * against sums over the reference;
 * the files' entries (vxt_reader_piece()) adding up to the same totals, and
 * each one's aggregates, asked for in any order two at a time, against sums
 * over the events of its file chunk. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

#define NFILES 3
#define NEV 31000		/* per file: 4+ merged chunks */

struct ref {
	struct vxt_event ev;
	uint64_t key;
	unsigned file;
	uint64_t ord;
};

static char paths[NFILES][64];
static struct ref *refs;
static size_t nrefs;

/* Events with coarse times (ties between the files), now and then one that
 * goes back in time, a few errors and lost events. */
static void make_file(unsigned f, struct vxt_event *ev)
{
	uint64_t t = 5000000000ull, x = 88172645463325252ull + f * 7919;

	for (size_t i = 0; i < NEV; i++) {
		struct vxt_event *e = &ev[i];

		ut_rand(&x);
		memset(e, 0, sizeof(*e));
		t += (x % 3) * 1000;
		e->time_ns = x % 53 == 0 ? t - (x % 40) * 1000 : t;
		e->object = (uint32_t)(x % 2);
		e->phase = (uint8_t)(x % 2);
		e->op = (uint8_t)(x >> 8) % 2;
		e->sector = x % 100000;
		e->bytes = 512 * (uint32_t)(1 + x % 8);
		e->latency_ns = e->phase ? x % 3000000 : 0;
		e->error = e->phase && x % 89 == 0 ? -5 : 0;
		e->comm = (uint32_t)(x % 2);
		if (i % 4000 == 3999) {
			e->phase = VXT_PH_LOST;
			e->sector = 3;
		}
	}
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static void setup(void)
{
	static struct vxt_event ev[NEV];
	char err[VXT_ERRBUF_SIZE];

	refs = calloc(NFILES * NEV, sizeof(*refs));
	ck_assert_ptr_nonnull(refs);
	nrefs = 0;
	for (unsigned f = 0; f < NFILES; f++) {
		char host[16];
		/* anchors: host f is f * 1.5 ms ahead; host 0 the reference */
		struct vxt_writer_opts o = { .chunk_bytes = 300 * sizeof(struct vxt_event),
					     .force = true, .host = host, .source = "test",
					     .anchor_mono_ns = 1000000000ull,
					     .anchor_real_ns = 2000000000000ull + f * 1500000ull };
		struct vxt_objtab *objs = vxt_objtab_new();
		struct vxt_strtab *strs = vxt_strtab_new();
		struct vxt_writer *w;
		uint64_t run = 0;

		snprintf(host, sizeof(host), "h%u", f);
		snprintf(paths[f], sizeof(paths[f]), "/tmp/vxt-merge-%d-%u.vxt", (int)getpid(), f);
		vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 0);
		vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
		vxt_strtab_intern(strs, "fio", 3);
		make_file(f, ev);
		w = vxt_writer_open(paths[f], &o, objs, strs, err);
		ck_assert_msg(w != NULL, "%s", err);
		ck_assert_int_eq(vxt_writer_write(w, ev, NEV), 0);
		ck_assert_int_eq(vxt_writer_close(w, err), 0);
		vxt_objtab_free(objs);
		vxt_strtab_free(strs);
		for (size_t i = 0; i < NEV; i++) {
			struct ref *r = &refs[nrefs++];
			uint64_t t = ev[i].time_ns + f * 1500000ull;

			run = t > run ? t : run;
			r->ev = ev[i];
			r->ev.time_ns = t;
			r->ev.object = f * 2 + ev[i].object;	/* h0:sda h0:sdb h1:sda ... */
			r->key = run;
			r->file = f;
			r->ord = i;
		}
	}
	qsort(refs, nrefs, sizeof(*refs), cmp_ref);
}

static void teardown(void)
{
	for (unsigned f = 0; f < NFILES; f++)
		unlink(paths[f]);
	free(refs);
}

static struct vxt_reader *open_all(void)
{
	const char *p[NFILES];
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;

	for (unsigned f = 0; f < NFILES; f++)
		p[f] = paths[f];
	r = vxt_reader_open_set(p, NFILES, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(vxt_reader_nevents(r), nrefs);
	return r;
}

static void check_event(const struct vxt_reader *r, const struct vxt_event *e, uint64_t ord)
{
	const struct vxt_event *x = &refs[ord].ev;
	const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), e->object);
	char want[32];

	ck_assert_msg(e->time_ns == x->time_ns && e->phase == x->phase && e->sector == x->sector &&
		      e->latency_ns == x->latency_ns && e->error == x->error,
		      "event %llu: time %llu, the reference's %llu (file %u ordinal %llu)",
		      (unsigned long long)ord, (unsigned long long)e->time_ns,
		      (unsigned long long)x->time_ns, refs[ord].file,
		      (unsigned long long)refs[ord].ord);
	if (x->phase == VXT_PH_LOST)
		return;
	snprintf(want, sizeof(want), "h%u:%s", refs[ord].file, x->object % 2 ? "sdb" : "sda");
	ck_assert_str_eq(o->name, want);
}

/* Chunk @i's events and entry against the reference. */
static void check_chunk(struct vxt_reader *r, size_t i)
{
	const struct vxt_chunk_info *ci;
	const struct vxt_event *ev;
	uint64_t first, lo = UINT64_MAX, hi = 0, errors = 0, lost = 0, ios = 0;
	size_t n = 0;

	ev = vxt_reader_chunk_events(r, i, &n);
	ck_assert_msg(ev != NULL, "%s", vxt_reader_error(r));
	ci = vxt_reader_chunk(r, i);
	ck_assert(vxt_reader_chunk_ready(r, i));
	ck_assert_uint_eq(n, ci->nevents);
	first = ci->first_event;
	for (size_t k = 0; k < n; k++) {
		const struct vxt_event *x = &refs[first + k].ev;

		check_event(r, &ev[k], first + k);
		lo = x->time_ns < lo ? x->time_ns : lo;
		hi = x->time_ns > hi ? x->time_ns : hi;
		if (x->phase == VXT_PH_LOST)
			lost += x->sector;
		else if (x->phase == VXT_PH_DONE)
			ios++, errors += x->error != 0;
	}
	ck_assert_uint_eq(ci->first_ns, lo);
	ck_assert_uint_eq(ci->last_ns, hi);
	ck_assert_uint_eq(ci->nerrors, errors);
	ck_assert_uint_eq(ci->nlost, lost);
	for (uint32_t k = 0; k < ci->nobjagg; k++)
		for (unsigned op = 0; op < VXT_OP_COUNT; op++)
			ios -= ci->objagg[k].ios[op];
	ck_assert_uint_eq(ios, 0);
}

START_TEST(in_order)
{
	struct vxt_reader *r = open_all();
	const struct vxt_event *e;
	uint64_t ord = 0;
	int rc;

	while ((rc = vxt_reader_next(r, &e)) == 1)
		check_event(r, e, ord++);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(ord, nrefs);
	vxt_reader_close(r);
}
END_TEST

START_TEST(chunks_backwards_and_scattered)
{
	struct vxt_reader *r = open_all();
	size_t n = vxt_reader_nchunks(r);

	ck_assert_uint_ge(n, 4);
	ck_assert(!vxt_reader_chunk_ready(r, n - 1));	/* nothing merged at open */
	for (size_t i = n; i-- > 0;)
		check_chunk(r, i);
	vxt_reader_close(r);
	r = open_all();
	for (size_t k = 0; k < n; k++)
		check_chunk(r, (k * 3 + 2) % n);
	vxt_reader_close(r);
}
END_TEST

/* A chunk merged with a few fields, then the next with all: every field is
 * there (the files' chunks the first merge left held are decoded again). */
START_TEST(fewer_fields_then_all)
{
	struct vxt_reader *r = open_all();
	size_t n = 0;

	vxt_reader_set_fields(r, VXT_FIELD_TIME);
	ck_assert_ptr_nonnull(vxt_reader_chunk_events(r, 1, &n));
	vxt_reader_set_fields(r, VXT_FIELD_ALL);
	check_chunk(r, 2);
	vxt_reader_close(r);
}
END_TEST

START_TEST(seek_time_lands)
{
	struct vxt_reader *r = open_all();

	for (size_t k = 1; k < 40; k++) {
		uint64_t ord = nrefs * k / 40, t = refs[ord].ev.time_ns, want = 0;
		const struct vxt_event *e;

		/* the first event at or after t, in a trace in time order but for
		 * what went back: the first chunk whose last time reaches t */
		ck_assert_int_eq(vxt_reader_seek_time(r, t), 0);
		ck_assert_int_eq(vxt_reader_next(r, &e), 1);
		ck_assert_uint_ge(e->time_ns, t);
		while (want < nrefs && refs[want].ev.time_ns < t)
			want++;
		ck_assert_uint_le(vxt_reader_tell(r) - 1, ord);
		ck_assert_uint_ge(vxt_reader_tell(r) - 1, want);
	}
	vxt_reader_close(r);
}
END_TEST

/* The merged chunks' layout (formats/vxt.md): 1024 events, each next
 * chunk twice the one before up to 21845, the last what is left. */
START_TEST(chunk_sizes)
{
	struct vxt_reader *r = open_all();
	uint64_t at = 0, want = 1024;
	size_t n = vxt_reader_nchunks(r);

	for (size_t i = 0; i < n; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);
		uint64_t size = nrefs - at < want ? nrefs - at : want;

		ck_assert_uint_eq(ci->first_event, at);
		ck_assert_uint_eq(ci->nevents, size);
		at += ci->nevents;
		want = want * 2 < 21845 ? want * 2 : 21845;
	}
	ck_assert_uint_eq(at, nrefs);
	vxt_reader_close(r);
}
END_TEST

START_TEST(pieces_add_up)
{
	struct vxt_reader *r = open_all();
	uint64_t ev = 0, err = 0, lost = 0, lo = UINT64_MAX, hi = 0, rerr = 0, rlost = 0;
	/* per file object (file * 2 + local id): completed I/Os, errors, bytes moved */
	uint64_t got[NFILES * 2][3] = { { 0 } }, want[NFILES * 2][3] = { { 0 } };

	ck_assert_uint_eq(vxt_reader_npieces(r) >= NFILES * 10, 1);
	for (size_t i = 0; i < vxt_reader_npieces(r); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_piece(r, i);

		ev += ci->nevents;
		err += ci->nerrors;
		lost += ci->nlost;
		lo = ci->first_ns < lo ? ci->first_ns : lo;
		hi = ci->last_ns > hi ? ci->last_ns : hi;
		for (uint32_t k = 1; k < ci->nobjagg; k++)
			ck_assert_uint_lt(ci->objagg[k - 1].object, ci->objagg[k].object);
		for (uint32_t k = 0; k < ci->nobjagg; k++) {
			const struct vxt_objagg *a = &ci->objagg[k];
			const struct vxt_object *o = vxt_objtab_get(vxt_reader_objects(r), a->object);
			unsigned f;
			char d;

			ck_assert_ptr_nonnull(o);
			ck_assert_int_eq(sscanf(o->name, "h%u:sd%c", &f, &d), 2);
			ck_assert_uint_lt(f, NFILES);
			for (unsigned op = 0; op < VXT_OP_COUNT; op++)
				got[f * 2 + (d == 'b')][0] += a->ios[op];
			got[f * 2 + (d == 'b')][1] += a->errors;
			got[f * 2 + (d == 'b')][2] += a->bytes_read + a->bytes_written;
		}
	}
	for (size_t i = 0; i < nrefs; i++) {
		const struct vxt_event *x = &refs[i].ev;

		rerr += x->phase == VXT_PH_DONE && x->error;
		rlost += x->phase == VXT_PH_LOST ? x->sector : 0;
		if (x->phase == VXT_PH_DONE) {
			want[x->object][0]++;
			want[x->object][1] += x->error != 0;
			want[x->object][2] += x->error ? 0 : x->bytes;	/* bytes moved */
		}
		ck_assert_uint_ge(x->time_ns, lo);
		ck_assert_uint_le(x->time_ns, hi);
	}
	ck_assert_uint_eq(ev, nrefs);
	ck_assert_uint_eq(err, rerr);
	ck_assert_uint_eq(lost, rlost);
	/* each file's objects keep their own aggregates under their merged ids */
	for (unsigned o = 0; o < NFILES * 2; o++)
		for (unsigned k = 0; k < 3; k++)
			ck_assert_msg(got[o][k] == want[o][k], "h%u:sd%c aggregate %u: %llu, want %llu",
				      o / 2, o % 2 ? 'b' : 'a', k, (unsigned long long)got[o][k],
				      (unsigned long long)want[o][k]);
	vxt_reader_close(r);
}
END_TEST

static const struct vxt_event *byord[NFILES][NEV];	/* each file's events, its order */

/* The aggregate of object @obj (merged id, file * 2 + local) over events
 * [@from, @from + @n) of file @f, summed here from the events. @return
 * whether any event (but a lost one) of the object is there. */
static bool ref_agg(unsigned f, uint64_t from, uint32_t n, uint32_t obj, struct vxt_objagg *a)
{
	bool seen = false;

	memset(a, 0, sizeof(*a));
	a->object = obj;
	ck_assert_uint_le(from + n, NEV);
	for (uint64_t i = from; i < from + n; i++) {
		const struct vxt_event *x = byord[f][i];
		unsigned b = 0;

		if (x->object != obj || x->phase == VXT_PH_LOST)
			continue;
		seen = true;
		if (x->phase == VXT_PH_START)
			a->starts++;
		if (x->phase != VXT_PH_DONE)
			continue;
		a->ios[x->op]++;
		a->errors += x->error != 0;
		a->bytes_read += !x->error && x->op == VXT_OP_READ ? x->bytes : 0;
		a->bytes_written += !x->error && x->op == VXT_OP_WRITE ? x->bytes : 0;
		a->lat_sum_ns += x->latency_ns;
		while (b + 1 < VXT_LAT_BUCKETS && x->latency_ns >= 2ull << b)
			b++;
		a->lat_hist[b]++;
	}
	return seen;
}

/* Piece @ci's aggregates are its file chunk's, the file named by its
 * objects: one per object with events there, in id order. */
static void check_piece(const struct vxt_reader *r, const struct vxt_chunk_info *ci, size_t i)
{
	const struct vxt_object *o;
	uint32_t k = 0;
	unsigned f;
	char d;

	ck_assert_msg(ci->nobjagg >= 1 && ci->objagg, "piece %zu: no aggregates", i);
	o = vxt_objtab_get(vxt_reader_objects(r), ci->objagg[0].object);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(sscanf(o->name, "h%u:sd%c", &f, &d), 2);
	ck_assert_uint_lt(f, NFILES);
	for (uint32_t obj = f * 2; obj < f * 2 + 2; obj++) {
		struct vxt_objagg want;

		if (!ref_agg(f, ci->first_event, ci->nevents, obj, &want))
			continue;
		ck_assert_msg(k < ci->nobjagg, "piece %zu: object %u missing", i, obj);
		ck_assert_msg(memcmp(&ci->objagg[k], &want, sizeof(want)) == 0,
			      "piece %zu (h%u, events %llu+%u): object %u's aggregate differs", i,
			      f, (unsigned long long)ci->first_event, ci->nevents, obj);
		k++;
	}
	ck_assert_msg(k == ci->nobjagg, "piece %zu: %u aggregates, %u objects", i,
		      ci->nobjagg, k);
}

START_TEST(pieces_in_any_order)
{
	struct vxt_reader *r = open_all();
	size_t n = vxt_reader_npieces(r), prev = SIZE_MAX;
	const struct vxt_chunk_info *held = NULL;
	struct vxt_chunk_info was = { 0 };
	struct vxt_objagg was_agg[4];

	for (size_t i = 0; i < nrefs; i++)
		byord[refs[i].file][refs[i].ord] = &refs[i].ev;
	/* forwards, backwards, then strides across the files' pages */
	ck_assert_uint_ge(n, NFILES * 100);
	for (size_t step = 0; step < 3 * n; step++) {
		size_t i = step < n ? step : step < 2 * n ? 2 * n - 1 - step :
			   (step - 2 * n) * 131 % n;
		const struct vxt_chunk_info *ci = vxt_reader_piece(r, i);

		ck_assert_ptr_nonnull(ci);
		check_piece(r, ci, i);
		if (held) {	/* the one asked for before is still as it was */
			ck_assert_msg(held->first_event == was.first_event &&
				      held->nevents == was.nevents &&
				      held->first_ns == was.first_ns && held->last_ns == was.last_ns &&
				      held->nobjagg == was.nobjagg &&
				      memcmp(held->objagg, was_agg,
					     was.nobjagg * sizeof(*was_agg)) == 0,
				      "piece %zu changed when piece %zu was asked for", prev, i);
		}
		ck_assert_uint_le(ci->nobjagg, 4);
		held = ci;
		was = *ci;
		memcpy(was_agg, ci->objagg, ci->nobjagg * sizeof(*was_agg));
		prev = i;
	}
	ck_assert_ptr_null(vxt_reader_piece(r, n));
	vxt_reader_close(r);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, in_order);
	tcase_add_test(tc, chunks_backwards_and_scattered);
	tcase_add_test(tc, fewer_fields_then_all);
	tcase_add_test(tc, seek_time_lands);
	tcase_add_test(tc, pieces_add_up);
	tcase_add_test(tc, pieces_in_any_order);
	tcase_add_test(tc, chunk_sizes);
	suite_add_tcase(s, tc);
	return s;
}
