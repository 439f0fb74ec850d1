/* reader_iter.c - moving through a reader's events: decode a chunk, seek by
 * time or ordinal, step both ways (a file's, or several files' merged)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/reader_impl.h"

int vxt_reader_decode_into(struct vxt_reader *r, struct vxt_chunkdec *d, size_t i,
			   char *msg, size_t msglen)
{
	if (r->merge)
		return vxt_merge_decode(r->merge, d, i, msg, msglen);
	return vxt_chunkdec_run(d, &r->src, &r->chunks[i], i,
				r->info.incompat & VXT_INCOMPAT_COLUMN_FRAMES,
				(uint32_t)vxt_objtab_count(r->objs),
				(uint32_t)vxt_strtab_count(r->strs), msg, msglen);
}

int vxt_reader_origin(struct vxt_reader *r, uint64_t ordinal, const struct vxt_event *ev,
		      struct vxt_origin *o)
{
	if (r->merge)
		return vxt_merge_origin(r->merge, ordinal, ev, o);
	*o = (struct vxt_origin){ r, ordinal, ev->time_ns, ev->object, ev->comm, false };
	return 0;
}

bool vxt_reader_is_merged(const struct vxt_reader *r)
{
	return r->merge != NULL;
}

/* Decode chunk @i into r->dec.ev. @return 0 or a negative errno. */
int vxt_reader_decode(struct vxt_reader *r, size_t i)
{
	char msg[200];
	int rc;

	if (r->cur_chunk == i)
		return 0;
	r->cur_chunk = SIZE_MAX;
	rc = vxt_reader_decode_into(r, &r->dec, i, msg, sizeof(msg));
	if (rc < 0)
		return vxt_reader_seterr(r, rc, "%s", msg);
	r->cur_chunk = i;
	return 0;
}

void vxt_reader_set_fields(struct vxt_reader *r, unsigned fields)
{
	fields |= VXT_FIELD_TIME | VXT_FIELD_PHASE_OP | VXT_FIELD_OBJECT;
	if (fields != r->dec.fields) {
		r->dec.fields = fields;
		r->cur_chunk = SIZE_MAX;
	}
}

size_t vxt_reader_chunk_of(const struct vxt_reader *r, uint64_t ordinal)
{
	size_t lo = 0, hi = r->n;

	if (r->cur_chunk < r->n) {
		const struct vxt_chunk_info *c = &r->chunks[r->cur_chunk];

		if (ordinal >= c->first_event && ordinal < c->first_event + c->nevents)
			return r->cur_chunk;
	}
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (r->chunks[mid].first_event <= ordinal)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int event_at(struct vxt_reader *r, uint64_t ordinal, const struct vxt_event **ev)
{
	size_t i = vxt_reader_chunk_of(r, ordinal);
	int rc = vxt_reader_decode(r, i);

	if (rc < 0)
		return rc;
	*ev = &r->dec.ev[ordinal - r->chunks[i].first_event];
	return 1;
}

int vxt_reader_next(struct vxt_reader *r, const struct vxt_event **ev)
{
	int rc;

	/* the common case: the next event is in the decoded chunk */
	if (r->cur_chunk < r->n) {
		const struct vxt_chunk_info *c = &r->chunks[r->cur_chunk];
		uint64_t k = r->pos - c->first_event;

		if (r->pos >= c->first_event && k < c->nevents) {
			*ev = &r->dec.ev[k];
			r->pos++;
			return 1;
		}
	}

	if (r->pos >= r->nevents)
		return 0;
	rc = event_at(r, r->pos, ev);
	if (rc > 0)
		r->pos++;
	return rc;
}

int vxt_reader_prev(struct vxt_reader *r, const struct vxt_event **ev)
{
	int rc;

	if (r->pos == 0)
		return 0;
	rc = event_at(r, r->pos - 1, ev);
	if (rc > 0)
		r->pos--;
	return rc;
}

int vxt_reader_seek_ordinal(struct vxt_reader *r, uint64_t ordinal)
{
	r->pos = ordinal > r->nevents ? r->nevents : ordinal;
	return 0;
}

int vxt_reader_seek_time(struct vxt_reader *r, uint64_t t_ns)
{
	size_t lo = 0, hi = r->n, i;
	int rc;

	/* first chunk whose last event is at or after t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if ((r->merge ? vxt_reader_chunk(r, mid) : vxt_reader_entry(r, mid))->last_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n) {
		r->pos = r->nevents;
		return 0;
	}
	rc = vxt_reader_decode(r, lo);
	if (rc < 0)
		return rc;
	for (i = 0; i < r->chunks[lo].nevents; i++)
		if (r->dec.ev[i].time_ns >= t_ns)
			break;
	r->pos = r->chunks[lo].first_event + i;
	return 0;
}

const struct vxt_event *vxt_reader_chunk_events(struct vxt_reader *r, size_t i, size_t *n)
{
	if (i >= r->n) {
		vxt_reader_seterr(r, -EINVAL, "no chunk %zu", i);
		return NULL;
	}
	if (vxt_reader_decode(r, i) < 0)
		return NULL;
	*n = r->chunks[i].nevents;
	return r->dec.ev;
}

