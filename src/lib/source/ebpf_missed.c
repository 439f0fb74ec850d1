/* ebpf_missed.c - the ebpf source's completions never seen (see ebpf_impl.h)
 *
 * The programs tell of one when its request is issued again (a
 * VXT_BPF_REC_MISSED record); the rounds of ebpf_recon.c, on the programs'
 * inflight table mapped here, find those whose request is not. Each
 * becomes a lost event naming its I/O (counting only: a tally's lost), so
 * no view keeps it in flight, and the closing line names them by device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vxtrace/sysdev.h"
#include "vxtrace/util.h"

#ifdef VXT_HAVE_EBPF

#include <bpf/libbpf.h>

#include "source/ebpf_impl.h"

/* Count a completion of @dev that never ran the programs. */
void vxt_ebpf_note_missed(struct vxt_source *s, struct ebpf *e, uint32_t dev)
{
	uint32_t k = 0;

	while (k < e->nmissed_dev && e->missed_dev[k].dev != dev)
		k++;
	if (k == e->nmissed_dev && k < EBPF_MISSED_DEVS)
		e->missed_dev[e->nmissed_dev++] = (struct missed_dev){ .dev = dev };
	if (k < e->nmissed_dev)
		e->missed_dev[k].n++;
	e->missed_seen++;
	s->lost++;
	s->lost_passed++;
}

/* The lost event of I/O @r (as issued, found at r->time_ns) whose completion
 * never ran the programs: one lost event naming it (vxt_event_lost_io()). */
int vxt_ebpf_missed_io(struct vxt_source *s, struct ebpf *e, const struct voliot_io_rec *r)
{
	struct vxt_event *ev = vxt_chanev_io(s, &e->names, e->batch, r, VXT_PH_LOST);

	if (!ev)
		return -ENOMEM;
	ev->lost_io = vxt_lost_io_pack(r->sector);
	ev->sector = 1;
	ev->flags = 0;
	ev->error = 0;
	vxt_ebpf_note_missed(s, e, r->dev);
	return 0;
}

/* vxt_ebpf_recon_round()'s: a slot it took, kept until next() makes its
 * lost event. */
static void keep_found(void *arg, const struct vxt_bpf_slot *copy)
{
	struct ebpf *e = arg;

	if (vxt_grow(&e->found, &e->capfound, e->nfound + 1, sizeof(*e->found)) < 0) {
		e->found_nomem = true;
		return;
	}
	e->found[e->nfound++] = *copy;
}

/* Counting only: a completion of (@dev, @op) a round found never seen. */
static void tally_lost(struct ebpf *e, uint32_t dev, uint8_t op)
{
	uint32_t k = 0;

	while (k < e->ntally_lost && (e->tally_lost[k].dev != dev || e->tally_op[k] != op))
		k++;
	if (k == e->ntally_lost && k < sizeof(e->tally_op)) {
		e->tally_lost[k] = (struct missed_dev){ .dev = dev };
		e->tally_op[e->ntally_lost++] = op;
	}
	if (k < e->ntally_lost)
		e->tally_lost[k].n++;
}

/* A round of the issues in flight against the kernel's counts
 * (ebpf_recon.h); @at_once once no issue is taken. @return 0 or -ENOMEM. */
int vxt_ebpf_reconcile(struct ebpf *e, bool at_once)
{
	int n;

	if (!e->slots)
		return 0;
	n = vxt_ebpf_recon_round(e->recon, e->slots, VXT_BPF_MAX_INFLIGHT, vxt_now_mono(),
				 at_once, keep_found, e);
	if (n < 0 || e->found_nomem)
		return -ENOMEM;
	if (e->skel->rodata->tally_only) {	/* no event to name them in */
		for (size_t i = 0; i < e->nfound; i++)
			tally_lost(e, e->found[i].dev, e->found[i].op);
		e->missed_end_tally += e->nfound;
		e->nfound = 0;
	}
	return 0;
}

/* The slots the rounds took into lost events naming their I/O, found now. */
int vxt_ebpf_flush_found(struct vxt_source *s, struct ebpf *e)
{
	uint64_t now = vxt_now_mono();

	for (size_t i = 0; i < e->nfound; i++) {
		const struct vxt_bpf_slot *sl = &e->found[i];
		struct voliot_io_rec r = {
			.len = sizeof(r), .type = VXT_BPF_REC_MISSED, .op = sl->op,
			.dev = sl->dev, .pid = sl->is.pid, .bytes = sl->is.bytes,
			.time_ns = now, .sector = sl->sector, .latency_ns = sl->is.time_ns,
		};

		memcpy(r.comm, sl->is.comm, sizeof(r.comm));
		if (vxt_ebpf_missed_io(s, e, &r) < 0)
			return -ENOMEM;
	}
	e->nfound = 0;
	return 0;
}

/* The closing line's part for the completions that never ran the programs:
 * how many, and on which devices. */
void vxt_ebpf_note_missed_devs(struct vxt_source *s, struct ebpf *e)
{
	char devs[400] = "";
	size_t len = 0;

	for (uint32_t k = 0; k < e->nmissed_dev && len + 1 < sizeof(devs); k++) {
		int64_t id = vxt_chanev_object(s, &e->names, e->missed_dev[k].dev);
		const struct vxt_object *o = id >= 0 ? vxt_objtab_get(s->objs, (uint32_t)id) : NULL;

		len += (size_t)snprintf(devs + len, sizeof(devs) - len, "%s%s %llu",
					k ? ", " : "", o ? o->name : "?",
					(unsigned long long)e->missed_dev[k].n);
	}
	vxt_source_add_note(s, "%llu completion%s lost: the kernel ran the block_rq_complete "
			    "tracepoint without the BPF programs (%s; each issue is in the file, "
			    "closed by a lost event)", (unsigned long long)e->missed_seen,
			    e->missed_seen == 1 ? "" : "s", devs);
}

/* The programs' inflight table mapped into e->slots, and its reconciler. */
int vxt_ebpf_map_slots(struct vxt_source *s, struct ebpf *e)
{
	size_t len = (size_t)VXT_BPF_MAX_INFLIGHT * sizeof(*e->slots);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(e->skel->maps.inflight), 0);

	if (p == MAP_FAILED)
		return vxt_source_seterr(s, -errno, "ebpf: cannot map the inflight table: %s",
					 strerror(errno));
	e->slots = p;
	e->recon = vxt_ebpf_recon_new(vxt_sysdev_inflight);
	if (!e->recon)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	e->recon_next_ns = vxt_now_mono() + EBPF_RECON_NS;
	return 0;
}

int64_t vxt_ebpf_unfinished(struct ebpf *e)
{
	int64_t left = 0;

	if (!e->slots)
		return -1;
	for (uint32_t i = 0; i < VXT_BPF_MAX_INFLIGHT; i++)
		left += e->slots[i].rq && e->slots[i].state == VXT_BPF_SLOT_ISSUED;
	return left;
}

void vxt_ebpf_add_tally_lost(struct vxt_source *s, struct ebpf *e, struct vxt_tallies *out)
{
	for (uint32_t k = 0; k < e->ntally_lost; k++) {
		int64_t id = vxt_chanev_object(s, &e->names, e->tally_lost[k].dev);
		uint8_t op = e->tally_op[k];

		for (size_t i = 0; id >= 0 && i < out->n; i++)
			if (out->t[i].object == (uint32_t)id && out->t[i].op == op)
				out->t[i].lost += e->tally_lost[k].n;
	}
}

#endif /* VXT_HAVE_EBPF */
