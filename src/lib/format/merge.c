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
 * The merged reader has chunks of its own (MERGE_CHUNK events, cut by an
 * indexing pass over the files at open: their times, ops, sizes, latencies
 * and errors give each chunk its index entry and per-object aggregates, as
 * a file's). A chunk remembers where each file was when it began; decoding
 * it runs the same merge from there, so every consumer of a reader (reports,
 * exports, the browser, scripts) sees the merged trace without knowing it.
 * Spec: formats/vxt.md, "Several files as one trace".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/reader_impl.h"
#include "format/vxtfile.h"
#include "vxtrace/escape.h"

#define MERGE_CHUNK 21845	/* events per merged chunk, as a writer's 1 MiB */
/* what the index entries need: the aggregates' fields */
#define INDEX_FIELDS (VXT_FIELD_BYTES | VXT_FIELD_LATENCY | VXT_FIELD_ERROR | \
		      VXT_FIELD_LOST_COUNT)

struct part {
	struct vxt_reader *r;
	char host[VXT_OBJ_HOST_MAX];
	int64_t shift;			/* ns added to the file's times */
	uint32_t *objmap, *strmap;	/* file id -> merged id */
	size_t nobj, nstr;
	/* the merge's cursor in this file */
	uint64_t pos;			/* ordinal of the next event */
	uint64_t env;			/* merge key so far (largest shifted time) */
	const struct vxt_event *ev;	/* the decoded chunk holding pos ... */
	uint64_t ev_first;		/* ... its first ordinal ... */
	size_t ev_n;			/* ... and events; 0 = none held */
	struct vxt_scan *scan;		/* the indexing pass's decoder */
};

struct vstart {
	uint64_t pos, env;
};

struct vxt_merge {
	struct vxt_reader *owner;	/* the merged reader */
	size_t np;
	struct part *p;
	struct vstart *starts;		/* np per merged chunk */
	size_t *heap;			/* parts with events left, by key */
	size_t nheap;
	uint64_t *key;			/* each part's next key */
	bool indexing;
	unsigned fields;		/* fields of the chunks the parts hold */
	uint64_t damaged;		/* file chunks skipped as damaged */
	char msg[VXT_ERRBUF_SIZE];
};

void vxt_merge_free(struct vxt_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->np; i++) {
		vxt_scan_stop(m->p[i].scan);
		vxt_reader_close(m->p[i].r);
		free(m->p[i].objmap);
		free(m->p[i].strmap);
	}
	free(m->p);
	free(m->starts);
	free(m->heap);
	free(m->key);
	free(m);
}

/* Make the chunk holding p->pos the one held. @return 1, 0 at the file's
 * end, -ENOMEM; a damaged chunk is skipped (named in m->msg). */
static int part_load(struct vxt_merge *m, struct part *p)
{
	const struct vxt_reader *r = p->r;

	while (p->pos < vxt_reader_nevents(r)) {
		size_t i = vxt_reader_chunk_of(r, p->pos), n = 0;
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);
		const struct vxt_event *ev;
		int rc;

		if (m->indexing) {
			size_t got;

			rc = vxt_scan_next(p->scan, &got, &ev, &n);
			if (rc == 0)
				return 0;
			if (rc == -ENOMEM) {
				snprintf(m->msg, sizeof(m->msg), "%s", vxt_scan_error(p->scan));
				return rc;
			}
			ci = vxt_reader_chunk(r, got);
			if (rc < 0) {
				snprintf(m->msg, sizeof(m->msg), "%s", vxt_scan_error(p->scan));
				m->damaged++;
				p->pos = ci->first_event + ci->nevents;
				continue;
			}
		} else {
			vxt_reader_set_fields(p->r, m->fields);
			ev = vxt_reader_chunk_events(p->r, i, &n);
			if (!ev) {
				snprintf(m->msg, sizeof(m->msg), "%s", vxt_reader_error(r));
				if (strstr(m->msg, "out of memory"))
					return -ENOMEM;
				p->pos = ci->first_event + ci->nevents;
				continue;
			}
		}
		p->ev = ev;
		p->ev_first = ci->first_event;
		p->ev_n = n;
		if (p->pos < p->ev_first)
			p->pos = p->ev_first;	/* the chunks before were damaged */
		return 1;
	}
	return 0;
}

/* The event at p->pos, loading its chunk. @return 1, 0 at the end, -ENOMEM. */
static int part_peek(struct vxt_merge *m, struct part *p, const struct vxt_event **ev)
{
	if (!p->ev_n || p->pos < p->ev_first || p->pos >= p->ev_first + p->ev_n) {
		int rc = part_load(m, p);

		if (rc <= 0)
			return rc;
	}
	*ev = &p->ev[p->pos - p->ev_first];
	return 1;
}

static bool before(const struct vxt_merge *m, size_t a, size_t b)
{
	return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && a < b);
}

static void sift_down(struct vxt_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, s = i, t;

		if (l < m->nheap && before(m, m->heap[l], m->heap[s]))
			s = l;
		if (l + 1 < m->nheap && before(m, m->heap[l + 1], m->heap[s]))
			s = l + 1;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

/* Key part @k by its next event and put it in the heap (not at its end).
 * @return 0 or -ENOMEM. */
static int heap_add(struct vxt_merge *m, size_t k)
{
	const struct vxt_event *ev;
	struct part *p = &m->p[k];
	int rc = part_peek(m, p, &ev);
	uint64_t t;

	if (rc <= 0)
		return rc;
	t = ev->time_ns + (uint64_t)p->shift;
	m->key[k] = t > p->env ? t : p->env;
	m->heap[m->nheap++] = k;
	return 0;
}

/* Place every part at @st (np entries) and build the heap. */
static int merge_begin(struct vxt_merge *m, const struct vstart *st)
{
	int rc;

	m->nheap = 0;
	for (size_t k = 0; k < m->np; k++) {
		m->p[k].pos = st ? st[k].pos : 0;
		m->p[k].env = st ? st[k].env : 0;
		if ((rc = heap_add(m, k)) < 0)
			return rc;
	}
	for (size_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

/* The next event in merged order into @out (remapped, shifted).
 * @return 1, 0 at the end, -ENOMEM. */
static int merge_next(struct vxt_merge *m, struct vxt_event *out)
{
	const struct vxt_event *ev;
	struct part *p;
	size_t k;
	int rc;

	if (!m->nheap)
		return 0;
	k = m->heap[0];
	p = &m->p[k];
	ev = &p->ev[p->pos - p->ev_first];
	*out = *ev;
	out->time_ns += (uint64_t)p->shift;
	out->object = ev->object < p->nobj ? p->objmap[ev->object] : 0;
	out->comm = ev->comm < p->nstr ? p->strmap[ev->comm] : 0;
	p->env = m->key[k];
	p->pos++;
	rc = part_peek(m, p, &ev);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		m->heap[0] = m->heap[--m->nheap];
	} else {
		uint64_t t = ev->time_ns + (uint64_t)p->shift;

		m->key[k] = t > p->env ? t : p->env;
	}
	sift_down(m, 0);
	return 1;
}

int vxt_merge_decode(struct vxt_merge *m, struct vxt_chunkdec *d, size_t i, char *msg,
		     size_t msglen)
{
	const struct vxt_chunk_info *ci = &m->owner->chunks[i];
	size_t n = 0;
	int rc;

	if (d->ev_cap < ci->nevents) {
		struct vxt_event *ev = realloc(d->ev, ci->nevents * sizeof(*ev));

		if (!ev) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		d->ev = ev;
		d->ev_cap = ci->nevents;
	}
	d->zeroed = 0;
	m->fields = d->fields;
	rc = merge_begin(m, &m->starts[i * m->np]);
	while (rc >= 0 && n < ci->nevents && (rc = merge_next(m, &d->ev[n])) > 0)
		n++;
	if (rc == -ENOMEM) {
		snprintf(msg, msglen, "%s", m->msg);
		return rc;
	}
	if (n < ci->nevents) {	/* a file's chunk failed now, not at open */
		snprintf(msg, msglen, "merged chunk %zu: %s", i, m->msg);
		return -EBADMSG;
	}
	return 0;
}

/* Close the merged chunk @ci (its aggregates in @agg, the objects present
 * in @touched[0..*nt)) into the owner's index. @return 0 or -ENOMEM. */
static int close_chunk(struct vxt_merge *m, struct vxt_chunk_info *ci, struct vxt_objagg *agg,
		       uint32_t *touched, size_t *nt)
{
	struct vxt_reader *r = m->owner;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct vxt_chunk_info *c = realloc(r->chunks, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		r->chunks = c;
		r->cap = cap;
	}
	ci->first_event = r->nevents;
	ci->nobjagg = (uint32_t)*nt;
	ci->objagg = *nt ? calloc(*nt, sizeof(*ci->objagg)) : NULL;
	if (*nt && !ci->objagg)
		return -ENOMEM;
	/* ids in order, as a file's entries have them */
	for (size_t i = 1; i < *nt; i++)
		for (size_t j = i; j > 0 && touched[j - 1] > touched[j]; j--) {
			uint32_t t = touched[j];

			touched[j] = touched[j - 1];
			touched[j - 1] = t;
		}
	for (size_t i = 0; i < *nt; i++) {
		ci->objagg[i] = agg[touched[i]];
		memset(&agg[touched[i]], 0, sizeof(*agg));
		agg[touched[i]].object = UINT32_MAX;
	}
	*nt = 0;
	r->chunks[r->n++] = *ci;
	r->nevents += ci->nevents;
	memset(ci, 0, sizeof(*ci));
	return 0;
}

/* Count @e into the open chunk, as a writer's index entry counts it. */
static void account(struct vxt_chunk_info *ci, struct vxt_objagg *agg, size_t nobj,
		    uint32_t *touched, size_t *nt, const struct vxt_event *e)
{
	struct vxt_objagg *a;

	if (!ci->nevents || e->time_ns < ci->first_ns)
		ci->first_ns = e->time_ns;
	if (!ci->nevents || e->time_ns > ci->last_ns)
		ci->last_ns = e->time_ns;
	ci->nevents++;
	if (e->phase == VXT_PH_LOST) {
		ci->nlost += e->sector;
		return;
	}
	if (e->object >= nobj)
		return;
	a = &agg[e->object];
	if (a->object == UINT32_MAX) {
		a->object = e->object;
		touched[(*nt)++] = e->object;
	}
	if (vxt_objagg_add(a, e))
		ci->nerrors++;
}

/* The indexing pass: every event once, in merged order, cut into chunks.
 * @return 0 or -ENOMEM. */
static int index_files(struct vxt_merge *m)
{
	size_t nobj = vxt_objtab_count(m->owner->objs), nt = 0, cap = 0;
	struct vxt_objagg *agg = calloc(nobj ? nobj : 1, sizeof(*agg));
	uint32_t *touched = calloc(nobj ? nobj : 1, sizeof(*touched));
	unsigned threads = vxt_scan_default_threads() ? 1 : 0;
	struct vxt_chunk_info ci = { 0 };
	struct vxt_event ev;
	int rc = agg && touched ? 0 : -ENOMEM;

	for (size_t i = 0; i < nobj && agg; i++)
		agg[i].object = UINT32_MAX;
	for (size_t k = 0; !rc && k < m->np; k++)
		if (!(m->p[k].scan = vxt_scan_start(m->p[k].r, 0, INDEX_FIELDS, threads)))
			rc = -ENOMEM;
	m->indexing = true;
	if (!rc)
		rc = merge_begin(m, NULL);
	while (!rc) {
		if (!ci.nevents) {	/* where each file is as this chunk begins */
			if (m->owner->n == cap) {
				struct vstart *s;

				cap = cap ? 2 * cap : 64;
				s = realloc(m->starts, cap * m->np * sizeof(*s));
				if (!s) {
					rc = -ENOMEM;
					break;
				}
				m->starts = s;
			}
			for (size_t k = 0; k < m->np; k++)
				m->starts[m->owner->n * m->np + k] =
					(struct vstart){ m->p[k].pos, m->p[k].env };
		}
		rc = merge_next(m, &ev);
		if (rc <= 0)
			break;
		rc = 0;
		account(&ci, agg, nobj, touched, &nt, &ev);
		if (ci.nevents == MERGE_CHUNK)
			rc = close_chunk(m, &ci, agg, touched, &nt);
	}
	if (!rc && ci.nevents)
		rc = close_chunk(m, &ci, agg, touched, &nt);
	for (size_t k = 0; k < m->np; k++) {
		vxt_scan_stop(m->p[k].scan);
		m->p[k].scan = NULL;
		m->p[k].ev_n = 0;	/* the scan's buffers are gone */
	}
	m->indexing = false;
	free(agg);
	free(touched);
	return rc;
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
		const struct vxt_chunk_info *ci = vxt_reader_chunk(r, i);

		*lo = ci->first_ns < *lo ? ci->first_ns : *lo;
		*hi = ci->last_ns > *hi ? ci->last_ns : *hi;
	}
	return true;
}

/* What makes files unfit to be one trace. @return 0, or -EINVAL with the
 * reason in @err. */
static int check_files(struct vxt_merge *m, char *err)
{
	char hb[VXT_ESCAPE_MAX(VXT_OBJ_HOST_MAX)];

	for (size_t i = 0; i < m->np; i++) {
		const struct vxt_reader *a = m->p[i].r;
		struct stat sa, sb;
		uint64_t alo, ahi, blo, bhi;

		if (!a->info.anchor_real_ns) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s: no clock anchor (its header's "
				 "anchor_real_ns is 0): it cannot be placed on a timeline with "
				 "other files", a->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			const struct vxt_reader *b = m->p[j].r;

			if (a->src.fd >= 0 && b->src.fd >= 0 && !fstat(a->src.fd, &sa) &&
			    !fstat(b->src.fd, &sb) && sa.st_dev == sb.st_dev &&
			    sa.st_ino == sb.st_ino) {
				snprintf(err, VXT_ERRBUF_SIZE, "%s and %s are the same file",
					 b->name, a->name);
				return -EINVAL;
			}
			if (strcmp(m->p[i].host, m->p[j].host) || !file_range(a, &alo, &ahi) ||
			    !file_range(b, &blo, &bhi) || alo > bhi || blo > ahi)
				continue;
			snprintf(err, VXT_ERRBUF_SIZE, "%s and %s: both from host '%s' and their "
				 "times overlap (the same host twice? the files of one host must "
				 "be the parts of one recording)", b->name, a->name,
				 vxt_text(m->p[i].host, hb, sizeof(hb)));
			return -EINVAL;
		}
	}
	return 0;
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
static void part_host(struct part *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	if (p->r->info.host[0]) {
		snprintf(p->host, sizeof(p->host), "%s", p->r->info.host);
		return;
	}
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".vxt"))
		len -= 4;
	snprintf(p->host, sizeof(p->host), "%.*s", (int)len, base);
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
	if (!r->name || !r->objs || !r->strs || !m->p || !m->heap || !m->key ||
	    vxt_chunkdec_init(&r->dec) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		goto fail;
	}
	sprintf(r->name, "%s (and %zu more)", paths[0], n - 1);
	for (size_t k = 0; k < n; k++) {
		if (!(m->p[k].r = vxt_reader_open(paths[k], err)))
			goto fail;
		part_host(&m->p[k], paths[k]);
	}
	if (check_files(m, err) < 0)
		goto fail;
	place_hosts(m, &nhosts);
	rc = merge_tables(m, nhosts > 1);
	if (!rc)
		rc = index_files(m);
	if (rc < 0) {
		if (m->msg[0])
			snprintf(err, VXT_ERRBUF_SIZE, "%.500s", m->msg);
		else
			snprintf(err, VXT_ERRBUF_SIZE, "%.300s: %s", r->name, vxt_strerror(rc));
		goto fail;
	}
	if (m->damaged) {
		r->damage_off = 0;
		snprintf(r->damage, sizeof(r->damage), "%llu damaged chunks of the files left "
			 "out (%.160s)", (unsigned long long)m->damaged, m->msg);
	}
	r->dec.fields = VXT_FIELD_ALL;
	return r;
fail:
	vxt_reader_close(r);
	return NULL;
}
