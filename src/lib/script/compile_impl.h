/* compile_impl.h - the script compiler's state and the steps its two files
 * share (internal to libvxtrace)
 *
 * compile.c compiles expressions (values into registers, predicates into
 * jumps), compile_clause.c statements, clauses and programs. Each call
 * sets c->rc on running out of memory and goes on harmlessly; the program
 * is checked once at the end.
 */
#ifndef VXT_SCRIPT_COMPILE_IMPL_H
#define VXT_SCRIPT_COMPILE_IMPL_H

#include "script/program.h"

#define NO_FIXUP (-1)	/* an empty list of jumps to patch */

struct compiler {
	struct vxt_script *s;
	struct vxt_program *p;
	unsigned next_reg;	/* the first free register */
	bool has_event;		/* the program runs for an event */
	int rc;
};

/* Append an op. @return its address. */
unsigned vxt_cc_emit(struct compiler *c, unsigned code, unsigned dst, uint32_t a, uint32_t b,
		     int64_t imm);
/* The address of the next op. */
unsigned vxt_cc_here(const struct compiler *c);
/* A free register, taken. */
unsigned vxt_cc_reg(struct compiler *c);
/* @n's index in the program's node table. */
unsigned vxt_cc_node(struct compiler *c, const struct script_node *n);
/* A jump op @code (operand @a) onto @list, its target patched later. */
void vxt_cc_jump(struct compiler *c, unsigned code, uint32_t a, int64_t *list);
/* Every jump of @list to @target. */
void vxt_cc_patch(struct compiler *c, int64_t list, unsigned target);
/* The slot of self-> or req-> variable @n. */
unsigned vxt_cc_slot(const struct compiler *c, const struct script_node *n);
/* Whether @n is an integer req-> variable (read in place by its ops). */
bool vxt_cc_req_int(const struct script_node *n);
/* Whether D compares field @f unsigned (a 64-bit unsigned number or a
 * size, as C types it). */
bool vxt_cc_unsigned_field(int f);
/* @n's value into @dst; registers above it are free. */
void vxt_cc_value(struct compiler *c, const struct script_node *n, unsigned dst);
/* @k[0..@n) into consecutive registers (@raw: those with a raw form as
 * their numbers). @return the first. */
unsigned vxt_cc_keys(struct compiler *c, struct script_node *const *k, unsigned n, bool raw);
/* Jumps onto @list taken when the truth of @n is @sense. */
void vxt_cc_test(struct compiler *c, const struct script_node *n, bool sense, int64_t *list);

#endif
