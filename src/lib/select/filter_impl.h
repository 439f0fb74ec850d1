/* filter_impl.h - the filter's tokens and compiled form (internal to libvxtrace)
 *
 * filter_lex.c turns text into tokens, filter_parse.c turns tokens into a
 * jump table of tests, filter_lower.c compiles the table into the script
 * engine's ops (each test a D comparison, the wiring jumps), and
 * filter_run.c runs them in the engine's one loop. The table is an array of
 * tests; each test compares one field of the event and names the test to
 * run next when it holds (t) and when it does not (f). Two pseudo-indexes
 * end the walk: FT_ACCEPT and FT_REJECT. && , || and ! are only wiring.
 * The kernel's subset (filter_kernel.c) is read off the ops.
 */
#ifndef VXT_FILTER_IMPL_H
#define VXT_FILTER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "vxtrace/filter.h"

/* ---- tokens ---- */

enum ftok {
	TK_END, TK_IDENT, TK_NUM, TK_STR, TK_DEV,
	TK_LPAREN, TK_RPAREN, TK_COMMA,
	TK_AND, TK_OR, TK_NOT,
	TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_MATCH, TK_NMATCH,
	TK_ERROR,
};

enum funit { UNIT_NONE, UNIT_SIZE, UNIT_DURATION };

struct ftoken {
	enum ftok type;
	unsigned pos, len;	/* byte offset and length in the source */
	unsigned line, col;	/* 1-based */
	enum funit unit;	/* TK_NUM */
	bool frac;		/* TK_NUM had a fractional part */
	uint64_t val;		/* TK_NUM (scaled by its unit), TK_DEV */
	char *str;		/* TK_STR (decoded), TK_IDENT; owned by the lexer */
	char msg[120];		/* TK_ERROR */
};

struct flexer {
	const char *src;
	unsigned pos, line, col;
	char *strbuf;		/* decoded strings, one after another */
	size_t strlen, strcap;
};

void vxt_flex_init(struct flexer *lx, const char *src, char *strbuf, size_t cap);
/* Next token into @t. Can't fail: problems come back as TK_ERROR. */
void vxt_flex_next(struct flexer *lx, struct ftoken *t);
/* Printable form of a token for messages: "'>'", "'foo'", "the end". */
const char *vxt_ftok_describe(const struct ftoken *t, const char *src, char *buf, size_t size);

/* ---- compiled form ---- */

enum ffield {
	FF_TIME, FF_OBJECT, FF_DEV, FF_PHASE, FF_OP, FF_FLAGS, FF_SECTOR,
	FF_BYTES, FF_LATENCY, FF_ERROR, FF_PID, FF_COMM, FF_CPU, FF_SPEC,
	FF_HOST,		/* the object's host */
	/* a completion's own intervals (ctx->iv; phasepair.h), in VXT_IV_* order */
	FF_Q2D, FF_D2C, FF_Q2C, FF_Q2G, FF_G2I, FF_I2D,
	FF_COUNT
};

enum fop {
	FO_EQ, FO_LT, FO_LE,	/* numbers; != > >= are these with t and f swapped */
	FO_BITS,		/* (field & val) != 0 */
	FO_STREQ, FO_GLOB,	/* names; cached per object / command id */
	FO_DEVCMP,		/* the object's dev compared by sub-op in .aux */
	FO_TRUE,		/* spec: ctx->spec */
	FO_SET,			/* an interval field is known (ctx->iv) */
};

#define FT_ACCEPT 0xffffu
#define FT_REJECT 0xfffeu

enum fkind {
	FK_RANGE,		/* lo <= field <= lo + span, on a masked word */
	FK_BITS,		/* (field & bits) != 0: the same with mask = bits */
	FK_SLOW,		/* anything else: names, time, ordered errno, spec */
};

struct ftest {
	uint8_t kind;		/* enum fkind, set by vxt_ftest_lower() */
	uint8_t field;		/* enum ffield */
	uint8_t op;		/* enum fop */
	uint8_t aux;		/* FO_DEVCMP: FO_EQ / FO_LT / FO_LE */
	uint8_t word;		/* FK_RANGE, FK_BITS: 64-bit word of the event */
	uint8_t shift;		/* ... and the field's bit offset in it */
	uint16_t t, f;		/* next test when true / false */
	uint32_t str;		/* name ops: offset of the pattern in ->pool */
	uint64_t mask, lo, span;
	uint64_t val;
};

/* Fill in kind, word, shift, mask, lo, span from field, op and val
 * (filter_kernel.c: the kernel's table is made of them). */
void vxt_ftest_lower(struct ftest *t);

struct vxt_script;
struct vxt_program;
struct firing;

struct vxt_filter {
	uint16_t entry;
	unsigned ntests;
	struct ftest *tests;
	char *pool;		/* NUL-terminated patterns */
	char *src;
	/* what runs: the table as ops of the script engine, in a script of
	 * their own (bound tables, time origin, registers, intervals) */
	struct vxt_script *run;
	struct vxt_program *prog[2];	/* `spec` false, true (the same without spec) */
	struct firing *x;		/* the firing the programs run for: ->ev set per event */
	bool uses_iv;
};

/* Compile @f's table into its programs (filter_run.c). @return 0 or -ENOMEM. */
int vxt_filter_make_programs(struct vxt_filter *f);

/* The kernel's table (struct vxt_kfilter) read off filter program @p's
 * ops (filter_kernel.c): as vxt_filter_kernel(), whatever text produced
 * them. */
int vxt_program_kfilter(const struct vxt_program *p, struct vxt_kfilter *k);



#endif
