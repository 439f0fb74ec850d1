/* ivfilter.h - the browser's filter on the interval fields (ivfilter.c) */
#ifndef VXREPLAY_BROWSER_IVFILTER_H
#define VXREPLAY_BROWSER_IVFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vxtrace/event.h"

struct vr_model;
struct vxt_filter;
struct vr_ivfilter;

/* @f (borrowed for the result's life) judged with the intervals of the
 * model's pairing (pairjob.h), which is brought to the end of the file now
 * when it has not got there. @return it, or NULL with the reason in @err
 * (out of memory, the file cannot be read). */
struct vr_ivfilter *vr_ivfilter_new(struct vr_model *m, struct vxt_filter *f, char *err,
				    size_t errsz);
/* @f on @ev of ordinal @ord, a completion judged by its own I/O's intervals. */
bool vr_ivfilter_match(struct vr_ivfilter *x, const struct vxt_event *ev, uint64_t ord);
/* NULL is fine. */
void vr_ivfilter_free(struct vr_ivfilter *x);

#endif
