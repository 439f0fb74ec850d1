/* fuzz_reader.c - libFuzzer target for the .vxt reader
 *
 * The input is a whole .vxt file. It is opened from memory (header, footer
 * index, or the recovery scan when the footer is missing or bad), every event
 * is read forward and a few backward, the reader seeks by time and ordinal,
 * decodes each chunk whole, reads again with a few fields and through the
 * scanner, and verifies the file. The same bytes are then
 * fed to a file in two steps (a prefix, open, the rest, refresh) to drive the
 * scan that follows a growing file.
 * Every unit carries a CRC-32C, so most mutations would only test the CRC
 * check: for two inputs in three (by size) the target first recomputes every
 * CRC the mutated bytes broke (units, chunk data, the footer's copies), so the
 * parsers behind the CRCs get fuzzed too.
 * Invariants checked beyond "no crash": iteration yields exactly nevents
 * events unless it reports damage, chunk ordinals are contiguous, and the
 * growing-file reader never indexes more events than the whole-file scan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/vxtfile.h"
#include "vxtrace/util.h"
#include "vxtrace/vxt.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Fix the chunk entry at @e (@elen bytes, frame header included) so its data
 * CRC matches the @dsize bytes at @d (when they are there) and its own CRC
 * matches its content. */
static void fix_entry(uint8_t *e, size_t elen, const uint8_t *d, size_t avail)
{
	uint32_t dsize;

	if (elen < 8 + 60)
		return;
	dsize = vxt_le32(e + 8 + 48);
	if (d && dsize <= avail)
		put32(e + 8 + 52, vxt_crc32c(0, d, dsize));
	put32(e + elen - 4, vxt_crc32c(0, e + 8, elen - 12));
}

static void fix_footer(uint8_t *buf, size_t size, uint8_t *u, size_t ulen)
{
	uint8_t *p = u + 8 + 16, *end = u + ulen - 4;

	while (end - p >= 12) {
		uint64_t off = vxt_le64(p);
		uint32_t elen = vxt_le32(p + 8);
		uint64_t doff;

		p += 12;
		if (elen > (size_t)(end - p))
			break;
		doff = off + elen;
		if (off < size && doff <= size)
			fix_entry(p, elen, buf + doff, size - doff);
		else
			fix_entry(p, elen, NULL, 0);
		p += elen;
	}
}

/* Recompute the CRCs of every unit reachable by a forward walk. */
static void fix_crcs(uint8_t *buf, size_t size)
{
	size_t off = 0;

	while (size - off >= 8) {
		uint32_t magic = vxt_le32(buf + off), len = vxt_le32(buf + off + 4);
		size_t end;

		if ((magic & ~0xFu) != VXT_SKIP_MAGIC || len < 4 || len > size - off - 8)
			return;
		end = off + 8 + len;
		switch (magic & 0xF) {
		case VXT_UNIT_CHUNK:
			fix_entry(buf + off, 8 + len, buf + end, size - end);
			if (len >= 60 && vxt_le32(buf + off + 8 + 48) <= size - end)
				end += vxt_le32(buf + off + 8 + 48);
			break;
		case VXT_UNIT_FOOTER:
			if (len >= 20)
				fix_footer(buf, size, buf + off, 8 + len);
			/* fall through */
		case VXT_UNIT_HEADER:
			put32(buf + off + 8 + len - 4, vxt_crc32c(0, buf + off + 8, len - 4));
			break;
		}
		off = end;
	}
}

/* Walk everything the reader offers. */
static void exercise(struct vxt_reader *r)
{
	const struct vxt_event *ev;
	uint64_t n = vxt_reader_nevents(r), seen = 0, next_first = 0, bad;
	size_t nchunks = vxt_reader_nchunks(r);
	const char *why;
	int rc;

	vxt_reader_info(r);
	check(vxt_reader_objects(r) && vxt_reader_strings(r));
	for (size_t i = 0; i < nchunks; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);

		check(ci && ci->first_event == next_first && ci->nevents > 0);
		check(ci->first_ns <= ci->last_ns);
		next_first += ci->nevents;
	}
	check(next_first == n && !vxt_reader_chunk(r, nchunks));
	while ((rc = vxt_reader_next(r, &ev)) == 1) {
		check(ev->object < vxt_objtab_count(vxt_reader_objects(r)) ||
		      ev->phase == VXT_PH_LOST);
		vxt_reader_to_real(r, ev->time_ns);
		seen++;
	}
	check(rc < 0 || seen == n);
	check(rc < 0 || vxt_reader_tell(r) == n);
	for (int k = 0; k < 3 && vxt_reader_prev(r, &ev) == 1; k++)
		;
	vxt_reader_seek_ordinal(r, n / 2);
	vxt_reader_next(r, &ev);
	vxt_reader_seek_ordinal(r, UINT64_MAX);
	check(vxt_reader_tell(r) == n);
	if (nchunks) {
		const struct vxt_chunk_info *last = vxt_reader_chunk(r, nchunks - 1);

		vxt_reader_seek_time(r, vxt_reader_chunk(r, 0)->first_ns);
		vxt_reader_seek_time(r, last->last_ns);
		vxt_reader_seek_time(r, (vxt_reader_chunk(r, 0)->first_ns >> 1) +
				     (last->last_ns >> 1));
	}
	vxt_reader_seek_time(r, UINT64_MAX);
	for (size_t i = 0; i < nchunks; i++) {
		size_t m = 0;
		const struct vxt_event *e = vxt_reader_chunk_events(r, i, &m);

		check(!e || m == vxt_reader_chunk(r, i)->nevents);
	}
	vxt_reader_chunk_events(r, nchunks, &(size_t){ 0 });
	/* a few fields only, then the scanner in the calling thread: both walk
	 * the same chunks the full decode did */
	vxt_reader_set_fields(r, VXT_FIELD_BYTES | VXT_FIELD_LOST_COUNT);
	vxt_reader_seek_ordinal(r, 0);
	for (seen = 0; (rc = vxt_reader_next(r, &ev)) == 1; seen++)
		;
	check(rc < 0 || seen == n);
	vxt_reader_set_fields(r, VXT_FIELD_ALL);
	{
		struct vxt_scan *s = vxt_scan_start(r, 0, VXT_FIELD_LATENCY, 0);
		size_t chunk, m;

		if (s) {
			for (seen = 0; (rc = vxt_scan_next(s, &chunk, &ev, &m)) == 1; seen += m)
				check(m == vxt_reader_chunk(r, chunk)->nevents);
			check(rc < 0 || seen == n);
			vxt_scan_stop(s);
		}
	}
	vxt_reader_verify(r, &bad);
	vxt_reader_damage(r, &why);
	vxt_reader_recovered(r);
	vxt_reader_error(r);
}

/* Open a prefix of the file through a memfd, append the rest, refresh. */
static void grow(const uint8_t *data, size_t size, uint64_t whole_events, int whole_footer)
{
	char path[64], err[VXT_ERRBUF_SIZE];
	size_t cut = size ? (data[size - 1] * 257u + data[size / 2]) % size : 0;
	struct vxt_reader *r;
	int fd = memfd_create("vxt", MFD_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, cut) != (ssize_t)cut)
		goto out;
	r = vxt_reader_open(path, err);
	if (write(fd, data + cut, size - cut) != (ssize_t)(size - cut)) {
		vxt_reader_close(r);
		goto out;
	}
	if (r) {
		vxt_reader_refresh(r);
		vxt_reader_refresh(r);
		/* a file read while it grew never shows more than the finished file;
		 * when the finished file has a footer the growing reader may stop
		 * short of it, never past it */
		check(whole_footer || vxt_reader_nevents(r) <= whole_events ||
		      !vxt_reader_recovered(r));
		exercise(r);
		vxt_reader_close(r);
	}
out:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	char err[VXT_ERRBUF_SIZE];
	uint8_t *data = malloc(size ? size : 1);
	struct vxt_reader *r;
	uint64_t whole_events = 0;
	int whole_footer = 1;

	if (!data)
		return 0;
	memcpy(data, in, size);
	if (size % 3)
		fix_crcs(data, size);
	r = vxt_reader_open_mem(data, size, "fuzz", err);

	if (r) {
		whole_events = vxt_reader_nevents(r);
		whole_footer = !vxt_reader_recovered(r);
		check(vxt_reader_refresh(r) == 0);
		exercise(r);
		vxt_reader_close(r);
	} else {
		check(err[0] != '\0');
	}
	grow(data, size, whole_events, whole_footer);
	free(data);
	return 0;
}
