/* objtab.h - the object table: id -> (dev, name, kind, size)
 *
 * Every event names its object by a small id. Ids are dense, assigned in
 * order of first sight from 0, and never reused; the table only grows.
 */
#ifndef VXTRACE_OBJTAB_H
#define VXTRACE_OBJTAB_H

#include <stddef.h>
#include <stdint.h>

#define VXT_OBJ_NAME_MAX 32	/* including the NUL */
#define VXT_OBJ_HOST_MAX 64	/* a host name, including the NUL (as the file header's) */

/* Values equal enum voliot_obj_kind. */
enum vxt_obj_kind {
	VXT_OBJ_OTHER = 0,
	VXT_OBJ_DISK = 1,
	VXT_OBJ_PARTITION = 2,
	VXT_OBJ_DM = 3,
	VXT_OBJ_MD = 4,
	VXT_OBJ_LOOP = 5,
	VXT_OBJ_SIM = 6,
};

struct vxt_object {
	uint32_t id;
	uint32_t dev;		/* major << 20 | minor (VOLIOT_MKDEV) */
	uint64_t size;		/* bytes, 0 if unknown */
	uint8_t kind;		/* enum vxt_obj_kind */
	char name[VXT_OBJ_NAME_MAX];
	char host[VXT_OBJ_HOST_MAX];	/* the host it belongs to; "" if not known */
};

struct vxt_objtab;

/* @return a new empty table, or NULL when out of memory. */
struct vxt_objtab *vxt_objtab_new(void);
/* Frees the table; NULL is fine. */
void vxt_objtab_free(struct vxt_objtab *t);
/* Add an object; its id is assigned. An existing dev (dev != 0) returns the
 * existing id and updates nothing. @return the id, or -ENOMEM. */
int64_t vxt_objtab_add(struct vxt_objtab *t, uint32_t dev, const char *name,
		       unsigned kind, uint64_t size);
/* As vxt_objtab_add(), for an object of @host: an existing dev of the same
 * host returns the existing id (objects of several hosts share devs). */
int64_t vxt_objtab_add_host(struct vxt_objtab *t, const char *host, uint32_t dev,
			    const char *name, unsigned kind, uint64_t size);
/* Name the host of object @id (truncated to VXT_OBJ_HOST_MAX - 1 bytes). */
void vxt_objtab_set_host(struct vxt_objtab *t, uint32_t id, const char *host);
/* @return the number of objects. */
size_t vxt_objtab_count(const struct vxt_objtab *t);
/* @return object @id, borrowed until the table grows; NULL if out of range. */
const struct vxt_object *vxt_objtab_get(const struct vxt_objtab *t, uint32_t id);
/* @return the id of the object with @dev / @name, or -1. */
int64_t vxt_objtab_find_dev(const struct vxt_objtab *t, uint32_t dev);
int64_t vxt_objtab_find_name(const struct vxt_objtab *t, const char *name);
/* "disk", "partition", "dm", "md", "loop", "sim", "other". */
const char *vxt_obj_kind_name(unsigned kind);
/* Guess a kind from a kernel disk name ("sda1" -> partition, "dm-0" -> dm). */
unsigned vxt_obj_kind_guess(const char *name);

#endif
