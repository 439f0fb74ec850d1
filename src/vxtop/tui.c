/* tui.c - vxtop's live screens */
#include <stdio.h>

#include "vxtop.h"

int vxtop_tui(struct vxtop_collector *c, struct vxtop_cfg *cfg)
{
	(void)c;
	(void)cfg;
	fprintf(stderr, "vxtop: the live screens are not built in; use -b\n");
	return 2;
}
