/* filter_kernel.c - the part of a compiled filter a kernel source can test
 *
 * The compiled filter is a jump table of comparisons (filter_impl.h); the
 * plain ones (FK_RANGE, FK_BITS: op, phase, flags, sector, bytes, latency,
 * error ==, pid, cpu) compare a word of struct vxt_event and the kernel can
 * compute them from the record it makes; the others (names, time, dev,
 * ordered errno, spec) it cannot, and takes both ways. The table keeps the
 * filter's wiring; the parser lays the tests out so that every jump goes to
 * a lower index, and the kernel's table runs them the other way round
 * (test i there is test n - 1 - i here), every jump forward. A filter whose
 * jumps go both ways or that has more comparisons than the kernel's table
 * holds is not given to the kernel.
 */
#include <stdio.h>
#include <string.h>

#include "select/filter_impl.h"

static const char *field_name(unsigned field)
{
	static const char *const names[FF_COUNT] = {
		[FF_TIME] = "time", [FF_OBJECT] = "object", [FF_DEV] = "dev",
		[FF_PHASE] = "phase", [FF_OP] = "op", [FF_FLAGS] = "flags",
		[FF_SECTOR] = "sector", [FF_BYTES] = "bytes", [FF_LATENCY] = "latency",
		[FF_ERROR] = "error", [FF_PID] = "pid", [FF_COMM] = "comm", [FF_CPU] = "cpu",
		[FF_SPEC] = "spec", [FF_HOST] = "host",
	};

	return field < FF_COUNT && names[field] ? names[field] : "?";
}

static bool is_end(uint16_t to)
{
	return to == FT_ACCEPT || to == FT_REJECT;
}

/* Do all jumps go to lower indexes (@down) or all to higher ones? */
static bool one_way(const struct vxt_filter *f, bool down)
{
	for (unsigned i = 0; i < f->ntests; i++) {
		uint16_t to[2] = { f->tests[i].t, f->tests[i].f };

		for (int j = 0; j < 2; j++)
			if (!is_end(to[j]) && (down ? to[j] >= i : (to[j] <= i || to[j] >= f->ntests)))
				return false;
	}
	return true;
}

int vxt_filter_kernel(const struct vxt_filter *f, struct vxt_kfilter *k)
{
	unsigned seen = 0;
	size_t len = 0;
	bool down;

	memset(k, 0, sizeof(*k));
	_Static_assert(VXT_KFILTER_ACCEPT == FT_ACCEPT && VXT_KFILTER_REJECT == FT_REJECT,
		       "one encoding of the ends");
	/* intervals pair every event in user space: none may stay behind */
	if (f->ntests > VXT_KFILTER_TESTS || vxt_filter_uses_intervals(f))
		return -1;
	down = one_way(f, true);
	if (!down && !one_way(f, false))
		return -1;
#define AT(i) (is_end(i) || !down ? (uint16_t)(i) : (uint16_t)(f->ntests - 1 - (i)))
	if (!is_end(f->entry) && f->entry >= f->ntests)
		return -1;
	k->entry = AT(f->entry);
	k->n = f->ntests;
	for (unsigned j = 0; j < f->ntests; j++) {	/* in the kernel's order */
		unsigned i = down ? f->ntests - 1 - j : j;
		const struct ftest *t = &f->tests[i];
		struct vxt_kfilter_test *kt = &k->test[j];

		kt->t = AT(t->t);
		kt->f = AT(t->f);
		if (t->kind != FK_RANGE && t->kind != FK_BITS)
			continue;
		kt->known = 1;
		kt->word = t->word;
		kt->shift = t->shift;
		kt->mask = t->mask;
		kt->lo = t->lo;
		kt->span = t->span;
		k->nknown++;
		if (!(seen & (1u << t->field)) && len < sizeof(k->fields)) {
			seen |= 1u << t->field;
			len += (size_t)snprintf(k->fields + len, sizeof(k->fields) - len, "%s%s",
						len ? ", " : "", field_name(t->field));
		}
	}
#undef AT
	return (int)k->nknown;
}
