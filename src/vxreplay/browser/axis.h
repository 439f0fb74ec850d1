/* axis.h - the browser's axes (no curses): time ticks, LBA row ranges
 *
 * Ticks fall on round times (1, 2 or 5 times a power of ten ns) counted from
 * the time base the event list uses, so a label reads as the TIME column
 * does ("1.25" is 1.25 s after it).
 */
#ifndef VXREPLAY_BROWSER_AXIS_H
#define VXREPLAY_BROWSER_AXIS_H

#include <stddef.h>
#include <stdint.h>

struct vr_tick {
	unsigned col;		/* column of the window drawn over @cols columns */
	uint64_t t;		/* its time, ns */
};

/* Ticks of the window [t0, t1) drawn over @cols columns, at least @gap
 * columns apart, on multiples of a round step from @base. @return how many
 * (at most @max) and the step in *step. */
unsigned vr_axis_ticks(uint64_t t0, uint64_t t1, uint64_t base, unsigned cols, unsigned gap,
		       struct vr_tick *out, unsigned max, uint64_t *step);
/* "1.25" for @t at 1.25 s after @base, with as many decimals as @step needs. @return buf. */
char *vr_axis_label(uint64_t t, uint64_t base, uint64_t step, char *buf, size_t size);

/* The LBA heatmap's range for sectors [lo, hi) in @rows rows: rows of the smallest round
 * number of sectors (1, 2, 5 times a power of ten) that covers it, aligned
 * to it, kept inside [0, @max) where it can be. */
void vr_lba_round(uint64_t lo, uint64_t hi, unsigned rows, uint64_t max, uint64_t *first,
		  uint64_t *span);

#endif
