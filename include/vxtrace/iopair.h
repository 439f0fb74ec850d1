/* iopair.h - match completions with their issue
 *
 * Sources that see issue and completion as separate events (tracefs,
 * blktrace import) keep in-flight I/Os here, keyed by (dev, sector, size),
 * to give each completion its latency and its issuer's pid and command;
 * vxtop keeps its in-flight I/Os here to age out those never completed.
 * Several I/Os with the same key (flushes) are matched oldest first.
 * The table is bounded: past VXT_IOPAIR_MAX in-flight entries (issues whose
 * completion was never seen) it starts afresh.
 */
#ifndef VXT_IOPAIR_H
#define VXT_IOPAIR_H

#include <stdbool.h>
#include <stdint.h>

#define VXT_IOPAIR_MAX (1u << 20)

struct vxt_iopair_val {
	uint64_t time_ns;
	uint32_t pid;
	uint32_t comm;
};

struct vxt_iopair;

/* @return an empty table, or NULL when out of memory. */
struct vxt_iopair *vxt_iopair_new(void);
/* NULL is fine. */
void vxt_iopair_free(struct vxt_iopair *p);
/* Remember an issue. @return 0 or -ENOMEM. */
int vxt_iopair_put(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		   const struct vxt_iopair_val *v);
/* Find and forget the oldest issue with this key. @return true and *v if found. */
bool vxt_iopair_take(struct vxt_iopair *p, uint32_t dev, uint64_t sector, uint32_t size,
		     struct vxt_iopair_val *v);
/* Call @keep for every entry, oldest first within a key; the entries it
 * returns false for are forgotten. @return the number forgotten. */
uint32_t vxt_iopair_sweep(struct vxt_iopair *p,
			  bool (*keep)(void *arg, uint32_t dev, uint64_t sector, uint32_t size,
				       const struct vxt_iopair_val *v),
			  void *arg);
/* @return the number of issues waiting for their completion. */
uint32_t vxt_iopair_count(const struct vxt_iopair *p);

#endif
