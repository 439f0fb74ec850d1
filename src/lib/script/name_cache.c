/* name_cache.c - the name_match op: a test of an object, host or command
 * name, cached per object / command id
 *
 * The name of an id never changes, so a test's answer for an id is worked
 * out once (the glob or the string comparison on the name the bound table
 * gives) and kept in the test's cache; the steady state is a byte load, for
 * every id however many names a file has. An id not in the table yet (its
 * name reads "") is answered uncached, since its name may still come.
 */
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/util.h"

/* Make room for @id in @c (to the table's @count ids at once). */
static bool cache_room(struct sname_cache *c, uint32_t id, size_t count)
{
	size_t n = count > id ? count : (size_t)id + 1;
	uint8_t *v;

	if (id < c->n)
		return true;
	if (n < 2 * c->n)
		n = 2 * c->n;
	v = realloc(c->v, n);
	if (!v)
		return false;
	memset(v + c->n, 0, n - c->n);
	c->v = v;
	c->n = n;
	return true;
}

bool vxt_name_match(struct firing *x, const struct script_node *n, struct sname_cache *c)
{
	const struct script_node *fld = n->a;
	const struct vxt_script *s = x->s;
	bool comm = fld->idx == SF_COMM || fld->idx == SF_EXECNAME;
	uint32_t id = comm ? x->ev->comm : x->ev->object;
	size_t count;
	struct script_value v;
	bool r;

	if (id < c->n && c->v[id])
		return c->v[id] == 2;
	v = vxt_sfield(x, fld->idx);
	r = n->kind == SN_GLOB ? vxt_glob_match(n->str, v.s) : strcmp(v.s, n->b->str) == 0;
	if (comm)
		count = s->strs ? vxt_strtab_count(s->strs) : 0;
	else
		count = s->objs ? vxt_objtab_count(s->objs) : 0;
	if (id < count && cache_room(c, id, count))
		c->v[id] = r ? 2 : 1;
	return r;
}
