/* glob.c - shell-style name patterns
 *
 * The filter language's ~ and !~ (object, command and host names) and the
 * script engine's glob op, which runs a profile's name patterns lowered to
 * D, match names with it: * ? [abc] [a-z] [!x] and \ escapes; no
 * allocation.
 */
#include <stdbool.h>

#include "vxtrace/util.h"

/* Match one bracket expression at @p against @c; *@pp moves past it.
 * A bracket without its ']' matches a literal '['. */
static bool match_class(const char **pp, unsigned char c, bool *ok)
{
	const char *p = *pp + 1;
	bool neg = false, hit = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	for (bool first = true; *p && (*p != ']' || first); first = false) {
		unsigned char lo = (unsigned char)*p, hi = lo;

		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = (unsigned char)p[2];
			p += 3;
		} else {
			p++;
		}
		if (c >= lo && c <= hi)
			hit = true;
	}
	if (*p != ']') {
		*ok = false;
		return c == '[';
	}
	*ok = true;
	*pp = p + 1;
	return hit != neg;
}

bool vxt_glob_match(const char *pat, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	while (*s) {
		const char *p = pat;
		bool ok, hit;

		if (*p == '*') {
			star_p = ++pat;
			star_s = s;
			continue;
		}
		if (*p == '?') {
			hit = true;
			p++;
		} else if (*p == '[') {
			hit = match_class(&p, (unsigned char)*s, &ok);
			if (!ok)
				p++;
		} else {
			if (*p == '\\' && p[1])
				p++;
			hit = *p && *p == *s;
			p++;
		}
		if (hit) {
			pat = p;
			s++;
			continue;
		}
		if (!star_p)
			return false;
		pat = star_p;	/* let the last * swallow one more character */
		s = ++star_s;
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}
