/* filter_eval.c - running a compiled filter over events
 *
 * Walks the jump table of filter_impl.h: each test reads one field, compares,
 * and names the next test. Object and command names are looked up in the
 * bound tables the first time an id is seen by a test and the answer is kept
 * in the test's cache (every id, however many names a file has), so the
 * steady state is a byte load. The only allocation is a cache growing to the
 * table's size; when that fails the answer is computed uncached.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "vxtrace/phasepair.h"
#include "vxtrace/vxt.h"

void vxt_filter_free(struct vxt_filter *f)
{
	if (!f)
		return;
	free(f->tests);
	free(f->pool);
	for (size_t i = 0; f->cache && i < f->ncache; i++)
		free(f->cache[i].v);
	free(f->cache);
	free(f->src);
	free(f->table);
	free(f);
}

void vxt_filter_bind(struct vxt_filter *f, const struct vxt_objtab *objs,
		     const struct vxt_strtab *strs)
{
	f->objs = objs;
	f->strs = strs;
	for (size_t i = 0; i < f->ncache; i++)
		if (f->cache[i].v)
			memset(f->cache[i].v, 0, f->cache[i].n);
}

void vxt_filter_set_time_base(struct vxt_filter *f, uint64_t base_ns)
{
	f->time_base = base_ns;
}

const char *vxt_filter_source(const struct vxt_filter *f)
{
	return f->src;
}

unsigned vxt_filter_ntests(const struct vxt_filter *f)
{
	return f->ntests;
}

unsigned vxt_filter_fields(const struct vxt_filter *f)
{
	static const unsigned of[FF_COUNT] = {
		[FF_TIME] = VXT_FIELD_TIME, [FF_OBJECT] = VXT_FIELD_OBJECT,
		[FF_DEV] = VXT_FIELD_OBJECT, [FF_PHASE] = VXT_FIELD_PHASE_OP,
		[FF_OP] = VXT_FIELD_PHASE_OP, [FF_FLAGS] = VXT_FIELD_FLAGS,
		[FF_SECTOR] = VXT_FIELD_SECTOR, [FF_BYTES] = VXT_FIELD_BYTES,
		[FF_LATENCY] = VXT_FIELD_LATENCY, [FF_ERROR] = VXT_FIELD_ERROR,
		[FF_PID] = VXT_FIELD_PID, [FF_COMM] = VXT_FIELD_COMM, [FF_CPU] = VXT_FIELD_CPU,
		[FF_HOST] = VXT_FIELD_OBJECT,
	};
	unsigned fields = 0;

	for (unsigned i = 0; i < f->ntests; i++)
		fields |= f->tests[i].field < FF_Q2D ? of[f->tests[i].field] : VXT_FIELD_ALL;
	return fields;
}

bool vxt_filter_uses_intervals(const struct vxt_filter *f)
{
	for (unsigned i = 0; i < f->ntests; i++)
		if (f->tests[i].field >= FF_Q2D && f->tests[i].field <= FF_I2D)
			return true;
	return false;
}

int vxt_filter_spec_only(const struct vxt_filter *f)
{
	const struct ftest *t = f->tests;

	if (f->ntests != 1 || f->entry != 0 || t->field != FF_SPEC)
		return -1;
	if (t->t == FT_ACCEPT && t->f == FT_REJECT)
		return 1;
	if (t->t == FT_REJECT && t->f == FT_ACCEPT)
		return 0;
	return -1;
}

bool vxt_filter_is_true(const struct vxt_filter *f)
{
	return f->entry == FT_ACCEPT;
}

static bool cmp(unsigned op, uint64_t a, uint64_t b)
{
	return op == FO_EQ ? a == b : op == FO_LT ? a < b : a <= b;
}

/* Make room for @id in @c (to the table's @count ids at once). */
static bool cache_room(struct fcache *c, uint32_t id, size_t count)
{
	size_t n = count > id ? count : (size_t)id + 1;
	uint8_t *v;

	if (id < c->n)
		return true;
	if (n < 2 * c->n)
		n = 2 * c->n;
	v = realloc(c->v, n);
	if (!v)
		return false;
	memset(v + c->n, 0, n - c->n);
	c->v = v;
	c->n = n;
	return true;
}

/* The answer of a name or dev test for the object / command of @ev. */
static bool name_test(struct vxt_filter *f, const struct ftest *t, const struct vxt_event *ev)
{
	uint32_t id = t->field == FF_COMM ? ev->comm : ev->object;
	struct fcache *c = &f->cache[t->cache];
	const struct vxt_object *o;
	const char *name = "";
	uint32_t dev = 0;
	size_t count = 0;
	bool known = false, r;

	if (id < c->n && c->v[id])
		return c->v[id] == 2;
	if (t->field == FF_COMM) {
		count = f->strs ? vxt_strtab_count(f->strs) : 0;
		if (id < count) {
			name = vxt_strtab_get(f->strs, id);
			known = true;
		}
	} else if (f->objs && (o = vxt_objtab_get(f->objs, id))) {
		count = vxt_objtab_count(f->objs);
		name = t->field == FF_HOST ? o->host : o->name;
		dev = o->dev;
		known = true;
	}
	f->lookups++;
	if (t->op == FO_DEVCMP)
		r = cmp(t->aux, dev, t->val);
	else if (t->op == FO_STREQ)
		r = !strcmp(name, f->pool + t->str);
	else
		r = vxt_glob_match(f->pool + t->str, name);
	if (known && cache_room(c, id, count))
		c->v[id] = r ? 2 : 1;
	return r;
}

static bool run_test(struct vxt_filter *f, const struct ftest *t, const struct vxt_event *ev,
		     const struct vxt_filter_ctx *ctx)
{
	uint64_t v;

	switch (t->field) {
	case FF_TIME:
		v = ev->time_ns > f->time_base ? ev->time_ns - f->time_base : 0;
		break;
	case FF_PHASE:
		v = ev->phase;
		break;
	case FF_OP:
		v = ev->op;
		break;
	case FF_FLAGS:
		v = ev->flags;
		break;
	case FF_SECTOR:
		v = ev->sector;
		break;
	case FF_BYTES:
		v = ev->bytes;
		break;
	case FF_LATENCY:
		v = vxt_event_latency(ev);
		break;
	case FF_ERROR:
		v = ev->error < 0 ? (uint64_t)-(int64_t)ev->error : (uint64_t)ev->error;
		break;
	case FF_PID:
		v = ev->pid;
		break;
	case FF_CPU:
		v = ev->cpu;
		break;
	case FF_SPEC:
		return ctx && ctx->spec;
	case FF_Q2D: case FF_D2C: case FF_Q2C: case FF_Q2G: case FF_G2I: case FF_I2D:
		v = ctx && ctx->iv ? ctx->iv->v[t->field - FF_Q2D] : VXT_IV_UNSET;
		if (t->op == FO_SET)
			return v != VXT_IV_UNSET;
		break;		/* the parser put a FO_SET test before this one */
	default:		/* object, comm, dev */
		return name_test(f, t, ev);
	}
	if (t->op == FO_BITS)
		return (v & t->val) != 0;
	return cmp(t->op, v, t->val);
}

static inline bool fast_test(const struct ftest *t, const char *base)
{
	uint64_t w;

	memcpy(&w, base + 8 * t->word, sizeof(w));
	return ((w >> t->shift) & t->mask) - t->lo <= t->span;
}

bool vxt_filter_eval(struct vxt_filter *f, const struct vxt_event *ev,
		     const struct vxt_filter_ctx *ctx)
{
	const char *base = (const char *)ev;
	unsigned pc = f->entry;

	if (f->table && f->all_fast) {
		unsigned m = 0;

		for (unsigned i = 0; i < f->ntests; i++)
			m |= (unsigned)fast_test(&f->tests[i], base) << i;
		return f->table[m >> 3] >> (m & 7) & 1;
	}
	if (f->table) {
		unsigned m = 0;

		for (unsigned i = 0; i < f->ntests; i++) {
			const struct ftest *t = &f->tests[i];
			bool r = t->kind == FK_SLOW ? run_test(f, t, ev, ctx) : fast_test(t, base);

			m |= (unsigned)r << i;
		}
		return f->table[m >> 3] >> (m & 7) & 1;
	}
	while (pc < FT_REJECT) {
		const struct ftest *t = &f->tests[pc];
		bool r;

		if (t->kind == FK_SLOW)
			r = run_test(f, t, ev, ctx);
		else
			r = fast_test(t, base);
		pc = r ? t->t : t->f;
	}
	return pc == FT_ACCEPT;
}

int vxt_filter_make_table(struct vxt_filter *f)
{
	size_t n;

	if (f->ntests == 0 || f->ntests > FT_TABLE_TESTS)
		return 0;
	n = (size_t)1 << f->ntests;
	f->all_fast = true;
	for (unsigned i = 0; i < f->ntests; i++)
		if (f->tests[i].kind == FK_SLOW)
			f->all_fast = false;
	f->table = calloc((n + 7) / 8, 1);
	if (!f->table)
		return -ENOMEM;
	for (size_t m = 0; m < n; m++) {
		unsigned pc = f->entry;

		while (pc < FT_REJECT)
			pc = m >> pc & 1 ? f->tests[pc].t : f->tests[pc].f;
		if (pc == FT_ACCEPT)
			f->table[m >> 3] |= (uint8_t)(1u << (m & 7));
	}
	return 0;
}

bool vxt_filter_matches(struct vxt_filter *f, const struct vxt_event *ev)
{
	return vxt_filter_eval(f, ev, NULL);
}

/* Where each plain field sits: byte offset and size in struct vxt_event. */
static bool field_place(unsigned field, size_t *off, size_t *size)
{
#define PLACE(m) (*off = offsetof(struct vxt_event, m), \
		  *size = sizeof(((struct vxt_event *)0)->m), true)
	switch (field) {
	case FF_PHASE:		return PLACE(phase);
	case FF_OP:		return PLACE(op);
	case FF_FLAGS:		return PLACE(flags);
	case FF_SECTOR:		return PLACE(sector);
	case FF_BYTES:		return PLACE(bytes);
	case FF_LATENCY:	return PLACE(latency_ns);
	case FF_ERROR:		return PLACE(error);
	case FF_PID:		return PLACE(pid);
	case FF_CPU:		return PLACE(cpu);
	default:		return false;
	}
#undef PLACE
}

void vxt_ftest_lower(struct ftest *t)
{
	size_t off, size;
	uint64_t mask, val = t->val;

	t->kind = FK_SLOW;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return;			/* the word layout below is little-endian */
#endif
	if (!field_place(t->field, &off, &size) || off / 8 != (off + size - 1) / 8)
		return;
	mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
	if (t->field == FF_ERROR) {	/* stored negative: only == maps to a word */
		if (t->op != FO_EQ)
			return;
		val = (uint64_t)(-(int64_t)val) & mask;
	}
	t->word = (uint8_t)(off / 8);
	t->shift = (uint8_t)(8 * (off % 8));	/* little-endian layout */
	t->mask = mask;
	switch (t->op) {
	case FO_EQ:
		t->kind = FK_RANGE;
		t->lo = val;
		t->span = 0;
		break;
	case FO_LT:		/* val > 0: x < 0 is folded by the parser */
	case FO_LE:
		t->kind = FK_RANGE;
		t->lo = 0;
		t->span = t->op == FO_LT ? val - 1 : val;
		break;
	case FO_BITS:		/* (x & val) != 0  <=>  (x & val) - 1 <= ~0 - 1 */
		t->kind = FK_BITS;
		t->mask = mask & val;
		t->lo = 1;
		t->span = ~0ull - 1;
		break;
	default:
		break;
	}
	if (t->kind == FK_RANGE && t->lo > mask)	/* can never hold */
		t->kind = FK_SLOW;
}
