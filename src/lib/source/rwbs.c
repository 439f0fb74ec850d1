/* rwbs.c - parse the kernel's rwbs string (see rwbs.h) */
#include <string.h>

#include "source/rwbs.h"
#include "vxtrace/event.h"

void vxt_rwbs_parse(const char *rwbs, uint64_t sector, uint32_t nr_sector, uint8_t *op,
		    uint16_t *flags)
{
	const char *p = rwbs;

	*flags = 0;
	*op = VXT_OP_OTHER;
	/* a leading F is PREFLUSH when an op letter follows it */
	if (p[0] == 'F' && p[1] && strchr("RWDFN", p[1])) {
		*flags |= VXT_F_PREFLUSH;
		p++;
	}
	switch (*p) {
	case 'R': *op = VXT_OP_READ; break;
	case 'W': *op = VXT_OP_WRITE; break;
	case 'D':
		*op = VXT_OP_DISCARD;
		if (p[1] == 'E')	/* secure erase */
			p++;
		break;
	case 'F': *op = VXT_OP_FLUSH; break;
	case 'N':
		if (nr_sector)
			*op = VXT_OP_WRITE_ZEROES;
		else	/* a zone command has a sector and no length */
			*op = sector ? VXT_OP_OTHER : VXT_OP_PASSTHRU;
		break;
	default:
		return;
	}
	for (p++; *p; p++)
		switch (*p) {
		case 'F': *flags |= VXT_F_FUA; break;
		case 'A': *flags |= VXT_F_RAHEAD; break;
		case 'S': *flags |= VXT_F_SYNC; break;
		case 'M': *flags |= VXT_F_META; break;
		}
}
