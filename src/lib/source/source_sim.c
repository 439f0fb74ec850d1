/* source_sim.c - the built-in simulated workload: a seeded, deterministic
 * stream of block I/O on several named objects, with scheduled error bursts
 *
 * Same seed and options, same events, byte for byte. Each object has its own
 * access pattern, read/write mix, size range and latency; arrivals are a
 * Poisson process at the configured event rate; completions are kept in a
 * min-heap so events come out in time order.
 *
 * Object spec (opts->sim_objects), comma separated:
 *     NAME:PATTERN:READPCT:SIZE[-SIZE]:LATENCY[:WEIGHT]
 *     e.g. "sda:rand:70:4k-16k:4ms:1,nvme0n1:seq:30:128k:100us:4"
 * Error bursts (opts->sim_errors), comma separated:
 *     OBJECT@TIME+COUNT[:ERRNO]   e.g. "sdb@1s+30:EIO"
 *     the first COUNT completions on OBJECT at or after TIME fail with ERRNO.
 * "none" turns the built-in bursts off.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source/source_impl.h"
#include "vxtrace/heap.h"
#include "vxtrace/util.h"
#include "vxtrace/voltrace.h"

#define SIM_MAX_OBJECTS 64
#define SIM_MAX_BURSTS 64
#define SIM_BATCH 4096
#define SIM_DEFAULT_RATE 50000.0	/* events per simulated second */
#define SIM_BASE_NS VXT_NSEC_PER_SEC	/* simulated time starts at 1 s */
/* 2026-01-01T00:00:00Z: the wall clock a non-realtime simulation claims. */
#define SIM_EPOCH_NS 1767225600000000000ull

static const char default_objects[] =
	"sda:rand:70:4k-16k:4ms:1,"
	"sdb:seq:20:64k-256k:2ms:1,"
	"nvme0n1:rand:60:4k:90us:5,"
	"dm-0:rand:50:4k-64k:300us:2";
static const char default_errors[] =
	"sdb@1s+30:EIO,dm-0@2.5s+10:ETIMEDOUT,sda@4s+5:EIO";

static const char *const comms[] = {
	"fio", "postgres", "kworker/u8:2", "jbd2/sda1-8", "mysqld", "dd",
};

struct sim_object {
	uint32_t id;
	bool sequential;
	unsigned read_pct;
	uint32_t size_min, size_max;	/* bytes */
	uint64_t lat_ns;		/* median latency */
	unsigned weight;
	uint64_t next_sector;		/* sequential stream position */
	uint64_t nr_sectors;
};

struct sim_burst {
	uint32_t obj;			/* index into objs */
	uint64_t at_ns;			/* simulated time from the start */
	uint32_t left;
	int err;			/* positive errno */
};

struct sim {
	struct sim_object objs[SIM_MAX_OBJECTS];
	unsigned nobjs, total_weight;
	struct sim_burst bursts[SIM_MAX_BURSTS];
	unsigned nbursts;
	uint64_t s[4];			/* xoshiro256** state */
	double mean_gap_ns;		/* between arrivals */
	uint64_t next_arrival;
	uint64_t base_ns;
	uint64_t count_limit, end_ns, emitted;
	bool realtime;
	struct vxt_event *heap;		/* issued I/Os' completions, a min-heap by time_ns */
	size_t nheap, capheap;
	uint32_t comm_ids[sizeof(comms) / sizeof(comms[0])];
};

/* ---- deterministic randomness ---- */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct sim *sm)
{
	uint64_t *s = sm->s, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static double rnd_unit(struct sim *sm)	/* (0, 1) */
{
	return ((double)(rnd(sm) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static uint64_t rnd_below(struct sim *sm, uint64_t n)
{
	return n ? rnd(sm) % n : 0;
}

static void seed_rng(struct sim *sm, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {	/* splitmix64 */
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		sm->s[i] = z ^ (z >> 31);
	}
}

/* ---- the completion heap ---- */

static bool done_before(const void *ctx, const struct vxt_event *a, const struct vxt_event *b)
{
	(void)ctx;
	return a->time_ns < b->time_ns;
}

VXT_HEAP_DEFINE(done_heap, struct vxt_event, const void *, done_before)

static int heap_push(struct sim *sm, const struct vxt_event *done)
{
	if (sm->nheap == sm->capheap &&
	    vxt_grow(&sm->heap, &sm->capheap, sm->nheap + 1, sizeof(*sm->heap)) < 0)
		return -ENOMEM;
	done_heap_push(sm->heap, &sm->nheap, done, NULL);
	return 0;
}

static void heap_pop(struct sim *sm, struct vxt_event *out)
{
	*out = sm->heap[0];
	done_heap_pop(sm->heap, &sm->nheap, NULL);
}

/* ---- option parsing ---- */

static int parse_objects(struct vxt_source *s, struct sim *sm, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char name[VXT_OBJ_NAME_MAX], pat[8], size[32], lat[32];
		unsigned pct, weight = 1;
		uint64_t smin, smax, lat_ns;
		char *dash;
		struct sim_object *o;
		int64_t id;
		int n = sscanf(item, "%31[^:]:%7[^:]:%u:%31[^:]:%31[^:]:%u", name, pat, &pct,
			       size, lat, &weight);

		if (n < 5 || pct > 100 || weight == 0 || weight > 1000 ||
		    (strcmp(pat, "rand") && strcmp(pat, "seq"))) {
			rc = vxt_source_seterr(s, -EINVAL,
				"sim object '%s': expected NAME:rand|seq:READPCT:SIZE[-SIZE]:LATENCY[:WEIGHT]",
				item);
			break;
		}
		dash = strchr(size, '-');
		if (dash)
			*dash++ = '\0';
		if (vxt_parse_size(size, &smin) < 0 || vxt_parse_size(dash ? dash : size, &smax) < 0 ||
		    smin < 512 || smax < smin || smax > (64u << 20) ||
		    vxt_parse_duration(lat, &lat_ns) < 0 || lat_ns == 0) {
			rc = vxt_source_seterr(s, -EINVAL, "sim object '%s': bad size or latency",
					       name);
			break;
		}
		if (sm->nobjs == SIM_MAX_OBJECTS) {
			rc = vxt_source_seterr(s, -EINVAL, "sim: more than %d objects",
					       SIM_MAX_OBJECTS);
			break;
		}
		o = &sm->objs[sm->nobjs];
		o->sequential = pat[0] == 's';
		o->read_pct = pct;
		o->size_min = (uint32_t)(smin & ~511ull);
		o->size_max = (uint32_t)(smax & ~511ull);
		o->lat_ns = lat_ns;
		o->weight = weight;
		o->nr_sectors = (256ull << 30) / 512 * (1 + sm->nobjs % 4);
		id = vxt_objtab_add(s->objs, VOLIOT_MKDEV(240, sm->nobjs), name, VXT_OBJ_SIM,
				    o->nr_sectors * 512);
		if (id < 0) {
			rc = (int)id;
			break;
		}
		o->id = (uint32_t)id;
		sm->total_weight += weight;
		sm->nobjs++;
	}
	free(copy);
	if (!rc && !sm->nobjs)
		rc = vxt_source_seterr(s, -EINVAL, "sim: no objects");
	return rc;
}

static int parse_bursts(struct vxt_source *s, struct sim *sm, const char *spec)
{
	char *copy, *save = NULL, *item;
	int rc = 0;

	if (!strcmp(spec, "none") || !*spec)
		return 0;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char obj[VXT_OBJ_NAME_MAX], when[32], err[32] = "EIO";
		unsigned count;
		uint64_t at;
		int e = -1;
		unsigned i;

		if (sscanf(item, "%31[^@]@%31[^+]+%u:%31s", obj, when, &count, err) < 3 ||
		    vxt_parse_duration(when, &at) < 0 || (e = vxt_errno_parse(err)) <= 0 ||
		    count == 0) {
			rc = vxt_source_seterr(s, -EINVAL,
				"sim error burst '%s': expected OBJECT@TIME+COUNT[:ERRNO]", item);
			break;
		}
		for (i = 0; i < sm->nobjs; i++)
			if (!strcmp(vxt_objtab_get(s->objs, sm->objs[i].id)->name, obj))
				break;
		if (i == sm->nobjs) {
			rc = vxt_source_seterr(s, -EINVAL, "sim error burst '%s': no object '%s'",
					       item, obj);
			break;
		}
		if (sm->nbursts == SIM_MAX_BURSTS) {
			rc = vxt_source_seterr(s, -EINVAL, "sim: too many error bursts");
			break;
		}
		sm->bursts[sm->nbursts++] = (struct sim_burst){ i, at, count, e };
	}
	free(copy);
	return rc;
}

/* ---- generation ---- */

static uint64_t draw_latency(struct sim *sm, const struct sim_object *o)
{
	/* log-normal around the median, with a 1% slow tail */
	double g = sqrt(-2.0 * log(rnd_unit(sm))) * cos(2 * M_PI * rnd_unit(sm));
	double v = (double)o->lat_ns * exp(0.35 * g);

	if (rnd_below(sm, 100) == 0)
		v *= 5 + (double)rnd_below(sm, 20);
	return v < 1000 ? 1000 : (uint64_t)v;
}

static uint32_t draw_size(struct sim *sm, const struct sim_object *o)
{
	uint32_t steps = (o->size_max - o->size_min) / 512;
	uint32_t sz;

	if (!steps)
		return o->size_min;
	/* powers of two are the common case */
	sz = o->size_min;
	while (sz * 2 <= o->size_max && rnd_below(sm, 2))
		sz *= 2;
	return sz;
}

static struct sim_object *pick_object(struct sim *sm, unsigned *idx)
{
	uint64_t r = rnd_below(sm, sm->total_weight);

	for (unsigned i = 0; i < sm->nobjs; i++) {
		if (r < sm->objs[i].weight) {
			*idx = i;
			return &sm->objs[i];
		}
		r -= sm->objs[i].weight;
	}
	*idx = 0;
	return &sm->objs[0];
}

/* Issue one I/O at sm->next_arrival: fill @start, queue its completion. */
static int issue(struct sim *sm, struct vxt_event *start)
{
	unsigned idx;
	struct sim_object *o = pick_object(sm, &idx);
	struct vxt_event done;
	unsigned proc = (unsigned)rnd_below(sm, 3);
	uint64_t now = sm->next_arrival;

	memset(start, 0, sizeof(*start));
	start->time_ns = now;
	start->object = o->id;
	start->phase = VXT_PH_START;
	start->cpu = (uint16_t)rnd_below(sm, 4);
	start->pid = 1000 + idx * 10 + proc;
	start->comm = sm->comm_ids[(idx + proc) % (sizeof(comms) / sizeof(comms[0]))];
	if (rnd_below(sm, 200) == 0) {
		start->op = VXT_OP_FLUSH;
		start->flags = VXT_F_PREFLUSH | VXT_F_SYNC;
	} else {
		start->op = rnd_below(sm, 100) < o->read_pct ? VXT_OP_READ : VXT_OP_WRITE;
		start->bytes = draw_size(sm, o);
		if (o->sequential) {
			start->sector = o->next_sector;
			o->next_sector += start->bytes / 512;
			if (o->next_sector >= o->nr_sectors)
				o->next_sector = 0;
		} else {
			start->sector = rnd_below(sm, o->nr_sectors / 8 - 16) * 8;
		}
		if (start->op == VXT_OP_WRITE && rnd_below(sm, 100) == 0)
			start->flags = VXT_F_SYNC | VXT_F_FUA;
		else if (start->op == VXT_OP_READ && o->sequential && rnd_below(sm, 4) == 0)
			start->flags = VXT_F_RAHEAD;
	}
	done = *start;
	done.phase = VXT_PH_DONE;
	done.latency_ns = draw_latency(sm, o);
	done.time_ns = now + done.latency_ns;
	done.cpu = (uint16_t)rnd_below(sm, 4);
	for (unsigned b = 0; b < sm->nbursts; b++) {
		struct sim_burst *bu = &sm->bursts[b];

		if (bu->obj == idx && bu->left && now - sm->base_ns >= bu->at_ns) {
			bu->left--;
			done.error = (int16_t)-bu->err;
			break;
		}
	}
	sm->next_arrival += (uint64_t)(-log(rnd_unit(sm)) * sm->mean_gap_ns) + 1;
	return heap_push(sm, &done);
}

static bool limit_reached(const struct sim *sm, uint64_t t)
{
	return (sm->count_limit && sm->emitted >= sm->count_limit) ||
	       (sm->end_ns && t >= sm->end_ns);
}

static int sim_next(struct vxt_source *s, struct vxt_batch *b, int timeout_ms)
{
	struct sim *sm = s->priv;
	uint64_t horizon = UINT64_MAX;
	size_t made = 0;

	if (sm->realtime) {
		uint64_t now = vxt_now_mono();

		uint64_t first = sm->next_arrival;

		if (sm->nheap && sm->heap[0].time_ns < first)
			first = sm->heap[0].time_ns;
		if (first > now && timeout_ms != 0) {
			uint64_t wait = first - now;
			struct timespec ts;

			if (timeout_ms > 0 && wait > (uint64_t)timeout_ms * 1000000)
				wait = (uint64_t)timeout_ms * 1000000;
			ts.tv_sec = (time_t)(wait / VXT_NSEC_PER_SEC);
			ts.tv_nsec = (long)(wait % VXT_NSEC_PER_SEC);
			nanosleep(&ts, NULL);
			now = vxt_now_mono();
		}
		horizon = now;
	}
	while (made < SIM_BATCH) {
		bool arrival = !sm->nheap || sm->next_arrival <= sm->heap[0].time_ns;
		uint64_t t = arrival ? sm->next_arrival : sm->heap[0].time_ns;
		struct vxt_event *ev;

		if (limit_reached(sm, t)) {
			if (!made)
				return 0;
			break;
		}
		if (t > horizon)
			break;
		ev = vxt_batch_push(b);
		if (!ev)
			return vxt_source_seterr(s, -ENOMEM, "sim: out of memory");
		if (arrival) {
			if (issue(sm, ev) < 0)
				return vxt_source_seterr(s, -ENOMEM, "sim: out of memory");
		} else {
			heap_pop(sm, ev);
		}
		sm->emitted++;
		made++;
	}
	return 1;
}

static int sim_open(struct vxt_source *s, const struct vxt_source_opts *opts)
{
	struct sim *sm = calloc(1, sizeof(*sm));
	double rate = opts->rate > 0 ? opts->rate : SIM_DEFAULT_RATE;
	int rc;

	if (!sm)
		return -ENOMEM;
	s->priv = sm;
	seed_rng(sm, opts->seed ? opts->seed : 1);
	if (rate > 1e9)
		return vxt_source_seterr(s, -EINVAL, "sim: rate %.0f events/s is too high", rate);
	/* two events (start, done) per I/O */
	sm->mean_gap_ns = 2e9 / rate;
	sm->realtime = opts->realtime;
	sm->base_ns = sm->realtime ? vxt_now_mono() : SIM_BASE_NS;
	sm->next_arrival = sm->base_ns;
	sm->count_limit = opts->count;
	sm->end_ns = opts->duration_ns ? sm->base_ns + opts->duration_ns : 0;
	if (!sm->realtime) {
		s->clock_mono = SIM_BASE_NS;
		s->clock_real = SIM_EPOCH_NS;
	}
	s->clock_real += (uint64_t)opts->clock_offset_ns;
	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		int64_t id = vxt_strtab_intern(s->strs, comms[i], strlen(comms[i]));

		if (id < 0)
			return (int)id;
		sm->comm_ids[i] = (uint32_t)id;
	}
	rc = parse_objects(s, sm, opts->sim_objects && *opts->sim_objects ?
			   opts->sim_objects : default_objects);
	if (rc < 0)
		return rc;
	return parse_bursts(s, sm, opts->sim_errors ? opts->sim_errors : default_errors);
}

static void sim_close(struct vxt_source *s)
{
	struct sim *sm = s->priv;

	if (sm)
		free(sm->heap);
	free(sm);
	s->priv = NULL;
}

static int sim_probe(void)
{
	return -ENODEV;		/* never the default: it is not a real machine */
}

const struct vxt_source_ops vxt_source_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.next = sim_next,
	.close = sim_close,
	.probe = sim_probe,
};
