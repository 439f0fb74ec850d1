/* script_lex.c - tokens of the D-style script language
 *
 * C-like tokens, plus probe descriptions (io:::start, tick-1s), aggregation
 * names (@name, @), kernel variables (`name), macro arguments ($1, $$1),
 * `#pragma D option` lines, numbers with a unit suffix
 * (20ms, 4k) and "strings" with C escapes. Comments are C's and C++'s; a
 * first line starting with #! is skipped. Strings handed out live until
 * vxt_slex_free().
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "vxtrace/util.h"

void vxt_slex_init(struct slexer *lx, const char *src, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = src;
	lx->len = len;
	lx->line = 1;
	lx->col = 1;
	if (len >= 2 && src[0] == '#' && src[1] == '!')
		while (lx->pos < len && src[lx->pos] != '\n')
			lx->pos++;
}

void vxt_slex_free(struct slexer *lx)
{
	for (size_t i = 0; i < lx->nstrs; i++)
		free(lx->strs[i]);
	free(lx->strs);
	lx->strs = NULL;
	lx->nstrs = lx->capstrs = 0;
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

	if (vxt_grow(&lx->strs, &lx->capstrs, lx->nstrs + 1, sizeof(*lx->strs)) < 0)
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

/* Skip blanks and comments. @return false on an unterminated comment. */
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
		} else if (c == '/' && peekc(lx, 1) == '/') {
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
	return c >= 0 && (isalnum(c) || c == '_' || c == ':' || c == '-' || c == '*' || c == '.');
}

static int lex_number(struct slexer *lx, struct stoken *t)
{
	uint64_t v = 0, mul = 1;
	int base = 10, c;
	bool over = false, digits = false;
	char unit[4] = "";
	unsigned nu = 0;

	if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X')) {
		base = 16;
		adv(lx);
		adv(lx);
	}
	while ((c = peekc(lx, 0)) >= 0 && isxdigit(c) && (base == 16 || isdigit(c))) {
		unsigned d = isdigit(c) ? (unsigned)(c - '0') : (unsigned)(tolower(c) - 'a' + 10);

		if (v > (UINT64_MAX - d) / (uint64_t)base)
			over = true;
		v = v * (uint64_t)base + d;
		digits = true;
		adv(lx);
	}
	if (!digits) {
		set_error(t, "invalid hexadecimal constant");
		return 0;
	}
	while (is_word(peekc(lx, 0)) && nu < 3)
		unit[nu++] = (char)peekc(lx, 0), adv(lx);
	unit[nu] = '\0';
	if (is_word(peekc(lx, 0)) || (nu && base == 16)) {
		set_error(t, "invalid suffix on a number");
		return 0;
	}
	if (!nu || !strcmp(unit, "ns") || !strcmp(unit, "b") || !strcmp(unit, "B"))
		mul = 1;
	else if (!strcmp(unit, "us"))
		mul = 1000;
	else if (!strcmp(unit, "ms"))
		mul = 1000000;
	else if (!strcmp(unit, "s"))
		mul = 1000000000;
	else if (!strcmp(unit, "k") || !strcmp(unit, "K") || !strcmp(unit, "kb") ||
		 !strcmp(unit, "KB"))
		mul = 1024;
	else if (!strcmp(unit, "m") || !strcmp(unit, "M") || !strcmp(unit, "MB"))
		mul = 1024 * 1024;
	else if (!strcmp(unit, "g") || !strcmp(unit, "G") || !strcmp(unit, "GB"))
		mul = 1024ull * 1024 * 1024;
	else if (!strcmp(unit, "u") || !strcmp(unit, "l") || !strcmp(unit, "ul") ||
		 !strcmp(unit, "ll") || !strcmp(unit, "ull") || !strcmp(unit, "UL") ||
		 !strcmp(unit, "ULL") || !strcmp(unit, "L") || !strcmp(unit, "LL"))
		mul = 1;
	else {
		snprintf(t->msg, sizeof(t->msg), "invalid suffix '%s' on a number (ns us ms s k m g)",
			 unit);
		t->type = ST_ERROR;
		return 0;
	}
	if (over || (mul > 1 && v > (uint64_t)INT64_MAX / mul) || v * mul > (uint64_t)INT64_MAX) {
		set_error(t, "number out of range");
		return 0;
	}
	t->type = ST_NUM;
	t->num = (int64_t)(v * mul);
	return 0;
}

static int lex_string(struct slexer *lx, struct stoken *t)
{
	char *buf;
	size_t n = 0, cap = 64;
	int c;

	adv(lx);		/* the opening quote */
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		c = peekc(lx, 0);
		if (c < 0 || c == '\n') {
			free(buf);
			set_error(t, "unterminated string constant");
			return 0;
		}
		adv(lx);
		if (c == '"')
			break;
		if (c == '\\') {
			c = peekc(lx, 0);
			if (c < 0) {
				free(buf);
				set_error(t, "unterminated string constant");
				return 0;
			}
			adv(lx);
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case '\\': case '"': case '\'': case '?': break;
			default:
				free(buf);
				set_error(t, "invalid escape sequence in a string constant");
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

static int lex_pragma(struct slexer *lx, struct stoken *t)
{
	size_t start = lx->pos;

	while (peekc(lx, 0) >= 0 && peekc(lx, 0) != '\n')
		adv(lx);
	t->str = keep(lx, lx->src + start, lx->pos - start);
	if (!t->str)
		return -ENOMEM;
	t->type = ST_PRAGMA;
	return 0;
}

struct op2 {
	const char *s;
	enum stok t;
};

static const struct op2 ops[] = {
	{ "->", ST_ARROW }, { "+=", ST_ADDEQ }, { "-=", ST_SUBEQ }, { "*=", ST_MULEQ },
	{ "/=", ST_DIVEQ }, { "++", ST_INC }, { "--", ST_DEC }, { "||", ST_OROR },
	{ "&&", ST_ANDAND }, { "^^", ST_XORXOR }, { "==", ST_EQ }, { "!=", ST_NE },
	{ "<=", ST_LE }, { ">=", ST_GE }, { "<<", ST_SHL }, { ">>", ST_SHR },
	{ "{", ST_LBRACE }, { "}", ST_RBRACE }, { "(", ST_LPAREN }, { ")", ST_RPAREN },
	{ "[", ST_LBRACK }, { "]", ST_RBRACK }, { ",", ST_COMMA }, { ";", ST_SEMI },
	{ "/", ST_SLASH }, { "?", ST_QUEST }, { ":", ST_COLON }, { "=", ST_ASSIGN },
	{ "|", ST_OR }, { "^", ST_XOR }, { "&", ST_AND }, { "<", ST_LT }, { ">", ST_GT },
	{ "+", ST_PLUS }, { "-", ST_MINUS }, { "*", ST_STAR }, { "%", ST_PERCENT },
	{ "!", ST_NOT }, { "~", ST_TILDE },
};

static int lex_common(struct slexer *lx, struct stoken *t, bool probe)
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
	if (c == '#') {
		if (lx->len - lx->pos >= 7 && !strncmp(lx->src + lx->pos, "#pragma", 7))
			return lex_pragma(lx, t);
		set_error(t, "unknown directive (only #pragma D option is known)");
		return 0;
	}
	if (probe && is_probe_char(c)) {
		size_t start = lx->pos;

		while (is_probe_char(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_PROBE;
		return 0;
	}
	if (isdigit(c))
		return lex_number(lx, t);
	if (isalpha(c) || c == '_') {
		size_t start = lx->pos;

		while (is_word(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_IDENT;
		return 0;
	}
	if ((c == '`' || c == '$') && (is_word(peekc(lx, 1)) || peekc(lx, 1) == '$')) {
		/* a kernel variable `name, a macro argument $1 $$1 $target */
		size_t start = lx->pos;

		adv(lx);
		if (c == '$' && peekc(lx, 0) == '$')
			adv(lx);
		while (is_word(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_IDENT;
		return 0;
	}
	if (c == '@') {
		size_t start;

		adv(lx);
		start = lx->pos;
		while (is_word(peekc(lx, 0)))
			adv(lx);
		t->str = keep(lx, lx->src + start, lx->pos - start);
		if (!t->str)
			return -ENOMEM;
		t->type = ST_AGG;
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
		snprintf(t->msg, sizeof(t->msg), "invalid character '%c'", c);
	else
		snprintf(t->msg, sizeof(t->msg), "invalid character 0x%02x", (unsigned)c);
	t->type = ST_ERROR;
	return 0;
}

int vxt_slex_next(struct slexer *lx, struct stoken *t)
{
	return lex_common(lx, t, false);
}

/* A probe description (letters, digits, _ : - * .) or any other token. */
int vxt_slex_probe(struct slexer *lx, struct stoken *t)
{
	return lex_common(lx, t, true);
}

const char *vxt_stok_name(enum stok t)
{
	static const char *const names[] = {
		[ST_END] = "end of file", [ST_IDENT] = "identifier", [ST_NUM] = "number",
		[ST_STR] = "string", [ST_PROBE] = "probe", [ST_AGG] = "aggregation",
		[ST_PRAGMA] = "#pragma", [ST_LBRACE] = "{", [ST_RBRACE] = "}",
		[ST_LPAREN] = "(", [ST_RPAREN] = ")", [ST_LBRACK] = "[", [ST_RBRACK] = "]",
		[ST_COMMA] = ",", [ST_SEMI] = ";", [ST_SLASH] = "/", [ST_ARROW] = "->",
		[ST_QUEST] = "?", [ST_COLON] = ":", [ST_ASSIGN] = "=", [ST_ADDEQ] = "+=",
		[ST_SUBEQ] = "-=", [ST_MULEQ] = "*=", [ST_DIVEQ] = "/=", [ST_INC] = "++",
		[ST_DEC] = "--", [ST_OROR] = "||", [ST_ANDAND] = "&&", [ST_XORXOR] = "^^",
		[ST_OR] = "|", [ST_XOR] = "^", [ST_AND] = "&", [ST_EQ] = "==", [ST_NE] = "!=",
		[ST_LT] = "<", [ST_LE] = "<=", [ST_GT] = ">", [ST_GE] = ">=", [ST_SHL] = "<<",
		[ST_SHR] = ">>", [ST_PLUS] = "+", [ST_MINUS] = "-", [ST_STAR] = "*",
		[ST_PERCENT] = "%", [ST_NOT] = "!", [ST_TILDE] = "~", [ST_ERROR] = "error",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "?";
}
