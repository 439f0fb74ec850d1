/* bt_lex.c - tokens of bpftrace's language
 *
 * The same tokens as the D lexer (struct stoken) with bpftrace's spelling:
 * $locals and @maps, `args.field` as one word, numbers with an exponent
 * (1e6) or '_' separators, probe names (tracepoint:block:block_rq_issue,
 * interval:s:1) where a probe starts; a first line starting with #! and
 * the lines of bpftrace's preprocessor (#include, #define, #ifndef ...,
 * whose headers a block tool needs nothing of) are skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "script/bt_impl.h"
#include "script/tok.h"

void vxt_btlex_init(struct slexer *lx, const char *src, size_t len)
{
	vxt_slex_init(lx, src, len);	/* skips a #! line */
}

/* A line of bpftrace's preprocessor: its headers and conditions are for
 * the kernel's structures, which a recording has none of. */
static bool preprocessor(const struct slexer *lx)
{
	static const char *const d[] = {
		"#include", "#define", "#undef", "#ifdef", "#ifndef", "#if ", "#else", "#endif",
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (vxt_tok_starts(lx, d[i]))
			return true;
	return false;
}

static bool is_probe_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == ':' || c == '*' || c == '.' ||
			  c == '-');
}

/* Decimal (with '_' separators and an optional exponent: 1e6), or 0x hex. */
static void lex_number(struct slexer *lx, struct stoken *t)
{
	uint64_t v = 0;
	int base = vxt_tok_base(lx);
	bool over = false;

	if (base == 16 && !isxdigit(vxt_tok_peek(lx, 0))) {
		vxt_tok_error(t, "syntax error, invalid hexadecimal constant");
		return;
	}
	vxt_tok_digits(lx, base, true, &v, &over);
	if (base == 10 && (vxt_tok_peek(lx, 0) == 'e' || vxt_tok_peek(lx, 0) == 'E') &&
	    isdigit(vxt_tok_peek(lx, 1))) {
		unsigned e = 0;

		vxt_tok_adv(lx);
		while (isdigit(vxt_tok_peek(lx, 0))) {
			e = e * 10 + (unsigned)(vxt_tok_peek(lx, 0) - '0');
			vxt_tok_adv(lx);
			if (e > 30)
				over = true;
		}
		while (e-- && !over) {
			if (v > UINT64_MAX / 10)
				over = true;
			v *= 10;
		}
	}
	if (vxt_tok_is_word(vxt_tok_peek(lx, 0))) {
		vxt_tok_error(t, "syntax error, invalid suffix on a number");
		return;
	}
	if (over || v > (uint64_t)INT64_MAX) {
		vxt_tok_error(t, "syntax error, number out of range");
		return;
	}
	t->type = ST_NUM;
	t->num = (int64_t)v;
}

static int lex_string(struct slexer *lx, struct stoken *t)
{
	static const struct tok_strings d = {
		"ntr\\\"'", "unterminated string", "invalid escape character",
	};

	return vxt_tok_string(lx, t, &d);
}

/* A word: letters, digits, '_'; `args.x` is one word. */
static int lex_word(struct slexer *lx, struct stoken *t, size_t start)
{
	vxt_tok_word(lx);
	if (lx->pos - start == 4 && !strncmp(lx->src + start, "args", 4) &&
	    vxt_tok_peek(lx, 0) == '.' &&
	    (isalpha(vxt_tok_peek(lx, 1)) || vxt_tok_peek(lx, 1) == '_')) {
		vxt_tok_adv(lx);
		vxt_tok_word(lx);
	}
	return vxt_tok_take(lx, t, start, 0, ST_IDENT);
}

int vxt_btlex_next(struct slexer *lx, struct stoken *t, bool probe)
{
	size_t start;
	int c, rc;

	if (vxt_tok_begin(lx, t, preprocessor))
		return 0;
	start = lx->pos;
	c = vxt_tok_peek(lx, 0);
	if (probe && is_probe_char(c) && c != '*' && c != '-')
		return vxt_tok_probe(lx, t, is_probe_char);
	if (isdigit(c)) {
		lex_number(lx, t);
		return 0;
	}
	if (isalpha(c) || c == '_')
		return lex_word(lx, t, start);
	if (c == '.' && (isalpha(vxt_tok_peek(lx, 1)) || vxt_tok_peek(lx, 1) == '_')) {	/* .member */
		vxt_tok_adv(lx);
		vxt_tok_word(lx);
		return vxt_tok_take(lx, t, start, 0, ST_IDENT);	/* ".name" */
	}
	if (c == '$' || c == '@') {
		vxt_tok_adv(lx);
		vxt_tok_word(lx);
		/* "$name" keeps its '$' */
		rc = vxt_tok_take(lx, t, start, c == '@', c == '@' ? ST_AGG : ST_IDENT);
		if (!rc && c == '$' && lx->pos - start == 1)
			vxt_tok_error(t, "syntax error, unexpected $");
		return rc;
	}
	if (c == '"')
		return lex_string(lx, t);
	if (!vxt_tok_op(lx, t, false))
		vxt_tok_bad_char(t, c, "syntax error, ");
	return 0;
}
