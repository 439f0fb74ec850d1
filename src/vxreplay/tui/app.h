/* app.h - vxreplay's browser: the screen over the model
 *
 * Internal to the tui*.c files of vxreplay: the application state that the
 * panels (panels.c), overlays (overlays.c) and key actions
 * (keys.c) share. Data lives in struct vr_model (model.h, no curses).
 */
#ifndef VXREPLAY_TUI_APP_H
#define VXREPLAY_TUI_APP_H

#include "tui/tui.h"
#include "browser/model.h"
#include "tui_help.h"
#include "tui_screen.h"
#include "tui_table.h"

#define VR_LABEL_W	8	/* left column of the timeline and heatmap */
#define VR_LIST_MAX	512	/* most list rows on a screen */

/* List columns; the names (vr_column_parse()) are those of profiles. */
enum vr_col {
	VR_COL_TIME, VR_COL_WALL, VR_COL_OBJECT, VR_COL_DEV, VR_COL_PHASE, VR_COL_OP,
	VR_COL_FLAGS, VR_COL_SECTOR, VR_COL_BYTES, VR_COL_LATENCY, VR_COL_ERROR, VR_COL_PID,
	VR_COL_COMM, VR_COL_CPU, VR_COL_SPEC, VR_COL_MARK, VR_COL_ISSUE, VR_COL_Q2C, VR_COL_QUEUED, VR_COL_Q2D,
	VR_COL_D2C, VR_COL_I2D, VR_COL_Q2G, VR_COL_G2I, VR_COL_COUNT
};

/* What the timeline plots (c switches). */
enum vr_tl_metric { VR_TLM_ERRORS, VR_TLM_IOPS, VR_TLM_MBS, VR_TLM_P50, VR_TLM_P99, VR_TLM_Q2C_P50,
		    VR_TLM_Q2C_P99, VR_TLM_COUNT };

struct vr_objrow {
	uint32_t id;
	uint64_t ios, reads, writes, bytes, errors, lat_sum;
};

struct vr_app {
	struct vr_model m;
	struct tui_screen scr;
	const struct vxreplay_tui_opts *opts;
	struct tui_panel header, timeline, heatmap, list;
	struct tui_help help;
	struct tui_panel detail;
	uint64_t detail_ord;
	int detail_top;
	struct tui_table objects;
	struct vr_objrow *objrows;
	size_t nobjrows;
	struct tui_table markt;
	struct tui_table proft;
	char (*profnames)[64];
	char (*profdesc)[200];		/* each profile's description: (one line) */
	int nprof;
	bool lanes;			/* timeline: a lane per object */
	int tl_metric;			/* enum vr_tl_metric */
	struct tui_panel hist;		/* the latency histogram overlay (b) */
	struct tui_panel agg;		/* the D script's aggregations (A) */
	int agg_top;			/* its first line shown */
	struct tui_table proct;		/* the per-process view (P) */
	struct tui_panel_ops proc_ops;	/* the table's, drawing the job's progress */
	const struct tui_panel_ops *proc_base;
	int hist_row;			/* its timeline row, -1 = every object */
	int hist_kind;			/* D2C, Q2C, queue time */
	uint64_t *tl_vals;		/* per bin: the plotted values */
	unsigned tl_vals_n;
	int hm_top, hm_sel;
	uint64_t list_ords[VR_LIST_MAX];
	int nlist;
	uint8_t *tl_marks;		/* per bin: a user mark */
	unsigned tl_marks_n;
	uint8_t *tl_uncapt;		/* per bin: not captured (tl_marks_n of them) */
	const char *labels[VR_LBA_ROWS_MAX > VR_MAX_ROWS ? VR_LBA_ROWS_MAX : VR_MAX_ROWS];
	char label_buf[VR_LBA_ROWS_MAX > VR_MAX_ROWS ? VR_LBA_ROWS_MAX : VR_MAX_ROWS][40];
	char search[256];
	struct vxt_filter *search_f;
	char progress[64];
	char export_replace[256];	/* x: the existing file the user was asked about */
	char hidden[96];		/* the panels the layout hid, "" = none */
	int hm_need;			/* > 0: the heatmap is one row, this many short */
	int list_hcol;			/* the list scrolled sideways by this many columns */
};

/* panels.c */
void vr_panels_init(struct vr_app *a);
void vr_layout(void *app, struct tui_screen *s, int lines, int cols);
/* The relative time "12.345678" of @t. */
char *vr_reltime(const struct vr_app *a, uint64_t t, char *buf, size_t size);
/* The list column named @name ("time", "object" ...), or -1. */
int vr_column_parse(const char *name);
/* Object name of id @id ("?" when unknown). */
const char *vr_objname(const struct vr_app *a, uint32_t id);

/* tlpanel.c */
extern const struct tui_panel_ops vr_timeline_ops;
/* Heatmap rows outside [@from, @to) with errors in the window, as
 * "sdb 30, sda 5" in @buf. @return how many. */
int vr_heat_hidden_errors(const struct vr_app *a, int from, int to, char *buf, size_t size);
/* Move the cursor one timeline bin forward (@dir > 0) or back. */
int vr_step_bin(struct vr_app *a, int dir);
/* True when the timeline shrinks to its axis (errors plotted, none in the file). */
bool vr_timeline_compact(const struct vr_app *a);
/* "Errors", "IOPS", "MiB/s", "Latency p50", "Latency p99". */
const char *vr_tl_metric_name(int metric);

/* histpanel.c */
int vr_open_hist(struct vr_app *a);
/* True when the trace holds queue-side phases (events beyond issues,
 * completions and lost records in some chunk's index). */
bool vr_has_queue_side(const struct vr_model *m);

/* aggpanel.c */
int vr_open_agg(struct vr_app *a);

/* procview.c: the per-process view (P) and the I/O listing (i) */
int vr_open_procs(struct vr_app *a);
int vr_toggle_io_list(struct vr_app *a);
void vr_procview_init(struct vr_app *a);
/* The latency histogram of timeline row @row (-1 = all) into @h
 * (VXT_LAT_BUCKETS). @return its I/Os. */
uint64_t vr_hist_of(const struct vxt_timeline *tl, int row, uint64_t *h);

/* heatpanel.c */
extern const struct tui_panel_ops vr_heatmap_ops;
/* Sector @s for a label of a row of @row sectors: digits, or 123.4M / 1.19G
 * sectors with the decimals that tell rows apart. @return buf. */
char *vr_sector_label(uint64_t s, uint64_t row, char *buf, size_t size);

/* keys.c */
extern const struct tui_action vr_keys[];
extern const struct tui_keybar_item vr_keybar[];

/* apply.c */
/* Apply a filter expression ("" = none). @return 0, or -1 with @err set. */
int vr_apply_filter(struct vr_app *a, const char *text, char *err, size_t errsz);
/* Apply a profile ("" = none). @return 0, or -1 with @err set. */
int vr_apply_profile(struct vr_app *a, const char *name, char *err, size_t errsz);
/* Copy the model's note to the status line. */
void vr_show_note(struct vr_app *a);

/* overlays.c */
void vr_overlays_init(struct vr_app *a);
int vr_open_detail(struct vr_app *a);
int vr_open_objects(struct vr_app *a);
int vr_open_marks(struct vr_app *a);
int vr_open_profiles(struct vr_app *a);
void vr_overlays_free(struct vr_app *a);

#endif
