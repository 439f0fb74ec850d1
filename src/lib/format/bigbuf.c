/* bigbuf.c - large buffers on huge pages where the kernel gives them
 *
 * The kernel backs an anonymous mapping with a 2 MiB page only where the
 * mapping covers that aligned 2 MiB whole, and (transparent huge pages in
 * "madvise" mode, Debian's default) only where madvise(MADV_HUGEPAGE) asked
 * for it. So a buffer is mapped 2 MiB larger than rounded, the unaligned
 * head and tail are unmapped again, and the rest is advised. See bigbuf.h.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "format/bigbuf.h"

void *vxt_bigbuf_alloc(size_t size, size_t *mapped)
{
	size_t len, head;
	uint8_t *p;

	if (!size || size > SIZE_MAX - 2 * VXT_BIGBUF_ALIGN)
		return NULL;
	len = (size + VXT_BIGBUF_ALIGN - 1) & ~(VXT_BIGBUF_ALIGN - 1);
	p = mmap(NULL, len + VXT_BIGBUF_ALIGN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = (VXT_BIGBUF_ALIGN - (uintptr_t)p % VXT_BIGBUF_ALIGN) % VXT_BIGBUF_ALIGN;
	if (head)
		munmap(p, head);
	munmap(p + head + len, VXT_BIGBUF_ALIGN - head);
	p += head;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);	/* advice: without it, ordinary pages */
#endif
	*mapped = len;
	return p;
}

void vxt_bigbuf_free(void *p, size_t mapped)
{
	if (p)
		munmap(p, mapped);
}
