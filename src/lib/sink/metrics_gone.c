/* metrics_gone.c - removing the series of devices gone from the system
 *
 * Devices come and go (loop devices, device-mapper targets, disks of a
 * container); a series kept for each one that ever was grows without end,
 * and Prometheus keeps a gone device's last values as if it still had them.
 * So where the objects are this system's devices (vxt_metrics_system_objects()),
 * each look finds the objects whose series saw nothing since the previous
 * look (a device may still be completing its last I/O as it goes) and whose
 * device number sysfs no longer knows, and removes their series and error
 * counts. A device that comes back starts new series. Tallied series (the
 * kernel's counts, which keep a gone device) are remembered with their count,
 * so the next tally does not bring them back unless it moved.
 * Runs in the collecting thread, on the live state only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink/metrics_impl.h"
#include "vxtrace/sysdev.h"
#include "vxtrace/util.h"

enum { LOOK_KEEP = 1, LOOK_IDLE = 2, LOOK_GONE = 3 };

static uint64_t activity(const struct metrics_series *ser)
{
	return ser->started + ser->completed;
}

/* Is @object a device sysfs no longer knows? Simulated objects and ones
 * without a number never are. */
static bool device_gone(const struct vxt_metrics *m, uint32_t object)
{
	const struct vxt_object *o = m->objs ? vxt_objtab_get(m->objs, object) : NULL;

	if (!o || o->kind == VXT_OBJ_SIM || !o->dev)
		return false;
	return vxt_sysdev_describe(o->dev, NULL, NULL, NULL) == -ENOENT;
}

static int remember(struct vxt_metrics *m, const struct metrics_series *ser)
{
	if (vxt_grow(&m->dropped, &m->cap_dropped, m->ndropped + 1, sizeof(*m->dropped)) < 0)
		return -ENOMEM;
	m->dropped[m->ndropped++] = (struct metrics_dropped){ ser->object, ser->op,
							      activity(ser) };
	return 0;
}

/* Remove the series and errors of the objects marked LOOK_GONE in @look. */
static int remove_gone(struct vxt_metrics *m, const uint8_t *look)
{
	struct metrics_state *s = &m->live;
	size_t i, n = 0;

	for (i = 0; i < s->nser; i++) {
		if (look[s->ser[i].object] != LOOK_GONE)
			s->ser[n++] = s->ser[i];
		else if (m->tallied && remember(m, &s->ser[i]) < 0)
			return -ENOMEM;
	}
	s->nser = n;
	for (i = n = 0; i < s->nerr; i++)
		if (look[s->err[i].object] != LOOK_GONE)
			s->err[n++] = s->err[i];
	s->nerr = n;
	m->last_err = 0;
	memset(m->index, 0, m->nindex * sizeof(*m->index));
	for (i = 0; i < s->nser; i++)
		m->index[(size_t)s->ser[i].object * VXT_OP_COUNT + s->ser[i].op] = (uint32_t)i + 1;
	return 0;
}

int metrics_gone_look(struct vxt_metrics *m)
{
	struct metrics_state *s = &m->live;
	uint8_t *look;
	size_t i;
	int gone = 0, rc;

	if (!s->nser)
		return 0;
	look = calloc(s->nnames, 1);	/* every object with a series has a name */
	if (!look)
		return -ENOMEM;
	for (i = 0; i < s->nser; i++) {
		struct metrics_series *ser = &s->ser[i];

		if (activity(ser) != ser->looked)
			look[ser->object] = LOOK_KEEP;
		else if (!look[ser->object])
			look[ser->object] = LOOK_IDLE;
		ser->looked = activity(ser);
	}
	for (i = 0; i < s->nnames; i++)
		if (look[i] == LOOK_IDLE && device_gone(m, (uint32_t)i)) {
			look[i] = LOOK_GONE;
			gone++;
		}
	rc = gone ? remove_gone(m, look) : 0;
	free(look);
	return rc < 0 ? rc : gone;
}

bool metrics_gone_dropped(struct vxt_metrics *m, uint32_t object, unsigned op,
			  uint64_t now_activity)
{
	for (size_t i = 0; i < m->ndropped; i++) {
		struct metrics_dropped *d = &m->dropped[i];

		if (d->object != object || d->op != op)
			continue;
		if (d->activity == now_activity)
			return true;
		m->dropped[i] = m->dropped[--m->ndropped];	/* it moved: back */
		return false;
	}
	return false;
}

bool metrics_gone_object(const struct vxt_metrics *m, uint32_t object)
{
	size_t i, k = (size_t)object * VXT_OP_COUNT;

	for (i = 0; i < VXT_OP_COUNT && k + i < m->nindex; i++)
		if (m->index[k + i])
			return false;
	for (i = 0; i < m->ndropped; i++)
		if (m->dropped[i].object == object)
			return true;
	return false;
}
