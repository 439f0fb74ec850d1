/* script.c - D-style scripts: loading, finding, life cycle, figures
 *
 * Compiles a script (script_parse.c, script_check.c), applies -x settings
 * over its pragmas, sizes the run-time state, and reports DTrace's
 * counters in DTrace's words. Scripts are found by name as NAME.d in the
 * profile directories (profile.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script/program.h"
#include "script/script_impl.h"
#include "vxtrace/escape.h"
#include "script/bt_impl.h"
#include "vxtrace/profile.h"

static void set_name(struct vxt_script *s, const char *file)
{
	const char *b = strrchr(file, '/');
	size_t n;

	b = b ? b + 1 : file;
	n = strlen(b);
	if (n > 2 && !strcmp(b + n - 2, ".d"))
		n -= 2;
	else if (n > 3 && !strcmp(b + n - 3, ".bt"))
		n -= 3;
	if (n >= sizeof(s->name))
		n = sizeof(s->name) - 1;
	memcpy(s->name, b, n);
	s->name[n] = '\0';
}

static int apply_x(struct vxt_script *s, const char *const *xopts, unsigned nx, char *err)
{
	for (unsigned i = 0; i < nx; i++) {
		char buf[256], *eq;
		int rc;

		snprintf(buf, sizeof(buf), "%s", xopts[i]);
		eq = strchr(buf, '=');
		if (eq)
			*eq++ = '\0';
		rc = vxt_script_set_option(s, buf, eq, 0, 0, err);
		if (rc < 0) {	/* "-x: message", not a position in the file */
			const char *msg = strstr(err, ": failed");

			snprintf(buf, sizeof(buf), "%s", msg ? msg + 2 : err);
			snprintf(err, VXT_ERRBUF_SIZE, "-x %s: %s", xopts[i], buf);
			return rc;
		}
	}
	return 0;
}

int vxt_script_alloc_runtime(struct vxt_script *s)
{
	s->globals = calloc(s->nvars + 1, sizeof(*s->globals));
	s->thisv = calloc(s->nvars + 1, sizeof(*s->thisv));
	s->spec = aligned_alloc(_Alignof(struct sspec), s->opt.nspec * sizeof(*s->spec));
	if (s->spec) {
		memset(s->spec, 0, s->opt.nspec * sizeof(*s->spec));
		for (unsigned i = 0; i < s->opt.nspec; i++) {
			s->spec[i].recs = s->spec[i].inl;
			s->spec[i].cap = SPEC_INLINE;
		}
	}
	s->spec_ids = calloc(s->opt.nspec, sizeof(*s->spec_ids));
	s->buf_free = calloc(s->opt.nspec, sizeof(*s->buf_free));
	s->freel = calloc(s->opt.nspec, sizeof(*s->freel));
	s->busyl = calloc(s->opt.nspec, sizeof(*s->busyl));
	if (!s->spec || !s->spec_ids || !s->buf_free || !s->freel || !s->busyl)
		return -ENOMEM;
	for (unsigned i = 0; i < s->opt.nspec; i++) {	/* id 1 and buffer 0 first */
		s->freel[i] = s->opt.nspec - i;
		s->buf_free[i] = s->opt.nspec - 1 - i;
	}
	s->nfree = s->opt.nspec;
	s->nbuf_free = s->opt.nspec;
	s->text = malloc(S_TEXT_MAX);
	s->dtext = malloc(S_DTEXT_MAX);
	s->thisl = calloc(s->nvars + 1, sizeof(*s->thisl));
	s->ticks = calloc(s->ncl + 1, sizeof(*s->ticks));
	s->next_tick = calloc(s->ncl + 1, sizeof(*s->next_tick));
	if (!s->globals || !s->thisv || !s->spec || !s->text || !s->dtext || !s->thisl ||
	    !s->ticks || !s->next_tick)
		return -ENOMEM;
	{
		unsigned maxkeys = 1;	/* the widest associative array's keys */

		for (unsigned i = 0; i < s->nvars; i++)
			if (s->vars[i].scope == SN_ARRAY && s->vars[i].nkeys > maxkeys)
				maxkeys = s->vars[i].nkeys;
		vxt_stab_init(&s->vtab, maxkeys, sizeof(struct script_value));
		vxt_stab_init(&s->ltab, maxkeys, sizeof(struct script_value));
	}
	for (unsigned i = 0; i < s->nvars; i++) {
		struct svar *v = &s->vars[i];

		if (v->scope == SN_REQ) {
			s->uses_req = true;
			v->slot = s->nreqv++;
		} else if (v->scope == SN_SELF) {
			v->slot = s->nself++;
		} else if (v->scope == SN_THIS) {
			s->thisl[s->nthis++] = i;
		} else if (v->scope == SN_ARRAY && !strncmp(v->name, "this->", 6)) {
			v->local = true;
			s->thisl[s->nthis++] = i;
		}
	}
	for (unsigned i = 0; i < s->ncl; i++) {
		unsigned j;

		if (!(s->cl[i].probes & SP_TICK))
			continue;
		for (j = 0; j < s->nticks && s->ticks[j] != s->cl[i].tick_ns; j++)
			;
		if (j == s->nticks)
			s->ticks[s->nticks++] = s->cl[i].tick_ns;
	}
	if (vxt_program_compile_script(s) < 0)
		return -ENOMEM;
	s->clean_ns = 1000000000ull / s->opt.cleanrate;
	vxt_ivals_unset(&s->iv);
	if (s->uses_iv && !(s->pp = vxt_phasepair_new()))
		return -ENOMEM;
	return 0;
}

void vxt_script_defaults(struct vxt_script *s, const char *file)
{
	snprintf(s->file, sizeof(s->file), "%s", file ? file : "script");
	set_name(s, s->file);
	s->opt.nspec = VXT_SCRIPT_DEFAULT_NSPEC;
	s->opt.specsize = VXT_SCRIPT_DEFAULT_SPECSIZE;
	s->opt.bufsize = VXT_SCRIPT_DEFAULT_BUFSIZE;
	s->opt.aggsize = VXT_SCRIPT_DEFAULT_AGGSIZE;
	s->opt.dynvarsize = VXT_SCRIPT_DEFAULT_DYNVARSIZE;
	s->opt.cleanrate = VXT_SCRIPT_DEFAULT_CLEANRATE;
	vxt_stab_init(&s->spool, 1, 0);
}

static struct vxt_script *compile(const char *text, size_t len, const char *file,
				  const char *const *xopts, unsigned nx, const char *const *args,
				  unsigned nargs, char err[VXT_ERRBUF_SIZE]);

struct vxt_script *vxt_script_compile(const char *text, size_t len, const char *file,
				      const char *const *xopts, unsigned nx,
				      char err[VXT_ERRBUF_SIZE])
{
	return compile(text, len, file, xopts, nx, NULL, 0, err);
}

static struct vxt_script *compile(const char *text, size_t len, const char *file,
				  const char *const *xopts, unsigned nx, const char *const *args,
				  unsigned nargs, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_script *s = calloc(1, sizeof(*s));
	int rc;

	err[0] = '\0';
	if (!s)
		goto nomem;
	vxt_script_defaults(s, file);
	if (len > VXT_SCRIPT_MAX_BYTES) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: larger than %d bytes", s->file,
			 VXT_SCRIPT_MAX_BYTES);
		goto fail;
	}
	if (memchr(text, '\0', len)) {
		size_t at = (size_t)((const char *)memchr(text, '\0', len) - text);

		snprintf(err, VXT_ERRBUF_SIZE, "%s: a NUL byte at offset %zu: not a script",
			 s->file, at);
		goto fail;
	}
	s->margs = (char **)args;	/* read while parsing only */
	s->nmargs = nargs;
	rc = vxt_bt_is_bpftrace(text, len, s->file) ? vxt_bt_parse(s, text, len, err) :
	     vxt_script_parse(s, text, len, err);
	s->margs = NULL;
	s->nmargs = 0;
	if (rc == 0)
		rc = vxt_script_check_depth(s, err);
	if (rc == 0)
		rc = vxt_script_check(s, err);
	if (rc == -EINVAL && s->bt)	/* a bpftrace program: bpftrace's words */
		vxt_bt_reword(err, VXT_ERRBUF_SIZE);
	if (rc == 0)
		rc = apply_x(s, xopts, nx, err);
	if (rc == 0)
		rc = vxt_script_alloc_runtime(s);
	if (rc == -ENOMEM && !err[0])
		goto nomem;
	if (rc < 0)
		goto fail;
	return s;
nomem:
	snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", file ? file : "script");
fail:
	vxt_script_free(s);
	return NULL;
}

struct vxt_script *vxt_script_load(const char *path, const char *const *xopts, unsigned nx,
				   char err[VXT_ERRBUF_SIZE])
{
	return vxt_script_load_args(path, xopts, nx, NULL, 0, err);
}

struct vxt_script *vxt_script_load_args(const char *path, const char *const *xopts, unsigned nx,
					const char *const *args, unsigned nargs,
					char err[VXT_ERRBUF_SIZE])
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	struct vxt_script *s;

	if (!f) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(VXT_SCRIPT_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, VXT_ERRBUF_SIZE, "%s: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, VXT_SCRIPT_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	s = compile(buf, n, path, xopts, nx, args, nargs, err);
	free(buf);
	return s;
}

int vxt_script_find(const char *name, const char *dir, char *path, size_t size,
		    char err[VXT_ERRBUF_SIZE])
{
	char dirs[VXT_PROFILE_MAX_DIRS][VXT_PROFILE_PATH_MAX];
	size_t n = strlen(name);
	int nd;

	if (strchr(name, '/') || (n > 2 && !strcmp(name + n - 2, ".d")) ||
	    (n > 3 && !strcmp(name + n - 3, ".bt"))) {
		snprintf(path, size, "%s", name);
		return 0;
	}
	nd = vxt_profile_dirs(dir, dirs, VXT_PROFILE_MAX_DIRS);
	for (int i = 0; i < nd; i++) {
		FILE *f;

		for (int bt = 0; bt < 2; bt++) {	/* NAME.d, else bpftrace's NAME.bt */
			if ((size_t)snprintf(path, size, "%s/%s.%s", dirs[i], name,
					     bt ? "bt" : "d") >= size)
				continue;
			f = fopen(path, "r");
			if (f) {
				fclose(f);
				return 0;
			}
		}
	}
	snprintf(err, VXT_ERRBUF_SIZE, "no script named '%s' (looked for %s.d in the profile "
		 "directories; see vxreplay --help)", name, name);
	return -ENOENT;
}

void vxt_script_free(struct vxt_script *s)
{
	if (!s)
		return;
	vxt_skeyed_free(s);
	vxt_phasepair_free(s->pp);
	free(s->bt);
	for (size_t i = 0; i < s->nmem; i++)
		free(s->mem[i]);
	free(s->mem);
	for (unsigned i = 0; i < s->naggs; i++)
		vxt_sagg_free(&s->aggs[i]);
	free(s->aggs);
	free(s->vars);
	free(s->cl);
	if (s->spec)
		for (unsigned i = 0; i < s->opt.nspec; i++) {
			if (s->spec[i].recs != s->spec[i].inl)
				free(s->spec[i].recs);
			free(s->spec[i].tx);
		}
	free(s->spec);
	free(s->spec_ids);
	free(s->buf_free);
	free(s->freel);
	free(s->busyl);
	for (size_t i = 0; i < s->spool.cap; i++) {	/* interned strings */
		struct sent *e = vxt_stab_at(&s->spool, i);

		if (e)
			free((char *)(uintptr_t)e->k[0]);
	}
	vxt_stab_free(&s->spool);
	vxt_stab_free(&s->vtab);
	vxt_stab_free(&s->ltab);
	vxt_sdyn_free_all(s);
	if (s->fast)
		for (unsigned i = 0; i < s->nfast; i++)
			free(s->fast[i].e);
	free(s->fast);
	vxt_program_free_script(s);
	free(s->thisl);
	free(s->dtext);
	free(s->oldest);
	free(s->globals);
	free(s->thisv);
	free(s->text);
	free(s->ticks);
	free(s->next_tick);
	free(s->errs_seen);
	free(s);
}

const struct vxt_script_options *vxt_script_get_options(const struct vxt_script *s)
{
	return &s->opt;
}

const char *vxt_script_name(const struct vxt_script *s)
{
	return s->name;
}

bool vxt_script_has_aggregations(const struct vxt_script *s)
{
	return s->naggs > 0 || s->nticks > 0;
}

int vxt_script_start(struct vxt_script *s, const struct vxt_objtab *objs,
		     const struct vxt_strtab *strs, vxt_script_sink_fn sink, void *arg)
{
	s->objs = objs;
	s->strs = strs;
	s->sink = sink;
	s->sink_arg = arg;
	if (s->started)
		return 0;
	s->started = true;
	if (!s->wall_set) {
		struct timespec r, m;

		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m);
		s->wall_off = ((int64_t)r.tv_sec - (int64_t)m.tv_sec) * 1000000000 +
			      (r.tv_nsec - m.tv_nsec);
	}
	return vxt_script_run_begin(s);
}

const char *vxt_script_warnings(const struct vxt_script *s)
{
	return s->warn;
}

void vxt_script_set_wall_offset(struct vxt_script *s, int64_t off_ns)
{
	s->wall_off = off_ns;
	s->wall_set = true;
}

void vxt_script_set_time_base(struct vxt_script *s, uint64_t base_ns)
{
	s->time_base = base_ns;
}

void vxt_script_set_live(struct vxt_script *s, bool live)
{
	s->live = live;
}

int vxt_script_explain(const struct vxt_script *s, FILE *out)
{
	vxt_program_explain(s, out);
	return ferror(out) ? EOF : 0;
}

void vxt_script_set_escape(struct vxt_script *s, bool on)
{
	s->escape = on;
}

const char *vxt_sprintable(const struct vxt_script *s, const char *str, char *buf, size_t size)
{
	return s->escape ? vxt_text(str, buf, size) : str;
}

bool vxt_script_exited(const struct vxt_script *s, int *code)
{
	/* a process keeps 8 bits of its status: exit(256) would read as 0,
	 * success, where the script asked for a failure */
	if (code)
		*code = (s->exit_code & 0xff) || !s->exit_code ? s->exit_code & 0xff : 1;
	return s->exited;
}

void vxt_script_get_stats(const struct vxt_script *s, struct vxt_script_stats *st)
{
	*st = s->st;
}

uint64_t vxt_script_oldest_held(const struct vxt_script *s)
{
	uint64_t oldest = UINT64_MAX;

	if (!s->spec)
		return oldest;
	for (unsigned i = 0; i < s->opt.nspec; i++) {
		const struct sspec *b = vxt_sspec_buf(s, i + 1);

		if (!vxt_sspec_active(s, i + 1))
			continue;
		/* a buffer's records are in time order: its first event is its oldest */
		for (size_t j = b->head; j < b->n; j++)
			if (srec_has_event(&b->recs[j])) {
				if (srec_ordinal(&b->recs[j]) < oldest)
					oldest = srec_ordinal(&b->recs[j]);
				break;
			}
	}
	return oldest;
}

const char *vxt_script_first_error(const struct vxt_script *s)
{
	return s->errs_seen ? s->errs_seen : "";
}

static int line(char *buf, size_t size, int n, uint64_t count, const char *one,
		const char *many, const char *why)
{
	int m;

	if (!count || n < 0 || (size_t)n >= size)
		return n;
	m = snprintf(buf + n, size - (size_t)n, "%" PRIu64 " %s%s%s\n", count,
		     count == 1 ? one : many, why ? " " : "", why ? why : "");
	return m < 0 ? n : n + m;
}

char *vxt_script_format_problems(const struct vxt_script_stats *st, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	n = line(buf, size, n, st->failed_unavail, "failed speculation", "failed speculations",
		 "(no speculative buffer space available)");
	n = line(buf, size, n, st->failed_busy, "failed speculation", "failed speculations",
		 "(available buffer(s) still busy)");
	n = line(buf, size, n, st->spec_drops, "speculative drop", "speculative drops", NULL);
	n = line(buf, size, n, st->commit_drops, "drop", "drops",
		 "(commit larger than the principal buffer, bufsize)");
	n = line(buf, size, n, st->agg_drops, "aggregation drop", "aggregation drops", NULL);
	n = line(buf, size, n, st->forced, "speculation discarded", "speculations discarded",
		 "(the output waiting on it exceeded bufsize)");
	n = line(buf, size, n, st->dyn_drops, "dynamic variable drop", "dynamic variable drops",
		 NULL);
	n = line(buf, size, n, st->div_zero, "error", "errors", "(division by zero)");
	(void)n;
	return buf;
}
