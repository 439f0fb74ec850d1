/* test_vxt.c - the .vxt writer and reader: round trips, seeks, a growing
 * file, truncation at every byte and bit flips in every chunk
 * Over 700 lines: every case writes and damages files through one set of helpers. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "fixture.h"

#define NEV 3000

static struct vxt_event events[NEV];
static char path[64];
static struct vxt_objtab *kept_objs;	/* of a writer left open */
static struct vxt_strtab *kept_strs;

static void make_events(size_t n, uint32_t nobjs)
{
	uint64_t t = 1000000000ull, x = 88172645463325252ull;

	for (size_t i = 0; i < n; i++) {
		struct vxt_event *e = &events[i];

		ut_rand(&x);
		memset(e, 0, sizeof(*e));
		t += x % 200000;
		e->time_ns = t;
		e->object = (uint32_t)(x % nobjs);
		e->phase = (uint8_t)(x % 2);
		e->op = (uint8_t)(x >> 8) % 2;
		e->sector = x % 1000000;
		e->bytes = 4096;
		e->latency_ns = e->phase ? x % 1000000 : 0;
		e->error = e->phase && x % 97 == 0 ? -5 : 0;
		e->pid = 100 + (uint32_t)(x % 3);
		e->comm = (uint32_t)(x % 3);
		if (i % 1000 == 999) {
			e->phase = VXT_PH_LOST;
			e->sector = 7;
		}
	}
}

/* Write @ev[0..n) in chunks of @chunk_events; @return the file size. */
static size_t write_events(const struct vxt_event *ev, size_t n, size_t chunk_events,
			   bool close_it, struct vxt_writer **keep)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { .chunk_bytes = chunk_events * sizeof(struct vxt_event),
				     .force = true, .host = "testhost", .source = "test" };
	struct vxt_writer *w;
	struct stat st;

	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 1 << 30);
	vxt_strtab_intern(strs, "fio", 3);
	vxt_strtab_intern(strs, "dd", 2);
	w = vxt_writer_open(path, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	/* objects that appear after the header travel in chunk entries */
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VOLIOT_MKDEV(253, 0), "dm-0", VXT_OBJ_DM, 0);
	ck_assert_int_eq(vxt_writer_write(w, ev, n), 0);
	if (close_it) {
		ck_assert_int_eq(vxt_writer_close(w, err), 0);
		vxt_objtab_free(objs);
		vxt_strtab_free(strs);
	} else {
		*keep = w;
		kept_objs = objs;
		kept_strs = strs;
	}
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	return (size_t)st.st_size;
}

/* Write events[0..n) with small chunks; @return the file size. */
static size_t write_file(size_t n, size_t chunk_events, bool close_it, struct vxt_writer **keep)
{
	return write_events(events, n, chunk_events, close_it, keep);
}

static uint8_t *slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	struct stat st;

	ck_assert_ptr_nonnull(f);
	fstat(fileno(f), &st);
	buf = malloc((size_t)st.st_size + 1);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

/* Read all events; check they are the first ones written. @return the count. */
static uint64_t check_prefix(struct vxt_reader *r)
{
	const struct vxt_event *ev;
	uint64_t n = 0;
	int rc;

	while ((rc = vxt_reader_next(r, &ev)) == 1) {
		ck_assert_uint_lt(n, NEV);
		ck_assert_int_eq(memcmp(ev, &events[n], sizeof(*ev)), 0);
		n++;
	}
	ck_assert_int_eq(rc, 0);
	return n;
}

/* Writes NEV events in chunks of @chunk events, closed, and opens the
 * file. @return the reader (caller closes). */
static struct vxt_reader *write_and_open(size_t chunk)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;

	write_file(NEV, chunk, true, NULL);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	return r;
}

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/vxt-unit-%d.vxt", (int)getpid());
	make_events(NEV, 3);
}

static void teardown(void)
{
	unlink(path);
}

START_TEST(roundtrip)
{
	struct vxt_reader *r;
	const struct vxt_event *ev;
	uint64_t errors = 0, lost = 0;

	r = write_and_open(256);
	ck_assert(!vxt_reader_recovered(r));
	ck_assert_uint_eq(vxt_reader_nevents(r), NEV);
	ck_assert_uint_eq(vxt_reader_nchunks(r), (NEV + 255) / 256);
	ck_assert_uint_eq(vxt_objtab_count(vxt_reader_objects(r)), 3);
	ck_assert_str_eq(vxt_objtab_get(vxt_reader_objects(r), 2)->name, "dm-0");
	ck_assert_uint_eq(vxt_objtab_get(vxt_reader_objects(r), 2)->dev, VOLIOT_MKDEV(253, 0));
	ck_assert_str_eq(vxt_strtab_get(vxt_reader_strings(r), 2), "dd");
	ck_assert_str_eq(vxt_reader_info(r)->host, "testhost");
	ck_assert_uint_eq(check_prefix(r), NEV);
	/* backwards from the end gives the same events reversed */
	for (uint64_t i = NEV; i-- > 0;) {
		ck_assert_int_eq(vxt_reader_prev(r, &ev), 1);
		ck_assert_int_eq(memcmp(ev, &events[i], sizeof(*ev)), 0);
	}
	ck_assert_int_eq(vxt_reader_prev(r, &ev), 0);
	/* index aggregates agree with the events */
	for (size_t i = 0; i < vxt_reader_nchunks(r); i++) {
		errors += vxt_reader_chunk(r, i)->nerrors;
		lost += vxt_reader_chunk(r, i)->nlost;
	}
	for (size_t i = 0; i < NEV; i++) {
		errors -= events[i].error != 0 && events[i].phase == VXT_PH_DONE;
		lost -= events[i].phase == VXT_PH_LOST ? events[i].sector : 0;
	}
	ck_assert_uint_eq(errors, 0);
	ck_assert_uint_eq(lost, 0);
	ck_assert_int_eq(vxt_reader_verify(r, &(uint64_t){ 0 }), 0);
	vxt_reader_close(r);
}
END_TEST

/* A reader asked for a few fields decodes those (others read 0) and goes
 * back to every field when asked, whichever way it walks. */
static void check_fields(struct vxt_reader *r, const struct vxt_event *ev, size_t i, bool all)
{
	const struct vxt_event *e = &events[i];

	ck_assert_uint_eq(ev->time_ns, e->time_ns);
	ck_assert_uint_eq(ev->phase, e->phase);
	ck_assert_uint_eq(ev->op, e->op);
	ck_assert_uint_eq(ev->object, e->object);
	ck_assert_uint_eq(ev->bytes, e->bytes);
	if (all) {
		ck_assert_int_eq(memcmp(ev, e, sizeof(*ev)), 0);
		return;
	}
	ck_assert_uint_eq(ev->latency_ns, 0);
	ck_assert_int_eq(ev->error, 0);
	ck_assert_uint_eq(ev->pid, 0);
	ck_assert_uint_eq(ev->comm, 0);
	/* a lost event's count is kept; other sectors only where a chunk has one */
	if (e->phase == VXT_PH_LOST)
		ck_assert_uint_eq(ev->sector, e->sector);
	else
		ck_assert(ev->sector == 0 || ev->sector == e->sector);
	(void)r;
}

START_TEST(field_selection)
{
	struct vxt_reader *r;
	const struct vxt_event *ev;
	size_t i = 0, zero_sectors = 0;

	r = write_and_open(256);
	ck_assert_uint_ne(vxt_reader_info(r)->incompat & VXT_INCOMPAT_COLUMN_FRAMES, 0);
	vxt_reader_set_fields(r, VXT_FIELD_BYTES | VXT_FIELD_LOST_COUNT);
	while (vxt_reader_next(r, &ev) == 1) {
		check_fields(r, ev, i, false);
		zero_sectors += ev->sector == 0 && events[i].sector != 0;
		i++;
	}
	ck_assert_uint_eq(i, NEV);
	ck_assert_uint_gt(zero_sectors, 0);	/* chunks without lost events skip sectors */
	vxt_reader_set_fields(r, VXT_FIELD_ALL);
	while (vxt_reader_prev(r, &ev) == 1)
		check_fields(r, ev, --i, true);
	vxt_reader_set_fields(r, VXT_FIELD_BYTES | VXT_FIELD_LOST_COUNT);
	while (vxt_reader_next(r, &ev) == 1)
		check_fields(r, ev, i++, false);
	/* verify checks every column whatever was asked, and leaves the
	 * reader decoding what it was asked for */
	ck_assert_int_eq(vxt_reader_verify(r, &(uint64_t){ 0 }), 0);
	ck_assert_int_eq(vxt_reader_seek_ordinal(r, 1), 0);
	ck_assert_int_eq(vxt_reader_next(r, &ev), 1);
	check_fields(r, ev, 1, false);
	vxt_reader_close(r);
}
END_TEST

/* The latency of @ev (event @i) read with VXT_FIELD_REMAP_FROM, worked out
 * from the events written: the value written in a chunk holding a remap,
 * 0 in the others. */
static void check_remap_latency(struct vxt_reader *r, const struct vxt_event *ev, size_t i)
{
	const struct vxt_chunk_info *ci = vxt_reader_chunk(r, vxt_reader_chunk_of(r, i));
	bool remap = false;

	for (uint64_t k = ci->first_event; k < ci->first_event + ci->nevents; k++)
		remap |= events[k].phase == VXT_PH_REMAP;
	ck_assert_uint_eq(ev->latency_ns, remap ? events[i].latency_ns : 0);
	ck_assert_uint_eq(ev->bytes, events[i].bytes);
	ck_assert_uint_eq(ev->pid, 0);		/* not asked for */
}

/* VXT_FIELD_REMAP_FROM: every remap's source reads right, by the reader
 * and by the scanner with and without helpers, and chunks without remaps
 * skip the latencies. */
START_TEST(remap_sources_only)
{
	struct vxt_reader *r;
	struct vxt_scan *sc;
	const struct vxt_event *ev;
	size_t i = 0, remaps = 0, zeroed = 0, chunk, n;

	for (i = 1000; i < 1700; i += 7) {	/* remaps in a few chunks only */
		events[i].phase = VXT_PH_REMAP;
		events[i].remap_from = vxt_remap_from_pack(1, events[i].sector + i);
	}
	for (i = 150; i < NEV; i += 601) {	/* alone in their chunks, and the last */
		size_t k = i < 2000 ? i : NEV - 1;

		events[k].phase = VXT_PH_REMAP;
		events[k].remap_from = vxt_remap_from_pack(2, k);
	}
	r = write_and_open(256);
	vxt_reader_set_fields(r, VXT_FIELD_BYTES | VXT_FIELD_REMAP_FROM);
	for (i = 0; vxt_reader_next(r, &ev) == 1; i++) {
		check_remap_latency(r, ev, i);
		remaps += ev->phase == VXT_PH_REMAP;
		zeroed += !ev->latency_ns && events[i].latency_ns;
	}
	ck_assert_uint_eq(i, NEV);
	ck_assert_uint_eq(remaps, 105);
	ck_assert_uint_gt(zeroed, 200);
	for (unsigned threads = 0; threads <= 2; threads += 2) {
		sc = vxt_scan_start(r, 0, VXT_FIELD_BYTES | VXT_FIELD_REMAP_FROM, threads);
		ck_assert_ptr_nonnull(sc);
		for (i = 0; vxt_scan_next(sc, &chunk, &ev, &n) == 1; i += n)
			for (size_t k = 0; k < n; k++)
				check_remap_latency(r, &ev[k], i + k);
		ck_assert_uint_eq(i, NEV);
		vxt_scan_stop(sc);
	}
	vxt_reader_close(r);
}
END_TEST

/* Nice of each thread of this process but the caller's, from
 * /proc/self/task/TID/stat (field 19, after the command's closing paren);
 * @return how many were read into @nice. */
static size_t other_threads_nice(int *nice, size_t max)
{
	pid_t me = gettid();
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < max) {
		char stat_path[300], buf[512], *p;
		FILE *f;
		size_t len;
		int field;

		if (de->d_name[0] == '.' || atoi(de->d_name) == me)
			continue;
		snprintf(stat_path, sizeof(stat_path), "/proc/self/task/%s/stat", de->d_name);
		if (!(f = fopen(stat_path, "r")))
			continue;	/* the thread ended */
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		p = strrchr(buf, ')');
		ck_assert_ptr_nonnull(p);
		/* ") S ppid ..." : field 3 is the state; nice is field 19 */
		for (field = 2; field < 19 && p; field++)
			p = strchr(p + 1, ' ');
		ck_assert_ptr_nonnull(p);
		nice[n++] = atoi(p + 1);
	}
	closedir(d);
	return n;
}

/* Helpers run at nice 5 above the caller (so it keeps a CPU whenever it
 * has a chunk), and the chunks still all come, in order, while the caller
 * dwells on each. */
#define BIG_CHUNK 40000
#define BIG_NEV (6 * BIG_CHUNK)
START_TEST(scanner_helpers_yield_to_the_caller)
{
	unsigned threads = 2;
	struct timespec dwell = { 0, 2 * 1000 * 1000 };
	struct vxt_event *big = calloc(BIG_NEV, sizeof(*big));
	char err[VXT_ERRBUF_SIZE];
	const struct vxt_event *ev;
	struct vxt_reader *r;
	struct vxt_scan *sc;
	size_t chunk, n, seen = 0, nthr;
	int rc, mine, nice[8];

	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < BIG_NEV; i++) {
		big[i] = events[i % NEV];
		big[i].time_ns = 1000000000ull + i * 1000;
		big[i].phase = big[i].phase == VXT_PH_LOST ? VXT_PH_START : big[i].phase;
	}
	write_events(big, BIG_NEV, BIG_CHUNK, true, NULL);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_ge(vxt_reader_nchunks(r), threads);
	errno = 0;
	mine = getpriority(PRIO_PROCESS, (id_t)gettid());
	ck_assert_int_eq(errno, 0);
	sc = vxt_scan_start(r, 0, VXT_FIELD_ALL, threads);
	ck_assert_ptr_nonnull(sc);
	/* every helper has started and lowered itself by now */
	nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	nthr = other_threads_nice(nice, 8);
	ck_assert_uint_eq(nthr, threads);
	for (size_t k = 0; k < nthr; k++)
		ck_assert_int_eq(nice[k], mine + 5 < 19 ? mine + 5 : 19);
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)gettid()), mine);
	for (size_t want = 0; (rc = vxt_scan_next(sc, &chunk, &ev, &n)) == 1; want++) {
		ck_assert_uint_eq(chunk, want);
		ck_assert_int_eq(memcmp(ev, &big[seen], n * sizeof(*ev)), 0);
		seen += n;
		nanosleep(&dwell, NULL);
	}
	ck_assert_msg(rc == 0, "%d: %s", rc, vxt_scan_error(sc));
	ck_assert_uint_eq(seen, BIG_NEV);
	vxt_scan_stop(sc);
	vxt_reader_close(r);
	free(big);
}
END_TEST

/* The scanner gives every chunk in order, the same with or without helper
 * threads, stops cleanly part way, and reports damage after the chunks
 * before it. */
START_TEST(scanner)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r;
	struct vxt_scan *sc;
	const struct vxt_event *ev;
	size_t chunk, n, seen;
	uint8_t *buf;
	size_t len;

	r = write_and_open(100);
	for (unsigned threads = 0; threads <= 3; threads++) {
		sc = vxt_scan_start(r, 2, VXT_FIELD_ALL, threads);
		ck_assert_ptr_nonnull(sc);
		seen = 200;
		for (size_t want = 2; vxt_scan_next(sc, &chunk, &ev, &n) == 1; want++) {
			ck_assert_uint_eq(chunk, want);
			ck_assert_int_eq(memcmp(ev, &events[seen], n * sizeof(*ev)), 0);
			seen += n;
		}
		ck_assert_uint_eq(seen, NEV);
		ck_assert_int_eq(vxt_scan_next(sc, &chunk, &ev, &n), 0);
		vxt_scan_stop(sc);
		/* stopped after one chunk, with helpers busy ahead */
		sc = vxt_scan_start(r, 0, VXT_FIELD_BYTES, threads);
		ck_assert_int_eq(vxt_scan_next(sc, &chunk, &ev, &n), 1);
		ck_assert_uint_eq(ev[5].pid, 0);	/* not asked for */
		ck_assert_uint_eq(ev[5].bytes, events[5].bytes);
		vxt_scan_stop(sc);
	}
	vxt_reader_close(r);

	/* a flipped bit in chunk 7's data: chunks 0-6 come, then the damage,
	 * then the chunks after it */
	buf = slurp(&len);
	r = vxt_reader_open_mem(buf, len, "mem", err);
	ck_assert_ptr_nonnull(r);
	{
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, 7);

		buf[ci->data_offset + ci->data_size / 2] ^= 0x10;
	}
	for (unsigned threads = 0; threads <= 2; threads += 2) {
		int rc;

		sc = vxt_scan_start(r, 0, VXT_FIELD_ALL, threads);
		seen = 0;
		while ((rc = vxt_scan_next(sc, &chunk, &ev, &n)) == 1)
			seen += n;
		ck_assert_int_eq(rc, -EBADMSG);
		ck_assert_uint_eq(seen, 700);
		ck_assert_msg(strstr(vxt_scan_error(sc), "chunk 7: corrupt data (CRC)") != NULL,
			      "%s", vxt_scan_error(sc));
		ck_assert_uint_eq(chunk, 7);
		while ((rc = vxt_scan_next(sc, &chunk, &ev, &n)) == 1) {
			ck_assert_int_eq(memcmp(ev, &events[vxt_reader_chunk(r, chunk)->first_event],
						n * sizeof(*ev)), 0);
			seen += n;
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_eq(seen, NEV - vxt_reader_chunk(r, 7)->nevents);
		vxt_scan_stop(sc);
	}
	vxt_reader_close(r);
	free(buf);
}
END_TEST

START_TEST(seek_against_scan)
{
	struct vxt_reader *r;
	const struct vxt_event *ev;

	r = write_and_open(100);
	for (size_t k = 0; k < NEV; k += 37) {
		uint64_t t = events[k].time_ns - 1, want = 0;

		while (want < NEV && events[want].time_ns < t)
			want++;
		ck_assert_int_eq(vxt_reader_seek_time(r, t), 0);
		ck_assert_uint_eq(vxt_reader_tell(r), want);
		ck_assert_int_eq(vxt_reader_seek_ordinal(r, k), 0);
		ck_assert_int_eq(vxt_reader_next(r, &ev), 1);
		ck_assert_int_eq(memcmp(ev, &events[k], sizeof(*ev)), 0);
	}
	ck_assert_int_eq(vxt_reader_seek_time(r, UINT64_MAX), 0);
	ck_assert_uint_eq(vxt_reader_tell(r), NEV);
	vxt_reader_close(r);
}
END_TEST

START_TEST(growing_file)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	struct vxt_reader *r;

	write_file(1000, 100, false, &w);	/* 9 chunks closed, 100 events pending */
	ck_assert_int_eq(vxt_writer_flush(w), 0);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(vxt_reader_recovered(r));
	ck_assert_uint_eq(vxt_reader_nevents(r), 1000);
	ck_assert_int_eq(vxt_writer_write(w, events + 1000, 550), 0);
	ck_assert_int_eq(vxt_reader_refresh(r), 5);
	ck_assert_uint_eq(vxt_reader_nevents(r), 1500);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(kept_objs);
	vxt_strtab_free(kept_strs);
	ck_assert_int_eq(vxt_reader_refresh(r), 1);
	ck_assert_uint_eq(vxt_reader_nevents(r), 1550);
	ck_assert_int_lt(vxt_reader_damage(r, NULL), 0);
	ck_assert_uint_eq(check_prefix(r), 1550);
	vxt_reader_close(r);
}
END_TEST

START_TEST(truncation_at_every_byte)
{
	size_t len, header_len = 0;
	uint8_t *buf;
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *full;
	size_t nchunks;

	write_file(240, 40, true, NULL);
	buf = slurp(&len);
	full = vxt_reader_open(path, err);
	ck_assert_ptr_nonnull(full);
	nchunks = vxt_reader_nchunks(full);
	header_len = vxt_reader_chunk(full, 0)->offset;
	for (size_t cut = 0; cut < len; cut++) {
		struct vxt_reader *r = vxt_reader_open_mem(buf, cut, "cut", err);
		uint64_t whole = 0;

		if (cut < header_len) {
			ck_assert_ptr_null(r);
			ck_assert(strstr(err, "cut: ") == err);
			continue;
		}
		ck_assert_msg(r != NULL, "cut at %zu: %s", cut, err);
		/* exactly the chunks that fit whole before the cut */
		for (size_t i = 0; i < nchunks; i++) {
			const struct vxt_chunk_info *c = vxt_reader_chunk(full, i);

			if (c->data_offset + c->data_size <= cut)
				whole += c->nevents;
		}
		ck_assert_uint_eq(vxt_reader_nevents(r), whole);
		ck_assert_uint_eq(check_prefix(r), whole);
		vxt_reader_close(r);
	}
	vxt_reader_close(full);
	free(buf);
}
END_TEST

START_TEST(bit_flip_in_each_chunk)
{
	size_t len;
	uint8_t *buf;
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *full;

	write_file(600, 100, true, NULL);
	buf = slurp(&len);
	full = vxt_reader_open(path, err);
	ck_assert_ptr_nonnull(full);
	for (size_t i = 0; i < vxt_reader_nchunks(full); i++) {
		const struct vxt_chunk_info *c = vxt_reader_chunk(full, i);
		uint64_t where[2] = { c->data_offset + c->data_size / 2, c->offset + 20 };

		for (int k = 0; k < 2; k++) {
			struct vxt_reader *r;
			uint64_t bad = 0;

			buf[where[k]] ^= 0x10;
			r = vxt_reader_open_mem(buf, len, "flip", err);
			ck_assert_msg(r != NULL, "%s", err);
			ck_assert_int_eq(vxt_reader_verify(r, &bad), -EBADMSG);
			ck_assert_uint_eq(bad, k == 0 ? c->data_offset : c->offset);
			/* the chunks before the damage still read */
			if (k == 0) {
				const struct vxt_event *ev;

				vxt_reader_seek_ordinal(r, 0);
				for (uint64_t n = 0; n < c->first_event; n++)
					ck_assert_int_eq(vxt_reader_next(r, &ev), 1);
				ck_assert_int_eq(vxt_reader_next(r, &ev), -EBADMSG);
				ck_assert_ptr_nonnull(strstr(vxt_reader_error(r), "CRC"));
			}
			vxt_reader_close(r);
			buf[where[k]] ^= 0x10;
		}
	}
	vxt_reader_close(full);
	free(buf);
}
END_TEST

/* A flipped bit anywhere in the footer's copies of the chunk entries
 * (their own CRCs not checked: the footer's covers them) sets the footer
 * aside: the index comes from a scan of the entries in the file, whole. */
START_TEST(bit_flip_in_footer_entries)
{
	size_t len;
	uint8_t *buf;
	char err[VXT_ERRBUF_SIZE];
	uint64_t foff;
	uint32_t flen;
	size_t flips = 0, step;

	write_file(NEV, 500, true, NULL);
	buf = slurp(&len);
	foff = (uint64_t)buf[len - 16] | (uint64_t)buf[len - 15] << 8 |
	       (uint64_t)buf[len - 14] << 16 | (uint64_t)buf[len - 13] << 24;
	flen = (uint32_t)buf[len - 8] | (uint32_t)buf[len - 7] << 8 |
	       (uint32_t)buf[len - 6] << 16 | (uint32_t)buf[len - 5] << 24;
	ck_assert_uint_eq(foff + flen, len - 24);
	step = flen / 120 | 1;	/* about 120 places, all through */
	/* past the unit header, the tag, nchunks and nevents; before the CRC */
	for (uint64_t at = foff + 8 + 16; at < foff + flen - 4; at += step) {
		struct vxt_reader *r;

		buf[at] ^= 0x04;
		r = vxt_reader_open_mem(buf, len, "flip", err);
		ck_assert_msg(r != NULL, "%s", err);
		ck_assert_msg(vxt_reader_recovered(r), "flip at %llu taken", (unsigned long long)at);
		ck_assert_uint_eq(vxt_reader_nevents(r), NEV);
		ck_assert_uint_eq(vxt_reader_nchunks(r), NEV / 500);
		if (flips % 10 == 0)
			ck_assert_uint_eq(check_prefix(r), NEV);
		vxt_reader_close(r);
		buf[at] ^= 0x04;
		flips++;
	}
	ck_assert_uint_gt(flips, 100);
	free(buf);
}
END_TEST

/* A chunk's per-object aggregates (read from the file when asked, a page
 * of chunks at a time, older pages dropped) equal the sums of its events,
 * whichever order the chunks are asked in, from the footer or from a
 * recovery scan, with two entries held at once. */
#define AGG_ROUNDS 5	/* NEV events written five times, 2 a chunk: 7500 chunks */

static void check_chunk_aggs(struct vxt_reader *r, size_t i)
{
	const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);
	uint64_t ios[3] = { 0 }, starts[3] = { 0 }, lat[3] = { 0 }, n = 0;

	for (uint64_t k = ci->first_event; k < ci->first_event + ci->nevents; k++) {
		const struct vxt_event *e = &events[k % NEV];

		if (e->phase == VXT_PH_DONE) {
			ios[e->object]++;
			lat[e->object] += e->latency_ns;
		} else if (e->phase == VXT_PH_START) {
			starts[e->object]++;
		}
	}
	for (uint32_t o = 0; o < 3; o++)
		n += ios[o] || starts[o];
	ck_assert_uint_eq(ci->nobjagg, n);
	ck_assert_ptr_nonnull(ci->objagg);
	for (uint32_t k = 0; k < ci->nobjagg; k++) {
		const struct vxt_objagg *a = &ci->objagg[k];

		ck_assert_uint_lt(a->object, 3);
		ck_assert_uint_eq(a->ios[VXT_OP_READ] + a->ios[VXT_OP_WRITE], ios[a->object]);
		ck_assert_uint_eq(a->starts, starts[a->object]);
		ck_assert_uint_eq(a->lat_sum_ns, lat[a->object]);
	}
}

static void check_all_aggs(struct vxt_reader *r)
{
	size_t n = vxt_reader_nchunks(r);

	ck_assert_uint_eq(n, AGG_ROUNDS * NEV / 2);
	for (size_t i = 0; i < n; i++)
		check_chunk_aggs(r, i);
	for (size_t i = n; i-- > 0;)
		check_chunk_aggs(r, i);
	for (size_t k = 0; k < n; k++) {
		size_t i = (k * 7919) % n, j = (i + n / 2) % n;
		const struct vxt_chunk_info *a = vxt_reader_chunk(r, i);
		const struct vxt_chunk_info *b = vxt_reader_chunk(r, j);

		/* the first still holds its aggregates after the second was read */
		ck_assert_ptr_nonnull(a->objagg);
		ck_assert_ptr_nonnull(b->objagg);
		ck_assert_uint_lt(a->objagg[a->nobjagg - 1].object, 3);
		check_chunk_aggs(r, i);
	}
}

START_TEST(aggregates_when_asked)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { .chunk_bytes = 2 * sizeof(struct vxt_event), .force = true,
				     .host = "testhost", .source = "test" };
	struct vxt_writer *w;
	struct vxt_reader *r;
	struct stat st;

	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 1 << 30);
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 16), "sdb", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 32), "sdc", VXT_OBJ_DISK, 0);
	w = vxt_writer_open(path, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	for (int k = 0; k < AGG_ROUNDS; k++) {
		ck_assert_int_eq(vxt_writer_write(w, events, NEV), 0);
		for (size_t i = 0; i < NEV; i++)	/* the next round later in time */
			events[i].time_ns += 1000000000000ull;
	}
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	/* from the footer */
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(!vxt_reader_recovered(r));
	check_all_aggs(r);
	vxt_reader_close(r);
	/* from the chunk entries, by a recovery scan (no sound trailer) */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(vxt_reader_recovered(r));
	check_all_aggs(r);
	vxt_reader_close(r);
}
END_TEST

/* Chunks with no per-object aggregates (only lost records in them) among
 * chunks with: each chunk's aggregates are its own events', counted here. */
START_TEST(aggregates_beside_chunks_without)
{
	enum { CHUNKS = 1200 };
	static struct vxt_event evs[2 * CHUNKS];
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { .chunk_bytes = 2 * sizeof(struct vxt_event), .force = true,
				     .host = "testhost", .source = "test" };
	struct vxt_writer *w;
	struct vxt_reader *r;

	for (size_t k = 0; k < 2 * CHUNKS; k++) {
		size_t c = k / 2;

		evs[k] = events[k];
		evs[k].object = 0;
		/* completions in the first chunk, one past the index's first page
		 * and every 350th; only lost records in the others */
		evs[k].phase = c == 0 || c == 601 || c % 350 == 0 ? VXT_PH_DONE : VXT_PH_LOST;
	}
	vxt_objtab_add(objs, VOLIOT_MKDEV(8, 0), "sda", VXT_OBJ_DISK, 1 << 30);
	w = vxt_writer_open(path, &o, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, 2 * CHUNKS), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	r = vxt_reader_open(path, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(vxt_reader_nchunks(r), CHUNKS);
	for (size_t i = CHUNKS; i-- > 0;) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);
		uint64_t done = 0;

		for (uint64_t k = ci->first_event; k < ci->first_event + ci->nevents; k++)
			done += evs[k].phase == VXT_PH_DONE;
		ck_assert_uint_eq(ci->nobjagg, done ? 1 : 0);
		if (!done)
			continue;
		ck_assert_ptr_nonnull(ci->objagg);
		ck_assert_uint_eq(ci->objagg[0].ios[VXT_OP_READ] + ci->objagg[0].ios[VXT_OP_WRITE], done);
	}
	vxt_reader_close(r);
}
END_TEST

START_TEST(not_a_vxt_file)
{
	char err[VXT_ERRBUF_SIZE];
	static const char junk[] = "hello, this is not a trace file at all........";

	ck_assert_ptr_null(vxt_reader_open_mem(junk, sizeof(junk), "junk.txt", err));
	ck_assert_str_eq(err, "junk.txt: not a .vxt file (no header at offset 0)");
	ck_assert_ptr_null(vxt_reader_open("/nonexistent/x.vxt", err));
	ck_assert_str_eq(err, "/nonexistent/x.vxt: No such file or directory");
}
END_TEST

START_TEST(refuses_to_overwrite)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts o = { 0 };

	write_file(10, 100, true, NULL);
	ck_assert_ptr_null(vxt_writer_open(path, &o, objs, strs, err));
	ck_assert_ptr_nonnull(strstr(err, "file exists"));
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}
END_TEST

Suite *vxt_suite(void)
{
	Suite *s = suite_create("vxt");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, roundtrip);
	tcase_add_test(tc, field_selection);
	tcase_add_test(tc, remap_sources_only);
	tcase_add_test(tc, scanner);
	tcase_add_test(tc, scanner_helpers_yield_to_the_caller);
	tcase_add_test(tc, seek_against_scan);
	tcase_add_test(tc, growing_file);
	tcase_add_test(tc, truncation_at_every_byte);
	tcase_add_test(tc, bit_flip_in_each_chunk);
	tcase_add_test(tc, bit_flip_in_footer_entries);
	tcase_add_test(tc, aggregates_when_asked);
	tcase_add_test(tc, aggregates_beside_chunks_without);
	tcase_add_test(tc, not_a_vxt_file);
	tcase_add_test(tc, refuses_to_overwrite);
	suite_add_tcase(s, tc);
	return s;
}
