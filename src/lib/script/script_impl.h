/* script_impl.h - the D-style script's tokens, tree and run-time state
 * (internal to libvxtrace)
 *
 * script_lex.c turns text into tokens, script_parse.c builds clauses of
 * expression trees, script_check.c resolves names and types and applies
 * D's rules, script_depth.c bounds the trees' depth, compile.c and
 * compile_clause.c turn the clauses into programs of ops (program.h) that
 * vm.c runs over events (event_int.h reads their integer fields) with the
 * speculative buffers (script_spec.c), script_agg.c keeps and prints
 * aggregations, script_tab.c is the hash table behind variables and
 * aggregations, script_reqtab.c the table of the I/Os in flight req->
 * follows.
 */
#ifndef VXT_SCRIPT_IMPL_H
#define VXT_SCRIPT_IMPL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vxtrace/phasepair.h"
#include "vxtrace/script.h"

#define S_MAX_KEYS	8	/* keys of an associative array or aggregation */
#define S_MAX_ARGS	32	/* arguments of a call */
#define S_MAX_CLAUSES	256
#define S_MAX_DEPTH	64	/* expression nesting the parser recurses into */
#define S_MAX_TREE_DEPTH	256	/* a tree's depth (left-associative chains) */
#define S_TEXT_MAX	4096	/* text one clause may record */
#define S_FMT_WIDTH_MAX	S_TEXT_MAX	/* a printf width or precision */

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

struct script_value {
	uint8_t type;		/* enum stype; SV_NONE = unset (reads as 0) */
	int64_t i;
	const char *s;		/* SV_STR: borrowed from the script or the tables */
};

/* Whether assigning @v frees a dynamic variable: D's 0, and for a string
 * "" (what `s = 0` lowers to). */
static inline bool vxt_value_frees(const struct script_value *v)
{
	return v->type == SV_STR ? !v->s[0] : v->i == 0;
}

/* ---- the tree ---- */

enum snk {
	SN_NUM, SN_STR, SN_FIELD, SN_GLOBAL, SN_THIS, SN_SELF, SN_REQ, SN_ARRAY,
	SN_UNARY, SN_BINARY, SN_AND, SN_OR, SN_XORXOR, SN_COND, SN_ASSIGN, SN_INCDEC,
	SN_CALL, SN_AGG, SN_AGGSET,
	SN_KEYED,		/* a profile's keyed speculation step (script_keyed.c) */
	SN_GLOB,		/* a filter's name pattern (filter_lower.c): a matches str */
	SN_KNOWN,		/* a filter's `q2c` alone: interval field idx is known */
};

#define SK_ACTIVE	(-1)	/* SN_KEYED's idx: `spec`, the event's key has an
				 * active speculation */

/* Fields of the event; names in script_check.c. */
enum sfield {
	SF_TIME, SF_OBJECT, SF_DEV, SF_PHASE, SF_OP, SF_FLAGS, SF_SECTOR, SF_BYTES,
	SF_LATENCY, SF_ERROR, SF_PID, SF_COMM, SF_CPU, SF_TIMESTAMP, SF_EXECNAME,
	SF_PROBENAME, SF_HOST,
	SF_Q2D, SF_D2C, SF_Q2C, SF_Q2G, SF_G2I, SF_I2D,	/* VXT_IV_* order (phasepair.h) */
	SF_ARG0,		/* D's arg0: the I/O's identity (its request), 0 without one */
	SF_WALLTIMESTAMP,	/* the event's time on the wall clock, ns since the epoch */
	SF_PROBEPROV, SF_PROBEMOD, SF_PROBEFUNC,	/* the firing probe's description */
	SF_COUNT
};

enum sfunc {
	FN_SPECULATION, FN_SPECULATE, FN_COMMIT, FN_DISCARD, FN_TRACE, FN_PRINTF,
	FN_EXIT, FN_PRINTA, FN_CLEAR, FN_TRUNC, FN_NORMALIZE, FN_DENORMALIZE,
	FN_BT,			/* a bpftrace action D lacks, script_node.num says which (bt_run.c) */
	/* aggregating functions, only on the right of @a[...] = */
	FN_COUNT, FN_SUM, FN_AVG, FN_MIN, FN_MAX, FN_QUANTIZE, FN_LQUANTIZE, FN_STDDEV, FN_LLQUANTIZE,
	FN_NFUNCS
};

struct firing;
struct script_node;
struct vxt_program;

struct script_node {
	uint8_t kind;		/* enum snk */
	uint8_t type;		/* enum stype, set by the checker */
	int op;			/* SN_UNARY, SN_BINARY, SN_ASSIGN, SN_INCDEC: enum stok */
	unsigned line, col;
	int64_t num;		/* SN_NUM; SN_INCDEC: 1 = postfix */
	const char *str;	/* SN_STR; names of variables, fields, functions */
	int idx;		/* field, variable slot, function, aggregation */
	struct script_node *a, *b, *c;	/* operands; SN_ASSIGN: a = target, b = value */
	struct script_node **args;	/* SN_CALL, SN_ARRAY and SN_AGG keys, SN_AGGSET: value args */
	unsigned nargs;
	struct script_node **keys;	/* SN_AGGSET: keys */
	unsigned nkeys;
	struct sfmt *fmt;	/* printf: the parsed format */
	const char *standin;	/* what it reads instead of what a block trace lacks
				 * (script_dlang.c), said at load when it is kept */
};

/* A conversion of a printf format. */
struct sconv {
	char spec[24];		/* "%-8lld" etc., for snprintf */
	char conv;		/* d i u x X o c s S Y, @ (printa's value), or 0 for literal text */
	const char *text;	/* conv 0: the literal text */
	size_t tlen;
};

struct sfmt {
	struct sconv *c;
	unsigned n;
};

/* The conversions of printf() or printa() format @f (printa: %@ takes the
 * value, the others the keys). @return the number of value conversions
 * (%@), or -EINVAL with a message in @err. */
struct vxt_script;
int vxt_script_parse_format(struct vxt_script *s, const char *f, bool printa,
			    struct sconv *c, unsigned max, unsigned *nc, unsigned line, unsigned col,
			    char *err);
/* Format one conversion @c of an integer (@is_str false) or string value
 * into @buf (%Y as a date, %S escaped). */
void vxt_script_format_conv(const struct sconv *c, bool is_str, int64_t i, const char *str,
			    char *buf, size_t size);

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
#define SP_OTHER	0x200u	/* any other phase (merge, plug ...): profiles only */

struct sclause {
	unsigned probes;
	uint64_t tick_ns;	/* SP_TICK */
	unsigned tick_idx;	/* which tick schedule */
	char probe_text[64];	/* the first probe as written, for messages */
	struct script_node *pred;
	struct script_node **stmts;
	unsigned nstmts;
	unsigned line, col;
	bool records;		/* has speculate, trace, printf or printa, or no statements */
	bool has_default;	/* no statements: records the event itself */
	bool folded;		/* its statements were ?: of constants that do nothing */
	bool has_text;		/* has trace or printf */
	uint64_t rec_bits;	/* its records' SREC_* clause and SREC_OWN bits */
	unsigned done_probe;	/* the probe that runs it on a failed done: SP_DONE or SP_ERROR */
};

/* ---- variables and aggregations: hash tables of packed entries ---- */

/* A key as the code passes it (on the stack). */
struct skey {
	uint32_t ns;		/* namespace: which array */
	uint32_t n;
	struct script_value k[S_MAX_KEYS];
};

/* An entry as a table keeps it: its key packed (an integer, or an interned
 * string's pointer, 8 bytes a value), then its value (the table's vsize
 * bytes: an array's struct script_value, an aggregation's struct saggval prefix).
 * Entries live in blocks that never move: a pointer to one stays valid
 * until it is deleted. */
struct sent {
	uint64_t hash;
	uint32_t ns;
	uint8_t n;
	uint8_t strs;		/* bit i: k[i] is a string */
	uint16_t resv;
	int64_t k[];		/* the table's maxkeys slots, then the value */
};

/* Open addressing with linear probing over 4-byte slots (0 empty, else an
 * entry's number + 1), so a key costs 4 slots of 4 bytes (the slots double
 * past half full) and its entry: 16 bytes, 8 a key value, and the value. */
struct stab {
	uint32_t *slot;
	size_t cap, n;
	unsigned maxkeys;	/* set by vxt_stab_init() before the first insert */
	size_t vsize, esize;
	char **blocks;		/* 1, 2, 4 ... S_TAB_BLOCK entries, then S_TAB_BLOCK each */
	size_t nblocks;
	uint32_t nent;		/* entries handed out */
	uint32_t room;		/* entries the blocks hold */
	uint32_t freel;		/* a deleted entry's number + 1, 0 = none */
};

#define S_TAB_SHIFT	8
#define S_TAB_BLOCK	(1u << S_TAB_SHIFT)

/* A small table keyed by two integers (requests, self-> per pid); p NULL = empty. */
struct ient {
	uint64_t a, b;
	void *p;
};

struct itab {
	struct ient *e;
	size_t cap, n;
};

struct ient *vxt_itab_find(const struct itab *t, uint64_t a, uint64_t b);
/* Insert (@a, @b) -> @p (not present, @p not NULL). @return 0 or -ENOMEM. */
int vxt_itab_put(struct itab *t, uint64_t a, uint64_t b, void *p);
/* The entry of (@a, @b), made (*@made true, its p NULL: the caller sets it
 * before any other call on @t, or deletes it) when absent. Entries stay
 * where they are until the next put, claim or delete. @return NULL when
 * out of memory. */
struct ient *vxt_itab_claim(struct itab *t, uint64_t a, uint64_t b, bool *made);
void vxt_itab_delete(struct itab *t, struct ient *e);
void vxt_itab_free(struct itab *t);

/* Entries of at most @maxkeys key values and a value of @vsize bytes (a
 * multiple of 8). Can't fail. */
void vxt_stab_init(struct stab *t, unsigned maxkeys, size_t vsize);
uint64_t vxt_stab_hash(const struct skey *k);
struct sent *vxt_stab_find(const struct stab *t, const struct skey *k, uint64_t h);
/* Insert @k (not present; its strings interned: the entry keeps their
 * pointers), its value zeroed. @return the entry, or NULL when out of
 * memory. */
struct sent *vxt_stab_insert(struct stab *t, const struct skey *k, uint64_t h);
void vxt_stab_delete(struct stab *t, struct sent *e);
void vxt_stab_free(struct stab *t);
/* The entry in slot @i (i < cap), NULL when empty. */
struct sent *vxt_stab_at(const struct stab *t, size_t i);
/* What a key costs in @t: 4 slots and its entry. */
size_t vxt_stab_key_size(const struct stab *t);
/* @e's key, unpacked into @k. */
void vxt_sent_key(const struct sent *e, struct skey *k);
/* @e's value. */
static inline void *vxt_sent_value(const struct stab *t, const struct sent *e)
{
	return (void *)((char *)(uintptr_t)e + sizeof(struct sent) +
			t->maxkeys * sizeof(int64_t));
}
bool vxt_value_eq(const struct script_value *a, const struct script_value *b);

/* ---- aggregations ---- */

#define QZ_BUCKETS	128	/* quantize: 64 negative powers, 0, 63 positive */

struct sagg {
	char name[64];
	int fn;			/* enum sfunc; -1 until first defined */
	unsigned nkeys;
	uint32_t key32;		/* keys whose D type is 32 bits wide (bit i: key i) */
	int64_t lq_lo, lq_hi, lq_step;	/* lquantize; llquantize: low, high, nsteps */
	int64_t llq_factor;		/* llquantize */
	unsigned line, col;	/* where first defined */
	bool printed;		/* printa() ran on it */
	int64_t normal;		/* normalize(): values print divided by it (0 = 1) */
	bool cached;		/* a statement keeps a raw-key cache of it */
	struct stab tab;	/* keys -> struct saggval */
	size_t entries;
	uint64_t gen;		/* bumped when entries go (trunc): fast keys are stale */
};

/* An aggregation's value, kept in its table's entry: only the prefix its
 * function uses (vxt_saggval_size()): count() 8 bytes, sum() and avg() 16,
 * min() and max() 32, stddev() 48, the distributions their buckets too. */
struct saggval {
	int64_t count;
	int64_t sum;
	int64_t min, max;
	uint64_t sumsq[2];	/* stddev: the sum of the squares, 128 bits (lo, hi) */
	uint64_t buckets[];	/* quantize / lquantize */
};

size_t vxt_saggval_size(const struct sagg *a);
/* The buckets of a distribution of @a. */
unsigned vxt_sagg_nbuckets(const struct sagg *a);

/* Add @v to the entry for @key of @a; *@out (when not NULL) gets the entry's
 * value, NULL when the key did not fit aggsize (an aggregation drop). A new
 * key's strings are interned then, and charged when new to the pool.
 * @return 0 or -ENOMEM. */
struct vxt_script;
int vxt_sagg_add(struct vxt_script *s, struct sagg *a, const struct skey *key, int64_t v,
		 struct saggval **out);
/* Add @v to the value @d of @a. */
void vxt_sagg_add_to(const struct sagg *a, struct saggval *d, int64_t v);

/* An aggregation statement whose keys are fields or integers finds its entry
 * by the event's raw numbers (object id, op, comm id ...), not by strings. */
struct sfastent {
	uint64_t h;		/* 0 = empty */
	int64_t k[S_MAX_KEYS];
	struct saggval *d;
};

struct sfast {
	uint64_t gen;		/* the aggregation's gen the entries belong to */
	struct sfastent *e;
	size_t cap, n;
};
/* Print @a in DTrace's layout into @out (an open memstream), after an
 * empty line when @lead (printa's; dtrace(1) prints one before all the
 * aggregations left at the end). */
void vxt_sagg_print(const struct vxt_script *s, struct sagg *a, bool lead, FILE *out);
/* Print @a as printa(@fmt, @a) does: the format once per entry. */
void vxt_sagg_printa(const struct vxt_script *s, struct sagg *a, const struct sfmt *fmt,
		     FILE *out);
void vxt_sagg_clear(struct vxt_script *s, struct sagg *a, bool trunc, int64_t keep);
void vxt_sagg_free(struct sagg *a);
size_t vxt_sagg_entry_size(const struct sagg *a);

/* ---- speculative buffers ---- */

/* Speculation ID id is s->spec_ids[id - 1]: SPEC_ACTIVE while it is
 * active, and the index in s->spec of its buffer (struct sspec), the last
 * it had once inactive. An inactive ID is free or busy: the free and busy
 * lists tell which, a clean moving the busy list onto the free one without
 * touching the IDs. Its records are in a buffer only while it is active:
 * commit() and discard() give the buffer back at once, the last given back
 * handed out first, while the ID stays busy until the clean. So the
 * thousands of IDs that cycle between two cleans take 4 bytes each, and
 * the records of the active ones stay in as many buffers, the same ones
 * over and over. */
#define SPEC_ACTIVE	(UINT32_C(1) << 31)
#define SPEC_BUF	(SPEC_ACTIVE - 1)

/* A record: the event and whether the clause wrote its own text (trace,
 * printf); the text itself is in its buffer's text area (struct sspec), in
 * record order. The CPU ID FUNCTION:NAME columns and an event's default text
 * are written when the record reaches the principal buffer, so a discarded
 * record is never formatted. */
struct srec {
	struct vxt_event ev;	/* zero without an event (its cpu is the record's) */
	uint64_t m;		/* what it is, SREC_* (one word, written at once) */
};

#define SREC_ORDINAL	((UINT64_C(1) << 48) - 1)	/* the event's ordinal */
#define SREC_CLAUSE_SHIFT	48	/* 8 bits: index of the clause that recorded it */
#define SREC_PROBE_SHIFT	56	/* 4 bits: bit number of the SP_* probe that fired */
#define SREC_HAS_EVENT	(UINT64_C(1) << 60)
#define SREC_OWN	(UINT64_C(1) << 61)	/* the clause has trace or printf */
#define SREC_HAS_TEXT	(UINT64_C(1) << 62)	/* its text is next in the text area */

static inline uint64_t srec_ordinal(const struct srec *r)
{
	return r->m & SREC_ORDINAL;
}

static inline bool srec_has_event(const struct srec *r)
{
	return r->m & SREC_HAS_EVENT;
}

_Static_assert(sizeof(struct srec) == VXT_SCRIPT_RECORD_SIZE,
	       "specsize charges a buffered record what it takes");

/* A buffer's first records are in it (inl), after the fields each record
 * reads, so speculating an I/O's few events touches the buffer's own
 * lines and no other allocation; more go to the heap (recs then points
 * there). Aligned to a cache line, as the array is: the fields a record
 * reads first, then the inline records, then what windows, texts and
 * profiles' keys use. */
#define SPEC_INLINE	2	/* records kept in the buffer itself */

struct sspec {
	bool has_ev;		/* holds an event (tracked: its oldest is in ->oldest) */
	/* a window (profiles' context): the buffer keeps only the records
	 * within window_ns of the newest event and at most window_events of
	 * them, the oldest going first, also when specsize is reached */
	bool windowed;
	uint32_t gen;		/* new (s->spec_gen) when it empties or loses its oldest */
	struct srec *recs;	/* live records are recs[head .. n): inl, or the heap's */
	size_t head, n, cap;
	uint64_t bytes;
	struct srec inl[SPEC_INLINE];
	char *tx;		/* their texts, tx[txhead .. txn): u16 length, bytes, NUL */
	size_t txhead, txn, txcap;
	uint32_t window_events;	/* 0 = no count bound */
	uint64_t window_ns;	/* 0 with window_events: no time bound */
	uint32_t kgen;		/* keyed: bumped at each opening */
	uint64_t ka, kb;	/* keyed: the key that owns it */
} __attribute__((aligned(64)));

struct soldest {			/* stale once the buffer's gen moved on */
	uint64_t ordinal;
	uint32_t id, gen;
};

#include "script/reqtab.h"	/* the I/Os in flight req-> follows */

/* ---- the script ---- */

/* The event probes' clause lists (SON_DONE: done and error, for a failed
 * completion; SON_DONE_OK: done only, for one without an error). */
enum { SON_QUEUE, SON_START, SON_DONE, SON_REQUEUE, SON_LOST, SON_OTHER, SON_DONE_OK,
       SON_COUNT };

struct svar {
	char name[64];
	uint8_t scope;		/* SN_GLOBAL, SN_THIS, SN_SELF, SN_REQ, SN_ARRAY */
	uint8_t type;		/* enum stype */
	unsigned nkeys;		/* SN_ARRAY */
	bool assigned;
	unsigned line, col;	/* first use */
	unsigned slot;		/* SN_SELF, SN_REQ: index in struct sdyn */
	bool local;		/* SN_ARRAY: this->x[...], clause-local (in ltab) */
};

/* A name test's answers by object / command id (the name_match op): 0
 * unknown, 1 false, 2 true; grown to the bound table's size on the first
 * id past it. */
struct sname_cache {
	uint8_t *v;
	size_t n;
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
	bool escape;		/* printed strings escaped (vxt_script_set_escape()) */
	bool started_output;	/* the column header went out */
	bool uses_req;		/* some req-> variable: requests are tracked */
	uint32_t count_only;	/* the event phases whose events only count:
				 * no clause is on them, nothing follows
				 * requests or keys (compile_clause.c) */
	bool uses_iv;		/* an interval field (q2c, ...): phases are paired */
	struct vxt_phasepair *pp;	/* with uses_iv */
	struct vxt_ivals iv;	/* the event's intervals, with uses_iv */
	uint64_t spec_bytes;	/* in speculative buffers */
	int exit_code;
	struct script_value *globals;
	struct script_value *thisv;
	struct stab vtab;	/* associative arrays */
	struct stab ltab;	/* clause-local ones (this->x[...]), emptied at each firing */
	struct stab spool;	/* the strings the script keeps (interned) */
	uint32_t *spec_ids;	/* the speculation IDs: SPEC_ACTIVE | buffer */
	struct sspec *spec;	/* the buffers, as many as IDs */
	uint32_t *buf_free;	/* the buffers no active ID has, last freed on top */
	uint32_t nbuf_free, spec_gen;
	uint64_t nbusy;		/* ids in busyl */
	uint32_t *freel, *busyl;	/* free and busy ids */
	uint32_t nfree;
	struct sreqtab reqs;	/* the I/Os in flight */
	struct itab selfs;	/* pid -> struct sdyn * */
	unsigned nself, nreqv;	/* self-> and req-> variables */
	struct sdyn *free_self, *free_reqv;	/* freed values, reused first (hot in cache) */
	unsigned *thisl;	/* this-> variables (and arrays), reset at each firing */
	unsigned nthis;
	struct sfast *fast;	/* one per aggregation statement keyed by raw
				 * numbers (script_node.num, from 1) */
	unsigned nfast;
	char *dtext;		/* a delivered record's text */
	bool track;		/* keep ->oldest (vxt_script_track_buffered()) */
	struct soldest *oldest;	/* min-heap: first event ordinal of each active buffer */
	size_t noldest, capoldest;
	uint64_t next_req;
	uint64_t agg_bytes;
	struct vxt_script_stats st;
	char *text;		/* the clause's record text */
	size_t tlen;
	char *errs_seen;	/* which clause had a run-time error already reported */
	struct skeyed *keyed;	/* a profile's keyed speculation, or NULL */
	struct sbt *bt;		/* written in bpftrace's language (bt_impl.h), or NULL */
	char warn[1024];	/* what load has to say (stand-ins, options that do nothing) */
	int64_t wall_off;	/* walltimestamp - timestamp */
	bool wall_set;
	bool opt_defaultargs;	/* #pragma D option defaultargs */
	char **margs;		/* $1 ... while parsing (vxt_script_load_args()) */
	unsigned nmargs;
	/* compiled (program.h): each event probe list's program, BEGIN's,
	 * END's and each tick interval's; the registers they share */
	struct vxt_program *prog_on[SON_COUNT], *prog_begin, *prog_end, **prog_tick;
	struct script_value *regs;
	uint32_t *kgen_of;	/* keyed: kgen of each active buffer, 0 = none (compact) */
	/* the name_match ops' answers (a filter's script: filter_run.c frees them) */
	struct sname_cache *ncache;
	unsigned nncache;
};

/* ---- running (run.c, vm.c, script_eval.c, script_dyn.c, script_spec.c) ---- */

#define S_DTEXT_MAX	(2 * S_TEXT_MAX + 256)

struct firing {
	struct vxt_script *s;
	const struct vxt_event *ev;	/* NULL for BEGIN, END, tick */
	uint64_t ordinal;
	struct sreq *req;		/* the event's request, NULL = none */
	struct sdyn *self;		/* the event's self-> values (when self_known) */
	bool self_known;
	const struct sclause *cl;
	unsigned probe;			/* the SP_* bit that fired */
	int64_t target;			/* 0 principal, >0 speculation, -1 nowhere */
	uint64_t via;			/* target 0: the speculation it is kept under */
	struct skent *key;		/* keyed: the event's key, NULL = none yet */
	uint64_t ka, kb;		/* keyed: the event's key */
	bool taken;			/* keyed: the event is kept or buffered */
	bool error;
	int rc;
};

/* Whether name test @n (an SN_GLOB of object, host or comm, or an SN_BINARY
 * == of one with a string) holds for x->ev, its answer kept in @c for the
 * event's object / command id once known (name_cache.c). No allocation but
 * the cache's growth; without memory the answer is computed uncached. */
bool vxt_name_match(struct firing *x, const struct script_node *n, struct sname_cache *c);

/* Field @f (enum sfield) of the firing in @x (no event: BEGIN, END, tick). */
struct script_value vxt_sfield(const struct firing *x, int f);
/* Run-time error @what at node @at: counted once per firing (x->error set,
 * the clause abandoned), the first one kept for vxt_script_first_error(). */
void vxt_sruntime_error(struct firing *x, const struct script_node *at, const char *what);
const char *vxt_sprobe_name(unsigned bit);
/* The FUNCTION part of probe @bit's description, as dtrace shows it in its
 * FUNCTION:NAME column and probefunc (io:genunix:bdev_strategy:start,
 * io:genunix:biodone:done; "" for BEGIN, END, ticks and lost). Can't fail. */
const char *vxt_sprobe_func(unsigned bit);
const char *vxt_sobj_name(const struct vxt_script *s, uint32_t id);
/* A string to print: @str, or its escape in @buf (of @size, cut to fit)
 * when the script escapes its output. */
const char *vxt_sprintable(const struct vxt_script *s, const char *str, char *buf, size_t size);
/* script_tab.c: @str kept by the script (interned: it outlives the event),
 * "" with *@rc = -ENOMEM when out of memory; every string of key @k. */
const char *vxt_sintern(struct vxt_script *s, const char *str, int *rc);
int vxt_sintern_key(struct vxt_script *s, struct skey *k);
/* script_format.c: append to a text of capacity @cap. */
void vxt_stext_add(char *buf, size_t *len, size_t cap, const char *p, size_t n);
void vxt_stext_printf(char *buf, size_t *len, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* script_dyn.c: self-> and req-> values, requests. */
/* What an I/O in flight is charged: the 112 bytes of the queue and two table
 * entries it once took (its four slots take 128 now), so a dynvarsize
 * follows as many requests as it did. */
#define S_REQ_SIZE	((size_t)112)
/* An associative array entry, in tables of arrays of at most @maxkeys keys:
 * 4 slots, 16 bytes, its key values and its value. */
#define S_ARRAY_ENTRY_SIZE(maxkeys)	(4 * sizeof(uint32_t) + sizeof(struct sent) + \
					 (maxkeys) * sizeof(int64_t) + sizeof(struct script_value))
#define S_ARRAY_SIZE(s)	vxt_stab_key_size(&(s)->vtab)
/* The req-> variable in slot @slot of the event's request := @v (0 frees
 * it). @return 0 or -ENOMEM. */
int vxt_sreq_set(struct firing *x, unsigned slot, struct script_value v);
/* The event's process's self-> variable in slot @slot, NULL when unset;
 * and its vxt_sdyn_set(). */
struct script_value *vxt_sself_get(struct firing *x, unsigned slot);
int vxt_sself_set(struct firing *x, unsigned slot, struct script_value v);
void vxt_sdyn_free_all(struct vxt_script *s);

/* script_keyed.c: a profile's speculation rules (spec.h) on this engine. */
struct skent {			/* one key's state */
	uint64_t a, b;
	uint32_t id, kgen;	/* its speculation (valid while the buffer's kgen matches) */
	uint32_t follow_left;	/* after a commit: events still to follow */
	uint64_t follow_until, follow_id;	/* follow_id 0 = not following */
	struct skent *next;	/* on the free list */
};

/* Whether key @k (NULL = none) has an active speculation. */
static inline bool vxt_skeyed_active(const struct vxt_script *s, const struct skent *k)
{
	return k && k->id && s->kgen_of[k->id - 1] == k->kgen;
}
/* The op (program.h) of a profile's action node @step. */
unsigned vxt_skeyed_op(const struct script_node *step);
/* Clause @clause's predicate compiled into @c's program: falls through
 * when it holds, jumps onto @reject when not. @return 0 or -ENOMEM. */
struct compiler;
int vxt_skeyed_compile_pred(struct compiler *c, unsigned clause, int64_t *reject);
/* The actions of a profile's clause @clause for the event (ops
 * keyed_speculation, keyed_speculate, keyed_commit, keyed_discard):
 * speculation() for its key (in the clause's window), speculate() (the
 * event into the key's buffer, or out while the key follows a commit),
 * commit or discard (with @commit) and the clause's follow-up. @return 0 or
 * -ENOMEM. */
int vxt_skeyed_speculation(struct firing *x, unsigned clause);
void vxt_skeyed_speculate(struct firing *x);
int vxt_skeyed_finish(struct firing *x, unsigned clause, bool commit);
/* Before an event's clauses: find its key. */
void vxt_skeyed_begin(struct firing *x);
/* After them: forget an idle key, close emptied windows now and then. */
void vxt_skeyed_end(struct firing *x);
/* Buffer @id was discarded by the engine (window emptied, forced, END). */
void vxt_skeyed_closed(struct vxt_script *s, uint32_t id);
void vxt_skeyed_free(struct vxt_script *s);

/* script_parse.c: @return 0, or -EINVAL with the message in @err. */
int vxt_script_parse(struct vxt_script *s, const char *text, size_t len, char *err);
void *vxt_script_alloc(struct vxt_script *s, size_t size);
int vxt_script_set_option(struct vxt_script *s, const char *name, const char *value,
			  unsigned line, unsigned col, char *err);
/* script_check.c */
int vxt_script_check(struct vxt_script *s, char *err);
/* script_depth.c: refuse a tree deeper than S_MAX_TREE_DEPTH, before any
 * pass that recurses. @return 0, -EINVAL (message in @err) or -ENOMEM. */
int vxt_script_check_depth(const struct vxt_script *s, char *err);
/* script.c: defaults of the options, and the run-time state once the
 * clauses and options are final. @return 0 or -ENOMEM. */
void vxt_script_defaults(struct vxt_script *s, const char *file);
int vxt_script_alloc_runtime(struct vxt_script *s);
/* script_format.c: print the aggregations (@only, or all; @at_end: those
 * printa() did not print) into the principal buffer, clearing them with
 * @clear; with @fmt (printa's format), @only in that format. @return 0 or
 * negative. */
int vxt_script_print_aggs(struct vxt_script *s, struct sagg *only, bool clear, bool at_end,
			  const struct sfmt *fmt);
/* run.c: run the BEGIN clauses. */
int vxt_script_run_begin(struct vxt_script *s);
int vxt_script_field(const char *name);
const char *vxt_script_field_name(int f);
const char *vxt_script_func_name(int fn);
/* Whether statement @n is a ?: with an action (or an aggregation) among its
 * operands: it runs the operand its condition picks (script_decl.c). */
bool vxt_script_node_cond_action(const struct script_node *n);
/* Add @what to the load warning, once (script_dlang.c). */
void vxt_script_warn(struct vxt_script *s, const char *what);
int vxt_script_func(const char *name);
int vxt_script_errno(const char *name);
/* the one-line "file:line:col: message" */
int vxt_script_fail(const struct vxt_script *s, char *err, unsigned line, unsigned col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* the steps each event takes, inline */
#include "script/script_steps.h"

#endif
