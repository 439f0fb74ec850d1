/* fuzz_chanrec.c - libFuzzer target for the channel record decoder
 *
 * The input is a record stream as read() from /dev/vxtrace would return it.
 * It is decoded twice: in one feed, and cut into pieces at points drawn from
 * the input itself (1-byte pieces included). Both decodings must hand out the
 * same records in the same order, stop at the same malformed record, and hold
 * back the same unfinished tail.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vxtrace/chanrec.h"

struct sink {
	uint64_t hash;
	uint64_t n;
};

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static uint64_t mix(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int collect(const struct vxt_chanrec *rec, void *arg)
{
	struct sink *s = arg;

	check(rec->len >= 2);
	s->hash = mix(s->hash, &rec->type, 1);
	s->hash = mix(s->hash, &rec->len, 1);
	if (vxt_chanrec_is_io(rec->type)) {
		check(rec->len >= sizeof(rec->u.io));
		check(memchr(rec->u.io.comm, '\0', sizeof(rec->u.io.comm)) != NULL);
		s->hash = mix(s->hash, &rec->u.io.time_ns, 8);
		s->hash = mix(s->hash, &rec->u.io.sector, 8);
		s->hash = mix(s->hash, &rec->u.io.dev, 4);
		s->hash = mix(s->hash, rec->u.io.comm, strlen(rec->u.io.comm));
		if (rec->type == VOLIOT_REC_REMAP) {
			/* a source only where the record holds one */
			check(rec->len >= sizeof(rec->u.remap) ||
			      (!rec->u.remap.old_dev && !rec->u.remap.old_sector));
			s->hash = mix(s->hash, &rec->u.remap.old_dev, 4);
			s->hash = mix(s->hash, &rec->u.remap.old_sector, 8);
		}
		s->n++;
		return 0;
	}
	switch (rec->type) {
	case VOLIOT_REC_LOST:
		s->hash = mix(s->hash, &rec->u.lost.count, 8);
		break;
	case VOLIOT_REC_OBJECT:
		check(memchr(rec->u.object.name, '\0', sizeof(rec->u.object.name)) != NULL);
		s->hash = mix(s->hash, rec->u.object.name, strlen(rec->u.object.name));
		break;
	case VOLIOT_REC_CLOCK:
		s->hash = mix(s->hash, &rec->u.clock.real_ns, 8);
		break;
	case VOLIOT_REC_SPEC_STATS:
		s->hash = mix(s->hash, &rec->u.stats.seen, 8);
		s->hash = mix(s->hash, &rec->u.stats.kept, 8);
		break;
	case VOLIOT_REC_SPEC_HORIZON:
		check(rec->len >= sizeof(rec->u.horizon));
		s->hash = mix(s->hash, &rec->u.horizon.time_ns, 8);
		s->hash = mix(s->hash, &rec->u.horizon.horizon_ns, 8);
		break;
	default:
		check(0);	/* unknown types are skipped, never handed out */
	}
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vxt_chandec whole, cut;
	struct sink a = { 0, 0 }, b = { 0, 0 };
	uint32_t rng = size ? data[0] * 2654435761u : 1;
	size_t off = 0;
	int rc_whole, rc_cut = 0;

	vxt_chandec_init(&whole);
	rc_whole = vxt_chandec_feed(&whole, data, size, collect, &a);
	check(rc_whole == 0 || rc_whole == -EBADMSG);
	check(whole.records == a.n);

	vxt_chandec_init(&cut);
	while (off < size && rc_cut == 0) {
		size_t piece;

		rng = rng * 1103515245u + 12345u;
		piece = (rng >> 16) % 97;
		if (piece > size - off)
			piece = size - off;
		rc_cut = vxt_chandec_feed(&cut, data + off, piece, collect, &b);
		off += piece;
	}
	check(rc_cut == rc_whole);
	check(a.n == b.n && a.hash == b.hash);
	check(whole.skipped == cut.skipped && whole.offset == cut.offset);
	if (rc_whole == 0) {
		check(whole.offset == cut.offset);
		check(vxt_chandec_pending(&whole) == vxt_chandec_pending(&cut));
		check(whole.offset + vxt_chandec_pending(&whole) == size);
	}
	return 0;
}
