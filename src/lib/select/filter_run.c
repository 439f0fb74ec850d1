/* filter_run.c - a compiled filter run by the script engine
 *
 * A filter is a D predicate: filter_lower.c compiles its jump table into
 * the engine's ops, and vxt_filter_eval() runs them in the engine's one
 * loop (vm.c) over the event, in a script of the filter's own that holds
 * what the ops read beyond the event: the bound object and command tables,
 * the time origin, the registers, the event's intervals, and the answers
 * of its name tests per object / command id (name_cache.c). `spec` is a
 * constant in each of two programs, one for each of its values. Evaluation
 * allocates nothing. The rest is what the table tells: the fields it reads,
 * the intervals, whether it is always true.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "script/program.h"
#include "script/script_impl.h"
#include "select/filter_impl.h"
#include "select/spec_impl.h"
#include "vxtrace/phasepair.h"
#include "vxtrace/vxt.h"

/* The filter's script: the nodes of its programs, its registers. */
static void run_free(struct vxt_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmem; i++)
		free(s->mem[i]);
	free(s->mem);
	for (unsigned i = 0; s->ncache && i < s->nncache; i++)
		free(s->ncache[i].v);
	free(s->ncache);
	free(s->regs);
	vxt_phasepair_free(s->pp);
	free(s);
}

void vxt_filter_free(struct vxt_filter *f)
{
	if (!f)
		return;
	free(f->tests);
	free(f->pool);
	free(f->src);
	if (f->prog[1] != f->prog[0])
		vxt_program_free(f->prog[1]);
	vxt_program_free(f->prog[0]);
	run_free(f->run);
	free(f->x);
	free(f);
}

/* Whether a test of @f reads a field from @lo to @hi. */
static bool reads(const struct vxt_filter *f, unsigned lo, unsigned hi)
{
	for (unsigned i = 0; i < f->ntests; i++)
		if (f->tests[i].field >= lo && f->tests[i].field <= hi)
			return true;
	return false;
}

int vxt_filter_make_programs(struct vxt_filter *f)
{
	struct vxt_script *s = calloc(1, sizeof(*s));
	unsigned nregs;

	f->run = s;
	f->x = calloc(1, sizeof(*f->x));
	f->uses_iv = vxt_filter_uses_intervals(f);
	if (!s || !f->x || (f->uses_iv && !(s->pp = vxt_phasepair_new())))
		return -ENOMEM;
	s->nncache = f->ntests;		/* one per test; the name tests use theirs */
	s->ncache = calloc(f->ntests ? f->ntests : 1, sizeof(*s->ncache));
	if (!s->ncache)
		return -ENOMEM;
	f->x->s = s;
	vxt_ivals_unset(&s->iv);
	f->prog[0] = vxt_filter_program(s, f, 0);
	f->prog[1] = reads(f, FF_SPEC, FF_SPEC) ? vxt_filter_program(s, f, 1) : f->prog[0];
	if (!f->prog[0] || !f->prog[1])
		return -ENOMEM;
	nregs = f->prog[0]->nregs > f->prog[1]->nregs ? f->prog[0]->nregs : f->prog[1]->nregs;
	s->regs = calloc(nregs, sizeof(*s->regs));
	return s->regs ? 0 : -ENOMEM;
}

void vxt_filter_bind(struct vxt_filter *f, const struct vxt_objtab *objs,
		     const struct vxt_strtab *strs)
{
	struct vxt_script *s = f->run;

	s->objs = objs;
	s->strs = strs;
	for (unsigned i = 0; i < s->nncache; i++)	/* other names: forget the answers */
		if (s->ncache[i].v)
			memset(s->ncache[i].v, 0, s->ncache[i].n);
}

void vxt_filter_set_time_base(struct vxt_filter *f, uint64_t base_ns)
{
	f->run->time_base = base_ns;
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
	return reads(f, FF_Q2D, FF_I2D);
}

bool vxt_filter_is_true(const struct vxt_filter *f)
{
	return f->entry == FT_ACCEPT;
}

bool vxt_filter_eval(struct vxt_filter *f, const struct vxt_event *ev,
		     const struct vxt_filter_ctx *ctx)
{
	struct vxt_script *s = f->run;

	f->x->ev = ev;
	if (f->uses_iv) {
		if (ctx && ctx->iv)
			s->iv = *ctx->iv;
		else
			vxt_ivals_unset(&s->iv);
	}
	return vxt_program_run(f->x, f->prog[ctx && ctx->spec]) > 0;
}

bool vxt_filter_matches(struct vxt_filter *f, const struct vxt_event *ev)
{
	return vxt_filter_eval(f, ev, NULL);
}
