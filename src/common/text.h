/* Small string helpers (internal): locale-independent ASCII case folding
 * (names in snapshots and memory-space names are ASCII, and tolower() and
 * strcasecmp() follow the locale), a hex digit's value, a bounded copy,
 * and the printf format check for message builders. */
#ifndef ETMKIT_COMMON_TEXT_H
#define ETMKIT_COMMON_TEXT_H

#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ETMKIT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ETMKIT_PRINTF(f, a)
#endif

static inline int ascii_lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* strcasecmp() for ASCII names. */
static inline int ascii_casecmp(const char *a, const char *b)
{
	while (*a && ascii_lower((unsigned char)*a) ==
		     ascii_lower((unsigned char)*b)) {
		a++;
		b++;
	}
	return ascii_lower((unsigned char)*a) - ascii_lower((unsigned char)*b);
}

/* The value of the hex digit @c (0-9, a-f, A-F), -1 if it is none. */
static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* strncpy that always terminates and never pads (@size > 0). */
static inline void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

#endif
