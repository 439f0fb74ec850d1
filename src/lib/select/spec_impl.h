/* spec_impl.h - a profile's speculation rules: their checker (spec_check.c)
 * and their compiler to the script engine (script_keyed.c)
 * (internal to libvxtrace)
 */
#ifndef VXT_SPEC_IMPL_H
#define VXT_SPEC_IMPL_H

#include "vxtrace/filter.h"
#include "vxtrace/script.h"
#include "vxtrace/spec.h"

/* Compile clause @i's predicate of @c into *@out (NULL when it has none),
 * with `spec` allowed and positions from the clause.
 * @return 0, or -EINVAL with the message in @err. */
int vxt_spec_compile_pred(const struct vxt_spec_config *c, unsigned i,
			  const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			  struct vxt_filter **out, char *err);

/* The rules of @c (checked with vxt_spec_check()) as a script for the
 * script engine; @objs and @strs are borrowed for its life (the predicates
 * look names up in them). @return the script, or NULL with the message in
 * @err. */
struct vxt_script *vxt_script_keyed(const struct vxt_spec_config *c,
				    const struct vxt_objtab *objs, const struct vxt_strtab *strs,
				    char err[VXT_ERRBUF_SIZE]);

/* Filter @f's jump table compiled test by test into @c's program (its
 * nodes allocated in c->s), `spec` read as the constant @spec when @spec >=
 * 0: the ops fall through to what follows when @f accepts the event, and
 * jump onto @reject when it refuses it (filter_lower.c). Name test i of a
 * script that keeps name answers (c->s->nncache > i) is the cached
 * name_match op. @return 0, or -ENOMEM. */
struct compiler;
int vxt_filter_emit(struct compiler *c, const struct vxt_filter *f, int spec, int64_t *reject);
/* Filter @f's jump table compiled test by test into a program of @s (its
 * nodes allocated in @s), `spec` read as the constant @spec: run by
 * vxt_program_run(), it returns 1 when @f accepts the event, else 0
 * (filter_run.c). Name test i keeps its answers in s->ncache[i] (@s has
 * f->ntests of them). @return it (caller frees with vxt_program_free()),
 * or NULL when out of memory. */
struct vxt_program;
struct vxt_program *vxt_filter_program(struct vxt_script *s, const struct vxt_filter *f,
				       int spec);

/* What a keyed script's clause @i holds beyond its ops (its predicate's
 * compiled filter, NULL = none; its window and follow-up), for the kernel
 * subset (profile_kspec.c). */
struct vxt_keyed_clause {
	struct vxt_filter *pred;
	bool windowed;
	uint64_t window_ns, follow_ns;
	uint32_t window_events, follow_events;
};
void vxt_skeyed_clause(const struct vxt_script *s, unsigned i, struct vxt_keyed_clause *out);
enum vxt_spec_key vxt_skeyed_key(const struct vxt_script *s);

/* Speculation over events by @script (taken: freed with the result, or on
 * failure); @keyed when it came from vxt_script_keyed(). @max_pending: see
 * struct vxt_spec_config (0 = the default). @return the engine, or NULL
 * with the message in @err. */
struct vxt_spec *vxt_spec_of_script(struct vxt_script *script, bool keyed,
				    const struct vxt_objtab *objs, const struct vxt_strtab *strs,
				    uint64_t max_pending, char err[VXT_ERRBUF_SIZE]);

#endif
