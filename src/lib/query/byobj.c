/* byobj.c - rows in object name order, for ORDER BY / GROUP BY object
 *
 * SQLite would otherwise sort every row. The names are passed over in
 * order; one read of the files keeps the rows of as many names as fit in
 * SQL_ROWS_BUDGET (packed: only the fields the query reads), and those are
 * then given name by name. A name whose rows alone do not fit is given as
 * its own read finds them, one read of the files for that name. Within a
 * name the rows keep the files' order, as they do with pushdown off.
 */
#include <stdlib.h>
#include <string.h>

#include "query/evcursor.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);	/* SQLite's BINARY order */
}

/* The index + 1 of @name among the pass's names [pi, pe), or 0. */
uint32_t sql_ev_pass_slot(const struct ev_cursor *c, const char *name)
{
	char *const *hit;

	if (c->pe <= c->pi)
		return 0;
	hit = bsearch(&name, c->pass + c->pi, c->pe - c->pi, sizeof(*c->pass), cmp_name);
	return hit ? (uint32_t)(hit - c->pass) + 1 : 0;
}


void sql_ev_free_group(struct ev_cursor *c)
{
	if (c->buf)
		for (size_t i = 0; i < c->pe - c->pi; i++)
			sql_rowbuf_free(&c->buf[i]);
	free(c->buf);
	c->buf = NULL;
	c->buffered = false;
}

/* From buf[bi] row bk on, unpack the next kept row. @return true if any. */
bool sql_ev_seek_buffered(struct ev_cursor *c)
{
	for (; c->pi + c->bi < c->pe; c->bi++, c->bk = 0) {
		const char *name = c->pass[c->pi + c->bi];

		if (c->bk < c->buf[c->bi].n) {
			/* a phase the format does not keep: lost rows are the
			 * name "", ios rows completions */
			c->row.ev.phase = !name[0] ? VXT_PH_LOST : ios_kind(c) ? VXT_PH_DONE : 0;
			sql_rowbuf_get(&c->buf[c->bi], &c->fmt, c->bk, &c->row);
			return true;
		}
	}
	return false;
}

/* The group is too big: give up its last name (its rows, and its objects
 * in the current file). */
static size_t drop_last_name(struct ev_cursor *c)
{
	size_t freed = c->buf[c->pe - 1 - c->pi].n * c->fmt.size;

	sql_rowbuf_free(&c->buf[c->pe - 1 - c->pi]);
	c->pe--;
	for (size_t i = 0; i < c->nobjok; i++)
		if (c->slot[i] > c->pe)
			c->slot[i] = 0, c->objok[i] = 0;
	return freed;
}

/* Read every file once, keeping the rows of names [pi, npass) in buf[];
 * past SQL_ROWS_BUDGET the group loses names from its end. When pass[pi]
 * alone does not fit, nothing is kept (c->buffered false): that name is
 * then given as its one pass reads it. */
static int fill_group(struct ev_cursor *c)
{
	const struct sql_set *s = c->vt->set;
	size_t used = 0;
	uint64_t first;
	int rc;

	c->pe = c->npass;
	c->buf = calloc(c->pe - c->pi, sizeof(*c->buf));
	if (!c->buf)
		return SQLITE_NOMEM;
	c->buffered = true;
	sql_rowfmt_init(&c->fmt, c->p.fields, s->n > 1, c->p.track);
	memset(&c->row, 0, sizeof(c->row));	/* what the format does not keep reads as 0 */
	for (c->fi = 0; c->fi < s->n; c->fi++) {
		struct vxt_reader *r = s->f[c->fi].r;

		if ((rc = sql_ev_enter_file(c)))
			return rc;
		for (; c->ci < vxt_reader_nchunks(r); c->ci++) {
			if (c->p.pushdown && !sql_ev_chunk_may_match(c, vxt_reader_chunk(r, c->ci)))
				continue;
			if ((rc = sql_ev_decode(c)))
				return rc;
			first = vxt_reader_chunk(r, c->ci)->first_event;
			for (c->k = 0; sql_ev_seek_match(c); c->k++) {
				const struct vxt_event *e = &c->ev[c->k];
				size_t g = e->phase == VXT_PH_LOST ? 0 : c->slot[e->object] - 1 - c->pi;

				if (sql_rowbuf_put(&c->buf[g], &c->fmt, e, (uint32_t)c->fi,
						   first + c->k, c->ph))
					return SQLITE_NOMEM;
				used += c->fmt.size;
				while (used > c->vt->ctx->group_memory && c->pe - c->pi > 1)
					used -= drop_last_name(c);
				if (used > c->vt->ctx->group_memory) {
					sql_ev_free_group(c);
					c->pe = c->pi + 1;
					return SQLITE_OK;
				}
			}
		}
	}
	c->bi = c->bk = 0;
	return SQLITE_OK;
}

/* Move to the first row of the names from pe on (object order). */
int sql_ev_next_names(struct ev_cursor *c)
{
	int rc;

	sql_ev_free_group(c);
	while (c->pe < c->npass) {
		c->pi = c->pe;
		if ((rc = fill_group(c)))
			return rc;
		if (!c->buffered) {
			c->fi = 0;
			if ((rc = sql_ev_enter_file(c)))
				return rc;
			return sql_ev_settle(c);
		}
		if (sql_ev_seek_buffered(c))
			return SQLITE_OK;
		sql_ev_free_group(c);
	}
	c->eof = true;
	return SQLITE_OK;
}


void sql_ev_free_passes(struct ev_cursor *c)
{
	for (size_t i = 0; i < c->npass; i++)
		free(c->pass[i]);
	free(c->pass);
	c->pass = NULL;
	c->npass = c->pi = c->pe = 0;
}

/* The names to pass over, in order: every object name of the files (the
 * plan's only, when it names some), and "" first when lost records exist. */
int sql_ev_make_passes(struct ev_cursor *c)
{
	const struct sql_set *s = c->vt->set;
	size_t cap = 1, k = 0;
	bool lost = false;

	sql_ev_free_passes(c);
	for (size_t f = 0; f < s->n; f++) {
		struct vxt_reader *r = s->f[f].r;

		cap += vxt_objtab_count(vxt_reader_objects(r));
		for (size_t i = 0; i < vxt_reader_nchunks(r) && !lost; i++)
			lost = vxt_reader_chunk(r, i)->nlost > 0;
	}
	c->pass = calloc(cap, sizeof(*c->pass));
	if (!c->pass)
		return SQLITE_NOMEM;
	for (size_t f = 0; f < s->n; f++) {
		const struct vxt_objtab *ot = vxt_reader_objects(s->f[f].r);

		for (size_t i = 0; i < vxt_objtab_count(ot); i++) {
			const char *name = vxt_objtab_get(ot, (uint32_t)i)->name;

			if (c->p.objs && !sql_plan_has(&c->p, name))
				continue;
			if (!(c->pass[c->npass++] = strdup(name)))
				return SQLITE_NOMEM;
		}
	}
	if (lost && (!c->p.objs || sql_plan_has(&c->p, "")) && !(c->pass[c->npass++] = strdup("")))
		return SQLITE_NOMEM;
	qsort(c->pass, c->npass, sizeof(*c->pass), cmp_name);
	for (size_t i = 0; i < c->npass; i++) {	/* unique */
		if (k && !strcmp(c->pass[k - 1], c->pass[i]))
			free(c->pass[i]);
		else
			c->pass[k++] = c->pass[i];
	}
	c->npass = k;
	return SQLITE_OK;
}

