/* escape.c - escaping names for terminals, JSON and CSV (see escape.h)
 *
 * One UTF-8 validator and three escapers; every program prints names from
 * traces through them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/escape.h"

static const char hex[] = "0123456789abcdef";

size_t vxt_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* An output buffer that takes whole pieces only. */
struct out {
	char *p;
	size_t n, size;
	bool full;
};

static void put(struct out *o, const char *s, size_t k)
{
	if (o->full || o->n + k + 1 > o->size) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->n, s, k);
	o->n += k;
}

static void put_hex(struct out *o, const char *pre, unsigned v, int digits)
{
	char b[8];
	size_t k = strlen(pre);

	memcpy(b, pre, k);
	for (int d = digits - 1; d >= 0; d--)
		b[k++] = hex[(v >> (4 * d)) & 15];
	put(o, b, k);
}

static size_t finish(struct out *o)
{
	if (o->size)
		o->p[o->n] = 0;
	return o->n;
}

/* the C escape of a control byte, or NULL */
static const char *c_name(unsigned char ch)
{
	switch (ch) {
	case '\a': return "\\a";
	case '\b': return "\\b";
	case '\t': return "\\t";
	case '\n': return "\\n";
	case '\v': return "\\v";
	case '\f': return "\\f";
	case '\r': return "\\r";
	case 0x1b: return "\\e";
	case '\\': return "\\\\";
	default: return NULL;
	}
}

size_t vxt_escape_text(const char *s, char *buf, size_t size)
{
	struct out o = { buf, 0, size, false };

	while (*s && !o.full) {
		unsigned char ch = (unsigned char)*s;
		size_t k = vxt_utf8_len(s);
		const char *name = c_name(ch);

		if (name) {
			put(&o, name, strlen(name));
		} else if (ch < 0x20 || ch == 0x7f || !k) {
			put_hex(&o, "\\x", ch, 2);
			k = 1;
		} else if (k == 2 && ch == 0xc2 && (unsigned char)s[1] < 0xa0) {
			put_hex(&o, "\\u", 0x80u | ((unsigned char)s[1] & 0x1f), 4);	/* C1 */
		} else {
			put(&o, s, k);
		}
		s += k ? k : 1;
	}
	return finish(&o);
}

size_t vxt_escape_json(const char *s, char *buf, size_t size)
{
	struct out o = { buf, 0, size, false };

	while (*s && !o.full) {
		unsigned char ch = (unsigned char)*s;
		size_t k = vxt_utf8_len(s);

		if (ch == '"' || ch == '\\') {
			char e[2] = { '\\', (char)ch };

			put(&o, e, 2);
		} else if (ch == '\n' || ch == '\t' || ch == '\r' || ch == '\b' || ch == '\f') {
			put(&o, c_name(ch), 2);
		} else if (ch < 0x20 || ch == 0x7f || !k) {
			put_hex(&o, "\\u", ch, 4);	/* a stray byte: U+00NN of its value */
			k = 1;
		} else {
			put(&o, s, k);
		}
		s += k ? k : 1;
	}
	return finish(&o);
}

size_t vxt_escape_csv(const char *s, char *buf, size_t size)
{
	struct out o = { buf, 0, size, false };
	bool formula = *s && strchr("=+-@\t\r", *s);
	bool quote = formula || s[strcspn(s, ",\"\r\n")];

	if (quote)
		put(&o, "\"", 1);
	if (formula)
		put(&o, "'", 1);
	for (; *s && !o.full; s++)
		put(&o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
	if (quote)
		put(&o, "\"", 1);
	if (o.full && size)	/* never a half-quoted field */
		o.n = 0;
	return finish(&o);
}

bool vxt_text_is_plain(const char *s)
{
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		size_t k = vxt_utf8_len(s);

		if (ch < 0x20 || ch == 0x7f || !k || (ch == 0xc2 && (unsigned char)s[1] < 0xa0))
			return false;
		s += k;
	}
	return true;
}

const char *vxt_text(const char *s, char *buf, size_t size)
{
	vxt_escape_text(s, buf, size);
	return buf;
}

typedef size_t (*escape_fn)(const char *, char *, size_t);

static int fput_with(escape_fn fn, const char *s, FILE *f, const char *around)
{
	size_t len = strlen(s), cap = VXT_ESCAPE_MAX(len);
	char small[1024], *b = cap <= sizeof(small) ? small : malloc(cap);
	size_t n;
	int rc = 0;

	if (!b)
		return EOF;
	n = fn(s, b, cap);
	if (*around && fputs(around, f) == EOF)
		rc = EOF;
	if (fwrite(b, 1, n, f) != n)
		rc = EOF;
	if (*around && fputs(around, f) == EOF)
		rc = EOF;
	if (b != small)
		free(b);
	return rc;
}

int vxt_fputs_text(const char *s, FILE *f)
{
	return fput_with(vxt_escape_text, s, f, "");
}

int vxt_fputs_json(const char *s, FILE *f)
{
	return fput_with(vxt_escape_json, s, f, "\"");
}

int vxt_fputs_csv(const char *s, FILE *f)
{
	return fput_with(vxt_escape_csv, s, f, "");
}
