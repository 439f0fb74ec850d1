/* profile.c - YAML profiles: checking the tree against the schema
 *
 * profile_yaml.c builds a small bounded tree; here each section is checked
 * against what it may contain and filled into struct vxt_profile. Every
 * message carries the file, line and column of the node at fault; filter
 * expressions report the position inside the expression mapped back to the
 * file (the typed values and mappings are profile_values.c). This file is
 * compiled with the install's VXT_PROFILE_DATADIR.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "select/profile_impl.h"
#include "vxtrace/filter.h"
#include "vxtrace/profile.h"
#include "vxtrace/util.h"

#define VAL(n, idx, k) ((idx)[k] >= 0 ? (n)->kid[(idx)[k]] : NULL)

static char *pstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static const char *const key_choices[] = { "object", "pid", "object,pid", "request" };

static int get_key(struct pctx *c, const struct ynode *n, unsigned *key)
{
	int k;

	if (vxt_prof_get_choice(c, n, "key", key_choices, 4, &k) < 0)
		return -EINVAL;
	*key = (unsigned)k;
	return 0;
}

static int get_nspec_size(struct pctx *c, const struct ynode *nspec, const struct ynode *size)
{
	uint64_t v;

	if (nspec) {
		if (vxt_prof_get_uint(c, nspec, "nspec", 1, VXT_SPEC_MAX_NSPEC, &v) < 0)
			return -EINVAL;
		c->p->spec.nspec = (unsigned)v;
	}
	if (size) {
		if (vxt_prof_get_size(c, size, "specsize", &v) < 0)
			return -EINVAL;
		if (v < VXT_SPEC_RECORD_SIZE)
			return fail(c, size, "specsize must hold at least one event (%d bytes)",
				    VXT_SPEC_RECORD_SIZE);
		c->p->spec.specsize = v;
	}
	return 0;
}

/* A name or a list of names, each mapped by @parse to a bit mask or index. */
static int get_words(struct pctx *c, const struct ynode *n, const char *key,
		     int (*parse)(struct pctx *c, const struct ynode *w, void *arg), void *arg)
{
	if (vxt_prof_visit(c, n) < 0)
		return -EINVAL;
	if (n->kind == Y_SCALAR)
		return parse(c, n, arg);
	if (n->kind != Y_SEQ)
		return fail(c, n, "'%s' takes a name or a list of names", key);
	if (n->n == 0)
		return fail(c, n, "'%s' needs at least one name", key);
	for (size_t i = 0; i < n->n; i++)
		if (parse(c, n->kid[i], arg) < 0)
			return -EINVAL;
	return 0;
}

static int parse_probe(struct pctx *c, const struct ynode *w, void *arg)
{
	unsigned m;

	if (vxt_prof_want_scalar(c, w, "probe", "a name") < 0)
		return -EINVAL;
	m = vxt_spec_probe_parse(w->str);
	if (!m)
		return fail(c, w, "unknown probe '%s' (start, done, requeue, any)", w->str);
	*(unsigned *)arg |= m;
	return 0;
}

static int parse_action(struct pctx *c, const struct ynode *w, void *arg)
{
	struct vxt_spec_clause *cl = arg;
	int a;

	if (vxt_prof_want_scalar(c, w, "action", "a name") < 0)
		return -EINVAL;
	a = vxt_spec_action_parse(w->str);
	if (a < 0)
		return fail(c, w, "unknown action '%s' (speculation, speculate, commit, discard, "
			    "trace)", w->str);
	if (cl->nactions == VXT_SPEC_MAX_ACTIONS)
		return fail(c, w, "at most %d actions in a clause", VXT_SPEC_MAX_ACTIONS);
	cl->actions[cl->nactions++] = (enum vxt_spec_action)a;
	return 0;
}

static int do_clause(struct pctx *c, const struct ynode *n, struct vxt_spec_clause *cl)
{
	static const char *const keys[] = { "probe", "predicate", "action", "window", "after" };
	int idx[5];
	const struct ynode *v;

	if (vxt_prof_get_map(c, n, "a clause", keys, 5, idx) < 0)
		return -EINVAL;
	cl->line = n->line;
	cl->col = n->col;
	cl->probes = VXT_PROBE_ANY;
	if ((v = VAL(n, idx, 0))) {
		cl->probes = 0;
		if (get_words(c, v, "probe", parse_probe, &cl->probes) < 0)
			return -EINVAL;
	}
	if ((v = VAL(n, idx, 1))) {
		if (vxt_prof_check_expr(c, v, "predicate", VXT_FILTER_SPEC, &cl->pred_line,
			       &cl->pred_col) < 0)
			return -EINVAL;
		cl->predicate = pstrdup(v->str);
		if (!cl->predicate)
			return -ENOMEM;
	}
	if (!(v = VAL(n, idx, 2)))
		return fail(c, n, "a clause needs an action (speculation, speculate, commit, "
			    "discard or trace)");
	if (get_words(c, v, "action", parse_action, cl) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 3))) {
		if (vxt_prof_get_duration(c, v, "window", &cl->window_ns) < 0)
			return -EINVAL;
		cl->windowed = true;
	}
	if ((v = VAL(n, idx, 4)) && vxt_prof_get_duration(c, v, "after", &cl->follow_ns) < 0)
		return -EINVAL;
	return 0;
}

static int do_speculation(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = { "key", "nspec", "specsize", "clauses" };
	struct vxt_spec_config *sc = &c->p->spec;
	const struct ynode *cls;
	unsigned key = VXT_SPEC_KEY_OBJECT;
	int idx[4];

	if (vxt_prof_get_map(c, n, "speculation", keys, 4, idx) < 0)
		return -EINVAL;
	if (VAL(n, idx, 0) && get_key(c, VAL(n, idx, 0), &key) < 0)
		return -EINVAL;
	sc->key = (enum vxt_spec_key)key;
	if (get_nspec_size(c, VAL(n, idx, 1), VAL(n, idx, 2)) < 0)
		return -EINVAL;
	cls = VAL(n, idx, 3);
	if (!cls)
		return fail(c, n, "speculation needs 'clauses'");
	if (vxt_prof_visit(c, cls) < 0)
		return -EINVAL;
	if (cls->kind != Y_SEQ || cls->n == 0)
		return fail(c, cls, "'clauses' takes a list of clauses");
	if (cls->n > VXT_SPEC_MAX_CLAUSES)
		return fail(c, cls->kid[VXT_SPEC_MAX_CLAUSES], "at most %d clauses",
			    VXT_SPEC_MAX_CLAUSES);
	for (size_t i = 0; i < cls->n; i++) {
		sc->nclauses = (unsigned)i + 1;
		if (do_clause(c, cls->kid[i], &sc->clauses[i]) < 0)
			return -EINVAL;
	}
	c->p->has_spec = true;
	return vxt_spec_check(sc, c->err);
}

static int do_context(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = { "key", "before", "after", "on", "nspec", "specsize",
					     "before_events", "after_events" };
	struct vxt_profile *p = c->p;
	const struct ynode *v;
	unsigned line, col;
	uint64_t u;
	int idx[8];

	if (vxt_prof_get_map(c, n, "context", keys, 8, idx) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 0)) && get_key(c, v, &p->context.key) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 1)) && vxt_prof_get_duration(c, v, "before", &p->context.before_ns) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 2)) && vxt_prof_get_duration(c, v, "after", &p->context.after_ns) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 3))) {
		if (vxt_prof_check_expr(c, v, "on", VXT_FILTER_SPEC, &line, &col) < 0)
			return -EINVAL;
		p->context.on = strdup(v->str);
	} else {
		p->context.on = strdup("error");
		line = col = 0;
	}
	if (!p->context.on)
		return -ENOMEM;
	if (get_nspec_size(c, VAL(n, idx, 4), VAL(n, idx, 5)) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 6))) {
		if (vxt_prof_get_uint(c, v, "before_events", 1, VXT_SPEC_MAX_WINDOW_EVENTS, &u) < 0)
			return -EINVAL;
		p->context.before_events = (uint32_t)u;
	}
	if ((v = VAL(n, idx, 7))) {
		if (vxt_prof_get_uint(c, v, "after_events", 1, VXT_SPEC_MAX_WINDOW_EVENTS, &u) < 0)
			return -EINVAL;
		p->context.after_events = (uint32_t)u;
	}
	vxt_spec_config_context(&p->spec, p->context.key, p->context.before_ns,
				p->context.after_ns, p->context.on);
	vxt_spec_config_context_events(&p->spec, p->context.before_events,
				       p->context.after_events);
	p->spec.clauses[2].pred_line = line;
	p->spec.clauses[2].pred_col = col;
	for (unsigned i = 0; i < p->spec.nclauses; i++) {
		p->spec.clauses[i].line = n->line;
		p->spec.clauses[i].col = n->col;
		/* the profile owns every predicate string */
		if (p->spec.clauses[i].predicate) {
			p->spec.clauses[i].predicate = strdup(p->spec.clauses[i].predicate);
			if (!p->spec.clauses[i].predicate)
				return -ENOMEM;
		}
	}
	p->has_spec = true;
	p->is_context = true;
	return vxt_spec_check(&p->spec, c->err);
}

static int parse_mark(struct pctx *c, const struct ynode *w, void *arg)
{
	static const char *const marks[] = { "errors", "lost", "slow", "none" };
	int m;

	if (vxt_prof_get_choice(c, w, "mark", marks, 4, &m) < 0)
		return -EINVAL;
	if (m < 3)
		*(unsigned *)arg |= 1u << m;
	return 0;
}

static int do_timeline(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = { "bin", "mark" };
	struct vxt_profile *p = c->p;
	const struct ynode *v;
	int idx[2];

	if (vxt_prof_get_map(c, n, "timeline", keys, 2, idx) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 0))) {
		if (v->kind == Y_SCALAR && !strcmp(v->str, "auto")) {
			p->timeline.bin_auto = true;
		} else {
			if (vxt_prof_get_duration(c, v, "bin", &p->timeline.bin_ns) < 0)
				return -EINVAL;
			if (!p->timeline.bin_ns)
				return fail(c, v, "'bin' must be above 0 (or auto)");
			p->timeline.bin_auto = false;
		}
	}
	if ((v = VAL(n, idx, 1))) {
		p->timeline.marks = 0;
		if (get_words(c, v, "mark", parse_mark, &p->timeline.marks) < 0)
			return -EINVAL;
	}
	return 0;
}

static const char *const metric_names[] = {
	"iops", "bytes", "latency-p50", "latency-p99", "errors",
};

static int do_heatmap(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = { "rows", "object", "buckets", "metric", "scale", "bins" };
	static const char *const rows[] = { "objects", "lba" };
	static const char *const scales[] = { "linear", "log" };
	struct vxt_profile *p = c->p;
	const struct ynode *v;
	uint64_t u;
	int idx[6], k;

	if (vxt_prof_get_map(c, n, "heatmap", keys, 6, idx) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 0))) {
		if (vxt_prof_get_choice(c, v, "rows", rows, 2, &k) < 0)
			return -EINVAL;
		p->heatmap.rows = (unsigned)k;
	}
	if ((v = VAL(n, idx, 1))) {
		if (vxt_prof_want_scalar(c, v, "object", "an object name") < 0)
			return -EINVAL;
		if (strlen(v->str) >= sizeof(p->heatmap.object))
			return fail(c, v, "object name too long");
		strcpy(p->heatmap.object, v->str);
	}
	if ((v = VAL(n, idx, 2))) {
		if (vxt_prof_get_uint(c, v, "buckets", 1, 4096, &u) < 0)
			return -EINVAL;
		p->heatmap.buckets = (unsigned)u;
	}
	if ((v = VAL(n, idx, 3))) {
		if (vxt_prof_get_choice(c, v, "metric", metric_names, 5, &k) < 0)
			return -EINVAL;
		p->heatmap.metric = (unsigned)k;
	}
	if ((v = VAL(n, idx, 4))) {
		if (vxt_prof_get_choice(c, v, "scale", scales, 2, &k) < 0)
			return -EINVAL;
		p->heatmap.scale = (unsigned)k;
	}
	if ((v = VAL(n, idx, 5))) {
		if (v->kind == Y_SCALAR && !strcmp(v->str, "auto")) {
			p->heatmap.bins = 0;
		} else {
			if (vxt_prof_get_uint(c, v, "bins", 1, 100000, &u) < 0)
				return -EINVAL;
			p->heatmap.bins = (unsigned)u;
		}
	}
	return 0;
}

static const char *const column_names[] = {
	"time", "wall", "object", "dev", "phase", "op", "flags", "sector", "bytes",
	"latency", "error", "pid", "comm", "cpu", "spec",
	"q2d", "d2c", "q2c", "q2g", "g2i", "i2d",
};

static int parse_column(struct pctx *c, const struct ynode *w, void *arg)
{
	struct vxt_profile *p = arg;
	int k;

	if (vxt_prof_get_choice(c, w, "column", column_names, VXT_COL_COUNT, &k) < 0)
		return -EINVAL;
	if (p->ncolumns == VXT_PROFILE_MAX_COLUMNS)
		return fail(c, w, "at most %d columns", VXT_PROFILE_MAX_COLUMNS);
	for (unsigned i = 0; i < p->ncolumns; i++)
		if (p->columns[i] == (unsigned)k)
			return fail(c, w, "column '%s' given twice", w->str);
	p->columns[p->ncolumns++] = (unsigned)k;
	return 0;
}

static int do_thresholds(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = { "latency" };
	static const char *const lkeys[] = { "warn", "crit" };
	struct vxt_profile *p = c->p;
	const struct ynode *lat, *v;
	int idx[1], lidx[2];

	if (vxt_prof_get_map(c, n, "thresholds", keys, 1, idx) < 0)
		return -EINVAL;
	lat = VAL(n, idx, 0);
	if (!lat)
		return 0;
	if (vxt_prof_get_map(c, lat, "thresholds.latency", lkeys, 2, lidx) < 0)
		return -EINVAL;
	if ((v = VAL(lat, lidx, 0)) && vxt_prof_get_duration(c, v, "warn", &p->thresholds.latency_warn_ns) < 0)
		return -EINVAL;
	if ((v = VAL(lat, lidx, 1)) && vxt_prof_get_duration(c, v, "crit", &p->thresholds.latency_crit_ns) < 0)
		return -EINVAL;
	if (p->thresholds.latency_warn_ns && p->thresholds.latency_crit_ns &&
	    p->thresholds.latency_crit_ns < p->thresholds.latency_warn_ns)
		return fail(c, v, "'crit' must not be below 'warn'");
	return 0;
}

static int do_root(struct pctx *c, const struct ynode *n)
{
	static const char *const keys[] = {
		"name", "description", "filter", "speculation", "context",
		"timeline", "heatmap", "columns", "thresholds", "program",
	};
	struct vxt_profile *p = c->p;
	const struct ynode *v;
	int idx[10];

	if (vxt_prof_get_map(c, n, "a profile", keys, 10, idx) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 0))) {
		if (vxt_prof_want_scalar(c, v, "name", "a name") < 0)
			return -EINVAL;
		if (!vxt_profile_name_ok(v->str))
			return fail(c, v, "'name' takes letters, digits, '-', '_' and '.' "
				    "(at most %d)", VXT_PROFILE_NAME_MAX - 1);
		strcpy(p->name, v->str);
	}
	if ((v = VAL(n, idx, 1)) && vxt_prof_get_string(c, v, "description", &p->description) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 2))) {
		if (vxt_prof_check_expr(c, v, "filter", 0, &p->filter_line, &p->filter_col) < 0)
			return -EINVAL;
		p->filter = strdup(v->str);
		if (!p->filter)
			return -ENOMEM;
	}
	if (VAL(n, idx, 3) && VAL(n, idx, 4))
		return fail(c, n->kid[idx[4] - 1], "a profile has either 'speculation' or "
			    "'context', not both");
	if (VAL(n, idx, 9) && (VAL(n, idx, 3) || VAL(n, idx, 4)))
		return fail(c, n->kid[idx[9] - 1], "a profile has either 'program' or '%s', not both",
			    VAL(n, idx, 3) ? "speculation" : "context");
	if ((v = VAL(n, idx, 9)) && vxt_prof_program(c, v) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 3)) && do_speculation(c, v) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 4)) && do_context(c, v) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 5)) && do_timeline(c, v) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 6)) && do_heatmap(c, v) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 7)) && get_words(c, v, "columns", parse_column, p) < 0)
		return -EINVAL;
	if ((v = VAL(n, idx, 8)) && do_thresholds(c, v) < 0)
		return -EINVAL;
	return 0;
}

static void defaults(struct vxt_profile *p)
{
	p->timeline.bin_auto = true;
	p->timeline.marks = VXT_MARK_ERRORS | VXT_MARK_LOST;
	p->heatmap.rows = VXT_PROF_ROWS_OBJECTS;
	p->heatmap.buckets = 64;
	p->heatmap.metric = VXT_PROF_IOPS;
	p->heatmap.scale = VXT_PROF_LINEAR;
}

void vxt_profile_free(struct vxt_profile *p)
{
	if (!p)
		return;
	free(p->description);
	free(p->filter);
	free(p->program);
	free(p->context.on);
	for (unsigned i = 0; i < VXT_SPEC_MAX_CLAUSES; i++)
		free((char *)p->spec.clauses[i].predicate);
	free((char *)p->spec.name);
	free(p);
}

struct vxt_profile *vxt_profile_parse(const char *text, size_t len, const char *file,
				      char err[VXT_ERRBUF_SIZE])
{
	struct pctx c = { .file = file ? file : "profile", .text = text, .len = len, .err = err };
	struct ytree t = { 0 };
	struct vxt_profile *p;
	int rc;

	err[0] = '\0';
	if (len > VXT_PROFILE_MAX_BYTES) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: profile too large (more than %d bytes)",
			 c.file, VXT_PROFILE_MAX_BYTES);
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: not a text file (NUL byte)", c.file);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out_nomem;
	c.p = p;
	defaults(p);
	p->spec.name = strdup(c.file);
	if (!p->spec.name)
		goto out_nomem;
	vxt_profile_name_from_file(c.file, p->name);
	rc = vxt_yparse(&c, &t);
	if (rc == 0 && !t.root)
		rc = vxt_prof_fail(&c, 1, 1, "empty profile");
	if (rc == 0)
		rc = do_root(&c, t.root);
	vxt_ytree_free(&t);
	if (rc < 0) {
		if (!err[0])
			goto out_nomem;
		vxt_profile_free(p);
		return NULL;
	}
	return p;

out_nomem:
	vxt_profile_free(p);
	snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", c.file);
	return NULL;
}

struct vxt_profile *vxt_profile_load(const char *path, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_profile *p;
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(VXT_PROFILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, VXT_PROFILE_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		p = NULL;
	} else {
		p = vxt_profile_parse(buf, n, path, err);
	}
	fclose(f);
	free(buf);
	if (p)
		snprintf(p->path, sizeof(p->path), "%s", path);
	return p;
}

const char *vxt_profile_datadir(void)
{
	return VXT_PROFILE_DATADIR;
}

/* ---- names ---- */

const char *vxt_column_name(unsigned col)
{
	return col < VXT_COL_COUNT ? column_names[col] : "?";
}

int vxt_column_parse(const char *s)
{
	for (int i = 0; i < VXT_COL_COUNT; i++)
		if (!strcmp(s, column_names[i]))
			return i;
	return -1;
}

const char *vxt_prof_metric_name(unsigned metric)
{
	return metric < 5 ? metric_names[metric] : "?";
}
