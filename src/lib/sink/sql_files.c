/* sql_files.c - the files behind one SQL table
 *
 * A table's arguments name files, directories (their *.vxt files) or glob
 * patterns ("trace*.vxt" for a rotated set). The files must make one trace
 * as vxt_reader_open_set() wants (no file twice, no overlapping files of
 * one host, every file anchored when there are several). Each file is opened
 * once, through its footer or by the recovering scan; the set is ordered
 * by the wall clock of each file's first event, and every file's rows get
 * rowids of their own (base + ordinal).
 * The tables of a connection over the same arguments share one set (one
 * index read per file, however many tables).
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink/sql_impl.h"

static void set_close(struct sql_set *s);

static uint64_t first_real(const struct sql_file *f)
{
	if (!vxt_reader_nchunks(f->r))
		return UINT64_MAX;
	return vxt_reader_to_real(f->r, vxt_reader_chunk(f->r, 0)->first_ns);
}

static int by_first_real(const void *a, const void *b)
{
	uint64_t x = first_real(a), y = first_real(b);

	return x < y ? -1 : x > y;
}

static int add_file(struct sql_set *s, const char *path, char *err, size_t errsz)
{
	char rerr[VXT_ERRBUF_SIZE];
	struct sql_file *f = realloc(s->f, (s->n + 1) * sizeof(*f));
	const struct vxt_file_info *in;

	if (!f) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	s->f = f;
	f = &s->f[s->n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	f->r = vxt_reader_open(path, rerr);
	if (!f->r) {
		snprintf(err, errsz, "%s", rerr);
		free(f->path);
		return -1;
	}
	in = vxt_reader_info(f->r);
	f->real_off = (int64_t)(in->anchor_real_ns - in->anchor_mono_ns);
	s->n++;
	return 0;
}

static int vxt_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".vxt");
}

/* A directory's *.vxt files (none is an error). */
static int add_dir(struct sql_set *s, const char *dir, char *err, size_t errsz)
{
	struct dirent **names;
	int n = scandir(dir, &names, vxt_name, alphasort), rc = 0;

	if (n < 0) {
		snprintf(err, errsz, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!n) {
		snprintf(err, errsz, "%s: a directory without .vxt files", dir);
		rc = -1;
	}
	for (int i = 0; i < n; i++) {
		char *path = malloc(strlen(dir) + strlen(names[i]->d_name) + 2);

		if (!rc && !path) {
			snprintf(err, errsz, "out of memory");
			rc = -1;
		}
		if (!rc) {
			sprintf(path, "%s/%s", dir, names[i]->d_name);
			rc = add_file(s, path, err, errsz);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* A directory stands for its *.vxt files; a pattern with glob characters
 * expands to its matches (none is an error); anything else is a path. */
static int add_pattern(struct sql_set *s, const char *pat, char *err, size_t errsz)
{
	struct stat st;
	glob_t g;
	int rc;

	if (!stat(pat, &st) && S_ISDIR(st.st_mode))
		return add_dir(s, pat, err, errsz);
	if (!pat[strcspn(pat, "*?[")])
		return add_file(s, pat, err, errsz);
	rc = glob(pat, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		snprintf(err, errsz, "%s: no file matches", pat);
		return -1;
	}
	if (rc) {
		snprintf(err, errsz, "%s: %s", pat, rc == GLOB_NOSPACE ? "out of memory" :
			 "cannot read a directory");
		return -1;
	}
	rc = 0;
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = add_file(s, g.gl_pathv[i], err, errsz);
	globfree(&g);
	return rc;
}

/* The several-files checks of vxt_reader_open_set(): no file twice (by any
 * name), no two overlapping files of one host, no file without a clock
 * anchor. @return 0, or -1 with the reason in @err. */
static int check_set(const struct sql_set *s, char *err, size_t errsz)
{
	char rerr[VXT_ERRBUF_SIZE];
	const struct vxt_reader **rs = calloc(s->n ? s->n : 1, sizeof(*rs));
	int rc;

	if (!rs) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		rs[i] = s->f[i].r;
	rc = vxt_reader_check_set(rs, s->n, rerr);
	free(rs);
	if (rc < 0)
		snprintf(err, errsz, "%s", rerr);
	return rc < 0 ? -1 : 0;
}

static int set_open(struct sql_set *s, const char *const *pats, size_t n, char *err, size_t errsz)
{
	uint64_t base = 0;

	s->n = 0;
	s->f = NULL;
	if (!n) {
		snprintf(err, errsz, "no trace file given");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (add_pattern(s, pats[i], err, errsz) < 0) {
			set_close(s);
			return -1;
		}
	}
	if (check_set(s, err, errsz) < 0) {
		set_close(s);
		return -1;
	}
	qsort(s->f, s->n, sizeof(*s->f), by_first_real);
	for (size_t i = 0; i < s->n; i++) {
		s->f[i].base = base;
		base += vxt_reader_nevents(s->f[i].r);
	}
	return 0;
}

static void set_close(struct sql_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		vxt_reader_close(s->f[i].r);
		free(s->f[i].path);
	}
	free(s->f);
	s->f = NULL;
	s->n = 0;
}

struct sql_set *sql_set_get(struct sql_ctx *ctx, const char *const *pats, size_t n, char *err,
			    size_t errsz)
{
	size_t len = 1;
	struct sql_set *s;
	char *key;

	for (size_t i = 0; i < n; i++)
		len += strlen(pats[i]) + 1;
	key = malloc(len);
	if (!key) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	key[0] = 0;
	for (size_t i = 0; i < n; i++) {
		strcat(key, pats[i]);
		strcat(key, "\n");
	}
	for (s = ctx->sets; s; s = s->next) {
		if (!strcmp(s->key, key)) {
			free(key);
			s->refs++;
			return s;
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s || set_open(s, pats, n, err, errsz) < 0) {
		if (!s)
			snprintf(err, errsz, "out of memory");
		free(s);
		free(key);
		return NULL;
	}
	s->key = key;
	s->refs = 1;
	s->next = ctx->sets;
	ctx->sets = s;
	return s;
}

void sql_set_put(struct sql_ctx *ctx, struct sql_set *s)
{
	struct sql_set **p;

	if (!s || --s->refs)
		return;
	for (p = &ctx->sets; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	set_close(s);
	free(s->key);
	free(s);
}

int sql_set_check(struct sql_set *s, char *err, size_t errsz)
{
	for (size_t i = 0; i < s->n; i++) {
		if (vxt_reader_check_same(s->f[i].r) < 0) {
			snprintf(err, errsz, "%s; reopen the table", vxt_reader_error(s->f[i].r));
			return -1;
		}
	}
	return 0;
}
