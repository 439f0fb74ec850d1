/* axis.c - the browser's axes: time ticks and labels, LBA row ranges (see axis.h)
 */
#include <inttypes.h>
#include <stdio.h>

#include "browser/axis.h"

static uint64_t round_step(uint64_t min)
{
	static const uint64_t mult[] = { 1, 2, 5 };

	for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10)
		for (unsigned i = 0; i < 3; i++)
			if (p * mult[i] >= min)
				return p * mult[i];
	return UINT64_MAX;
}

unsigned vr_axis_ticks(uint64_t t0, uint64_t t1, uint64_t base, unsigned cols, unsigned gap,
		       struct vr_tick *out, unsigned max, uint64_t *step)
{
	uint64_t span = t1 > t0 ? t1 - t0 : 1, s, t, k;
	unsigned n = 0;

	if (!cols)
		cols = 1;
	/* a step of s ns is s * cols / span columns wide */
	s = round_step((uint64_t)(((unsigned __int128)span * (gap ? gap : 1) + cols - 1) / cols));
	*step = s;
	k = t0 > base ? (t0 - base + s - 1) / s : 0;
	for (; n < max; k++) {
		if (k > (UINT64_MAX - base) / s)
			break;
		t = base + k * s;
		if (t < t0)
			continue;
		if (t >= t1)
			break;
		out[n].t = t;
		out[n].col = (unsigned)((unsigned __int128)(t - t0) * cols / span);
		n++;
	}
	return n;
}

char *vr_axis_label(uint64_t t, uint64_t base, uint64_t step, char *buf, size_t size)
{
	uint64_t d = t >= base ? t - base : base - t, unit = 1000000000;
	int dec = 0;

	while (dec < 9 && step % unit) {
		unit /= 10;
		dec++;
	}
	if (dec == 0)
		snprintf(buf, size, "%s%" PRIu64, t >= base ? "" : "-", d / 1000000000);
	else
		snprintf(buf, size, "%s%" PRIu64 ".%0*" PRIu64, t >= base ? "" : "-", d / 1000000000,
			 dec, d % 1000000000 / unit);
	return buf;
}

/* The next round row size after @r: 1, 2, 5 times a power of ten. */
static uint64_t next_round(uint64_t r)
{
	uint64_t p = 1;

	while (p <= r / 10)
		p *= 10;
	if (r < 2 * p)
		return 2 * p;
	if (r < 5 * p)
		return 5 * p;
	return 10 * p;
}

void vr_lba_round(uint64_t lo, uint64_t hi, unsigned rows, uint64_t max, uint64_t *first,
		  uint64_t *span)
{
	uint64_t row = 1, f;

	if (!rows)
		rows = 1;
	if (hi <= lo)
		hi = lo + 1;
	for (;;) {
		f = lo / row * row;
		if (f + row * rows >= hi || row >= (UINT64_C(1) << 62) / rows)
			break;
		row = next_round(row);
	}
	*first = f;
	*span = row * rows;
	/* past the end of the object: slide back while it still covers [lo, hi) */
	while (max && *first + *span > max && *first >= row && *first - row + *span >= hi)
		*first -= row;
}
