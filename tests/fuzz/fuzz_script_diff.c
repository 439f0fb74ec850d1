/* fuzz_script_diff.c - libFuzzer target: a script run event by event and in
 * batches
 *
 * The input chooses a script (expressions nested up to 8 levels, chains of
 * up to 510 operators, past the depth limit) and the events it runs over
 * (script_diff.h); vxt_script_push() and vxt_script_push_many() run it and
 * must print the same records, count the same statistics and exit with the
 * same status. A difference traps, with the script and both outputs on
 * stderr; a crash or undefined behaviour traps under the sanitizers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_diff.h"

static struct vxt_objtab *objs;
static struct vxt_strtab *strs;

static void init(void)
{
	static const char *const names[] = { "sda", "sdb1", "dm-0" };
	static const char *const comms[] = { "fio", "kworker/u8:2", "dd" };

	objs = vxt_objtab_new();
	strs = vxt_strtab_new();
	if (!objs || !strs)
		abort();
	for (unsigned i = 0; i < 3; i++) {
		vxt_objtab_add(objs, 8 << 20 | i, names[i], vxt_obj_kind_guess(names[i]), 1 << 30);
		vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *script = NULL;

	if (!objs)
		init();
	if (diff_engines(data, size, objs, strs, &script)) {
		fprintf(stderr, "the entry points differ on:\n%s", script);
		free(script);
		__builtin_trap();
	}
	return 0;
}
