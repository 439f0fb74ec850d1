/* sql_plan.h - an event table query's pushdown plan (internal to libvxtrace) */
#ifndef VXT_SQL_PLAN_H
#define VXT_SQL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink/sql_impl.h"

/* Predicates the index can use; argv order follows idxStr. */
enum sql_pred {
	P_TIME_GE, P_TIME_GT, P_TIME_LE, P_TIME_LT, P_TIME_EQ,
	P_REAL_GE, P_REAL_GT, P_REAL_LE, P_REAL_LT, P_REAL_EQ,
	P_OBJ_EQ, P_OBJ_IN, P_ERR_NE0,
	P_COUNT
};

/* idxNum: the reader fields (bits 0-11) and these flags. */
#define SQL_PLAN_OFF	(1 << 16)	/* pushdown disabled: scan every row, decode all */
#define SQL_PLAN_TRACK	(1 << 17)	/* ios: pair queue/getrq/insert events with completions */
#define SQL_PLAN_BYOBJ	(1 << 18)	/* rows in object name order (ORDER/GROUP BY object) */
#define SQL_PLAN_COLS	(1 << 19)	/* the query reads columns of its rows, not only counts */

struct sql_plan {
	bool pushdown;
	bool track;
	bool byobj;			/* one pass per object name, in name order */
	bool cols;			/* rows are read, not only counted */
	unsigned fields;
	uint64_t lo, hi;		/* time_ns in [lo, hi] */
	int64_t rlo, rhi;		/* real_ns in [rlo, rhi] (empty when rlo > rhi) */
	bool objs;			/* object is one of names[] */
	char **names;
	size_t nnames;
	bool err;			/* error != 0 */
};

/* xBestIndex of an event table with @ncols columns over @rows events. */
int sql_plan_best_index(sqlite3_index_info *info, bool pushdown, int ncols, double rows);
/* Rebuild the plan in xFilter. @return SQLITE_OK or an error code. */
int sql_plan_parse(struct sql_plan *p, int idx_num, const char *idx_str, int argc,
		   sqlite3_value **argv);
void sql_plan_free(struct sql_plan *p);

#endif
