/* script_clause.c - a D script's clauses: probe descriptions (io:::done,
 * io:genunix::start, io:::*, BEGIN, END, tick-1s, profile:::tick-N), the
 * /predicate/, the statement list, `#pragma D option` lines and the flags of
 * a `#!/usr/sbin/dtrace -qs` line; the entry point vxt_script_parse().
 * Expressions and names are script_parse.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>

#include "script/script_impl.h"
#include "select/script_parser.h"

static int parse_tick(const char *s, uint64_t *ns)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || v == 0)
		return -1;
	if (!*end || !strcmp(end, "hz"))
		*ns = 1000000000ull / v;
	else if (!strcmp(end, "ns"))
		*ns = v;
	else if (!strcmp(end, "us"))
		*ns = v * 1000ull;
	else if (!strcmp(end, "ms") || !strcmp(end, "msec"))
		*ns = v * 1000000ull;
	else if (!strcmp(end, "s") || !strcmp(end, "sec"))
		*ns = v * 1000000000ull;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		*ns = v * 60000000000ull;
	else
		return -1;
	return *ns ? 0 : -1;
}

/* tick-N, profile:::tick-N, interval:s:N, interval:ms:N. @return 0 or -1. */
static int parse_interval(const char *d, uint64_t *ns)
{
	char b[48];

	if (!strncmp(d, "tick-", 5))
		return parse_tick(d + 5, ns);
	if (!strncmp(d, "profile:::tick-", 15))
		return parse_tick(d + 15, ns);
	if (!strncmp(d, "interval:s:", 11) && strlen(d) < 40) {
		snprintf(b, sizeof(b), "%ss", d + 11);
		return parse_tick(b, ns);
	}
	if (!strncmp(d, "interval:ms:", 12) && strlen(d) < 40) {
		snprintf(b, sizeof(b), "%sms", d + 12);
		return parse_tick(b, ns);
	}
	return -1;
}

/* Whether glob @pat (DTrace's: * ? [...]) matches @name; empty matches all. */
static bool glob(const char *pat, const char *name)
{
	return !*pat || fnmatch(pat, name, 0) == 0;
}

/* One probe description into @c: PROVIDER:MODULE:FUNCTION:NAME with parts
 * left out or empty, and globs. @return 0 or -EINVAL. */
static int probe_desc(struct sparser *p, struct sclause *c, const struct stoken *t)
{
	static const struct { const char *name; unsigned bit; } io[] = {
		{ "queue", SP_QUEUE }, { "start", SP_START }, { "done", SP_DONE },
		{ "requeue", SP_REQUEUE }, { "error", SP_ERROR }, { "lost", SP_LOST },
		{ "wait-start", 0 }, { "wait-done", 0 },
	};
	const char *d = t->str;
	char part[4][64] = { "", "", "", "" };
	unsigned np = 1, matched = 0;
	uint64_t ns = 0;

	if (!c->probe_text[0])
		snprintf(c->probe_text, sizeof(c->probe_text), "%s", d);
	for (const char *q = d; *q; q++) {
		size_t l = strlen(part[np - 1]);

		if (*q == ':') {
			if (np == 4)
				goto nomatch;
			np++;
		} else if (l + 1 < sizeof(part[0])) {
			part[np - 1][l] = *q;
		}
	}
	/* the parts fill from the name backwards: "start" is ":::start" */
	if (np < 4) {
		memmove(part[4 - np], part[0], np * sizeof(part[0]));
		for (unsigned i = 0; i < 4 - np; i++)
			part[i][0] = '\0';
	}
	if (glob(part[0], "dtrace") && !part[1][0] && !part[2][0] &&
	    (!strcmp(part[3], "BEGIN") || !strcmp(part[3], "END"))) {
		c->probes |= part[3][0] == 'B' ? SP_BEGIN : SP_END;
		return 0;
	}
	if (glob(part[0], "profile") && !part[1][0] && !part[2][0] &&
	    !strncmp(part[3], "profile-", 8) && !parse_tick(part[3] + 8, &ns)) {
		/* fires on every CPU in dtrace; a trace has no CPUs to sample */
		char what[128];

		snprintf(what, sizeof(what), "profile-%.20s fires once per interval, as "
			 "tick-%.20s", part[3] + 8, part[3] + 8);
		vxt_script_warn(p->s, what);
	}
	if (ns || !parse_interval(d, &ns) ||
	    (glob(part[0], "profile") && !strncmp(part[3], "tick-", 5) &&
	     !parse_tick(part[3] + 5, &ns))) {
		if (c->probes & SP_TICK && c->tick_ns != ns)
			return vxt_script_fail(p->s, p->err, t->line, t->col,
					       "a clause takes one tick interval");
		c->probes |= SP_TICK;
		c->tick_ns = ns;
		return 0;
	}
	if (part[0][0] && !glob(part[0], "io"))
		return vxt_script_fail(p->s, p->err, t->line, t->col,
				       "probe description %s: provider %s is not available in "
				       "block traces (io, dtrace, profile, tick)", d, part[0]);
	if (np == 1 && strchr(d, '*') == NULL)
		goto nomatch;	/* a bare word names no io probe */
	/* the io provider fires in every module and function */
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		if (glob(part[3], io[i].name)) {
			matched++;
			c->probes |= io[i].bit;
			if (!io[i].bit) {
				char what[128];

				snprintf(what, sizeof(what), "io:::%s never fires in a block trace",
					 io[i].name);
				vxt_script_warn(p->s, what);
			}
		}
	if (matched)
		return 0;
nomatch:
	return vxt_script_fail(p->s, p->err, t->line, t->col,
			       "probe description %s does not match any probes "
			       "(io:::queue start done requeue error lost wait-start wait-done, "
			       "BEGIN, END, tick-N)", d);
}

static int stmt_list(struct sparser *p, struct sclause *c)
{
	struct script_node **v = NULL;
	unsigned n = 0, cap = 0;
	bool nothing = false;	/* statements that folded away: not an empty clause */

	while (vxt_sp_peek(p)->type != ST_RBRACE) {
		struct script_node *st;

		if (vxt_sp_peek(p)->type == ST_SEMI) {
			vxt_sp_take(p);
			continue;
		}
		if (n == cap) {
			struct script_node **nv;

			cap = cap ? 2 * cap : 8;
			nv = vxt_script_alloc(p->s, cap * sizeof(*nv));
			if (!nv)
				return p->rc = -ENOMEM;
			if (n)
				memcpy(nv, v, n * sizeof(*nv));
			v = nv;
		}
		p->parens = 0;
		st = vxt_sp_peek(p)->type == ST_AGG ? vxt_sp_agg_stmt(p) : vxt_sp_expr(p);
		if (!st || vxt_sd_statement(p, &st) < 0)
			return -EINVAL;
		if (st)
			v[n++] = st;
		else if (!n)
			nothing = true;
		if (vxt_sp_peek(p)->type != ST_SEMI && vxt_sp_peek(p)->type != ST_RBRACE)
			return vxt_sp_syntax(p, vxt_sp_peek(p));
	}
	vxt_sp_take(p);
	c->stmts = v;
	c->nstmts = n;
	c->folded = nothing && !n;
	return 0;
}

static int clause(struct sparser *p)
{
	struct vxt_script *s = p->s;
	struct sclause *c;
	struct stoken *t = vxt_sp_peek_probe(p);

	if (s->ncl == S_MAX_CLAUSES)
		return vxt_script_fail(s, p->err, t->line, t->col, "too many clauses (at most %d)",
				       S_MAX_CLAUSES);
	c = &s->cl[s->ncl++];
	memset(c, 0, sizeof(*c));
	c->line = t->line;
	c->col = t->col;
	for (;;) {
		t = vxt_sp_peek_probe(p);
		if (t->type != ST_PROBE)
			return vxt_sp_syntax(p, t);
		if (probe_desc(p, c, t) < 0)
			return -EINVAL;
		vxt_sp_take(p);
		if (vxt_sp_peek(p)->type != ST_COMMA)
			break;
		vxt_sp_take(p);
	}
	t = vxt_sp_peek(p);
	if (t->type == ST_SLASH) {
		vxt_sp_take(p);
		p->in_pred = true;
		p->parens = 0;
		c->pred = vxt_sp_expr(p);
		p->in_pred = false;
		if (!c->pred || vxt_sp_expect(p, ST_SLASH) < 0)
			return -EINVAL;
	}
	if (vxt_sp_expect(p, ST_LBRACE) < 0)
		return -EINVAL;
	return stmt_list(p, c);
}

/* "#pragma D option name[=value]" */
static int pragma(struct sparser *p, const struct stoken *t)
{
	char buf[256], *w, *save, *name, *eq;
	unsigned col = t->col;

	snprintf(buf, sizeof(buf), "%s", t->str);
	w = strtok_r(buf, " \t\r", &save);	/* #pragma */
	w = strtok_r(NULL, " \t\r", &save);
	if (!w || strcmp(w, "D"))
		return vxt_script_fail(p->s, p->err, t->line, col,
				       "unknown #pragma (only #pragma D option name=value)");
	w = strtok_r(NULL, " \t\r", &save);
	name = strtok_r(NULL, " \t\r", &save);
	if (!w || strcmp(w, "option") || !name)
		return vxt_script_fail(p->s, p->err, t->line, col,
				       "unknown #pragma (only #pragma D option name=value)");
	if (strtok_r(NULL, " \t\r", &save))
		return vxt_script_fail(p->s, p->err, t->line, col,
				       "#pragma D option takes one name=value");
	col += (unsigned)(name - buf);
	eq = strchr(name, '=');
	if (eq)
		*eq++ = '\0';
	return vxt_script_set_option(p->s, name, eq, t->line, col, p->err);
}

/* The flags of a "#!/usr/sbin/dtrace -qs" line: -q is quiet; the others
 * (-s, -Z, -C ...) change nothing on a block trace. */
static void interpreter_flags(struct vxt_script *s, const char *text, size_t len)
{
	const char *end = memchr(text, '\n', len), *q;

	if (len < 2 || text[0] != '#' || text[1] != '!')
		return;
	if (!end)
		end = text + len;
	for (q = text; q < end; q++)
		if (*q == '-' && (q == text || q[-1] == ' ' || q[-1] == '\t'))
			for (q++; q < end && *q != ' ' && *q != '\t'; q++)
				if (*q == 'q')
					s->opt.quiet = true;
}

int vxt_script_parse(struct vxt_script *s, const char *text, size_t len, char *err)
{
	struct sparser p = { .s = s, .err = err };
	bool decl;
	int rc = 0;

	s->cl = calloc(S_MAX_CLAUSES, sizeof(*s->cl));
	if (!s->cl)
		return -ENOMEM;
	vxt_slex_init(&p.lx, text, len);
	interpreter_flags(s, text, len);
	for (;;) {
		struct stoken *t = vxt_sp_peek_probe(&p);

		if (t->type == ST_END)
			break;
		if (t->type == ST_PRAGMA) {
			rc = pragma(&p, t);
			vxt_sp_take(&p);
		} else if ((rc = vxt_sd_toplevel(&p, t, &decl)) < 0 || decl) {
			;
		} else {
			rc = clause(&p);
		}
		if (rc < 0 || p.rc < 0)
			break;
	}
	vxt_slex_free(&p.lx);
	if (p.rc < 0)
		return p.rc;
	return rc;
}
