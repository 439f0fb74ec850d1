/* bt_stmt.c - bpftrace's probe blocks and statements, lowered to D clauses
 *
 * A probe block `probes /pred/ { statements }` becomes one clause when its
 * statements hold no if, unroll, while or return; else its statements are
 * cut into clauses at each of them (and where D's rules of speculation
 * would refuse a statement after another: speculate() after a printf, a
 * printf after commit()), each guarded by this-> variables the clauses
 * before set: `if (c) { A } else { B }` is `this->$$n = c;` in the clause
 * so far, then A's clauses guarded by this->$$n and B's by !this->$$n;
 * unroll(N) repeats its block N times; while runs its block at most
 * BT_WHILE_MAX rounds; return sets a flag the block's later clauses test.
 * Each clause also takes the test of the event its probes need
 * (bt_fire.c); a block of several probes is lowered once per attach point,
 * as bpftrace runs it once per probe that fires (bt_clause.c keeps the
 * clauses). The config block is read, its engine settings applied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/bt_impl.h"

/* ---- statements ---- */

static int block(struct btparser *p);

struct lexmark {
	struct slexer lx;
	struct stoken tok;
	bool have;
};

static void mark(const struct btparser *p, struct lexmark *m)
{
	m->lx = p->lx;
	m->tok = p->tok;
	m->have = p->have;
}

/* Back to @m: the strings the lexer kept since stay its own. */
static void rewind_to(struct btparser *p, const struct lexmark *m)
{
	p->lx.pos = m->lx.pos;
	p->lx.line = m->lx.line;
	p->lx.col = m->lx.col;
	p->tok = m->tok;
	p->have = m->have;
}

static struct script_node *paren_expr(struct btparser *p)
{
	struct script_node *e;

	if (vxt_btp_expect(p, ST_LPAREN) < 0)
		return NULL;
	p->parens = 1;
	e = vxt_btp_expr(p);
	if (!e || vxt_btp_expect(p, ST_RPAREN) < 0)
		return NULL;
	return e;
}

static int if_stmt(struct btparser *p, const struct stoken *at)
{
	struct script_node *c = paren_expr(p);
	int var;

	if (!c || (var = vxt_btc_temp(p, c)) < 0 || vxt_btc_emit(p, NULL) < 0)
		return -EINVAL;
	if (vxt_btc_guard(p, var, false, at) < 0 || block(p) < 0 || vxt_btc_emit(p, NULL) < 0)
		return -EINVAL;
	p->nguards--;
	if (vxt_btp_peek(p)->type == ST_IDENT && !strcmp(p->tok.str, "else")) {
		struct stoken el = *vxt_btp_peek(p);

		vxt_btp_take(p);
		if (vxt_btc_guard(p, var, true, &el) < 0)
			return -EINVAL;
		if (vxt_btp_peek(p)->type == ST_IDENT && !strcmp(p->tok.str, "if")) {
			struct stoken in = p->tok;

			vxt_btp_take(p);
			if (if_stmt(p, &in) < 0)
				return -EINVAL;
		} else if (block(p) < 0) {
			return -EINVAL;
		}
		if (vxt_btc_emit(p, NULL) < 0)
			return -EINVAL;
		p->nguards--;
	}
	return 0;
}

static int unroll_stmt(struct btparser *p, const struct stoken *at)
{
	struct script_node *nn = paren_expr(p);
	struct lexmark m;

	if (!nn)
		return -EINVAL;
	if (nn->kind != SN_NUM || nn->num < 1 || nn->num > 100)
		return vxt_btp_fail(p, at->line, at->col, "ERROR: unroll maximum value is 100 "
				    "(an integer literal from 1)");
	mark(p, &m);
	for (int64_t i = 0; i < nn->num; i++) {
		rewind_to(p, &m);
		if (block(p) < 0)
			return -EINVAL;
	}
	return 0;
}

static int end_return(struct btparser *p, const struct stoken *at, struct script_node *last);

/* this->@var = c, c read again from @cond (the lexer back where it was). */
static int retest(struct btparser *p, const struct lexmark *cond, int var,
		  const struct stoken *at)
{
	struct lexmark end;
	struct script_node *c, *a;

	mark(p, &end);
	rewind_to(p, cond);
	c = paren_expr(p);
	rewind_to(p, &end);
	a = vxt_btp_node(p, SN_ASSIGN, at->line, at->col);
	if (!c || !a)
		return -EINVAL;
	a->op = ST_ASSIGN;
	a->a = vxt_btc_this(p, var, at->line, at->col);
	a->b = c;
	return !a->a || vxt_btc_add(p, a) < 0 || vxt_btc_emit(p, NULL) < 0 ? -EINVAL : 0;
}

/* while (c) { B }: c tested before each round, at most BT_WHILE_MAX
 * rounds; a c that still holds after the last is a run-time error at the
 * while (bt_run.c), as bpftrace's verifier refuses a loop it cannot bound:
 * the rest of the block is skipped, as after a return. */
static int while_stmt(struct btparser *p, const struct stoken *at)
{
	struct lexmark cond, body;
	struct script_node *c, *err;
	int var;

	mark(p, &cond);
	c = paren_expr(p);
	if (!c || (var = vxt_btc_temp(p, c)) < 0 || vxt_btc_emit(p, NULL) < 0 ||
	    vxt_btc_guard(p, var, false, at) < 0)
		return -EINVAL;
	mark(p, &body);
	for (unsigned i = 0; i < BT_WHILE_MAX; i++) {
		rewind_to(p, &body);
		if (block(p) < 0 || retest(p, &cond, var, at) < 0)
			return -EINVAL;
	}
	err = vxt_btp_node(p, SN_CALL, at->line, at->col);
	if (!err)
		return -EINVAL;
	err->idx = FN_BT;
	err->num = BTA_WHILE_BOUND;
	err->str = "while";
	if (end_return(p, at, err) < 0)
		return -EINVAL;
	p->nguards--;
	return 0;
}

/* $x = (a, b): $x.0 = a; $x.1 = b. */
static int assign_stmt(struct btparser *p, struct script_node *st)
{
	struct script_node *t = st->a, *v = st->b;
	struct btlocal *l;

	if (t->kind != SN_THIS || t->str[0] != '$') {
		if (v->kind == SN_CALL && v->idx == BT_TUPLE)
			return vxt_btp_fail(p, v->line, v->col, "ERROR: a tuple is a map key or a "
					    "$variable's value here");
		return vxt_btc_add(p, st);
	}
	l = vxt_btp_local(p, t->str, true);
	if (!l)
		return vxt_btp_fail(p, t->line, t->col, "ERROR: too many $variables");
	if (!(v->kind == SN_CALL && v->idx == BT_TUPLE)) {
		if (l->arity)
			return vxt_btp_fail(p, st->line, st->col, "ERROR: Type mismatch for %s: "
					    "trying to assign a value to a tuple", t->str);
		l->set = true;
		return vxt_btc_add(p, st);
	}
	if (st->op != ST_ASSIGN || (l->arity && l->arity != v->nargs))
		return vxt_btp_fail(p, st->line, st->col, "ERROR: Type mismatch for %s: a tuple "
				    "of %u elements", t->str, v->nargs);
	l->arity = v->nargs;
	l->set = true;
	for (unsigned i = 0; i < v->nargs; i++) {
		char name[80];
		struct script_node *a = vxt_btp_node(p, SN_ASSIGN, st->line, st->col);
		struct script_node *e = vxt_btp_node(p, SN_THIS, t->line, t->col);

		if (!a || !e)
			return -ENOMEM;
		snprintf(name, sizeof(name), "%s.%u", t->str, i);
		e->str = vxt_btp_dup(p, name);
		e->idx = vxt_btp_var(p, SN_THIS, name, t->line, t->col);
		if (!e->str || e->idx < 0)
			return -EINVAL;
		a->op = ST_ASSIGN;
		a->a = e;
		a->b = v->args[i];
		if (vxt_btc_add(p, a) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The block's return flag set in the current clause (with @last, a last
 * statement), then the clause ended: every clause after it in the block
 * tests !this->$$N. */
static int end_return(struct btparser *p, const struct stoken *at, struct script_node *last)
{
	struct script_node *one = vxt_btp_node(p, SN_NUM, at->line, at->col), *a;
	int var = p->ret_var;

	if (!one)
		return -ENOMEM;
	one->num = 1;
	if (var < 0) {
		var = vxt_btc_temp(p, one);
		if (var < 0)
			return -EINVAL;
	} else {
		a = vxt_btp_node(p, SN_ASSIGN, at->line, at->col);
		if (!a)
			return -ENOMEM;
		a->op = ST_ASSIGN;
		a->a = vxt_btc_this(p, var, at->line, at->col);
		a->b = one;
		if (!a->a || vxt_btc_add(p, a) < 0)
			return -EINVAL;
	}
	if ((last && vxt_btc_add(p, last) < 0) || vxt_btc_emit(p, NULL) < 0)
		return -EINVAL;
	p->ret_var = var;	/* after the clause that sets it */
	return 0;
}

static int return_stmt(struct btparser *p, const struct stoken *at)
{
	vxt_btp_take(p);
	return end_return(p, at, NULL);
}

static int statement(struct btparser *p)
{
	struct stoken *t = vxt_btp_peek(p);
	struct stoken at = *t;
	struct script_node *st;

	if (t->type == ST_IDENT && (!strcmp(t->str, "if") || !strcmp(t->str, "unroll") ||
				    !strcmp(t->str, "while"))) {
		vxt_btp_take(p);
		if (at.str[0] == 'i')
			return if_stmt(p, &at);
		return at.str[0] == 'u' ? unroll_stmt(p, &at) : while_stmt(p, &at);
	}
	if (t->type == ST_LBRACE)
		return block(p);
	if (t->type == ST_IDENT && !strcmp(t->str, "return"))
		return return_stmt(p, &at);
	p->parens = 0;
	if (t->type == ST_AGG) {
		const struct btmap *m = vxt_btp_map(p, t->str);

		if (m && m->kind == BM_AGG) {
			st = vxt_btp_agg_stmt(p);
			return st ? vxt_btc_add(p, st) : -EINVAL;
		}
	}
	st = vxt_btp_expr(p);
	if (!st)
		return -EINVAL;
	if (st->kind == SN_ASSIGN)
		return assign_stmt(p, st);
	if (st->kind == SN_CALL && st->idx == BT_TUPLE)
		return vxt_btp_fail(p, st->line, st->col, "ERROR: a tuple is a map key or a "
				    "$variable's value here");
	return vxt_btc_add(p, st);
}

static int block(struct btparser *p)
{
	if (vxt_btp_expect(p, ST_LBRACE) < 0)
		return -EINVAL;
	while (vxt_btp_peek(p)->type != ST_RBRACE) {
		struct stoken *t = vxt_btp_peek(p);
		bool blocky = t->type == ST_IDENT && (!strcmp(t->str, "if") ||
						      !strcmp(t->str, "unroll") ||
						      !strcmp(t->str, "while"));

		if (t->type == ST_SEMI) {
			vxt_btp_take(p);
			continue;
		}
		if (t->type == ST_END || t->type == ST_ERROR)
			return vxt_btp_syntax(p, t);
		blocky = blocky || t->type == ST_LBRACE;
		if (statement(p) < 0)
			return -EINVAL;
		if (!blocky && vxt_btp_peek(p)->type != ST_SEMI &&
		    vxt_btp_peek(p)->type != ST_RBRACE)
			return vxt_btp_syntax(p, vxt_btp_peek(p));
	}
	vxt_btp_take(p);
	return 0;
}

/* Whether the block ahead has an if, unroll or while (looked at without
 * taking a token). */
static bool has_control(struct btparser *p)
{
	struct lexmark m;
	struct slexer lx;
	struct stoken t;
	int depth = 0;
	bool found = false;

	mark(p, &m);
	lx = p->lx;
	if (m.have && m.tok.type == ST_LBRACE)
		depth = 1;
	else
		return false;
	while (depth > 0 && !found) {
		if (vxt_btlex_next(&lx, &t, false) < 0 || t.type == ST_END || t.type == ST_ERROR)
			break;
		if (t.type == ST_LBRACE)
			depth++;
		else if (t.type == ST_RBRACE)
			depth--;
		else if (t.type == ST_IDENT && (!strcmp(t.str, "if") || !strcmp(t.str, "unroll") ||
						 !strcmp(t.str, "while")))
			found = true;
		else if (t.type == ST_IDENT && (!strcmp(t.str, "speculate") ||
						 !strcmp(t.str, "commit") ||
						 !strcmp(t.str, "discard") || !strcmp(t.str, "return")))
			found = true;	/* D's rules or a return may cut the block */
	}
	/* the strings read are the lexer's: hand them over to be freed */
	p->lx.strs = lx.strs;
	p->lx.nstrs = lx.nstrs;
	p->lx.capstrs = lx.capstrs;
	return found;
}

/* The predicate and the block after a block's probes, lowered for its
 * probes (p->bprobes): one clause, or several cut at its control flow. */
static int lower_body(struct btparser *p)
{
	struct script_node *pred = NULL;
	struct stoken *t, at;

	p->nguards = 0;
	p->nstmts = 0;
	p->seg = 0;
	p->ret_var = -1;
	for (unsigned i = 0; i < p->nlocals; i++)	/* $locals are the block's */
		p->locals[i].set = false;
	t = vxt_btp_peek(p);
	if (t->type == ST_SLASH) {
		vxt_btp_take(p);
		p->in_pred = true;
		p->parens = 0;
		pred = vxt_btp_expr(p);
		p->in_pred = false;
		if (!pred || vxt_btp_expect(p, ST_SLASH) < 0)
			return -EINVAL;
	}
	at = *vxt_btp_peek(p);
	if (pred && has_control(p)) {	/* the predicate holds for the whole block */
		int var = vxt_btc_temp(p, pred);

		if (var < 0 || vxt_btc_emit(p, NULL) < 0 || vxt_btc_guard(p, var, false, &at) < 0)
			return -EINVAL;
		pred = NULL;
	}
	if (block(p) < 0)
		return -EINVAL;
	return vxt_btc_emit(p, pred);
}

static int probe_block(struct btparser *p)
{
	struct stoken *t = vxt_btp_peek_probe(p);
	const struct btprobe *all[sizeof(p->bprobes) / sizeof(p->bprobes[0])];
	unsigned group[sizeof(all) / sizeof(all[0])], ngroups, nall;
	struct lexmark m;

	p->probes = 0;
	p->tick_ns = 0;
	p->probe_text[0] = '\0';
	p->nbprobes = 0;
	p->other = p->has_event = false;
	p->fields = 0;
	p->bline = t->line;
	p->bcol = t->col;
	for (;;) {
		t = vxt_btp_peek_probe(p);
		if (t->type != ST_PROBE)
			return vxt_btp_syntax(p, t);
		if (vxt_btp_probe_desc(p, t) < 0)
			return -EINVAL;
		vxt_btp_take(p);
		if (vxt_btp_peek(p)->type != ST_COMMA)
			break;
		vxt_btp_take(p);
	}
	if ((p->probes & (SP_BEGIN | SP_END | SP_TICK)) && p->has_event)
		return vxt_btp_fail(p, p->bline, p->bcol, "ERROR: a block cannot mix BEGIN, END "
				    "or interval with tracepoints (its builtins would have no "
				    "event)");
	ngroups = p->has_event ? vxt_btp_groups(p, group) : 1;
	if (ngroups <= 1)
		return lower_body(p);
	/* bpftrace runs the block once per attach point that fires: once
	 * lowered for each */
	nall = p->nbprobes;
	memcpy(all, p->bprobes, nall * sizeof(all[0]));
	vxt_btp_peek(p);
	mark(p, &m);
	for (unsigned g = 0; g < ngroups; g++) {
		rewind_to(p, &m);
		vxt_btp_keep_group(p, all, nall, group, g);
		if (lower_body(p) < 0)
			return -EINVAL;
	}
	return 0;
}

/* config = { name = value; ... } */
static int config(struct btparser *p)
{
	static const char *const known[] = {
		"max_map_keys", "max_strlen", "stack_mode", "print_maps_on_exit",
		"missing_probes", "max_type_res_iterations", "on_stack_limit", "log_size",
		"perf_rb_pages", "lazy_symbolication", "cache_user_symbols", "max_bpf_progs",
		"max_probes", "symbol_source", "license", "show_debug_info", "max_cat_bytes",
		"max_ast_nodes", "str_trunc_trailer", "use_blazesym",
	};
	static const char *const engine[] = {	/* beyond bpftrace: the engine's bounds */
		"nspec", "specsize", "bufsize", "aggsize", "dynvarsize", "cleanrate",
	};

	vxt_btp_take(p);
	if (vxt_btp_expect(p, ST_ASSIGN) < 0 || vxt_btp_expect(p, ST_LBRACE) < 0)
		return -EINVAL;
	while (vxt_btp_peek(p)->type != ST_RBRACE) {
		struct stoken name = *vxt_btp_peek(p), *v;
		bool ok = false, is_engine = false;

		if (name.type == ST_SEMI) {
			vxt_btp_take(p);
			continue;
		}
		if (name.type != ST_IDENT)
			return vxt_btp_syntax(p, &name);
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			ok = ok || !strcmp(known[i], name.str) ||
			     !strncmp(name.str, "BPFTRACE_", 9);
		for (size_t i = 0; i < sizeof(engine) / sizeof(engine[0]); i++)
			is_engine = is_engine || !strcmp(engine[i], name.str);
		if (!ok && !is_engine)
			return vxt_btp_fail(p, name.line, name.col, "ERROR: Unrecognized config "
					    "variable: %s", name.str);
		vxt_btp_take(p);
		if (vxt_btp_expect(p, ST_ASSIGN) < 0)
			return -EINVAL;
		v = vxt_btp_peek(p);
		if (v->type != ST_NUM && v->type != ST_STR && v->type != ST_IDENT)
			return vxt_btp_syntax(p, v);
		if (is_engine) {	/* the engine's options, as -x NAME=VALUE */
			char val[64];

			if (v->type == ST_NUM)
				snprintf(val, sizeof(val), "%lld", (long long)v->num);
			else
				snprintf(val, sizeof(val), "%s", v->str);
			if (vxt_script_set_option(p->s, name.str, val, name.line, name.col,
						  p->err) < 0)
				return -EINVAL;
		}
		if (!strcmp(name.str, "print_maps_on_exit"))
			p->s->bt->no_print_maps = (v->type == ST_NUM && v->num == 0) ||
						  (v->str && !strcmp(v->str, "false"));
		vxt_btp_take(p);
	}
	vxt_btp_take(p);
	return 0;
}

/* bpftrace's first line, "Attaching 5 probes...", as a BEGIN clause before
 * every other (a probe is an attach point: a wildcard's tracepoints count
 * one each). */
static int attaching(struct btparser *p)
{
	struct vxt_script *s = p->s;
	struct script_node *call, *fmt;
	struct sclause *c;
	char line[64];

	if (s->ncl == S_MAX_CLAUSES)
		return vxt_btp_fail(p, 1, 1, "ERROR: the program is too large: more than %d "
				    "clauses once if, unroll and while are lowered", S_MAX_CLAUSES);
	snprintf(line, sizeof(line), "Attaching %u probe%s...\n", p->attached,
		 p->attached == 1 ? "" : "s");
	call = vxt_btp_node(p, SN_CALL, 1, 1);
	fmt = vxt_btp_node(p, SN_STR, 1, 1);
	if (!call || !fmt || !(fmt->str = vxt_btp_dup(p, line)) ||
	    !(call->args = vxt_script_alloc(s, sizeof(*call->args))) ||
	    !(call->str = vxt_btp_dup(p, "printf")))
		return p->rc = -ENOMEM;
	call->idx = FN_PRINTF;
	call->args[0] = fmt;
	call->nargs = 1;
	memmove(s->cl + 1, s->cl, s->ncl * sizeof(*s->cl));
	s->ncl++;
	c = &s->cl[0];
	memset(c, 0, sizeof(*c));
	c->probes = SP_BEGIN;
	snprintf(c->probe_text, sizeof(c->probe_text), "BEGIN");
	c->line = c->col = 1;
	c->stmts = vxt_script_alloc(s, sizeof(*c->stmts));
	if (!c->stmts)
		return p->rc = -ENOMEM;
	c->stmts[0] = call;
	c->nstmts = 1;
	return 0;
}

int vxt_bt_parse(struct vxt_script *s, const char *text, size_t len, char *err)
{
	struct btparser *p = calloc(1, sizeof(*p));
	int rc = 0;

	if (!p)
		return -ENOMEM;
	p->s = s;
	p->err = err;
	err[0] = '\0';
	s->cl = calloc(S_MAX_CLAUSES, sizeof(*s->cl));
	s->bt = calloc(1, sizeof(*s->bt));
	s->opt.quiet = true;	/* bpftrace prints only what the program prints */
	if (!s->cl || !s->bt || vxt_btp_scan_maps(p, text, len) < 0) {
		free(p);
		return -ENOMEM;
	}
	vxt_btlex_init(&p->lx, text, len);
	for (;;) {
		struct stoken *t = vxt_btp_peek_probe(p);

		if (t->type == ST_END)
			break;
		if (t->type == ST_PROBE && !strcmp(t->str, "config"))
			rc = config(p);
		else
			rc = probe_block(p);
		if (rc < 0 || p->rc < 0)
			break;
	}
	if (rc == 0 && p->rc == 0 && !p->attached && !err[0])
		rc = vxt_btp_fail(p, 1, 1, "ERROR: No probes to attach");
	if (rc == 0 && p->rc == 0)
		rc = attaching(p);
	if (p->rc < 0)
		rc = p->rc;
	else if (err[0] && rc == 0)
		rc = -EINVAL;
	vxt_slex_free(&p->lx);
	free(p->stmts);
	free(p);
	return rc;
}

bool vxt_bt_is_bpftrace(const char *text, size_t len, const char *file)
{
	size_t n = file ? strlen(file) : 0;
	struct slexer lx;
	struct stoken t;
	bool bt = false;
	int depth = 0;

	if (n > 3 && !strcmp(file + n - 3, ".bt"))
		return true;
	/* a probe only bpftrace has, where a probe starts (outside braces) */
	vxt_btlex_init(&lx, text, len);
	while (!bt && vxt_btlex_next(&lx, &t, depth == 0) == 0 && t.type != ST_END &&
	       t.type != ST_ERROR) {
		if (t.type == ST_LBRACE)
			depth++;
		else if (t.type == ST_RBRACE && depth > 0)
			depth--;
		else if (t.type == ST_PROBE && depth == 0)
			bt = !strncmp(t.str, "tracepoint:", 11) || !strncmp(t.str, "kprobe:", 7) ||
			     !strncmp(t.str, "kfunc:", 6) || !strncmp(t.str, "fentry:", 7) ||
			     !strncmp(t.str, "t:block:", 8) || !strcmp(t.str, "config");
	}
	vxt_slex_free(&lx);
	return bt;
}
