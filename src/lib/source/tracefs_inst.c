/* tracefs_inst.c - find or mount tracefs; remove instances of dead recorders
 *
 * An instance is named "<program>-<pid>". A recorder removes its own on
 * every exit it sees; one killed outright (kill -9, a crash) leaves it, and
 * the next recorder removes it here.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <tracefs.h>

#include "source/tracefs_inst.h"

static bool fs_supported(const char *fs)
{
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(strrchr(line, '\t') ? strrchr(line, '\t') + 1 : line, fs);
	}
	fclose(f);
	return found;
}

bool vxt_tracefs_mounted(char *path, size_t size)
{
	char dev[256], dir[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "tracefs")) {
			found = true;
			if (path)
				snprintf(path, size, "%s", dir);
		}
	fclose(f);
	return found;
}

int vxt_tracefs_mount(char *err, size_t size)
{
	int e;

	if (vxt_tracefs_mounted(NULL, 0))
		return 0;
	if (!fs_supported("tracefs")) {
		snprintf(err, size, "tracefs: the kernel has no tracefs (built without "
			 "CONFIG_TRACING?)");
		return -ENODEV;
	}
	if (mount("nodev", VXT_TRACEFS_MOUNT, "tracefs", 0, NULL) == 0)
		return 0;
	e = errno;
	snprintf(err, size, "tracefs: not mounted, and mounting it on %s failed: %s%s",
		 VXT_TRACEFS_MOUNT, strerror(e), e == EPERM ? " (needs root or CAP_SYS_ADMIN)" : "");
	return -e;
}

int vxt_tracefs_usable(void)
{
	char path[256], inst[300];

	if (vxt_tracefs_mounted(path, sizeof(path))) {
		snprintf(inst, sizeof(inst), "%s/instances", path);
		return access(inst, W_OK) == 0 ? 0 : -EACCES;
	}
	if (!fs_supported("tracefs"))
		return -ENODEV;
	return geteuid() == 0 ? 0 : -EPERM;
}

/* Is @pid gone? A zombie counts as gone: its files are closed already. */
static bool pid_dead(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'Z';
}

struct stale_ctx {
	const char *prefix;
	char names[32][64];
	int n;
};

static int stale_cb(const char *name, void *data)
{
	struct stale_ctx *c = data;
	size_t l = strlen(c->prefix);
	char *end;
	long pid;

	if (strncmp(name, c->prefix, l) || name[l] != '-' || !isdigit((unsigned char)name[l + 1]))
		return 0;
	pid = strtol(name + l + 1, &end, 10);
	if (*end || pid <= 0 || pid == getpid())
		return 0;
	if (!pid_dead(pid))
		return 0;
	if (c->n < 32)
		snprintf(c->names[c->n++], sizeof(c->names[0]), "%s", name);
	return 0;
}

void vxt_tracefs_remove_stale(const char *prefix)
{
	struct stale_ctx c = { .prefix = prefix };
	struct tracefs_instance *inst;
	int i;

	tracefs_instances_walk(stale_cb, &c);
	for (i = 0; i < c.n; i++) {
		inst = tracefs_instance_alloc(NULL, c.names[i]);
		if (!inst)
			continue;
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
}
