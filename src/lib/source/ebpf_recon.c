/* ebpf_recon.c - the ebpf source's issues in flight against the kernel's own count
 *
 * See ebpf_recon.h. A round scans the table twice: once for the devices
 * with issues remembered, then (after their counts are read) for those
 * issues, so an issue completed between the two reads lowers both figures
 * alike and one issued after @t0 counts in neither: the excess can only
 * fall short. Candidates are kept sorted by slot for the next round.
 * Invariant: prev[0..nprev) are the slots judged in excess by the last
 * round, ascending by slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/ebpf_recon.h"

#define RECON_DEVS 64		/* devices reconciled per round */

struct recon_cand {
	uint32_t at;		/* slot */
	uint32_t dev;
	uint64_t rq, time_ns;	/* the issue it held */
};

struct recon_dev {
	uint32_t dev;
	bool known;		/* the kernel's count was read */
	uint64_t kernel;	/* its reads and writes in flight */
	uint64_t ours;		/* the issues remembered from before t0 */
};

struct vxt_ebpf_recon {
	vxt_recon_count_fn count;
	struct recon_cand *cand, *prev;
	size_t ncand, nprev, cap;
};

struct vxt_ebpf_recon *vxt_ebpf_recon_new(vxt_recon_count_fn count)
{
	struct vxt_ebpf_recon *r = calloc(1, sizeof(*r));

	if (r)
		r->count = count;
	return r;
}

void vxt_ebpf_recon_free(struct vxt_ebpf_recon *r)
{
	if (!r)
		return;
	free(r->cand);
	free(r->prev);
	free(r);
}

static uint32_t dev_at(const struct recon_dev *d, uint32_t nd, uint32_t dev)
{
	uint32_t k = 0;

	while (k < nd && d[k].dev != dev)
		k++;
	return k;
}

static int by_dev_time(const void *a, const void *b)
{
	const struct recon_cand *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

static int by_slot(const void *a, const void *b)
{
	const struct recon_cand *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Was @c judged in excess by the last round too? */
static bool seen_before(const struct vxt_ebpf_recon *r, const struct recon_cand *c)
{
	const struct recon_cand *p = bsearch(c, r->prev, r->nprev, sizeof(*c), by_slot);

	return p && p->rq == c->rq && p->time_ns == c->time_ns;
}

static int grow(struct vxt_ebpf_recon *r, size_t need)
{
	struct recon_cand *a, *b;

	if (need <= r->cap)
		return 0;
	a = realloc(r->cand, need * sizeof(*a));
	if (a)
		r->cand = a;
	b = realloc(r->prev, need * sizeof(*b));
	if (b)
		r->prev = b;
	if (!a || !b)
		return -ENOMEM;
	r->cap = need;
	return 0;
}

/* The issues of the known devices of @d from before @t0 into r->cand, and
 * their number per device. */
static int collect(struct vxt_ebpf_recon *r, const struct vxt_bpf_slot *slots, uint32_t n,
		   uint64_t t0, struct recon_dev *d, uint32_t nd)
{
	uint32_t i, k;

	r->ncand = 0;
	for (i = 0; i < n; i++) {
		const struct vxt_bpf_slot *sl = &slots[i];
		struct recon_cand c;

		if (!vxt_recon_counted(sl))
			continue;
		c.at = i;
		c.dev = sl->dev;
		c.rq = sl->rq;
		c.time_ns = sl->is.time_ns;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (c.rq != sl->rq || c.time_ns >= t0)
			continue;	/* being taken again, or issued since t0 */
		k = dev_at(d, nd, c.dev);
		if (k == nd || !d[k].known)
			continue;
		if (r->ncand == r->cap && grow(r, r->cap ? r->cap * 2 : 256) < 0)
			return -ENOMEM;
		r->cand[r->ncand++] = c;
		d[k].ours++;
	}
	return 0;
}

int vxt_ebpf_recon_round(struct vxt_ebpf_recon *r, struct vxt_bpf_slot *slots, uint32_t n,
			 uint64_t t0, bool at_once, vxt_recon_found_fn found, void *arg)
{
	struct recon_dev d[RECON_DEVS];
	uint32_t nd = 0, i, k;
	size_t j, next = 0, run;
	int taken = 0;

	for (i = 0; i < n; i++)		/* the devices with issues remembered */
		if (vxt_recon_counted(&slots[i]) && nd < RECON_DEVS &&
		    dev_at(d, nd, slots[i].dev) == nd)
			d[nd++] = (struct recon_dev){ .dev = slots[i].dev };
	for (k = 0; k < nd; k++)
		d[k].known = !r->count(d[k].dev, &d[k].kernel);
	if (collect(r, slots, n, t0, d, nd) < 0)
		return -ENOMEM;
	if (r->ncand > 1)
		qsort(r->cand, r->ncand, sizeof(*r->cand), by_dev_time);
	/* per device the oldest ours - kernel: taken when seen twice (or at
	 * once), kept for the next round otherwise */
	for (j = 0; j < r->ncand; j += run) {
		k = dev_at(d, nd, r->cand[j].dev);
		run = d[k].ours;
		uint64_t excess = d[k].ours > d[k].kernel ? d[k].ours - d[k].kernel : 0;

		for (size_t e = 0; e < excess; e++) {
			struct recon_cand *c = &r->cand[j + e];
			struct vxt_bpf_slot *sl = &slots[c->at], copy;

			if (!at_once && !seen_before(r, c)) {
				r->cand[next++] = *c;	/* j + e >= next */
				continue;
			}
			copy = *sl;
			if (copy.rq != c->rq || copy.is.time_ns != c->time_ns ||
			    !__atomic_compare_exchange_n(&sl->rq, &copy.rq, 0, false,
							 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				continue;	/* completed or taken again meanwhile */
			copy.rq = c->rq;
			found(arg, &copy);
			taken++;
		}
	}
	/* what waits for a second look, by slot */
	if (next)
		memcpy(r->prev, r->cand, next * sizeof(*r->prev));
	r->nprev = next;
	if (r->nprev > 1)
		qsort(r->prev, r->nprev, sizeof(*r->prev), by_slot);
	return taken;
}
