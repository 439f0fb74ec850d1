/* event.c - names of event phases, operations and flags */
#include <stdio.h>
#include <string.h>

#include "vxtrace/event.h"

static const char *const phase_names[VXT_PH_COUNT] = {
	[VXT_PH_START] = "start",   [VXT_PH_DONE] = "done",     [VXT_PH_REQUEUE] = "requeue",
	[VXT_PH_LOST] = "lost",     [VXT_PH_MARK] = "mark",     [VXT_PH_QUEUE] = "queue",
	[VXT_PH_MERGE] = "merge",   [VXT_PH_INSERT] = "insert", [VXT_PH_PLUG] = "plug",
	[VXT_PH_UNPLUG] = "unplug", [VXT_PH_REMAP] = "remap",   [VXT_PH_SPLIT] = "split",
	[VXT_PH_GETRQ] = "getrq",
};

static const char *const op_names[VXT_OP_COUNT] = {
	[VXT_OP_READ] = "read",		[VXT_OP_WRITE] = "write",
	[VXT_OP_FLUSH] = "flush",	[VXT_OP_DISCARD] = "discard",
	[VXT_OP_WRITE_ZEROES] = "write-zeroes", [VXT_OP_PASSTHRU] = "passthru",
	[VXT_OP_OTHER] = "other",
};

static const char op_letters[VXT_OP_COUNT] = "RWFDZPN";

static const char *const flag_names[] = {
	"sync", "fua", "meta", "preflush", "recovery", "rahead", "bio",
};

const char *vxt_phase_name(unsigned phase)
{
	return phase < VXT_PH_COUNT ? phase_names[phase] : "?";
}

const char *vxt_op_name(unsigned op)
{
	return op < VXT_OP_COUNT ? op_names[op] : "?";
}

char vxt_op_letter(unsigned op)
{
	return op < VXT_OP_COUNT ? op_letters[op] : '?';
}

int vxt_phase_parse(const char *s)
{
	for (int i = 0; i < VXT_PH_COUNT; i++)
		if (!strcmp(s, phase_names[i]))
			return i;
	return -1;
}

int vxt_op_parse(const char *s)
{
	for (int i = 0; i < VXT_OP_COUNT; i++)
		if (!strcmp(s, op_names[i]))
			return i;
	if (!strcmp(s, "write_zeroes"))
		return VXT_OP_WRITE_ZEROES;
	return -1;
}

char *vxt_flags_format(unsigned flags, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		if (!(flags & (1u << i)))
			continue;
		int n = snprintf(buf + len, size > len ? size - len : 0, "%s%s",
				 len ? "|" : "", flag_names[i]);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

unsigned vxt_flag_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (!strcmp(s, flag_names[i]))
			return 1u << i;
	return 0;
}
