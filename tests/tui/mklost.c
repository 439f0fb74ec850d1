/* mklost.c - writes a small trace with lost-event records at known times,
 * for the lost-event tests of the browser and of vxtop.
 *   usage: mklost FILE
 *          mklost FILE live
 * 10 s of reads on one disk, one I/O every 10 ms; at 2.5 s a lost record of
 * 1000 events and at 7.5 s one of 234.
 * With "live" the same trace is written as it happens, at the clock's pace,
 * a chunk every 100 ms, for a follower to watch.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vxtrace/vxtrace.h"

static void pace(struct vxt_writer *w, uint64_t until_mono)
{
	struct timespec ts;
	uint64_t now = vxt_now_mono();

	vxt_writer_flush(w);
	if (until_mono <= now)
		return;
	ts.tv_sec = (time_t)((until_mono - now) / 1000000000ull);
	ts.tv_nsec = (long)((until_mono - now) % 1000000000ull);
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	bool live = argc == 3 && !strcmp(argv[2], "live");
	struct vxt_writer_opts o = { .force = true, .source = "test", .host = "testhost",
				     .anchor_mono_ns = 1000000000ull,
				     .anchor_real_ns = 1767225600000000000ull };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_writer *w;
	struct vxt_event ev;
	uint64_t t0 = 1000000000ull;

	if ((argc != 2 && !live) || !objs || !strs)
		return 2;
	if (live) {
		o.anchor_mono_ns = o.anchor_real_ns = 0;	/* now */
		t0 = vxt_now_mono();
	}
	vxt_objtab_add(objs, 8 << 20, "sda", VXT_OBJ_DISK, 0);
	w = vxt_writer_open(argv[1], &o, objs, strs, err);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (int i = 0; i < 1000; i++) {
		if (live && i % 10 == 0)
			pace(w, t0 + (uint64_t)i * 10000000ull);
		memset(&ev, 0, sizeof(ev));
		ev.time_ns = t0 + (uint64_t)i * 10000000ull;
		ev.phase = VXT_PH_DONE;
		ev.op = VXT_OP_READ;
		ev.sector = (uint64_t)i * 8;
		ev.bytes = 4096;
		ev.latency_ns = 100000;
		if (vxt_writer_write(w, &ev, 1) < 0)
			return 1;
		if (i == 250 || i == 750) {
			memset(&ev, 0, sizeof(ev));
			ev.time_ns = t0 + (uint64_t)i * 10000000ull + 1;
			ev.phase = VXT_PH_LOST;
			ev.sector = i == 250 ? 1000 : 234;
			if (vxt_writer_write(w, &ev, 1) < 0)
				return 1;
		}
	}
	if (vxt_writer_close(w, err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}
