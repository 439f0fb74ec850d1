/* outfile.h - opening an output file safely: one rule for every program
 *
 * Traces, reports and exports hold pids, command lines and names from 0600
 * traces, so every output follows the same rule:
 *   - created mode 0600 whatever the umask;
 *   - an existing file is kept unless @force (then truncated in place);
 *   - a symlink is refused (even with @force) unless @follow_symlink;
 *   - a directory or anything but a regular file is refused ("is a directory",
 *     "not a regular file"), and never replaced;
 *   - the output is never the input (@input, same device and inode, whatever
 *     the path: a hard link or another spelling is caught), even with @force;
 *   - with @lock, a file another process holds locked is refused ("in use by
 *     pid N") before anything is truncated; the lock lasts until the
 *     descriptor is closed.
 *
 *   char err[VXT_ERRBUF_SIZE];
 *   struct vxt_outfile_opts o = { .force = force, .input = trace_path };
 *   bool created;
 *   int fd = vxt_outfile_open(out_path, &o, &created, err, sizeof(err));
 *   if (fd < 0)
 *           die("%s", err);   // "t.vxt: is the input file; refusing to overwrite it"
 */
#ifndef VXTRACE_OUTFILE_H
#define VXTRACE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

struct vxt_outfile_opts {
	bool force;			/* overwrite an existing regular file */
	bool follow_symlink;		/* allow the path to be a symlink */
	const char *input;		/* never write over this file; NULL = none */
	bool lock;			/* hold an exclusive flock(2): one writer per file */
};

/*
 * Open @path for writing under the rule above (O_WRONLY | O_CLOEXEC).
 * *created says whether the file is new (so a failure later may unlink it).
 * @return the descriptor (caller closes it), or -1 with a one-line message
 * naming @path in @err (of @errsize bytes) and errno set.
 */
int vxt_outfile_open(const char *path, const struct vxt_outfile_opts *o, bool *created,
		     char *err, size_t errsize);

/*
 * Take an exclusive flock(2) on @fd (of @path) without waiting.
 * @return 0, or -1 with "PATH: in use by pid N" in @err and errno EBUSY.
 */
int vxt_outfile_lock(int fd, const char *path, char *err, size_t errsize);
/*
 * Whether a writer holds @path locked (a missing file is not in use).
 * @return 0 if not, or -1 with the message of vxt_outfile_lock() in @err.
 */
int vxt_outfile_unused(const char *path, char *err, size_t errsize);

#endif
