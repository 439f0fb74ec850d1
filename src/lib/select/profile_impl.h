/* profile_impl.h - the profile loader's YAML tree and shared helpers
 * (internal to libvxtrace)
 *
 * profile_yaml.c builds a bounded tree from libyaml's events, profile.c
 * checks it against the profile schema, profile_path.c finds profiles.
 */
#ifndef VXT_PROFILE_IMPL_H
#define VXT_PROFILE_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "vxtrace/profile.h"

#define Y_MAX_DEPTH	16
#define Y_MAX_NODES	8192
#define Y_MAX_SCALAR	(16 * 1024)
#define Y_MAX_ANCHORS	64
#define Y_MAX_ALIASES	32
#define Y_MAX_VISITS	20000	/* nodes visited while checking, aliases included */


enum ykind { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
	enum ykind kind;
	unsigned line, col;	/* 1-based */
	int style;		/* yaml_scalar_style_t */
	char *str;		/* scalars */
	struct ynode **kid;	/* maps: key, value, key, value ... */
	size_t n, cap;
};

struct ytree {
	struct ynode **all;
	size_t nall, capall;
	struct {
		char *name;
		struct ynode *node;
	} anchor[Y_MAX_ANCHORS];
	unsigned nanchors, naliases;
	struct ynode *root;
};

struct pctx {
	const char *file;
	const char *text;
	size_t len;
	char *err;
	struct vxt_profile *p;
	unsigned visits;
};

/* printf a "file:line:col: message" into c->err, on one printable line.
 * @return -EINVAL. */
int vxt_prof_fail(struct pctx *c, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define fail(c, n, ...) vxt_prof_fail((c), (n)->line, (n)->col, __VA_ARGS__)

/* Where the text of scalar @n starts in the file: @line, @col; for block
 * scalars (| and >) the indentation and *@block = true. */
void vxt_prof_expr_origin(const struct pctx *c, const struct ynode *n, unsigned *line,
			  unsigned *col, unsigned *indent, bool *block);

/* profile_program.c: the `program:` key, a D script; checked by compiling it. */
int vxt_prof_program(struct pctx *c, const struct ynode *n);

/* Parse c->text into @t (t->root is NULL for an empty document).
 * @return 0, or negative with the message in c->err ("" when out of memory). */
int vxt_yparse(struct pctx *c, struct ytree *t);
void vxt_ytree_free(struct ytree *t);

/* The installed profiles' directory, as this build was configured. */
const char *vxt_profile_datadir(void);

/* Letters, digits, '-', '_' and '.'; 1 to VXT_PROFILE_NAME_MAX - 1 bytes. */
bool vxt_profile_name_ok(const char *s);
bool vxt_ends_with(const char *s, const char *suffix);
/* The basename of @file without .yaml / .yml, into @name
 * (VXT_PROFILE_NAME_MAX bytes). */
void vxt_profile_name_from_file(const char *file, char *name);

/* The typed values of the tree (profile_values.c). Each visits its node
 * (bounding the work a crafted file can ask for) and fails with the node's
 * file:line:col; @key names the value in the message. */
bool vxt_prof_is_null(const struct ynode *n);
int vxt_prof_visit(struct pctx *c, const struct ynode *n);
int vxt_prof_want_scalar(struct pctx *c, const struct ynode *n, const char *key, const char *what);
int vxt_prof_get_string(struct pctx *c, const struct ynode *n, const char *key, char **out);
int vxt_prof_get_uint(struct pctx *c, const struct ynode *n, const char *key, uint64_t min,
		    uint64_t max, uint64_t *out);
int vxt_prof_get_duration(struct pctx *c, const struct ynode *n, const char *key, uint64_t *out);
int vxt_prof_get_size(struct pctx *c, const struct ynode *n, const char *key, uint64_t *out);
int vxt_prof_get_choice(struct pctx *c, const struct ynode *n, const char *key,
		      const char *const *choices, int nchoices, int *out);
int vxt_prof_check_expr(struct pctx *c, const struct ynode *n, const char *key, unsigned flags,
		      unsigned *line, unsigned *col);
int vxt_prof_get_map(struct pctx *c, const struct ynode *n, const char *what,
		   const char *const *keys, int nkeys, int *idx);

#endif
