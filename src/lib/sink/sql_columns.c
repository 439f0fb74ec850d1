/* sql_columns.c - the column values of one row of the events, errors and ios
 * tables, from its event, its file, its ordinal in the file and (ios) the
 * times of its queue, getrq and insert phases (0 = not captured)
 */
#include <inttypes.h>
#include <stdio.h>

#include "sink/sql_impl.h"

int64_t sql_real_ns(uint64_t time_ns, int64_t off)
{
	/* time_ns + off > INT64_MAX exactly when time_ns > INT64_MAX - off,
	 * which uint64_t holds for any off; below INT64_MIN it cannot go */
	if (time_ns > (uint64_t)INT64_MAX - (uint64_t)off)
		return INT64_MAX;
	return (int64_t)(time_ns + (uint64_t)off);
}

/* Columns of the ios table beyond the events'. */
static void ios_column(sqlite3_context *ctx, int col, const struct vxt_event *e,
		       const uint64_t ph[3])
{
	uint64_t issue = e->latency_ns && e->latency_ns <= e->time_ns ? e->time_ns - e->latency_ns : 0;
	uint64_t q = ph[0];

	switch (col) {
	case C_ISSUE:
		if (issue)
			sqlite3_result_int64(ctx, (sqlite3_int64)issue);
		break;
	case C_QUEUE: case C_GETRQ: case C_INSERT:
		if (ph[col - C_QUEUE])
			sqlite3_result_int64(ctx, (sqlite3_int64)ph[col - C_QUEUE]);
		break;
	case C_Q2D:
		if (q && issue >= q)
			sqlite3_result_int64(ctx, (sqlite3_int64)(issue - q));
		break;
	case C_Q2C:
		if (q && e->time_ns >= q)
			sqlite3_result_int64(ctx, (sqlite3_int64)(e->time_ns - q));
		break;
	}
}

void sql_ev_column(sqlite3_context *ctx, int col, const struct sql_file *f,
		   const struct vxt_event *e, uint64_t ordinal, const uint64_t ph[3])
{
	const struct vxt_object *o;
	char buf[64];

	switch (col) {
	case C_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)e->time_ns); break;
	case C_OBJECT:
		o = e->phase == VXT_PH_LOST ? NULL : vxt_objtab_get(vxt_reader_objects(f->r), e->object);
		/* the names live as long as the table's files are open */
		sqlite3_result_text(ctx, o ? o->name : e->phase == VXT_PH_LOST ? "" : "?", -1,
				    SQLITE_STATIC);
		break;
	case C_PHASE: sqlite3_result_text(ctx, vxt_phase_name(e->phase), -1, SQLITE_STATIC); break;
	case C_OP: sqlite3_result_text(ctx, vxt_op_name(e->op), -1, SQLITE_STATIC); break;
	case C_FLAGS:
		sqlite3_result_text(ctx, vxt_flags_format(e->flags, buf, sizeof(buf)), -1,
				    SQLITE_TRANSIENT);
		break;
	case C_SECTOR: sqlite3_result_int64(ctx, (sqlite3_int64)e->sector); break;
	case C_BYTES: sqlite3_result_int64(ctx, e->bytes); break;
	case C_LATENCY: sqlite3_result_int64(ctx, (sqlite3_int64)vxt_event_latency(e)); break;
	case C_ERROR: sqlite3_result_int(ctx, -(int)e->error); break;
	case C_ERRNAME:
		sqlite3_result_text(ctx, vxt_errno_label(e->error, buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
		break;
	case C_PID: sqlite3_result_int64(ctx, e->pid); break;
	case C_COMM:
		sqlite3_result_text(ctx, vxt_strtab_get(vxt_reader_strings(f->r), e->comm), -1,
				    SQLITE_STATIC);
		break;
	case C_CPU: sqlite3_result_int(ctx, e->cpu); break;
	case C_WALL:
		sqlite3_result_text(ctx, sql_format_wall((uint64_t)sql_real_ns(e->time_ns, f->real_off),
							 buf, sizeof(buf)), -1, SQLITE_TRANSIENT);
		break;
	case C_REAL:
		sqlite3_result_int64(ctx, sql_real_ns(e->time_ns, f->real_off));
		break;
	case C_HOST:
		sqlite3_result_text(ctx, vxt_reader_info(f->r)->host, -1, SQLITE_STATIC);
		break;
	case C_FILE: sqlite3_result_text(ctx, f->path, -1, SQLITE_STATIC); break;
	case C_ORDINAL: sqlite3_result_int64(ctx, (sqlite3_int64)ordinal); break;
	case C_OBJID:
		if (e->phase != VXT_PH_LOST)
			sqlite3_result_int64(ctx, e->object);
		break;
	default:
		ios_column(ctx, col, e, ph);
		break;
	}
}
