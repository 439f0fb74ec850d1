/* kmod_spec.h - the buffers a kernel speculation takes in the module
 *
 * The module's VOLIOT_IO_SPECULATE program is sized by the profile's nspec
 * and specsize (struct vxt_kspec): see kmod_spec.c.
 */
#ifndef VXT_SOURCE_KMOD_SPEC_H
#define VXT_SOURCE_KMOD_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "vxtrace/source.h"
#include "vxtrace/voltrace.h"

/* The most bytes one I/O leaves in a request buffer: its start and 15
 * requeues, each a struct voliot_io_rec. */
#define VXT_KMOD_SPEC_REQ_SIZE	(16u * (uint32_t)sizeof(struct voliot_io_rec))

/* The module's nspec and specsize for @ks over the @n want sets @sets:
 * the profile's, with, keyed by object, no more buffers than objects
 * traced (vxt_kmod_spec_objects()), and keyed by request no more than
 * VXT_KMOD_SPEC_REQ_SIZE bytes a buffer. @return 0, or -E2BIG when a
 * size does not fit the ioctl's 32 bits (one phrase in @why). */
int vxt_kmod_spec_size(const struct vxt_kspec *ks, const union voliot_want_set *sets, int n,
		       uint32_t *nspec, uint32_t *specsize, char *why, size_t len);
/* The objects @sets select: a partition 1, a whole device 1 and its
 * partitions, every device the block devices there are now (sysfs). */
unsigned vxt_kmod_spec_objects(const union voliot_want_set *sets, int n);
/* Why the module refused @nspec buffers of @specsize bytes with E2BIG: one
 * phrase naming the sizes and the module's spec_max_bytes (read from
 * sysfs when it can be). */
void vxt_kmod_spec_toobig(uint32_t nspec, uint32_t specsize, unsigned key_objects,
			  char *why, size_t len);

#endif
