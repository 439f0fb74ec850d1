/* rows.c - packed in-memory rows of an event table (see rows.h)
 *
 * A row is the kept fields of its event one after another, in the order of
 * the VXT_FIELD_* bits, then the ordinal, the file index and the phases,
 * in blocks of SQL_ROWS_BLOCK rows:
 * a p99-per-object query keeps 30 bytes a row instead of the event's 48.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "query/rows.h"
#include "vxtrace/vxt.h"
#include "vxtrace/util.h"

/* One field's members of struct vxt_event: offset and size of each. */
struct member {
	unsigned field;
	size_t off, size;
};

static const struct member members[] = {
	{ VXT_FIELD_TIME, offsetof(struct vxt_event, time_ns), 8 },
	{ VXT_FIELD_PHASE_OP, offsetof(struct vxt_event, phase), 1 },
	{ VXT_FIELD_PHASE_OP, offsetof(struct vxt_event, op), 1 },
	{ VXT_FIELD_OBJECT, offsetof(struct vxt_event, object), 4 },
	{ VXT_FIELD_FLAGS, offsetof(struct vxt_event, flags), 2 },
	{ VXT_FIELD_SECTOR | VXT_FIELD_LOST_COUNT, offsetof(struct vxt_event, sector), 8 },
	{ VXT_FIELD_BYTES, offsetof(struct vxt_event, bytes), 4 },
	{ VXT_FIELD_LATENCY, offsetof(struct vxt_event, latency_ns), 8 },
	{ VXT_FIELD_ERROR, offsetof(struct vxt_event, error), 2 },
	{ VXT_FIELD_PID, offsetof(struct vxt_event, pid), 4 },
	{ VXT_FIELD_COMM, offsetof(struct vxt_event, comm), 4 },
	{ VXT_FIELD_CPU, offsetof(struct vxt_event, cpu), 2 },
};

#define NMEMBERS (sizeof(members) / sizeof(members[0]))

/* Blocks 0 .. SQL_ROWS_NSMALL-1 hold 256, 512, ... rows, SQL_ROWS_SMALL in
 * all; every later block SQL_ROWS_BLOCK. */
#define SQL_ROWS_NSMALL		8u
#define SQL_ROWS_SMALL		((256u << SQL_ROWS_NSMALL) - 256u)

_Static_assert((256u << SQL_ROWS_NSMALL) == SQL_ROWS_BLOCK, "blocks double up to SQL_ROWS_BLOCK");

void sql_rowfmt_init(struct sql_rowfmt *fmt, unsigned fields, bool files, bool phases)
{
	fmt->files = files;
	fmt->phases = phases;
	fmt->size = sizeof(uint64_t);			/* ordinal */
	fmt->nmem = 0;
	for (size_t i = 0; i < NMEMBERS; i++) {
		if (!(fields & members[i].field))
			continue;
		fmt->off[fmt->nmem] = (uint8_t)members[i].off;
		fmt->len[fmt->nmem++] = (uint8_t)members[i].size;
		fmt->size += members[i].size;
	}
	if (files)
		fmt->size += sizeof(uint32_t);
	if (phases)
		fmt->size += 3 * sizeof(uint64_t);
}

int sql_rowbuf_put(struct sql_rowbuf *b, const struct sql_rowfmt *fmt, const struct vxt_event *e,
		   uint32_t file, uint64_t ordinal, const uint64_t ph[3])
{
	const unsigned char *ev = (const unsigned char *)e;
	size_t rows, k = b->n - b->blockstart;
	unsigned char *p;

	if (!b->nblock || k == b->blockrows) {
		if (vxt_grow(&b->block, &b->capblock, b->nblock + 1, sizeof(*b->block)) < 0)
			return -ENOMEM;
		/* 256 rows, then twice as many each time up to SQL_ROWS_BLOCK:
		 * a name with few rows takes little */
		rows = !b->nblock ? 256 : b->blockrows < SQL_ROWS_BLOCK ? b->blockrows * 2 : b->blockrows;
		if (!(b->block[b->nblock] = malloc(rows * fmt->size)))
			return -ENOMEM;
		b->nblock++;
		b->blockstart = b->n;
		b->blockrows = rows;
		k = 0;
	}
	p = b->block[b->nblock - 1] + k * fmt->size;
	for (unsigned m = 0; m < fmt->nmem; m++) {
		memcpy(p, ev + fmt->off[m], fmt->len[m]);
		p += fmt->len[m];
	}
	memcpy(p, &ordinal, sizeof(ordinal));
	p += sizeof(ordinal);
	if (fmt->files) {
		memcpy(p, &file, sizeof(file));
		p += sizeof(file);
	}
	if (fmt->phases)
		memcpy(p, ph, 3 * sizeof(*ph));
	b->n++;
	return 0;
}

void sql_rowbuf_get(const struct sql_rowbuf *b, const struct sql_rowfmt *fmt, size_t i,
		    struct sql_row *row)
{
	unsigned char *ev = (unsigned char *)&row->ev;
	const unsigned char *p;
	size_t blk;

	/* block j holds 256 << j rows up to SQL_ROWS_BLOCK */
	if (i < SQL_ROWS_SMALL) {
		blk = 0;
		while ((256u << (blk + 1)) - 256 <= i)
			blk++;
		i -= (256u << blk) - 256;
	} else {
		blk = SQL_ROWS_NSMALL + (i - SQL_ROWS_SMALL) / SQL_ROWS_BLOCK;
		i = (i - SQL_ROWS_SMALL) % SQL_ROWS_BLOCK;
	}
	p = b->block[blk] + i * fmt->size;

	for (unsigned m = 0; m < fmt->nmem; m++) {
		memcpy(ev + fmt->off[m], p, fmt->len[m]);
		p += fmt->len[m];
	}
	memcpy(&row->ordinal, p, sizeof(row->ordinal));
	p += sizeof(row->ordinal);
	if (fmt->files) {
		memcpy(&row->file, p, sizeof(row->file));
		p += sizeof(row->file);
	}
	if (fmt->phases)
		memcpy(row->ph, p, sizeof(row->ph));
}

void sql_rowbuf_free(struct sql_rowbuf *b)
{
	for (size_t i = 0; i < b->nblock; i++)
		free(b->block[i]);
	free(b->block);
	memset(b, 0, sizeof(*b));
}
