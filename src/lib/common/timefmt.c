/* timefmt.c - parsing and printing durations, sizes and trace times
 *
 * One syntax everywhere: durations "10ns 500us 20ms 2s 3m 1h" (bare numbers
 * are seconds), sizes with binary suffixes "4k 1M 2G", trace points as
 * seconds from the start ("12.5"), offsets from the cursor ("+2s", "-500ms")
 * or wall clock ("14:03:07.25", "2026-11-30T14:03:07.25").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vxtrace/util.h"

static int parse_number(const char *s, double *v, const char **rest)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	*v = strtod(s, &end);
	if (end == s || !isfinite(*v) || *v < 0)
		return -EINVAL;
	*rest = end;
	return 0;
}

int vxt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", VXT_NSEC_PER_SEC }, { "", VXT_NSEC_PER_SEC },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	const char *rest;
	double v;

	if (parse_number(s, &v, &rest) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(rest, units[i].unit))
			continue;
		v *= units[i].mult;
		if (v >= 1.8e19)
			return -EINVAL;
		*ns = (uint64_t)llround(v);
		return 0;
	}
	return -EINVAL;
}

int vxt_parse_size(const char *s, uint64_t *bytes)
{
	const char *rest;
	double v, mult = 1;

	if (parse_number(s, &v, &rest) < 0)
		return -EINVAL;
	switch (*rest) {
	case '\0': break;
	case 'k': case 'K': mult = 1024.0; rest++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; rest++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; rest++; break;
	case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; rest++; break;
	default: return -EINVAL;
	}
	if (*rest == 'i')
		rest++;
	if (*rest == 'B' || *rest == 'b')
		rest++;
	if (*rest)
		return -EINVAL;
	v *= mult;
	if (v >= 1.8e19)
		return -EINVAL;
	*bytes = (uint64_t)llround(v);
	return 0;
}

/* "HH:MM:SS[.frac]" -> seconds since midnight. */
static int parse_clock(const char *s, double *secs)
{
	unsigned h, m;
	double sec;
	int n = 0;

	if (sscanf(s, "%2u:%2u:%lf%n", &h, &m, &sec, &n) != 3 || s[n] || h > 23 || m > 59 ||
	    sec < 0 || sec >= 61)
		return -EINVAL;
	*secs = h * 3600.0 + m * 60.0 + sec;
	return 0;
}

static int parse_wall(const char *s, uint64_t start_ns, uint64_t anchor_mono,
		      uint64_t anchor_real, uint64_t *out)
{
	int64_t off = (int64_t)(anchor_real - anchor_mono);
	time_t day;
	struct tm tm;
	double secs;
	const char *t = strchr(s, 'T');
	int64_t real;

	if (t) {
		memset(&tm, 0, sizeof(tm));
		if (sscanf(s, "%4d-%2d-%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3)
			return -EINVAL;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		tm.tm_isdst = -1;
		if (parse_clock(t + 1, &secs) < 0)
			return -EINVAL;
	} else {
		if (parse_clock(s, &secs) < 0)
			return -EINVAL;
		day = (time_t)((int64_t)(start_ns + off) / (int64_t)VXT_NSEC_PER_SEC);
		localtime_r(&day, &tm);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
	}
	day = mktime(&tm);
	if (day == (time_t)-1)
		return -EINVAL;
	real = (int64_t)day * (int64_t)VXT_NSEC_PER_SEC + (int64_t)llround(secs * VXT_NSEC_PER_SEC);
	if (real - off < 0)
		return -EINVAL;
	*out = (uint64_t)(real - off);
	return 0;
}

int vxt_parse_time(const char *s, uint64_t start_ns, uint64_t cur_ns,
		   uint64_t anchor_mono, uint64_t anchor_real, uint64_t *out)
{
	uint64_t d;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '+' || *s == '-') {
		if (vxt_parse_duration(s + 1, &d) < 0)
			return -EINVAL;
		*out = *s == '+' ? cur_ns + d : (d > cur_ns ? 0 : cur_ns - d);
		return 0;
	}
	if (strchr(s, ':'))
		return parse_wall(s, start_ns, anchor_mono, anchor_real, out);
	if (vxt_parse_duration(s, &d) < 0)
		return -EINVAL;
	*out = start_ns + d;
	return 0;
}

char *vxt_format_reltime(uint64_t ns, uint64_t base, char *buf, size_t size)
{
	if (ns >= base) {
		uint64_t d = ns - base;

		snprintf(buf, size, "%llu.%09llu", (unsigned long long)(d / VXT_NSEC_PER_SEC),
			 (unsigned long long)(d % VXT_NSEC_PER_SEC));
	} else {
		uint64_t d = base - ns;

		snprintf(buf, size, "-%llu.%09llu", (unsigned long long)(d / VXT_NSEC_PER_SEC),
			 (unsigned long long)(d % VXT_NSEC_PER_SEC));
	}
	return buf;
}

char *vxt_format_walltime(uint64_t real_ns, char *buf, size_t size)
{
	time_t t = (time_t)(real_ns / VXT_NSEC_PER_SEC);
	struct tm tm;

	localtime_r(&t, &tm);
	snprintf(buf, size, "%02d:%02d:%02d.%06llu", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(real_ns % VXT_NSEC_PER_SEC / 1000));
	return buf;
}

char *vxt_format_datetime(uint64_t real_ns, char *buf, size_t size)
{
	time_t t = (time_t)(real_ns / VXT_NSEC_PER_SEC);
	char zone[8] = "";
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d.%06llu %s", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(real_ns % VXT_NSEC_PER_SEC / 1000), zone);
	return buf;
}

char *vxt_format_isotime(uint64_t real_ns, char *buf, size_t size)
{
	time_t t = (time_t)(real_ns / VXT_NSEC_PER_SEC);
	struct tm tm;

	localtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06llu", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(real_ns % VXT_NSEC_PER_SEC / 1000));
	return buf;
}

char *vxt_format_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < VXT_NSEC_PER_SEC)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", (double)ns / VXT_NSEC_PER_SEC);
	return buf;
}

char *vxt_format_size(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
	else	/* at most 7 characters: "1023MiB", "12.5KiB" */
		snprintf(buf, size, v < 99.95 ? "%.1f%ciB" : "%.0f%ciB", v, units[u]);
	return buf;
}
