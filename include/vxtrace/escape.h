/* escape.h - names from traces, made safe for terminals, JSON and CSV
 *
 * Object, host and command names come from trace files, which anyone can
 * craft: "\e]0;PWNED\a" in a command name would set a terminal's title when
 * printed, a comma or newline in an object name would forge CSV rows, and a
 * byte that is not UTF-8 makes strict JSON parsers refuse a whole file. Every
 * output of names goes through one of these:
 *
 *   vxt_escape_text(): for a terminal or a text report. C0 controls, DEL, the
 *     C1 controls (U+0080..U+009F) and bytes that are not valid UTF-8 are
 *     written as C escapes: \a \b \t \n \v \f \r \e, \\ for a backslash,
 *     \xNN for the other bytes, \u0080..\u009f for the C1 code points.
 *     The result is one line of printable text; valid UTF-8 is kept.
 *   vxt_escape_json(): the inside of a JSON string (RFC 8259): " and \
 *     escaped, controls as \u00NN (\n, \t, \r, \b, \f by name), and a byte
 *     that is not part of valid UTF-8 as \u00NN of its value (0xff becomes
 *     \u00ff), so the output is always valid UTF-8.
 *   vxt_escape_csv(): one CSV field (RFC 4180): quoted when it holds a comma,
 *     quote, CR or LF, quotes doubled; a field starting with = + - @ TAB or CR
 *     gets a leading ' so spreadsheets do not run it as a formula (OWASP CSV
 *     injection). Bytes are kept otherwise.
 *
 * Each writes at most @size bytes including the NUL, cutting only between
 * whole escapes, and @return the length written (without the NUL). A buffer
 * of VXT_ESCAPE_MAX(n) bytes always holds the escape of an n-byte string.
 * Can't fail.
 */
#ifndef VXTRACE_ESCAPE_H
#define VXTRACE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define VXT_ESCAPE_MAX(n) (6 * (n) + 4)

/* Length (1..4) of the valid UTF-8 sequence starting at @s, 0 when the byte
 * at @s starts none (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, or cut short). */
size_t vxt_utf8_len(const char *s);

size_t vxt_escape_text(const char *s, char *buf, size_t size);
size_t vxt_escape_json(const char *s, char *buf, size_t size);
size_t vxt_escape_csv(const char *s, char *buf, size_t size);

/* True when @s is printable as it is: valid UTF-8 without C0, DEL or C1
 * controls (a backslash is fine). A screen that draws text the user typed
 * escapes only what is not plain, so "a\\b" in a filter shows as typed. */
bool vxt_text_is_plain(const char *s);

/* vxt_escape_text() of @s into a buffer of @size. @return buf, for printf
 * arguments: printf("%-16s", vxt_text(name, b, sizeof(b))). */
const char *vxt_text(const char *s, char *buf, size_t size);

/* Write @s to @f escaped (as "…" with quotes for JSON). @return 0, or EOF
 * on a write error. */
int vxt_fputs_text(const char *s, FILE *f);
int vxt_fputs_json(const char *s, FILE *f);
int vxt_fputs_csv(const char *s, FILE *f);

#endif
