/* strtab.h - interned strings (command names)
 *
 * Id 0 is always the empty string. Ids are dense and assigned in order of
 * first interning, so a table can be rebuilt by interning in id order.
 */
#ifndef VXTRACE_STRTAB_H
#define VXTRACE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define VXT_STR_MAX 255		/* longest string kept, in bytes */
#define VXT_STR_MANY "(many)"	/* what new strings become in a full table */

struct vxt_strtab;

/* @return a new table holding only "" (id 0), or NULL when out of memory. */
struct vxt_strtab *vxt_strtab_new(void);
void vxt_strtab_free(struct vxt_strtab *t);
/* Intern @s (at most @len bytes, truncated to VXT_STR_MAX).
 * @return its id, or -ENOMEM. */
int64_t vxt_strtab_intern(struct vxt_strtab *t, const char *s, size_t len);
/* Hold at most @limit strings (including ""; at least 2): once full but for
 * one, every new string maps to one last id holding VXT_STR_MANY. */
void vxt_strtab_set_limit(struct vxt_strtab *t, size_t limit);
/* @return how many distinct strings were mapped to VXT_STR_MANY. */
uint64_t vxt_strtab_over(const struct vxt_strtab *t);
/* @return the id of @s (as vxt_strtab_intern() would cut it), or -1. */
int64_t vxt_strtab_find(const struct vxt_strtab *t, const char *s, size_t len);
/* @return string @id, borrowed for the table's life; "" if out of range. */
const char *vxt_strtab_get(const struct vxt_strtab *t, uint32_t id);
/* @return the number of strings, including "". */
size_t vxt_strtab_count(const struct vxt_strtab *t);

#endif
