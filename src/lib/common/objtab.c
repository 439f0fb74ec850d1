/* objtab.c - the object table: dense ids for the devices events refer to
 *
 * Invariant: objs[i].id == i; lookups by dev and name are linear, which is
 * fine for the tens to low thousands of block devices a machine has, and
 * cached by a last-hit check on the hot path (by dev).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/objtab.h"
#include "vxtrace/util.h"

struct vxt_objtab {
	struct vxt_object *objs;
	size_t n, cap;
	size_t last;		/* index of the last dev lookup hit */
};

struct vxt_objtab *vxt_objtab_new(void)
{
	return calloc(1, sizeof(struct vxt_objtab));
}

void vxt_objtab_free(struct vxt_objtab *t)
{
	if (!t)
		return;
	free(t->objs);
	free(t);
}

int64_t vxt_objtab_find_dev(const struct vxt_objtab *t, uint32_t dev)
{
	if (t->last < t->n && t->objs[t->last].dev == dev)
		return (int64_t)t->last;
	for (size_t i = 0; i < t->n; i++)
		if (t->objs[i].dev == dev) {
			((struct vxt_objtab *)t)->last = i;
			return (int64_t)i;
		}
	return -1;
}

int64_t vxt_objtab_find_name(const struct vxt_objtab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->objs[i].name, name))
			return (int64_t)i;
	return -1;
}

static int64_t add(struct vxt_objtab *t, uint32_t dev, const char *name, unsigned kind,
		   uint64_t size)
{
	struct vxt_object *o;

	if (vxt_grow(&t->objs, &t->cap, t->n + 1, sizeof(*t->objs)) < 0)
		return -ENOMEM;
	o = &t->objs[t->n];
	memset(o, 0, sizeof(*o));
	o->id = (uint32_t)t->n;
	o->dev = dev;
	o->kind = (uint8_t)kind;
	o->size = size;
	strncpy(o->name, name ? name : "", sizeof(o->name) - 1);
	return (int64_t)t->n++;
}

int64_t vxt_objtab_add(struct vxt_objtab *t, uint32_t dev, const char *name,
		       unsigned kind, uint64_t size)
{
	if (dev) {
		int64_t id = vxt_objtab_find_dev(t, dev);

		if (id >= 0)
			return id;
	}
	return add(t, dev, name, kind, size);
}

int64_t vxt_objtab_add_host(struct vxt_objtab *t, const char *host, uint32_t dev,
			    const char *name, unsigned kind, uint64_t size)
{
	int64_t id;

	for (size_t i = 0; dev && i < t->n; i++)
		if (t->objs[i].dev == dev && !strcmp(t->objs[i].host, host))
			return (int64_t)i;
	id = add(t, dev, name, kind, size);
	if (id >= 0)
		vxt_objtab_set_host(t, (uint32_t)id, host);
	return id;
}

void vxt_objtab_set_host(struct vxt_objtab *t, uint32_t id, const char *host)
{
	if (id < t->n)
		snprintf(t->objs[id].host, sizeof(t->objs[id].host), "%s", host ? host : "");
}

size_t vxt_objtab_count(const struct vxt_objtab *t)
{
	return t->n;
}

const struct vxt_object *vxt_objtab_get(const struct vxt_objtab *t, uint32_t id)
{
	return id < t->n ? &t->objs[id] : NULL;
}

static const char *const kind_names[] = {
	"other", "disk", "partition", "dm", "md", "loop", "sim",
};

const char *vxt_obj_kind_name(unsigned kind)
{
	return kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "other";
}

unsigned vxt_obj_kind_guess(const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(name, "dm-", 3))
		return VXT_OBJ_DM;
	if (!strncmp(name, "md", 2))
		return VXT_OBJ_MD;
	if (!strncmp(name, "loop", 4))
		return VXT_OBJ_LOOP;
	if (!strncmp(name, "nvme", 4))
		return strchr(name + 4, 'p') ? VXT_OBJ_PARTITION : VXT_OBJ_DISK;
	if (n && name[n - 1] >= '0' && name[n - 1] <= '9' &&
	    (!strncmp(name, "sd", 2) || !strncmp(name, "vd", 2) || !strncmp(name, "hd", 2) ||
	     !strncmp(name, "xvd", 3)))
		return VXT_OBJ_PARTITION;
	if (!strncmp(name, "sd", 2) || !strncmp(name, "vd", 2) || !strncmp(name, "nullb", 5))
		return VXT_OBJ_DISK;
	return VXT_OBJ_OTHER;
}
