/* spec_life.c - a speculation engine's life cycle: made from its checked
 * configuration (clauses compiled, nspec buffers and the key table
 * allocated), freed, and its counters read and put in words
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/filter_impl.h"
#include "select/spec_impl.h"

void vxt_spec_free(struct vxt_spec *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ncl; i++)
		vxt_filter_free(s->cl[i].pred);
	if (s->bufs)
		for (unsigned i = 0; i < s->nspec; i++)
			free(s->bufs[i].ring);
	free(s->bufs);
	free(s->freel);
	free(s->active);
	free(s->tab);
	free(s->heap);
	free(s->log);
	free(s);
}

struct vxt_spec *vxt_spec_new(const struct vxt_spec_config *c, const struct vxt_objtab *objs,
			      const struct vxt_strtab *strs, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_spec *s;
	uint64_t specsize = c->specsize ? c->specsize : VXT_SPEC_DEFAULT_SIZE;

	if (vxt_spec_check(c, err) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	s->key = c->key;
	s->nspec = c->nspec ? c->nspec : VXT_SPEC_DEFAULT_NSPEC;
	s->maxrec = (uint32_t)(specsize / VXT_SPEC_RECORD_SIZE);
	s->max_pending = c->max_pending ? c->max_pending : VXT_SPEC_DEFAULT_PENDING;
	s->ncl = c->nclauses;
	for (unsigned i = 0; i < c->nclauses; i++) {
		const struct vxt_spec_clause *in = &c->clauses[i];
		struct cclause *cl = &s->cl[i];

		cl->probes = in->probes;
		cl->nact = in->nactions;
		memcpy(cl->act, in->actions, sizeof(cl->act));
		cl->windowed = in->windowed;
		cl->window = in->window_ns;
		cl->follow = in->follow_ns;
		cl->window_events = in->window_events;
		cl->follow_events = in->follow_events;
		if (vxt_spec_compile_pred(c, i, objs, strs, &cl->pred, err) < 0) {
			vxt_spec_free(s);
			return NULL;
		}
		cl->pred_spec = cl->pred ? vxt_filter_spec_only(cl->pred) : -1;
	}
	s->bufs = calloc(s->nspec, sizeof(*s->bufs));
	s->freel = malloc(s->nspec * sizeof(*s->freel));
	s->active = malloc(s->nspec * sizeof(*s->active));
	s->tabcap = 64;
	s->tab = calloc(s->tabcap, sizeof(*s->tab));
	if (!s->bufs || !s->freel || !s->active || !s->tab)
		goto out_free;
	/* hand out slot 1 first */
	for (unsigned i = 0; i < s->nspec; i++)
		s->freel[i] = s->nspec - i;
	s->nfree = s->nspec;
	return s;

out_free:
	vxt_spec_free(s);
out_nomem:
	snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", c->name ? c->name : "speculation");
	return NULL;
}

void vxt_spec_set_time_base(struct vxt_spec *s, uint64_t base_ns)
{
	for (unsigned i = 0; i < s->ncl; i++)
		if (s->cl[i].pred)
			vxt_filter_set_time_base(s->cl[i].pred, base_ns);
}

void vxt_spec_get_stats(const struct vxt_spec *s, struct vxt_spec_stats *st)
{
	*st = s->st;
}

char *vxt_spec_format_problems(const struct vxt_spec_stats *st, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (st->failed)
		n = snprintf(buf, size, "%llu failed speculation%s (no speculative buffer "
			     "available)\n", (unsigned long long)st->failed,
			     st->failed == 1 ? "" : "s");
	if (st->drops && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, "%llu speculative drop%s\n",
			 (unsigned long long)st->drops, st->drops == 1 ? "" : "s");
	return buf;
}
