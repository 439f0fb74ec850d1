/* merge_impl.h - the state of several files read as one trace (internal)
 *
 * merge.c opens the files and puts them on one timeline (hosts, clocks,
 * names); merge_index.c builds the merged index from the files' index
 * entries and merges their events, chunk by chunk, when they are asked for.
 */
#ifndef VXT_MERGE_IMPL_H
#define VXT_MERGE_IMPL_H

#include "format/reader_impl.h"

#define MERGE_CHUNK 21845	/* events per merged chunk, as a writer's 1 MiB ... */
#define MERGE_FIRST 1024	/* ... but the first, and each next twice as many */
#define MERGE_KEY_SLOTS 4	/* file chunks whose merge keys a part keeps */

/* The merge keys of one file chunk (the largest shifted time so far). */
struct keyslot {
	size_t chunk;		/* SIZE_MAX: empty */
	uint64_t *key;
	size_t n, cap;
};

struct part {
	struct vxt_reader *r;
	char host[VXT_OBJ_HOST_MAX];
	int64_t shift;			/* ns added to the file's times */
	uint32_t *objmap, *strmap;	/* file id -> merged id */
	size_t nobj, nstr;
	/* the file's index on the merged clock, per chunk c: */
	uint64_t *key_lo;		/* the least merge key c's events can have */
	uint64_t *key_hi;		/* the largest (the running maximum of last_ns) */
	uint64_t *before;		/* events of the chunks before c */
	size_t nch;
	struct keyslot ks[MERGE_KEY_SLOTS];
	unsigned ks_next;
	/* the merge's cursor in this file */
	uint64_t pos;			/* ordinal of the next event */
	uint64_t env;			/* merge key so far (largest shifted time) */
	struct vxt_chunkdec dec;	/* the file chunk holding pos, decoded in steps
					 * (zstd context and data buffer: the merge's) ... */
	size_t dec_chunk;		/* ... its number (SIZE_MAX: none) */
	const struct vxt_event *ev;	/* its events decoded so far ... */
	uint64_t ev_first;		/* ... the first one's ordinal ... */
	size_t ev_n;			/* ... and how many; 0 = none held */
	/* a damaged file chunk: its events from hole_from to hole_end are each
	 * merged as a lost record of one event (hole), at the chunk's least key */
	uint64_t hole_from, hole_end;	/* empty when equal */
	struct vxt_event hole;
};

/* Where a merged event comes from: its part, its ordinal and ids there. */
struct merge_origin {
	uint32_t part, object, comm;
	uint32_t hole;			/* a lost record standing for a damaged chunk's event */
	uint64_t ord;
};

struct vstart {
	uint64_t pos, env;
};

#define MERGE_PIECE_SLOTS 4	/* pages of pieces' aggregates held (merge_aggs.c) */
#define MERGE_PIECE_PAGE 64	/* a file's chunks a page */

/* A page of pieces [first, end) whose aggregates are held in a: piece
 * first + j's are a[off[j]], n[j] of them. */
struct piece_slot {
	size_t first, end;		/* SIZE_MAX: none */
	struct vxt_objagg *a;
	size_t cap;
	uint32_t off[MERGE_PIECE_PAGE], n[MERGE_PIECE_PAGE];
	uint64_t used;
};

#define MERGE_START_KNOWN 0x1	/* starts[] of the chunk is set */
#define MERGE_RESOLVED 0x2	/* its index entry is complete */

struct vxt_merge {
	struct vxt_reader *owner;	/* the merged reader */
	size_t np;
	struct part *p;
	struct vstart *starts;		/* np per merged chunk */
	uint8_t *state;			/* MERGE_* per merged chunk */
	size_t *heap;			/* parts with events left, by key */
	size_t nheap;
	uint64_t *key;			/* each part's next key ... */
	bool *exact;			/* ... from its event, or its index's bound */
	unsigned fields;		/* fields of the chunks the parts hold */
	struct vxt_event *kept;		/* the chunk last merged for its entry ... */
	size_t kept_chunk, kept_cap;	/* ... (SIZE_MAX: none) ... */
	unsigned kept_fields;		/* ... with these fields */
	struct merge_origin *kept_orig;	/* ... and its events' origins */
	struct merge_origin *orig;	/* the origins of the chunk in the owner's decoder ... */
	size_t orig_chunk, orig_cap;	/* ... its number (SIZE_MAX: none) */
	struct vxt_event *scratch;	/* a chunk merged only for its origins */
	size_t scratch_cap;
	struct vxt_chunkdec work;	/* the zstd context and data buffer the parts share */
	struct vxt_chunkdec *pool;	/* helper threads' contexts and buffers (merge_preload.c) */
	unsigned npool;
	uint8_t *raw_block;		/* the parts' decompressed columns, then ... */
	size_t raw_mapped;
	uint8_t *comp_area;		/* ... the workers' compressed data (merge_preload.c) */
	size_t comp_need;
	unsigned ncomp;
	size_t npieces;			/* every file's entries, merged clock and ids */
	size_t *piece_first;		/* per part: its first piece */
	struct piece_slot slots[MERGE_PIECE_SLOTS];	/* the pieces' aggregates held */
	uint64_t slot_tick;
	struct vxt_chunk_info ring[2];	/* the two pieces returned last */
	unsigned ring_next;
	char msg[VXT_ERRBUF_SIZE];
	char note[VXT_ERRBUF_SIZE];	/* vxt_reader_note() */
	size_t nholes;			/* damaged file chunks met (vxt_reader_holes()) ... */
	char hole_msg[VXT_ERRBUF_SIZE];	/* ... the last one's message */
};

/* merge_index.c: the largest merge key merging chunk @i (its start known)
 * reaches: exact once the next chunk's start is known (no file chunk whose
 * least key is above it is decoded for it), else a guess from the index. */
uint64_t vxt_merge_reach(struct vxt_merge *m, size_t i);

/* merge_preload.c: the file chunks merging chunk @i will decode, begun on
 * helper threads at once (what fails is left to the merge, which says why).
 * Frees its threads' decoders with the merge. */
void vxt_merge_preload(struct vxt_merge *m, size_t i);
void vxt_merge_preload_free(struct vxt_merge *m);
/* merge_preload.c: lend each part's decoder a buffer for the largest chunk
 * of its file's columns, and each worker's (m->work, then the helpers')
 * one for the largest chunk's compressed data, all in one block on huge
 * pages (bigbuf.h): the chunks held at once are written in few page
 * faults. Without the block, each decoder allocates its own. Freed by
 * vxt_merge_preload_free(), after the decoders. */
void vxt_merge_lend(struct vxt_merge *m);

/* merge_aggs.c: where each file's pieces begin (0 or -ENOMEM); set up and
 * free the slots of the pieces' aggregates (vxt_merge_piece() reads a
 * page into the one used least recently). */
int vxt_merge_aggs_init(struct vxt_merge *m);
void vxt_merge_aggs_free(struct vxt_merge *m);

/* merge_index.c: the merged chunks laid out from the files' index entries
 * (nothing decoded). @return 0 or -ENOMEM. */
int vxt_merge_index(struct vxt_merge *m);

#endif
