/* fuzz_codec.c - libFuzzer target for the chunk column codec
 *
 * Two uses of each input. As events: the bytes become up to 2048 events
 * (fields brought into their valid ranges), encoded into a buffer of exactly
 * VXT_CODEC_BOUND(n) bytes and decoded again, which must give the same events
 * bit for bit (the oracle is the array itself). As a block: the bytes are
 * decoded as an encoded chunk of n events (n from the first byte), from a
 * buffer holding exactly the block and its VXT_CODEC_SLACK bytes; it is
 * accepted or refused, and an accepted block holds only valid events.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"

#define NOBJS 5
#define NSTRS 7

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void roundtrip(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct vxt_event), len;
	struct vxt_event *ev, *back;
	uint8_t *buf;

	if (n > 2048)
		n = 2048;
	ev = calloc(n + 1, sizeof(*ev));
	back = calloc(n + 1, sizeof(*back));
	buf = malloc(VXT_CODEC_BOUND(n));
	check(ev && back && buf);
	memcpy(ev, data, n * sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		struct vxt_event *e = &ev[i];

		e->phase %= VXT_PH_COUNT;
		e->op %= VXT_OP_COUNT;
		e->object %= NOBJS;
		e->comm %= NSTRS;
		if (e->error > 0 || e->error < -4095)
			e->error = (int16_t)-(e->error & 4095);
	}
	len = vxt_codec_encode(ev, n, buf);
	check(len + VXT_CODEC_SLACK <= VXT_CODEC_BOUND(n));
	check(vxt_codec_decode(buf, len, n, back, NOBJS, NSTRS) == 0);
	check(n == 0 || memcmp(ev, back, n * sizeof(*ev)) == 0);
	free(ev);
	free(back);
	free(buf);
}

static void hostile(const uint8_t *data, size_t size)
{
	size_t n = size ? data[0] * 3u + 1 : 1;
	struct vxt_event *ev = calloc(n, sizeof(*ev));
	uint8_t *blk = malloc(size + VXT_CODEC_SLACK);

	check(ev && blk);
	memcpy(blk, data, size);
	memset(blk + size, 0xff, VXT_CODEC_SLACK);	/* "never used": make it hurt */
	if (vxt_codec_decode(blk, size, n, ev, NOBJS, NSTRS) == 0) {
		for (size_t i = 0; i < n; i++) {
			check(ev[i].phase < VXT_PH_COUNT && ev[i].op < VXT_OP_COUNT);
			check(ev[i].object < NOBJS && ev[i].comm < NSTRS);
			check(ev[i].error <= 0 && ev[i].error >= -4095);
		}
	}
	free(ev);
	free(blk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roundtrip(data, size);
	hostile(data, size);
	return 0;
}
