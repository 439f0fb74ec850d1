/* bt_errors.c - the checker's messages in bpftrace's words, for a bpftrace
 * program: the checker is D's and words its refusals as dtrace does; the
 * ones a bpftrace user meets (a map or $variable given two types, a map
 * with two numbers of keys, a printf conversion against its argument, an
 * aggregation given two functions, arithmetic on a string) are said as
 * bpftrace says them, at the same file:line:col.
 */
#include <stdio.h>
#include <string.h>

#include "script/bt_impl.h"

static const char *bt_type(const char *d)
{
	return !strcmp(d, "int") ? "int64" : !strcmp(d, "string") ? "string" : d;
}

/* D's function name as bpftrace's (hist is D's quantize ...). */
static const char *bt_func(const char *d)
{
	return !strcmp(d, "quantize") ? "hist" : !strcmp(d, "lquantize") ? "lhist" : d;
}

void vxt_bt_reword(char *err, size_t size)
{
	char head[256], msg[VXT_ERRBUF_SIZE], out[VXT_ERRBUF_SIZE];
	char a[64], b[64], name[72];
	const char *m;
	unsigned n1, n2;
	size_t hl;

	/* "FILE:LINE:COL: message" */
	m = strstr(err, ": ");
	while (m && !(m > err && m[-1] >= '0' && m[-1] <= '9'))
		m = strstr(m + 2, ": ");
	if (!m || (hl = (size_t)(m - err)) >= sizeof(head) || !strncmp(m + 2, "ERROR", 5))
		return;
	memcpy(head, err, hl);
	head[hl] = '\0';
	snprintf(msg, sizeof(msg), "%s", m + 2);
	out[0] = '\0';
	if (sscanf(msg, "operands have incompatible types: %63s = %63s (%71s was", a, b,
		   name) == 3)
		snprintf(out, sizeof(out), "ERROR: Type mismatch for %s: trying to assign value "
			 "of type '%s' when %s already contains a value of type '%s'", name,
			 bt_type(b), name[0] == '@' ? "map" : "variable", bt_type(a));
	else if (sscanf(msg, "%71[^:]: %u keys here, %u where first used", name, &n1, &n2) == 3)
		snprintf(out, sizeof(out), "ERROR: Argument mismatch for %s: trying to access "
			 "with %u arguments when map expects %u arguments", name, n1, n2);
	else if (strstr(msg, "printf( ) argument #") && strstr(msg, "conversion: %") &&
		 sscanf(strstr(msg, "conversion: %"), "conversion: %63[^,], argument: %63s", a,
			b) == 2)
		snprintf(out, sizeof(out), "ERROR: printf: %s specifier expects a value of type "
			 "%s (%s supplied)", a, strchr("sc", a[strlen(a) - 1]) && a[0] ? "string" :
			 "integer", bt_type(b));
	else if (sscanf(msg, "aggregation redefined: %71s (current: %63[^(]( ), previous: "
			"%63[^(]", name, a, b) == 3)
		snprintf(out, sizeof(out), "ERROR: Type mismatch for %s: trying to assign value "
			 "of type '%s' when map already contains a value of type '%s'", name,
			 bt_func(a), bt_func(b));
	else if (sscanf(msg, "operator %63s requires operand", a) == 1)
		snprintf(out, sizeof(out), "ERROR: The %s operator can not be used on "
			 "expressions of type string", a);
	else if (sscanf(msg, "%63[^(]( ) argument #%u is incompatible with prototype: "
			"prototype: int, argument: %63s", a, &n1, b) == 3)
		snprintf(out, sizeof(out), "ERROR: %s() only supports integer arguments (%s "
			 "provided)", bt_func(a), bt_type(b));
	if (out[0])
		snprintf(err, size, "%s: %s", head, out);
}
