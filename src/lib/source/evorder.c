/* evorder.c - a reorder window for events that arrive late by a bound */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/evorder.h"

void vxt_evorder_init(struct vxt_evorder *o, uint64_t window_ns)
{
	memset(o, 0, sizeof(*o));
	o->window_ns = window_ns;
}

/* Stable merge sort of @a[0..n) by time, with @tmp as scratch. */
static void sort_events(struct vxt_event *a, struct vxt_event *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	sort_events(a, tmp, mid);
	sort_events(a + mid, tmp, n - mid);
	if (a[mid - 1].time_ns <= a[mid].time_ns)
		return;		/* already in order: the usual case */
	while (i < mid && j < n)
		tmp[k++] = a[j].time_ns < a[i].time_ns ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	memcpy(a, tmp, k * sizeof(*a));
}

int vxt_evorder_release(struct vxt_evorder *o, struct vxt_batch *out, bool all)
{
	struct vxt_batch *h = &o->held;
	uint64_t cut;
	size_t i, n;

	if (!h->n)
		return 0;
	if (o->tmp_cap < h->n) {
		struct vxt_event *t = realloc(o->tmp, h->n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		o->tmp = t;
		o->tmp_cap = h->n;
	}
	for (i = 0; i < h->n; i++)
		if (h->ev[i].time_ns > o->maxt)
			o->maxt = h->ev[i].time_ns;
	sort_events(h->ev, o->tmp, h->n);
	/* events before @cut go out */
	if (all)
		cut = UINT64_MAX;
	else if (o->has_horizon)
		cut = o->horizon;
	else
		cut = o->maxt >= o->window_ns ? o->maxt - o->window_ns + 1 : 0;
	for (n = 0; n < h->n; n++)
		if (h->ev[n].time_ns >= cut)
			break;
	for (i = 0; i < n; i++) {
		struct vxt_event *e = vxt_batch_push(out);

		if (!e)
			return -ENOMEM;
		*e = h->ev[i];
	}
	memmove(h->ev, h->ev + n, (h->n - n) * sizeof(*h->ev));
	h->n -= n;
	return 0;
}

void vxt_evorder_free(struct vxt_evorder *o)
{
	vxt_batch_free(&o->held);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}
