/* profile_kspec.c - which profiles a kernel source can run itself, decided
 * from their compiled programs
 *
 * A profile's speculation compiles to the script engine (script_keyed.c);
 * the kernel program runs it (struct vxt_kspec) when every op of each
 * clause is one the kernel has (a `spec` / `!spec` test, a predicate, the
 * steps speculation, speculate, commit, discard, a record) and its clauses
 * are one of the two forms the kernel program is:
 *   - the context: keyed by object, pid or object,pid, on every probe:
 *     /!spec/ speculation() in a window; speculate(); /TRIGGER/ commit()
 *     with its follow-up;
 *   - the request: keyed by the request, start: speculation(), speculate();
 *     done and requeue: /spec/ speculate(); done: /spec && TRIGGER/
 *     commit(); done: /spec/ discard().
 * A TRIGGER is whatever predicate behaves as `error`, `latency >= D`,
 * `latency > D` or one of them or the other: it reads no field but error
 * and latency (and spec, in the request form), and gives the answers of
 * that form on errors and latencies around D, whatever text it was
 * written as. Anything else runs in user space, and the reason is one
 * short phrase. The profile's nspec and specsize go in too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/program.h"
#include "select/filter_impl.h"
#include "select/spec_impl.h"
#include "vxtrace/profile.h"
#include "vxtrace/source.h"

#define KERNEL_CLAUSES	4	/* the request form's; the context's are 3 */

/* A clause as its ops say. */
struct kclause {
	bool seen;
	int pred;		/* -2 none, 1 spec, 0 !spec, -1 a predicate (filter) */
	unsigned npred;		/* its predicate's ops */
	unsigned actions[4];	/* enum vxt_spec_action */
	unsigned nactions;
	struct vxt_keyed_clause info;
};

/* Whether @op belongs to a predicate the kernel may test: the spec test,
 * error and latency against numbers, and the jumps between them. */
static bool predicate_op(const struct vxt_insn *op)
{
	switch (op->code) {
	case VXT_INSN_EVENT_INT: case VXT_INSN_FIELD:
		return op->a == SF_ERROR || op->a == SF_LATENCY;
	case VXT_INSN_INT: case VXT_INSN_EQ: case VXT_INSN_NE: case VXT_INSN_LT:
	case VXT_INSN_LE: case VXT_INSN_GT: case VXT_INSN_GE: case VXT_INSN_ULT:
	case VXT_INSN_ULE: case VXT_INSN_UGT: case VXT_INSN_UGE: case VXT_INSN_NOT:
	case VXT_INSN_TRUTH: case VXT_INSN_JUMP: case VXT_INSN_JUMP_IF:
	case VXT_INSN_JUMP_UNLESS: case VXT_INSN_UNLESS_ERROR: case VXT_INSN_IF_ERROR:
	case VXT_INSN_KEYED_SPEC: case VXT_INSN_KEYED_ACTIVE:
		return true;
	default:
		return false;
	}
}

/* The action a profile's action op runs. */
static unsigned action_of(unsigned code)
{
	switch (code) {
	case VXT_INSN_KEYED_SPECULATION: return VXT_ACT_SPECULATION;
	case VXT_INSN_KEYED_SPECULATE: return VXT_ACT_SPECULATE;
	case VXT_INSN_KEYED_COMMIT: return VXT_ACT_COMMIT;
	case VXT_INSN_KEYED_DISCARD: return VXT_ACT_DISCARD;
	default: return VXT_ACT_TRACE;
	}
}

/* The clauses of @s from its programs' ops into @kc. @return 0, or -1 with
 * the op the kernel does not have in @why. */
static int read_clauses(const struct vxt_script *s, struct kclause *kc, char *why, size_t len)
{
	for (unsigned k = 0; k < SON_COUNT; k++) {
		const struct vxt_program *p = s->prog_on[k];
		struct kclause *c = NULL;

		for (unsigned i = 0; i < p->nops; i++) {
			const struct vxt_insn *op = &p->ops[i];

			switch (op->code) {
			case VXT_INSN_CLAUSE:
				c = kc[op->a].seen ? NULL : &kc[op->a];	/* once */
				if (c) {
					c->seen = true;
					vxt_skeyed_clause(s, op->a, &c->info);
				}
				continue;
			case VXT_INSN_HALT: case VXT_INSN_RECORD:
				continue;
			case VXT_INSN_KEYED_SPECULATION: case VXT_INSN_KEYED_SPECULATE:
			case VXT_INSN_KEYED_COMMIT: case VXT_INSN_KEYED_DISCARD:
			case VXT_INSN_KEYED_TRACE:
				if (c && c->nactions < 4)
					c->actions[c->nactions++] = action_of(op->code);
				continue;
			default:
				if (!predicate_op(op)) {
					snprintf(why, len, "its op %s is not in the kernel's subset",
						 vxt_op_name_of(op->code));
					return -1;
				}
				if (!c)
					continue;
				/* spec or !spec alone, or a predicate trigger() reads */
				c->pred = ++c->npred == 1 && op->code == VXT_INSN_KEYED_SPEC ?
					  (int)op->a : -1;
				continue;
			}
		}
	}
	return 0;
}

static bool clause_is(const struct kclause *c, unsigned probes, unsigned clause_probes,
		      int pred, enum vxt_spec_action a0, int a1)
{
	return clause_probes == probes && c->pred == pred && c->nactions == (a1 < 0 ? 1u : 2u) &&
	       c->actions[0] == (unsigned)a0 && (a1 < 0 || c->actions[1] == (unsigned)a1);
}

/* Whether predicate @f behaves as (@with_spec: spec &&) (error || latency
 * >= D or > D), as the trigger the kernel program tests (filled in @k).
 * Decided on the compiled tests: the fields they read, the latency they
 * compare with, and their answers around it. */
static bool trigger(struct vxt_filter *f, bool with_spec, struct vxt_kspec *k)
{
	static const int16_t errors[] = { 0, -5, -28, -110, -1 };
	uint64_t d = 0;
	int strict = -1;

	for (unsigned i = 0; i < f->ntests; i++) {
		const struct ftest *t = &f->tests[i];

		if (t->field == FF_ERROR) {
			k->on_error = true;
		} else if (t->field == FF_LATENCY && (t->op == FO_LT || t->op == FO_LE)) {
			if (strict >= 0 && (d != t->val || strict != (t->op == FO_LE)))
				return false;	/* two thresholds */
			d = t->val;
			strict = t->op == FO_LE;	/* !(latency <= D): latency > D */
		} else if (!(t->field == FF_SPEC && with_spec)) {
			return false;
		}
	}
	if (strict >= 0 && !d)
		return false;
	k->on_latency_ns = strict >= 0 ? d : 0;
	k->latency_strict = strict == 1;
	if (!k->on_error && !k->on_latency_ns)
		return false;
	for (unsigned spec = 0; spec < 2; spec++)
		for (unsigned e = 0; e < sizeof(errors) / sizeof(errors[0]); e++) {
			uint64_t lats[] = { 0, 1, d - 1, d, d + 1, 2 * d + 1, UINT64_MAX / 4 };

			for (unsigned l = 0; l < sizeof(lats) / sizeof(lats[0]); l++) {
				struct vxt_event ev = { .phase = VXT_PH_DONE, .error = errors[e],
							.latency_ns = lats[l], .bytes = 4096 };
				struct vxt_filter_ctx ctx = { .spec = spec };
				bool slow = k->on_latency_ns &&
					    (k->latency_strict ? lats[l] > d : lats[l] >= d);
				bool want = (spec || !with_spec) &&
					    ((k->on_error && errors[e]) || slow);

				if (vxt_filter_eval(f, &ev, &ctx) != want)
					return false;
			}
		}
	return true;
}

/* The request form (the file's header). */
static bool request_form(const struct vxt_script *s, struct kclause *kc, struct vxt_kspec *k)
{
	const struct sclause *cl = s->cl;

	if (s->ncl != 4 || vxt_skeyed_key(s) != VXT_SPEC_KEY_REQUEST)
		return false;
	if (!clause_is(&kc[0], SP_START, cl[0].probes, -2, VXT_ACT_SPECULATION,
		       VXT_ACT_SPECULATE) || kc[0].info.windowed ||
	    !clause_is(&kc[1], SP_DONE | SP_REQUEUE, cl[1].probes, 1, VXT_ACT_SPECULATE, -1) ||
	    !clause_is(&kc[2], SP_DONE, cl[2].probes, -1, VXT_ACT_COMMIT, -1) ||
	    !clause_is(&kc[3], SP_DONE, cl[3].probes, 1, VXT_ACT_DISCARD, -1))
		return false;
	for (unsigned i = 1; i < 4; i++)
		if (kc[i].info.windowed || kc[i].info.follow_ns || kc[i].info.follow_events)
			return false;
	return trigger(kc[2].info.pred, true, k);
}

/* The context form (the file's header); its trigger checked apart. */
static bool context_form(const struct vxt_script *s, struct kclause *kc)
{
	const unsigned any = SP_QUEUE | SP_START | SP_DONE | SP_REQUEUE | SP_OTHER;
	const struct sclause *cl = s->cl;

	return s->ncl == 3 &&
	       clause_is(&kc[0], any, cl[0].probes, 0, VXT_ACT_SPECULATION, -1) &&
	       kc[0].info.windowed && !kc[0].info.follow_ns && !kc[0].info.follow_events &&
	       clause_is(&kc[1], any, cl[1].probes, -2, VXT_ACT_SPECULATE, -1) &&
	       !kc[1].info.windowed && !kc[1].info.follow_ns && !kc[1].info.follow_events &&
	       clause_is(&kc[2], any, cl[2].probes, -1, VXT_ACT_COMMIT, -1) &&
	       !kc[2].info.windowed;
}

/* The profile's nspec and specsize, defaults applied: the kernel sizes its
 * buffers by them. */
static void set_buffers(const struct vxt_profile *p, struct vxt_kspec *k)
{
	k->nspec = p->spec.nspec ? p->spec.nspec : VXT_SPEC_DEFAULT_NSPEC;
	k->specsize = p->spec.specsize ? p->spec.specsize : VXT_SPEC_DEFAULT_SIZE;
}

/* @s's clauses in a form the kernel program runs: 1 (in @k), else 0 with
 * the reason in @why. A context: profile's clauses are the context form by
 * construction: only its key and its trigger can keep it out. */
static int kernel_form(const struct vxt_profile *p, const struct vxt_script *s,
		       struct vxt_kspec *k, char *why, size_t len)
{
	struct kclause kc[KERNEL_CLAUSES] = { { 0 } };
	enum vxt_spec_key key = vxt_skeyed_key(s);
	bool read;

	for (unsigned i = 0; i < KERNEL_CLAUSES; i++)
		kc[i].pred = -2;
	read = s->ncl <= KERNEL_CLAUSES && read_clauses(s, kc, why, len) == 0;
	if (read && key == VXT_SPEC_KEY_REQUEST && !context_form(s, kc)) {
		if (request_form(s, kc, k)) {
			k->key = VXT_SPEC_KEY_REQUEST;
			return 1;
		}
		memset(k, 0, sizeof(*k));
		snprintf(why, len, "its clauses are not the request form the kernel program runs "
			 "(start: speculate; done: commit on error or latency, else discard)");
		return 0;
	}
	if (!p->is_context && !(read && context_form(s, kc))) {
		if (read || s->ncl > KERNEL_CLAUSES)
			snprintf(why, len, "its speculation: clauses are more than the kernel "
				 "program runs (the context: form and the request form with no "
				 "filter go into the kernel)");
		return 0;
	}
	if (key != VXT_SPEC_KEY_OBJECT && key != VXT_SPEC_KEY_PID &&
	    key != VXT_SPEC_KEY_OBJECT_PID) {
		snprintf(why, len, "the kernel program keys by object, pid or object,pid, not %s",
			 vxt_spec_key_name(key));
		return 0;
	}
	if (!read || !context_form(s, kc) || !trigger(kc[2].info.pred, false, k)) {
		memset(k, 0, sizeof(*k));
		snprintf(why, len, "its trigger '%s' is not one the kernel program knows (error, "
			 "latency >= D, latency > D)", p->spec.clauses[2].predicate);
		return 0;
	}
	k->key = key;
	k->before_ns = kc[0].info.window_ns;
	k->before_events = kc[0].info.window_events ? kc[0].info.window_events - 1 : 0;
	k->after_ns = kc[2].info.follow_ns;
	k->after_events = kc[2].info.follow_events;
	return 1;
}

int vxt_profile_explain(const struct vxt_profile *p, FILE *out, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_kspec k;
	struct vxt_script *s;
	char why[256];
	int rc;

	if (!p->has_spec) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: it has no speculation to compile", p->name);
		return -EINVAL;
	}
	s = p->program ? vxt_script_compile(p->program, p->program_len, p->name, NULL, 0, err) :
			 vxt_script_keyed(&p->spec, NULL, NULL, err);
	if (!s)
		return -EINVAL;
	rc = vxt_script_explain(s, out);
	vxt_script_free(s);
	if (vxt_profile_kspec(p, &k, why, sizeof(why)))
		fprintf(out, "kernel: a kernel source runs it\n");
	else
		fprintf(out, "kernel: user space: %s\n", why);
	return rc || ferror(out) ? EOF : 0;
}

int vxt_profile_kspec(const struct vxt_profile *p, struct vxt_kspec *k, char *why, size_t len)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_script *s;
	int rc;

	memset(k, 0, sizeof(*k));
	if (!p->has_spec) {
		snprintf(why, len, "it has no speculation");
		return 0;
	}
	if (p->program) {
		snprintf(why, len, "it has a program, which runs in user space");
		return 0;
	}
	if (p->filter && *p->filter) {
		snprintf(why, len, "it has a filter, which runs in user space");
		return 0;
	}
	s = vxt_script_keyed(&p->spec, NULL, NULL, err);
	if (!s) {
		snprintf(why, len, "it does not compile: %s", err);
		return 0;
	}
	rc = kernel_form(p, s, k, why, len);
	vxt_script_free(s);
	if (rc == 1)
		set_buffers(p, k);
	return rc;
}
