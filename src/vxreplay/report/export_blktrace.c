/* export_blktrace.c - vxreplay --export blktrace: blktrace's binary records
 *
 * Writes the events in scope as one little-endian stream of 48-byte struct
 * blk_io_trace records in time order, the format `blkparse -d` writes, so
 * btt reads it as is and blkparse reads it from standard input. The records
 * are those the kernel's blktrace emits for the same I/O: start -> issue (D),
 * done -> complete (C, with the error), requeue -> R, and the queue-side
 * phases back to Q, M, G, I. Only the phases the file holds are written:
 * a capture that knows issue and completion alone (kmod, tracefs, sim)
 * gives D and C records and nothing else, so btt, which pairs a completion
 * with its request only through its Q, shows no intervals instead of made-up
 * ones; vxreplay says so on standard error. A timestamp note first
 * anchors the wall clock; a process note names each (pid, command) before its
 * first record; marks become message notes. Phases blkparse needs a payload
 * for (plug, unplug, split, remap) and lost-event counts are left out.
 * Record layout and constants: include/vxtrace/blktrace.h, formats/blktrace-import.md.
 */
#include <stdlib.h>
#include <string.h>

#include "vxtrace/blktrace.h"
#include "vxtrace/hash.h"
#include "report/export.h"

#define BLK_MAX_CPUS	1024	/* sequence counters per object */

struct blk_out {
	struct report_ctx *c;
	/* blktrace numbers the records of each device and CPU from 1 */
	uint32_t **seq;			/* [object][cpu % BLK_MAX_CPUS] */
	size_t nobj;
	bool queue_seen;		/* a Q, M, G or I record was written */
	/* (pid, comm) pairs already named by a process note: an open
	 * addressing set of pid << 32 | comm, 0 = empty slot (pid 0 is never named) */
	uint64_t *named;
	size_t nnamed, cap;
};

static size_t named_hash(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40);
}

#define NAMED_HASH(ctx, s) named_hash(*(s))
#define NAMED_MATCH(ctx, s, k) (*(s) == *(k))
#define NAMED_EMPTY(s) (!*(s))
VXT_HASH_DEFINE(nset, uint64_t, const void *, uint64_t, NAMED_HASH, NAMED_MATCH, NAMED_EMPTY)

/* Add @key to the set. @return 1 when added, 0 when present, -1 out of memory. */
static int named_add(struct blk_out *o, uint64_t key)
{
	size_t i;

	if (nset_room(&o->named, &o->cap, o->nnamed, 256, NULL) < 0)
		return -1;
	i = nset_seek(o->named, o->cap, NULL, &key, named_hash(key));
	if (o->named[i])
		return 0;
	o->named[i] = key;
	o->nnamed++;
	return 1;
}

/* Category bits of an event's op and flags, as the kernel sets them. */
static uint32_t blk_category(const struct vxt_event *ev)
{
	uint32_t tc = 0;

	switch (ev->op) {
	case VXT_OP_WRITE:
	case VXT_OP_WRITE_ZEROES:
		tc = VXT_BLK_TC_WRITE;
		break;
	case VXT_OP_DISCARD:
		tc = VXT_BLK_TC_WRITE | VXT_BLK_TC_DISCARD;
		break;
	case VXT_OP_FLUSH:
		tc = VXT_BLK_TC_READ | VXT_BLK_TC_FLUSH;
		break;
	default:
		tc = VXT_BLK_TC_READ;
		break;
	}
	tc |= ev->op == VXT_OP_PASSTHRU ? VXT_BLK_TC_PC : VXT_BLK_TC_FS;
	if (ev->flags & VXT_F_SYNC)
		tc |= VXT_BLK_TC_SYNC;
	if (ev->flags & VXT_F_FUA)
		tc |= VXT_BLK_TC_FUA;
	if (ev->flags & VXT_F_META)
		tc |= VXT_BLK_TC_META;
	if (ev->flags & VXT_F_PREFLUSH)
		tc |= VXT_BLK_TC_FLUSH;
	if (ev->flags & VXT_F_RAHEAD)
		tc |= VXT_BLK_TC_AHEAD;
	return tc;
}

/* The action (with its own category bit) of a phase; 0 = not exported. */
static uint32_t blk_action(unsigned phase)
{
	switch (phase) {
	case VXT_PH_START: return VXT_BLK_TA_ISSUE | VXT_BLK_TC_ISSUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_DONE: return VXT_BLK_TA_COMPLETE | VXT_BLK_TC_COMPLETE << VXT_BLK_TC_SHIFT;
	case VXT_PH_REQUEUE: return VXT_BLK_TA_REQUEUE | VXT_BLK_TC_REQUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_QUEUE: return VXT_BLK_TA_QUEUE | VXT_BLK_TC_QUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_MERGE: return VXT_BLK_TA_BACKMERGE | VXT_BLK_TC_QUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_GETRQ: return VXT_BLK_TA_GETRQ | VXT_BLK_TC_QUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_INSERT: return VXT_BLK_TA_INSERT | VXT_BLK_TC_QUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_REMAP: return VXT_BLK_TA_REMAP | VXT_BLK_TC_QUEUE << VXT_BLK_TC_SHIFT;
	case VXT_PH_SPLIT: return VXT_BLK_TA_SPLIT;
	}
	return 0;
}

/* Next sequence number of @object's records on @cpu; 0 when out of memory. */
static uint32_t blk_seq(struct blk_out *o, uint32_t object, uint32_t cpu)
{
	if (object >= o->nobj)
		return 0;
	if (!o->seq[object]) {
		o->seq[object] = calloc(BLK_MAX_CPUS, sizeof(uint32_t));
		if (!o->seq[object])
			return 0;
	}
	return ++o->seq[object][cpu % BLK_MAX_CPUS];
}

/* Write @r (notes have sequence 0, as the kernel writes them). */
static int blk_put(struct blk_out *o, struct vxt_blk_rec *r, const void *pdu)
{
	unsigned char buf[VXT_BLK_HDR_SIZE];

	r->magic = VXT_BLK_MAGIC | VXT_BLK_VERSION;
	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, r);
	if (fwrite(buf, sizeof(buf), 1, o->c->out) != 1 ||
	    (r->pdu_len && fwrite(pdu, r->pdu_len, 1, o->c->out) != 1))
		return -1;
	return 0;
}

/* A process note before the first record of each (pid, command). */
static int blk_name(struct blk_out *o, const struct vxt_event *ev, uint32_t dev)
{
	uint64_t key = (uint64_t)ev->pid << 32 | ev->comm;
	struct vxt_blk_rec r = { 0 };
	const char *comm;
	char pdu[16] = { 0 };
	int rc;

	if (!ev->pid)
		return 0;
	rc = named_add(o, key);
	if (rc <= 0)
		return rc;
	comm = vxt_strtab_get(vxt_reader_strings(o->c->r), ev->comm);
	strncpy(pdu, comm, sizeof(pdu) - 1);
	r.time = ev->time_ns;
	r.action = VXT_BLK_TN_PROCESS | VXT_BLK_TC_NOTIFY << VXT_BLK_TC_SHIFT;
	r.pid = ev->pid;
	r.device = dev;
	r.cpu = ev->cpu;
	r.pdu_len = sizeof(pdu);
	return blk_put(o, &r, pdu);
}

/* The wall-clock anchor: at monotonic @mono, the time was the file's realtime. */
static int blk_timestamp(struct blk_out *o, uint64_t mono, uint32_t dev)
{
	uint64_t real = vxt_reader_to_real(o->c->r, mono);
	struct vxt_blk_rec r = { 0 };
	unsigned char pdu[8];

	for (int i = 0; i < 4; i++) {
		pdu[i] = (unsigned char)((real / VXT_NSEC_PER_SEC) >> (8 * i));
		pdu[4 + i] = (unsigned char)((real % VXT_NSEC_PER_SEC) >> (8 * i));
	}
	r.time = mono;
	r.action = VXT_BLK_TN_TIMESTAMP | VXT_BLK_TC_NOTIFY << VXT_BLK_TC_SHIFT;
	r.device = dev;
	r.pdu_len = sizeof(pdu);
	return blk_put(o, &r, pdu);
}

/* One I/O record of @ev with @action (its own category bit included). */
static void put_be32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put_be64(unsigned char *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static int blk_io(struct blk_out *o, const struct vxt_event *ev, struct vxt_blk_rec *r,
		  uint32_t action)
{
	unsigned char pdu[VXT_BLK_REMAP_PDU] = { 0 };
	uint32_t from;
	uint64_t fsec;

	r->action = action | blk_category(ev) << VXT_BLK_TC_SHIFT;
	r->sequence = blk_seq(o, ev->object, ev->cpu);
	if (!r->sequence)
		return -1;
	if (ev->phase == VXT_PH_REMAP) {
		/* where the bio came from (zeros when the file does not say) */
		const struct vxt_object *src = NULL;

		if (vxt_event_remap_from(ev, &from, &fsec))
			src = vxt_objtab_get(vxt_reader_objects(o->c->r), from);
		put_be32(pdu, src ? src->dev : 0);
		put_be32(pdu + 4, r->device);
		put_be64(pdu + 8, src ? fsec : 0);
		r->pdu_len = VXT_BLK_REMAP_PDU;
	} else if (ev->phase == VXT_PH_SPLIT) {
		/* the sector the second part starts at */
		put_be64(pdu, ev->sector + (ev->bytes >> 9));
		r->pdu_len = 8;
	}
	return blk_put(o, r, r->pdu_len ? pdu : NULL);
}

static int blk_event(struct blk_out *o, const struct vxt_event *ev, bool *anchored)
{
	const struct vxt_object *obj = vxt_objtab_get(vxt_reader_objects(o->c->r), ev->object);
	struct vxt_blk_rec r = { 0 };
	uint32_t action = blk_action(ev->phase);
	const char *text;

	if (!obj || (!action && ev->phase != VXT_PH_MARK))
		return 0;
	if (!*anchored) {
		*anchored = true;
		if (blk_timestamp(o, ev->time_ns, obj->dev) < 0)
			return -1;
	}
	r.time = ev->time_ns;
	r.device = obj->dev;
	r.cpu = ev->cpu;
	r.pid = ev->pid;
	if (ev->phase == VXT_PH_MARK) {
		text = vxt_strtab_get(vxt_reader_strings(o->c->r), ev->comm);
		r.action = VXT_BLK_TN_MESSAGE | VXT_BLK_TC_NOTIFY << VXT_BLK_TC_SHIFT;
		r.pdu_len = (uint16_t)strlen(text) + 1;
		return blk_put(o, &r, text);
	}
	if (blk_name(o, ev, obj->dev) < 0)
		return -1;
	r.sector = ev->sector;
	r.bytes = ev->bytes;
	r.error = (uint16_t)ev->error;
	if (ev->phase == VXT_PH_QUEUE || ev->phase == VXT_PH_MERGE ||
	    ev->phase == VXT_PH_GETRQ || ev->phase == VXT_PH_INSERT)
		o->queue_seen = true;
	return blk_io(o, ev, &r, action);
}

int export_blktrace(struct report_ctx *c)
{
	struct blk_out *o = calloc(1, sizeof(*o));
	const struct vxt_event *ev;
	bool anchored = false;
	int rc;

	if (!o) {
		fprintf(stderr, "vxreplay: out of memory\n");
		return 1;
	}
	o->c = c;
	o->nobj = vxt_objtab_count(vxt_reader_objects(c->r));
	o->seq = calloc(o->nobj ? o->nobj : 1, sizeof(*o->seq));
	if (!o->seq || report_scope_begin(c) < 0) {
		if (!o->seq)
			fprintf(stderr, "vxreplay: out of memory\n");
		free(o->seq);
		free(o);
		return 1;
	}
	while ((rc = report_scope_next(c, &ev)) == 1)
		if (blk_event(o, ev, &anchored) < 0) {
			fprintf(stderr, "vxreplay: blktrace export: write error or out of memory\n");
			rc = -1;
			break;
		}
	if (rc == 0 && !o->queue_seen)
		fprintf(stderr, "vxreplay: note: the trace holds no queue phase (Q, M, G, I), only "
			"issue and completion: btt shows no intervals for this export; capture "
			"with vxrecord --phases all (sources ebpf, tracefs, kmod) for them\n");
	for (size_t i = 0; i < o->nobj; i++)
		free(o->seq[i]);
	free(o->seq);
	free(o->named);
	free(o);
	return rc < 0;
}
