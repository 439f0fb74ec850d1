/* funcs.c - the SQL functions that come with the vxtrace module
 *
 *   vxt_percentile(x, p)    aggregate: the exact p-quantile (nearest rank) of x,
 *                           p in 0..1 (or 0..100 when above 1); NULLs ignored
 *   vxt_lat_quantile(x, p)  aggregate: the quantile of the reports' latency
 *                           histogram (the same number --report gives)
 *   vxt_hist_percentile(hist, p)  aggregate: the quantile of the latency
 *                           table's histograms merged (as vxt_lat_quantile)
 *   vxt_time(real_ns)       UTC wall clock "2026-12-01T10:30:20.123456789Z"
 *   vxt_errno(e)            errno name: 5 or -5 -> "EIO", 0 -> ""
 *   vxt_pushdown([on])      pushdown on (1) or off (0) for statements prepared
 *                           afterwards; returns the setting before the call
 *   vxt_group_memory([bytes])  memory for the rows ORDER BY / GROUP BY object
 *                           keeps per read of the files (default 256 MiB; 0:
 *                           one read per object); returns the setting before
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/sql_impl.h"

struct pctl {
	double *v;
	size_t n, cap;
	double p;
	bool reals;		/* a REAL was seen: the result is REAL */
	bool bad_p;
};

static double pctl_p(sqlite3_value *v, bool *bad)
{
	double p = sqlite3_value_double(v);
	int t = sqlite3_value_type(v);

	if ((t != SQLITE_INTEGER && t != SQLITE_FLOAT) || isnan(p) || p < 0 || p > 100) {
		*bad = true;
		return 0;
	}
	return p > 1 ? p / 100 : p;
}

static void pctl_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pctl *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	int t = sqlite3_value_type(argv[0]);

	(void)argc;
	if (!a)
		return sqlite3_result_error_nomem(ctx);
	if (!a->n && !a->cap)
		a->p = pctl_p(argv[1], &a->bad_p);
	if (t == SQLITE_NULL)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		double *v = sqlite3_realloc64(a->v, cap * sizeof(*v));

		if (!v)
			return sqlite3_result_error_nomem(ctx);
		a->v = v;
		a->cap = cap;
	}
	a->reals |= t != SQLITE_INTEGER;
	a->v[a->n++] = sqlite3_value_double(argv[0]);
}

/* Put the @k-th smallest of @v[0..n) at v[k] (Hoare's selection, median of
 * three pivots): linear on average, where a sort is n log n. */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = v[lo], b = v[mid], c = v[hi], pivot, t;

		pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i], v[i] = v[j], v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;	/* v[j+1 .. i-1] all equal the pivot */
	}
}

static void pctl_final(sqlite3_context *ctx)
{
	struct pctl *a = sqlite3_aggregate_context(ctx, 0);
	size_t k;

	if (!a)
		return;		/* no rows: NULL */
	if (a->bad_p) {
		sqlite3_result_error(ctx, "vxt_percentile: p must be a number in 0..1 (or 0..100)",
				     -1);
	} else if (a->n) {
		k = (size_t)vxt_latdist_rank(a->p, a->n) - 1;
		select_kth(a->v, a->n, k);
		if (a->reals)
			sqlite3_result_double(ctx, a->v[k]);
		else
			sqlite3_result_int64(ctx, (sqlite3_int64)a->v[k]);
	}
	sqlite3_free(a->v);
}

/* vxt_lat_quantile(x, p) and vxt_hist_percentile(hist, p): a quantile of
 * the reports' histogram, of the values or of the latency table's
 * histograms merged */
struct histq {
	struct vxt_latdist h;
	double p;
	bool started, bad_p, bad_blob;
};

/* The aggregate's state, p read from the first row. NULL: out of memory. */
static struct histq *histq_get(sqlite3_context *ctx, sqlite3_value **argv)
{
	struct histq *a = sqlite3_aggregate_context(ctx, sizeof(*a));

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	if (!a->started) {
		a->started = true;
		a->p = pctl_p(argv[1], &a->bad_p);
	}
	return a;
}

static void latq_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct histq *a = histq_get(ctx, argv);
	sqlite3_int64 v;

	(void)argc;
	if (!a || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	v = sqlite3_value_int64(argv[0]);
	if (vxt_latdist_add(&a->h, v < 0 ? 0 : (uint64_t)v) < 0)
		sqlite3_result_error_nomem(ctx);
}

static void histq_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct histq *a = histq_get(ctx, argv);
	int rc;

	(void)argc;
	if (!a || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
		a->bad_blob = true;
		return;
	}
	rc = vxt_latdist_merge_encoded(&a->h, sqlite3_value_blob(argv[0]),
				       (size_t)sqlite3_value_bytes(argv[0]));
	if (rc == -ENOMEM)
		sqlite3_result_error_nomem(ctx);
	else if (rc < 0)
		a->bad_blob = true;
}

static void histq_result(sqlite3_context *ctx, const char *bad_p_msg)
{
	struct histq *a = sqlite3_aggregate_context(ctx, 0);

	if (!a)
		return;		/* no rows: NULL */
	if (a->bad_p)
		sqlite3_result_error(ctx, bad_p_msg, -1);
	else if (a->bad_blob)
		sqlite3_result_error(ctx, "vxt_hist_percentile: not a hist column of the latency table",
				     -1);
	else if (a->h.count)
		sqlite3_result_int64(ctx, (sqlite3_int64)vxt_latdist_quantile(&a->h, a->p));
	vxt_latdist_free(&a->h);
}

static void latq_final(sqlite3_context *ctx)
{
	histq_result(ctx, "vxt_lat_quantile: p must be a number in 0..1 (or 0..100)");
}

static void histq_final(sqlite3_context *ctx)
{
	histq_result(ctx, "vxt_hist_percentile: p must be a number in 0..1 (or 0..100)");
}

static void fn_time(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[64];
	sqlite3_int64 v;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	v = sqlite3_value_int64(argv[0]);
	if (v < 0)
		return sqlite3_result_error(ctx, "vxt_time: a negative time", -1);
	sqlite3_result_text(ctx, sql_format_wall((uint64_t)v, buf, sizeof(buf)), -1,
			    SQLITE_TRANSIENT);
}

static void fn_errno(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 e;
	const char *n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	e = sqlite3_value_int64(argv[0]);
	if (!e)
		return sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
	n = e > -100000 && e < 100000 ? vxt_errno_name((int)e) : NULL;
	if (n)
		sqlite3_result_text(ctx, n, -1, SQLITE_STATIC);
	else
		sqlite3_result_text(ctx, sqlite3_mprintf("%lld", e < 0 ? -e : e), -1, sqlite3_free);
}

static void fn_pushdown(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sql_ctx *c = sqlite3_user_data(ctx);
	int was = c->pushdown;

	if (argc == 1)
		c->pushdown = sqlite3_value_int(argv[0]) != 0;
	sqlite3_result_int(ctx, was);
}

static void fn_group_memory(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sql_ctx *c = sqlite3_user_data(ctx);
	sqlite3_int64 was = (sqlite3_int64)c->group_memory, v;

	if (argc == 1) {
		v = sqlite3_value_int64(argv[0]);
		if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || v < 0) {
			sqlite3_result_error(ctx, "vxt_group_memory: bytes must be an integer >= 0", -1);
			return;
		}
		c->group_memory = (uint64_t)v;
	}
	sqlite3_result_int64(ctx, was);
}

int sql_funcs_register(sqlite3 *db, struct sql_ctx *ctx)
{
	const int det = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
	int rc = sqlite3_create_function(db, "vxt_percentile", 2, det, NULL, NULL, pctl_step,
					 pctl_final);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "vxt_lat_quantile", 2, det, NULL, NULL, latq_step,
					     latq_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "vxt_hist_percentile", 2, det, NULL, NULL,
					     histq_step, histq_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "vxt_time", 1, det, NULL, fn_time, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "vxt_errno", 1, det, NULL, fn_errno, NULL, NULL);
	for (int n = 0; n <= 1 && rc == SQLITE_OK; n++)
		rc = sqlite3_create_function(db, "vxt_pushdown", n, SQLITE_UTF8, ctx, fn_pushdown,
					     NULL, NULL);
	for (int n = 0; n <= 1 && rc == SQLITE_OK; n++)
		rc = sqlite3_create_function(db, "vxt_group_memory", n, SQLITE_UTF8, ctx,
					     fn_group_memory, NULL, NULL);
	return rc;
}
