/* version.c - library version, error messages and clocks */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "vxtrace/vxtrace.h"

const char *vxt_version(void)
{
	return VXT_VERSION_STRING;
}

const char *vxt_strerror(int rc)
{
	if (rc == 0)
		return "success";
	if (rc == -EBADMSG)
		return "corrupt data";
	if (rc == -EPROTO)
		return "unsupported format version or feature";
	return strerror(rc < 0 ? -rc : rc);
}

static uint64_t now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * VXT_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t vxt_now_mono(void)
{
	return now(CLOCK_MONOTONIC);
}

uint64_t vxt_now_real(void)
{
	return now(CLOCK_REALTIME);
}
