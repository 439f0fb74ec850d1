/* tracefs_phases.c - the tracefs source's phases besides issue and
 * completion (--phases all): block_bio_queue of a request-level device (Q),
 * block_getrq (G), block_rq_insert (I), block_bio_backmerge and
 * block_bio_frontmerge (M), block_split (X), block_bio_remap (A),
 * block_plug and block_unplug (P, U).
 *
 * Each tracepoint's fields are found by name in the format the kernel
 * publishes (libtraceevent), so their offsets and sizes may change from one
 * kernel to the next (6.18 added ioprio and widened rwbs). What a phase
 * cannot carry is said, never guessed: block_plug and block_unplug name no
 * device on the kernels that exist (only the command, and the unplug's
 * request count), so they are counted and the note says so; a kernel whose
 * plug events carry a dev field gets them recorded on that device. A phase
 * tracepoint the kernel lacks is left out and named in the note. A remap is
 * recorded on the device and sector it maps to, with the device and sector
 * it came from (old_dev, old_sector) as its source (vxt_event_remap_from()).
 *
 * A bio-based device (device-mapper, md) keeps being traced by its bios
 * (source_tracefs.c), its block_bio_queue being its queue here (its issue
 * at the default level), so that a remap from it onto a device below
 * carries the I/O on; the other phases here are those of request-level
 * devices.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source/rwbs.h"
#include "source/tracefs_impl.h"

static uint64_t num(struct tep_format_field *f, void *data)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, data, &v);
	return v;
}

static void note_missing(struct tfs *t, const char *name)
{
	size_t len = strlen(t->missing);

	snprintf(t->missing + len, sizeof(t->missing) - len, "%s%s", len ? ", " : "",
		 name + strlen("block_"));
}

int vxt_tfs_setup_phase(struct vxt_source *s, struct tfs *t, int k, const char *filter)
{
	struct tfs_evdesc *d = &t->ev[k];
	const char *name = tfs_event_names[k];
	bool plug = k == K_PLUG || k == K_UNPLUG;

	d->id = -1;
	d->ev = tep_find_event_by_name(t->tep, "block", name);
	if (!d->ev) {
		note_missing(t, name);
		return 0;
	}
	d->dev = tep_find_field(d->ev, "dev");
	d->sector = tep_find_field(d->ev, "sector");
	d->nr_sector = tep_find_field(d->ev, "nr_sector");
	d->bytes = tep_find_field(d->ev, "bytes");
	d->error = NULL;
	d->rwbs = tep_find_field(d->ev, "rwbs");
	d->comm = tep_find_field(d->ev, "comm");
	d->new_sector = tep_find_field(d->ev, "new_sector");
	d->old_dev = tep_find_field(d->ev, "old_dev");
	d->old_sector = tep_find_field(d->ev, "old_sector");
	if (!plug && (!d->dev || !d->sector ||
		      !(k == K_SPLIT ? d->new_sector : d->nr_sector)))
		return vxt_source_seterr(s, -EPROTO, "tracefs: block:%s lacks dev, sector or %s",
					 name, k == K_SPLIT ? "new_sector" : "nr_sector");
	/* an event without dev and sector cannot be filtered by device */
	return vxt_tfs_enable_event(s, t, k, d->dev && d->sector ? filter : NULL);
}

void vxt_tfs_decode_phase(const struct tfs_evdesc *d, void *data, struct tfs_raw *r)
{
	uint64_t next;

	if (r->kind == K_SPLIT) {	/* the front part [sector, new_sector) goes on alone */
		next = num(d->new_sector, data);
		r->nr_sector = next > r->sector && next - r->sector < (1u << 23) ?
			       (uint32_t)(next - r->sector) : 0;
		r->bytes = r->nr_sector * 512u;
	}
	r->old_dev = 0;
	if (r->kind == K_REMAP && d->old_dev && d->old_sector) {
		r->old_dev = (uint32_t)num(d->old_dev, data);
		r->old_sector = num(d->old_sector, data);
	}
}

int vxt_tfs_emit_phase(struct vxt_source *s, struct tfs *t, const struct tfs_raw *r,
		       struct vxt_batch *b)
{
	struct vxt_event *e;
	uint16_t flags;
	int64_t obj;
	uint8_t phase, op;

	switch (r->kind) {
	case K_BIO_QUEUE:
		if (vxt_tfs_route_event(s, t, r, true) >= 0)
			return 0;	/* a bio-based device: its issue */
		phase = VXT_PH_QUEUE;
		break;
	case K_GETRQ: phase = VXT_PH_GETRQ; break;
	case K_RQ_INSERT: phase = VXT_PH_INSERT; break;
	case K_BACKMERGE:
	case K_FRONTMERGE: phase = VXT_PH_MERGE; break;
	case K_SPLIT: phase = VXT_PH_SPLIT; break;
	case K_REMAP: phase = VXT_PH_REMAP; break;
	case K_PLUG:
	case K_UNPLUG:
		if (!t->ev[r->kind].dev) {	/* no device to put it on */
			if (r->kind == K_PLUG)
				t->plugs++;
			else
				t->unplugs++;
			return 1;
		}
		phase = r->kind == K_PLUG ? VXT_PH_PLUG : VXT_PH_UNPLUG;
		break;
	default:
		return 0;
	}
	obj = vxt_tfs_route_event(s, t, r, false);
	if (obj < 0)	/* onto a bio-based device (a dm over a dm): its bio route */
		obj = vxt_tfs_route_event(s, t, r, true);
	if (obj < 0)
		return 1;
	e = vxt_batch_push(b);
	if (!e)
		return -ENOMEM;
	e->time_ns = r->ts;
	e->object = (uint32_t)obj;
	e->pid = r->pid;
	e->cpu = r->cpu;
	e->phase = phase;
	if (phase == VXT_PH_PLUG || phase == VXT_PH_UNPLUG) {
		e->op = VXT_OP_OTHER;
	} else {
		vxt_rwbs_parse(r->rwbs, r->sector, r->nr_sector, &op, &flags);
		e->sector = r->sector;
		e->bytes = r->bytes;
		e->op = op;
		e->flags = flags;
	}
	if (r->kind != K_REMAP) {
		e->comm = vxt_tfs_comm_id(s, t, r->pid, r->comm);
	} else if (r->old_dev) {
		/* the source device becomes an object, so it can be named */
		int64_t from = vxt_objtab_find_dev(s->objs, r->old_dev);

		if (from < 0)
			from = vxt_tfs_add_object(s, r->old_dev);
		if (from >= 0)
			e->remap_from = vxt_remap_from_pack((uint32_t)from, r->old_sector);
	}
	return 1;
}

void vxt_tfs_phase_note(struct vxt_source *s, struct tfs *t)
{
	size_t len = strlen(s->note);

	if (t->noted || (!t->plugs && !t->unplugs && !t->missing[0]))
		return;
	t->noted = true;
	if ((t->plugs || t->unplugs) && len < sizeof(s->note))
		len += (size_t)snprintf(s->note + len, sizeof(s->note) - len, "%s%llu plugs and "
					"%llu unplugs counted, not recorded: this kernel's "
					"block_plug and block_unplug name no device",
					len ? "; " : "", (unsigned long long)t->plugs,
					(unsigned long long)t->unplugs);
	if (t->missing[0] && len < sizeof(s->note))
		snprintf(s->note + len, sizeof(s->note) - len, "%sthe kernel has no block "
			 "tracepoint for %s", len ? "; " : "", t->missing);
}
