/* scope.c - the events a batch report covers, and JSON strings
 *
 * The reports, the exports and --profile's first pass (batch_profile.c) read
 * the events of struct report_scope through report_scope_begin()/next():
 * seeking to --from through the index, stopping past --to, keeping one object
 * and what the keep callback keeps, or the events --profile's first pass
 * held in memory (report_ctx.held). Nothing here calls a report.
 */
#include <errno.h>
#include <stdio.h>

#include "report/report.h"

/* Several files: a damaged chunk of one of them, merged as lost records,
 * named once; the output is complete for what survives. */
static void note_holes(struct report_ctx *c)
{
	const char *why;
	size_t n = vxt_reader_holes(c->r, &why);

	if (n <= c->holes_said)
		return;
	fprintf(stderr, "vxreplay: %s\n", why);
	c->damaged += n - c->holes_said;
	c->holes_said = n;
}

/* Iterate the events in scope. @return 1 with @ev, 0 at the end, -1 on damage. */
int report_scope_next(struct report_ctx *c, const struct vxt_event **ev)
{
	int rc;

	if (c->held) {
		if (c->held_pos == c->nheld)
			return 0;
		*ev = &c->held[c->held_pos++];
		return 1;
	}
	while ((rc = vxt_reader_next(c->r, ev)) != 0) {
		int k;

		if (rc == -EBADMSG) {
			/* a damaged chunk: named, skipped, the rest still read */
			size_t i = vxt_reader_chunk_of(c->r, vxt_reader_tell(c->r));
			const struct vxt_chunk_info *ci = vxt_reader_chunk(c->r, i);

			report_damage(c, i, vxt_reader_error(c->r));
			vxt_reader_seek_ordinal(c->r, ci->first_event + ci->nevents);
			continue;
		}
		if (rc < 0)
			break;
		if ((*ev)->phase == VXT_PH_LOST)
			note_holes(c);
		k = report_in_scope(c, *ev, vxt_reader_tell(c->r) - 1);
		if (k > 0)
			return 1;
		if (k < 0)
			return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "vxreplay: %s\n", vxt_reader_error(c->r));
		return -1;
	}
	return 0;
}

void report_damage(struct report_ctx *c, size_t chunk, const char *msg)
{
	if (chunk + 1 <= c->damage_said)
		return;
	fprintf(stderr, "vxreplay: %s; skipped\n", msg);
	c->damaged++;
	c->damage_said = chunk + 1;
}

uint64_t report_scope_ordinal(const struct report_ctx *c)
{
	return c->held ? c->held_ord[c->held_pos - 1] : vxt_reader_tell(c->r) - 1;
}

int report_scope_begin(struct report_ctx *c)
{
	int rc;

	if (c->held) {
		c->held_pos = 0;
		return 0;
	}
	rc = c->scope.from_ns ? vxt_reader_seek_time(c->r, c->scope.from_ns) :
		 vxt_reader_seek_ordinal(c->r, 0);

	if (rc < 0) {
		fprintf(stderr, "vxreplay: %s\n", vxt_reader_error(c->r));
		return -1;
	}
	return 0;
}

void report_json_str(FILE *out, const char *s)
{
	vxt_fputs_json(s, out);	/* escape.h: invalid UTF-8 bytes as \u00NN */
}

bool report_kept_has(const uint64_t *kept, size_t n, size_t *cursor, uint64_t ord)
{
	size_t i = *cursor;

	if (i && kept[i - 1] >= ord) {
		/* a new pass: the first kept ordinal not below @ord */
		i = vxt_lower_bound_u64(kept, i - 1, ord);
	}
	while (i < n && kept[i] < ord)
		i++;
	*cursor = i;
	return i < n && kept[i] == ord;
}
