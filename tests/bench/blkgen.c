/* blkgen.c - synthesise a blktrace capture for the import benchmark
 *
 *   blkgen PREFIX EVENTS [CPUS]
 * writes PREFIX.blktrace.0 .. CPUS-1 (little-endian records, version 7):
 * a TIMESTAMP and a PROCESS note, then I/Os as Q G I D C on a rotating CPU,
 * 4-64 KiB reads and writes at pseudo-random sectors, 1 in 1000 failing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/blktrace.h"
#include "../unit/fixture.h"

static void put(FILE *f, const struct vxt_blk_rec *r, const void *pdu)
{
	unsigned char buf[VXT_BLK_HDR_SIZE];

	vxt_blk_encode(buf, VXT_BLK_ORDER_LE, r);
	fwrite(buf, 1, sizeof(buf), f);
	if (pdu)
		fwrite(pdu, 1, r->pdu_len, f);
}

int main(int argc, char **argv)
{
	static const uint32_t acts[5] = { VXT_BLK_TA_QUEUE, VXT_BLK_TA_GETRQ, VXT_BLK_TA_INSERT,
					  VXT_BLK_TA_ISSUE, VXT_BLK_TA_COMPLETE };
	static const uint32_t cats[5] = { VXT_BLK_TC_QUEUE, VXT_BLK_TC_QUEUE, VXT_BLK_TC_QUEUE,
					  VXT_BLK_TC_ISSUE, VXT_BLK_TC_COMPLETE };
	uint64_t n, i, t = 1000000000ull, x = 88172645463325252ull;
	unsigned ncpu, c;
	struct vxt_blk_rec r = { .magic = VXT_BLK_MAGIC | VXT_BLK_VERSION, .pid = 4242,
				 .device = 8u << 20 };
	uint32_t words[2] = { 1764460800, 0 };
	char path[4096];
	FILE **f;

	if (argc < 3)
		return fprintf(stderr, "usage: blkgen PREFIX EVENTS [CPUS]\n"), 2;
	n = strtoull(argv[2], NULL, 10);
	ncpu = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
	f = calloc(ncpu, sizeof(*f));
	for (c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s.blktrace.%u", argv[1], c);
		f[c] = fopen(path, "wb");
		if (!f[c])
			return perror(path), 1;
		setvbuf(f[c], NULL, _IOFBF, 1 << 20);
	}
	r.action = VXT_BLK_TC_NOTIFY << VXT_BLK_TC_SHIFT | VXT_BLK_TN_TIMESTAMP;
	r.pdu_len = 8;
	r.time = t;
	put(f[0], &r, words);
	r.action = VXT_BLK_TC_NOTIFY << VXT_BLK_TC_SHIFT | VXT_BLK_TN_PROCESS;
	r.pdu_len = 16;
	put(f[0], &r, "fio\0\0\0\0\0\0\0\0\0\0\0\0");
	r.pdu_len = 0;
	for (i = 0; i + 5 <= n; i += 5) {
		uint32_t rw = x & 1 ? VXT_BLK_TC_WRITE : VXT_BLK_TC_READ;
		int k;

		ut_rand(&x);
		r.sector = (x >> 8) % (1ull << 31) & ~7ull;
		r.bytes = (uint32_t)(4096u << (x >> 60 & 3));
		c = (unsigned)(i / 5 % ncpu);
		for (k = 0; k < 5; k++) {
			t += 1000 + (x >> 40 & 1023);
			r.time = t;
			r.cpu = c;
			r.sequence++;
			r.action = (cats[k] | rw) << VXT_BLK_TC_SHIFT | acts[k];
			r.error = k == 4 && x % 1000 == 0 ? (uint16_t)-5 : 0;
			put(f[c], &r, NULL);
		}
	}
	for (c = 0; c < ncpu; c++)
		if (fclose(f[c]) != 0)
			return perror("write"), 1;
	return 0;
}
