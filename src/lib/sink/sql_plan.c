/* sql_plan.c - what an event table's query pushes into the index
 *
 * xBestIndex picks the constraints the index can use (time_ns and real_ns
 * ranges, object = / IN, error != 0) and the fields the query names; it
 * writes them as idxStr, which EXPLAIN QUERY PLAN shows and xFilter reads
 * back (sql_plan_parse()). Only constraints whose right-hand side is known
 * at plan time to be of the column's type are omitted from SQLite's own
 * check; the others only narrow the chunks and rows conservatively. An
 * object constraint under a collation other than BINARY is not used at all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sql_plan.h"

/* idxStr tokens, in the order of enum sql_pred. */
static const char *const pred_token[] = {
	"time_ns>=?", "time_ns>?", "time_ns<=?", "time_ns<?", "time_ns=?",
	"real_ns>=?", "real_ns>?", "real_ns<=?", "real_ns<?", "real_ns=?",
	"object=?", "object IN(?)", "error!=0",
};

static int range_pred(unsigned char op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_GE: return 0;
	case SQLITE_INDEX_CONSTRAINT_GT: return 1;
	case SQLITE_INDEX_CONSTRAINT_LE: return 2;
	case SQLITE_INDEX_CONSTRAINT_LT: return 3;
	case SQLITE_INDEX_CONSTRAINT_EQ: return 4;
	default: return -1;
	}
}

/* The predicate constraint @i is, or -1 when the index cannot use it.
 * *@exact tells whether the filter then matches exactly what SQLite would. */
static int classify(sqlite3_index_info *info, int i, bool *exact)
{
	const struct sqlite3_index_constraint *c = &info->aConstraint[i];
	sqlite3_value *rhs = NULL;
	int known = sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs;
	int p;

	*exact = false;
	switch (c->iColumn) {
	case C_TIME:
	case C_REAL:
		p = range_pred(c->op);
		if (p < 0)
			return -1;
		*exact = known && sqlite3_value_type(rhs) == SQLITE_INTEGER;
		return (c->iColumn == C_TIME ? P_TIME_GE : P_REAL_GE) + p;
	case C_OBJECT:
		/* names match byte for byte: another collation is SQLite's to apply */
		if (c->op != SQLITE_INDEX_CONSTRAINT_EQ ||
		    sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY"))
			return -1;
		if (sqlite3_vtab_in(info, i, -1)) {
			*exact = true;
			return P_OBJ_IN;
		}
		*exact = known && sqlite3_value_type(rhs) == SQLITE_TEXT;
		return P_OBJ_EQ;
	case C_ERROR:
		if (c->op != SQLITE_INDEX_CONSTRAINT_NE || !known ||
		    sqlite3_value_type(rhs) != SQLITE_INTEGER || sqlite3_value_int64(rhs) != 0)
			return -1;
		*exact = true;
		return P_ERR_NE0;
	default:
		return -1;
	}
}

static unsigned fields_used(sqlite3_uint64 used, int ncols)
{
	unsigned f = 0;

	for (int c = 0; c < ncols && c < 63; c++)
		if (used & ((sqlite3_uint64)1 << c))
			f |= sql_col_fields(c);
	if (used & ((sqlite3_uint64)1 << 63))
		f = VXT_FIELD_ALL;
	return f;
}

int sql_plan_best_index(sqlite3_index_info *info, bool pushdown, int ncols, double rows)
{
	char buf[512];
	size_t len = 0;
	int argv = 0;
	bool have_obj = false, by_object = false;
	sqlite3_uint64 omitted = 0;	/* columns whose constraints SQLite leaves to us */
	unsigned fields = fields_used(info->colUsed, ncols);
	int tracks = 0;

	for (int c = C_QUEUE; c <= C_Q2C && c < ncols; c++)
		tracks |= (info->colUsed & ((sqlite3_uint64)1 << c)) != 0;
	buf[0] = 0;
	if (!pushdown) {
		info->idxNum = SQL_PLAN_OFF | VXT_FIELD_ALL | (tracks ? SQL_PLAN_TRACK : 0);
		info->idxStr = sqlite3_mprintf("no pushdown (vxt_pushdown(0))");
		info->needToFreeIdxStr = 1;
		info->estimatedCost = rows;
		info->estimatedRows = (sqlite3_int64)rows;
		return info->idxStr ? SQLITE_OK : SQLITE_NOMEM;
	}
	for (int i = 0; i < info->nConstraint; i++) {
		bool exact;
		int p;

		if (!info->aConstraint[i].usable)
			continue;
		p = classify(info, i, &exact);
		if (p < 0)
			continue;
		if (p == P_OBJ_EQ || p == P_OBJ_IN) {
			if (have_obj)
				continue;	/* one object constraint is pushed; SQLite checks the rest */
			have_obj = true;
			if (p == P_OBJ_IN)
				sqlite3_vtab_in(info, i, 1);
			rows *= 0.2;
		} else if (p == P_ERR_NE0) {
			rows *= 0.01;
		} else {
			rows *= p == P_TIME_EQ || p == P_REAL_EQ ? 0.001 : 0.25;
		}
		info->aConstraintUsage[i].argvIndex = ++argv;
		info->aConstraintUsage[i].omit = exact;
		if (exact && info->aConstraint[i].iColumn < 63)
			omitted |= (sqlite3_uint64)1 << info->aConstraint[i].iColumn;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " AND " : "",
					pred_token[p]);
		if (len >= sizeof(buf))
			return SQLITE_ERROR;
	}
	/* ORDER BY object or GROUP BY object: rows come object by object, in
	 * name order, one pass over the object's chunks each (no sorter) */
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == C_OBJECT &&
	    !info->aOrderBy[0].desc && !tracks) {
		info->orderByConsumed = 1;
		by_object = true;
	}
	/* a column named beyond the omitted constraints' may be read from
	 * every row (a column also named elsewhere counts as omitted: such
	 * rows are decoded when asked for) */
	info->idxNum = (int)fields | (tracks ? SQL_PLAN_TRACK : 0) |
		       (by_object ? SQL_PLAN_BYOBJ : 0) |
		       ((info->colUsed & ~omitted) ? SQL_PLAN_COLS : 0);
	info->idxStr = sqlite3_mprintf("%s%sdecode 0x%x%s%s", buf, len ? "; " : "", fields,
				       tracks ? "; phases paired" : "",
				       by_object ? "; by object" : "");
	info->needToFreeIdxStr = 1;
	info->estimatedCost = rows + 1;
	info->estimatedRows = (sqlite3_int64)rows + 1;
	return info->idxStr ? SQLITE_OK : SQLITE_NOMEM;
}

/* Narrow [*lo, *hi] by "col OP v". */
static void narrow(uint64_t *lo, uint64_t *hi, int op, sqlite3_value *v)
{
	int t = sqlite3_value_type(v);
	double x;
	uint64_t a, b;

	if (t == SQLITE_INTEGER) {
		int64_t i = sqlite3_value_int64(v);

		a = i < 0 ? 0 : (uint64_t)i;			/* time >= i */
		b = i < 0 ? 0 : (uint64_t)i;			/* time <= i */
		if (op == 1)
			a = i < 0 ? 0 : (uint64_t)i + 1;	/* time > i */
		if ((op == 2 || op == 4) && i < 0) {
			*lo = 1, *hi = 0;
			return;
		}
		if (op == 3) {
			if (i <= 0) {
				*lo = 1, *hi = 0;
				return;
			}
			b = (uint64_t)i - 1;
		}
	} else if (t == SQLITE_FLOAT) {
		/* not omitted: SQLite checks the exact bound, the index a wider one */
		x = sqlite3_value_double(v);
		if (isnan(x))
			return;
		a = x <= 0 ? 0 : x >= 1.8e19 ? UINT64_MAX : (uint64_t)floor(x);
		if (x < 0 && (op == 2 || op == 3 || op == 4)) {
			*lo = 1, *hi = 0;
			return;
		}
		b = x <= 0 ? 0 : x >= 1.8e19 ? UINT64_MAX : (uint64_t)ceil(x);
	} else {
		return;		/* text, blob, NULL: SQLite decides, the index narrows nothing */
	}
	if ((op == 0 || op == 1 || op == 4) && a > *lo)
		*lo = a;
	if ((op == 2 || op == 3 || op == 4) && b < *hi)
		*hi = b;
}

static int64_t clamp_i64(double x)
{
	return x <= -9.2e18 ? INT64_MIN : x >= 9.2e18 ? INT64_MAX : (int64_t)x;
}

/* Narrow [*lo, *hi] by "real_ns OP v": real_ns is signed (a clock anchor
 * may put events before 1970), so no bound is clamped at 0. */
static void narrow_real(int64_t *lo, int64_t *hi, int op, sqlite3_value *v)
{
	int t = sqlite3_value_type(v);
	int64_t a, b;

	if (t == SQLITE_INTEGER) {
		int64_t i = sqlite3_value_int64(v);

		a = b = i;
		if (op == 1 && i == INT64_MAX) {		/* real > INT64_MAX */
			*lo = 1, *hi = 0;
			return;
		}
		if (op == 3 && i == INT64_MIN) {		/* real < INT64_MIN */
			*lo = 1, *hi = 0;
			return;
		}
		if (op == 1)
			a = i + 1;
		if (op == 3)
			b = i - 1;
	} else if (t == SQLITE_FLOAT) {
		/* not omitted: SQLite checks the exact bound, the index a wider one */
		double x = sqlite3_value_double(v);

		if (isnan(x))
			return;
		a = clamp_i64(floor(x));
		b = clamp_i64(ceil(x));
	} else {
		return;		/* text, blob, NULL: SQLite decides, the index narrows nothing */
	}
	if ((op == 0 || op == 1 || op == 4) && a > *lo)
		*lo = a;
	if ((op == 2 || op == 3 || op == 4) && b < *hi)
		*hi = b;
}

static int add_name(struct sql_plan *p, const char *s)
{
	char **n = realloc(p->names, (p->nnames + 1) * sizeof(*n));

	if (!n)
		return -1;
	p->names = n;
	n[p->nnames] = strdup(s ? s : "");
	if (!n[p->nnames])
		return -1;
	p->nnames++;
	return 0;
}

int sql_plan_parse(struct sql_plan *p, int idx_num, const char *idx_str, int argc,
		   sqlite3_value **argv)
{
	const char *s = idx_str ? idx_str : "";
	int k = 0;

	memset(p, 0, sizeof(*p));
	p->hi = UINT64_MAX;
	p->rlo = INT64_MIN;
	p->rhi = INT64_MAX;
	p->pushdown = !(idx_num & SQL_PLAN_OFF);
	p->track = (idx_num & SQL_PLAN_TRACK) != 0;
	p->byobj = (idx_num & SQL_PLAN_BYOBJ) != 0;
	p->cols = (idx_num & SQL_PLAN_COLS) != 0;
	p->fields = (unsigned)idx_num & VXT_FIELD_ALL;
	if (!p->pushdown)
		return SQLITE_OK;
	while (*s && *s != ';' && k < argc) {
		int pr = -1;

		for (int i = 0; i < P_COUNT; i++) {
			size_t l = strlen(pred_token[i]);

			if (!strncmp(s, pred_token[i], l) && (!s[l] || s[l] == ' ' || s[l] == ';')) {
				pr = i;
				s += l;
				break;
			}
		}
		if (pr < 0)
			return SQLITE_INTERNAL;
		if (pr <= P_TIME_EQ) {
			narrow(&p->lo, &p->hi, pr - P_TIME_GE, argv[k]);
		} else if (pr <= P_REAL_EQ) {
			narrow_real(&p->rlo, &p->rhi, pr - P_REAL_GE, argv[k]);
		} else if (pr == P_OBJ_EQ) {
			p->objs = true;
			if (sqlite3_value_type(argv[k]) != SQLITE_NULL &&
			    add_name(p, (const char *)sqlite3_value_text(argv[k])) < 0)
				return SQLITE_NOMEM;
		} else if (pr == P_OBJ_IN) {
			sqlite3_value *v;
			int rc;

			p->objs = true;
			for (rc = sqlite3_vtab_in_first(argv[k], &v); rc == SQLITE_OK && v;
			     rc = sqlite3_vtab_in_next(argv[k], &v))
				if (sqlite3_value_type(v) != SQLITE_NULL &&
				    add_name(p, (const char *)sqlite3_value_text(v)) < 0)
					return SQLITE_NOMEM;
			if (rc != SQLITE_OK && rc != SQLITE_DONE)
				return rc;
		} else {
			p->err = true;
		}
		k++;
		if (!strncmp(s, " AND ", 5))
			s += 5;
	}
	return SQLITE_OK;
}

void sql_plan_free(struct sql_plan *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	p->names = NULL;
	p->nnames = 0;
}
