/* keep_script.h - vxrecord --script: the script's kept events reach the file (see keep_script.c) */
#ifndef VXRECORD_KEEP_SCRIPT_H
#define VXRECORD_KEEP_SCRIPT_H

#include <stdio.h>

#include "vxtrace/script.h"
#include "vxtrace/vxtrace.h"

#define KEEP_SCRIPT_XMAX 64	/* -x settings */

struct keep_script {
	const char *name;		/* --script NAME, or NULL */
	const char *xopts[KEEP_SCRIPT_XMAX];	/* -x NAME=VALUE */
	unsigned nx;
	char **margs;			/* after "--": the script's $1 ... */
	unsigned nmargs;
	struct vxt_script *s;
	bool live;			/* ticks and cleanrate on the wall clock */
	uint64_t next_ord;		/* the ordinal of the next event pushed */
	uint64_t last_out;		/* ordinal of the last event written + 1 */
	struct vxt_script_rec *held;	/* kept events not yet written, any order */
	size_t nheld, capheld;
	uint64_t written;		/* events written */
	bool header, printed;		/* dtrace's column header came; text went out */
};

/* Find and compile the script. @return 0, or -1 with a message in @err. */
int keep_script_open(struct keep_script *ks, const char *dir, char err[VXT_ERRBUF_SIZE]);
/* BEGIN. @return 0 or a negative errno. */
int keep_script_start(struct keep_script *ks, const struct vxt_objtab *objs,
		      const struct vxt_strtab *strs, bool live);
/* Run @n events through the script and add to @out, in time order, the
 * kept events no active speculation can still precede. @return 0 or a
 * negative errno. */
int keep_script_push(struct keep_script *ks, const struct vxt_event *ev, size_t n,
		     struct vxt_batch *out);
/* Live: fire due ticks, clean busy buffers. @return as keep_script_push(). */
int keep_script_tick(struct keep_script *ks, struct vxt_batch *out);
/* END: the rest of the kept events added to @out. @return as keep_script_push(). */
int keep_script_finish(struct keep_script *ks, struct vxt_batch *out);
/* The script called exit(). */
bool keep_script_exited(const struct keep_script *ks);
/* "  kept N of M, committed C, ..." for the progress line. */
const char *keep_script_progress(const struct keep_script *ks, char *buf, size_t size);
/* The closing lines: kept, speculation figures, DTrace's report lines. */
void keep_script_summary(const struct keep_script *ks, FILE *out);
void keep_script_close(struct keep_script *ks);

#endif
