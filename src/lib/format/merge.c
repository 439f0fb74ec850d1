/* merge.c - several .vxt files read as one trace
 *
 * The files of one host (a rotated set) share that host's monotonic clock;
 * the hosts are put on one wall-clock timeline through their clock anchors:
 * a host's times move by the difference between its anchor's offset
 * (realtime - monotonic) and the smallest such offset of all the hosts, so
 * the merged reader's clock is that host's and no time goes below zero.
 * Events come in time order: a k-way merge of the files, each in its own
 * order, by a key that never goes backwards within a file (the largest time
 * seen so far in it), ties going to the file given first. Objects are named
 * host:object when more than one host is open; the string tables are merged.
 *
 * The merged reader has chunks of its own (MERGE_CHUNK events each after a
 * few smaller first ones, laid out from the files' indexes at open and
 * merged when asked for, in
 * merge_index.c), so every consumer of a reader (reports, exports, the
 * browser, scripts) sees the merged trace without knowing it.
 * Spec: formats/vxt.md, "Several files as one trace".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/merge_impl.h"
#include "format/par.h"
#include "vxtrace/escape.h"
#include "vxtrace/util.h"

void vxt_merge_free(struct vxt_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->np; i++) {
		struct part *p = &m->p[i];

		vxt_reader_close(p->r);
		vxt_chunkdec_free(&p->dec);
		free(p->objmap);
		free(p->strmap);
		free(p->key_lo);
		free(p->key_hi);
		free(p->before);
		for (unsigned k = 0; k < MERGE_KEY_SLOTS; k++)
			free(p->ks[k].key);
	}
	vxt_chunkdec_free(&m->work);
	vxt_merge_preload_free(m);
	free(m->p);
	free(m->starts);
	free(m->state);
	free(m->kept);
	free(m->kept_orig);
	free(m->orig);
	free(m->scratch);
	vxt_merge_aggs_free(m);
	free(m->heap);
	free(m->key);
	free(m->exact);
	free(m);
}

/* Time range of file @r on its own clock; false when it has no events. */
static bool file_range(const struct vxt_reader *r, uint64_t *lo, uint64_t *hi)
{
	size_t n = vxt_reader_nchunks(r);

	if (!n)
		return false;
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vxt_chunk_info *ci = vxt_reader_entry(r, i);	/* no aggregates read */

		*lo = ci->first_ns < *lo ? ci->first_ns : *lo;
		*hi = ci->last_ns > *hi ? ci->last_ns : *hi;
	}
	return true;
}

/* The host of file @r in a set: its header's, else its file name without
 * ".vxt". */
static void set_host(const struct vxt_reader *r, char host[VXT_OBJ_HOST_MAX])
{
	const char *base = strrchr(r->name, '/');
	size_t len;

	if (r->info.host[0]) {
		snprintf(host, VXT_OBJ_HOST_MAX, "%s", r->info.host);
		return;
	}
	base = base ? base + 1 : r->name;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".vxt"))
		len -= 4;
	snprintf(host, VXT_OBJ_HOST_MAX, "%.*s", (int)len, base);
}

int vxt_reader_check_set(const struct vxt_reader *const *rs, size_t n,
			 char err[VXT_ERRBUF_SIZE])
{
	char hb[VXT_ESCAPE_MAX(VXT_OBJ_HOST_MAX)], ha[VXT_OBJ_HOST_MAX], hh[VXT_OBJ_HOST_MAX];

	for (size_t i = 0; i < n && n > 1; i++) {
		const struct vxt_reader *a = rs[i];
		struct stat sa, sb;
		uint64_t alo, ahi, blo, bhi;

		if (!a->info.anchor_real_ns) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s: no clock anchor (its header's "
				 "anchor_real_ns is 0): it cannot be placed on a timeline with "
				 "other files", a->name);
			return -EINVAL;
		}
		set_host(a, ha);
		for (size_t j = 0; j < i; j++) {
			const struct vxt_reader *b = rs[j];

			if (a->src.fd >= 0 && b->src.fd >= 0 && !fstat(a->src.fd, &sa) &&
			    !fstat(b->src.fd, &sb) && sa.st_dev == sb.st_dev &&
			    sa.st_ino == sb.st_ino) {
				snprintf(err, VXT_ERRBUF_SIZE, "%s and %s are the same file",
					 b->name, a->name);
				return -EINVAL;
			}
			set_host(b, hh);
			if (strcmp(ha, hh) || !file_range(a, &alo, &ahi) ||
			    !file_range(b, &blo, &bhi) || alo > bhi || blo > ahi)
				continue;
			snprintf(err, VXT_ERRBUF_SIZE, "%s and %s: both from host '%s' and their "
				 "times overlap (the same host twice? the files of one host must "
				 "be the parts of one recording)", b->name, a->name,
				 vxt_text(ha, hb, sizeof(hb)));
			return -EINVAL;
		}
	}
	return 0;
}

/* What makes files unfit to be one trace. @return 0, or -EINVAL with the
 * reason in @err. */
static int check_files(struct vxt_merge *m, char *err)
{
	const struct vxt_reader **rs = calloc(m->np, sizeof(*rs));
	int rc;

	if (!rs) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->np; i++)
		rs[i] = m->p[i].r;
	rc = vxt_reader_check_set(rs, m->np, err);
	free(rs);
	return rc;
}

/* Each host's shift onto the shared clock, and the merged header. */
static void place_hosts(struct vxt_merge *m, size_t *nhosts)
{
	struct vxt_file_info *in = &m->owner->info;
	int64_t min = 0;
	size_t ref = 0, len = 0;

	*nhosts = 0;
	for (size_t i = 0; i < m->np; i++) {
		const struct vxt_file_info *fi = &m->p[i].r->info;
		size_t first = i;
		int64_t off;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->p[j].host, m->p[i].host)) {
				first = j;
				break;
			}
		/* a host's clock is the one its first file anchors */
		fi = &m->p[first].r->info;
		off = (int64_t)(fi->anchor_real_ns - fi->anchor_mono_ns);
		m->p[i].shift = off;
		if (first == i) {
			(*nhosts)++;
			if (*nhosts == 1 || off < min) {
				min = off;
				ref = i;
			}
		}
	}
	*in = m->p[ref].r->info;
	in->command[0] = '\0';
	in->host[0] = '\0';
	for (size_t i = 0; i < m->np; i++) {
		const struct vxt_file_info *fi = &m->p[i].r->info;
		bool seen = false;

		m->p[i].shift -= min;
		in->compat &= fi->compat;
		if (fi->created_real_ns < in->created_real_ns)
			in->created_real_ns = fi->created_real_ns;
		if (strcmp(fi->profile, in->profile))
			in->profile[0] = '\0';
		if (strcmp(fi->source, in->source))
			snprintf(in->source, sizeof(in->source), "several");
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(m->p[j].host, m->p[i].host);
		if (!seen && len + 1 < sizeof(in->host))	/* "a,b,c", as much as fits */
			len += (size_t)snprintf(in->host + len, sizeof(in->host) - len, "%s%s",
						len ? "," : "", m->p[i].host);
		if (len >= sizeof(in->host))
			len = sizeof(in->host) - 1;
	}
}

#define HOSTS_APART_NS (60 * VXT_NSEC_PER_SEC)	/* a gap worth a note */

struct span {
	uint64_t lo, hi;	/* a host's events, on the shared clock */
	size_t part;		/* its first file */
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* m->note when the hosts' events fall apart in time: the largest gap
 * between a host's first event and every event of the hosts before it, if
 * it is HOSTS_APART_NS or more (clocks hours apart put one recording
 * beside the other rather than over it). */
static void note_apart(struct vxt_merge *m)
{
	struct span *s = calloc(m->np, sizeof(*s));
	char hb[2][VXT_ESCAPE_MAX(VXT_OBJ_HOST_MAX)], d[32];
	size_t n = 0, end_part = 0, after = 0, before = 0;
	uint64_t end, gap = 0;

	if (!s)
		return;
	for (size_t i = 0; i < m->np; i++) {
		uint64_t lo, hi;
		size_t j = 0;

		if (!file_range(m->p[i].r, &lo, &hi))
			continue;
		lo += (uint64_t)m->p[i].shift;
		hi += (uint64_t)m->p[i].shift;
		while (j < n && strcmp(m->p[s[j].part].host, m->p[i].host))
			j++;
		if (j == n)
			s[n++] = (struct span){ lo, hi, i };
		s[j].lo = lo < s[j].lo ? lo : s[j].lo;
		s[j].hi = hi > s[j].hi ? hi : s[j].hi;
	}
	qsort(s, n, sizeof(*s), cmp_span);
	end = n ? s[0].hi : 0;
	end_part = n ? s[0].part : 0;
	for (size_t j = 1; j < n; j++) {
		if (s[j].lo > end && s[j].lo - end > gap) {
			gap = s[j].lo - end;
			after = s[j].part;
			before = end_part;
		}
		if (s[j].hi > end) {
			end = s[j].hi;
			end_part = s[j].part;
		}
	}
	free(s);
	if (gap < HOSTS_APART_NS)
		return;
	snprintf(m->note, sizeof(m->note), "host '%s' (%.150s) begins %s after host '%s' "
		 "(%.150s) ends: their events have no time in common (a clock set wrong?); "
		 "merged as their clock anchors say", vxt_text(m->p[after].host, hb[0],
		 sizeof(hb[0])), m->p[after].r->name, vxt_format_duration(gap, d, sizeof(d)),
		 vxt_text(m->p[before].host, hb[1], sizeof(hb[1])), m->p[before].r->name);
}

size_t vxt_reader_holes(const struct vxt_reader *r, const char **why)
{
	size_t n = r->merge ? r->merge->nholes : 0;

	if (why)
		*why = n ? r->merge->hole_msg : NULL;
	return n;
}

const char *vxt_reader_note(const struct vxt_reader *r)
{
	return r->merge && r->merge->note[0] ? r->merge->note : NULL;
}

/* "host:name" into @out, cut to what an object name holds. */
static void join_name(char out[VXT_OBJ_NAME_MAX], const char *host, const char *name)
{
	size_t n = 0;

	for (const char *s = host; s && *s && n < VXT_OBJ_NAME_MAX - 1; s++)
		out[n++] = *s;
	if (host && n < VXT_OBJ_NAME_MAX - 1)
		out[n++] = ':';
	for (const char *s = name; *s && n < VXT_OBJ_NAME_MAX - 1; s++)
		out[n++] = *s;
	out[n] = '\0';
}

/* The merged object and string tables, and each file's maps into them. */
static int merge_tables(struct vxt_merge *m, bool name_hosts)
{
	struct vxt_reader *r = m->owner;

	for (size_t k = 0; k < m->np; k++) {
		struct part *p = &m->p[k];
		const struct vxt_objtab *ot = vxt_reader_objects(p->r);
		const struct vxt_strtab *st = vxt_reader_strings(p->r);

		p->nobj = vxt_objtab_count(ot);
		p->nstr = vxt_strtab_count(st);
		p->objmap = calloc(p->nobj ? p->nobj : 1, sizeof(*p->objmap));
		p->strmap = calloc(p->nstr ? p->nstr : 1, sizeof(*p->strmap));
		if (!p->objmap || !p->strmap)
			return -ENOMEM;
		for (size_t j = 0; j < p->nobj; j++) {
			const struct vxt_object *o = vxt_objtab_get(ot, (uint32_t)j);
			char name[VXT_OBJ_NAME_MAX];
			int64_t id = -1;

			join_name(name, name_hosts ? p->host : NULL, o->name);
			for (size_t i = 0; !o->dev && i < vxt_objtab_count(r->objs); i++) {
				const struct vxt_object *q = vxt_objtab_get(r->objs, (uint32_t)i);

				if (!q->dev && !strcmp(q->name, name) && !strcmp(q->host, p->host))
					id = (int64_t)i;
			}
			if (id < 0)
				id = vxt_objtab_add_host(r->objs, p->host, o->dev, name, o->kind,
							 o->size);
			if (id < 0)
				return -ENOMEM;
			p->objmap[j] = (uint32_t)id;
		}
		for (size_t j = 1; j < p->nstr; j++) {
			const char *s = vxt_strtab_get(st, (uint32_t)j);
			int64_t id = vxt_strtab_intern(r->strs, s, strlen(s));

			if (id < 0)
				return -ENOMEM;
			p->strmap[j] = (uint32_t)id;
		}
	}
	return 0;
}

/* The host a file is from: its header's, or for a file that names none,
 * its name without directory and .vxt. */
static void part_host(struct part *p)
{
	set_host(p->r, p->host);
}

struct open_jobs {
	struct vxt_merge *m;
	const char *const *paths;
	char (*err)[VXT_ERRBUF_SIZE];
};

static void open_one(void *ctx, size_t k, unsigned worker)
{
	struct open_jobs *o = ctx;

	(void)worker;
	o->m->p[k].r = vxt_reader_open(o->paths[k], o->err[k]);
}

/* Open the files side by side (each reads its index, a few hundred KiB for
 * 10 M events). @return 0, or -1 with the first failure in @err. */
static int open_files(struct vxt_merge *m, const char *const *paths, char *err)
{
	struct open_jobs o = { m, paths, calloc(m->np, sizeof(*o.err)) };

	if (!o.err) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	vxt_par_run(m->np, vxt_par_workers(VXT_PAR_MAX), open_one, &o);
	for (size_t k = 0; k < m->np; k++)
		if (!m->p[k].r) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s", o.err[k]);
			free(o.err);
			return -1;
		}
	free(o.err);
	for (size_t k = 0; k < m->np; k++)
		part_host(&m->p[k]);
	return 0;
}

struct vxt_reader *vxt_reader_open_set(const char *const *paths, size_t n,
				       char err[VXT_ERRBUF_SIZE])
{
	struct vxt_reader *r;
	struct vxt_merge *m;
	size_t nhosts;
	int rc;

	if (n == 1)
		return vxt_reader_open(paths[0], err);
	r = calloc(1, sizeof(*r));
	m = calloc(1, sizeof(*m));
	if (!r || !m || !n) {
		snprintf(err, VXT_ERRBUF_SIZE, n ? "out of memory" : "no file given");
		free(r);
		free(m);
		return NULL;
	}
	r->merge = m;
	m->owner = r;
	r->src.fd = -1;
	r->has_footer = true;		/* nothing to refresh */
	r->cur_chunk = SIZE_MAX;
	r->damage_off = -1;
	r->name = malloc(strlen(paths[0]) + 32);
	r->objs = vxt_objtab_new();
	r->strs = vxt_strtab_new();
	m->np = n;
	m->p = calloc(n, sizeof(*m->p));
	m->heap = calloc(n, sizeof(*m->heap));
	m->key = calloc(n, sizeof(*m->key));
	m->exact = calloc(n, sizeof(*m->exact));
	if (!r->name || !r->objs || !r->strs || !m->p || !m->heap || !m->key || !m->exact ||
	    vxt_chunkdec_init(&r->dec) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		goto fail;
	}
	sprintf(r->name, "%s (and %zu more)", paths[0], n - 1);
	if (open_files(m, paths, err) < 0 || check_files(m, err) < 0)
		goto fail;
	place_hosts(m, &nhosts);
	note_apart(m);
	rc = merge_tables(m, nhosts > 1);
	if (!rc)
		rc = vxt_merge_index(m);
	if (rc < 0) {
		if (m->msg[0])
			snprintf(err, VXT_ERRBUF_SIZE, "%.500s", m->msg);
		else
			snprintf(err, VXT_ERRBUF_SIZE, "%.300s: %s", r->name, vxt_strerror(rc));
		goto fail;
	}
	r->dec.fields = VXT_FIELD_ALL;
	return r;
fail:
	vxt_reader_close(r);
	return NULL;
}
