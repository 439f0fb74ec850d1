/* comm_flood.c - a process that renames itself before each of its I/Os
 *
 * For the capture tests of the recorder's string table (tests/cli/comm_flood.sh):
 * before each 4 KiB O_DIRECT read of DEVICE it sets its command name with
 * prctl(PR_SET_NAME) to "cf", its job's number and the I/O's number (in hex,
 * "cf3-1a2b"), so every I/O the kernel traces carries a name never seen
 * before. JOBS processes (default 1) share the COUNT reads, so that a loop
 * device's worker always has one queued.
 *
 *   comm_flood DEVICE COUNT [JOBS]
 *
 * Reads cycle over the device's first 64 MiB (or its size, if smaller).
 * Prints "pid PID" for each job, then "COUNT" (the I/Os done, all jobs) on
 * stdout; exit 1 with a message on a failed open, read, rename or job.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define IO_SIZE 4096
#define SPAN (64L << 20)

/* Job @job: reads @from, @from + @step ... below @count. @return 0 or 1. */
static int flood(const char *dev, unsigned job, unsigned long from, unsigned long step,
		 unsigned long count)
{
	char name[32];	/* the kernel keeps 15 bytes (TASK_COMM_LEN); ours fit */
	off_t span;
	void *buf;
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "comm_flood: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	span = lseek(fd, 0, SEEK_END);
	if (span <= 0 || span > SPAN)
		span = span <= 0 ? IO_SIZE : SPAN;
	if (posix_memalign(&buf, IO_SIZE, IO_SIZE)) {
		fprintf(stderr, "comm_flood: out of memory\n");
		return 1;
	}
	for (unsigned long i = from; i < count; i += step) {
		off_t at = (off_t)(i % (unsigned long)(span / IO_SIZE)) * IO_SIZE;

		snprintf(name, sizeof(name), "cf%x-%lx", job, i);
		if (prctl(PR_SET_NAME, name, 0, 0, 0) < 0) {
			fprintf(stderr, "comm_flood: prctl(PR_SET_NAME): %s\n", strerror(errno));
			return 1;
		}
		if (pread(fd, buf, IO_SIZE, at) != IO_SIZE) {
			fprintf(stderr, "comm_flood: %s: read %lu at %lld: %s\n", dev, i,
				(long long)at, errno ? strerror(errno) : "short read");
			return 1;
		}
	}
	free(buf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count, jobs = 1;
	int status, rc = 0;
	char *end;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: comm_flood DEVICE COUNT [JOBS]\n");
		return 2;
	}
	errno = 0;
	count = strtoul(argv[2], &end, 10);
	if (errno || *end || !count || count > 0xffffffffUL) {
		fprintf(stderr, "comm_flood: bad COUNT '%s'\n", argv[2]);
		return 2;
	}
	if (argc > 3) {
		jobs = strtoul(argv[3], &end, 10);
		if (errno || *end || !jobs || jobs > 16) {
			fprintf(stderr, "comm_flood: bad JOBS '%s' (1 to 16)\n", argv[3]);
			return 2;
		}
	}
	for (unsigned j = 0; j < jobs; j++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "comm_flood: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0)
			_exit(flood(argv[1], j, j, jobs, count));
		printf("pid %d\n", (int)pid);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	if (!rc)
		printf("%lu\n", count);
	return rc;
}
