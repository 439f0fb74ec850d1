/* profile_kspec.c - which profiles a kernel source can run itself
 *
 * A profile goes into the kernel (struct vxt_kspec) when it is the context:
 * shorthand with no filter, keyed by object, pid or object,pid, and its
 * trigger is one the kernel program knows: `error` (or `error != 0`),
 * `latency >= D` or `latency > D`, or `error || latency >= D`. Anything
 * else runs in user space, and the reason is one short phrase. Windows by
 * count (before_events, after_events) go in with the times.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "vxtrace/profile.h"
#include "vxtrace/source.h"
#include "vxtrace/spec.h"
#include "vxtrace/util.h"

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* "error" or "error != 0" at @s; @return the end, or NULL. */
static const char *parse_error(const char *s)
{
	s = skip_space(s);
	if (strncmp(s, "error", 5) || isalnum((unsigned char)s[5]) || s[5] == '_')
		return NULL;
	s = skip_space(s + 5);
	if (!strncmp(s, "!=", 2)) {
		s = skip_space(s + 2);
		if (*s != '0' || isalnum((unsigned char)s[1]))
			return NULL;
		s++;
	}
	return s;
}

/* "latency >= D" or "latency > D" at @s; @return the end, or NULL. */
static const char *parse_latency(const char *s, struct vxt_kspec *k)
{
	char num[32];
	size_t n = 0;

	s = skip_space(s);
	if (strncmp(s, "latency", 7))
		return NULL;
	s = skip_space(s + 7);
	if (!strncmp(s, ">=", 2)) {
		k->latency_strict = false;
		s += 2;
	} else if (*s == '>') {
		k->latency_strict = true;
		s++;
	} else {
		return NULL;
	}
	s = skip_space(s);
	while ((isalnum((unsigned char)*s) || *s == '.') && n < sizeof(num) - 1)
		num[n++] = *s++;
	num[n] = '\0';
	if (!n || vxt_parse_duration(num, &k->on_latency_ns) < 0 || !k->on_latency_ns)
		return NULL;
	return s;
}

static bool parse_trigger(const char *on, struct vxt_kspec *k)
{
	const char *s, *t;

	if (!on || !*on) {
		k->on_error = true;	/* the shorthand's default */
		return true;
	}
	s = parse_error(on);
	if (s) {
		k->on_error = true;
		s = skip_space(s);
		if (!*s)
			return true;
		if (strncmp(s, "||", 2))
			return false;
		t = parse_latency(s + 2, k);
		return t && !*skip_space(t);
	}
	s = parse_latency(on, k);
	if (!s)
		return false;
	s = skip_space(s);
	if (!*s)
		return true;
	if (strncmp(s, "||", 2))
		return false;
	t = parse_error(s + 2);
	if (!t || *skip_space(t))
		return false;
	k->on_error = true;
	return true;
}

int vxt_profile_kspec(const struct vxt_profile *p, struct vxt_kspec *k, char *why, size_t len)
{
	memset(k, 0, sizeof(*k));
	if (!p->has_spec) {
		snprintf(why, len, "it has no speculation");
		return 0;
	}
	if (p->program) {
		snprintf(why, len, "it has a program, which runs in user space");
		return 0;
	}
	if (!p->is_context && p->spec.key == VXT_SPEC_KEY_REQUEST) {
		/* slow-io: the module has key request, but what it commits is
		 * as late as the I/O is slow, with no bound to sort it back */
		snprintf(why, len, "its key is request, whose kernel commits would come as late "
			 "as each I/O is slow, past the time order a file keeps");
		return 0;
	}
	if (!p->is_context) {
		snprintf(why, len, "its speculation: clauses are more than the kernel program runs "
			 "(only the context: form goes into the kernel)");
		return 0;
	}
	if (p->filter && *p->filter) {
		snprintf(why, len, "it has a filter, which runs in user space");
		return 0;
	}
	if (p->context.key != VXT_SPEC_KEY_OBJECT && p->context.key != VXT_SPEC_KEY_PID &&
	    p->context.key != VXT_SPEC_KEY_OBJECT_PID) {
		snprintf(why, len, "the kernel program keys by object, pid or object,pid, not %s",
			 vxt_spec_key_name(p->context.key));
		return 0;
	}
	if (!parse_trigger(p->context.on, k)) {
		snprintf(why, len, "its trigger '%s' is not one the kernel program knows (error, "
			 "latency >= D, latency > D)", p->context.on);
		return 0;
	}
	k->key = p->context.key;
	k->before_ns = p->context.before_ns;
	k->after_ns = p->context.after_ns;
	k->before_events = p->context.before_events;
	k->after_events = p->context.after_events;
	return 1;
}
