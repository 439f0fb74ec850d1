/* spec_check.c - speculation rules: names, the context shorthand, and the
 * rules of D checked before an engine is made
 *
 * A clause with speculate records nothing else and has one speculate; a
 * clause that commits or discards records nothing itself; commit and discard
 * exclude each other; speculation comes before speculate. Predicates are
 * compiled here too, so a bad one is reported with its position.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "select/spec_impl.h"

/* ---- names ---- */

static const char *const key_names[] = { "object", "pid", "object,pid", "request" };
static const char *const act_names[] = {
	[VXT_ACT_SPECULATION] = "speculation", [VXT_ACT_SPECULATE] = "speculate",
	[VXT_ACT_COMMIT] = "commit", [VXT_ACT_DISCARD] = "discard", [VXT_ACT_TRACE] = "trace",
};

const char *vxt_spec_key_name(unsigned key)
{
	return key < 4 ? key_names[key] : "?";
}

int vxt_spec_key_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, key_names[i]))
			return i;
	if (!strcmp(s, "pid,object"))
		return VXT_SPEC_KEY_OBJECT_PID;
	return -1;
}

const char *vxt_spec_action_name(unsigned act)
{
	return act >= VXT_ACT_SPECULATION && act <= VXT_ACT_TRACE ? act_names[act] : "?";
}

int vxt_spec_action_parse(const char *s)
{
	for (int i = VXT_ACT_SPECULATION; i <= VXT_ACT_TRACE; i++)
		if (!strcmp(s, act_names[i]))
			return i;
	return -1;
}

unsigned vxt_spec_probe_parse(const char *s)
{
	if (!strcmp(s, "start"))
		return VXT_PROBE_START;
	if (!strcmp(s, "done"))
		return VXT_PROBE_DONE;
	if (!strcmp(s, "requeue"))
		return VXT_PROBE_REQUEUE;
	if (!strcmp(s, "any"))
		return VXT_PROBE_ANY;
	return 0;
}

int vxt_spec_config_context(struct vxt_spec_config *c, enum vxt_spec_key key,
			    uint64_t before_ns, uint64_t after_ns, const char *on)
{
	struct vxt_spec_clause *cl = c->clauses;

	if (!on)
		return -EINVAL;
	c->key = key;
	c->nclauses = 3;
	memset(cl, 0, 3 * sizeof(*cl));
	/* every key keeps a speculation open: a ring of the last `before` */
	cl[0].probes = VXT_PROBE_ANY;
	cl[0].predicate = "!spec";
	cl[0].nactions = 1;
	cl[0].actions[0] = VXT_ACT_SPECULATION;
	cl[0].windowed = true;
	cl[0].window_ns = before_ns;
	/* every event goes to it (or straight out while following a trigger) */
	cl[1].probes = VXT_PROBE_ANY;
	cl[1].nactions = 1;
	cl[1].actions[0] = VXT_ACT_SPECULATE;
	/* a trigger commits it and keeps the key committing for `after` */
	cl[2].probes = VXT_PROBE_ANY;
	cl[2].predicate = on;
	cl[2].nactions = 1;
	cl[2].actions[0] = VXT_ACT_COMMIT;
	cl[2].follow_ns = after_ns;
	return 0;
}

void vxt_spec_config_context_events(struct vxt_spec_config *c, uint32_t before,
				    uint32_t after)
{
	/* the trigger itself is speculated before it commits: its buffer holds
	 * it beside the @before events that precede it */
	c->clauses[0].window_events = before ? before + 1 : 0;
	c->clauses[2].follow_events = after;
}

/* ---- checking ---- */

__attribute__((format(printf, 4, 5)))
static int check_fail(const struct vxt_spec_config *c, unsigned i, char *err,
		      const char *fmt, ...)
{
	const struct vxt_spec_clause *cl = i < VXT_SPEC_MAX_CLAUSES ? &c->clauses[i] : NULL;
	const char *name = c->name ? c->name : "speculation";
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!err)
		return -EINVAL;
	if (cl && cl->line)
		snprintf(err, VXT_ERRBUF_SIZE, "%s:%u:%u: %s", name, cl->line, cl->col, msg);
	else if (cl)
		snprintf(err, VXT_ERRBUF_SIZE, "%s: clause %u: %s", name, i + 1, msg);
	else
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", name, msg);
	return -EINVAL;
}

/* The rules of D for one clause's actions. */
static int check_actions(const struct vxt_spec_config *c, unsigned i, char *err)
{
	const struct vxt_spec_clause *cl = &c->clauses[i];
	unsigned seen[VXT_ACT_TRACE + 1] = { 0 };
	int first_speculate = -1, first_speculation = -1;

	if (cl->nactions == 0)
		return check_fail(c, i, err, "no action (speculation, speculate, commit, "
				  "discard or trace)");
	if (cl->nactions > VXT_SPEC_MAX_ACTIONS)
		return check_fail(c, i, err, "at most %d actions in a clause",
				  VXT_SPEC_MAX_ACTIONS);
	for (unsigned a = 0; a < cl->nactions; a++) {
		unsigned act = cl->actions[a];

		if (act < VXT_ACT_SPECULATION || act > VXT_ACT_TRACE)
			return check_fail(c, i, err, "unknown action %u", act);
		if (seen[act]++) {
			if (act == VXT_ACT_SPECULATE)
				return check_fail(c, i, err, "only one speculate per clause");
			return check_fail(c, i, err, "'%s' appears twice in one clause",
					  act_names[act]);
		}
		if (act == VXT_ACT_SPECULATE && first_speculate < 0)
			first_speculate = (int)a;
		if (act == VXT_ACT_SPECULATION && first_speculation < 0)
			first_speculation = (int)a;
	}
	if (seen[VXT_ACT_SPECULATE] && seen[VXT_ACT_TRACE])
		return check_fail(c, i, err, "a clause with speculate records nothing else: "
				  "move trace to a clause of its own");
	if (seen[VXT_ACT_COMMIT] && seen[VXT_ACT_DISCARD])
		return check_fail(c, i, err, "a clause cannot both commit and discard");
	if ((seen[VXT_ACT_COMMIT] || seen[VXT_ACT_DISCARD]) &&
	    (seen[VXT_ACT_SPECULATE] || seen[VXT_ACT_TRACE]))
		return check_fail(c, i, err, "a clause that %s records nothing itself: "
				  "move %s to an earlier clause",
				  seen[VXT_ACT_COMMIT] ? "commits" : "discards",
				  seen[VXT_ACT_SPECULATE] ? "speculate" : "trace");
	if (first_speculation > first_speculate && first_speculate >= 0)
		return check_fail(c, i, err, "speculation must come before speculate");
	if (cl->windowed && !seen[VXT_ACT_SPECULATION])
		return check_fail(c, i, err, "a window applies only to a clause that opens "
				  "a speculation");
	if (cl->follow_ns && !seen[VXT_ACT_COMMIT])
		return check_fail(c, i, err, "'after' applies only to a clause that commits");
	return 0;
}

int vxt_spec_compile_pred(const struct vxt_spec_config *c, unsigned i,
			const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			struct vxt_filter **out, char *err)
{
	const struct vxt_spec_clause *cl = &c->clauses[i];
	struct vxt_filter_opts o = {
		.name = c->name ? c->name : "predicate",
		.line = cl->pred_line, .col = cl->pred_col, .flags = VXT_FILTER_SPEC,
	};

	*out = NULL;
	if (!cl->predicate)
		return 0;
	*out = vxt_filter_compile_opts(cl->predicate, &o, objs, strs, NULL, err);
	return *out ? 0 : -EINVAL;
}

int vxt_spec_check(const struct vxt_spec_config *c, char err[VXT_ERRBUF_SIZE])
{
	int rc;

	if (c->key > VXT_SPEC_KEY_REQUEST)
		return check_fail(c, ~0u, err, "unknown key %u", (unsigned)c->key);
	if (c->nspec > VXT_SPEC_MAX_NSPEC)
		return check_fail(c, ~0u, err, "nspec must be between 1 and %d",
				  VXT_SPEC_MAX_NSPEC);
	if (c->specsize && c->specsize < VXT_SPEC_RECORD_SIZE)
		return check_fail(c, ~0u, err, "specsize must hold at least one event (%d bytes)",
				  VXT_SPEC_RECORD_SIZE);
	if (c->specsize > (uint64_t)VXT_SPEC_RECORD_SIZE * UINT32_MAX)
		return check_fail(c, ~0u, err, "specsize too large");
	if (c->nclauses == 0)
		return check_fail(c, ~0u, err, "speculation needs at least one clause");
	if (c->nclauses > VXT_SPEC_MAX_CLAUSES)
		return check_fail(c, ~0u, err, "at most %d clauses", VXT_SPEC_MAX_CLAUSES);
	for (unsigned i = 0; i < c->nclauses; i++) {
		struct vxt_filter *f;

		if (c->clauses[i].probes == 0)
			return check_fail(c, i, err, "no probe (start, done, requeue or any)");
		rc = check_actions(c, i, err);
		if (rc < 0)
			return rc;
		rc = vxt_spec_compile_pred(c, i, NULL, NULL, &f, err);
		vxt_filter_free(f);
		if (rc < 0)
			return rc;
	}
	return 0;
}
