/* fuzz_bt.c - libFuzzer target for the bpftrace front-end and the engine
 *
 * The input is a bpftrace program (read as one by its name, f.bt), checked
 * and run by script_fuzz.h's harness over events of every phase.
 */
#include "script_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return script_fuzz_one(data, size, "f.bt", true);
}
