/* crc32c.c - CRC-32C (Castagnoli): the SSE4.2 crc32 instruction where the
 * CPU has it, else table driven, slicing by 8 */
#include <stdint.h>
#include <string.h>

#include "vxtrace/util.h"

static uint32_t table[8][256];
static int table_ready;

static void crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
	__atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = ~crc;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

static int have_hw(void)
{
	static int hw = -1;	/* (threads may ask at once) */
	int v = __atomic_load_n(&hw, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		__atomic_store_n(&hw, v, __ATOMIC_RELAXED);
	}
	return v;
}
#endif

uint32_t vxt_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

#if defined(__x86_64__)
	if (have_hw())
		return crc32c_hw(crc, p, len);
#endif
	return vxt_crc32c_sw(crc, p, len);
}

uint32_t vxt_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE))
		crc32c_init();
	crc = ~crc;
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);	/* little-endian hosts only, as is the format */
		w ^= crc;
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
