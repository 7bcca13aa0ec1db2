/* Growable arrays (internal). */
#ifndef ETMKIT_COMMON_VEC_H
#define ETMKIT_COMMON_VEC_H

#include <stddef.h>
#include <stdlib.h>

/* Room for element @n of a growable array of @elem-byte elements with
 * capacity *@cap: returns the (possibly moved) array, or NULL (the old one
 * is left alone) when memory runs out. Callers bound @n first. */
static inline void *vec_room(void *items, size_t n, size_t *cap, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return items;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(items, ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

#endif
