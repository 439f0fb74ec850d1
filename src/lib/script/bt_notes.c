/* bt_notes.c - what a bpftrace program says once at load: its warnings
 * (kstack, ksym: a recording holds no stacks) and, for a file that holds
 * only issue and completion, each probe of a phase the file lacks, naming
 * --phases all
 */
#include <stdio.h>
#include <string.h>

#include "script/bt_impl.h"

const char *vxt_script_notes(struct vxt_script *s, bool all_phases)
{
	struct sbt *b = s->bt;
	size_t n;

	if (!b)
		return "";
	snprintf(b->said, sizeof(b->said), "%s", b->notes);
	for (unsigned ph = 0; ph < VXT_PH_COUNT && !all_phases; ph++) {
		if (!(b->phases & (1u << ph)) || ph == VXT_PH_START || ph == VXT_PH_DONE ||
		    ph == VXT_PH_REQUEUE)
			continue;
		n = strlen(b->said);
		snprintf(b->said + n, sizeof(b->said) - n, "%.100s:%u:%u: WARNING: %s: the "
			 "recording holds no %s events, only issue and completion: the probe "
			 "%s (record with --phases all)\n", s->file, b->phase_line[ph],
			 b->phase_col[ph], b->phase_probe[ph], vxt_phase_name(ph),
			 b->phase_bio[ph] ? "fires only on bio-based devices' bios" :
			 "never fires");
	}
	return b->said;
}

bool vxt_script_is_bpftrace(const struct vxt_script *s)
{
	return s->bt != NULL;
}
