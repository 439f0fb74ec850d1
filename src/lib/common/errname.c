/* errname.c - errno numbers <-> their symbolic names ("EIO") */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/util.h"

#define E(x) { x, #x }
static const struct { int num; const char *name; } errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK),
	E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
	E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE),
	E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ENOSTR),
	E(ENODATA), E(ETIME), E(ENOSR), E(ENOLINK), E(EPROTO), E(EBADMSG), E(EOVERFLOW),
	E(EILSEQ), E(EUSERS), E(ENOTSOCK), E(EOPNOTSUPP), E(ETIMEDOUT), E(ECONNREFUSED),
	E(EHOSTDOWN), E(EALREADY), E(EINPROGRESS), E(ESTALE), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED),
	E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL),
	E(EHWPOISON), E(ENOLINK), E(ECOMM), E(ENOTCONN), E(ECONNRESET), E(ENETDOWN),
};
#undef E

const char *vxt_errno_name(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].num == err)
			return errnames[i].name;
	return NULL;
}

const char *vxt_errno_label(int err, char *buf, size_t size)
{
	const char *n = vxt_errno_name(err);

	if (!err)
		return "";
	if (n)
		return n;
	snprintf(buf, size, "%d", err < 0 ? -err : err);
	return buf;
}

int vxt_errno_parse(const char *s)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (!strcmp(errnames[i].name, s))
			return errnames[i].num;
	if (!strcmp(s, "EWOULDBLOCK"))
		return EAGAIN;
	v = strtol(s, &end, 10);
	if (end == s || *end || v < 0 || v > 4095)
		return -1;
	return (int)(v < 0 ? -v : v);
}
