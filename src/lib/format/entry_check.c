/* entry_check.c - does a chunk's index entry say what its events hold?
 *
 * --verify decodes every chunk; this compares the entry's figures (time
 * range, errors, lost events, each object's aggregate) with the ones the
 * writer's rule (vxt_objagg_add()) gives over the decoded events, so an entry
 * whose counts were altered with its CRC made right again is caught: the
 * index alone answers counts (SQL pushdown, overviews) and must not lie.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/entry_check.h"
#include "format/vxtfile.h"

/* The first field of @a and @b that differs, or NULL. */
static const char *agg_diff(const struct vxt_objagg *a, const struct vxt_objagg *b)
{
	for (int op = 0; op < VXT_OP_COUNT; op++)
		if (a->ios[op] != b->ios[op])
			return "completed I/Os";
	if (a->starts != b->starts)
		return "starts";
	if (a->errors != b->errors)
		return "errors";
	if (a->bytes_read != b->bytes_read)
		return "bytes read";
	if (a->bytes_written != b->bytes_written)
		return "bytes written";
	if (a->lat_sum_ns != b->lat_sum_ns)
		return "latency sum";
	for (int k = 0; k < VXT_LAT_BUCKETS; k++)
		if (a->lat_hist[k] != b->lat_hist[k])
			return "latency histogram";
	return NULL;
}

/* Compare @ci's per-object aggregates with @ev's; @agg is scratch of @nobj. */
static int check_aggs(const struct vxt_chunk_info *ci, const struct vxt_event *ev, size_t n,
		      struct vxt_objagg *agg, uint32_t nobj, char *msg, size_t len)
{
	uint32_t present = 0, j = 0;

	for (uint32_t o = 0; o < nobj; o++)
		agg[o].object = UINT32_MAX;	/* absent */
	for (size_t i = 0; i < n; i++) {
		const struct vxt_event *e = &ev[i];

		if (e->phase == VXT_PH_LOST || e->object >= nobj)
			continue;
		if (agg[e->object].object == UINT32_MAX) {
			memset(&agg[e->object], 0, sizeof(*agg));
			agg[e->object].object = e->object;
			present++;
		}
		vxt_objagg_add(&agg[e->object], e);
	}
	if (present != ci->nobjagg) {
		snprintf(msg, len, "its entry names %u objects, its events %u", ci->nobjagg,
			 present);
		return -1;
	}
	for (uint32_t o = 0; o < nobj; o++) {
		const struct vxt_objagg *a = &ci->objagg[j];
		const char *what;

		if (agg[o].object == UINT32_MAX)
			continue;
		if (a->object != o) {
			snprintf(msg, len, "its entry lacks object %u of its events", o);
			return -1;
		}
		if ((what = agg_diff(a, &agg[o]))) {
			snprintf(msg, len, "its entry's %s of object %u differ from its events'", what,
				 o);
			return -1;
		}
		j++;
	}
	return 0;
}

int vxt_entry_check(const struct vxt_chunk_info *ci, const struct vxt_event *ev, size_t n,
		    uint32_t nobj, char *msg, size_t len)
{
	uint64_t lo = UINT64_MAX, hi = 0, lost = 0;
	uint32_t errors = 0;
	struct vxt_objagg *agg;
	int rc;

	if (n != ci->nevents) {
		snprintf(msg, len, "its entry says %u events, it holds %zu", ci->nevents, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		lo = ev[i].time_ns < lo ? ev[i].time_ns : lo;
		hi = ev[i].time_ns > hi ? ev[i].time_ns : hi;
		if (ev[i].phase == VXT_PH_LOST)
			lost += ev[i].sector;
		else if (ev[i].phase == VXT_PH_DONE && ev[i].error && ev[i].object < nobj)
			errors++;
	}
	if (n && (lo != ci->first_ns || hi != ci->last_ns)) {
		snprintf(msg, len, "its entry's time range %llu-%llu is not its events' %llu-%llu",
			 (unsigned long long)ci->first_ns, (unsigned long long)ci->last_ns,
			 (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	if (errors != ci->nerrors) {
		snprintf(msg, len, "its entry says %u errors, its events hold %u", ci->nerrors,
			 errors);
		return -1;
	}
	if (lost != ci->nlost) {
		snprintf(msg, len, "its entry says %llu lost events, its events %llu",
			 (unsigned long long)ci->nlost, (unsigned long long)lost);
		return -1;
	}
	if (!ci->objagg)
		return 0;	/* no aggregates kept in memory: nothing more to compare */
	agg = malloc((nobj ? nobj : 1) * sizeof(*agg));
	if (!agg) {
		snprintf(msg, len, "out of memory");
		return -2;
	}
	rc = check_aggs(ci, ev, n, agg, nobj, msg, len);
	free(agg);
	return rc;
}
