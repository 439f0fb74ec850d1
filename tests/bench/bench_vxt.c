/* bench_vxt.c - speed and size of the .vxt writer and reader on the
 * simulator's mixed workload, with zstd -3 on the same events as raw 48-byte
 * blktrace records as the peer.
 * Times are CPU time of the process (one thread), so a busy machine skews
 * them less than wall time would.
 *   usage: bench_vxt [EVENTS] [DIR]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "vxtrace/vxtrace.h"

/* struct blk_io_trace of blktrace_api.h: 48 bytes */
struct blk_rec {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The summary's pass: the fields the stats read, chunks from the scanner
 * with @threads helpers. @return events seen. */
static uint64_t summary_pass(const char *path, unsigned threads, uint64_t *ios)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = vxt_reader_open(path, err);
	struct vxt_scan *s;
	struct vxt_stats st;
	struct vxt_objstats total;
	const struct vxt_event *ev;
	size_t chunk, n;
	uint64_t seen = 0;

	if (!r || !(s = vxt_scan_start(r, 0, VXT_FIELD_BYTES | VXT_FIELD_LATENCY |
				       VXT_FIELD_ERROR | VXT_FIELD_LOST_COUNT, threads))) {
		fprintf(stderr, "bench_vxt: %s\n", r ? "out of memory" : err);
		exit(1);
	}
	vxt_stats_init(&st);
	while (vxt_scan_next(s, &chunk, &ev, &n) == 1) {
		vxt_stats_add_many(&st, ev, n);
		seen += n;
	}
	vxt_stats_total(&st, &total);
	*ios = vxt_objstats_ios(&total);
	vxt_objstats_free(&total);
	vxt_stats_free(&st);
	vxt_scan_stop(s);
	vxt_reader_close(r);
	return seen;
}

/* CPU time of this process: the machine may be shared, wall time would lie. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double secs(uint64_t a, uint64_t b)
{
	return (double)(b - a) / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	char path[512], err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	struct vxt_source_opts so = { .seed = 1, .count = n };
	struct vxt_source *src = vxt_source_open("sim", &so, objs, strs, err);
	struct vxt_batch b = { 0 };
	struct vxt_writer_opts wo = { .force = true, .source = "sim", .host = "bench" };
	struct vxt_writer *w;
	struct vxt_reader *r;
	struct vxt_stats st;
	struct vxt_objstats total;
	const struct vxt_event *ev;
	struct stat fs;
	uint64_t t0, t1, scanned = 0;
	struct blk_rec *blk;
	size_t zcap, zlen;
	void *zbuf;
	int rc;

	if (!src) {
		fprintf(stderr, "bench_vxt: %s\n", err);
		return 1;
	}
	while ((rc = vxt_source_next(src, &b, -1)) == 1)
		;
	vxt_source_close(src);
	n = b.n;
	snprintf(path, sizeof(path), "%s/bench-%d.vxt", dir, (int)getpid());

	t0 = cpu_ns();
	w = vxt_writer_open(path, &wo, objs, strs, err);
	if (!w || vxt_writer_write(w, b.ev, n) < 0 || vxt_writer_close(w, err) < 0) {
		fprintf(stderr, "bench_vxt: %s\n", err);
		return 1;
	}
	t1 = cpu_ns();
	stat(path, &fs);
	printf("events: %zu\n", n);
	printf("write: %.3f s, %.2f M events/s, %.2f bytes/event (%lld bytes)\n", secs(t0, t1),
	       (double)n / secs(t0, t1) / 1e6, (double)fs.st_size / (double)n,
	       (long long)fs.st_size);

	t0 = cpu_ns();
	r = vxt_reader_open(path, err);
	if (!r) {
		fprintf(stderr, "bench_vxt: %s\n", err);
		return 1;
	}
	vxt_stats_init(&st);
	while (vxt_reader_next(r, &ev) == 1) {
		vxt_stats_add(&st, ev);
		scanned++;
	}
	t1 = cpu_ns();
	vxt_stats_total(&st, &total);
	printf("scan (open + every event + stats): %.3f s, %.2f M events/s, %llu I/Os\n",
	       secs(t0, t1), (double)scanned / secs(t0, t1) / 1e6,
	       (unsigned long long)vxt_objstats_ios(&total));
	vxt_objstats_free(&total);
	vxt_stats_free(&st);
	vxt_reader_close(r);

	/* the summary report's pass: one thread (CPU time), then with helper
	 * threads (wall time: what they buy is elapsed time) */
	{
		unsigned th = vxt_scan_default_threads();
		uint64_t ios, seen, w0, w1;

		t0 = cpu_ns();
		seen = summary_pass(path, 0, &ios);
		t1 = cpu_ns();
		printf("summary pass, one thread: %.3f s CPU, %.2f M events/s, %llu I/Os\n",
		       secs(t0, t1), (double)seen / secs(t0, t1) / 1e6, (unsigned long long)ios);
		t0 = cpu_ns();
		w0 = wall_ns();
		seen = summary_pass(path, th, &ios);
		w1 = wall_ns();
		t1 = cpu_ns();
		printf("summary pass, %u helper threads: %.3f s wall (%.3f s CPU), "
		       "%.2f M events/s\n", th, secs(w0, w1), secs(t0, t1),
		       (double)seen / secs(w0, w1) / 1e6);
	}

	/* the peer: the same events as blktrace records, zstd -3 */
	blk = calloc(n, sizeof(*blk));
	for (size_t i = 0; i < n; i++) {
		const struct vxt_event *e = &b.ev[i];

		blk[i].magic = 0x65617407;
		blk[i].sequence = (uint32_t)i;
		blk[i].time = e->time_ns;
		blk[i].sector = e->sector;
		blk[i].bytes = e->bytes;
		blk[i].action = (e->phase == VXT_PH_DONE ? 8 : 7) | (e->op == VXT_OP_WRITE ? 1u << 17 : 1u << 16);
		blk[i].pid = e->pid;
		blk[i].device = vxt_objtab_get(objs, e->object)->dev;
		blk[i].cpu = e->cpu;
		blk[i].error = (uint16_t)-e->error;
	}
	zcap = ZSTD_compressBound(n * sizeof(*blk));
	zbuf = malloc(zcap);
	t0 = cpu_ns();
	zlen = ZSTD_compress(zbuf, zcap, blk, n * sizeof(*blk), 3);
	t1 = cpu_ns();
	printf("peer zstd -3 on %zu-byte blktrace records: %.3f s, %.2f M events/s, "
	       "%.2f bytes/event\n", sizeof(*blk), secs(t0, t1), (double)n / secs(t0, t1) / 1e6,
	       (double)zlen / (double)n);
	printf("ratio: vxt file is %.2fx smaller than zstd -3 of blktrace records\n",
	       (double)zlen / (double)fs.st_size);
	t0 = cpu_ns();
	if (ZSTD_decompress(blk, n * sizeof(*blk), zbuf, zlen) != n * sizeof(*blk))
		fprintf(stderr, "bench_vxt: peer decompression failed\n");
	t1 = cpu_ns();
	printf("peer zstd -d of those records: %.3f s, %.2f M events/s\n", secs(t0, t1),
	       (double)n / secs(t0, t1) / 1e6);
	unlink(path);
	free(zbuf);
	free(blk);
	vxt_batch_free(&b);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}
