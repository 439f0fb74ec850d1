/* breakdown_tables.h - the breakdown's device, process and cell tables:
 * the lookups of its loop, inline (internal to the analysis layer)
 *
 * A cell counts the intervals of one (object, op, process); the device,
 * op, process and all-objects groups are sums of cells, folded by
 * vxt_bd_cells_fold() at the end. breakdown_tables.c holds the growths and
 * the folding.
 */
#ifndef VXT_BREAKDOWN_TABLES_H
#define VXT_BREAKDOWN_TABLES_H

#include "vxtrace/breakdown.h"

/* Out of line in breakdown_tables.c. */
struct vxt_bd_dev *vxt_bd_dev_grow(struct vxt_breakdown *b, uint32_t object);
struct vxt_bd_cell *vxt_bd_cell_find(struct vxt_breakdown *b, uint32_t object, uint8_t op,
				     uint32_t pid, uint32_t comm);
/* Add the cells into the object, op and process groups. @return 0, or
 * -ENOMEM. */
int vxt_bd_cells_fold(struct vxt_breakdown *b);
/* Free the distributions of @g. */
void vxt_bd_group_free(struct vxt_bd_group *g);

static inline struct vxt_bd_dev *dev_of(struct vxt_breakdown *b, uint32_t object)
{
	if (__builtin_expect(object >= b->ndev, 0))
		return vxt_bd_dev_grow(b, object);
	b->dev[object].used = true;
	return &b->dev[object];
}

/* cell_find(), the cell of @op found last first (reads and writes
 * interleave: one cache each keeps both hitting) */
static inline struct vxt_bd_cell *cell_of(struct vxt_breakdown *b, uint32_t object, uint8_t op,
					  uint32_t pid, uint32_t comm)
{
	struct vxt_bd_cell *c = b->last_cell[op];

	if (c && c->object == object && c->pid == pid && c->comm == comm)
		return c;
	return vxt_bd_cell_find(b, object, op, pid, comm);
}

#endif
