/* vxt.h - writing and reading .vxt trace files
 *
 * A .vxt file is a sequence of zstd frames and zstd skippable frames (so
 * `zstd -d` reads it): a header, then for each chunk of events an index entry
 * and a compressed column block, then a footer index on clean close.
 * Spec: formats/vxt.md.
 *
 *   char err[VXT_ERRBUF_SIZE];
 *   struct vxt_reader *r = vxt_reader_open(path, err);
 *   if (!r)
 *           die("%s", err);
 *   const struct vxt_event *ev;
 *   while ((rc = vxt_reader_next(r, &ev)) == 1)   // ev borrowed until the next call
 *           show(ev);
 *   if (rc < 0)
 *           die("%s", vxt_reader_error(r));
 */
#ifndef VXTRACE_VXT_H
#define VXTRACE_VXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "objtab.h"
#include "strtab.h"
#include "util.h"

#define VXT_FORMAT_VERSION 1

/* Events of a file are in time order but for this much at most (formats/vxt.md,
 * "Time order"): a pass looking for the events before a time may stop at the
 * first event this far past it. Larger than every source's reorder bound
 * (VXT_BLKTRACE_REORDER_NS, VXT_TRACEFS_SLACK_NS in source.h). */
#define VXT_REORDER_MAX_NS	(5 * VXT_NSEC_PER_SEC)
/* Feature bits. A reader refuses a file with an incompat bit it does not know. */
#define VXT_COMPAT_PROFILE	0x1	/* the header names the profile that filtered the capture */
#define VXT_COMPAT_KSPEC	0x2	/* ... and that profile ran in the kernel (speculation: kernel) */
#define VXT_COMPAT_PHASES	0x4	/* every block-layer phase was captured (--phases all), not only issue and completion */
/* each column of a chunk is a zstd frame of its own (readers may skip columns) */
#define VXT_INCOMPAT_COLUMN_FRAMES	0x1
#define VXT_INCOMPAT_KNOWN	0x1

#define VXT_LAT_BUCKETS 32	/* log2 latency histogram: bucket b holds [2^b, 2^(b+1)) ns */

/* Per object, per chunk aggregates kept in the index. */
struct vxt_objagg {
	uint32_t object;
	uint32_t ios[VXT_OP_COUNT];	/* completed I/Os (done events) by op */
	uint32_t starts;		/* start events */
	uint32_t errors;		/* done events with error != 0 */
	uint64_t bytes_read;		/* completed */
	uint64_t bytes_written;
	uint64_t lat_sum_ns;		/* sum of done latencies */
	uint32_t lat_hist[VXT_LAT_BUCKETS];
};

/* One chunk's index entry. */
struct vxt_chunk_info {
	uint64_t offset;		/* file offset of the entry's skippable frame */
	uint64_t data_offset;		/* file offset of the zstd frame */
	uint32_t data_size;		/* compressed bytes */
	uint32_t raw_size;		/* encoded bytes before compression */
	uint32_t data_crc;		/* CRC-32C of the compressed bytes */
	uint32_t nevents;
	uint64_t first_event;		/* ordinal of the chunk's first event in the file */
	uint64_t first_ns, last_ns;	/* event time range */
	uint32_t nerrors;
	uint64_t nlost;			/* sum of lost counts */
	uint32_t nobjagg;
	struct vxt_objagg *objagg;	/* sorted by object id */
};

/* What the header says. */
struct vxt_file_info {
	uint32_t version;
	uint32_t compat, incompat;
	uint64_t created_real_ns;	/* wall clock at the capture's start, from the
					 * source's clock (= anchor_real_ns when the
					 * source has one; formats/vxt.md) */
	uint64_t anchor_mono_ns;	/* CLOCK_MONOTONIC ... */
	uint64_t anchor_real_ns;	/* ... equals this CLOCK_REALTIME */
	char host[64];
	char source[32];		/* "sim", "kmod", "tracefs", "blktrace" */
	char profile[64];		/* profile applied at record time, "" if none */
	char command[256];		/* command line that made the file */
};

/* ---- writer ---- */

struct vxt_writer_opts {
	int level;			/* zstd level; 0 = 1 */
	bool sync;			/* fdatasync each closed chunk */
	bool force;			/* overwrite an existing file */
	bool follow_symlink;		/* allow @path to be a symlink */
	const char *input;		/* never write over this file (vxt_outfile_open()) */
	size_t chunk_bytes;		/* close a chunk at this many raw bytes; 0 = 1 MiB */
	uint64_t chunk_ns;		/* ... or when it spans this long; 0 = 1 s */
	const char *host;		/* NULL = uname */
	const char *source;
	const char *profile;
	bool kernel_spec;		/* the profile ran in the kernel (VXT_COMPAT_KSPEC) */
	bool all_phases;		/* every phase was captured (VXT_COMPAT_PHASES) */
	const char *command;
	uint64_t anchor_mono_ns, anchor_real_ns;	/* 0 = now */
};

/* A file holds at most this many command names (including ""); the ones
 * after the bound all read as VXT_STR_MANY. */
#define VXT_FILE_STRINGS_MAX 65536
/* A header holds at most this many of the names known when the file is
 * created (the first ones); names seen later travel in chunk entries. */
#define VXT_HEADER_STRINGS 1024

struct vxt_writer_stats {
	uint64_t events;
	uint64_t chunks;
	uint64_t raw_bytes;		/* as struct vxt_event, for the compression ratio */
	uint64_t file_bytes;		/* written so far */
	uint64_t lost;
	uint64_t errors;
	uint64_t names_over;		/* command names past VXT_FILE_STRINGS_MAX, stored as "(many)" */
};

struct vxt_writer;

/* Create @path (mode 0600). @objs and @strs are borrowed for the writer's life;
 * the writer stores objects and strings as events first refer to them.
 * @return the writer, or NULL with a message in @err. */
struct vxt_writer *vxt_writer_open(const char *path, const struct vxt_writer_opts *opts,
				   struct vxt_objtab *objs, struct vxt_strtab *strs,
				   char err[VXT_ERRBUF_SIZE]);
/* Append @n events. Chunks close by size here. @return 0 or a negative errno. */
int vxt_writer_write(struct vxt_writer *w, const struct vxt_event *ev, size_t n);
/* Close the current chunk if it has been open longer than chunk_ns of wall
 * time; call this from the capture loop. @return 0 or a negative errno. */
int vxt_writer_tick(struct vxt_writer *w);
/* Close the current chunk now. @return 0 or a negative errno. */
int vxt_writer_flush(struct vxt_writer *w);
/* Flush, write the footer, close the file and free @w (also on error).
 * @return 0 or a negative errno (message in @err if not NULL). */
int vxt_writer_close(struct vxt_writer *w, char err[VXT_ERRBUF_SIZE]);
const char *vxt_writer_error(const struct vxt_writer *w);
void vxt_writer_get_stats(const struct vxt_writer *w, struct vxt_writer_stats *st);

/* ---- reader ---- */

struct vxt_reader;

/* Open @path: through the footer when there is one, else by a forward scan
 * that stops at the first torn or corrupt unit (see vxt_reader_damage()).
 * @return the reader, or NULL with a message in @err. */
struct vxt_reader *vxt_reader_open(const char *path, char err[VXT_ERRBUF_SIZE]);
/* Open a file in memory; @buf is borrowed for the reader's life. */
/* Open several files as one trace (formats/vxt.md, "Several files as one
 * trace"): each host's files (a rotated set) continue each other, the hosts
 * are put on one timeline by their clock anchors, events come in time order,
 * objects are named host:object when there is more than one host. The
 * reader's clock is the host's whose anchor gives the smallest offset. One
 * path is vxt_reader_open(). Refused with a message in @err: the same file
 * twice, files of one host whose times overlap, a file without a clock
 * anchor. Opening reads the files' indexes only; events are merged when
 * their chunks are asked for. */
struct vxt_reader *vxt_reader_open_set(const char *const *paths, size_t n,
				       char err[VXT_ERRBUF_SIZE]);
/* The checks vxt_reader_open_set() makes of its files, on @n readers
 * already open (the SQL tables' files): 0, or -EINVAL with the reason in
 * @err. One reader always passes. */
int vxt_reader_check_set(const struct vxt_reader *const *rs, size_t n,
			 char err[VXT_ERRBUF_SIZE]);
/* Where event @ev, number @ordinal of @r, comes from: for several files
 * (vxt_reader_open_set()) the file that holds it, its ordinal, time and
 * ids there; for one file the event itself. */
struct vxt_origin {
	const struct vxt_reader *file;	/* borrowed, valid while @r is open */
	uint64_t ordinal;		/* in that file */
	uint64_t time_ns;		/* on that file's clock */
	uint32_t object, comm;		/* ids in that file's tables */
	bool hole;			/* a lost record standing for an event of a damaged
					 * chunk of that file (vxt_reader_holes()) */
};
/* @return 0, or a negative errno (a merged chunk that cannot be merged)
 * with the reason in vxt_reader_error(). Merges the event's chunk again
 * when it is not the one the reader holds. */
int vxt_reader_origin(struct vxt_reader *r, uint64_t ordinal, const struct vxt_event *ev,
		      struct vxt_origin *o);
/* Damaged chunks of several files met so far: each such chunk's events are
 * merged as lost records of one event each, so the merged chunks keep the
 * other files' events (formats/vxt.md). @return how many, with the last
 * one's message ("FILE: chunk N: ...: its K events are lost") in *@why;
 * 0 for one file, whose damaged chunks fail to decode. */
size_t vxt_reader_holes(const struct vxt_reader *r, const char **why);
/* What a user should know about files opened together that did not stop
 * them, one line: hosts whose events have no time in common, a minute or
 * more apart (formats/vxt.md). NULL when there is nothing to say. */
const char *vxt_reader_note(const struct vxt_reader *r);
struct vxt_reader *vxt_reader_open_mem(const void *buf, size_t len, const char *name,
				       char err[VXT_ERRBUF_SIZE]);
void vxt_reader_close(struct vxt_reader *r);
/* The last error, borrowed until the next call. */
const char *vxt_reader_error(const struct vxt_reader *r);

const struct vxt_file_info *vxt_reader_info(const struct vxt_reader *r);
const struct vxt_objtab *vxt_reader_objects(const struct vxt_reader *r);
const struct vxt_strtab *vxt_reader_strings(const struct vxt_reader *r);
/* Total events in indexed chunks. */
uint64_t vxt_reader_nevents(const struct vxt_reader *r);
size_t vxt_reader_nchunks(const struct vxt_reader *r);
/* @return chunk @i's index entry, borrowed until the next refresh. */
const struct vxt_chunk_info *vxt_reader_chunk(const struct vxt_reader *r, size_t i);
/* The same without reading its per-object aggregates in (objagg may be NULL
 * and must not be read): for walks over many chunks that use only the
 * entry's counts, times and ordinals. */
const struct vxt_chunk_info *vxt_reader_chunk_fixed(const struct vxt_reader *r, size_t i);
/* Chunk @i's events (its entry's nevents), without completing a merged
 * chunk's entry; 0 past the last chunk. */
uint32_t vxt_reader_chunk_nevents(const struct vxt_reader *r, size_t i);
/* True when chunk @i's index entry is complete: always for a file's; a
 * merged chunk's once its events have been merged (vxt_reader_chunk() does
 * it when asked). */
bool vxt_reader_chunk_ready(const struct vxt_reader *r, size_t i);
/* Index entries for sums by time and object, without the events' order:
 * a file's are its chunks; several files' (vxt_reader_open_set()) are every
 * file's chunks, times on the shared clock and objects numbered as the
 * merged reader's, all known at open (where a merged chunk's own entry is
 * completed only when first asked for, by merging its events). Their
 * first_event and offsets locate nothing; their sums are the reader's.
 * A piece is borrowed until the next vxt_reader_piece() call but one (two
 * may be held at once): its aggregates are read when asked for. */
size_t vxt_reader_npieces(const struct vxt_reader *r);
const struct vxt_chunk_info *vxt_reader_piece(const struct vxt_reader *r, size_t i);
/* The chunk holding event number @ordinal (the last chunk past the end;
 * 0 when there are none). */
size_t vxt_reader_chunk_of(const struct vxt_reader *r, uint64_t ordinal);
/* True when the file had no valid footer (crash or still being written). */
bool vxt_reader_recovered(const struct vxt_reader *r);
/* When the scan stopped at damage: its offset and a message; else -1. */
int64_t vxt_reader_damage(const struct vxt_reader *r, const char **why);

/* Is the file still the one opened: not truncated below what was read, its
 * header the same? (A file written anew in place, vxrecord --force.) A
 * merged or in-memory reader always is. @return 0, or -ESTALE (or another
 * negative errno) with the reason in vxt_reader_error(). */
int vxt_reader_check_same(struct vxt_reader *r);
/* Scan for chunks appended since open. @return new chunks (>= 0), or a negative errno:
 * -ESTALE when the file was truncated or written anew in place since open. */
int vxt_reader_refresh(struct vxt_reader *r);

/* Position before the first event with time >= @t_ns. @return 0 or a negative errno. */
int vxt_reader_seek_time(struct vxt_reader *r, uint64_t t_ns);
/* Position before event number @ordinal (0-based; nevents = end). */
int vxt_reader_seek_ordinal(struct vxt_reader *r, uint64_t ordinal);
/* Ordinal of the event the next vxt_reader_next() returns. */
uint64_t vxt_reader_tell(const struct vxt_reader *r);
/* Step forward / backward. @ev is borrowed until the next call.
 * @return 1 with an event, 0 at the end (start), negative errno on damage. */
int vxt_reader_next(struct vxt_reader *r, const struct vxt_event **ev);
int vxt_reader_prev(struct vxt_reader *r, const struct vxt_event **ev);
/* Fields a reader decodes (bit n is the file's column n). A field outside
 * the set reads as 0; a file whose columns are frames of their own skips the
 * others' decompression too. Reports over a few fields go several times
 * faster. */
#define VXT_FIELD_TIME		(1u << 0)
#define VXT_FIELD_PHASE_OP	(1u << 1)	/* phase and op */
#define VXT_FIELD_OBJECT	(1u << 2)
#define VXT_FIELD_FLAGS		(1u << 3)
#define VXT_FIELD_SECTOR	(1u << 4)
#define VXT_FIELD_BYTES		(1u << 5)
#define VXT_FIELD_LATENCY	(1u << 6)
#define VXT_FIELD_ERROR		(1u << 7)
#define VXT_FIELD_PID		(1u << 8)
#define VXT_FIELD_COMM		(1u << 9)
#define VXT_FIELD_CPU		(1u << 10)
#define VXT_FIELD_ALL		0x7ffu
/* The sector field of lost events only (their count): sectors are decoded
 * in chunks whose index entry counts lost events, and read as 0 elsewhere. */
#define VXT_FIELD_LOST_COUNT	(1u << 11)
/* The latency field of remap events only (their source, vxt_event_remap_from()):
 * latencies are decoded in chunks holding a remap, and read as 0 elsewhere. */
#define VXT_FIELD_REMAP_FROM	(1u << 12)
/* Decode only @fields from now on (VXT_FIELD_ALL at open). Time, phase and
 * object are always decoded: seeking and the other fields need them. */
void vxt_reader_set_fields(struct vxt_reader *r, unsigned fields);

/* Decode chunk @i whole. @return its events, borrowed until the next call
 * that moves the reader, or NULL on damage (see vxt_reader_error()). */
const struct vxt_event *vxt_reader_chunk_events(struct vxt_reader *r, size_t i, size_t *n);
/* Check every unit's CRC and frame. @return 0 when sound, else a negative errno
 * with the first bad offset in @bad_offset and the message in the handle. */
int vxt_reader_verify(struct vxt_reader *r, uint64_t *bad_offset);

/* ---- scanner: a file's chunks in order, decoded ahead on helper threads ---- */

struct vxt_scan;

/* Walk chunks @first .. vxt_reader_nchunks(@r) - 1 in order, decoding
 * @fields (as vxt_reader_set_fields()) on up to @threads helper threads
 * (0: in the caller's thread, when asked for), which run at a lower
 * priority than the caller (nice 5 above it). @r must stay open and
 * unrefreshed until vxt_scan_stop(); other reader calls may go on.
 * @return the scan, or NULL when out of memory. */
struct vxt_scan *vxt_scan_start(struct vxt_reader *r, size_t first, unsigned fields,
				unsigned threads);
/* The next chunk. @return 1 with its number in @chunk and its events in @ev
 * and @n (borrowed until the next call), 0 after the last, or a negative
 * errno with a message in vxt_scan_error(): -ENOMEM (nothing comes after
 * it), or -EBADMSG for a damaged chunk, its number in @chunk: the next call
 * goes on with the chunk after it. */
int vxt_scan_next(struct vxt_scan *s, size_t *chunk, const struct vxt_event **ev, size_t *n);
const char *vxt_scan_error(const struct vxt_scan *s);
void vxt_scan_stop(struct vxt_scan *s);
/* Helper threads worth starting on this machine: 0 with one CPU, else the
 * CPUs online, at most 4. */
unsigned vxt_scan_default_threads(void);

/* Monotonic ns of the file -> wall clock ns, through the header anchor. */
uint64_t vxt_reader_to_real(const struct vxt_reader *r, uint64_t mono_ns);

#endif
