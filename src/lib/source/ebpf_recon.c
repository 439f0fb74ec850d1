/* ebpf_recon.c - the ebpf source's issues in flight against the kernel's own count
 *
 * See ebpf_recon.h; the rule is recon.c's, common to the sources. A round
 * scans the table twice: once for the devices with issues remembered, then
 * (after their counts are read) for those issues, so an issue completed
 * between the two reads lowers both figures alike and one issued after @t0
 * counts in neither: the excess can only fall short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/ebpf_recon.h"
#include "vxtrace/recon.h"
#include "vxtrace/util.h"

struct vxt_ebpf_recon {
	vxt_recon_count_fn count;
	struct vxt_recon *judge;	/* the rule, common to the sources */
	struct vxt_recon_cand *cand;
	size_t ncand, cap;
};

struct vxt_ebpf_recon *vxt_ebpf_recon_new(vxt_recon_count_fn count)
{
	struct vxt_ebpf_recon *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->count = count;
	r->judge = vxt_recon_new();
	if (!r->judge) {
		free(r);
		return NULL;
	}
	return r;
}

void vxt_ebpf_recon_free(struct vxt_ebpf_recon *r)
{
	if (!r)
		return;
	vxt_recon_free(r->judge);
	free(r->cand);
	free(r);
}

/* The issues of the known devices of @d from before @t0 into r->cand. */
static int collect(struct vxt_ebpf_recon *r, const struct vxt_bpf_slot *slots, uint32_t n,
		   uint64_t t0, const struct vxt_recon_dev *d, uint32_t nd)
{
	uint32_t i, k;

	r->ncand = 0;
	for (i = 0; i < n; i++) {
		const struct vxt_bpf_slot *sl = &slots[i];
		struct vxt_recon_cand c;

		if (!vxt_recon_counted(sl))
			continue;
		c.at = i;
		c.dev = sl->dev;
		c.key = sl->rq;
		c.time_ns = sl->is.time_ns;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (c.key != sl->rq || c.time_ns >= t0)
			continue;	/* being taken again, or issued since t0 */
		k = vxt_recon_dev_at(d, nd, c.dev);
		if (k == nd || !d[k].known)
			continue;
		if (vxt_grow(&r->cand, &r->cap, r->ncand + 1, sizeof(*r->cand)) < 0)
			return -ENOMEM;
		r->cand[r->ncand++] = c;
	}
	return 0;
}

struct take_arg {
	struct vxt_bpf_slot *slots;
	vxt_recon_found_fn found;
	void *arg;
};

/* vxt_recon_judge()'s: free the slot unless completed or taken again
 * meanwhile, and hand its content to the caller. */
static bool take_slot(void *arg, const struct vxt_recon_cand *c)
{
	struct take_arg *a = arg;
	struct vxt_bpf_slot *sl = &a->slots[c->at], copy = *sl;

	if (copy.rq != c->key || copy.is.time_ns != c->time_ns ||
	    !__atomic_compare_exchange_n(&sl->rq, &copy.rq, 0, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	copy.rq = c->key;
	a->found(a->arg, &copy);
	return true;
}

int vxt_ebpf_recon_round(struct vxt_ebpf_recon *r, struct vxt_bpf_slot *slots, uint32_t n,
			 uint64_t t0, bool at_once, vxt_recon_found_fn found, void *arg)
{
	struct vxt_recon_dev d[VXT_RECON_DEVS];
	struct take_arg a = { slots, found, arg };
	uint32_t nd = 0, i;

	for (i = 0; i < n; i++)		/* the devices with issues remembered */
		if (vxt_recon_counted(&slots[i]))
			vxt_recon_dev_add(d, &nd, slots[i].dev);
	vxt_recon_dev_count(d, nd, r->count);
	if (collect(r, slots, n, t0, d, nd) < 0)
		return -ENOMEM;
	return vxt_recon_judge(r->judge, r->cand, r->ncand, d, nd, at_once, take_slot, &a);
}
