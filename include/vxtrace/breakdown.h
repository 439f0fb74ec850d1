/* breakdown.h - where the time of each I/O goes: btt's phase intervals
 *
 * Feed the events of a capture that holds every block-layer phase (queue,
 * getrq, merge, insert, issue, complete) in time order; each queued bio is
 * followed to its completion by the pairer (pairer.h) the way btt(1) does
 * it: by device and sector range (a getrq, insert or merge belongs to the
 * pending queue whose range holds its first sector; an issue or completion
 * to every pending queue its range contains, so a merged bio gets the issue
 * and completion of the request it joined), and through splits and remaps. Intervals (Q2G, G2I, Q2M, I2D, M2D, D2C, Q2C, Q2D, and
 * Q2Q between queues) are counted with min/avg/max, quantiles, per object,
 * op and process; seeks between queues and between issues; merge ratios;
 * phases that pair with nothing are counted with the ordinal of the first.
 * A capture of issue and completion alone gives D2C from each completion's
 * latency and nothing else. formats/reports.md names the report over it.
 */
#ifndef VXTRACE_BREAKDOWN_H
#define VXTRACE_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "latdist.h"

enum vxt_bd_iv {
	VXT_BD_Q2Q, VXT_BD_Q2G, VXT_BD_G2I, VXT_BD_Q2M, VXT_BD_I2D, VXT_BD_M2D,
	VXT_BD_D2C, VXT_BD_Q2C, VXT_BD_Q2D, VXT_BD_IV_COUNT
};

/* "q2q", "q2g", ...; NULL past the end. */
const char *vxt_bd_iv_name(unsigned iv);

struct vxt_bd_group {
	struct vxt_latdist iv[VXT_BD_IV_COUNT];
};

#define VXT_BD_PEND 16
#define VXT_BD_LATE 8

struct vxt_bd_mode {
	uint64_t key, count;		/* count 0 = empty slot */
};

/* Seek distances in sectors, as btt measures them between successive
 * queues (Q2Q) or issues (D2D) of a device. */
struct vxt_bd_seek {
	uint64_t n;
	double total;			/* sum of |distance| */
	struct vxt_latdist dist;	/* |distance|, for the median */
	uint64_t last_start, last_end;
	/* mode: counts of exact distances, an open-addressing table of at most
	 * VXT_BD_MODE_MAX distinct values (more: mode_full, the mode is that of
	 * the values counted before); a distance waits in pend[] (its slot
	 * fetched ahead) until VXT_BD_PEND later ones came or vxt_bd_finish(),
	 * and one the full table's filter lets through waits again in late[]
	 * (its slot fetched) until VXT_BD_LATE more did */
	struct vxt_bd_mode *mtab;
	size_t mcap, mlen;
	bool mode_full;
	uint64_t *mbits;		/* once VXT_BD_MODE_MAX are in: a bit per hash of each */
	unsigned npend, pend_at;	/* distances waiting; pend_at: the next slot */
	uint64_t pend[VXT_BD_PEND];
	unsigned nlate, late_at;	/* as npend, pend_at for late[] */
	uint64_t late[VXT_BD_LATE];
};
#define VXT_BD_MODE_MAX (1u << 18)

/* Most frequent distance (smallest among ties) and its count (after
 * vxt_bd_finish(), as vxt_bd_seek_median()). */
void vxt_bd_seek_mode(const struct vxt_bd_seek *s, uint64_t *value, uint64_t *count);

/* The median |distance| (the ceil(n/2)-th smallest): exact, but from the
 * distribution once mode_full. */
uint64_t vxt_bd_seek_median(const struct vxt_bd_seek *s);

/* What paired with nothing. */
enum vxt_bd_unpaired {
	VXT_BD_U_ORDER,		/* a phase earlier than its queue (out of order) */
	VXT_BD_U_NOQ,		/* getrq, insert, issue or completion matching no queue */
	VXT_BD_U_NOD,		/* a completion whose queues were never issued */
	VXT_BD_U_MERGE,		/* a merge matching no pending queue */
	VXT_BD_U_DUPQ,		/* a queue starting where a pending one starts (ignored) */
	VXT_BD_U_REMAP_UNKNOWN,	/* a remap from a traced object with nothing pending there */
	VXT_BD_U_REMAP_LOOP,	/* a remap back onto where its I/O came from */
	VXT_BD_U_FULL,		/* a queue past the pairer's bound (not followed) */
	VXT_BD_U_PENDING,	/* queued and never completed (end of the scope) */
	VXT_BD_U_COUNT
};

/* "out-of-order", "no-queue", "no-issue", "merge-unknown", "duplicate-queue",
 * "remap-unknown", "remap-loop", "untracked", "pending" (vxt_pu_name()). */
const char *vxt_bd_unpaired_name(unsigned kind);

struct vxt_bd_unp {
	uint64_t n;
	uint64_t first;			/* event ordinal of the first */
};

struct vxt_pairer;

/* Per object. */
struct vxt_bd_dev {
	bool used;
	bool started;			/* a queue was seen (btt ignores what comes before) */
	struct vxt_bd_group g;
	uint64_t nq, nd, nc;		/* queues, issues, completions counted */
	uint64_t blk_n, blk_sum, blk_min, blk_max;	/* completion sizes, sectors */
	uint64_t last_q;		/* for Q2Q: the latest queue; UINT64_MAX = none yet */
	uint64_t q2q_ooo;		/* queues earlier than the latest, not timed */
	struct vxt_bd_seek q2q, d2d;
};

struct vxt_bd_proc {
	uint32_t pid, comm;
	struct vxt_bd_group g;
};

/* The intervals of one (object, op, process) while the events come: each is
 * counted once, in its cell; vxt_bd_finish() adds the cells into the object,
 * op and process groups. */
struct vxt_bd_cell {
	uint32_t object, pid, comm;
	uint8_t op;
	struct vxt_bd_group g;
};

struct vxt_breakdown {
	bool all_phases;		/* the capture holds the queue side (btt's intervals) */
	struct vxt_bd_group all;
	struct vxt_bd_group ops[VXT_OP_COUNT];
	struct vxt_bd_dev *dev;		/* indexed by object id */
	size_t ndev;
	struct vxt_bd_proc *proc;	/* open addressing by pid, comm; pid 0 = empty */
	size_t nproc, capproc;
	struct vxt_bd_group kernel;	/* pid 0 */
	bool kernel_used;
	uint64_t last_q;		/* all devices' Q2Q */
	uint64_t q2q_ooo;		/* all devices' queues earlier than the latest */
	struct vxt_bd_unp unp[VXT_BD_U_COUNT];
	uint64_t events;
	struct vxt_pairer *pr;		/* the I/Os followed (pairer.h) */
	uint32_t last_pid, last_comm;	/* the process group found last */
	struct vxt_bd_group *last_proc;
	struct vxt_bd_cell *cell;	/* in the order made (an I/O's tag is 1 + its index) */
	size_t ncell, capcell;
	uint32_t *cellix;		/* 1 + index in cell[], open addressing by object, op, pid, comm */
	size_t capix;
	struct vxt_bd_cell *last_cell[VXT_OP_COUNT];	/* the cell found last, by op */
	bool finished;			/* vxt_bd_finish() done */
};

/* @all_phases: the file says every phase was captured (VXT_COMPAT_PHASES);
 * false gives D2C from completions only. */
void vxt_bd_init(struct vxt_breakdown *b, bool all_phases);
void vxt_bd_free(struct vxt_breakdown *b);
/* Feed one event (time order) with its ordinal in the file. @keep false:
 * the event still moves its I/O along, but the intervals it ends are not
 * counted (it failed a filter). @return 0 or -ENOMEM. */
int vxt_bd_add(struct vxt_breakdown *b, const struct vxt_event *ev, uint64_t ordinal, bool keep);
/* vxt_bd_add() of @n events in a row, every one kept, the first with
 * @ordinal. @return 0 or -ENOMEM. */
int vxt_bd_add_many(struct vxt_breakdown *b, const struct vxt_event *ev, size_t n,
		    uint64_t ordinal);
/* End of the events: the queues still pending are counted as such, and
 * what is counted lazily is counted (the all-objects group); call it once,
 * before reading @b (again: nothing more).
 * @return 0 or -ENOMEM. */
int vxt_bd_finish(struct vxt_breakdown *b);
/* Process group of (@pid, @comm), or NULL when never seen. */
const struct vxt_bd_group *vxt_bd_process(const struct vxt_breakdown *b, uint32_t pid,
					  uint32_t comm);

#endif
