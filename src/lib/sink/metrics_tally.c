/* metrics_tally.c - the metric set taken from the kernel's counts
 *
 * The ebpf source counting in BPF maps (vxt_source_tally()) sends no
 * events; its counts since it opened become the series: completions, bytes,
 * starts, the latency histogram (the same 2^k us buckets, counted by the
 * kernel), and the failed completions per errno. Counts are cumulative, so
 * each one is set, not added: reading the maps twice counts nothing twice.
 */
#include <errno.h>
#include <string.h>

#include "sink/metrics_impl.h"
#include "vxtrace/util.h"

_Static_assert(VXT_TALLY_US_BUCKETS == VXT_METRICS_BUCKETS + 1,
	       "the kernel's buckets are the metrics' buckets");

static int set_error(struct vxt_metrics *m, const struct vxt_tally_error *te)
{
	struct metrics_state *s = &m->live;

	for (size_t i = 0; i < s->nerr; i++) {
		struct metrics_error *e = &s->err[i];

		if (e->object == te->object && e->op == te->op && e->error == te->error) {
			e->n = te->n;
			return 0;
		}
	}
	if (vxt_grow(&s->err, &s->cap_err, s->nerr + 1, sizeof(*s->err)) < 0)
		return -ENOMEM;
	s->err[s->nerr++] = (struct metrics_error){ te->object, te->op, te->error, te->n };
	return 0;
}

int vxt_metrics_set_tally(struct vxt_metrics *m, const struct vxt_objtab *objs,
			  const struct vxt_tallies *t)
{
	uint64_t events = 0;

	m->objs = objs;
	m->tallied = true;
	for (size_t i = 0; i < t->n; i++) {
		const struct vxt_tally *k = &t->t[i];
		unsigned op = k->op < VXT_OP_COUNT ? k->op : VXT_OP_OTHER;
		struct metrics_series *ser;

		events += k->started + k->requeued + k->completed;
		/* the kernel still counts a device gone: not back unless it moves */
		if (m->ndropped && metrics_gone_dropped(m, k->object, op, k->started -
							 k->requeued + k->completed))
			continue;
		ser = metrics_series_of(m, objs, k->object, op);
		if (!ser)
			return -ENOMEM;
		ser->completed = k->completed;
		ser->bytes = k->bytes;
		/* requeued I/Os are issued again: started counts each once */
		ser->started = k->started - k->requeued;
		ser->lat_count = k->lat_count;
		ser->lat_sum_ns = k->lat_sum_ns;
		memcpy(ser->bucket, k->us_bucket, sizeof(ser->bucket));
	}
	for (size_t i = 0; i < t->ne; i++)
		if (!(m->ndropped && metrics_gone_object(m, t->e[i].object)) &&
		    set_error(m, &t->e[i]) < 0)
			return -ENOMEM;
	m->live.events = events;
	return 0;
}
