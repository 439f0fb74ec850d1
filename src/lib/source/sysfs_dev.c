/* sysfs_dev.c - block device names, numbers, kinds and sizes from sysfs
 *
 * Implements include/vxtrace/sysdev.h over /sys/class/block/NAME/dev and
 * /sys/dev/block/MAJ:MIN/{uevent,size,partition,start,mq,inflight,
 * queue/iostats}. The sysfs root can
 * be moved with the environment variable VXT_SYSFS (tests only).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vxtrace/objtab.h"
#include "vxtrace/sysdev.h"

static const char *sysfs_root(void)
{
	const char *r = getenv("VXT_SYSFS");

	return r && *r ? r : "/sys";
}

/* Read the first line of a small file into @buf without the newline.
 * @return 0 or a negative errno. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int parse_majmin(const char *s, uint32_t *dev)
{
	unsigned long ma, mi;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	ma = strtoul(s, &end, 10);
	if (*end != ':' && *end != ',')
		return -EINVAL;
	s = end + 1;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	mi = strtoul(s, &end, 10);
	if (*end || ma > 0xfff || mi > 0xfffff)
		return -EINVAL;
	*dev = VXT_SYSDEV_MKDEV(ma, mi);
	return 0;
}

static void dev_dir(uint32_t dev, char *buf, size_t size)
{
	snprintf(buf, size, "%s/dev/block/%u:%u", sysfs_root(),
		 VXT_SYSDEV_MAJOR(dev), VXT_SYSDEV_MINOR(dev));
}

static bool dev_exists(uint32_t dev)
{
	char path[256];

	dev_dir(dev, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* One list entry -> device number. @return 0 or a negative errno. */
static int resolve_one(const char *item, uint32_t *dev)
{
	char path[512], line[64];
	struct stat st;

	if (parse_majmin(item, dev) == 0)
		return dev_exists(*dev) ? 0 : -ENOENT;
	if (item[0] == '/') {
		if (stat(item, &st) < 0)
			return -errno;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		*dev = VXT_SYSDEV_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		return 0;
	}
	if (strchr(item, '/') || !strcmp(item, ".") || !strcmp(item, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs_root(), item);
	if (read_line(path, line, sizeof(line)) < 0)
		return -ENOENT;
	return parse_majmin(line, dev) < 0 ? -EIO : 0;
}

int vxt_sysdev_resolve(const char *spec, uint32_t *devs, size_t max, char *err)
{
	char item[256];
	size_t n = 0, i, len;
	const char *p = spec ? spec : "", *comma;
	uint32_t dev;
	int rc;

	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		/* "8,16" is one device number: glue a numeric pair back together */
		if (comma && len && isdigit((unsigned char)p[0]) &&
		    strspn(p, "0123456789") == len && isdigit((unsigned char)comma[1])) {
			size_t l2 = strspn(comma + 1, "0123456789");

			if (comma[1 + l2] == '\0' || comma[1 + l2] == ',')
				len += 1 + l2;
		}
		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		if (len >= sizeof(item)) {
			snprintf(err, VXT_ERRBUF_SIZE, "object name too long: %.40s...", p);
			return -ENAMETOOLONG;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		while (len && isspace((unsigned char)item[len - 1]))
			item[--len] = '\0';
		p += len;
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!len)
			continue;
		rc = resolve_one(item, &dev);
		if (rc < 0) {
			snprintf(err, VXT_ERRBUF_SIZE, "object '%s': %s", item,
				 rc == -ENOENT ? "no such block device" :
				 rc == -ENOTBLK ? "not a block device" : strerror(-rc));
			return rc;
		}
		for (i = 0; i < n; i++)
			if (devs[i] == dev)
				break;
		if (i < n)
			continue;
		if (n == max) {
			snprintf(err, VXT_ERRBUF_SIZE, "more than %zu objects", max);
			return -E2BIG;
		}
		devs[n++] = dev;
	}
	return (int)n;
}

static unsigned kind_of(const char *name, const char *devtype)
{
	if (!strcmp(devtype, "partition"))
		return VXT_OBJ_PARTITION;
	if (!strncmp(name, "dm-", 3))
		return VXT_OBJ_DM;
	if (!strncmp(name, "md", 2) && isdigit((unsigned char)name[2]))
		return VXT_OBJ_MD;
	if (!strncmp(name, "loop", 4) && isdigit((unsigned char)name[4]))
		return VXT_OBJ_LOOP;
	if (!strcmp(devtype, "disk"))
		return VXT_OBJ_DISK;
	return VXT_OBJ_OTHER;
}

int vxt_sysdev_describe(uint32_t dev, char name[32], unsigned *kind, uint64_t *size)
{
	char dir[256], path[320], line[128], devname[32] = "", devtype[32] = "";
	FILE *f;

	dev_dir(dev, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/uevent", dir);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "DEVNAME=", 8))
			snprintf(devname, sizeof(devname), "%.31s", line + 8);
		else if (!strncmp(line, "DEVTYPE=", 8))
			snprintf(devtype, sizeof(devtype), "%.31s", line + 8);
	}
	fclose(f);
	if (!devname[0])
		snprintf(devname, sizeof(devname), "%u:%u", VXT_SYSDEV_MAJOR(dev),
			 VXT_SYSDEV_MINOR(dev));
	if (name)
		snprintf(name, 32, "%s", devname);
	if (kind)
		*kind = kind_of(devname, devtype);
	if (size) {
		snprintf(path, sizeof(path), "%s/size", dir);
		*size = read_line(path, line, sizeof(line)) == 0 ?
			strtoull(line, NULL, 10) * 512 : 0;
	}
	return 0;
}

int vxt_sysdev_partition(uint32_t dev, uint32_t *disk, uint64_t *start)
{
	char dir[256], path[320], line[64];

	dev_dir(dev, dir, sizeof(dir));
	if (access(dir, F_OK) < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/partition", dir);
	if (access(path, F_OK) < 0) {
		*disk = dev;
		*start = 0;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/start", dir);
	if (read_line(path, line, sizeof(line)) < 0)
		return -ENOENT;
	*start = strtoull(line, NULL, 10);
	snprintf(path, sizeof(path), "%s/../dev", dir);
	if (read_line(path, line, sizeof(line)) < 0 || parse_majmin(line, disk) < 0)
		return -ENOENT;
	return 1;
}

bool vxt_sysdev_is_mq(uint32_t dev)
{
	char dir[256], path[320];

	dev_dir(dev, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/mq", dir);
	return access(path, F_OK) == 0;
}

int vxt_sysdev_inflight(uint32_t dev, uint64_t *n)
{
	char dir[256], path[320], line[64];
	unsigned long long rd, wr;
	uint32_t disk;
	uint64_t start;

	if (vxt_sysdev_partition(dev, &disk, &start) < 0)
		return -ENOENT;
	dev_dir(disk, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/queue/iostats", dir);
	if (read_line(path, line, sizeof(line)) < 0 || strcmp(line, "1"))
		return -EOPNOTSUPP;
	dev_dir(dev, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/inflight", dir);
	if (read_line(path, line, sizeof(line)) < 0 ||
	    sscanf(line, "%llu %llu", &rd, &wr) != 2)
		return -ENOENT;
	*n = rd + wr;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void vxt_sysdev_names(char *buf, size_t size)
{
	char path[512], *names[512];
	struct dirent *d;
	size_t n = 0, len = 0, i;
	DIR *dir;

	snprintf(buf, size, "none");
	snprintf(path, sizeof(path), "%s/class/block", sysfs_root());
	dir = opendir(path);
	if (!dir)
		return;
	while (n < sizeof(names) / sizeof(names[0]) && (d = readdir(dir)))
		if (d->d_name[0] != '.' && (names[n] = strdup(d->d_name)))
			n++;
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmp_name);
	for (i = 0; i < n; i++) {
		size_t k = strlen(names[i]) + (i ? 2 : 0);

		if (len + k + 4 >= size) {
			snprintf(buf + len, size - len, "%s...", len ? ", " : "");
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
}
