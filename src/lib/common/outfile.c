/* outfile.c - the one rule for where vxtrace's programs write
 *
 * vxrecord's traces and vxreplay's reports and exports go through
 * vxt_outfile_open(): 0600, no clobbering without --force, no symlinks
 * unless asked, regular files only, never the input. The checks run on the
 * open descriptor before anything is truncated, so a refusal leaves the
 * existing file as it was. A writer's lock is an flock(2) on the file; who
 * holds it is looked up in /proc/locks by device and inode.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vxtrace/outfile.h"

static int refuse(int fd, int err_no, char *err, size_t errsize, const char *path,
		  const char *why)
{
	if (fd >= 0)
		close(fd);
	snprintf(err, errsize, "%s: %s", path, why);
	errno = err_no;
	return -1;
}

static bool same_file(const struct stat *st, const char *input)
{
	struct stat in;

	return input && stat(input, &in) == 0 && in.st_dev == st->st_dev &&
	       in.st_ino == st->st_ino;
}

/* open(2) failed with errno: say why in the rule's words */
static int open_error(const char *path, char *err, size_t errsize)
{
	int e = errno;
	struct stat st;

	if (e == EISDIR || ((e == EEXIST || e == ENXIO) && stat(path, &st) == 0 &&
			    S_ISDIR(st.st_mode)))
		return refuse(-1, EISDIR, err, errsize, path, "is a directory");
	if (e == EEXIST)
		return refuse(-1, e, err, errsize, path, "file exists (use --force to overwrite)");
	if (e == ELOOP)
		return refuse(-1, e, err, errsize, path,
			      "is a symlink; refusing to follow it (use --follow-symlinks)");
	return refuse(-1, e, err, errsize, path, strerror(e));
}

/* @return the pid holding an flock on the file of @st, or 0 if unknown. */
static long lock_holder(const struct stat *st)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256], kind[16];
	unsigned maj, min;
	unsigned long long ino;
	long pid, found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("->" for waiters) */
		if (strstr(line, "->"))
			continue;
		if (sscanf(line, "%*s %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &maj, &min,
			   &ino) == 5 && !strcmp(kind, "FLOCK") && pid > 0 &&
		    makedev(maj, min) == st->st_dev && ino == (unsigned long long)st->st_ino)
			found = pid;
	}
	fclose(f);
	return found;
}

int vxt_outfile_lock(int fd, const char *path, char *err, size_t errsize)
{
	struct stat st;
	long pid;

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			snprintf(err, errsize, "%s: lock: %s", path, strerror(errno));
			return -1;
		}
		pid = fstat(fd, &st) == 0 ? lock_holder(&st) : 0;
		if (pid)
			snprintf(err, errsize, "%s: in use by pid %ld", path, pid);
		else
			snprintf(err, errsize, "%s: in use by another process", path);
		errno = EBUSY;
		return -1;
	}
	return 0;
}

int vxt_outfile_unused(const char *path, char *err, size_t errsize)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int rc;

	if (fd < 0)
		return 0;
	rc = vxt_outfile_lock(fd, path, err, errsize);
	close(fd);
	return rc;
}

int vxt_outfile_open(const char *path, const struct vxt_outfile_opts *o, bool *created,
		     char *err, size_t errsize)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	struct stat st;
	int fd, open_errno;

	*created = false;
	if (!o->follow_symlink) {
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return refuse(-1, ELOOP, err, errsize, path,
				      "is a symlink; refusing to follow it (use --follow-symlinks)");
		flags |= O_NOFOLLOW;
	}
	/* create when we can, so a failure removes only a file we made */
	fd = open(path, flags | O_EXCL, 0600);
	if (fd >= 0) {
		if (o->lock && vxt_outfile_lock(fd, path, err, errsize) < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;	/* another writer took the new file first: leave it */
		}
		*created = true;
		return fd;
	}
	/* same_file() stats the input, which may be no file (an import's prefix):
	 * its errno must not replace the open's */
	open_errno = errno;
	if (open_errno == EEXIST && stat(path, &st) == 0 && same_file(&st, o->input))
		return refuse(-1, EINVAL, err, errsize, path,
			      "is the input file; refusing to overwrite it");
	errno = open_errno;
	if (open_errno != EEXIST || !o->force)
		return open_error(path, err, errsize);
	/* O_NONBLOCK: a fifo must not hang the open; it is refused below */
	fd = open(path, (flags & ~O_CREAT) | O_NONBLOCK);
	if (fd < 0)
		return open_error(path, err, errsize);
	if (fstat(fd, &st) < 0)
		return refuse(fd, errno, err, errsize, path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return refuse(fd, EISDIR, err, errsize, path, "is a directory");
	if (!S_ISREG(st.st_mode))
		return refuse(fd, EINVAL, err, errsize, path, "not a regular file");
	if (same_file(&st, o->input))
		return refuse(fd, EINVAL, err, errsize, path,
			      "is the input file; refusing to overwrite it");
	if (o->lock && vxt_outfile_lock(fd, path, err, errsize) < 0) {
		close(fd);
		errno = EBUSY;
		return -1;
	}
	if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0)
		return refuse(fd, errno, err, errsize, path, strerror(errno));
	return fd;
}
