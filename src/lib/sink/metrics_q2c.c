/* metrics_q2c.c - queue-to-completion times (Q2C) for the metrics, where the
 * source captures queue events
 *
 * The queued bios are followed by the pairer (pairer.h), as btt(1) follows
 * them: a queue of N bytes at sector S is pending on its object over
 * [S, S + N/512) until a completion whose range holds it; that completion
 * ends every pending queue its range holds, so a bio merged into a request
 * gets the request's completion; splits and remaps carry a bio along. A
 * queue at a sector already pending, and events without bytes, pair with
 * nothing. Each pair is one Q2C observation of the completion's object and
 * op (a completion timed before its queue counts 0).
 */
#include <errno.h>
#include <stdlib.h>

#include "sink/metrics_impl.h"

#include "vxtrace/pairer.h"

struct metrics_q2c {
	struct vxt_pairer *pr;
	uint64_t ord;
};

void metrics_q2c_free(struct metrics_q2c *q)
{
	if (!q)
		return;
	vxt_pairer_free(q->pr);
	free(q);
}

int metrics_q2c_queue(struct vxt_metrics *m, const struct vxt_event *ev)
{
	struct metrics_q2c *q = m->q2c;
	struct vxt_pstep st;

	if (ev->phase == VXT_PH_QUEUE)
		m->live.has_queue = true;
	if (!ev->bytes)
		return 0;
	if (!q) {
		if (ev->phase != VXT_PH_QUEUE || !ev->bytes)
			return 0;
		q = calloc(1, sizeof(*q));
		if (!q || !(q->pr = vxt_pairer_new(0))) {
			free(q);
			return -ENOMEM;
		}
		m->q2c = q;
	}
	return vxt_pairer_add(q->pr, ev, q->ord++, &st);
}

int metrics_q2c_done(struct vxt_metrics *m, const struct vxt_event *ev,
		     struct metrics_series *ser)
{
	struct metrics_q2c *q = m->q2c;
	struct vxt_pstep st;
	int rc;

	if (!q || !ev->bytes)
		return 0;
	rc = vxt_pairer_add(q->pr, ev, q->ord++, &st);
	if (rc < 0 || st.what != VXT_PS_CLOSED)
		return rc;
	for (size_t i = 0; i < st.n; i++) {
		uint64_t c = st.io[i].t[VXT_PT_C], t = st.io[i].t[VXT_PT_Q];
		uint64_t ns = c > t ? c - t : 0;

		ser->q2c_count++;
		ser->q2c_sum_ns += ns;
		ser->q2c_bucket[metrics_bucket_of(ns)]++;
	}
	return 0;
}
