/* program.h - a script compiled to ops on registers, and the loop that runs
 * them (internal to libvxtrace)
 *
 * compile.c turns a checked script's clauses into one program per probe
 * list (each event phase, BEGIN, END, each tick interval), vm.c runs a
 * program over one firing, explain.c prints programs as `dtrace -S` prints
 * DIF. An op is fixed-size: what it does, a destination register and two
 * operands (registers, or a field, a variable, a slot, a clause as the op
 * says) and a 64-bit immediate (a constant, a jump target, an index into the
 * program's table of tree nodes for printf formats and aggregations).
 * Registers hold values (an integer or a string borrowed from the script or
 * the tables). Each op is written once, in vm.c; what is fast (a predicate
 * on a req-> variable, the error field, a lone speculate, an aggregation
 * keyed by raw event numbers, a lone speculate, commit or discard of a
 * req-> ID) is an op the compiler chooses.
 */
#ifndef VXT_SCRIPT_PROGRAM_H
#define VXT_SCRIPT_PROGRAM_H

#include <stdint.h>
#include <stdio.h>

#include "script/script_impl.h"

/* X(op, name, what dst a b imm are: r register, f field, v variable, s
 * req-> slot, S self-> slot, c clause, p probe, n count, j jump target,
 * x a clause's VXT_CLAUSE_* flags,
 * i integer, q string, t tree node, a aggregation, - unused) */
#define VXT_INSNS(X)							\
	X(HALT,		"halt",		"-----")			\
	X(RETURN,	"return",	"---i")				\
	X(CLAUSE,	"clause",	"xcpj")				\
	X(JUMP,		"jump",		"---j")				\
	X(JUMP_UNLESS,	"jump_unless",	"-r-j")				\
	X(JUMP_IF,	"jump_if",	"-r-j")				\
	X(UNLESS_REQ,	"unless_req",	"-s-j")				\
	X(UNLESS_ERROR,	"unless_error",	"---j")				\
	X(IF_ERROR,	"if_error",	"---j")				\
	X(UNLESS_FLAGS,	"unless_flags",	"-i-j")				\
	X(IF_FLAGS,	"if_flags",	"-i-j")				\
	X(RECORD,	"record",	"-----")			\
	X(INT,		"int",		"r--i")				\
	X(STR,		"str",		"r--q")				\
	X(FIELD,	"field",	"rf-")				\
	X(FIELD_RAW,	"field_raw",	"rf-")				\
	X(EVENT_INT,	"event_int",	"rf-")				\
	X(RAW_EQ,	"raw_eq",	"rf-i")				\
	X(GLOBAL,	"global",	"rv-")				\
	X(THIS,		"this",		"rv-")				\
	X(SELF,		"self",		"rS-")				\
	X(REQ,		"req",		"rs-")				\
	X(ARRAY,	"array",	"rvrn")				\
	X(SET_GLOBAL,	"set_global",	"-vr")				\
	X(SET_THIS,	"set_this",	"-vr")				\
	X(SET_SELF,	"set_self",	"-Sr")				\
	X(SET_REQ,	"set_req",	"-sr")				\
	X(SET_ARRAY,	"set_array",	"rvrn")				\
	X(MOVE,		"move",		"rr-")				\
	X(ADD,		"add",		"rrr")				\
	X(SUB,		"sub",		"rrr")				\
	X(MUL,		"mul",		"rrr")				\
	X(DIV,		"div",		"rrrt")				\
	X(MOD,		"mod",		"rrrt")				\
	X(BAND,		"band",		"rrr")				\
	X(BOR,		"bor",		"rrr")				\
	X(BXOR,		"bxor",		"rrr")				\
	X(SHL,		"shl",		"rrr")				\
	X(SHR,		"shr",		"rrr")				\
	X(NEG,		"neg",		"rr-")				\
	X(BNOT,		"bnot",		"rr-")				\
	X(NOT,		"not",		"rr-")				\
	X(TRUTH,	"truth",	"rr-")				\
	X(STR_TRUTH,	"str_truth",	"rr-")				\
	X(GLOB,		"glob",		"rr-q")				\
	X(NAME_MATCH,	"name_match",	"r-nt")	/* a: 1 keyed by command */	\
	X(KNOWN,	"known",	"rf-")				\
	X(EQ,		"eq",		"rrr")				\
	X(NE,		"ne",		"rrr")				\
	X(LT,		"lt",		"rrr")				\
	X(LE,		"le",		"rrr")				\
	X(GT,		"gt",		"rrr")				\
	X(GE,		"ge",		"rrr")				\
	X(ULT,		"ult",		"rrr")	/* unsigned: an operand is */	\
	X(ULE,		"ule",		"rrr")	/* an unsigned field's value */	\
	X(UGT,		"ugt",		"rrr")				\
	X(UGE,		"uge",		"rrr")				\
	X(STR_EQ,	"str_eq",	"rrr")				\
	X(STR_NE,	"str_ne",	"rrr")				\
	X(STR_LT,	"str_lt",	"rrr")				\
	X(STR_LE,	"str_le",	"rrr")				\
	X(STR_GT,	"str_gt",	"rrr")				\
	X(STR_GE,	"str_ge",	"rrr")				\
	X(SPECULATION,	"speculation",	"r--")				\
	X(OPEN_REQ,	"open_req",	"-s-")				\
	X(SPECULATE,	"speculate",	"-r-")				\
	X(SPECULATE_EVENT, "speculate_event", "-rc")			\
	X(SPECULATE_REQ, "speculate_req", "-sc")			\
	X(COMMIT_REQ,	"commit_req",	"-s-")				\
	X(DISCARD_REQ,	"discard_req",	"-s-")				\
	X(COMMIT,	"commit",	"-r-")				\
	X(DISCARD,	"discard",	"-r-")				\
	X(TRACE,	"trace",	"-r-")				\
	X(PRINTF,	"printf",	"-rnt")				\
	X(EXIT,		"exit",		"-r-")				\
	X(PRINTA,	"printa",	"-a-")				\
	X(PRINTA_FMT,	"printa_fmt",	"-a-t")				\
	X(NORMALIZE,	"normalize",	"-ar")				\
	X(DENORMALIZE,	"denormalize",	"-a-")				\
	X(CLEAR,	"clear",	"-a-")				\
	X(TRUNC,	"trunc",	"-a-i")				\
	X(AGG,		"agg",		"-rrt")				\
	X(AGG_RAW,	"agg_raw",	"-rrt")				\
	X(KEYED_SPEC,	"keyed_spec",	"-i-j")				\
	X(KEYED_ACTIVE,	"keyed_active",	"r--")				\
	X(KEYED_SPECULATION, "keyed_open", "-c-")			\
	X(KEYED_SPECULATE, "keyed_speculate", "---")			\
	X(KEYED_TRACE,	"keyed_trace",	"---")				\
	X(KEYED_COMMIT,	"keyed_commit",	"-c-")				\
	X(KEYED_DISCARD, "keyed_discard", "-c-")			\
	X(BT,		"bt",		"-rnt")				\
	X(BT_VALUE,	"bt_value",	"rrnt")

/* A clause op's dst: what its ops need of the context (0: nothing, its
 * ops are the fused ones that read their operands alone). */
#define VXT_CLAUSE_CONTEXT	1	/* the clause and probe (records, errors, keys) */
#define VXT_CLAUSE_RECORDS	2	/* ... and a fresh record (target, text) */

enum vxt_opcode {
#define VXT_INSN_ENUM(op, name, fmt) VXT_INSN_##op,
	VXT_INSNS(VXT_INSN_ENUM)
#undef VXT_INSN_ENUM
	VXT_INSN_COUNT
};

struct vxt_insn {
	uint8_t code;		/* enum vxt_opcode */
	uint16_t dst;
	uint32_t a, b;
	int64_t imm;
};

struct vxt_program {
	struct vxt_insn *ops;
	unsigned nops, cap;
	unsigned nregs;		/* registers the ops use */
	const struct script_node **nodes;	/* printf formats, aggregation statements */
	unsigned nnodes, capnodes;
	const char *title;	/* the probe it runs for, for --explain */
	uint64_t tick_ns;	/* a tick's: its interval */
};

/* The programs of script @s (s->prog_*), once its variables have slots and
 * its aggregation statements their caches. @return 0 or -ENOMEM. */
int vxt_program_compile_script(struct vxt_script *s);
void vxt_program_free_script(struct vxt_script *s);
/* Free a program made alone (a filter's, filter_lower.c); NULL is fine. */
void vxt_program_free(struct vxt_program *p);

/* Run @p for the firing in @x (x->probe, x->ev set). @return 0, or the
 * value of the return op that ended it (a filter's answer), or negative
 * (out of memory, the sink's error); exit() stops it. */
int vxt_program_run(struct firing *x, const struct vxt_program *p);

/* The listing of every program of @s, one op a line. */
void vxt_program_explain(const struct vxt_script *s, FILE *out);
/* The listing of program @p alone (a filter's), its names from @s. */
void vxt_program_list(const struct vxt_script *s, const struct vxt_program *p, FILE *out);

const char *vxt_op_name_of(unsigned code);
const char *vxt_op_operands(unsigned code);

#endif
