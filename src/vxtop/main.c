/* main.c - vxtop: live view of block I/O per object */
#include <stdio.h>

#include "vxtrace/vxtrace.h"

int main(void)
{
	fprintf(stderr, "vxtop %s: live view not built in this tree\n", vxt_version());
	return 1;
}
