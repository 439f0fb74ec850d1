/* keep_filter.h - vxreplay's --filter for reports and exports: the events
 * matching the expression, with the interval fields (q2c, ...) of each
 * completion paired from the events in scope */
#ifndef VXREPLAY_KEEP_FILTER_H
#define VXREPLAY_KEEP_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "vxtrace/vxtrace.h"

struct keep_filter;

/* Take @f (freed with the result). @return NULL when out of memory (@f is
 * freed then too). */
struct keep_filter *keep_filter_new(struct vxt_filter *f);
/* A report_ctx keep function: @arg is the struct keep_filter. Events come in
 * time order; an ordinal not past the last one starts a new pass. */
bool keep_filter_match(const struct vxt_event *ev, uint64_t ordinal, void *arg);
/* NULL is fine. */
void keep_filter_free(struct keep_filter *k);

#endif
