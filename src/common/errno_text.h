/* Words for the errno values opening, reading or mapping a file can meet
 * (internal). strerror() is not thread-safe and strerror_r() has two
 * incompatible variants, so the library keeps its own. */
#ifndef ETMKIT_COMMON_ERRNO_TEXT_H
#define ETMKIT_COMMON_ERRNO_TEXT_H

/* A static string; "cannot be read" for values not listed. */
const char *etmkit_errno_text(int e);

#endif
