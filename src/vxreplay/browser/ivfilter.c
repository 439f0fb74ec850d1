/* ivfilter.c - the browser's filter on the interval fields (q2c, ...)
 *
 * The browser evaluates its filter on chunks in any order, so a completion's
 * intervals cannot come from a pairer fed as the events go by. When the
 * expression reads an interval field, one pass over the whole file in time
 * order (the job reader) feeds every event to a phase pairer (phasepair.h)
 * and keeps the intervals of each completion that has one, by the
 * completion's object, time, first sector and latency; the filter then looks each
 * completion up there. Every other event, and a completion without a known
 * interval, has them all unknown (false in every comparison), as in
 * `vxreplay --filter`. Past VR_IVF_MAX completions the rest stay unknown
 * (said in the status line).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser/ivfilter.h"
#include "browser/model.h"
#include "vxtrace/filter.h"
#include "vxtrace/phasepair.h"

#define VR_IVF_MAX	(1u << 21)	/* completions kept (80 bytes each) */
#define NIL		UINT32_MAX

struct ivent {
	uint64_t time_ns, sector, latency_ns;
	uint32_t object, next;		/* next: in the hash chain */
	struct vxt_ivals iv;
};

struct vr_ivfilter {
	struct vxt_filter *f;
	struct ivent *ent;
	uint32_t n, cap;
	uint32_t *head;			/* chains by hash; NIL = empty */
	uint32_t nhead;			/* a power of two */
	bool full;
};

static uint32_t hash(const struct vr_ivfilter *x, uint32_t object, uint64_t t, uint64_t sector)
{
	uint64_t h = (t ^ sector * 0x9e3779b97f4a7c15ull ^ (uint64_t)object << 40) *
		     0xff51afd7ed558ccdull;

	return (uint32_t)(h >> 32) & (x->nhead - 1);
}

static int rehash(struct vr_ivfilter *x, uint32_t nhead)
{
	uint32_t *head = malloc((size_t)nhead * sizeof(*head));

	if (!head)
		return -1;
	free(x->head);
	x->head = head;
	x->nhead = nhead;
	memset(head, 0xff, (size_t)nhead * sizeof(*head));
	for (uint32_t i = 0; i < x->n; i++) {
		struct ivent *e = &x->ent[i];
		uint32_t h = hash(x, e->object, e->time_ns, e->sector);

		e->next = head[h];
		head[h] = i;
	}
	return 0;
}

static int keep(struct vr_ivfilter *x, const struct vxt_event *ev, const struct vxt_ivals *iv)
{
	struct ivent *e;
	uint32_t h;

	if (x->n == VR_IVF_MAX) {
		x->full = true;
		return 0;
	}
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 4096;
		struct ivent *ent = realloc(x->ent, (size_t)cap * sizeof(*ent));

		if (!ent)
			return -1;
		x->ent = ent;
		x->cap = cap;
	}
	if (x->n >= x->nhead && rehash(x, x->nhead ? 2 * x->nhead : 4096) < 0)
		return -1;
	e = &x->ent[x->n];
	e->time_ns = ev->time_ns;
	e->sector = ev->sector;
	e->latency_ns = ev->latency_ns;
	e->object = ev->object;
	e->iv = *iv;
	h = hash(x, e->object, e->time_ns, e->sector);
	e->next = x->head[h];
	x->head[h] = x->n++;
	return 0;
}

static bool known(const struct vxt_ivals *iv)
{
	for (unsigned k = 0; k < VXT_IV_COUNT; k++)
		if (iv->v[k] != VXT_IV_UNSET)
			return true;
	return false;
}

struct vr_ivfilter *vr_ivfilter_new(struct vr_model *m, struct vxt_filter *f, char *err,
				    size_t errsz)
{
	struct vr_ivfilter *x = calloc(1, sizeof(*x));
	struct vxt_phasepair *pp = vxt_phasepair_new();
	size_t nchunks = vxt_reader_nchunks(m->rd);

	if (!x || !pp || rehash(x, 4096) < 0)
		goto nomem;
	if (!vr_model_job_reader(m)) {
		snprintf(err, errsz, "%s", m->note);
		goto fail;
	}
	x->f = f;
	for (size_t i = 0; i < nchunks; i++) {
		size_t n;
		const struct vxt_event *evs = vr_job_decode(m, i, VXT_FIELD_ALL, &n);

		for (size_t k = 0; evs && k < n; k++) {
			struct vxt_ivals iv;

			if (vxt_phasepair_add(pp, &evs[k], &iv) < 0)
				goto nomem;
			if (evs[k].phase == VXT_PH_DONE && known(&iv) && keep(x, &evs[k], &iv) < 0)
				goto nomem;
		}
	}
	vxt_phasepair_free(pp);
	if (x->full)
		snprintf(m->note, sizeof(m->note),
			 "filter: intervals known for the first %u completed I/Os", VR_IVF_MAX);
	return x;
nomem:
	snprintf(err, errsz, "out of memory");
fail:
	vxt_phasepair_free(pp);
	vr_ivfilter_free(x);
	return NULL;
}

bool vr_ivfilter_match(struct vr_ivfilter *x, const struct vxt_event *ev)
{
	struct vxt_filter_ctx ctx = { .iv = NULL };

	if (ev->phase == VXT_PH_DONE)
		for (uint32_t i = x->head[hash(x, ev->object, ev->time_ns, ev->sector)]; i != NIL;
		     i = x->ent[i].next) {
			const struct ivent *e = &x->ent[i];

			if (e->time_ns == ev->time_ns && e->sector == ev->sector &&
			    e->object == ev->object && e->latency_ns == ev->latency_ns) {
				ctx.iv = &e->iv;
				break;
			}
		}
	return vxt_filter_eval(x->f, ev, &ctx);
}

void vr_ivfilter_free(struct vr_ivfilter *x)
{
	if (!x)
		return;
	free(x->ent);
	free(x->head);
	free(x);
}
