/* spec_impl.h - shared between the speculation engine and its checker
 * (internal to libvxtrace)
 */
#ifndef VXT_SPEC_IMPL_H
#define VXT_SPEC_IMPL_H

#include "vxtrace/filter.h"
#include "vxtrace/spec.h"

/* Compile clause @i's predicate of @c into *@out (NULL when it has none),
 * with `spec` allowed and positions from the clause.
 * @return 0, or -EINVAL with the message in @err. */
int vxt_spec_compile_pred(const struct vxt_spec_config *c, unsigned i,
			  const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			  struct vxt_filter **out, char *err);

#endif
