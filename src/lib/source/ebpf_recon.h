/* ebpf_recon.h - the ebpf source's issues in flight against the kernel's own count (internal)
 *
 * The BPF programs remember every issued request until its completion runs
 * them (struct vxt_bpf_slot, vxtrace_bpf.h). The kernel sometimes runs the
 * completion tracepoint without them; an issue then stays behind. Per
 * device, the block layer counts the reads and writes in flight
 * (vxt_sysdev_inflight()): the issues remembered from before that count
 * was read, beyond it, have completed unseen, and the oldest of them are
 * taken for those. The block layer counts a request done a moment before
 * its completion tracepoint runs, so while issues are taken a slot is
 * judged so only when the round before judged it so too (the same request,
 * issued at the same time); once no issue is taken, at once. A slot judged
 * so is freed (compare-and-swap on its request) and handed to the caller.
 */
#ifndef VXT_EBPF_RECON_H
#define VXT_EBPF_RECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/voltrace.h"	/* before vxtrace_bpf.h: its __u64 */
#include "source/bpf/vxtrace_bpf.h"

#include "vxtrace/recon.h"	/* the rule, and vxt_recon_count_fn */

struct vxt_ebpf_recon;

/* A slot taken for a completion run unseen: @copy is its content before it
 * was freed. */
typedef void (*vxt_recon_found_fn)(void *arg, const struct vxt_bpf_slot *copy);

/* @return a reconciler with no round behind it, or NULL (out of memory).
 * Caller frees with vxt_ebpf_recon_free(). */
struct vxt_ebpf_recon *vxt_ebpf_recon_new(vxt_recon_count_fn count);
void vxt_ebpf_recon_free(struct vxt_ebpf_recon *r);

/*
 * One round over the @n slots of @slots (the programs' table, shared with
 * them): issues remembered from before @t0 (CLOCK_MONOTONIC ns, taken
 * before this call) against the kernel's counts, read within it. @at_once:
 * no issue is taken any more, so no second round is waited for. Each slot
 * taken is freed and passed to @found.
 * @return the slots taken, or -ENOMEM (nothing taken).
 */
int vxt_ebpf_recon_round(struct vxt_ebpf_recon *r, struct vxt_bpf_slot *slots, uint32_t n,
			 uint64_t t0, bool at_once, vxt_recon_found_fn found, void *arg);

/* Would the block layer count the I/O of @sl in flight (a read or a write
 * issued and neither completed nor requeued)? */
static inline bool vxt_recon_counted(const struct vxt_bpf_slot *sl)
{
	return sl->rq && sl->state == VXT_BPF_SLOT_ISSUED &&
	       (sl->op == VOLIOT_OP_READ || sl->op == VOLIOT_OP_WRITE);
}

#endif
