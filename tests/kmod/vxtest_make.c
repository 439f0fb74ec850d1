/* vxtest_make.c - helper subcommands of the guest script that make devices:
 * an MBR partition table, device-mapper and md (RAID-1) devices */
#include "vxtest.h"

/* mbr DEV START COUNT: one Linux partition, then re-read the table. */
int make_mbr(const char *path, uint32_t start, uint32_t count)
{
	uint8_t mbr[512];
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(mbr, 0, sizeof(mbr));
	mbr[446 + 4] = 0x83;
	memcpy(mbr + 446 + 8, &start, 4);
	memcpy(mbr + 446 + 12, &count, 4);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	if (pwrite(fd, mbr, sizeof(mbr), 0) != sizeof(mbr) || fsync(fd) ||
	    ioctl(fd, BLKRRPART) < 0) {
		perror("mbr");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/* Helpers for the guest script. */

static int dm_ioctl(int ctl, unsigned long cmd, const char *name, void *extra,
		    size_t extra_len, uint32_t target_count)
{
	char buf[16384];
	struct dm_ioctl *io = (void *)buf;

	memset(buf, 0, sizeof(buf));
	io->version[0] = DM_VERSION_MAJOR;
	io->data_size = sizeof(buf);
	io->data_start = sizeof(*io);
	io->target_count = target_count;
	snprintf(io->name, sizeof(io->name), "%s", name);
	if (extra)
		memcpy(buf + sizeof(*io), extra, extra_len);
	return ioctl(ctl, cmd, io) < 0 ? -errno : 0;
}

int dm_create(const char *name, uint64_t sectors, const char *target,
	      const char *params)
{
	char spec_buf[4096];
	struct dm_target_spec *spec = (void *)spec_buf;
	size_t len;
	int ctl, rc;

	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		perror("/dev/mapper/control");
		return 1;
	}
	rc = dm_ioctl(ctl, DM_DEV_CREATE, name, NULL, 0, 0);
	if (rc) {
		fprintf(stderr, "DM_DEV_CREATE: %s\n", strerror(-rc));
		return 1;
	}
	memset(spec_buf, 0, sizeof(spec_buf));
	spec->sector_start = 0;
	spec->length = sectors;
	snprintf(spec->target_type, sizeof(spec->target_type), "%s", target);
	snprintf(spec_buf + sizeof(*spec), sizeof(spec_buf) - sizeof(*spec), "%s",
		 params ? params : "");
	len = sizeof(*spec) + strlen(spec_buf + sizeof(*spec)) + 1;
	len = (len + 7) & ~(size_t)7;
	spec->next = 0;
	rc = dm_ioctl(ctl, DM_TABLE_LOAD, name, spec, len, 1);
	if (rc) {
		fprintf(stderr, "DM_TABLE_LOAD: %s\n", strerror(-rc));
		return 1;
	}
	rc = dm_ioctl(ctl, DM_DEV_SUSPEND, name, NULL, 0, 0);	/* resume */
	if (rc) {
		fprintf(stderr, "DM_DEV_SUSPEND: %s\n", strerror(-rc));
		return 1;
	}
	close(ctl);
	return 0;
}

/* md-create MDDEV KIB DEV...: a RAID-1 md array of the DEVs without
 * superblocks (mdadm --build --level=1 --assume-clean: member sector S is
 * array sector S, no resync writes), each mirror KIB KiB. */
int md_create(const char *md, int kib, char *const *devs, int n)
{
	mdu_array_info_t a;
	struct stat st;
	int fd, i;

	if (stat(md, &st) < 0 && mknod(md, S_IFBLK | 0600, makedev(MD_MAJOR, 0)) < 0) {
		perror(md);
		return 1;
	}
	fd = open(md, O_RDWR);
	if (fd < 0) {
		perror(md);
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.level = 1;
	a.size = kib;
	a.nr_disks = a.raid_disks = a.active_disks = a.working_disks = n;
	a.not_persistent = 1;
	a.state = 1 << MD_SB_CLEAN;
	if (fstat(fd, &st) == 0)
		a.md_minor = (int)minor(st.st_rdev);
	if (ioctl(fd, SET_ARRAY_INFO, &a) < 0) {
		fprintf(stderr, "%s: SET_ARRAY_INFO: %s\n", md, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		mdu_disk_info_t d;

		if (stat(devs[i], &st) < 0 || !S_ISBLK(st.st_mode)) {
			fprintf(stderr, "%s: not a block device\n", devs[i]);
			return 1;
		}
		memset(&d, 0, sizeof(d));
		d.number = d.raid_disk = i;
		d.state = (1 << MD_DISK_SYNC) | (1 << MD_DISK_ACTIVE);
		d.major = (int)major(st.st_rdev);
		d.minor = (int)minor(st.st_rdev);
		if (ioctl(fd, ADD_NEW_DISK, &d) < 0) {
			fprintf(stderr, "%s: ADD_NEW_DISK %s: %s\n", md, devs[i], strerror(errno));
			return 1;
		}
	}
	if (ioctl(fd, RUN_ARRAY, NULL) < 0) {
		fprintf(stderr, "%s: RUN_ARRAY: %s\n", md, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}
