/* kmod_spec.c - the buffers a kernel speculation takes in the module
 *
 * The module preallocates nspec buffers of specsize bytes for a channel's
 * speculation program, at most its spec_max_bytes in all (64 MiB unless
 * set). The sizes are the profile's: keyed by object, a buffer serves one
 * object, so no more buffers than the objects traced are asked for (a
 * partition, a whole device and its partitions, or every block device
 * there is when the capture starts); keyed by request, a buffer holds one
 * I/O's life, at most its start and 15 requeues. A profile whose sizes
 * still do not fit runs in user space, and vxt_kmod_spec_toobig() says why.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source/kmod_spec.h"
#include "vxtrace/sysdev.h"

#define KEY_OBJECT	0u	/* enum vxt_spec_key */
#define KEY_REQUEST	3u
#define SPEC_MAX_PARAM	"/sys/module/vxtrace/parameters/spec_max_bytes"

/* Entries of directory @path for which @path/ENTRY/@file exists (NULL:
 * every entry but dot files). */
static unsigned count_entries(const char *path, const char *file)
{
	char p[512];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir = opendir(path);

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (file) {
			snprintf(p, sizeof(p), "%s/%s/%s", path, d->d_name, file);
			if (access(p, F_OK) != 0)
				continue;
		}
		n++;
	}
	closedir(dir);
	return n;
}

unsigned vxt_kmod_spec_objects(const union voliot_want_set *sets, int n)
{
	char path[64];
	unsigned objs = 0;
	int i;

	for (i = 0; i < n; i++) {
		switch (sets[i].type) {
		case VOLIOT_WANT_DEV:
			objs++;
			break;
		case VOLIOT_WANT_DISK:
			snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
				 VXT_SYSDEV_MAJOR(sets[i].disk.dev), VXT_SYSDEV_MINOR(sets[i].disk.dev));
			objs += 1 + count_entries(path, "partition");
			break;
		default:	/* every device (or a major's): as many as there are */
			return count_entries("/sys/class/block", NULL);
		}
	}
	return objs;
}

int vxt_kmod_spec_size(const struct vxt_kspec *ks, const union voliot_want_set *sets, int n,
		       uint32_t *nspec, uint32_t *specsize, char *why, size_t len)
{
	uint64_t size = ks->specsize;
	unsigned buffers = ks->nspec;

	if (ks->key == KEY_OBJECT) {
		unsigned objs = vxt_kmod_spec_objects(sets, n);

		if (objs && objs < buffers)
			buffers = objs;
	}
	if (ks->key == KEY_REQUEST && size > VXT_KMOD_SPEC_REQ_SIZE)
		size = VXT_KMOD_SPEC_REQ_SIZE;
	if (size > UINT32_MAX) {
		snprintf(why, len, "its specsize %llu is past the module's largest buffer (4 GiB)",
			 (unsigned long long)size);
		return -E2BIG;
	}
	*nspec = buffers;
	*specsize = (uint32_t)size;
	return 0;
}

/* @v bytes as "N MiB" when a whole number of them, else "N bytes". */
static const char *bytes(uint64_t v, char *buf, size_t len)
{
	if (v && !(v % (1u << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v && !(v % (1u << 10)))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	return buf;
}

void vxt_kmod_spec_toobig(uint32_t nspec, uint32_t specsize, unsigned key_objects,
			  char *why, size_t len)
{
	char a[32], b[32], c[32] = "";
	unsigned long long max = 0;
	FILE *f = fopen(SPEC_MAX_PARAM, "r");

	if (f) {
		if (fscanf(f, "%llu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max)
		snprintf(c, sizeof(c), " (%s)", bytes(max, a, sizeof(a)));
	snprintf(why, len, "its %u buffers%s x %s = %s do not fit the module's spec_max_bytes%s",
		 nspec, key_objects ? " (one per object)" : "", bytes(specsize, b, sizeof(b)),
		 bytes((uint64_t)nspec * specsize, a, sizeof(a)), c);
}
