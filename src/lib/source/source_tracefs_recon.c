/* source_tracefs_recon.c - the tracefs source's issues in flight against the kernel's own count
 *
 * The source pairs each completion with its issue (iopair.h); a completion
 * the ring lost (an overrun) leaves its issue behind for ever. Each round
 * takes the issues from before the events handed out so far (@t0) as
 * candidates and judges them by the rule of recon.h against the block
 * layer's count, read after @t0: an issue after @t0 the kernel counts and
 * this table does not, so the excess can only fall short; a completion
 * counted by the kernel but still in the rings is waited for by the rule's
 * second look. Only blk-mq devices are judged (tfs_count()): a bio-based
 * device's count does not follow its bios one by one.
 * Candidates are named (at = the pair's size word, key = sector).
 */
#include <errno.h>
#include <stdlib.h>

#include "vxtrace/event.h"
#include "vxtrace/util.h"

#include "source/tracefs_impl.h"
#include "vxtrace/iopair.h"
#include "vxtrace/recon.h"
#include "vxtrace/sysdev.h"

struct collect_arg {
	uint64_t t0;
	struct vxt_recon_cand *cand;
	size_t n, cap;
	bool nomem;
};

/* vxt_iopair_sweep()'s: a read or write issued before t0 is a candidate.
 * Keeps every entry. */
static bool collect(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
		    const struct vxt_iopair_val *v)
{
	struct collect_arg *a = arg;
	uint32_t op = size >> 28;

	if (v->time_ns >= a->t0 || (op != VXT_OP_READ && op != VXT_OP_WRITE))
		return true;
	if (vxt_grow(&a->cand, &a->cap, a->n + 1, sizeof(*a->cand)) < 0) {
		a->nomem = true;
		return true;
	}
	a->cand[a->n++] = (struct vxt_recon_cand){ size, dev, sector, v->time_ns };
	return true;
}

struct take_arg {
	struct vxt_iopair *pair;
	vxt_tfs_found_fn found;
	void *arg;
	int rc;
};

/* vxt_recon_judge()'s: forget the issue and hand it to the caller. */
static bool take(void *arg, const struct vxt_recon_cand *c)
{
	struct take_arg *a = arg;
	struct vxt_iopair_val v;

	if (!vxt_iopair_take(a->pair, c->dev, c->key, c->at, &v))
		return false;
	if (a->rc == 0)
		a->rc = a->found(a->arg, c->dev, c->key, c->at, &v);
	return true;
}

int vxt_tfs_recon_round(struct vxt_recon *judge, struct vxt_iopair *pair, uint64_t t0,
			bool at_once, vxt_recon_count_fn count, vxt_tfs_found_fn found, void *arg)
{
	struct collect_arg c = { .t0 = t0 };
	struct take_arg a = { pair, found, arg, 0 };
	struct vxt_recon_dev d[VXT_RECON_DEVS];
	uint32_t nd = 0;
	int n;

	if (!vxt_iopair_count(pair))
		return 0;
	vxt_iopair_sweep(pair, collect, &c);
	if (c.nomem) {
		free(c.cand);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c.n; i++)
		vxt_recon_dev_add(d, &nd, c.cand[i].dev);
	vxt_recon_dev_count(d, nd, count);
	n = vxt_recon_judge(judge, c.cand, c.n, d, nd, at_once, take, &a);
	free(c.cand);
	return n < 0 ? n : a.rc < 0 ? a.rc : n;
}

struct found_arg {
	struct vxt_source *s;
	struct tfs *t;
	struct vxt_batch *b;
};

/* vxt_tfs_recon_round()'s: an issue whose completion was lost becomes a lost
 * event naming it, at the newest time handed out (after the issue's). Its
 * count is 0: the completion is already among the events an overrun's lost
 * record counted, and the file's lost total stays the kernel's own. */
static int found_lost(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
		      const struct vxt_iopair_val *v)
{
	struct found_arg *a = arg;
	struct tfs_raw r = { .dev = dev, .sector = sector, .kind = K_RQ_ISSUE };
	int64_t obj = vxt_tfs_route_event(a->s, a->t, &r, false);
	struct vxt_event *e;

	if (obj < 0)
		return 0;
	e = vxt_batch_push(a->b);
	if (!e)
		return -ENOMEM;
	e->time_ns = a->t->last_ts > v->time_ns ? a->t->last_ts : v->time_ns;
	e->phase = VXT_PH_LOST;
	e->op = (uint8_t)(size >> 28);
	e->object = (uint32_t)obj;
	e->sector = 0;
	e->lost_io = vxt_lost_io_pack(sector);
	e->bytes = (size & 0x0fffffffu) * 512u;
	e->pid = v->pid;
	e->comm = v->comm;
	return 0;
}

int vxt_tfs_reconcile(struct vxt_source *s, struct tfs *t, struct vxt_batch *b, uint64_t cut)
{
	struct found_arg a = { s, t, b };
	uint64_t now = vxt_now_mono();
	bool idle = !t->recon_events && !t->npend;
	int rc;

	if (now < t->recon_ns)
		return 0;
	t->recon_ns = now + TFS_RECON_NS;
	t->recon_events = 0;
	rc = vxt_tfs_recon_round(t->recon, t->pair, cut, idle, vxt_tfs_count, found_lost, &a);
	return rc < 0 ? rc : 0;
}

int vxt_tfs_count(uint32_t dev, uint64_t *n)
{
	if (!vxt_sysdev_is_mq(dev))
		return -EOPNOTSUPP;
	return vxt_sysdev_inflight(dev, n);
}
