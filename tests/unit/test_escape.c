/* test_escape.c - escaping names for terminals, JSON and CSV
 *
 * Known vectors, then random byte strings: the text escape holds no control
 * byte, no C1 code point and only valid UTF-8, and a plain decoder written
 * here turns it back into the input byte for byte.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/escape.h"
#include "fixture.h"

static char buf[VXT_ESCAPE_MAX(512)];

static const char *text(const char *s) { vxt_escape_text(s, buf, sizeof(buf)); return buf; }

/* Known vectors: an escape, its input and what it writes. */
static const struct {
	size_t (*escape)(const char *s, char *buf, size_t size);
	const char *in, *want;
} vectors[] = {
	{ vxt_escape_text, "sda", "sda" },
	{ vxt_escape_text, "\033]0;PWNED\a", "\\e]0;PWNED\\a" },
	{ vxt_escape_text, "\033[2J\033[3J", "\\e[2J\\e[3J" },
	{ vxt_escape_text, "a\nb\tc\rd", "a\\nb\\tc\\rd" },
	{ vxt_escape_text, "\x01\x7f", "\\x01\\x7f" },
	{ vxt_escape_text, "back\\slash", "back\\\\slash" },
	{ vxt_escape_text, "\xc2\x9b" "31m", "\\u009b31m" }, /* C1 CSI as UTF-8 */
	{ vxt_escape_text, "\x9b" "31m", "\\x9b31m" }, /* C1 as a raw byte */
	{ vxt_escape_text, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	{ vxt_escape_text, "\xff\xc3", "\\xff\\xc3" },
	{ vxt_escape_text, "\xc0\xaf", "\\xc0\\xaf" }, /* overlong '/' */
	{ vxt_escape_text, "\xed\xa0\x80", "\\xed\\xa0\\x80" }, /* a surrogate */
	{ vxt_escape_text, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* > U+10FFFF */
	{ vxt_escape_json, "a\"b\\c", "a\\\"b\\\\c" },
	{ vxt_escape_json, "\n\t\033", "\\n\\t\\u001b" },
	{ vxt_escape_json, "\xff" "x\xc3", "\\u00ffx\\u00c3" },
	{ vxt_escape_json, "\xc3\xa9", "\xc3\xa9" },
	{ vxt_escape_json, "\x7f", "\\u007f" },
	{ vxt_escape_csv, "sda", "sda" },
	{ vxt_escape_csv, "a,b", "\"a,b\"" },
	{ vxt_escape_csv, "say \"hi\"", "\"say \"\"hi\"\"\"" },
	{ vxt_escape_csv, "two\nlines", "\"two\nlines\"" },
	{ vxt_escape_csv, "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
	{ vxt_escape_csv, "+1", "\"'+1\"" },
	{ vxt_escape_csv, "-2", "\"'-2\"" },
	{ vxt_escape_csv, "@SUM(A1)", "\"'@SUM(A1)\"" },
	{ vxt_escape_csv, "\tx", "\"'\tx\"" },
	{ vxt_escape_csv, "\rx", "\"'\rx\"" },
	{ vxt_escape_csv, "a=b", "a=b" },
	{ vxt_escape_csv, "", "" },
};

START_TEST(known_vectors)
{
	vectors[_i].escape(vectors[_i].in, buf, sizeof(buf));
	ck_assert_str_eq(buf, vectors[_i].want);
}
END_TEST

START_TEST(text_cut_whole)
{
	char small[6];

	ck_assert_uint_eq(vxt_escape_text("ab\033cd", small, 5), 4);
	ck_assert_str_eq(small, "ab\\e");
	ck_assert_uint_eq(vxt_escape_text("a\033", small, 3), 1);
	ck_assert_str_eq(small, "a");
	ck_assert_uint_eq(vxt_escape_csv("a,b,c,d", small, sizeof(small)), 0);	/* no half quote */
}
END_TEST

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* The inverse of the text escape, written from its description. */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'a': out[n++] = '\a'; s++; break;
		case 'b': out[n++] = '\b'; s++; break;
		case 't': out[n++] = '\t'; s++; break;
		case 'n': out[n++] = '\n'; s++; break;
		case 'v': out[n++] = '\v'; s++; break;
		case 'f': out[n++] = '\f'; s++; break;
		case 'r': out[n++] = '\r'; s++; break;
		case 'e': out[n++] = 0x1b; s++; break;
		case '\\': out[n++] = '\\'; s++; break;
		case 'x':
			out[n++] = (char)(hexval(s[1]) << 4 | hexval(s[2]));
			s += 3;
			break;
		case 'u': {
			int cp = hexval(s[3]) << 4 | hexval(s[4]);

			out[n++] = (char)0xc2;
			out[n++] = (char)cp;
			s += 5;
			break;
		}
		default:
			ck_abort_msg("unknown escape \\%c", *s);
		}
	}
	out[n] = 0;
	return n;
}

START_TEST(text_random_round_trip)
{
	char in[64], back[sizeof(buf)];

	uint64_t rng = 0x2545f4914f6cdd1dull;

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)ut_rand_below(&rng, 40);

		for (size_t i = 0; i < len; i++) {
			int pick = (int)ut_rand_below(&rng, 4);

			/* mostly bytes that matter: controls, high bytes, UTF-8 leads */
			in[i] = (char)(pick == 0 ? ut_rand_below(&rng, 0x20) :
				       pick == 1 ? 0x80 + ut_rand_below(&rng, 0x80) :
				       pick == 2 ? 0xc2 : 0x20 + ut_rand_below(&rng, 0x60));
			if (!in[i])
				in[i] = 'z';
		}
		in[len] = 0;
		text(in);
		for (const char *p = buf; *p;) {
			unsigned char ch = (unsigned char)*p;
			size_t k = vxt_utf8_len(p);

			/* plain tests: a passing ck_assert costs a message to the runner */
			if (ch < 0x20 || ch == 0x7f)
				ck_abort_msg("control byte 0x%02x left", ch);
			if (!k)
				ck_abort_msg("invalid UTF-8 left at byte 0x%02x", ch);
			if (ch == 0xc2 && (unsigned char)p[1] < 0xa0)
				ck_abort_msg("C1 left");
			p += k;
		}
		if (unescape(buf, back) != len || memcmp(back, in, len))
			ck_abort_msg("round %d: the escape does not decode back to the input", round);
	}
}
END_TEST

Suite *escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, known_vectors, 0, sizeof(vectors) / sizeof(vectors[0]));
	tcase_add_test(tc, text_cut_whole);
	tcase_add_test(tc, text_random_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
