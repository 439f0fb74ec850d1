/* script_lex.c - tokens of the D-style script language
 *
 * C-like tokens, plus probe descriptions (io:::start, tick-1s), aggregation
 * names (@name, @), kernel variables (`name), macro arguments ($1, $$1),
 * `#pragma D option` lines, numbers with a unit suffix
 * (20ms, 4k) and "strings" with C escapes. Comments are C's and C++'s; a
 * first line starting with #! is skipped. Strings handed out live until
 * vxt_slex_free(). What the bpftrace lexer shares with it is tok.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/tok.h"

static bool is_probe_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == ':' || c == '-' || c == '*' || c == '.');
}

static int lex_number(struct slexer *lx, struct stoken *t)
{
	uint64_t v = 0, mul = 1;
	int base;
	bool over = false;
	char unit[4] = "";
	unsigned nu = 0;

	base = vxt_tok_base(lx);
	if (!vxt_tok_digits(lx, base, false, &v, &over)) {
		vxt_tok_error(t, "invalid hexadecimal constant");
		return 0;
	}
	while (vxt_tok_is_word(vxt_tok_peek(lx, 0)) && nu < 3)
		unit[nu++] = (char)vxt_tok_peek(lx, 0), vxt_tok_adv(lx);
	unit[nu] = '\0';
	if (vxt_tok_is_word(vxt_tok_peek(lx, 0)) || (nu && base == 16)) {
		vxt_tok_error(t, "invalid suffix on a number");
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
		vxt_tok_error(t, "number out of range");
		return 0;
	}
	t->type = ST_NUM;
	t->num = (int64_t)(v * mul);
	return 0;
}

static int lex_string(struct slexer *lx, struct stoken *t)
{
	static const struct tok_strings d = {
		"ntrabfv\\\"'?", "unterminated string constant",
		"invalid escape sequence in a string constant",
	};

	return vxt_tok_string(lx, t, &d);
}

static int lex_pragma(struct slexer *lx, struct stoken *t)
{
	size_t start = lx->pos;

	while (vxt_tok_peek(lx, 0) >= 0 && vxt_tok_peek(lx, 0) != '\n')
		vxt_tok_adv(lx);
	return vxt_tok_take(lx, t, start, 0, ST_PRAGMA);
}

static int lex_common(struct slexer *lx, struct stoken *t, bool probe)
{
	size_t start;
	int c;

	if (vxt_tok_begin(lx, t, NULL))
		return 0;
	start = lx->pos;
	c = vxt_tok_peek(lx, 0);
	if (c == '#') {
		if (vxt_tok_starts(lx, "#pragma"))
			return lex_pragma(lx, t);
		vxt_tok_error(t, "unknown directive (only #pragma D option is known)");
		return 0;
	}
	if (probe && is_probe_char(c))
		return vxt_tok_probe(lx, t, is_probe_char);
	if (isdigit(c))
		return lex_number(lx, t);
	if (isalpha(c) || c == '_') {
		vxt_tok_word(lx);
		return vxt_tok_take(lx, t, start, 0, ST_IDENT);
	}
	if ((c == '`' || c == '$') &&
	    (vxt_tok_is_word(vxt_tok_peek(lx, 1)) || vxt_tok_peek(lx, 1) == '$')) {
		/* a kernel variable `name, a macro argument $1 $$1 $target */
		vxt_tok_adv(lx);
		if (c == '$' && vxt_tok_peek(lx, 0) == '$')
			vxt_tok_adv(lx);
		vxt_tok_word(lx);
		return vxt_tok_take(lx, t, start, 0, ST_IDENT);
	}
	if (c == '@') {
		vxt_tok_adv(lx);
		vxt_tok_word(lx);
		return vxt_tok_take(lx, t, start, 1, ST_AGG);
	}
	if (c == '"')
		return lex_string(lx, t);
	if (!vxt_tok_op(lx, t, true))
		vxt_tok_bad_char(t, c, "");
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
