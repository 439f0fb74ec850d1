/* filter_lex.c - tokens of the filter language
 *
 * Numbers carry their unit (4k, 1.5M, 500us, 20ms, 2s) already applied: sizes
 * are bytes (binary, k = 1024), durations nanoseconds. "8:16" is a device
 * number. Identifiers may contain '-' and '.' after the first letter, so
 * "write-zeroes" and "dm-0" are single words. Strings are "double quoted" with
 * \" and \\ escapes. Errors come back as TK_ERROR tokens with a message.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "select/filter_impl.h"
#include "vxtrace/voltrace.h"

struct unit_def {
	const char *name;
	enum funit unit;
	uint64_t mult;
};

static const struct unit_def units[] = {
	{ "ns", UNIT_DURATION, 1 },
	{ "us", UNIT_DURATION, 1000 },
	{ "ms", UNIT_DURATION, 1000000 },
	{ "s", UNIT_DURATION, VXT_NSEC_PER_SEC },
	{ "m", UNIT_DURATION, 60000000000ull },
	{ "h", UNIT_DURATION, 3600000000000ull },
	{ "B", UNIT_SIZE, 1 },
	{ "k", UNIT_SIZE, 1ull << 10 }, { "K", UNIT_SIZE, 1ull << 10 },
	{ "KB", UNIT_SIZE, 1ull << 10 }, { "KiB", UNIT_SIZE, 1ull << 10 },
	{ "M", UNIT_SIZE, 1ull << 20 }, { "MB", UNIT_SIZE, 1ull << 20 },
	{ "MiB", UNIT_SIZE, 1ull << 20 },
	{ "G", UNIT_SIZE, 1ull << 30 }, { "GB", UNIT_SIZE, 1ull << 30 },
	{ "GiB", UNIT_SIZE, 1ull << 30 },
	{ "T", UNIT_SIZE, 1ull << 40 }, { "TB", UNIT_SIZE, 1ull << 40 },
	{ "TiB", UNIT_SIZE, 1ull << 40 },
};

void vxt_flex_init(struct flexer *lx, const char *src, char *strbuf, size_t cap)
{
	lx->src = src;
	lx->pos = 0;
	lx->line = 1;
	lx->col = 1;
	lx->strbuf = strbuf;
	lx->strlen = 0;
	lx->strcap = cap;
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.';
}

/* Advance @n bytes on the current line. */
static void advance(struct flexer *lx, unsigned n)
{
	lx->pos += n;
	lx->col += n;
}

static void skip_space(struct flexer *lx)
{
	for (;;) {
		char c = lx->src[lx->pos];

		if (c == '\n') {
			lx->pos++;
			lx->line++;
			lx->col = 1;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			advance(lx, 1);
		} else if (c == '#') {	/* comment to the end of the line */
			while (lx->src[lx->pos] && lx->src[lx->pos] != '\n')
				advance(lx, 1);
		} else {
			return;
		}
	}
}

static void set_error(struct ftoken *t, const char *fmt, const char *arg)
{
	t->type = TK_ERROR;
	snprintf(t->msg, sizeof(t->msg), fmt, arg);
}

/* Copy @n bytes into the string buffer; the buffer is sized by the caller
 * (twice the source plus one), so this can't overflow. */
static char *keep(struct flexer *lx, const char *s, size_t n)
{
	char *p = lx->strbuf + lx->strlen;

	if (lx->strlen + n + 1 > lx->strcap)
		n = lx->strcap - lx->strlen - 1;
	memcpy(p, s, n);
	p[n] = '\0';
	lx->strlen += n + 1;
	return p;
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* Scale integer part @ip and fraction @fr / 10^@nd by @mult. */
static bool scale(uint64_t ip, uint64_t fr, unsigned nd, uint64_t mult, uint64_t *out)
{
	uint64_t v, p10 = 1, part;

	if (!mul_ok(ip, mult, &v))
		return false;
	for (unsigned i = 0; i < nd; i++)
		p10 *= 10;
	/* fr < p10 <= 10^18; fr * mult may overflow, so go through long double */
	part = (uint64_t)((long double)fr * (long double)mult / (long double)p10 + 0.5L);
	if (__builtin_add_overflow(v, part, &v))
		return false;
	*out = v;
	return true;
}

static void lex_number(struct flexer *lx, struct ftoken *t)
{
	const char *s = lx->src + lx->pos;
	unsigned i = 0, nd = 0, ulen;
	uint64_t ip = 0, fr = 0, mult = 1;
	char ubuf[8];

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		for (i = 2; isxdigit((unsigned char)s[i]); i++) {
			unsigned d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
				     (tolower((unsigned char)s[i]) - 'a' + 10);
			if (ip >> 60)
				return set_error(t, "number too large%s", "");
			ip = ip * 16 + d;
		}
		goto unit;
	}
	for (; isdigit((unsigned char)s[i]); i++)
		if (!mul_ok(ip, 10, &ip) || __builtin_add_overflow(ip, (uint64_t)(s[i] - '0'), &ip))
			return set_error(t, "number too large%s", "");
	if (s[i] == ':' && isdigit((unsigned char)s[i + 1])) {	/* major:minor */
		uint64_t mi = 0;

		for (i++; isdigit((unsigned char)s[i]); i++)
			if (mi < (1u << VOLIOT_MINORBITS))
				mi = mi * 10 + (s[i] - '0');
		if (ip >= (1u << (32 - VOLIOT_MINORBITS)) || mi >= (1u << VOLIOT_MINORBITS))
			return set_error(t, "device number out of range%s", "");
		t->type = TK_DEV;
		t->val = VOLIOT_MKDEV(ip, mi);
		t->len = i;
		return;
	}
	if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
		t->frac = true;
		for (i++; isdigit((unsigned char)s[i]); i++)
			if (nd < 18) {
				fr = fr * 10 + (s[i] - '0');
				nd++;
			}
	}
unit:
	for (ulen = 0; isalpha((unsigned char)s[i + ulen]); ulen++)
		;
	if (ulen) {
		size_t u;

		if (ulen >= sizeof(ubuf)) {
			t->len = i + ulen;
			return set_error(t, "unknown unit after a number%s", "");
		}
		memcpy(ubuf, s + i, ulen);
		ubuf[ulen] = '\0';
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (!strcmp(units[u].name, ubuf))
				break;
		if (u == sizeof(units) / sizeof(units[0])) {
			t->len = i + ulen;
			return set_error(t, "unknown unit '%s' (ns us ms s m h; k M G T)", ubuf);
		}
		t->unit = units[u].unit;
		mult = units[u].mult;
		i += ulen;
	}
	if (is_ident_char((unsigned char)s[i]) || s[i] == ':') {
		t->len = i + 1;
		return set_error(t, "malformed number%s", "");
	}
	t->len = i;
	if (!scale(ip, fr, nd, mult, &t->val))
		return set_error(t, "number too large%s", "");
	t->type = TK_NUM;
}

static void lex_string(struct flexer *lx, struct ftoken *t)
{
	const char *s = lx->src + lx->pos;
	char *out = lx->strbuf + lx->strlen;
	size_t n = 0;
	unsigned i;

	for (i = 1; s[i] && s[i] != '"' && s[i] != '\n'; i++) {
		if (s[i] == '\\' && (s[i + 1] == '"' || s[i + 1] == '\\'))
			i++;
		out[n++] = s[i];
	}
	if (s[i] != '"') {
		t->len = i;
		return set_error(t, "unterminated string%s", "");
	}
	out[n] = '\0';
	lx->strlen += n + 1;
	t->type = TK_STR;
	t->str = out;
	t->len = i + 1;
}

/* Two-character operators first, then one-character ones. */
static bool lex_operator(struct ftoken *t, const char *s)
{
	static const struct { char s[3]; enum ftok type; } ops[] = {
		{ "&&", TK_AND }, { "||", TK_OR }, { "==", TK_EQ }, { "!=", TK_NE },
		{ "<=", TK_LE }, { ">=", TK_GE }, { "!~", TK_NMATCH },
		{ "<", TK_LT }, { ">", TK_GT }, { "!", TK_NOT }, { "~", TK_MATCH },
		{ "(", TK_LPAREN }, { ")", TK_RPAREN }, { ",", TK_COMMA },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (!strncmp(s, ops[i].s, n)) {
			t->type = ops[i].type;
			t->len = n;
			return true;
		}
	}
	return false;
}

void vxt_flex_next(struct flexer *lx, struct ftoken *t)
{
	const char *s;
	char c[2];

	skip_space(lx);
	memset(t, 0, sizeof(*t));
	t->pos = lx->pos;
	t->line = lx->line;
	t->col = lx->col;
	s = lx->src + lx->pos;
	if (!*s) {
		t->type = TK_END;
	} else if (isdigit((unsigned char)*s)) {
		lex_number(lx, t);
	} else if (is_ident_start((unsigned char)*s)) {
		unsigned n = 1;

		while (is_ident_char((unsigned char)s[n]))
			n++;
		t->type = TK_IDENT;
		t->len = n;
		t->str = keep(lx, s, n);
	} else if (*s == '"') {
		lex_string(lx, t);
	} else if (lex_operator(t, s)) {
		;
	} else if (*s == '=') {
		t->len = 1;
		set_error(t, "'=' is not an operator (use '==')%s", "");
	} else if (*s == '&' || *s == '|') {
		c[0] = *s;
		c[1] = '\0';
		t->len = 1;
		set_error(t, *s == '&' ? "'&' is not an operator (use '&&')%s" :
					 "'|' is not an operator (use '||')%s", "");
	} else {
		c[0] = *s;
		c[1] = '\0';
		t->len = 1;
		if (isprint((unsigned char)*s))
			set_error(t, "unexpected character '%s'", c);
		else
			set_error(t, "unexpected byte in the expression%s", "");
	}
	if (t->type != TK_ERROR)
		advance(lx, t->len);
}

const char *vxt_ftok_describe(const struct ftoken *t, const char *src, char *buf, size_t size)
{
	unsigned len = t->len > 40 ? 40 : t->len;

	if (t->type == TK_END)
		snprintf(buf, size, "the end");
	else
		snprintf(buf, size, "'%.*s'", (int)len, src + t->pos);
	return buf;
}
