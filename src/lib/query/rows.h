/* rows.h - rows of an event table kept in memory, packed (internal)
 *
 * ORDER BY / GROUP BY object reads the file once for a group of object
 * names and keeps their rows here, one buffer per name, holding only the
 * fields the query reads; the rows are then given name by name.
 */
#ifndef VXT_SQL_ROWS_H
#define VXT_SQL_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/event.h"

/* The memory a group's rows may take before the group is made smaller. */
#define SQL_ROWS_BUDGET		(256u << 20)

/* What a row holds: the event's fields of @fields, its file, its ordinal
 * in that file and (when @phases) the queue, getrq and insert times. */
struct sql_rowfmt {
	bool files;			/* more than one file: the file's index too */
	bool phases;
	size_t size;			/* bytes per row */
	unsigned nmem;			/* the event's members kept: */
	uint8_t off[12], len[12];
};

/* Rows in blocks (no copy as they grow) of up to SQL_ROWS_BLOCK rows. */
#define SQL_ROWS_BLOCK		65536u

struct sql_rowbuf {
	unsigned char **block;
	size_t nblock, capblock;
	size_t n;			/* rows */
	size_t blockstart, blockrows;	/* the last block's first row and size */
};

struct sql_row {
	struct vxt_event ev;
	uint32_t file;
	uint64_t ordinal;
	uint64_t ph[3];
};

void sql_rowfmt_init(struct sql_rowfmt *fmt, unsigned fields, bool files, bool phases);
/* Append the row of @e. @return 0, or -ENOMEM (the buffer is unchanged). */
int sql_rowbuf_put(struct sql_rowbuf *b, const struct sql_rowfmt *fmt, const struct vxt_event *e,
		   uint32_t file, uint64_t ordinal, const uint64_t ph[3]);
/* Row @i of @b into @row: only what the format keeps is written, the
 * rest of @row is left as it was. */
void sql_rowbuf_get(const struct sql_rowbuf *b, const struct sql_rowfmt *fmt, size_t i,
		    struct sql_row *row);
void sql_rowbuf_free(struct sql_rowbuf *b);

#endif
