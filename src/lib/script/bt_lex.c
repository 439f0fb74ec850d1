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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"
#include "vxtrace/util.h"

void vxt_btlex_init(struct slexer *lx, const char *src, size_t len)
{
	vxt_slex_init(lx, src, len);	/* skips a #! line */
}

static int peekc(const struct slexer *lx, size_t ahead)
{
	return lx->pos + ahead < lx->len ? (unsigned char)lx->src[lx->pos + ahead] : -1;
}

static void adv(struct slexer *lx)
{
	if (lx->src[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static char *keep(struct slexer *lx, const char *s, size_t n)
{
	char *p;

	if (lx->nstrs == lx->capstrs &&
	    vxt_grow(&lx->strs, &lx->capstrs, lx->nstrs + 1, sizeof(*lx->strs)) < 0)
		return NULL;
	p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	lx->strs[lx->nstrs++] = p;
	return p;
}

static void set_error(struct stoken *t, const char *msg)
{
	t->type = ST_ERROR;
	snprintf(t->msg, sizeof(t->msg), "%s", msg);
}

static bool starts(const struct slexer *lx, const char *w)
{
	size_t n = strlen(w);

	return lx->len - lx->pos >= n && !memcmp(lx->src + lx->pos, w, n);
}

/* A line of bpftrace's preprocessor: its headers and conditions are for
 * the kernel's structures, which a recording has none of. */
static bool preprocessor(const struct slexer *lx)
{
	static const char *const d[] = {
		"#include", "#define", "#undef", "#ifdef", "#ifndef", "#if ", "#else", "#endif",
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (starts(lx, d[i]))
			return true;
	return false;
}

/* Blanks, comments and preprocessor lines. @return false on an
 * unterminated comment. */
static bool skip_space(struct slexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			adv(lx);
		} else if (c == '/' && peekc(lx, 1) == '*') {
			adv(lx);
			adv(lx);
			while (peekc(lx, 0) >= 0 && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/'))
				adv(lx);
			if (peekc(lx, 0) < 0)
				return false;
			adv(lx);
			adv(lx);
		} else if ((c == '/' && peekc(lx, 1) == '/') ||
			   (c == '#' && lx->col == 1 && preprocessor(lx))) {
			while (peekc(lx, 0) >= 0 && peekc(lx, 0) != '\n')
				adv(lx);
		} else {
			return true;
		}
	}
}

static bool is_word(int c)
{
	return c >= 0 && (isalnum(c) || c == '_');
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
	int base = 10, c;
	bool over = false;

	if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X')) {
		base = 16;
		adv(lx);
		adv(lx);
		if (!isxdigit(peekc(lx, 0))) {
			set_error(t, "syntax error, invalid hexadecimal constant");
			return;
		}
	}
	while ((c = peekc(lx, 0)) >= 0 && (isxdigit(c) || c == '_') &&
	       (base == 16 || isdigit(c) || c == '_')) {
		unsigned d;

		adv(lx);
		if (c == '_')
			continue;
		d = isdigit(c) ? (unsigned)(c - '0') : (unsigned)(tolower(c) - 'a' + 10);
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			over = true;
		v = v * (uint64_t)base + d;
	}
	if (base == 10 && (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') &&
	    isdigit(peekc(lx, 1))) {
		unsigned e = 0;

		adv(lx);
		while (isdigit(peekc(lx, 0))) {
			e = e * 10 + (unsigned)(peekc(lx, 0) - '0');
			adv(lx);
			if (e > 30)
				over = true;
		}
		while (e-- && !over) {
			if (v > UINT64_MAX / 10)
				over = true;
			v *= 10;
		}
	}
	if (is_word(peekc(lx, 0))) {
		set_error(t, "syntax error, invalid suffix on a number");
		return;
	}
	if (over || v > (uint64_t)INT64_MAX) {
		set_error(t, "syntax error, number out of range");
		return;
	}
	t->type = ST_NUM;
	t->num = (int64_t)v;
}

static int lex_string(struct slexer *lx, struct stoken *t)
{
	char *buf;
	size_t n = 0, cap = 64;
	int c;

	adv(lx);
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		c = peekc(lx, 0);
		if (c < 0 || c == '\n') {
			free(buf);
			set_error(t, "unterminated string");
			return 0;
		}
		adv(lx);
		if (c == '"')
			break;
		if (c == '\\') {
			c = peekc(lx, 0);
			if (c < 0) {
				free(buf);
				set_error(t, "unterminated string");
				return 0;
			}
			adv(lx);
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '\\': case '"': case '\'': break;
			default:
				free(buf);
				set_error(t, "invalid escape character");
				return 0;
			}
		}
		if (n + 2 > cap && vxt_grow(&buf, &cap, n + 2, 1) < 0) {
			free(buf);
			return -ENOMEM;
		}
		buf[n++] = (char)c;
	}
	t->str = keep(lx, buf, n);
	free(buf);
	if (!t->str)
		return -ENOMEM;
	t->type = ST_STR;
	return 0;
}

struct op2 {
	const char *s;
	enum stok t;
};

static const struct op2 ops[] = {
	{ "->", ST_ARROW }, { "+=", ST_ADDEQ }, { "-=", ST_SUBEQ }, { "*=", ST_MULEQ },
	{ "/=", ST_DIVEQ }, { "++", ST_INC }, { "--", ST_DEC }, { "||", ST_OROR },
	{ "&&", ST_ANDAND }, { "==", ST_EQ }, { "!=", ST_NE },
	{ "<=", ST_LE }, { ">=", ST_GE }, { "<<", ST_SHL }, { ">>", ST_SHR },
	{ "{", ST_LBRACE }, { "}", ST_RBRACE }, { "(", ST_LPAREN }, { ")", ST_RPAREN },
	{ "[", ST_LBRACK }, { "]", ST_RBRACK }, { ",", ST_COMMA }, { ";", ST_SEMI },
	{ "/", ST_SLASH }, { "?", ST_QUEST }, { ":", ST_COLON }, { "=", ST_ASSIGN },
	{ "|", ST_OR }, { "^", ST_XOR }, { "&", ST_AND }, { "<", ST_LT }, { ">", ST_GT },
	{ "+", ST_PLUS }, { "-", ST_MINUS }, { "*", ST_STAR }, { "%", ST_PERCENT },
	{ "!", ST_NOT }, { "~", ST_TILDE },
};

/* A word: letters, digits, '_'; `args.x` is one word. */
static int lex_word(struct slexer *lx, struct stoken *t, size_t start)
{
	while (is_word(peekc(lx, 0)))
		adv(lx);
	if (lx->pos - start == 4 && !strncmp(lx->src + start, "args", 4) && peekc(lx, 0) == '.' &&
	    (isalpha(peekc(lx, 1)) || peekc(lx, 1) == '_')) {
		adv(lx);
		while (is_word(peekc(lx, 0)))
			adv(lx);
	}
	t->str = keep(lx, lx->src + start, lx->pos - start);
	if (!t->str)
		return -ENOMEM;
	t->type = ST_IDENT;
	return 0;
}

int vxt_btlex_next(struct slexer *lx, struct stoken *t, bool probe)
{
	int c;

	memset(t, 0, sizeof(*t));
	if (!skip_space(lx)) {
		t->line = lx->line;
		t->col = lx->col;
		set_error(t, "unterminated comment");
		return 0;
	}
	t->line = lx->line;
	t->col = lx->col;
	c = peekc(lx, 0);
	if (c < 0) {
		t->type = ST_END;
		return 0;
	}
	if (probe && is_probe_char(c) && c != '*' && c != '-') {
		size_t start = lx->pos;

		while (is_probe_char(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_PROBE;
		return 0;
	}
	if (isdigit(c)) {
		lex_number(lx, t);
		return 0;
	}
	if (isalpha(c) || c == '_')
		return lex_word(lx, t, lx->pos);
	if (c == '.' && (isalpha(peekc(lx, 1)) || peekc(lx, 1) == '_')) {	/* .member */
		size_t start = lx->pos;

		adv(lx);
		while (is_word(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_IDENT;	/* ".name" */
		return 0;
	}
	if (c == '$' || c == '@') {
		size_t start = lx->pos;

		adv(lx);
		while (is_word(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start + (c == '@'), lx->pos - start - (c == '@'));
		if (!t->str)
			return -ENOMEM;
		t->type = c == '@' ? ST_AGG : ST_IDENT;	/* "$name" keeps its '$' */
		if (c == '$' && lx->pos - start == 1) {
			set_error(t, "syntax error, unexpected $");
			return 0;
		}
		return 0;
	}
	if (c == '"')
		return lex_string(lx, t);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (lx->len - lx->pos >= n && !memcmp(lx->src + lx->pos, ops[i].s, n)) {
			for (size_t j = 0; j < n; j++)
				adv(lx);
			t->type = ops[i].t;
			return 0;
		}
	}
	if (isprint(c))
		snprintf(t->msg, sizeof(t->msg), "syntax error, invalid character '%c'", c);
	else
		snprintf(t->msg, sizeof(t->msg), "syntax error, invalid character 0x%02x",
			 (unsigned)c);
	t->type = ST_ERROR;
	return 0;
}
