/* chanev.h - channel I/O records to events (internal to libvxtrace)
 *
 * The kmod and ebpf sources both receive struct voliot_io_rec records (the
 * module's channel, the BPF ring buffer); this turns one into a vxt_event,
 * naming its object from sysfs when nothing announced it.
 */
#ifndef VXT_CHANEV_H
#define VXT_CHANEV_H

#include "source/source_impl.h"
#include "vxtrace/voltrace.h"

/* The last object looked up, so runs of one device cost no search. */
struct vxt_chanev {
	uint32_t last_dev, last_id;
	bool have_last;
	bool have_comm;		/* last_comm's id is comm_id */
	uint32_t comm_id;
	char last_comm[16];	/* the last command interned, as in the record */
};

/* Object id of kernel device @dev (VOLIOT_MKDEV), added from sysfs (or as
 * "MAJ:MIN") when the table does not have it. @return the id or -ENOMEM. */
int64_t vxt_chanev_object(struct vxt_source *s, struct vxt_chanev *c, uint32_t dev);
/* Append the event of @r with @phase to @b. @return the event (borrowed
 * until @b grows), or NULL when out of memory. */
struct vxt_event *vxt_chanev_io(struct vxt_source *s, struct vxt_chanev *c, struct vxt_batch *b,
				const struct voliot_io_rec *r, uint8_t phase);

#endif
