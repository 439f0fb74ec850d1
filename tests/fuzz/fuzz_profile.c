/* fuzz_profile.c - libFuzzer target for the YAML profile loader
 *
 * The input is a profile's text. It either loads or is refused with one
 * "fuzz.yaml:LINE:COL: message" line; a loaded profile is freed again. The
 * limits of the loader (aliases, nesting, sizes) keep every input cheap,
 * which the fuzzer's timeout and memory limit check.
 */
#include <stdint.h>
#include <string.h>

#include "vxtrace/profile.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p;

	err[0] = '\0';
	p = vxt_profile_parse((const char *)data, size, "fuzz.yaml", err);
	if (!p) {
		check(!strncmp(err, "fuzz.yaml:", 10));
		for (const char *m = err; *m; m++)	/* one line, no terminal controls */
			check((unsigned char)*m >= 0x20 && *m != 0x7f);
		return 0;
	}
	vxt_profile_free(p);
	return 0;
}
