/* vxtrace.h - libvxtrace, the block-I/O tracing library behind vxrecord,
 * vxreplay and vxtop
 *
 * Include this one header for everything. Conventions: functions return 0 (or
 * a count) on success and a negative errno on failure; opening calls report
 * into a caller's char[VXT_ERRBUF_SIZE], later calls through the handle's
 * *_error(). *_free(NULL) and *_close(NULL) are fine.
 */
#ifndef VXTRACE_VXTRACE_H
#define VXTRACE_VXTRACE_H

#define VXT_VERSION_MAJOR 0
#define VXT_VERSION_MINOR 1
#define VXT_VERSION_PATCH 0
#define VXT_VERSION_STRING "0.1.0"

#include "event.h"
#include "objtab.h"
#include "strtab.h"
#include "util.h"
#include "outfile.h"
#include "escape.h"
#include "chanrec.h"
#include "source.h"
#include "vxt.h"
#include "stats.h"
#include "procstats.h"
#include "filter.h"
#include "spec.h"
#include "profile.h"
#include "view.h"
#include "pipeline.h"
#include "script.h"

/* @return the library's version string, e.g. "0.1.0". */
const char *vxt_version(void);

#endif
