/* fixture.c - the trace, model and fake sysfs helpers of fixture.h */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"
#include "browser/model.h"
#include "fixture.h"

/* by time; at one time, a start before a done */
static int cmp_ev(const void *a, const void *b)
{
	const struct vxt_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	return (x->phase > y->phase) - (x->phase < y->phase);
}

static uint64_t draw(struct ut_trace *t, uint64_t n)
{
	return ut_rand_below(&t->rng, n);
}

static void random_io(struct ut_trace *t, struct vxt_event *s, struct vxt_event *d)
{
	uint64_t lat, time, sector;
	uint32_t bytes = 4096, object, pid = t->pid0 ? 0 : 100;
	uint8_t op = VXT_OP_READ;

	if (t->slow_one_in)
		lat = 10000 + draw(t, draw(t, t->slow_one_in) ? t->lat_ns : t->slow_ns);
	else
		lat = 10000 + draw(t, t->lat_ns);
	time = UT_SEC + draw(t, t->span_ns);
	sector = draw(t, 1ull << t->sector_bits) * 8;
	if (t->size_steps)
		bytes = 4096u << draw(t, t->size_steps);
	object = (uint32_t)draw(t, t->nobjs);
	if (t->npids)
		pid += (uint32_t)draw(t, t->npids);
	if (t->write_one_in)
		op = draw(t, t->write_one_in) ? VXT_OP_READ : VXT_OP_WRITE;
	*s = (struct vxt_event){ .time_ns = time, .sector = sector, .bytes = bytes,
				 .object = object, .pid = pid, .phase = VXT_PH_START, .op = op };
	*d = *s;
	d->phase = VXT_PH_DONE;
	d->time_ns = s->time_ns + lat;
	d->latency_ns = lat;
	if (!draw(t, t->error_one_in))
		d->error = -5;
}

void ut_trace_write(struct ut_trace *t, struct vxt_event *evs, char *path, size_t pathlen)
{
	static const char *const names[] = { "sda", "sdb", "dm-0" };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer_opts wo = { .chunk_bytes = t->chunk_bytes, .source = "test",
				      .anchor_mono_ns = UT_SEC, .anchor_real_ns = UT_SEC,
				      .force = true };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_writer *w;
	size_t nev = 2 * (size_t)t->nio;
	int fd;

	ck_assert_ptr_nonnull(objs);
	ck_assert_ptr_nonnull(strs);
	ck_assert_uint_le(t->nobjs, 3);
	for (unsigned i = 0; i < t->nobjs; i++)
		ck_assert_int_eq(vxt_objtab_add(objs, i + 1, names[i], 0, 1ull << 30), (int)i);
	for (unsigned i = 0; i < t->nio; i++)
		random_io(t, &evs[2 * i], &evs[2 * i + 1]);
	qsort(evs, nev, sizeof(evs[0]), cmp_ev);
	ck_assert_int_lt(snprintf(path, pathlen, "/tmp/vxt-%s-XXXXXX", t->name), (int)pathlen);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	w = vxt_writer_open(path, &wo, objs, strs, err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(vxt_writer_write(w, evs, nev), 0);
	ck_assert_int_eq(vxt_writer_close(w, err), 0);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
}

/* the bin of t in [w0, w1) cut in n equal parts: the k with
 * w0 + k (w1 - w0) / n <= t < w0 + (k + 1) (w1 - w0) / n, exactly */
static unsigned bin_of(uint64_t t, uint64_t w0, uint64_t w1, unsigned n)
{
	unsigned k = 0;

	while (k + 1 < n && (unsigned __int128)(t - w0) * n >= (unsigned __int128)(k + 1) * (w1 - w0))
		k++;
	return k;
}

void ut_check_bins(const struct vxt_timeline *tl, const struct vxt_event *evs, size_t nev,
		   uint64_t w0, uint64_t w1)
{
	unsigned n = tl->nbins;
	uint64_t *ev = calloc(3 * (size_t)n, sizeof(*ev)), *ios = ev + n, *errs = ev + 2 * n;

	ck_assert_ptr_nonnull(ev);
	for (size_t i = 0; i < nev; i++) {
		unsigned b = bin_of(evs[i].time_ns, w0, w1, n);

		ev[b]++;
		if (evs[i].phase == VXT_PH_DONE) {
			ios[b]++;
			errs[b] += evs[i].error != 0;
		}
	}
	for (unsigned b = 0; b < n; b++) {
		ck_assert_msg(tl->events[b] == ev[b], "bin %u: %llu events, want %llu", b,
			      (unsigned long long)tl->events[b], (unsigned long long)ev[b]);
		ck_assert_uint_eq(tl->ios[b], ios[b]);
		ck_assert_uint_eq(tl->errors[b], errs[b]);
	}
	free(ev);
}

void ut_model_finish(struct vr_model *m)
{
	for (int i = 0; vr_model_busy(m); i++) {
		ck_assert_int_lt(i, 1000000);
		vr_model_step(m);
	}
}

void ut_model_close(struct vr_model *m, const char *path)
{
	char marks[80];

	vr_model_close(m);
	unlink(path);
	snprintf(marks, sizeof(marks), "%s.marks", path);
	unlink(marks);
}

int ut_script_sink(void *arg, const struct vxt_script_rec *r)
{
	struct ut_script_out *u = arg;

	if (r->len) {
		u->text = realloc(u->text, u->tlen + r->len + 1);
		ck_assert_ptr_nonnull(u->text);
		memcpy(u->text + u->tlen, r->text, r->len);
		u->tlen += r->len;
		u->text[u->tlen] = '\0';
	}
	if (r->has_event) {
		if (u->n == u->cap) {
			u->cap = u->cap ? 2 * u->cap : 256;
			u->ord = realloc(u->ord, u->cap * sizeof(*u->ord));
			ck_assert_ptr_nonnull(u->ord);
		}
		u->ord[u->n++] = r->ordinal;
	}
	return 0;
}

void ut_script_out_free(struct ut_script_out *u)
{
	free(u->ord);
	free(u->text);
}

struct vxt_event ut_io_event(uint64_t t, unsigned phase, unsigned op, uint64_t sector)
{
	struct vxt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = t;
	ev.phase = (uint8_t)phase;
	ev.op = (uint8_t)op;
	ev.sector = sector;
	ev.bytes = 4096;
	return ev;
}

struct vxt_event ut_lost_event(uint64_t t, unsigned op, uint64_t count, uint64_t lost_io)
{
	struct vxt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = t;
	ev.phase = VXT_PH_LOST;
	ev.op = (uint8_t)op;
	ev.sector = count;
	ev.lost_io = lost_io;
	return ev;
}

char ut_sysfs_root[64];

void ut_sysfs_new(const char *name)
{
	snprintf(ut_sysfs_root, sizeof(ut_sysfs_root), "/tmp/%s-XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(ut_sysfs_root));
	setenv("VXT_SYSFS", ut_sysfs_root, 1);
}

void ut_sysfs_put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ut_sysfs_root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

void ut_sysfs_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", ut_sysfs_root, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

void ut_sysfs_remove(void)
{
	char cmd[128];

	unsetenv("VXT_SYSFS");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ut_sysfs_root);
	ck_assert_int_eq(system(cmd), 0);
}
