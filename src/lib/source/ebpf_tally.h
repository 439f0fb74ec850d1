/* ebpf_tally.h - reading the ebpf source's in-kernel counts (internal)
 *
 * In tally mode the BPF program counts per (device, op) in per-CPU maps
 * (struct vxt_bpf_tally, vxtrace_bpf.h); this sums each key over the CPUs
 * and names its device as an object of the source's table.
 */
#ifndef VXT_EBPF_TALLY_H
#define VXT_EBPF_TALLY_H

#include "source/chanev.h"

/* Read the tallies map @tally_fd, or with @ndev objects chosen (@devs,
 * want_dev[] of the programs) the tally_slots array @slots_fd, and the
 * errors map @err_fd (per-CPU, @ncpu possible CPUs) into @out. @return 0 or
 * a negative errno with a message set on @s. */
int vxt_ebpf_tally_read(struct vxt_source *s, struct vxt_chanev *names, int tally_fd,
			int slots_fd, const uint32_t *devs, uint32_t ndev, int err_fd, int ncpu,
			struct vxt_tallies *out);

#endif
