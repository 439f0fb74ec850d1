/* tok.c - what the D and the bpftrace lexers share: the cursor, kept
 * strings, blanks and comments, words, digits, strings with C's escapes,
 * operators (tok.h)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/tok.h"
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

int vxt_tok_peek(const struct slexer *lx, size_t ahead)
{
	return lx->pos + ahead < lx->len ? (unsigned char)lx->src[lx->pos + ahead] : -1;
}

void vxt_tok_adv(struct slexer *lx)
{
	if (lx->src[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

char *vxt_tok_keep(struct slexer *lx, const char *s, size_t n)
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

int vxt_tok_take(struct slexer *lx, struct stoken *t, size_t start, size_t skip,
		 enum stok type)
{
	t->str = vxt_tok_keep(lx, lx->src + start + skip, lx->pos - start - skip);
	if (!t->str)
		return -ENOMEM;
	t->type = type;
	return 0;
}

bool vxt_tok_begin(struct slexer *lx, struct stoken *t,
		   bool (*directive)(const struct slexer *))
{
	bool closed;

	memset(t, 0, sizeof(*t));
	closed = vxt_tok_space(lx, directive);
	t->line = lx->line;
	t->col = lx->col;
	if (!closed) {
		vxt_tok_error(t, "unterminated comment");
		return true;
	}
	if (vxt_tok_peek(lx, 0) < 0) {
		t->type = ST_END;
		return true;
	}
	return false;
}

int vxt_tok_probe(struct slexer *lx, struct stoken *t, bool (*is_probe)(int c))
{
	size_t start = lx->pos;

	while (is_probe(vxt_tok_peek(lx, 0)))
		vxt_tok_adv(lx);
	return vxt_tok_take(lx, t, start, 0, ST_PROBE);
}

void vxt_tok_error(struct stoken *t, const char *msg)
{
	t->type = ST_ERROR;
	snprintf(t->msg, sizeof(t->msg), "%s", msg);
}

bool vxt_tok_starts(const struct slexer *lx, const char *w)
{
	size_t n = strlen(w);

	return lx->len - lx->pos >= n && !memcmp(lx->src + lx->pos, w, n);
}

bool vxt_tok_is_word(int c)
{
	return c >= 0 && (isalnum(c) || c == '_');
}

void vxt_tok_word(struct slexer *lx)
{
	while (vxt_tok_is_word(vxt_tok_peek(lx, 0)))
		vxt_tok_adv(lx);
}

bool vxt_tok_space(struct slexer *lx, bool (*directive)(const struct slexer *))
{
	for (;;) {
		int c = vxt_tok_peek(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			vxt_tok_adv(lx);
		} else if (c == '/' && vxt_tok_peek(lx, 1) == '*') {
			vxt_tok_adv(lx);
			vxt_tok_adv(lx);
			while (vxt_tok_peek(lx, 0) >= 0 &&
			       !(vxt_tok_peek(lx, 0) == '*' && vxt_tok_peek(lx, 1) == '/'))
				vxt_tok_adv(lx);
			if (vxt_tok_peek(lx, 0) < 0)
				return false;
			vxt_tok_adv(lx);
			vxt_tok_adv(lx);
		} else if ((c == '/' && vxt_tok_peek(lx, 1) == '/') ||
			   (c == '#' && directive && lx->col == 1 && directive(lx))) {
			while (vxt_tok_peek(lx, 0) >= 0 && vxt_tok_peek(lx, 0) != '\n')
				vxt_tok_adv(lx);
		} else {
			return true;
		}
	}
}

int vxt_tok_base(struct slexer *lx)
{
	if (vxt_tok_peek(lx, 0) == '0' &&
	    (vxt_tok_peek(lx, 1) == 'x' || vxt_tok_peek(lx, 1) == 'X')) {
		vxt_tok_adv(lx);
		vxt_tok_adv(lx);
		return 16;
	}
	return 10;
}

unsigned vxt_tok_digits(struct slexer *lx, int base, bool seps, uint64_t *v, bool *over)
{
	unsigned n = 0;
	int c;

	while ((c = vxt_tok_peek(lx, 0)) >= 0 &&
	       ((isxdigit(c) && (base == 16 || isdigit(c))) || (seps && c == '_'))) {
		unsigned d;

		vxt_tok_adv(lx);
		if (c == '_')
			continue;
		d = isdigit(c) ? (unsigned)(c - '0') : (unsigned)(tolower(c) - 'a' + 10);
		if (*v > (UINT64_MAX - d) / (uint64_t)base)
			*over = true;
		*v = *v * (uint64_t)base + d;
		n++;
	}
	return n;
}

/* The character escape @c stands for, -1 when @escapes lacks it. */
static int escape(int c, const char *escapes)
{
	static const char from[] = "ntrabfv\\\"'?", to[] = "\n\t\r\a\b\f\v\\\"'?";
	const char *f = c > 0 ? strchr(from, c) : NULL;

	return f && strchr(escapes, c) ? to[f - from] : -1;
}

int vxt_tok_string(struct slexer *lx, struct stoken *t, const struct tok_strings *d)
{
	char *buf;
	size_t n = 0, cap = 64;
	int c;

	vxt_tok_adv(lx);	/* the opening quote */
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		c = vxt_tok_peek(lx, 0);
		if (c < 0 || c == '\n')
			goto unterminated;
		vxt_tok_adv(lx);
		if (c == '"')
			break;
		if (c == '\\') {
			c = vxt_tok_peek(lx, 0);
			if (c < 0)
				goto unterminated;
			vxt_tok_adv(lx);
			if ((c = escape(c, d->escapes)) < 0) {
				free(buf);
				vxt_tok_error(t, d->bad_escape);
				return 0;
			}
		}
		if (n + 2 > cap && vxt_grow(&buf, &cap, n + 2, 1) < 0) {
			free(buf);
			return -ENOMEM;
		}
		buf[n++] = (char)c;
	}
	t->str = vxt_tok_keep(lx, buf, n);
	free(buf);
	if (!t->str)
		return -ENOMEM;
	t->type = ST_STR;
	return 0;
unterminated:
	free(buf);
	vxt_tok_error(t, d->unterminated);
	return 0;
}

bool vxt_tok_op(struct slexer *lx, struct stoken *t, bool xorxor)
{
	static const struct { const char *s; enum stok t; } ops[] = {
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

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (ops[i].t == ST_XORXOR && !xorxor)
			continue;
		if (vxt_tok_starts(lx, ops[i].s)) {
			for (size_t j = 0; j < n; j++)
				vxt_tok_adv(lx);
			t->type = ops[i].t;
			return true;
		}
	}
	return false;
}

void vxt_tok_bad_char(struct stoken *t, int c, const char *prefix)
{
	if (isprint(c))
		snprintf(t->msg, sizeof(t->msg), "%sinvalid character '%c'", prefix, c);
	else
		snprintf(t->msg, sizeof(t->msg), "%sinvalid character 0x%02x", prefix, (unsigned)c);
	t->type = ST_ERROR;
}
