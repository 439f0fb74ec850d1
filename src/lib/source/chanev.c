/* chanev.c - channel I/O records to events (see chanev.h) */
#include <stdio.h>
#include <string.h>

#include "source/chanev.h"
#include "vxtrace/sysdev.h"

int64_t vxt_chanev_object(struct vxt_source *s, struct vxt_chanev *c, uint32_t dev)
{
	char name[32];
	unsigned kind = VXT_OBJ_OTHER;
	uint64_t size = 0;
	int64_t id;

	if (c->have_last && c->last_dev == dev)
		return c->last_id;
	id = vxt_objtab_find_dev(s->objs, dev);
	if (id < 0) {
		if (vxt_sysdev_describe(dev, name, &kind, &size) < 0)
			snprintf(name, sizeof(name), "%u:%u", VOLIOT_MAJOR(dev), VOLIOT_MINOR(dev));
		id = vxt_objtab_add(s->objs, dev, name, kind, size);
		if (id < 0)
			return id;
	}
	c->last_dev = dev;
	c->last_id = (uint32_t)id;
	c->have_last = true;
	return id;
}

/* The string id of @comm (a record's 16 bytes): the last one's again when
 * the bytes are the same (most records in a row name one command), with no
 * hash; an id shared by the strings past the table's limit is not kept, so
 * each of those is still counted there. */
static int64_t comm_id(struct vxt_source *s, struct vxt_chanev *c, const char comm[16])
{
	uint64_t over;
	int64_t id;

	if (c->have_comm && !memcmp(c->last_comm, comm, sizeof(c->last_comm)))
		return c->comm_id;
	over = vxt_strtab_over(s->strs);
	id = vxt_strtab_intern(s->strs, comm, strnlen(comm, sizeof(c->last_comm)));
	c->have_comm = id >= 0 && vxt_strtab_over(s->strs) == over;
	if (c->have_comm) {
		memcpy(c->last_comm, comm, sizeof(c->last_comm));
		c->comm_id = (uint32_t)id;
	}
	return id;
}

struct vxt_event *vxt_chanev_io(struct vxt_source *s, struct vxt_chanev *c, struct vxt_batch *b,
				const struct voliot_io_rec *r, uint8_t phase)
{
	struct vxt_event *e;
	int64_t id, comm;

	id = vxt_chanev_object(s, c, r->dev);
	comm = comm_id(s, c, r->comm);
	if (id < 0 || comm < 0)
		return NULL;
	e = vxt_batch_push(b);
	if (!e)
		return NULL;
	e->time_ns = r->time_ns;
	e->sector = r->sector;
	e->latency_ns = r->latency_ns;
	e->bytes = r->bytes;
	e->object = (uint32_t)id;
	e->pid = r->pid;
	e->comm = (uint32_t)comm;
	e->flags = r->flags;
	e->cpu = r->cpu;
	e->error = (int16_t)r->error;
	e->phase = phase;
	e->op = r->op < VXT_OP_COUNT ? r->op : VXT_OP_OTHER;
	return e;
}
