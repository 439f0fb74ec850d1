/* recon.h - issues a source keeps in flight against the kernel's own count
 *
 * A source that pairs each completion with its issue keeps the issues in
 * flight; when a completion never reaches it (the kernel ran the tracepoint
 * without the eBPF programs, a tracefs ring overran) the issue stays behind.
 * Per device the block layer counts the reads and writes in flight
 * (vxt_sysdev_inflight()): the issues a source remembers from before that
 * count was read, beyond it, have completed unseen, and the oldest of them
 * are taken for those. The block layer counts a request done a moment before
 * its completion tracepoint runs, and a source reads its events a moment
 * after, so while I/O runs an issue is judged so only when the round before
 * judged it so too (the same candidate: slot, key and issue time); once no
 * I/O is issued any more, at once. The ebpf source (ebpf_recon.c) and the
 * tracefs source (tracefs_recon.c) both keep this rule.
 */
#ifndef VXTRACE_RECON_H
#define VXTRACE_RECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VXT_RECON_DEVS 64	/* devices reconciled per round */

/* An issue remembered from before the round's counts were read, of a read
 * or a write (the only requests the block layer counts). (at, key, time_ns)
 * name it for the next round: a table slot, the request or sector, its
 * issue time. */
struct vxt_recon_cand {
	uint32_t at;
	uint32_t dev;
	uint64_t key;
	uint64_t time_ns;
};

/* A device of the round and the kernel's count (known: it was read). */
struct vxt_recon_dev {
	uint32_t dev;
	bool known;
	uint64_t kernel;
};

/* The reads and writes the block layer counts in flight on @dev into @n:
 * 0, or a negative errno when it has no such count (vxt_sysdev_inflight()
 * is the real one; tests give their own). */
typedef int (*vxt_recon_count_fn)(uint32_t dev, uint64_t *n);

/* A candidate judged to have completed unseen: @return true when the caller
 * took it (false: it completed or was taken again meanwhile). */
typedef bool (*vxt_recon_take_fn)(void *arg, const struct vxt_recon_cand *c);

struct vxt_recon;

/* @return a judge with no round behind it, or NULL (out of memory). Caller
 * frees with vxt_recon_free(); NULL is fine there. */
struct vxt_recon *vxt_recon_new(void);
void vxt_recon_free(struct vxt_recon *r);

/* @return the index of @dev in @d[0..nd), or @nd. */
uint32_t vxt_recon_dev_at(const struct vxt_recon_dev *d, uint32_t nd, uint32_t dev);

/* Add @dev to @d[0..*nd) unless there or full. */
void vxt_recon_dev_add(struct vxt_recon_dev *d, uint32_t *nd, uint32_t dev);

/* Read the kernel's count of each device of @d[0..nd) with @count. */
void vxt_recon_dev_count(struct vxt_recon_dev *d, uint32_t nd, vxt_recon_count_fn count);

/*
 * Judge the candidates @cand[0..n) (reordered) against the counts of the
 * devices @d[0..nd): per device, of its N candidates, the oldest N - kernel
 * are in excess;
 * each is passed to @take when @at_once or when the last round judged the
 * same candidate so, and kept for the next round otherwise. Candidates of a
 * device not in @d or not known are ignored.
 * @return the candidates taken, or -ENOMEM (nothing taken).
 */
int vxt_recon_judge(struct vxt_recon *r, struct vxt_recon_cand *cand, size_t n,
		    const struct vxt_recon_dev *d, uint32_t nd, bool at_once,
		    vxt_recon_take_fn take, void *arg);

#endif
