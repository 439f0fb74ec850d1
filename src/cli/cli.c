/* cli.c - the command-line conventions vxrecord, vxreplay and vxtop share
 *
 * tests/cli/conventions.sh checks what the programs make of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/escape.h"
#include "cli.h"

int cli_usage_error(const char *prog, const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);	/* @arg may hold anything: escaped */
	fprintf(stderr, "%s: ", prog);
	vxt_fputs_text(msg, stderr);
	fprintf(stderr, " (see %s --help)\n", prog);
	return CLI_EXIT_USAGE;
}

int cli_parse_uint(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

void cli_split_script_args(int *argc, char **argv, char ***margs, unsigned *nmargs)
{
	for (int i = 1; i < *argc; i++)
		if (!strcmp(argv[i], "--")) {
			*margs = argv + i + 1;
			*nmargs = (unsigned)(*argc - i - 1);
			*argc = i;
			return;
		}
}
