/* bt_struct.c - the kernel structures bpftrace's older block tools read
 * through a request or a bio: ((struct request *)arg0)->rq_disk->disk_name,
 * args->rq->q->disk->disk_name, ((struct bio *)arg0)->bi_iter.bi_size. A
 * recording holds no structure, but what these paths end in is a field of
 * the event: the disk's name is the object's, a request's length and
 * sector the event's. A cast is read and its type kept for messages; a
 * path ending in anything else is refused in words.
 */
#include <stdio.h>
#include <string.h>

#include "script/bt_impl.h"

static struct script_node *field(struct btparser *p, int f, const char *name, unsigned line,
			   unsigned col)
{
	struct script_node *n = vxt_btp_node(p, SN_FIELD, line, col);

	if (n) {
		n->idx = f;
		n->str = name;
	}
	return n;
}

/* The event's field a member path ends in, by its last member. */
static struct script_node *resolve(struct btparser *p, const char *last, const char *path,
			     unsigned line, unsigned col)
{
	static const struct { const char *member; int field; } m[] = {
		{ "disk_name", SF_OBJECT }, { "__data_len", SF_BYTES }, { "bi_size", SF_BYTES },
		{ "__sector", SF_SECTOR }, { "bi_sector", SF_SECTOR },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(m[i].member, last))
			return field(p, m[i].field, m[i].member, line, col);
	return vxt_btp_fail(p, line, col, "ERROR: a recording holds no kernel structures: "
			    "%.80s is none of disk_name, __data_len, __sector, bi_size, bi_sector",
			    path), NULL;
}

struct script_node *vxt_btp_members(struct btparser *p, struct script_node *base)
{
	char path[160] = "", last[64] = "";
	unsigned line = base->line, col = base->col;
	bool any = false;

	for (;;) {
		struct stoken *t = vxt_btp_peek(p);
		size_t n = strlen(path);

		if (t->type == ST_IDENT && t->str[0] == '.' && t->str[1]) {
			snprintf(last, sizeof(last), "%s", t->str + 1);
			snprintf(path + n, sizeof(path) - n, "%s", t->str);
			vxt_btp_take(p);
		} else if (t->type == ST_ARROW) {
			vxt_btp_take(p);
			t = vxt_btp_peek(p);
			if (t->type != ST_IDENT || t->str[0] == '.' || t->str[0] == '$')
				return vxt_btp_syntax(p, t), NULL;
			snprintf(last, sizeof(last), "%s", t->str);
			snprintf(path + n, sizeof(path) - n, "->%s", t->str);
			vxt_btp_take(p);
		} else {
			break;
		}
		any = true;
	}
	if (!any)
		return base;
	return resolve(p, last, path, line, col);
}

struct script_node *vxt_btp_cast(struct btparser *p, const struct stoken *at)
{
	struct stoken *t;
	struct script_node *e;

	vxt_btp_take(p);	/* struct */
	t = vxt_btp_peek(p);
	if (t->type != ST_IDENT)
		return vxt_btp_syntax(p, t), NULL;
	vxt_btp_take(p);
	while (vxt_btp_peek(p)->type == ST_STAR)
		vxt_btp_take(p);
	if (vxt_btp_expect(p, ST_RPAREN) < 0)
		return NULL;
	p->parens--;
	e = vxt_btp_unary(p);	/* what it casts: a request, a bio (arg0, args.rq) */
	if (!e)
		return NULL;
	(void)at;
	return e;
}
