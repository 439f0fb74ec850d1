// SPDX-License-Identifier: GPL-2.0
/* chan_select.c - what an I/O channel selects: its objects (want sets, the
 * VOLIOT_IO_TRACE and VOLIOT_IO_UNTRACE ioctls) and its capture level
 * (VOLIOT_IO_PHASES); and the objects it has announced
 *
 * The ioctls run under the channel's mutex (chan.c's vxt_ioctl()); a new
 * want set replaces the old under RCU, which the probes read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "chan.h"

/* ---- objects a channel announced ---- */

static u32 seen_slot(u32 dev)
{
	return (dev * 2654435761U) % VXT_SEEN_SLOTS;
}

bool vxt_seen_has(const struct vxt_seen *s, u32 dev)
{
	u32 i, slot = seen_slot(dev);

	for (i = 0; i < VXT_SEEN_SLOTS; i++) {
		u32 d = s->dev[(slot + i) % VXT_SEEN_SLOTS];

		if (d == dev)
			return true;
		if (!d)
			return false;
	}
	return false;
}

void vxt_seen_add(struct vxt_seen *s, u32 dev)
{
	u32 i, slot = seen_slot(dev);

	for (i = 0; i < VXT_SEEN_SLOTS; i++) {
		u32 *d = &s->dev[(slot + i) % VXT_SEEN_SLOTS];

		if (*d == dev)
			return;
		if (!*d) {
			*d = dev;
			return;
		}
	}
}

/* ---- object selection ---- */

static int want_check(const union voliot_want_set *w)
{
	switch (w->type) {
	case VOLIOT_WANT_ALL:
		return w->all.reserved ? -EINVAL : 0;
	case VOLIOT_WANT_DEV:
	case VOLIOT_WANT_DISK:
		return w->dev.dev ? 0 : -EINVAL;
	case VOLIOT_WANT_MAJOR:
		return w->major.major ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static bool want_same(const union voliot_want_set *a,
		      const union voliot_want_set *b)
{
	return a->type == b->type &&
	       (a->type == VOLIOT_WANT_ALL || a->dev.dev == b->dev.dev);
}

static union voliot_want_set *want_copy_in(unsigned long arg, u32 *count)
{
	struct voliot_want_list wl;
	union voliot_want_set *sets;
	u32 i;
	int rc;

	if (copy_from_user(&wl, (void __user *)arg, sizeof(wl)))
		return ERR_PTR(-EFAULT);
	if (!wl.count || wl.count > VOLIOT_WANT_MAX || wl.reserved)
		return ERR_PTR(-EINVAL);
	sets = memdup_user(u64_to_user_ptr(wl.sets),
			   array_size(wl.count, sizeof(*sets)));
	if (IS_ERR(sets))
		return sets;
	for (i = 0; i < wl.count; i++) {
		rc = want_check(&sets[i]);
		if (rc) {
			kfree(sets);
			return ERR_PTR(rc);
		}
	}
	*count = wl.count;
	return sets;
}

/* Build the channel's next want set from the old one plus or minus @sets. */
static struct vxt_wantset *want_merge(const struct vxt_wantset *old,
				      const union voliot_want_set *sets,
				      u32 count, bool add)
{
	u32 n = old ? old->n : 0, i, j;
	struct vxt_wantset *ws;

	ws = kzalloc(struct_size(ws, sets, n + (add ? count : 0)), GFP_KERNEL);
	if (!ws)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		for (j = 0; !add && j < count; j++)
			if (want_same(&old->sets[i], &sets[j]))
				break;
		if (add || j == count)
			ws->sets[ws->n++] = old->sets[i];
	}
	for (j = 0; add && j < count; j++) {
		for (i = 0; i < ws->n; i++)
			if (want_same(&ws->sets[i], &sets[j]))
				break;
		if (i == ws->n)
			ws->sets[ws->n++] = sets[j];
	}
	if (ws->n > VXT_SETS_MAX) {
		kfree(ws);
		return ERR_PTR(-ENOSPC);
	}
	for (i = 0; i < ws->n; i++)
		if (ws->sets[i].type == VOLIOT_WANT_ALL)
			ws->all = true;
	return ws;
}

int vxt_chan_trace(struct vxt_chan *ch, unsigned long arg, bool add)
{
	struct vxt_wantset *old, *ws;
	union voliot_want_set *sets;
	u32 count;

	if (ch->mode != VOLIOT_MODE_IO)
		return -EINVAL;
	sets = want_copy_in(arg, &count);
	if (IS_ERR(sets))
		return PTR_ERR(sets);
	old = rcu_dereference_protected(ch->want, lockdep_is_held(&ch->mutex));
	ws = want_merge(old, sets, count, add);
	kfree(sets);
	if (IS_ERR(ws))
		return PTR_ERR(ws);
	rcu_assign_pointer(ch->want, ws);
	if (ws->n && !(old && old->n))
		atomic_inc(&vxt_nr_tracing);
	else if (!ws->n && old && old->n)
		atomic_dec(&vxt_nr_tracing);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* The capture level. A speculating channel stays at VOLIOT_PHASES_ISSUE:
 * its program keys and commits issues and completions only.
 */
int vxt_chan_phases(struct vxt_chan *ch, unsigned long arg)
{
	if (ch->mode != VOLIOT_MODE_IO || arg > VOLIOT_PHASES_ALL)
		return -EINVAL;
	if (arg == VOLIOT_PHASES_ALL && ch->spec)
		return -EINVAL;
	if (arg == ch->phases)
		return 0;
	if (arg == VOLIOT_PHASES_ALL)
		atomic_inc(&vxt_nr_phases);
	else
		atomic_dec(&vxt_nr_phases);
	WRITE_ONCE(ch->phases, arg);
	return 0;
}
