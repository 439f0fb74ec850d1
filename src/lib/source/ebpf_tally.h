/* ebpf_tally.h - reading the ebpf source's in-kernel counts (internal)
 *
 * In tally mode the BPF program counts per (device, op) in per-CPU maps
 * (struct vxt_bpf_tally, vxtrace_bpf.h); this sums each key over the CPUs
 * and names its device as an object of the source's table.
 */
#ifndef VXT_EBPF_TALLY_H
#define VXT_EBPF_TALLY_H

#include "source/chanev.h"

/* The programs' counting maps, by file descriptor. */
struct vxt_ebpf_tally_maps {
	int tally_fd;		/* tallies: by dev << 8 | op */
	int slots_fd;		/* tally_slots: by want_dev[] index and op */
	int hist_fd;		/* lat_hists: by dev << 8 | op */
	int err_fd;		/* tally_errs */
};

/* Read the tallies map, or with @ndev objects chosen (@devs, want_dev[] of
 * the programs) the tally_slots array, with each one's latency histogram,
 * and the errors map (all per-CPU, @ncpu possible CPUs) into @out. @return
 * 0 or a negative errno with a message set on @s. */
int vxt_ebpf_tally_read(struct vxt_source *s, struct vxt_chanev *names,
			const struct vxt_ebpf_tally_maps *m, const uint32_t *devs, uint32_t ndev,
			int ncpu, struct vxt_tallies *out);

#endif
