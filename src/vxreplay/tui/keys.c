/* keys.c - vxreplay's browser keymap: a table of actions
 *
 * Every action returns a reaction mask the screen manager applies once. Keys
 * the focused panel does not use (arrows in the list, Left/Right on the
 * timeline) reach this table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/app.h"
#include "browser/heativ.h"

static int act_quit(void *app)
{
	(void)app;
	return TUI_QUIT;
}

static int act_help(void *app)
{
	struct vr_app *a = app;

	a->help.top = 0;
	tui_screen_push(&a->scr, &a->help.panel);
	return TUI_REDRAW;
}

static int act_focus(void *app)
{
	return tui_screen_focus_next(&((struct vr_app *)app)->scr);
}

static int act_redraw(void *app)
{
	(void)app;
	clearok(curscr, TRUE);
	return TUI_REDRAW;
}

static int act_down(void *app) { vr_model_move(&((struct vr_app *)app)->m, 1); return TUI_REDRAW; }
static int act_up(void *app) { vr_model_move(&((struct vr_app *)app)->m, -1); return TUI_REDRAW; }

static int act_pgdn(void *app)
{
	struct vr_app *a = app;

	vr_model_move(&a->m, a->m.page > 1 ? (long)a->m.page - 1 : 1);
	return TUI_REDRAW;
}

static int act_pgup(void *app)
{
	struct vr_app *a = app;

	vr_model_move(&a->m, -(a->m.page > 1 ? (long)a->m.page - 1 : 1));
	return TUI_REDRAW;
}

static int act_home(void *app) { vr_model_home(&((struct vr_app *)app)->m); return TUI_REDRAW; }
static int act_end(void *app) { vr_model_end(&((struct vr_app *)app)->m); return TUI_REDRAW; }

static int bin_step(struct vr_app *a, int dir)
{
	const struct vxt_timeline *tl = vr_model_timeline(&a->m);
	uint64_t bw = (tl->t1 - tl->t0) / (tl->nbins ? tl->nbins : 1), c;
	int b;

	if (!tl->nbins)
		return TUI_NONE;
	c = vr_model_cursor_time(&a->m);
	b = vxt_timeline_bin(tl, c);
	if (b < 0)
		b = 0;
	if (dir > 0)
		vr_model_goto_time(&a->m, vxt_timeline_bin_start(tl, (unsigned)b + 1));
	else if (b > 0)
		vr_model_goto_time(&a->m, vxt_timeline_bin_start(tl, (unsigned)b - 1));
	else
		vr_model_goto_time(&a->m, c > bw ? c - bw : 0);
	return TUI_REDRAW;
}

static int act_bin_fwd(void *app) { return bin_step(app, 1); }
static int act_bin_back(void *app) { return bin_step(app, -1); }

static int jump_done(void *app, const char *text, char *err, size_t errsz)
{
	struct vr_app *a = app;
	const struct vxt_file_info *fi = a->m.info;
	uint64_t t;

	if (!*text)
		return TUI_NONE;
	if (vxt_parse_time(text, a->m.t_first, vr_model_cursor_time(&a->m), fi->anchor_mono_ns,
			   fi->anchor_real_ns, &t) < 0) {
		snprintf(err, errsz, "not a time: '%s' (try 12.5, +2s, -500ms, 14:03:07.25)", text);
		return TUI_NONE;
	}
	if (vr_model_goto_time(&a->m, t) < 1)
		tui_screen_msg(&a->scr, TUI_R_MSG, "nothing shown at or after %s", text);
	else
		vr_show_note(a);	/* a damaged chunk skipped on the way */
	return TUI_REDRAW;
}

static int act_jump(void *app)
{
	tui_screen_prompt(&((struct vr_app *)app)->scr, "Jump to: ", "", jump_done);
	return TUI_REDRAW;
}

static int error_step(struct vr_app *a, bool backward)
{
	int rc = vr_model_next_error(&a->m, backward);

	if (rc == -EAGAIN)
		tui_screen_msg(&a->scr, TUI_R_MSG, "no error shown up to here yet; %s goes on",
			       backward ? "E" : "e");
	else if (rc < 0)
		tui_screen_msg(&a->scr, TUI_R_MSG_ERROR, "%s", vxt_reader_error(a->m.rd));
	else if (rc == 0)
		tui_screen_msg(&a->scr, TUI_R_MSG, backward ? "no earlier error" : "no later error");
	return TUI_REDRAW;
}

static int act_next_error(void *app) { return error_step(app, false); }
static int act_prev_error(void *app) { return error_step(app, true); }

static int filter_done(void *app, const char *text, char *err, size_t errsz)
{
	struct vr_app *a = app;

	if (vr_apply_filter(a, text, err, errsz) < 0)
		return TUI_NONE;
	tui_screen_msg(&a->scr, TUI_R_MSG, a->m.filter_src[0] ? "filter: %s" : "filter cleared%s",
		       a->m.filter_src);
	return TUI_REDRAW;
}

static int act_filter(void *app)
{
	struct vr_app *a = app;

	tui_screen_prompt(&a->scr, "Filter: ", a->m.filter_src, filter_done);
	return TUI_REDRAW;
}

#define SEARCH_BUDGET 500000	/* events looked at per n / N */

/* Next shown event after (before) the cursor that matches the search; a
 * search that finds nothing in SEARCH_BUDGET events leaves the cursor where
 * it stopped, so the next n goes on from there. */
static int search_step(struct vr_app *a, bool backward)
{
	struct vr_model *m = &a->m;
	uint64_t o = m->has_sel ? m->sel : 0, p;
	const struct vxt_event *ev;
	bool first = !m->has_sel;
	long looked;

	for (looked = 0; looked < SEARCH_BUDGET; looked++) {
		int rc;

		if (backward)
			rc = vr_view_last_before(&m->view, o, &p, 64);
		else
			rc = vr_view_first_at(&m->view, first ? o : o + 1, &p, 64);
		if (rc != 1)
			break;
		o = p;
		first = false;
		if (vr_view_get(&m->view, o, &ev) == 1 && vr_search_matches(a->search_f, ev)) {
			vr_model_goto_ord(m, o);
			return TUI_REDRAW;
		}
	}
	if (looked == SEARCH_BUDGET) {
		vr_model_goto_ord(m, o);
		tui_screen_msg(&a->scr, TUI_R_MSG, "%s: no match in %d events; %s goes on", a->search,
			       SEARCH_BUDGET, backward ? "N" : "n");
		return TUI_REDRAW;
	}
	tui_screen_msg(&a->scr, TUI_R_MSG, "%s: no %s match", a->search,
		       backward ? "earlier" : "later");
	return TUI_REDRAW;
}

static int search_done(void *app, const char *text, char *err, size_t errsz)
{
	struct vr_app *a = app;
	struct vxt_filter *f;

	if (!*text)
		return TUI_NONE;
	f = vr_search_compile(&a->m, text, err, errsz);
	if (!f)
		return TUI_NONE;
	vr_search_free(a->search_f);
	a->search_f = f;
	snprintf(a->search, sizeof(a->search), "%s", text);
	return search_step(a, false);
}

static int act_search(void *app)
{
	struct vr_app *a = app;

	tui_screen_prompt(&a->scr, "Search: ", a->search, search_done);
	return TUI_REDRAW;
}

static int act_search_next(void *app)
{
	struct vr_app *a = app;

	if (!a->search_f)
		return act_search(app);
	return search_step(a, false);
}

static int act_search_prev(void *app)
{
	struct vr_app *a = app;

	if (!a->search_f)
		return act_search(app);
	return search_step(a, true);
}

static int act_spec(void *app)
{
	struct vr_app *a = app;
	struct vr_model *m = &a->m;

	if (m->view.spec_on) {
		m->view.spec_on = false;
		tui_screen_msg(&a->scr, TUI_R_MSG, "speculation view off");
	} else if (vr_model_spec_start(m) < 0) {
		vr_show_note(a);
		return TUI_REDRAW;
	} else {
		tui_screen_msg(&a->scr, TUI_R_MSG, "speculation view on");
	}
	vr_model_rebin(m);
	vr_model_reseat(m);
	return TUI_REDRAW;
}

static int act_agg(void *app) { return vr_open_agg(app); }
static int act_zoom_in(void *app) { vr_model_zoom(&((struct vr_app *)app)->m, 0.5); return TUI_REDRAW; }
static int act_zoom_out(void *app) { vr_model_zoom(&((struct vr_app *)app)->m, 2.0); return TUI_REDRAW; }

static int act_detail(void *app) { return vr_open_detail(app); }
static int act_objects(void *app) { return vr_open_objects(app); }
static int act_marks(void *app) { return vr_open_marks(app); }

static int act_mark(void *app)
{
	struct vr_app *a = app;

	if (!a->m.has_sel)
		return TUI_NONE;
	tui_screen_msg(&a->scr, TUI_R_MSG, vr_model_toggle_mark(&a->m) ? "marked event #%" PRIu64 :
		       "unmarked event #%" PRIu64, a->m.sel);
	vr_show_note(a);	/* the marks could not be saved */
	return TUI_REDRAW;
}

static int export_done(void *app, const char *text, char *err, size_t errsz)
{
	struct vr_app *a = app;
	int rc;

	if (!*text) {
		snprintf(err, errsz, "give a file name (.csv or .json)");
		return TUI_NONE;
	}
	rc = vr_model_export(&a->m, text, !strcmp(text, a->export_replace));
	if (rc == -EEXIST) {
		/* ask: the same name again is the answer */
		snprintf(a->export_replace, sizeof(a->export_replace), "%s", text);
		snprintf(err, errsz, "%s exists: Enter again replaces it, Esc keeps it", text);
		return TUI_NONE;
	}
	a->export_replace[0] = 0;
	if (rc < 0) {
		snprintf(err, errsz, "%s", a->m.note);
		a->m.note[0] = 0;
		return TUI_NONE;
	}
	return TUI_REDRAW;
}

static int act_export(void *app)
{
	struct vr_app *a = app;
	const char *def = a->opts->export_path ? a->opts->export_path : "vxreplay-export.csv";

	a->export_replace[0] = 0;

	tui_screen_prompt(&a->scr, "Export view to (.csv/.json): ", def, export_done);
	return TUI_REDRAW;
}

static int act_follow(void *app)
{
	struct vr_app *a = app;

	a->m.following = !a->m.following;
	if (a->m.following) {
		vr_model_refresh(&a->m);
		vr_model_end(&a->m);
	}
	tui_screen_msg(&a->scr, TUI_R_MSG, a->m.following ? "following the file (F stops)" :
		       "stopped following");
	return TUI_REDRAW;
}

static int act_lanes(void *app)
{
	struct vr_app *a = app;

	a->lanes = !a->lanes;
	return TUI_RELAYOUT;
}

static int act_tl_metric(void *app)
{
	struct vr_app *a = app;

	a->tl_metric = (a->tl_metric + 1) % VR_TLM_COUNT;
	tui_screen_msg(&a->scr, TUI_R_MSG, "timeline: %s", vr_tl_metric_name(a->tl_metric));
	return TUI_RELAYOUT;
}

static int act_metric(void *app)
{
	struct vr_app *a = app;

	vr_heat_next(&a->m);
	tui_screen_msg(&a->scr, TUI_R_MSG, "heatmap metric: %s", vr_heat_name(&a->m));
	return TUI_REDRAW;
}

static int act_heat_objects(void *app)
{
	struct vr_app *a = app;

	if (a->m.lba)
		vr_model_set_lba(&a->m, false, 0);
	return TUI_RELAYOUT;
}

/* z / Z / [ / ]: the LBA heatmap's sector range; around the selected row
 * when the heatmap has the focus. */
static int lba_key(struct vr_app *a, int what)
{
	const struct vxt_timeline *tl = vr_model_heat_timeline(&a->m);
	uint64_t center = UINT64_MAX;

	if (!a->m.lba || tl->mode != VXT_TL_ROWS_LBA) {
		tui_screen_msg(&a->scr, TUI_R_MSG, "the LBA heatmap zooms (o, then l on an object)");
		return TUI_REDRAW;
	}
	if (tui_screen_focused(&a->scr) == &a->heatmap && a->hm_sel >= 0 &&
	    (unsigned)a->hm_sel < tl->nrows)
		center = tl->lba_first + tl->lba_sectors / tl->nrows * (unsigned)a->hm_sel +
			 tl->lba_sectors / tl->nrows / 2;
	if (what == 'z')
		vr_lba_zoom(&a->m, 0.5, center);
	else if (what == 'Z')
		vr_lba_zoom(&a->m, 2.0, center);
	else
		vr_lba_pan(&a->m, what == ']' ? 1 : -1);
	a->hm_top = 0;
	return TUI_REDRAW;
}

static int act_lba_in(void *app) { return lba_key(app, 'z'); }
static int act_lba_out(void *app) { return lba_key(app, 'Z'); }
static int act_lba_up(void *app) { return lba_key(app, ']'); }
static int act_lba_down(void *app) { return lba_key(app, '['); }

static int act_hist(void *app) { return vr_open_hist(app); }
static int act_procs(void *app) { return vr_open_procs(app); }
static int act_io_list(void *app) { return vr_toggle_io_list(app); }

static int act_profile(void *app)
{
	return vr_open_profiles(app);
}

const struct tui_action vr_keys[] = {
	{ '?', KEY_F(1), "? F1", "this help", act_help },
	{ KEY_DOWN, 0, "Down Up", "next / previous event", act_down },
	{ KEY_UP, 0, NULL, NULL, act_up },
	{ KEY_NPAGE, 0, "PgDn PgUp", "next / previous page", act_pgdn },
	{ KEY_PPAGE, 0, NULL, NULL, act_pgup },
	{ 'g', KEY_HOME, "g Home", "first event", act_home },
	{ 'G', KEY_END, "G End", "last event", act_end },
	{ 't', 0, "t T", "one timeline bin forward / back", act_bin_fwd },
	{ 'T', 0, NULL, NULL, act_bin_back },
	{ 'j', 0, "j", "jump to a time: 12.5  +2s  -500ms  14:03:07.25", act_jump },
	{ 'e', 0, "e E", "next / previous error", act_next_error },
	{ 'E', 0, NULL, NULL, act_prev_error },
	{ '/', 0, "/", "filter expression, q2c > 5ms too (empty clears; errors keep the old one)", act_filter },
	{ 'n', 0, "n N", "next / previous match of the search", act_search_next },
	{ 'N', 0, NULL, NULL, act_search_prev },
	{ '\\', 0, "\\", "new search expression", act_search },
	{ 's', 0, "s", "speculation view on / off", act_spec },
	{ 'p', 0, "p", "pick a profile", act_profile },
	{ '+', '=', "+ -", "zoom the time window in / out", act_zoom_in },
	{ '-', 0, NULL, NULL, act_zoom_out },
	{ '\t', 0, "Tab", "next panel", act_focus },
	{ '\r', '\n', "Enter", "detail of the event and its whole I/O", act_detail },
	{ 'o', 0, "o", "object table (Enter filters, l shows its LBA heatmap)", act_objects },
	{ 'm', 0, "m", "mark / unmark the event", act_mark },
	{ '\'', 0, "'", "list marks", act_marks },
	{ 'x', 0, "x", "export the view (CSV, or JSON by .json)", act_export },
	{ 'F', 0, "F", "follow a growing file", act_follow },
	{ 'L', 0, "L", "timeline: a lane per heatmap row", act_lanes },
	{ 'c', 0, "c", "timeline metric: errors, IOPS, MiB/s, latency (D2C) p50, p99, Q2C p50, p99", act_tl_metric },
	{ 'b', 0, "b", "latency histogram of the object (log2; 1 D2C, 2 Q2C, 3 queue time)", act_hist },
	{ 'A', 0, "A", "aggregations of the D script picked with p, over the window", act_agg },
	{ 'P', 0, "P", "per-process view: I/Os, bytes, errors, avg / p99 latency", act_procs },
	{ 'i', 0, "i", "list: one row per completed I/O / every event", act_io_list },
	{ 'M', 0, "M", "heatmap metric: iops, bytes, latency-p99, errors, -p50, q2c-p50, -p99", act_metric },
	{ 'H', 0, "H", "heatmap by object again", act_heat_objects },
	{ 'z', 0, "z Z", "LBA heatmap: zoom the sectors in / out (around the row selected)",
	  act_lba_in },
	{ 'Z', 0, NULL, NULL, act_lba_out },
	{ ']', 0, "] [", "LBA heatmap: half a range to higher / lower sectors", act_lba_up },
	{ '[', 0, NULL, NULL, act_lba_down },
	{ 12, 0, "^L", "redraw", act_redraw },
	{ 'q', KEY_F(10), "q F10", "quit", act_quit },
	{ 0 }
};

const struct tui_keybar_item vr_keybar[] = {
	{ "?", "Help" }, { "/", "Filter" }, { "e", "Error" }, { "j", "Jump" }, { "s", "Spec" },
	{ "p", "Prof" }, { "o", "Objs" }, { "c", "Chart" }, { "x", "Export" }, { "+-", "Zoom" }, { "q", "Quit" },
	{ NULL, NULL }
};
