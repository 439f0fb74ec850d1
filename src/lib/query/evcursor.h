/* evcursor.h - a cursor of the events, errors and ios tables (internal)
 *
 * vtab.c walks the files chunk by chunk; byobj.c gives the rows in
 * object name order (ORDER BY / GROUP BY object) on top of that walk.
 */
#ifndef VXT_SQL_EVCURSOR_H
#define VXT_SQL_EVCURSOR_H

#include <string.h>

#include "query/plan.h"
#include "query/rows.h"
#include "vxtrace/iopair.h"

struct ev_cursor {
	struct sql_cursor c;
	struct sql_vtab *vt;
	struct sql_plan p;
	struct vxt_reader **rd;		/* the cursor's own reader of each file */
	struct vxt_scan *scan;		/* decoding ahead on helper threads, or NULL */
	size_t scan_ci;			/* the chunk it gave last */
	bool eof;
	size_t fi;			/* current file */
	size_t ci;			/* current chunk of that file */
	/* the plan's time range on this file's clock: time_ns in [flo, fhi]
	 * and not in [glo, ghi] (a gap, empty when glo > ghi: a signed range
	 * across 0 is two ranges of the unsigned times) */
	uint64_t flo, fhi, glo, ghi;
	bool objs;			/* rows are limited to some objects: */
	uint8_t *objok;			/* objects of this file kept */
	size_t nobjok;
	bool lost_ok;			/* ... and lost events (object "") */
	bool lost_only;			/* no object but lost events kept */
	/* object order (ORDER/GROUP BY object): the names, sorted; each pass
	 * reads the rows of names [pi, pe), kept in buf[] when they fit the
	 * budget (buffered), else of pass[pi] alone, given as they are read */
	char **pass;
	size_t npass, pi, pe;
	uint32_t *slot;			/* per object of the file: its name's index + 1, or 0 */
	bool buffered;
	struct sql_rowfmt fmt;
	struct sql_rowbuf *buf;		/* rows of name pi + i */
	size_t bi, bk;			/* the current row: buf[bi], row bk */
	struct sql_row row;		/* ... unpacked */
	/* the current chunk, decoded ... */
	const struct vxt_event *ev;
	size_t n, k;
	/* ... or not: rows counted by the index, the current one being match vj */
	bool virt;
	uint64_t vleft, vj;
	/* ios: the phases of the current completion, 0 = not captured */
	struct vxt_iopair *pair[3];	/* queue, getrq, insert */
	uint64_t ph[3];
};

static inline bool ios_kind(const struct ev_cursor *c)
{
	return c->vt->kind == SQL_IOS;
}

static inline bool sql_plan_has(const struct sql_plan *p, const char *name)
{
	for (size_t j = 0; j < p->nnames; j++)
		if (!strcmp(p->names[j], name))
			return true;
	return false;
}

/* The walk (vtab.c) */
int sql_ev_enter_file(struct ev_cursor *c);
bool sql_ev_chunk_may_match(const struct ev_cursor *c, const struct vxt_chunk_info *ci);
/* From c->k on, stop at the next matching event of the decoded chunk. */
bool sql_ev_seek_match(struct ev_cursor *c);
int sql_ev_decode(struct ev_cursor *c);
/* Move to the first row at or after chunk c->ci of file c->fi. */
int sql_ev_settle(struct ev_cursor *c);
/* The ordinal in its file of the current event of a decoded chunk. */
uint64_t sql_ev_ordinal(const struct ev_cursor *c);

/* Object order (byobj.c) */
/* The names to pass over, sorted: those of the files (the plan's only, when
 * it names some), and "" first when lost records exist. */
int sql_ev_make_passes(struct ev_cursor *c);
void sql_ev_free_passes(struct ev_cursor *c);
/* The index + 1 of @name among the pass's names [pi, pe), or 0. */
uint32_t sql_ev_pass_slot(const struct ev_cursor *c, const char *name);
/* Move to the first row of the names from pe on. */
int sql_ev_next_names(struct ev_cursor *c);
/* The next kept row of the group, unpacked into c->row. @return true if any. */
bool sql_ev_seek_buffered(struct ev_cursor *c);
void sql_ev_free_group(struct ev_cursor *c);

#endif
