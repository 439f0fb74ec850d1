/* bt_impl.h - the bpftrace front-end: its parser's state, its probes and
 * builtins, and the few run-time parts D has no equivalent of
 * (internal to libvxtrace)
 *
 * bt_lex.c reads bpftrace's tokens, bt_parser.c keeps the parser's tokens
 * and names, bt_parse.c reads its expressions, bt_calls.c its maps and
 * calls, and bt_stmt.c its probe blocks and statements (bt_clause.c
 * keeping the clauses they become), lowered to the D parser's
 * tree (struct sclause, struct script_node): if/else, unroll, while and return
 * become clauses guarded by this-> variables, maps become aggregations or associative
 * arrays, $locals this-> variables, tuples several keys. bt_probes.c knows
 * the probes (tracepoint:block:*, kprobe:blk_*) and builtins (args.X, nsecs
 * ...), bt_run.c runs the actions D lacks (delete, clear of a map, print of
 * a value, time, strftime), bt_print.c prints maps in bpftrace's layout,
 * bt_fire.c which events fire a probe block,
 * bt_notes.c says what a program cannot see in a file, bt_errors.c words
 * the checker's refusals as bpftrace does, and bt_struct.c reads the
 * kernel structures older tools name as the event's fields.
 */
#ifndef VXT_BT_IMPL_H
#define VXT_BT_IMPL_H

#include "script/script_impl.h"

#define BT_MAX_MAPS	128

/* How an aggregation prints (struct sbt.aggkind): D's function by itself
 * tells all but these. */
enum btagg { BTK_PLAIN, BTK_HIST, BTK_LHIST, BTK_STATS,
	     BTK_HISTK };	/* hist(v, k), k > 0: D's lquantize over the index
				 * of BTA_LOG2K (bt_run.c), k in struct sbt.histk */

/* hist(v, k): k from 0 to 5; the largest index of a 64-bit value. */
#define BT_HIST_KMAX	5
#define BT_HIST_TOP(k)	((64 - (k)) << (k))

/* The FN_BT actions (script_node.num); BTA_OLD_DEV and BTA_OLD_SECTOR are the
 * values of a remap's args.old_dev and args.old_sector (its source);
 * BTA_WHILE_BOUND the run-time error of a while loop whose condition still
 * holds after BT_WHILE_MAX rounds; BTA_LOG2K bpftrace's bucket of hist(v, k)
 * (args v and the constant k). */
enum btact { BTA_DELETE, BTA_CLEAR, BTA_PRINT, BTA_TIME, BTA_STRFTIME, BTA_OLD_DEV,
	     BTA_OLD_SECTOR, BTA_WHILE_BOUND, BTA_LOG2K };

/* The rounds a while loop runs at most (lowered to that many copies). */
#define BT_WHILE_MAX	32

/* The dialect's state in a script (vxt_script.bt). */
struct sbt {
	uint8_t aggkind[BT_MAX_MAPS];	/* enum btagg by aggregation index */
	uint8_t histk[BT_MAX_MAPS];	/* BTK_HISTK's k */
	char notes[1024];	/* warnings said once at load, one a line */
	char said[4096];	/* vxt_script_notes(): those and the phases' */
	unsigned phases;	/* 1 << VXT_PH_* of the phases its probes fire on */
	char phase_probe[VXT_PH_COUNT][64];	/* the first probe of each, for the note */
	unsigned phase_line[VXT_PH_COUNT], phase_col[VXT_PH_COUNT];
	bool phase_bio[VXT_PH_COUNT];	/* its probe also sees bio-based devices' issues */
	bool no_print_maps;	/* config print_maps_on_exit = false */
};

/* Fields of a tracepoint's args (struct btprobe.fields). */
#define BF_DEV		0x001
#define BF_SECTOR	0x002
#define BF_NR_SECTOR	0x004
#define BF_BYTES	0x008
#define BF_RWBS		0x010
#define BF_COMM		0x020
#define BF_ERROR	0x040
#define BF_CMD		0x080
#define BF_OLD		0x100	/* old_dev, old_sector */

/* The level of the events a probe sees: BL_BIO only a bio-based device's
 * bios (VXT_F_BIO), which the kernel traces with block_bio_* tracepoints;
 * BL_RQ only requests (no VXT_F_BIO), as the kernel's block_rq_*,
 * block_io_* and the request functions see only request-based devices. */
enum btlevel { BL_ANY, BL_BIO, BL_RQ };

/* A probe of the dialect: the phase whose events fire it. */
struct btprobe {
	const char *name;	/* "tracepoint:block:block_rq_issue" */
	unsigned phase;		/* VXT_PH_* */
	bool error_only;	/* block_rq_error: failed completions */
	uint8_t level;		/* enum btlevel */
	bool bio_start;		/* also a bio-based device's issue (block_bio_queue: what
				 * a capture of issue and completion keeps of its bios) */
	unsigned fields;	/* BF_* of args */
};

/* The probe @name (also "tracepoint:block:NAME" as "t:block:NAME", kfunc:
 * as fentry:), NULL when none. */
const struct btprobe *vxt_bt_probe(const char *name);

/* The parser: bt_parser.c its tokens, nodes and names, bt_parse.c its
 * expressions, bt_calls.c its maps and calls, bt_stmt.c its blocks. */
#define BT_MAX_LOCALS	128
#define BT_MAX_GUARDS	32

enum btmapkind { BM_UNKNOWN, BM_AGG, BM_ARRAY, BM_SCALAR };

struct btmap {
	char name[64];		/* with its '@' */
	uint8_t kind;		/* enum btmapkind */
	bool keyed;
	bool assigned;		/* written somewhere (=, op=, ++, --, an aggregation) */
};

struct btlocal {
	char name[64];		/* "$key" */
	unsigned arity;		/* a tuple's elements, 0 = a value */
	bool set;		/* assigned in the current probe block */
};

struct btguard {
	int var;		/* this-> variable slot */
	bool neg;
};

struct btparser {
	struct vxt_script *s;
	struct slexer lx;
	struct stoken tok;
	bool have, have_probe;
	char *err;
	int rc;
	int depth, parens;
	bool in_pred;
	struct btmap maps[BT_MAX_MAPS];
	unsigned nmaps;
	struct btlocal locals[BT_MAX_LOCALS];
	unsigned nlocals;
	/* the probe block being lowered */
	unsigned probes;	/* SP_* */
	uint64_t tick_ns;
	char probe_text[64];
	const struct btprobe *bprobes[32];	/* its tracepoints and kprobes */
	unsigned nbprobes;
	bool other;		/* the probes need a test of the event (bt_stmt.c's guard) */
	bool has_event;		/* an event probe (args, nsecs of an event) */
	unsigned fields;	/* BF_* every probe of the block has */
	unsigned bline, bcol;
	struct btguard guards[BT_MAX_GUARDS];
	unsigned nguards;
	unsigned ntemp;		/* this->$$N made so far */
	struct script_node **stmts;	/* the current clause's statements */
	unsigned nstmts, capstmts;
	unsigned noted;		/* NOTE_* said */
	unsigned seg;		/* what the current clause holds (bt_stmt.c's SEG_*) */
	unsigned attached;	/* attach points: each probe, a wildcard's each match */
	int ret_var;		/* the block's return flag (this->), -1 before any return */
};

#define NOTE_STACK	0x1

/* bt_lex.c: as vxt_slex_init() and vxt_slex_next() (@probe: where a probe
 * name may start); vxt_slex_free() frees. */
void vxt_btlex_init(struct slexer *lx, const char *src, size_t len);
int vxt_btlex_next(struct slexer *lx, struct stoken *t, bool probe);

struct stoken *vxt_btp_peek(struct btparser *p);
struct stoken *vxt_btp_peek_probe(struct btparser *p);
void vxt_btp_take(struct btparser *p);
int vxt_btp_syntax(struct btparser *p, const struct stoken *t);
int vxt_btp_expect(struct btparser *p, enum stok type);
int vxt_btp_fail(struct btparser *p, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
struct script_node *vxt_btp_node(struct btparser *p, enum snk kind, unsigned line, unsigned col);
char *vxt_btp_dup(struct btparser *p, const char *str);
int vxt_btp_var(struct btparser *p, uint8_t scope, const char *name, unsigned line,
		unsigned col);
struct btmap *vxt_btp_map(struct btparser *p, const char *name);
struct btlocal *vxt_btp_local(struct btparser *p, const char *name, bool make);
struct script_node *vxt_btp_expr(struct btparser *p);
struct script_node *vxt_btp_unary(struct btparser *p);
/* An assignment or anything below it (bt_parse.c). */
struct script_node *vxt_btp_assign(struct btparser *p);
/* Arguments up to @close into @v (S_MAX_ARGS), each an expression or a
 * bare @map; @return 0 or negative. A copy of @v in the script's memory,
 * NULL when out of memory (p->rc set). */
int vxt_btp_args(struct btparser *p, enum stok close, struct script_node **v, unsigned *n);
struct script_node **vxt_btp_copy_args(struct btparser *p, struct script_node *const *v, unsigned n);
/* bt_calls.c: @name or @name[keys] as a variable at @at (its '@' taken);
 * a call f( at @at (its name and '(' taken). NULL on error. */
struct script_node *vxt_btp_map_ref(struct btparser *p, const struct stoken *at);
struct script_node *vxt_btp_call(struct btparser *p, const struct stoken *at);
/* bt_parser.c: the aggregation slot of map @name (made at its first use);
 * whether @w names an aggregating function. */
int vxt_btp_agg_slot(struct btparser *p, const char *name, unsigned line, unsigned col);
bool vxt_btp_is_aggfn(const char *w);
/* bt_struct.c: a cast "(struct T *)e" after its "(" (at @at), "struct"
 * next; the member path after @base (->a.b ...: the event's field it ends
 * in), @base itself when none follows. NULL on error. */
struct script_node *vxt_btp_cast(struct btparser *p, const struct stoken *at);
struct script_node *vxt_btp_members(struct btparser *p, struct script_node *base);
/* @name[keys] = f(args), f aggregating (the map is one). */
struct script_node *vxt_btp_agg_stmt(struct btparser *p);
/* A statement's value: a tuple is an SN_CALL with idx BT_TUPLE. */
#define BT_TUPLE	(-2)
/* Keys of a map, tuples and tuple $locals spread: into @v (S_MAX_KEYS). */
int vxt_btp_keys(struct btparser *p, struct script_node *const *in, unsigned nin, struct script_node **v,
		 unsigned *n);
/* Map kinds, by a pass over the tokens. @return 0 or negative. */
int vxt_btp_scan_maps(struct btparser *p, const char *text, size_t len);
/* A builtin (nsecs, args.X, comm ...) at @at, or NULL (p->rc or p->err set
 * when it is one that cannot be used here; neither when it is no builtin). */
struct script_node *vxt_btp_builtin(struct btparser *p, const struct stoken *at);
/* args.rwbs: the block layer's letters for the event's op and flags. */
struct script_node *vxt_btp_rwbs(struct btparser *p, unsigned line, unsigned col);
/* bt_fire.c: the probe that fired, as a string (the builtin probe): the
 * block's probe whose phase (level, failure) the event has; the test of
 * the event the block's probes need beyond D's probes (NULL: none, or out
 * of memory in p->rc); one probe description of the block (@return 0 or
 * -EINVAL); @a && @b (either NULL: the other). */
struct script_node *vxt_btp_fired(struct btparser *p, unsigned line, unsigned col);
struct script_node *vxt_btp_event_guard(struct btparser *p);
int vxt_btp_probe_desc(struct btparser *p, const struct stoken *t);
/* The block's attach points: as bpftrace, a block runs once per probe that
 * fires on an event, probes of which the kernel fires one (a kprobe's two
 * names, a back or front merge) being one. Each probe's group into @group
 * (p->nbprobes); @return how many. vxt_btp_keep_group() keeps group @g of
 * @all (@nall probes, @group as given) as the block's probes. */
unsigned vxt_btp_groups(const struct btparser *p, unsigned *group);
void vxt_btp_keep_group(struct btparser *p, const struct btprobe *const *all, unsigned nall,
			const unsigned *group, unsigned g);
struct script_node *vxt_btp_and(struct btparser *p, struct script_node *a, struct script_node *b);
/* A warning said once at load. */
void vxt_btp_note(struct btparser *p, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* bt_clause.c: statement @st added to the current clause (a new clause
 * first where D's rules would refuse it after what it holds); the clause so
 * far emitted with its predicate (and @user's, the block's /pred/; none
 * when it holds no statement); a reference to this-> variable @var; a
 * fresh this->$$N set to @v in the current clause (its slot, or -1); a
 * guard on this-> variable @var (negated with @neg) for the clauses after.
 * @return 0 or negative (the error said or p->rc set). */
int vxt_btc_add(struct btparser *p, struct script_node *st);
int vxt_btc_emit(struct btparser *p, struct script_node *user);
struct script_node *vxt_btc_this(struct btparser *p, int var, unsigned line, unsigned col);
int vxt_btc_temp(struct btparser *p, struct script_node *v);
int vxt_btc_guard(struct btparser *p, int var, bool neg, const struct stoken *at);

/* bt_stmt.c: the entry, as vxt_script_parse(). */
int vxt_bt_parse(struct vxt_script *s, const char *text, size_t len, char *err);
/* Whether @text written in file @file is bpftrace's: a .bt name, or a probe
 * only bpftrace has (tracepoint:, kprobe:, kfunc:, interval:). */
bool vxt_bt_is_bpftrace(const char *text, size_t len, const char *file);

/* bt_run.c: the FN_BT actions as statements and as values, given the values
 * of their operands (@v: vxt_bt_operands() says which nodes); for the
 * checker, whether @n is an FN_BT that has a value (strftime) or prints,
 * and its type (@return 0 or -EINVAL with the message in @err). */
bool vxt_bt_is_value(const struct script_node *n);
bool vxt_bt_prints(const struct script_node *n);
int vxt_bt_check_call(const struct vxt_script *s, struct script_node *n, char *err);
unsigned vxt_bt_operands(const struct script_node *n, struct script_node *const **v);
int vxt_bt_run(struct firing *x, const struct script_node *n, const struct script_value *v);
struct script_value vxt_bt_value(struct firing *x, const struct script_node *n, const struct script_value *v);

/* bt_errors.c: the checker's message in @err (of @size bytes) in
 * bpftrace's words, where bpftrace has some. Can't fail. */
void vxt_bt_reword(char *err, size_t size);

/* bt_print.c: aggregation @a in bpftrace's layout into @out; every map at
 * END (aggregations and maps used as variables, by name). */
void vxt_bt_agg_print(const struct vxt_script *s, const struct sagg *a, FILE *out);
/* As vxt_bt_agg_print(), only the @top largest entries (0: all), values
 * divided by @div (print(@m, top, div)). */
void vxt_bt_agg_print_top(const struct vxt_script *s, const struct sagg *a, FILE *out,
			  size_t top, int64_t div);
void vxt_bt_print_var(const struct vxt_script *s, unsigned var, FILE *out);
void vxt_bt_print_end(struct vxt_script *s, FILE *out);

#endif
