/* files.h - the trace files vxreplay is given: paths, globs, directories */
#ifndef VXREPLAY_FILES_H
#define VXREPLAY_FILES_H

#include <stddef.h>

struct trace_files {
	char **paths;
	size_t n, cap;
};

/* Add the files @args name to @t: a path as it is, a glob that names no
 * file expanded, a directory's *.vxt files (natural order). A glob or a
 * directory with nothing in it is an error.
 * @return 0, or 1 after printing why to stderr. */
int trace_files_collect(struct trace_files *t, char *const *args, size_t n);
void trace_files_free(struct trace_files *t);

#endif
