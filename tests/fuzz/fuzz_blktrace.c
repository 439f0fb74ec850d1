/* fuzz_blktrace.c - libFuzzer target for the blktrace importer
 *
 * The input is cut in two at a point drawn from it and written to two files,
 * given to the "blktrace" source as per-CPU files ("a,b") so the merge by
 * time runs too; a third of the inputs go whole as one file. Every event is
 * drained. Invariants: the source ends (0) or reports an error with a
 * message; events come out with known phases and ops and with object ids the
 * table has.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static int memfile(const uint8_t *p, size_t len, char *path, size_t pathlen)
{
	int fd = memfd_create("blk", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, p, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vxt_source_opts o = { 0 };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_batch b = { 0 };
	char err[VXT_ERRBUF_SIZE], pa[64], pb[64], paths[160];
	size_t cut = size % 3 == 0 ? size : size ? (data[0] * 48u + data[size - 1]) % size : 0;
	struct vxt_source *s;
	int fa, fb = -1, rc;

	check(objs && strs);
	fa = memfile(data, cut, pa, sizeof(pa));
	if (cut < size)
		fb = memfile(data + cut, size - cut, pb, sizeof(pb));
	if (fa < 0 || (cut < size && fb < 0))
		goto out;
	if (fb >= 0)
		snprintf(paths, sizeof(paths), "%s,%s", pa, pb);
	else
		snprintf(paths, sizeof(paths), "%s", pa);
	o.path = paths;
	s = vxt_source_open("blktrace", &o, objs, strs, err);
	if (!s) {
		check(err[0] != '\0');
		goto out;
	}
	while ((rc = vxt_source_next(s, &b, 0)) == 1) {
		for (size_t i = 0; i < b.n; i++) {
			const struct vxt_event *e = &b.ev[i];

			check(e->phase < VXT_PH_COUNT && e->op < VXT_OP_COUNT);
			check(e->phase == VXT_PH_LOST || e->object < vxt_objtab_count(objs));
			check(e->comm < vxt_strtab_count(strs));
		}
		b.n = 0;
	}
	check(rc == 0 || vxt_source_error(s)[0] != '\0');
	vxt_source_lost(s);
	vxt_source_note(s);
	vxt_source_close(s);
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	vxt_batch_free(&b);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}
