/* bigbuf.h - large buffers on huge pages where the kernel gives them
 * (internal)
 *
 * For a few MiB written once soon after they are asked for (the file chunks
 * a merge holds decompressed): on 4 KiB pages each page costs a fault the
 * first time it is written, on 2 MiB pages one fault maps 512 of them.
 */
#ifndef VXT_BIGBUF_H
#define VXT_BIGBUF_H

#include <stddef.h>

#define VXT_BIGBUF_ALIGN ((size_t)2 << 20)	/* a huge page on x86-64 and arm64 */

/* @size bytes (zero), mapped on a VXT_BIGBUF_ALIGN boundary, @size rounded
 * up to it into *@mapped, and huge pages asked for (a kernel without them
 * gives ordinary pages: the same memory to the caller).
 * @return the buffer, or NULL when it cannot be mapped; caller frees with
 * vxt_bigbuf_free(). */
void *vxt_bigbuf_alloc(size_t size, size_t *mapped);
/* Unmap a buffer of vxt_bigbuf_alloc() (@p NULL is fine). */
void vxt_bigbuf_free(void *p, size_t mapped);

#endif
