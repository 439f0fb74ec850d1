/* profile_kspec.c - which profiles a kernel source can run itself
 *
 * A profile goes into the kernel (struct vxt_kspec) when it is the context:
 * shorthand with no filter, keyed by object, pid or object,pid, and its
 * trigger is one the kernel program knows: `error` (or `error != 0`),
 * `latency >= D` or `latency > D`, or `error || latency >= D`. Anything
 * else runs in user space, and the reason is one short phrase. Windows by
 * count (before_events, after_events) go in with the times. So does the
 * request form of speculation: (slow-io): each I/O speculated from its
 * start, committed by its completion on one of those triggers, else
 * discarded. The profile's nspec and specsize go in too.
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

/* Is @pred the expression `spec`? */
static bool is_spec(const char *pred)
{
	const char *s = pred ? skip_space(pred) : NULL;

	return s && !strncmp(s, "spec", 4) && !*skip_space(s + 4);
}

static bool clause_is(const struct vxt_spec_clause *c, unsigned probes, enum vxt_spec_action a)
{
	return c->probes == probes && c->nactions == 1 && c->actions[0] == a && !c->windowed &&
	       !c->follow_ns && !c->follow_events;
}

/* The request form, as the module's key request runs it:
 *   - probe: start                 action: [speculation, speculate]
 *   - probe: [done, requeue]       predicate: spec              action: speculate
 *   - probe: done                  predicate: spec && TRIGGER   action: commit
 *   - probe: done                  predicate: spec              action: discard
 * TRIGGER one of error, latency >= D, latency > D. */
static bool request_form(const struct vxt_spec_config *c, struct vxt_kspec *k)
{
	const struct vxt_spec_clause *cl = c->clauses;
	const char *s;

	if (c->nclauses != 4 || cl[0].probes != VXT_PROBE_START || cl[0].predicate ||
	    cl[0].nactions != 2 || cl[0].actions[0] != VXT_ACT_SPECULATION ||
	    cl[0].actions[1] != VXT_ACT_SPECULATE || cl[0].windowed)
		return false;
	if (!clause_is(&cl[1], VXT_PROBE_DONE | VXT_PROBE_REQUEUE, VXT_ACT_SPECULATE) ||
	    !is_spec(cl[1].predicate) || !clause_is(&cl[2], VXT_PROBE_DONE, VXT_ACT_COMMIT) ||
	    !clause_is(&cl[3], VXT_PROBE_DONE, VXT_ACT_DISCARD) || !is_spec(cl[3].predicate) ||
	    !cl[2].predicate)
		return false;
	s = skip_space(cl[2].predicate);
	if (strncmp(s, "spec", 4))
		return false;
	s = skip_space(s + 4);
	if (strncmp(s, "&&", 2))
		return false;
	s = skip_space(s + 2);
	/* one trigger: `spec && error || latency >= D` would commit without spec */
	if (!*s || strstr(s, "||") || strchr(s, '('))
		return false;
	return parse_trigger(s, k);
}

/* The profile's nspec and specsize, defaults applied: the kernel sizes its
 * buffers by them. */
static void set_buffers(const struct vxt_profile *p, struct vxt_kspec *k)
{
	k->nspec = p->spec.nspec ? p->spec.nspec : VXT_SPEC_DEFAULT_NSPEC;
	k->specsize = p->spec.specsize ? p->spec.specsize : VXT_SPEC_DEFAULT_SIZE;
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
	if (!p->is_context && p->spec.key == VXT_SPEC_KEY_REQUEST &&
	    !(p->filter && *p->filter)) {
		if (request_form(&p->spec, k)) {
			k->key = VXT_SPEC_KEY_REQUEST;
			set_buffers(p, k);
			return 1;
		}
		memset(k, 0, sizeof(*k));
		snprintf(why, len, "its clauses are not the request form the kernel program runs "
			 "(start: speculate; done: commit on error or latency, else discard)");
		return 0;
	}
	if (!p->is_context) {
		snprintf(why, len, "its speculation: clauses are more than the kernel program runs "
			 "(the context: form and the request form with no filter go into the kernel)");
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
	set_buffers(p, k);
	return 1;
}
