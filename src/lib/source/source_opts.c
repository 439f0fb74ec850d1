/* source_opts.c - the source options of the command line, parsed once
 *
 * vxrecord and vxtop open sources with the same options; this is the one
 * place that says what each one accepts (see vxt_source_option() in
 * vxtrace/source.h). A program offers the ones that make sense for it in its
 * getopt table and hands each to vxt_source_option().
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/source.h"
#include "vxtrace/sysdev.h"

#define RATE_MAX 1e9	/* simulated events per second */
#define OBJECTS_MAX 256	/* names checked in one --objects list */

static int bad(char *err, const char *name, const char *what, const char *arg)
{
	snprintf(err, VXT_ERRBUF_SIZE, "--%s: bad %s '%s'", name, what, arg ? arg : "");
	return -EINVAL;
}

static int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/* --objects: a list naming at least one device, each one of this system's
 * (an unknown name is bad usage, as README's exit status says). The sources
 * resolve the list again as they open. @return 0, or -EINVAL with the message
 * and the names the list may hold in @err. */
static int objects_check(const char *arg, char err[VXT_ERRBUF_SIZE])
{
	uint32_t devs[OBJECTS_MAX];
	char why[VXT_ERRBUF_SIZE], names[160];
	int n;

	n = arg ? vxt_sysdev_resolve(arg, devs, OBJECTS_MAX, why) : 0;
	if (n > 0)
		return 0;
	vxt_sysdev_names(names, sizeof(names));
	if (n == 0)
		snprintf(err, VXT_ERRBUF_SIZE, "--objects: no object named in '%.64s' (block "
			 "devices here: %s)", arg ? arg : "", names);
	else
		snprintf(err, VXT_ERRBUF_SIZE, "--objects: %.80s (block devices here: %s)", why,
			 names);
	return -EINVAL;
}

int vxt_source_option(struct vxt_source_opts *o, const char *name, const char *arg,
		      char err[VXT_ERRBUF_SIZE])
{
	uint64_t v;
	double d;
	char *end;

	if (!strcmp(name, "objects")) {
		if (objects_check(arg, err) < 0)
			return -EINVAL;
		o->objects = arg;
	} else if (!strcmp(name, "bufsize")) {
		if (!arg || vxt_parse_size(arg, &v) < 0 || v > SIZE_MAX || !v)
			return bad(err, name, "size", arg);
		o->bufsize = (size_t)v;
	} else if (!strcmp(name, "phases")) {
		if (!arg || (strcmp(arg, "issue") && strcmp(arg, "all")))
			return bad(err, name, "capture level (issue or all)", arg);
		o->all_phases = !strcmp(arg, "all");
	} else if (!strcmp(name, "errors")) {
		o->errors = true;
	} else if (!strcmp(name, "seed")) {
		if (parse_u64(arg, &v) < 0)
			return bad(err, name, "number", arg);
		o->seed = v;
	} else if (!strcmp(name, "rate")) {
		if (!arg || !*arg)
			return bad(err, name, "rate", arg);
		errno = 0;
		d = strtod(arg, &end);
		if (errno || *end || !(d > 0) || isinf(d) || d > RATE_MAX)
			return bad(err, name, "rate", arg);
		o->rate = d;
	} else if (!strcmp(name, "sim-objects")) {
		o->sim_objects = arg;
	} else if (!strcmp(name, "sim-errors")) {
		o->sim_errors = arg;
	} else if (!strcmp(name, "clock-offset")) {
		bool neg = arg && *arg == '-';

		if (!arg || vxt_parse_duration(arg + neg, &v) < 0 || v > INT64_MAX)
			return bad(err, name, "duration", arg);
		o->clock_offset_ns = neg ? -(int64_t)v : (int64_t)v;
	} else if (!strcmp(name, "realtime")) {
		o->realtime = true;
	} else {
		return 0;
	}
	return 1;
}
