/* ebpf_tally.c - read the ebpf source's in-kernel counts (see ebpf_tally.h)
 *
 * Keys of the tallies map are dev << 8 | op; entry i of the tally_slots
 * array (objects chosen) counts want_dev[i / VXT_BPF_TALLY_OPS] and op
 * i % VXT_BPF_TALLY_OPS, and one never counted into is left out, as a hash
 * key never made. Keys of the errors map are dev << 32 |
 * op << 16 | (uint16_t)errno (vxtrace_bpf.h). A per-CPU map's value comes
 * as one copy per possible CPU; the sums are the counts. The latency
 * histogram of a key is in the lat_hists map under the tallies' key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/ebpf_tally.h"
#include "vxtrace/util.h"

#ifdef VXT_HAVE_EBPF

#include <bpf/bpf.h>

#include "vxtrace_bpf.h"

_Static_assert(VXT_BPF_US_BUCKETS == VXT_TALLY_US_BUCKETS, "as struct vxt_tally");
_Static_assert(VXT_BPF_LAT_BUCKETS == VXT_TALLY_LAT_BUCKETS, "as struct vxt_tally");
_Static_assert(sizeof(struct vxt_bpf_tally) % 8 == 0, "per-CPU values are 8-aligned");

static void sum_into(struct vxt_tally *t, const struct vxt_bpf_tally *v, int ncpu)
{
	for (int c = 0; c < ncpu; c++, v++) {
		t->started += v->started;
		t->requeued += v->requeued;
		t->completed += v->completed;
		t->bytes += v->bytes;
		t->errors += v->errors;
		t->lost += v->lost;
		t->lat_count += v->lat_count;
		t->lat_sum_ns += v->lat_sum_ns;
		if (v->lat_max_ns > t->lat_max_ns)
			t->lat_max_ns = v->lat_max_ns;
		for (unsigned i = 0; i < VXT_TALLY_US_BUCKETS; i++)
			t->us_bucket[i] += v->us_bucket[i];
	}
}

/* Add the latency histogram of key @key of the lat_hists map @fd (none
 * while no latency was counted) into @t; @buf holds @ncpu histograms. */
static void hist_into(struct vxt_tally *t, int fd, uint64_t key, struct vxt_bpf_hist *buf,
		      int ncpu)
{
	if (bpf_map_lookup_elem(fd, &key, buf))
		return;
	for (int c = 0; c < ncpu; c++)
		for (unsigned i = 0; i < VXT_TALLY_LAT_BUCKETS; i++)
			t->lat_bucket[i] += buf[c].b[i];
}

static int object_of(struct vxt_source *s, struct vxt_chanev *names, uint32_t dev,
		     uint32_t *id)
{
	int64_t o = vxt_chanev_object(s, names, dev);

	if (o < 0)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	*id = (uint32_t)o;
	return 0;
}

static int read_tallies(struct vxt_source *s, struct vxt_chanev *names, int fd, int hist_fd,
			int ncpu, struct vxt_bpf_hist *hist, struct vxt_tallies *out)
{
	struct vxt_bpf_tally *vals = calloc((size_t)ncpu, sizeof(*vals));
	uint64_t key, next;
	void *prev = NULL;
	int rc = 0;

	if (!vals)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct vxt_tally *t;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;	/* gone since (never: keys stay) */
		if (vxt_grow(&out->t, &out->cap, out->n + 1, sizeof(*out->t)) < 0) {
			rc = vxt_source_seterr(s, -ENOMEM, "out of memory");
			break;
		}
		t = &out->t[out->n];
		memset(t, 0, sizeof(*t));
		rc = object_of(s, names, (uint32_t)(key >> 8), &t->object);
		if (rc < 0)
			break;
		t->op = (uint8_t)(key & 0xff) < VXT_OP_COUNT ? (uint8_t)(key & 0xff) : VXT_OP_OTHER;
		sum_into(t, vals, ncpu);
		hist_into(t, hist_fd, key, hist, ncpu);
		out->n++;
	}
	free(vals);
	return rc;
}

static bool counted(const struct vxt_bpf_tally *v, int ncpu)
{
	for (int c = 0; c < ncpu; c++)
		if (v[c].started || v[c].requeued || v[c].completed)
			return true;
	return false;
}

static int read_slots(struct vxt_source *s, struct vxt_chanev *names, int fd, int hist_fd,
		      const uint32_t *devs, uint32_t ndev, int ncpu, struct vxt_bpf_hist *hist,
		      struct vxt_tallies *out)
{
	struct vxt_bpf_tally *vals = calloc((size_t)ncpu, sizeof(*vals));
	int rc = 0;

	if (!vals)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ndev * VXT_BPF_TALLY_OPS; i++) {
		struct vxt_tally *t;
		uint8_t op = (uint8_t)(i % VXT_BPF_TALLY_OPS);

		if (bpf_map_lookup_elem(fd, &i, vals) || !counted(vals, ncpu))
			continue;
		if (vxt_grow(&out->t, &out->cap, out->n + 1, sizeof(*out->t)) < 0) {
			rc = vxt_source_seterr(s, -ENOMEM, "out of memory");
			break;
		}
		t = &out->t[out->n];
		memset(t, 0, sizeof(*t));
		rc = object_of(s, names, devs[i / VXT_BPF_TALLY_OPS], &t->object);
		if (rc < 0)
			break;
		t->op = op < VXT_OP_COUNT ? op : VXT_OP_OTHER;
		sum_into(t, vals, ncpu);
		hist_into(t, hist_fd, (uint64_t)devs[i / VXT_BPF_TALLY_OPS] << 8 | op, hist, ncpu);
		out->n++;
	}
	free(vals);
	return rc;
}

static int read_errors(struct vxt_source *s, struct vxt_chanev *names, int fd, int ncpu,
		       struct vxt_tallies *out)
{
	uint64_t *vals = calloc((size_t)ncpu, sizeof(*vals));
	uint64_t key, next;
	void *prev = NULL;
	int rc = 0;

	if (!vals)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct vxt_tally_error *e;
		uint8_t op;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		if (vxt_grow(&out->e, &out->cape, out->ne + 1, sizeof(*out->e)) < 0) {
			rc = vxt_source_seterr(s, -ENOMEM, "out of memory");
			break;
		}
		e = &out->e[out->ne];
		memset(e, 0, sizeof(*e));
		rc = object_of(s, names, (uint32_t)(key >> 32), &e->object);
		if (rc < 0)
			break;
		op = (uint8_t)(key >> 16);
		e->op = op < VXT_OP_COUNT ? op : VXT_OP_OTHER;
		e->error = (int16_t)(uint16_t)key;
		for (int c = 0; c < ncpu; c++)
			e->n += vals[c];
		out->ne++;
	}
	free(vals);
	return rc;
}

int vxt_ebpf_tally_read(struct vxt_source *s, struct vxt_chanev *names,
			const struct vxt_ebpf_tally_maps *m, const uint32_t *devs, uint32_t ndev,
			int ncpu, struct vxt_tallies *out)
{
	struct vxt_bpf_hist *hist = calloc((size_t)ncpu, sizeof(*hist));
	int rc;

	if (!hist)
		return vxt_source_seterr(s, -ENOMEM, "out of memory");
	out->n = 0;
	out->ne = 0;
	rc = ndev ? read_slots(s, names, m->slots_fd, m->hist_fd, devs, ndev, ncpu, hist, out)
		  : read_tallies(s, names, m->tally_fd, m->hist_fd, ncpu, hist, out);
	free(hist);
	if (rc < 0)
		return rc;
	return read_errors(s, names, m->err_fd, ncpu, out);
}

#endif /* VXT_HAVE_EBPF */
