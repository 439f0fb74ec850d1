/* reader_impl.h - the reader's state, shared by its files (internal)
 *
 * reader.c opens a file (footer or recovery scan) and verifies it,
 * reader_iter.c seeks and iterates, merge.c makes one reader of several
 * files, scan.c decodes a reader's chunks ahead on helper threads.
 */
#ifndef VXT_READER_IMPL_H
#define VXT_READER_IMPL_H

#include "format/chunkdec.h"

struct vxt_merge;
struct vxt_aggcache;

struct vxt_reader {
	struct vxt_chunksrc src;	/* the file: descriptor or memory, and its size */
	char *name;
	struct vxt_file_info info;
	struct vxt_objtab *objs;
	struct vxt_strtab *strs;
	struct vxt_chunk_info *chunks;
	size_t n, cap;
	uint64_t nevents;
	uint64_t header_end;
	uint32_t header_crc;		/* the header unit's CRC: a file written anew has another */
	uint64_t scan_off;
	bool has_footer;
	bool recovered;
	int64_t damage_off;
	char damage[256];
	struct vxt_chunkdec dec;	/* holds the decoded chunk */
	size_t cur_chunk;		/* decoded chunk, or SIZE_MAX */
	uint64_t pos;			/* ordinal of the next event */
	struct vxt_merge *merge;	/* several files as one (merge.c), or NULL */
	struct vxt_aggcache *aggs;	/* a file's chunk aggregates, read when asked (aggcache.c) */
	char err[VXT_ERRBUF_SIZE];
};

int vxt_reader_seterr(struct vxt_reader *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Decode chunk @i into r->dec.ev (kept while cur_chunk == i).
 * @return 0 or a negative errno with the message in r->err. */
int vxt_reader_decode(struct vxt_reader *r, size_t i);
/* Decode chunk @i of @r into @d (d->fields says which fields): a file's
 * chunk from its bytes, a merged reader's from its files. Safe on helper
 * threads for a file only (vxt_reader_is_merged()).
 * @return 0, -ENOMEM or -EBADMSG with a message in @msg. */
int vxt_reader_decode_into(struct vxt_reader *r, struct vxt_chunkdec *d, size_t i,
			   char *msg, size_t msglen);
bool vxt_reader_is_merged(const struct vxt_reader *r);

/* aggcache.c: chunk @i's @n aggregates lie at file offset @off (its entry was
 * checked); chunks[i].objagg stays NULL until vxt_aggcache_load() reads them
 * (the main thread only: helper threads read entries with vxt_reader_entry()).
 * Reset drops what was read (before the chunks go); free drops it all. */
int vxt_aggcache_note(struct vxt_reader *r, size_t i, uint64_t off, uint32_t n);
void vxt_aggcache_load(struct vxt_reader *r, size_t i);
/* The aggregates of chunks [@first, @end) read into @out (room for the sum
 * of their nobjagg), past the cache, in chunk order; a chunk whose
 * aggregates no longer read (or were never noted) gets none and its nobjagg
 * becomes 0, so the nobjagg after the call place each chunk's in @out.
 * @return how many, or -ENOMEM */
long vxt_aggcache_copy(struct vxt_reader *r, size_t first, size_t end, struct vxt_objagg *out);
void vxt_aggcache_reset(struct vxt_reader *r);
void vxt_aggcache_free(struct vxt_reader *r);
/* Chunk @i's entry without its aggregates read (objagg may be NULL): safe
 * on helper threads for a file's reader. */
static inline const struct vxt_chunk_info *vxt_reader_entry(const struct vxt_reader *r, size_t i)
{
	return i < r->n ? &r->chunks[i] : NULL;
}

/* The file the reader reads, and its name for messages. */
const struct vxt_chunksrc *vxt_reader_src(const struct vxt_reader *r);
const char *vxt_reader_name(const struct vxt_reader *r);

/* merge.c, merge_index.c: decode chunk @i of a merged reader into @d; free. */
int vxt_merge_decode(struct vxt_merge *m, struct vxt_chunkdec *d, size_t i, char *msg,
		     size_t msglen);
/* vxt_reader_origin() of a merged reader (merge_index.c). */
int vxt_merge_origin(struct vxt_merge *m, uint64_t ord, const struct vxt_event *ev,
		     struct vxt_origin *o);
/* Complete merged chunk @i's index entry (merging its events) if it is not. */
void vxt_merge_resolve(struct vxt_merge *m, size_t i);
bool vxt_merge_ready(const struct vxt_merge *m, size_t i);
/* The files' index entries on the merged clock (vxt_reader_piece()), their
 * aggregates held while their page is (merge_aggs.c). */
size_t vxt_merge_npieces(const struct vxt_merge *m);
const struct vxt_chunk_info *vxt_merge_piece(struct vxt_merge *m, size_t i);
void vxt_merge_free(struct vxt_merge *m);

#endif
