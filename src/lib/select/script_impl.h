/* script_impl.h - the D-style script's tokens, tree and run-time state
 * (internal to libvxtrace)
 *
 * script_lex.c turns text into tokens, script_parse.c builds clauses of
 * expression trees, script_check.c resolves names and types and applies
 * D's rules, script_eval.c runs the clauses over events with the
 * speculative buffers, script_agg.c keeps and prints aggregations,
 * script_tab.c is the hash table behind variables and aggregations.
 */
#ifndef VXT_SCRIPT_IMPL_H
#define VXT_SCRIPT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vxtrace/script.h"

#define S_MAX_KEYS	8	/* keys of an associative array or aggregation */
#define S_MAX_ARGS	16	/* arguments of a call */
#define S_MAX_CLAUSES	256
#define S_MAX_DEPTH	64	/* expression nesting */
#define S_TEXT_MAX	4096	/* text one clause may record */

/* ---- tokens ---- */

enum stok {
	ST_END, ST_IDENT, ST_NUM, ST_STR, ST_PROBE, ST_AGG, ST_PRAGMA,
	ST_LBRACE, ST_RBRACE, ST_LPAREN, ST_RPAREN, ST_LBRACK, ST_RBRACK,
	ST_COMMA, ST_SEMI, ST_SLASH, ST_ARROW, ST_QUEST, ST_COLON,
	ST_ASSIGN, ST_ADDEQ, ST_SUBEQ, ST_MULEQ, ST_DIVEQ, ST_INC, ST_DEC,
	ST_OROR, ST_ANDAND, ST_XORXOR, ST_OR, ST_XOR, ST_AND,
	ST_EQ, ST_NE, ST_LT, ST_LE, ST_GT, ST_GE, ST_SHL, ST_SHR,
	ST_PLUS, ST_MINUS, ST_STAR, ST_PERCENT, ST_NOT, ST_TILDE,
	ST_ERROR,
};

struct stoken {
	enum stok type;
	unsigned line, col;
	int64_t num;
	char *str;		/* ST_IDENT, ST_STR, ST_PROBE, ST_AGG, ST_PRAGMA: owned by the lexer */
	char msg[120];		/* ST_ERROR */
};

struct slexer {
	const char *src;
	size_t len, pos;
	unsigned line, col;
	char **strs;		/* every string handed out, freed with the lexer */
	size_t nstrs, capstrs;
};

void vxt_slex_init(struct slexer *lx, const char *src, size_t len);
/* Next token. @return 0, or -ENOMEM. Problems come back as ST_ERROR. */
int vxt_slex_next(struct slexer *lx, struct stoken *t);
/* As vxt_slex_next(), reading a probe description where a word starts. */
int vxt_slex_probe(struct slexer *lx, struct stoken *t);
void vxt_slex_free(struct slexer *lx);
const char *vxt_stok_name(enum stok t);

/* ---- values ---- */

enum stype { SV_NONE, SV_INT, SV_STR };

struct sval {
	uint8_t type;		/* enum stype; SV_NONE = unset (reads as 0) */
	int64_t i;
	const char *s;		/* SV_STR: borrowed from the script or the tables */
};

/* ---- the tree ---- */

enum snk {
	SN_NUM, SN_STR, SN_FIELD, SN_GLOBAL, SN_THIS, SN_SELF, SN_REQ, SN_ARRAY,
	SN_UNARY, SN_BINARY, SN_AND, SN_OR, SN_XORXOR, SN_COND, SN_ASSIGN, SN_INCDEC,
	SN_CALL, SN_AGG, SN_AGGSET,
};

/* Fields of the event; names in script_check.c. */
enum sfield {
	SF_TIME, SF_OBJECT, SF_DEV, SF_PHASE, SF_OP, SF_FLAGS, SF_SECTOR, SF_BYTES,
	SF_LATENCY, SF_ERROR, SF_PID, SF_COMM, SF_CPU, SF_TIMESTAMP, SF_EXECNAME,
	SF_PROBENAME, SF_COUNT
};

enum sfunc {
	FN_SPECULATION, FN_SPECULATE, FN_COMMIT, FN_DISCARD, FN_TRACE, FN_PRINTF,
	FN_EXIT, FN_PRINTA, FN_CLEAR, FN_TRUNC,
	/* aggregating functions, only on the right of @a[...] = */
	FN_COUNT, FN_SUM, FN_AVG, FN_MIN, FN_MAX, FN_QUANTIZE, FN_LQUANTIZE,
	FN_NFUNCS
};

struct snode {
	uint8_t kind;		/* enum snk */
	uint8_t type;		/* enum stype, set by the checker */
	int op;			/* SN_UNARY, SN_BINARY, SN_ASSIGN, SN_INCDEC: enum stok */
	unsigned line, col;
	int64_t num;		/* SN_NUM; SN_INCDEC: 1 = postfix */
	const char *str;	/* SN_STR; names of variables, fields, functions */
	int idx;		/* field, variable slot, function, aggregation */
	struct snode *a, *b, *c;	/* operands; SN_ASSIGN: a = target, b = value */
	struct snode **args;	/* SN_CALL, SN_ARRAY and SN_AGG keys, SN_AGGSET: value args */
	unsigned nargs;
	struct snode **keys;	/* SN_AGGSET: keys */
	unsigned nkeys;
	struct sfmt *fmt;	/* printf: the parsed format */
};

/* A conversion of a printf format. */
struct sconv {
	char spec[24];		/* "%-8lld" etc., for snprintf */
	char conv;		/* d i u x X o c s, or 0 for literal text */
	const char *text;	/* conv 0: the literal text */
	size_t tlen;
};

struct sfmt {
	struct sconv *c;
	unsigned n;
};

/* Probes. */
#define SP_QUEUE	0x01u
#define SP_START	0x02u
#define SP_DONE		0x04u
#define SP_REQUEUE	0x08u
#define SP_ERROR	0x10u
#define SP_LOST		0x20u
#define SP_BEGIN	0x40u
#define SP_END		0x80u
#define SP_TICK		0x100u

struct sclause {
	unsigned probes;
	uint64_t tick_ns;	/* SP_TICK */
	unsigned tick_idx;	/* which tick schedule */
	char probe_text[64];	/* the first probe as written, for messages */
	struct snode *pred;
	struct snode **stmts;
	unsigned nstmts;
	unsigned line, col;
	bool records;		/* has speculate, trace, printf or printa, or no statements */
	bool has_default;	/* no statements: records the event itself */
	bool has_text;		/* has trace or printf */
};

/* ---- variables and aggregations: one hash table ---- */

struct skey {
	uint32_t ns;		/* namespace: variable or aggregation */
	uint32_t n;
	struct sval k[S_MAX_KEYS];
};

struct sent {
	uint64_t hash;		/* 0 = empty slot */
	struct skey key;
	struct sval val;	/* variables */
	void *agg;		/* aggregations: their data */
	uint64_t order;		/* insertion order */
};

struct stab {
	struct sent *e;
	size_t cap, n;
	uint64_t next_order;
};

uint64_t vxt_stab_hash(const struct skey *k);
struct sent *vxt_stab_find(struct stab *t, const struct skey *k, uint64_t h);
/* Insert @k (not present). @return the entry, or NULL when out of memory. */
struct sent *vxt_stab_insert(struct stab *t, const struct skey *k, uint64_t h);
void vxt_stab_delete(struct stab *t, struct sent *e);
void vxt_stab_free(struct stab *t);
bool vxt_sval_eq(const struct sval *a, const struct sval *b);

/* ---- aggregations ---- */

#define QZ_BUCKETS	128	/* quantize: 64 negative powers, 0, 63 positive */

struct sagg {
	char name[64];
	int fn;			/* enum sfunc; -1 until first defined */
	unsigned nkeys;
	int64_t lq_lo, lq_hi, lq_step;	/* lquantize */
	unsigned line, col;	/* where first defined */
	bool printed;		/* printa() ran on it */
	struct stab tab;	/* keys -> struct saggval */
	size_t entries;
};

struct saggval {
	int64_t count, sum, min, max;
	uint64_t *buckets;	/* quantize / lquantize */
	unsigned nbuckets;
};

/* Add @v (@v2 unused) to the entry for @key of @a. @return 0, -ENOSPC
 * (aggsize), -ENOMEM. */
struct vxt_script;
int vxt_sagg_add(struct vxt_script *s, struct sagg *a, const struct skey *key, int64_t v);
/* Print @a in DTrace's layout into @out (an open memstream). */
void vxt_sagg_print(const struct vxt_script *s, struct sagg *a, FILE *out);
void vxt_sagg_clear(struct vxt_script *s, struct sagg *a, bool trunc, int64_t keep);
void vxt_sagg_free(struct sagg *a);
size_t vxt_sagg_entry_size(const struct sagg *a);

/* ---- speculative buffers ---- */

enum sbstate { SB_FREE, SB_ACTIVE, SB_BUSY };

struct srec {
	bool has_event;
	struct vxt_event ev;
	uint64_t ordinal;
	char *text;		/* owned, may be NULL */
	size_t len;
};

struct sspec {
	uint8_t state;		/* enum sbstate */
	struct srec *recs;
	size_t n, cap;
	uint64_t bytes;
};

/* ---- in-flight requests, for req-> ---- */

struct sreq {
	uint64_t id;
	bool started;
};

struct sreqq {			/* the I/Os in flight with one (object, sector, bytes) */
	struct sreq *q;
	unsigned n, cap;
};

/* ---- the script ---- */

struct svar {
	char name[64];
	uint8_t scope;		/* SN_GLOBAL, SN_THIS, SN_SELF, SN_REQ, SN_ARRAY */
	uint8_t type;		/* enum stype */
	unsigned nkeys;		/* SN_ARRAY */
	bool assigned;
	unsigned line, col;	/* first use */
};

struct vxt_script {
	char file[256];
	char name[64];
	struct vxt_script_options opt;
	struct sclause *cl;
	unsigned ncl;
	struct svar *vars;
	unsigned nvars, capvars;
	struct sagg *aggs;
	unsigned naggs, capaggs;
	uint64_t *ticks;	/* distinct tick intervals */
	unsigned nticks;
	uint64_t *next_tick;
	/* tree memory */
	void **mem;
	size_t nmem, capmem;

	/* run time */
	const struct vxt_objtab *objs;
	const struct vxt_strtab *strs;
	vxt_script_sink_fn sink;
	void *sink_arg;
	uint64_t time_base, now, last_clean, clean_ns;
	bool live, started, ended, exited, have_now;
	bool started_output;	/* the column header went out */
	bool uses_req;		/* some req-> variable: requests are tracked */
	uint64_t spec_bytes;	/* in speculative buffers */
	int exit_code;
	struct sval *globals;
	struct sval *thisv;
	struct stab vtab;	/* self->, req->, arrays */
	struct sspec *spec;
	uint64_t nbusy;		/* ids in busyl */
	uint32_t *freel, *busyl;	/* free and busy buffer ids */
	uint32_t nfree;
	struct stab reqs;	/* (object, sector, bytes) -> struct sreqq * in .agg */
	uint64_t next_req;
	uint64_t agg_bytes;
	struct vxt_script_stats st;
	char *text;		/* the clause's record text */
	size_t tlen;
	char *errs_seen;	/* which clause had a run-time error already reported */
};

/* script_parse.c: @return 0, or -EINVAL with the message in @err. */
int vxt_script_parse(struct vxt_script *s, const char *text, size_t len, char *err);
void *vxt_script_alloc(struct vxt_script *s, size_t size);
int vxt_script_set_option(struct vxt_script *s, const char *name, const char *value,
			  unsigned line, unsigned col, char *err);
/* script_check.c */
int vxt_script_check(struct vxt_script *s, char *err);
/* script_eval.c: run the BEGIN clauses. */
int vxt_script_run_begin(struct vxt_script *s);
int vxt_script_field(const char *name);
const char *vxt_script_func_name(int fn);
int vxt_script_func(const char *name);
int vxt_script_errno(const char *name);
/* the one-line "file:line:col: message" */
int vxt_script_fail(const struct vxt_script *s, char *err, unsigned line, unsigned col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
