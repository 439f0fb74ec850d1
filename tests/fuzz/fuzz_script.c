/* fuzz_script.c - libFuzzer target for the D-style script compiler and engine
 *
 * The input is a D script (f.d), checked and run by script_fuzz.h's harness.
 */
#include "script_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return script_fuzz_one(data, size, "f.d", false);
}
