/* Locale-independent ASCII case folding (internal): names in snapshots and
 * memory-space names are ASCII, and tolower()/strcasecmp() follow the
 * locale. */
#ifndef ETMKIT_COMMON_ASCII_H
#define ETMKIT_COMMON_ASCII_H

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

#endif
