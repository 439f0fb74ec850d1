/* tok.h - what the D and the bpftrace front-ends share: their lexers'
 * token helpers (tok.c), and the slots of the names they meet, new nodes
 * and C's operators for their parsers (slots.c)
 * (internal to libvxtrace)
 *
 * Both read a struct slexer (script_impl.h) into struct stoken: the cursor
 * and its line and column, the strings a lexer keeps until vxt_slex_free(),
 * blanks and comments, words, digits, C escapes in strings, the operators
 * and the message of a character no token starts with. script_lex.c adds
 * D's (units on numbers, #pragma, `name and $$1), bt_lex.c bpftrace's
 * ($locals, args.x, 1e6 and 1_000, the preprocessor's lines).
 */
#ifndef VXT_SCRIPT_TOK_H
#define VXT_SCRIPT_TOK_H

#include "script/script_impl.h"

/* The character @ahead of the cursor, -1 past the end. Can't fail. */
int vxt_tok_peek(const struct slexer *lx, size_t ahead);
/* Move past one character, counting lines and columns. */
void vxt_tok_adv(struct slexer *lx);
/* A copy of @n bytes at @s kept by the lexer (freed by vxt_slex_free()),
 * NUL-terminated; NULL when out of memory. */
char *vxt_tok_keep(struct slexer *lx, const char *s, size_t n);
/* @t a token of @type whose text is the source from @start + @skip to the
 * cursor, kept by the lexer. @return 0 or -ENOMEM. */
int vxt_tok_take(struct slexer *lx, struct stoken *t, size_t start, size_t skip,
		 enum stok type);
/* Past the blanks and comments (and @directive's lines, as
 * vxt_tok_space()) before the next token, whose position goes into @t
 * (zeroed first). @return true when that is all @t gets: ST_END at the
 * end, ST_ERROR on an unterminated comment. */
bool vxt_tok_begin(struct slexer *lx, struct stoken *t,
		   bool (*directive)(const struct slexer *));
/* An ST_PROBE of the characters @is_probe takes at the cursor into @t.
 * @return 0 or -ENOMEM. */
int vxt_tok_probe(struct slexer *lx, struct stoken *t, bool (*is_probe)(int c));
/* @t an ST_ERROR saying @msg. */
void vxt_tok_error(struct stoken *t, const char *msg);
/* Whether the source at the cursor starts with @w. */
bool vxt_tok_starts(const struct slexer *lx, const char *w);
/* A letter, a digit or '_'. */
bool vxt_tok_is_word(int c);
/* Past letters, digits and '_'. */
void vxt_tok_word(struct slexer *lx);
/* Past blanks, C and C++ comments, and the lines @directive says are to be
 * skipped (called at a '#' in the first column; NULL: none). @return false
 * on an unterminated comment. */
bool vxt_tok_space(struct slexer *lx, bool (*directive)(const struct slexer *));
/* 16 past a 0x or 0X prefix, else 10 (nothing taken). */
int vxt_tok_base(struct slexer *lx);
/* Past the digits of @base (with @seps, '_' between them) into *@v, *@over
 * set when it wrapped. @return how many digits. */
unsigned vxt_tok_digits(struct slexer *lx, int base, bool seps, uint64_t *v, bool *over);

/* How a dialect words its strings: the escapes it takes (letters after
 * '\', of "ntrabfv\\\"'?") and its messages. */
struct tok_strings {
	const char *escapes;
	const char *unterminated;
	const char *bad_escape;
};
/* A "string" at the cursor (its opening quote) into @t: ST_STR, or
 * ST_ERROR with @d's message. @return 0 or -ENOMEM. */
int vxt_tok_string(struct slexer *lx, struct stoken *t, const struct tok_strings *d);
/* An operator or punctuation at the cursor into @t, taken: the longest
 * of C's (with D's ^^ when @xorxor). @return false when none starts here. */
bool vxt_tok_op(struct slexer *lx, struct stoken *t, bool xorxor);
/* @t an ST_ERROR naming character @c, after @prefix. */
void vxt_tok_bad_char(struct stoken *t, int c, const char *prefix);

/* slots.c: the slot of variable @name of @scope (SN_GLOBAL, SN_THIS ...)
 * and of aggregation @name, made at its first use (at @line, @col).
 * @return the slot, -ENAMETOOLONG (the caller says so) or -ENOMEM. */
int vxt_slot_var(struct vxt_script *s, uint8_t scope, const char *name, unsigned line,
		 unsigned col);
int vxt_slot_agg(struct vxt_script *s, const char *name, unsigned line, unsigned col);
/* A zeroed node of @kind at @line, @col, kept by @s; NULL (*@rc set to
 * -ENOMEM) when out of memory. */
struct script_node *vxt_script_node_new(struct vxt_script *s, int *rc, enum snk kind, unsigned line,
			    unsigned col);
/* The binding strength of binary operator @t (C's, with D's ^^ between ||
 * and &&); 0 when it is none, or a '/' that @slash_ends (a predicate's end). */
int vxt_tok_prec(enum stok t, bool slash_ends);
/* The node of binary operator @t: SN_AND, SN_OR, SN_XORXOR or SN_BINARY. */
enum snk vxt_tok_binary_kind(enum stok t);
/* Whether @t is a prefix operator (! - ~ + ++ --); an assignment (= += -=
 * *= /=). */
bool vxt_tok_unary(enum stok t);
bool vxt_tok_assign(enum stok t);

#endif
