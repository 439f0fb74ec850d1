/* script_format.c - printf() and printa() formats, as dt_printf.c reads them
 *
 * A format is literal text and conversions: flags, width, precision, size
 * prefixes (l, ll, h: values are 64-bit here anyway) and d i u x X o c s,
 * plus D's own: %S (a string with its unprintable characters escaped),
 * %Y (nanoseconds since the epoch as a date, "2026 Dec  7 15:23:20") and,
 * in printa(), %@ before the letter for the aggregation's value. And the
 * aggregations printed (printa(), END, the periodic print) as one text
 * record into the principal buffer, and text appended to a clause's text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script/script_impl.h"
#include "script/bt_impl.h"

/* The decimal number at *@p (0 when none), *@p moved past it; saturates
 * above S_FMT_WIDTH_MAX. */
static long fmt_number(const char **p)
{
	long v = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++)
		if (v <= S_FMT_WIDTH_MAX)
			v = v * 10 + (**p - '0');
	return v;
}

int vxt_script_parse_format(struct vxt_script *s, const char *f, bool printa,
			    struct sconv *c, unsigned max, unsigned *nc, unsigned line, unsigned col,
			    char *err)
{
	const char *who = printa ? "printa" : "printf";
	unsigned n = 0, nval = 0;
	const char *p;

	for (p = f; *p;) {
		struct sconv *cv;
		const char *st = p, *wstart, *wend;
		char flags[8];
		size_t sl, sl_flags = 0;
		bool at = false;

		if (n + 1 > max)
			return vxt_script_fail(s, err, line, col, "%s( ): format too long", who);
		cv = &c[n++];
		memset(cv, 0, sizeof(*cv));
		if (*p != '%' || p[1] == '%') {
			if (*p == '%') {
				cv->text = p + 1;
				cv->tlen = 1;
				p += 2;
				continue;
			}
			while (*p && *p != '%')
				p++;
			cv->text = st;
			cv->tlen = (size_t)(p - st);
			continue;
		}
		p++;
		/* '@' is a flag: "%@8d" and "%8@d" both take the value */
		while (*p && (strchr("-+ #0", *p) || (*p == '@' && printa))) {
			if (*p == '@')
				at = true;
			else if (sl_flags < sizeof(flags) - 1)
				flags[sl_flags++] = *p;
			p++;
		}
		wstart = p;
		if (fmt_number(&p) > S_FMT_WIDTH_MAX)
			return vxt_script_fail(s, err, line, col,
					       "%s( ): the width of conversion #%u is above %d", who,
					       n, S_FMT_WIDTH_MAX);
		if (*p == '.') {
			p++;
			if (fmt_number(&p) > S_FMT_WIDTH_MAX)
				return vxt_script_fail(s, err, line, col,
						       "%s( ): the precision of conversion #%u is "
						       "above %d", who, n, S_FMT_WIDTH_MAX);
		}
		if (*p == '@' && printa) {
			at = true;
			wend = p++;
		} else {
			wend = p;
		}
		sl = 1 + sl_flags + (size_t)(wend - wstart);
		while (*p == 'l' || *p == 'h')
			p++;
		if (!*p || !strchr("diuxXocsSY", *p) || sl > 12 || (at && !strchr("diuxXo", *p)))
			return vxt_script_fail(s, err, line, col,
					       "%s( ): invalid format conversion #%u '%.*s'", who, n,
					       (int)(p - st + (*p ? 1 : 0)), st);
		cv->conv = at ? '@' : *p;
		cv->spec[0] = '%';	/* the spec without its '@' */
		memcpy(cv->spec + 1, flags, sl_flags);
		memcpy(cv->spec + 1 + sl_flags, wstart, (size_t)(wend - wstart));
		if (*p == 's' || *p == 'c' || *p == 'S' || *p == 'Y') {
			cv->spec[sl] = *p == 'c' ? 'c' : 's';	/* S, Y: formatted first */
		} else {
			memcpy(cv->spec + sl, "ll", 2);
			cv->spec[sl + 2] = *p == 'i' ? 'd' : *p;
		}
		nval += at;
		p++;
	}
	*nc = n;
	return (int)nval;
}

/* %S: C's escapes for what does not print. */
static void escape(const char *str, char *buf, size_t size)
{
	size_t n = 0;

	for (; *str && n + 5 < size; str++) {
		unsigned char ch = (unsigned char)*str;

		if (ch == '\n' || ch == '\t' || ch == '\\' || ch == '"') {
			buf[n++] = '\\';
			buf[n++] = ch == '\n' ? 'n' : ch == '\t' ? 't' : (char)ch;
		} else if (ch < 0x20 || ch >= 0x7f) {
			n += (size_t)snprintf(buf + n, size - n, "\\%03o", ch);
		} else {
			buf[n++] = (char)ch;
		}
	}
	buf[n] = '\0';
}

void vxt_script_format_conv(const struct sconv *c, bool is_str, int64_t i, const char *str,
			    char *buf, size_t size)
{
	char tmp[512];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	switch (c->conv) {
	case 's':
		snprintf(buf, size, c->spec, is_str ? str : "");
		break;
	case 'S':
		escape(is_str ? str : "", tmp, sizeof(tmp));
		snprintf(buf, size, c->spec, tmp);
		break;
	case 'Y': {
		time_t t = (time_t)(i / 1000000000);
		struct tm tm;

		if (!localtime_r(&t, &tm) || !strftime(tmp, sizeof(tmp), "%Y %b %e %T", &tm))
			tmp[0] = '\0';
		snprintf(buf, size, c->spec, tmp);
		break;
	}
	case 'c':
		if ((unsigned char)i) {
			snprintf(buf, size, c->spec, (int)i);
		} else {
			/* a NUL byte cannot stand in a line of text: its field's
			 * blanks alone, as %s of "" */
			char sp[sizeof(c->spec)];
			size_t n = strlen(c->spec);

			memcpy(sp, c->spec, n + 1);
			if (n)
				sp[n - 1] = 's';
			snprintf(buf, size, sp, "");
		}
		break;
	default:
		snprintf(buf, size, c->spec, (long long)i);
		break;
	}
#pragma GCC diagnostic pop
}

int vxt_script_print_aggs(struct vxt_script *s, struct sagg *only, bool clear, bool at_end,
			  const struct sfmt *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f)
		return -ENOMEM;
	if (at_end && s->bt)	/* bpftrace prints every map at the end */
		vxt_bt_print_end(s, f);
	for (unsigned i = 0; i < s->naggs && !(at_end && s->bt); i++) {
		struct sagg *a = &s->aggs[i];

		if ((only && a != only) || (at_end && a->printed) || a->fn < 0)
			continue;
		if (fmt)
			vxt_sagg_printa(s, a, fmt, f);
		else
			vxt_sagg_print(s, a, !at_end || !ftell(f), f);
		if (clear)
			vxt_sagg_clear(s, a, false, 0);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (len)
		rc = vxt_sspec_text(s, buf, len);
	free(buf);
	s->st.mem_bytes = s->spec_bytes + s->agg_bytes;
	return rc;
}

int vxt_script_print_aggregations(struct vxt_script *s, bool clear)
{
	return vxt_script_print_aggs(s, NULL, clear, false, NULL);
}

/* ---- a clause's text ---- */

void vxt_stext_add(char *buf, size_t *len, size_t cap, const char *p, size_t n)
{
	if (*len + n >= cap)
		n = cap - 1 - *len;
	memcpy(buf + *len, p, n);
	*len += n;
	buf[*len] = '\0';
}

void vxt_stext_printf(char *buf, size_t *len, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < cap - *len ? (size_t)n : cap - 1 - *len;
}
