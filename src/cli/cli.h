/* cli.h - the command-line conventions vxrecord, vxreplay and vxtop share
 *
 * One usage-error line, "PROG: MESSAGE (see PROG --help)" with exit status 2;
 * numbers read one way; the script's arguments after "--", as dtrace's.
 */
#ifndef VXT_CLI_H
#define VXT_CLI_H

#include <stdint.h>

#define CLI_EXIT_USAGE 2

/* Print "@prog: MESSAGE (see @prog --help)" on stderr, MESSAGE being @fmt
 * with @arg (any bytes: escaped). @return CLI_EXIT_USAGE. */
int cli_usage_error(const char *prog, const char *fmt, const char *arg);

/* Read @s as a whole unsigned decimal number: no sign, no empty string, no
 * trailing text, no overflow. @return 0, or -1 (@v undefined). */
int cli_parse_uint(const char *s, uint64_t *v);

/* Cut the command line at the first "--": what follows it goes to the
 * script ($1 ...) through @margs and @nmargs (NULL and 0 when there is no
 * "--"), and *@argc shrinks to what precedes it. Can't fail. */
void cli_split_script_args(int *argc, char **argv, char ***margs, unsigned *nmargs);

#endif
