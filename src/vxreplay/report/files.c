/* files.c - the trace files vxreplay is given: paths, globs, directories
 *
 * A path is taken as it is; an argument naming no file but holding a glob
 * character is expanded (a quoted glob); a directory stands for the .vxt
 * files in it. Each argument's files are in natural order (trace.1.vxt,
 * trace.2.vxt, ..., trace.10.vxt, trace.vxt: a rotated set oldest first).
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/files.h"
#include "vxtrace/util.h"

/* Natural order: runs of digits compare as numbers, and a digit sorts
 * before anything else (so trace.9.vxt comes before trace.vxt). */
static int natural_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;

	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long long x = strtoull(a, (char **)&a, 10);
			unsigned long long y = strtoull(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b) {
			if (isdigit((unsigned char)*a))
				return -1;
			if (isdigit((unsigned char)*b))
				return 1;
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		}
		a++, b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int add(struct trace_files *t, const char *path)
{
	if (t->n == t->cap && vxt_grow(&t->paths, &t->cap, t->n + 1, sizeof(*t->paths)) < 0)
		return -ENOMEM;
	if (!(t->paths[t->n] = strdup(path)))
		return -ENOMEM;
	t->n++;
	return 0;
}

/* Expand @pattern into @t, naturally sorted. @return matches, or -ENOMEM. */
static int expand(struct trace_files *t, const char *pattern)
{
	glob_t g;
	size_t first = t->n;
	int rc = glob(pattern, 0, NULL, &g);

	if (rc == GLOB_NOMATCH)
		return 0;
	if (rc)
		return -ENOMEM;
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (add(t, g.gl_pathv[i]) < 0) {
			globfree(&g);
			return -ENOMEM;
		}
	globfree(&g);
	qsort(t->paths + first, t->n - first, sizeof(*t->paths), natural_cmp);
	return (int)(t->n - first);
}

int trace_files_collect(struct trace_files *t, char *const *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = args[i];
		struct stat st;
		int rc, there = stat(a, &st) == 0;

		if (there && S_ISDIR(st.st_mode)) {
			char *pat = malloc(strlen(a) + 8);

			if (!pat)
				goto oom;
			sprintf(pat, "%s/*.vxt", a);
			rc = expand(t, pat);
			free(pat);
			if (rc < 0)
				goto oom;
			if (rc == 0) {
				fprintf(stderr, "vxreplay: %s: a directory without .vxt files\n", a);
				return 1;
			}
		} else if (!there && errno == ENOENT && strpbrk(a, "*?[")) {
			rc = expand(t, a);
			if (rc < 0)
				goto oom;
			if (rc == 0) {
				fprintf(stderr, "vxreplay: %s: no file matches\n", a);
				return 1;
			}
		} else if (add(t, a) < 0) {
			goto oom;
		}
	}
	return 0;
oom:
	fprintf(stderr, "vxreplay: out of memory\n");
	return 1;
}

void trace_files_free(struct trace_files *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->paths[i]);
	free(t->paths);
	t->paths = NULL;
	t->n = t->cap = 0;
}
