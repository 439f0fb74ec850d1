/* profile.c - applying a YAML profile to the browser
 *
 * A profile (vxtrace/profile.h) sets the filter, the speculation rules (the
 * speculation view is shown at once), the heatmap's rows, metric and time
 * bins, what the error timeline marks, the list columns and the latency that
 * stands out. Applying is all or nothing:
 * a profile that does not load or whose filter does not compile changes
 * nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "browser/model.h"
#include "browser/script.h"

#include "vxtrace/profile.h"

static int heat_metric(unsigned pm)
{
	switch (pm) {
	case VXT_PROF_IOPS: return VXT_HEAT_IOPS;
	case VXT_PROF_BYTES: return VXT_HEAT_BYTES;
	case VXT_PROF_LAT_P50: return VXT_HEAT_LAT_P50;
	case VXT_PROF_LAT_P99: return VXT_HEAT_LAT_P99;
	case VXT_PROF_ERRORS: return VXT_HEAT_ERRORS;
	default: return VXT_HEAT_IOPS;
	}
}

static void set_columns(struct vr_model *m, const struct vxt_profile *p,
			int (*colparse)(const char *))
{
	m->ncolumns = 0;
	for (unsigned i = 0; i < p->ncolumns && m->ncolumns < VR_MAX_COLS - 2; i++) {
		int c = colparse(vxt_column_name(p->columns[i]));

		if (c >= 0)
			m->columns[m->ncolumns++] = (uint8_t)c;
	}
}

/* The object with the most completed I/O in the file's index, or -1. */
static int64_t busiest_object(const struct vxt_reader *rd)
{
	size_t nobj = vxt_objtab_count(vxt_reader_objects(rd));
	uint64_t *ios = calloc(nobj ? nobj : 1, sizeof(*ios)), best = 0;
	int64_t obj = -1;

	if (!ios)
		return -1;
	for (size_t i = 0; i < vxt_reader_nchunks(rd); i++) {
		const struct vxt_chunk_info *ci = vxt_reader_chunk(rd, i);

		for (uint32_t k = 0; k < ci->nobjagg; k++)
			if (ci->objagg[k].object < nobj)
				for (int op = 0; op < VXT_OP_COUNT; op++)
					ios[ci->objagg[k].object] += ci->objagg[k].ios[op];
	}
	for (size_t i = 0; i < nobj; i++)
		if (ios[i] > best) {
			best = ios[i];
			obj = (int64_t)i;
		}
	free(ios);
	return obj;
}

static void set_heatmap(struct vr_model *m, const struct vxt_profile *p)
{
	int64_t obj;

	m->metric = heat_metric(p->heatmap.metric);
	m->metric_iv = 0;
	m->lba_rows = p->heatmap.buckets;
	if (m->lba_rows > VR_LBA_ROWS_MAX)
		m->lba_rows = VR_LBA_ROWS_MAX;
	m->heat_log = p->heatmap.scale == VXT_PROF_LOG;
	m->lba = false;
	if (p->heatmap.rows == VXT_PROF_ROWS_LBA) {
		/* no object named (or "busiest"): the file's busiest */
		obj = p->heatmap.object[0] && strcmp(p->heatmap.object, "busiest") ?
		      vxt_objtab_find_name(vxt_reader_objects(m->rd), p->heatmap.object) :
		      busiest_object(m->rd);
		if (obj >= 0) {
			m->lba = true;
			m->lba_obj = (uint32_t)obj;
			m->lba_first = m->lba_span = 0;
			m->lba_want_fit = true;
		}
	}
}

static void clear_profile(struct vr_model *m)
{
	vr_script_drop(m);
	vxt_profile_free(m->prof);
	m->prof = NULL;
	m->profile[0] = 0;
	m->ncolumns = 0;
	m->lat_crit_ns = 0;
	m->metric = VXT_HEAT_IOPS;
	m->metric_iv = 0;
	m->heat_log = false;
	m->lba_rows = 0;
	m->fixed_bin_ns = 0;
	m->heat_bins = 0;
	m->mark_kinds = VR_MARK_ERRORS | VR_MARK_LOST;
}

int vr_profile_apply(struct vr_model *m, const char *name, int (*colparse)(const char *),
		     char *err, size_t errsz)
{
	char e[VXT_ERRBUF_SIZE];
	struct vxt_profile *p;

	if (vr_script_is_name(name))
		return vr_script_apply(m, name, err, errsz);
	vr_model_spec_reset(m);
	if (!name || !*name) {
		clear_profile(m);
		return vr_filter_set(m, "", err, errsz);
	}
	p = vxt_profile_open(name, m->profile_dir, e);
	if (!p) {
		snprintf(err, errsz, "%s", e);
		return -1;
	}
	if (vr_filter_set(m, p->filter ? p->filter : "", err, errsz) < 0) {
		vxt_profile_free(p);
		return -1;
	}
	clear_profile(m);
	m->prof = p;
	snprintf(m->profile, sizeof(m->profile), "%s", p->name);
	set_columns(m, p, colparse);
	set_heatmap(m, p);
	m->lat_crit_ns = p->thresholds.latency_crit_ns;
	m->heat_bins = p->heatmap.bins;
	m->mark_kinds = (p->timeline.marks & VXT_MARK_ERRORS ? VR_MARK_ERRORS : 0) |
		   (p->timeline.marks & VXT_MARK_LOST ? VR_MARK_LOST : 0) |
		   (p->timeline.marks & VXT_MARK_SLOW ? VR_MARK_SLOW : 0);
	if (!p->timeline.bin_auto && p->timeline.bin_ns)
		m->fixed_bin_ns = p->timeline.bin_ns;
	if (p->has_spec && vr_model_spec_start(m) < 0) {
		snprintf(err, errsz, "%s", m->note);
		m->note[0] = 0;
		return -1;
	}
	return 0;
}

void vr_profile_describe(const struct vr_model *m, const char *name, char *buf, size_t size)
{
	char e[VXT_ERRBUF_SIZE];
	struct vxt_profile *p = vxt_profile_open(name, m->profile_dir, e);
	const char *d = p ? (p->description ? p->description : "(no description)") : e;
	size_t n = 0;
	bool space = false;

	if (!size)
		return;
	for (; *d && n + 1 < size; d++) {
		if (*d == ' ' || *d == '\t' || *d == '\n' || *d == '\r') {
			space = n > 0;
			continue;
		}
		if (space && n + 2 < size)
			buf[n++] = ' ';
		space = false;
		buf[n++] = *d;
	}
	buf[n] = 0;
	vxt_profile_free(p);
}

int vr_profile_names(const struct vr_model *m, char (*names)[64], int max)
{
	return vxt_profile_list(m->profile_dir, (char (*)[VXT_PROFILE_NAME_MAX])names, max);
}
