/* Words for errno values (see errno_text.h). */
#include <errno.h>

#include "common/errno_text.h"

const char *etmkit_errno_text(int e)
{
	switch (e) {
	case ENOENT: return "no such file or directory";
	case EACCES: return "permission denied";
#ifdef EISDIR
	case EISDIR: return "is a directory";
#endif
#ifdef ENOTDIR
	case ENOTDIR: return "a component of the path is not a directory";
#endif
#ifdef ENAMETOOLONG
	case ENAMETOOLONG: return "file name too long";
#endif
#ifdef ELOOP
	case ELOOP: return "too many levels of symbolic links";
#endif
#ifdef EMFILE
	case EMFILE: return "too many open files";
#endif
#ifdef EIO
	case EIO: return "input/output error";
#endif
#ifdef ENODEV
	case ENODEV: return "the file system cannot map files";
#endif
	case ENOMEM: return "out of memory";
	default: return "cannot be read";
	}
}
