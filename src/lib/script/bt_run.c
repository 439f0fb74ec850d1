/* bt_run.c - the bpftrace actions D has no equivalent of: delete() of an
 * element whatever its type, clear() and zero() of a map used as a
 * variable, print() of a value or of such a map, time() and strftime()
 * (wall-clock time of the event: the events' clock plus walltimestamp's
 * offset, the file's anchor or the host's clock; local time as bpftrace
 * prints it), a remap's source (args.old_dev, args.old_sector) and the
 * bucket of hist(v, k)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script/bt_impl.h"

static void forget(struct vxt_script *s, struct sent *e)
{
	vxt_stab_delete(&s->vtab, e);
	vxt_sdyn_take(s, -(int64_t)S_ARRAY_SIZE(s));
}

static void delete_elem(struct firing *x, const struct script_node *a, const struct script_value *v)
{
	struct skey k = { .ns = (uint32_t)a->idx, .n = a->nargs };
	struct sent *e;

	for (unsigned i = 0; i < a->nargs; i++)
		k.k[i] = v[i];
	e = vxt_stab_find(&x->s->vtab, &k, vxt_stab_hash(&k));
	if (e)
		forget(x->s, e);
}

/* Every element of array @var goes: found first, as a deletion moves the
 * table's slots (entries stay where they are). @return 0 or -ENOMEM. */
static int clear_array(struct vxt_script *s, uint32_t var)
{
	struct sent **v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < s->vtab.cap; i++) {
		struct sent *e = vxt_stab_at(&s->vtab, i);

		if (!e || e->ns != var)
			continue;
		if (n == cap) {
			struct sent **nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = e;
	}
	for (size_t i = 0; i < n; i++)
		forget(s, v[i]);
	free(v);
	return 0;
}

static void text(struct firing *x, const char *p, size_t n)
{
	vxt_stext_add(x->s->text, &x->s->tlen, S_TEXT_MAX, p, n);
}

/* The event's time (now, outside events) as a struct tm, local time. */
static void wall(const struct firing *x, struct tm *tm, int64_t ns)
{
	int64_t real = ns + x->s->wall_off;	/* walltimestamp's offset */
	time_t t = (time_t)(real / 1000000000);

	localtime_r(&t, tm);
}

static size_t format_time(const struct firing *x, const char *fmt, int64_t ns, char *buf,
			  size_t size)
{
	struct tm tm;

	wall(x, &tm, ns);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	return strftime(buf, size, fmt, &tm);
#pragma GCC diagnostic pop
}

static int64_t now_ns(const struct firing *x)
{
	return x->ev ? (int64_t)x->ev->time_ns : (int64_t)x->s->now;
}

static bool prints_map(const struct script_node *a)
{
	return a->kind == SN_NUM && a->str && a->str[0] == '@';
}

unsigned vxt_bt_operands(const struct script_node *n, struct script_node *const **v)
{
	switch (n->num) {
	case BTA_DELETE:	/* the element's keys */
		*v = n->args[0]->args;
		return n->args[0]->nargs;
	case BTA_PRINT:		/* a value; a map is printed from its variable; an
				 * aggregation's top and div */
		if (n->args[0]->kind == SN_AGG) {
			*v = n->args + 1;
			return n->nargs - 1;
		}
		*v = n->args;
		return prints_map(n->args[0]) ? 0 : 1;
	case BTA_STRFTIME:	/* the time; the format is a constant */
		*v = n->args + 1;
		return 1;
	case BTA_LOG2K:		/* the value; k is a constant */
		*v = n->args;
		return 1;
	default:		/* clear(), time(): constants */
		*v = n->args;
		return 0;
	}
}

/* A while loop past its bound: a run-time error, counted and the first one
 * kept with its place as the engine keeps a division by zero; the clause
 * is abandoned. */
static void while_bound(struct firing *x, const struct script_node *n)
{
	struct vxt_script *s = x->s;

	if (!x->error) {
		s->st.errors++;
		if (!s->errs_seen && (s->errs_seen = malloc(512)))
			snprintf(s->errs_seen, 512, "ERROR: while loop still running after %d "
				 "rounds (the bound of a loop) at %s:%u:%u, probe %s",
				 BT_WHILE_MAX, s->file, n->line, n->col,
				 x->cl ? x->cl->probe_text : "?");
	}
	x->error = true;
}

int vxt_bt_run(struct firing *x, const struct script_node *n, const struct script_value *v)
{
	struct vxt_script *s = x->s;
	const struct script_node *a = n->nargs ? n->args[0] : NULL;
	char buf[512];
	size_t len;

	switch (n->num) {
	case BTA_DELETE:
		delete_elem(x, a, v);
		return 0;
	case BTA_CLEAR:
		if (a->idx)
			return clear_array(s, (uint32_t)a->num);
		s->globals[a->num].type = SV_NONE;
		return 0;
	case BTA_PRINT:
		if (prints_map(a) || a->kind == SN_AGG) {
			char *out = NULL;
			size_t olen = 0;
			FILE *f = open_memstream(&out, &olen);

			if (!f)
				return -ENOMEM;
			if (a->kind == SN_AGG)	/* print(@m, top[, div]) */
				vxt_bt_agg_print_top(s, &s->aggs[a->idx], f,
						     v[0].i > 0 ? (size_t)v[0].i : 0,
						     n->nargs > 2 && v[1].i > 0 ? v[1].i : 1);
			else
				vxt_bt_print_var(s, (unsigned)a->num, f);
			if (fclose(f) != 0) {
				free(out);
				return -ENOMEM;
			}
			text(x, out, olen);
			free(out);
		} else {
			int k = v[0].type == SV_STR ? snprintf(buf, sizeof(buf), "%s\n", v[0].s) :
				snprintf(buf, sizeof(buf), "%" PRId64 "\n", v[0].i);

			if (k > 0)
				text(x, buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
		}
		return 0;
	case BTA_TIME:
		len = format_time(x, a ? a->str : "%H:%M:%S\n", now_ns(x), buf, sizeof(buf));
		text(x, buf, len);
		return 0;
	case BTA_WHILE_BOUND:
		while_bound(x, n);
		return 0;
	default:
		return 0;
	}
}

/* A remap's source device (the kernel's dev_t, as args.dev) or sector: 0
 * when the event is no remap or its source is unknown. */
static int64_t remap_source(const struct firing *x, bool dev)
{
	const struct vxt_object *o;
	uint32_t obj;
	uint64_t sector;

	if (!x->ev || !vxt_event_remap_from(x->ev, &obj, &sector))
		return 0;
	if (!dev)
		return (int64_t)sector;
	o = x->s->objs ? vxt_objtab_get(x->s->objs, obj) : NULL;
	return o ? (int64_t)o->dev : 0;
}

/* bpftrace's bucket of @v in hist(v, k): 0 below 0, 1 + v below 2^k,
 * then 2^k buckets per power of 2: 1 + ((p - k + 1) << k) + the k bits
 * after v's leading 1, p that 1's position. */
static int64_t log2k(int64_t v, unsigned k)
{
	uint64_t u = (uint64_t)v, mask = (1ull << k) - 1;
	unsigned pos;

	if (v < 0)
		return 0;
	if (u <= mask)
		return v + 1;
	pos = 63 - (unsigned)__builtin_clzll(u);
	return (int64_t)((((uint64_t)pos - k + 1) << k) + ((u >> (pos - k)) & mask) + 1);
}

struct script_value vxt_bt_value(struct firing *x, const struct script_node *n, const struct script_value *v)
{
	struct script_value r = { .type = SV_STR, .s = "" };
	char buf[256];
	int rc = 0;

	if (n->num == BTA_LOG2K) {
		r.type = SV_INT;
		r.i = log2k(v[0].i, (unsigned)n->args[1]->num);
		return r;
	}
	if (n->num == BTA_OLD_DEV || n->num == BTA_OLD_SECTOR) {
		r.type = SV_INT;
		r.i = remap_source(x, n->num == BTA_OLD_DEV);
		return r;
	}
	if (n->num != BTA_STRFTIME)
		return r;
	format_time(x, n->args[0]->str, v[0].i, buf, sizeof(buf));
	r.s = vxt_sintern(x->s, buf, &rc);
	if (rc < 0) {
		x->rc = rc;
		x->error = true;
		r.s = "";
	}
	return r;
}

bool vxt_bt_is_value(const struct script_node *n)
{
	return n->kind == SN_CALL && n->idx == FN_BT &&
	       (n->num == BTA_STRFTIME || n->num == BTA_OLD_DEV || n->num == BTA_OLD_SECTOR ||
		n->num == BTA_LOG2K);
}

bool vxt_bt_prints(const struct script_node *n)
{
	return n->kind == SN_CALL && n->idx == FN_BT && (n->num == BTA_PRINT || n->num == BTA_TIME);
}

int vxt_bt_check_call(const struct vxt_script *s, struct script_node *n, char *err)
{
	if (!s->bt)
		return vxt_script_fail(s, err, n->line, n->col, "failed to resolve %s( ): "
				       "Unknown function name", n->str);
	n->type = n->num == BTA_STRFTIME ? SV_STR :
		  n->num == BTA_OLD_DEV || n->num == BTA_OLD_SECTOR || n->num == BTA_LOG2K ?
		  SV_INT : SV_NONE;
	if (n->num == BTA_LOG2K && n->args[0]->type == SV_STR)
		return vxt_script_fail(s, err, n->args[0]->line, n->args[0]->col,
				       "ERROR: hist() only supports integer arguments (string "
				       "provided)");
	if (n->num == BTA_STRFTIME && n->args[1]->type == SV_STR)
		return vxt_script_fail(s, err, n->args[1]->line, n->args[1]->col,
				       "ERROR: strftime() expects an integer (nsecs) as its "
				       "second argument");
	return 0;
}
