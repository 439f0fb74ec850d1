/* reader_impl.h - what the scanner reads of a reader (internal) */
#ifndef VXT_READER_IMPL_H
#define VXT_READER_IMPL_H

#include "format/chunkdec.h"

/* The file the reader reads, and its name for messages. */
const struct vxt_chunksrc *vxt_reader_src(const struct vxt_reader *r);
const char *vxt_reader_name(const struct vxt_reader *r);

#endif
