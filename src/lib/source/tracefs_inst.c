/* tracefs_inst.c - find or mount tracefs; remove instances of dead recorders
 *
 * An instance is named "<program>-<pid>", with "-ns<inode>" of the PID
 * namespace outside the initial one: tracefs is one for the machine, and two
 * containers' recorders are each PID 1. It is made with mkdir(2), which
 * fails on a name that exists, so no two recorders ever share one. A
 * recorder removes its own on every exit it sees; one killed outright
 * (kill -9, a crash) leaves it, and the next recorder of its namespace
 * removes it here.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "source/tracefs_inst.h"
#include "vxtrace/util.h"

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

/* The initial PID namespace's inode (PROC_PID_INIT_INO, fixed by the kernel). */
#define PID_NS_INIT_INO 0xEFFFFFFCull

/* @return the inode of our PID namespace, PID_NS_INIT_INO for the initial
 * one, or 0 when it cannot be read. */
static unsigned long long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* The instance name of @pid under @prefix in PID namespace @ns. */
static void inst_name(char *buf, size_t size, const char *prefix, long pid, unsigned long long ns)
{
	if (ns == PID_NS_INIT_INO)
		snprintf(buf, size, "%s-%ld", prefix, pid);
	else
		snprintf(buf, size, "%s-%ld-ns%llu", prefix, pid, ns);
}

struct stale_ctx {
	const char *prefix;
	unsigned long long ns;	/* ours: only its instances are judged */
	char names[32][64];
	int n;
};

static int stale_cb(const char *name, void *data)
{
	struct stale_ctx *c = data;
	size_t l = strlen(c->prefix);
	unsigned long long ns;
	char *end;
	long pid;

	if (strncmp(name, c->prefix, l) || name[l] != '-' || !isdigit((unsigned char)name[l + 1]))
		return 0;
	pid = strtol(name + l + 1, &end, 10);
	ns = PID_NS_INIT_INO;
	if (!strncmp(end, "-ns", 3) && isdigit((unsigned char)end[3]))
		ns = strtoull(end + 3, &end, 10);
	if (*end || pid <= 0 || pid == getpid() || !c->ns || ns != c->ns)
		return 0;
	if (!pid_dead(pid))
		return 0;
	if (c->n < 32)
		snprintf(c->names[c->n++], sizeof(c->names[0]), "%s", name);
	return 0;
}

void vxt_tracefs_remove_stale(const char *prefix)
{
	struct stale_ctx c = { .prefix = prefix, .ns = pid_ns() };
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

/* Remove the instance @name (left by a recorder that is gone). */
static void destroy(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);

	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
}

struct tracefs_instance *vxt_tracefs_instance_new(const char *prefix, char *name, size_t size)
{
	unsigned long long ns = pid_ns();
	char *dir;
	int rc, e;

	if (ns)
		inst_name(name, size, prefix, (long)getpid(), ns);
	else	/* no /proc: a name no other namespace makes */
		snprintf(name, size, "%s-%ld-t%llx", prefix, (long)getpid(),
			 (unsigned long long)vxt_now_mono());
	if (asprintf(&dir, "%s/instances/%s", tracefs_tracing_dir(), name) < 0)
		return errno = ENOMEM, NULL;
	rc = mkdir(dir, 0700);
	if (rc < 0 && errno == EEXIST && ns) {
		/* named for our namespace and PID: a recorder that had our PID
		 * left it, and is gone */
		destroy(name);
		rc = mkdir(dir, 0700);
	}
	e = errno;
	free(dir);
	if (rc < 0)
		return errno = e, NULL;
	return tracefs_instance_alloc(NULL, name);
}
