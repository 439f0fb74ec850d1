/* script_names.c - what a D script may name: the event fields, the
 * functions, errno names (EIO, ENOSPC, ...) and the options of `#pragma D
 * option` and -x (nspec, specsize, cleanrate, bufsize, aggsize, quiet, ...),
 * with their values checked
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"

static const char *const field_names[SF_COUNT] = {
	[SF_TIME] = "time", [SF_OBJECT] = "object", [SF_DEV] = "dev", [SF_PHASE] = "phase",
	[SF_OP] = "op", [SF_FLAGS] = "flags", [SF_SECTOR] = "sector", [SF_BYTES] = "bytes",
	[SF_LATENCY] = "latency", [SF_ERROR] = "error", [SF_PID] = "pid", [SF_COMM] = "comm",
	[SF_CPU] = "cpu", [SF_TIMESTAMP] = "timestamp", [SF_EXECNAME] = "execname",
	[SF_PROBENAME] = "probename", [SF_HOST] = "host", [SF_Q2D] = "q2d", [SF_D2C] = "d2c",
	[SF_Q2C] = "q2c", [SF_Q2G] = "q2g", [SF_G2I] = "g2i", [SF_I2D] = "i2d",
	[SF_ARG0] = "arg0", [SF_WALLTIMESTAMP] = "walltimestamp", [SF_PROBEPROV] = "probeprov",
	[SF_PROBEMOD] = "probemod", [SF_PROBEFUNC] = "probefunc",
};

static const char *const func_names[FN_NFUNCS] = {
	[FN_SPECULATION] = "speculation", [FN_SPECULATE] = "speculate", [FN_COMMIT] = "commit",
	[FN_DISCARD] = "discard", [FN_TRACE] = "trace", [FN_PRINTF] = "printf",
	[FN_EXIT] = "exit", [FN_PRINTA] = "printa", [FN_CLEAR] = "clear", [FN_TRUNC] = "trunc",
	[FN_BT] = "bpftrace action",	/* no D name: bpftrace's front-end makes it */
	[FN_COUNT] = "count", [FN_SUM] = "sum", [FN_AVG] = "avg", [FN_MIN] = "min",
	[FN_MAX] = "max", [FN_QUANTIZE] = "quantize", [FN_LQUANTIZE] = "lquantize",
	[FN_NORMALIZE] = "normalize", [FN_DENORMALIZE] = "denormalize", [FN_STDDEV] = "stddev",
	[FN_LLQUANTIZE] = "llquantize",
};

static const struct { const char *name; int val; } errnos[] = {
	{ "EPERM", 1 }, { "ENOENT", 2 }, { "EINTR", 4 }, { "EIO", 5 }, { "ENXIO", 6 },
	{ "E2BIG", 7 }, { "EBADF", 9 }, { "EAGAIN", 11 }, { "ENOMEM", 12 }, { "EACCES", 13 },
	{ "EFAULT", 14 }, { "EBUSY", 16 }, { "EEXIST", 17 }, { "ENODEV", 19 },
	{ "EINVAL", 22 }, { "ENOSPC", 28 }, { "ESPIPE", 29 }, { "EROFS", 30 },
	{ "EPIPE", 32 }, { "ERANGE", 34 }, { "ENODATA", 61 }, { "ETIME", 62 },
	{ "ENOLINK", 67 }, { "EPROTO", 71 }, { "EBADMSG", 74 }, { "EOVERFLOW", 75 },
	{ "EILSEQ", 84 }, { "EOPNOTSUPP", 95 }, { "ENOTSUP", 95 }, { "ETIMEDOUT", 110 },
	{ "ENOMEDIUM", 123 }, { "EMEDIUMTYPE", 124 }, { "ECANCELED", 125 },
};

/* illumos's io provider fires start in bdev_strategy() and done in
 * biodone(); the probes it lacks are named by the Linux function the block
 * layer's tracepoint fires in (formats/script.md). */
const char *vxt_sprobe_func(unsigned bit)
{
	switch (bit) {
	case SP_START: return "bdev_strategy";
	case SP_DONE: case SP_ERROR: return "biodone";
	case SP_QUEUE: return "submit_bio";
	case SP_REQUEUE: return "blk_mq_requeue_request";
	default: return "";
	}
}

int vxt_script_field(const char *name)
{
	for (int i = 0; i < SF_COUNT; i++)
		if (!strcmp(field_names[i], name))
			return i;
	return -1;
}

const char *vxt_script_field_name(int f)
{
	return f >= 0 && f < SF_COUNT ? field_names[f] : "?";
}

int vxt_script_func(const char *name)
{
	for (int i = 0; i < FN_NFUNCS; i++)
		if (!strcmp(func_names[i], name))
			return i;
	return -1;
}

const char *vxt_script_func_name(int fn)
{
	return fn >= 0 && fn < FN_NFUNCS ? func_names[fn] : "?";
}

int vxt_script_errno(const char *name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].val;
	return 0;
}

/* ---- options ---- */

static int parse_size(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;
	uint64_t mul = 1;

	if (!v || !*v || *v < '0' || *v > '9')
		return -1;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mul = 1024; end++; break;
	case 'm': case 'M': mul = 1024 * 1024; end++; break;
	case 'g': case 'G': mul = 1024ull * 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end || n == 0 || n > UINT64_MAX / mul / 2)
		return -1;
	*out = n * mul;
	return 0;
}

int vxt_script_set_option(struct vxt_script *s, const char *name, const char *value,
			  unsigned line, unsigned col, char *err)
{
	uint64_t v = 0;

	if (!strcmp(name, "quiet")) {
		if (value && strcmp(value, "1") && strcmp(value, "0"))
			goto bad_value;
		s->opt.quiet = !value || !strcmp(value, "1");
		return 0;
	}
	if (!strcmp(name, "nspec") || !strcmp(name, "cleanrate")) {
		char *end;
		unsigned long long n;

		if (!value || *value < '0' || *value > '9')
			goto bad_value;
		n = strtoull(value, &end, 10);
		if (!strcmp(name, "cleanrate") && !strcmp(end, "hz"))
			end += 2;
		if (*end || n == 0)
			goto bad_value;
		if (name[0] == 'n') {
			if (n > VXT_SCRIPT_MAX_NSPEC)
				goto bad_value;
			s->opt.nspec = (unsigned)n;
			s->opt.nspec_set = true;
		} else {
			if (n > 1000000)
				goto bad_value;
			s->opt.cleanrate = (unsigned)n;
		}
		return 0;
	}
	if (!strcmp(name, "specsize") || !strcmp(name, "bufsize") || !strcmp(name, "aggsize") ||
	    !strcmp(name, "dynvarsize")) {
		if (parse_size(value, &v) < 0)
			goto bad_value;
		if (name[0] == 'd')
			s->opt.dynvarsize = v;
		else if (name[0] == 's')
			s->opt.specsize = v;
		else if (name[0] == 'b')
			s->opt.bufsize = v;
		else
			s->opt.aggsize = v;
		return 0;
	}
	if (!strcmp(name, "defaultargs")) {	/* $1 ... read 0 or "" when not given */
		s->opt_defaultargs = true;
		return 0;
	}
	if (!strcmp(name, "switchrate") || !strcmp(name, "bufpolicy") ||
	    !strcmp(name, "bufresize") || !strcmp(name, "statusrate") ||
	    !strcmp(name, "aggrate") || !strcmp(name, "dynvarrate") ||
	    !strcmp(name, "strsize") || !strcmp(name, "destructive") ||
	    !strcmp(name, "flowindent") || !strcmp(name, "zdefs")) {
		char what[96];

		snprintf(what, sizeof(what), "option %.40s does nothing on a block trace", name);
		vxt_script_warn(s, what);
		return 0;
	}
	return vxt_script_fail(s, err, line, col, "failed to set option '%s': Invalid option "
			       "name (nspec specsize cleanrate bufsize aggsize dynvarsize quiet)", name);
bad_value:
	return vxt_script_fail(s, err, line, col, "failed to set option '%s' to '%s': Invalid "
			       "value for specified option", name, value ? value : "");
}
