/* recon.c - issues a source keeps in flight against the kernel's own count
 *
 * See recon.h. A round sorts the candidates by device and issue time, takes
 * per device the oldest beyond the kernel's count, and keeps those it waits
 * to see twice for the next round.
 * Invariant: prev[0..nprev) are the candidates judged in excess but not
 * taken by the last round, sorted by by_name().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/recon.h"

struct vxt_recon {
	struct vxt_recon_cand *prev;
	size_t nprev, cap;
};

struct vxt_recon *vxt_recon_new(void)
{
	return calloc(1, sizeof(struct vxt_recon));
}

void vxt_recon_free(struct vxt_recon *r)
{
	if (!r)
		return;
	free(r->prev);
	free(r);
}

uint32_t vxt_recon_dev_at(const struct vxt_recon_dev *d, uint32_t nd, uint32_t dev)
{
	uint32_t k = 0;

	while (k < nd && d[k].dev != dev)
		k++;
	return k;
}

void vxt_recon_dev_add(struct vxt_recon_dev *d, uint32_t *nd, uint32_t dev)
{
	if (*nd < VXT_RECON_DEVS && vxt_recon_dev_at(d, *nd, dev) == *nd)
		d[(*nd)++] = (struct vxt_recon_dev){ .dev = dev };
}

void vxt_recon_dev_count(struct vxt_recon_dev *d, uint32_t nd, vxt_recon_count_fn count)
{
	for (uint32_t k = 0; k < nd; k++)
		d[k].known = !count(d[k].dev, &d[k].kernel);
}

static int by_dev_time(const void *a, const void *b)
{
	const struct vxt_recon_cand *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* The order of prev: by slot, then key, issue time and device. */
static int by_name(const void *a, const void *b)
{
	const struct vxt_recon_cand *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* Was @c judged in excess by the last round too? */
static bool seen_before(const struct vxt_recon *r, const struct vxt_recon_cand *c)
{
	return r->nprev && bsearch(c, r->prev, r->nprev, sizeof(*c), by_name);
}

int vxt_recon_judge(struct vxt_recon *r, struct vxt_recon_cand *cand, size_t n,
		    const struct vxt_recon_dev *d, uint32_t nd, bool at_once,
		    vxt_recon_take_fn take, void *arg)
{
	size_t i, j, m = 0, next = 0, run;
	int taken = 0;

	for (i = 0; i < n; i++) {	/* only the devices with a count */
		uint32_t k = vxt_recon_dev_at(d, nd, cand[i].dev);

		if (k < nd && d[k].known)
			cand[m++] = cand[i];
	}
	if (m > r->cap) {
		struct vxt_recon_cand *p = realloc(r->prev, m * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->prev = p;
		r->cap = m;
	}
	if (m > 1)
		qsort(cand, m, sizeof(*cand), by_dev_time);
	/* per device the oldest beyond the count: taken when seen twice (or
	 * at once), kept for the next round otherwise */
	for (j = 0; j < m; j += run) {
		const struct vxt_recon_dev *dv = &d[vxt_recon_dev_at(d, nd, cand[j].dev)];
		uint64_t excess;

		for (run = 1; j + run < m && cand[j + run].dev == cand[j].dev; run++)
			;
		excess = run > dv->kernel ? run - dv->kernel : 0;
		for (size_t e = 0; e < excess; e++) {
			const struct vxt_recon_cand *c = &cand[j + e];

			if (at_once || seen_before(r, c)) {
				if (take(arg, c))
					taken++;
			} else {
				cand[next++] = *c;	/* j + e >= next */
			}
		}
	}
	/* what waits for a second look */
	if (next)
		memcpy(r->prev, cand, next * sizeof(*r->prev));
	r->nprev = next;
	if (r->nprev > 1)
		qsort(r->prev, r->nprev, sizeof(*r->prev), by_name);
	return taken;
}
