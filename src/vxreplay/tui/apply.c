/* apply.c - vxreplay's browser: changes to the model that several screens make
 *
 * Applying a filter or a profile (from a key's prompt, the profile list, the
 * objects overlay or the command line) restarts the counting and the
 * binning; the model's note goes to the status line. The key table
 * (keys.c) and the overlays (overlays.c) both call these, never each other.
 */
#include "tui/app.h"

void vr_show_note(struct vr_app *a)
{
	if (!a->m.note[0])
		return;
	tui_screen_msg(&a->scr, a->m.note_error ? TUI_R_MSG_ERROR : TUI_R_MSG, "%s", a->m.note);
	a->m.note[0] = 0;
	a->m.note_error = false;
}


int vr_apply_filter(struct vr_app *a, const char *text, char *err, size_t errsz)
{
	struct vr_model *m = &a->m;

	if (vr_filter_set(m, text, err, errsz) < 0)
		return -1;
	m->job[VR_JOB_COUNT] = (struct vr_job){ .active = m->view.match != NULL,
						.end = vxt_reader_nchunks(m->rd) };
	vr_model_rebin(m);
	vr_model_reseat(m);
	return 0;
}


int vr_apply_profile(struct vr_app *a, const char *name, char *err, size_t errsz)
{
	struct vr_model *m = &a->m;

	if (vr_profile_apply(m, name, vr_column_parse, err, errsz) < 0)
		return -1;
	m->job[VR_JOB_COUNT] = (struct vr_job){ .active = m->view.match != NULL,
						.end = vxt_reader_nchunks(m->rd) };
	m->hm_dirty = true;
	if (m->fixed_bin_ns)
		vr_model_set_window(m, m->w0, m->w1, m->nbins);
	vr_model_rebin(m);
	vr_model_reseat(m);
	return 0;
}

